"""Import-only placeholder for pymupdf on the GPU check machine (its 69 MB wheel is over what a call may carry).

run.sh puts it on sys.path only where the real pymupdf is missing. The page embedder and the visual stage import
pdf/page_images.py and pdf/document.py, which read three flags at import; the measured code never calls pymupdf:
the pages were rendered beforehand by the product's own page_images() (prepare.py). Any other attribute raises,
so an unexpected use fails loudly."""
TEXTFLAGS_WORDS = 0
TEXT_MEDIABOX_CLIP = 0
TEXT_PRESERVE_LIGATURES = 0


def __getattr__(name):
    raise AttributeError(f"pymupdf is only an import stub on the GPU check machine (asked for {name!r})")
