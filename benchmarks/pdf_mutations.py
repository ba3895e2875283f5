"""Seeded, reproducible PDF mutations for robustness fuzzing (benchmarks/fuzz_pdfs.py, tests/test_fuzz.py).

`make_case(run_seed, index, seeds)` always builds the same bytes for the same arguments and seeds:
case `index` uses mutation KINDS[index % len(KINDS)] and a random.Random seeded from (run_seed, index).
Byte-level mutations damage small seed PDFs (first pages of corpus files, re-saved by pymupdf);
structural ones are written with pymupdf or with the minimal writer below (exact control of every byte).
"""
from __future__ import annotations

import random
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

WORDS = ("ledger tariff turbine breakwater sardine invoice clause annex river "
         "budget council audit pension quarter revenue margin ferry pier crane cargo tide beacon").split()


@dataclass(frozen=True)
class Seed:
    name: str
    data: bytes


@dataclass(frozen=True)
class Case:
    index: int
    kind: str
    seed: str  # the seed PDF it started from ("-" for files built from scratch)
    detail: str  # what exactly was done, for the report
    data: bytes

    @property
    def file_name(self) -> str:
        return f"{self.index:05d}-{self.kind}.pdf"


# -- seeds -------------------------------------------------------------------------------------

def seeds_from(pdfs: list[Path], pages: int = 2, max_bytes: int = 600_000) -> list[Seed]:
    """The first pages of each PDF, saved twice: with a classic xref table and with object/xref streams.
    Seeds over max_bytes (pages full of photos) are left out: the fuzz run's time goes to many small files."""
    import pymupdf

    seeds = []
    for pdf in pdfs:
        with pymupdf.open(pdf) as src:
            part = pymupdf.open()
            part.insert_pdf(src, from_page=0, to_page=min(pages, src.page_count) - 1)
        with part:
            part.set_metadata({})
            classic = _fixed_id(part.tobytes(garbage=3, deflate=True))
            packed = _fixed_id(part.tobytes(garbage=3, deflate=True, use_objstms=1))
        if len(classic) <= max_bytes:
            seeds += [Seed(f"{pdf.stem}@{pages}p", classic), Seed(f"{pdf.stem}@{pages}p-objstm", packed)]
    return seeds


def _fixed_id(data: bytes) -> bytes:
    """mupdf writes a fresh random /ID on every save: zero it (same length) so seeds are reproducible."""
    return re.sub(rb"/ID\s*\[\s*<([0-9A-Fa-f]*)>\s*<([0-9A-Fa-f]*)>\s*\]",
                  lambda m: b"/ID" + re.sub(rb"[0-9A-Fa-f]", b"0", m.group(0)[3:]), data)


# -- a minimal PDF writer: correct xref offsets, every byte chosen here ------------------------

def build_pdf(objects: list[bytes], root: int = 1) -> bytes:
    """Objects 1..n (bodies without `obj`/`endobj`) with a valid xref table and trailer."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, root, xref)
    return bytes(out)


def stream(data: bytes, entries: bytes = b"", compress: bool = True) -> bytes:
    if compress:
        data, entries = zlib.compress(data), entries + b" /Filter /FlateDecode"
    return b"<< /Length %d%s >>\nstream\n" % (len(data), entries) + data + b"\nendstream"


def one_page_pdf(content: bytes, page_extra: bytes = b"", resources: bytes = b"",
                 catalog_extra: bytes = b"", more: list[bytes] = ()) -> bytes:
    """Catalog 1, Pages 2, Page 3, content 4, Helvetica 5, then `more` objects (6, 7, ...)."""
    return build_pdf([
        b"<< /Type /Catalog /Pages 2 0 R" + catalog_extra + b" >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >>" + resources + b" >>" + page_extra + b" >>",
        stream(content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        *more,
    ])


def text_content(lines: list[str], size: float = 11, top: float = 760) -> bytes:
    ops = [b"BT /F1 %g Tf %g TL 50 %g Td" % (size, size * 1.2, top)]
    ops += [b"(" + _pdf_string(line) + b") Tj T*" for line in lines]
    return b"\n".join(ops + [b"ET"])


def _pdf_string(text: str) -> bytes:
    return text.encode("latin-1", "replace").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _sentence(rng: random.Random, words: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


# -- byte-level mutations of seed files ---------------------------------------------------------

def byte_flips(rng: random.Random, seed: Seed) -> tuple[bytes, str]:
    data = bytearray(seed.data)
    count = rng.choice((1, 3, 10, 50, 200))
    clustered = rng.random() < 0.5  # a damaged sector, not spread noise
    centre = rng.randrange(len(data))
    for _ in range(count):
        pos = min(len(data) - 1, max(0, centre + rng.randrange(-256, 256))) if clustered else rng.randrange(len(data))
        data[pos] ^= rng.randrange(1, 256)
    return bytes(data), f"{count} bytes xor-ed{' around offset %d' % centre if clustered else ''}"


def truncate(rng: random.Random, seed: Seed) -> tuple[bytes, str]:
    cut = rng.randrange(0, 40) if rng.random() < 0.1 else rng.randrange(len(seed.data))
    return seed.data[:cut], f"cut at {cut} of {len(seed.data)} bytes"


def damage_xref(rng: random.Random, seed: Seed) -> tuple[bytes, str]:
    data = seed.data
    table = data.rfind(b"\nxref")
    trailer = data.rfind(b"trailer")
    startxref = data.rfind(b"startxref")
    variants = ["bad_startxref", "bad_root", "bad_size", "no_trailer", "prev_loop"]
    if table >= 0 and trailer > table:
        variants += ["shift_offsets", "garbage_table", "drop_table"]
    variant = rng.choice(variants)
    if variant == "shift_offsets":
        entries = list(re.finditer(rb"(\d{10}) (\d{5}) n", data[table:trailer]))
        out = bytearray(data)
        for m in rng.sample(entries, max(1, len(entries) // rng.choice((1, 3, 10)))):
            start = table + m.start(1)
            value = max(0, int(m.group(1)) + rng.choice((-1, 1)) * rng.randrange(1, 5000))
            out[start:start + 10] = b"%010d" % min(value, 9_999_999_999)
        return bytes(out), variant
    if variant == "garbage_table":
        return data[:table + 5] + rng.randbytes(trailer - table - 5) + data[trailer:], variant
    if variant == "drop_table":
        return data[:table + 1] + data[trailer:], variant
    if variant == "bad_startxref":
        offset = rng.choice((0, 1, rng.randrange(len(data)), len(data) + 10_000, 99_999_999_999))
        return re.sub(rb"startxref\s+\d+", b"startxref\n%d" % offset, data[:]), f"{variant} {offset}"
    if variant == "bad_root":
        target = rng.choice((b"99999 0", b"0 0", b"1 0", b"2 0", b"3 0", b"-4 0"))
        return _in_trailer(data, rb"/Root\s+\d+\s+\d+", b"/Root " + target), f"{variant} {target.decode()}"
    if variant == "bad_size":
        size = rng.choice((b"0", b"1", b"-5", b"2147483647", b"99999999999999"))
        return _in_trailer(data, rb"/Size\s+\d+", b"/Size " + size), f"{variant} {size.decode()}"
    if variant == "no_trailer":
        cut = trailer if trailer > 0 else max(0, startxref)
        return data[:cut], variant
    # prev_loop: the last xref section says the previous one is itself
    m = re.search(rb"startxref\s+(\d+)", data[startxref:])
    own = m.group(1) if m else b"0"
    return _in_trailer(data, rb"/Size\s+\d+", b"/Prev " + own + b" /Size 99"), variant


def _in_trailer(data: bytes, pattern: bytes, replacement: bytes) -> bytes:
    """Replace in the last trailer (classic) or the last xref stream dictionary."""
    start = max(data.rfind(b"trailer"), data.rfind(b"/XRef"))
    start = data.rfind(b"<<", 0, start) if data.rfind(b"trailer") < 0 else start
    head, tail = data[:max(0, start)], data[max(0, start):]
    return head + re.sub(pattern, replacement, tail, count=1)


_STREAM = re.compile(rb"stream\r?\n")


def _streams(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each stream's data."""
    spans = []
    for m in _STREAM.finditer(data):
        if data[max(0, m.start() - 3):m.start()] == b"end":
            continue
        end = data.find(b"endstream", m.end())
        if end > m.end():
            spans.append((m.end(), end))
    return spans


def corrupt_stream(rng: random.Random, seed: Seed) -> tuple[bytes, str]:
    spans = _streams(seed.data)
    if not spans:
        return byte_flips(rng, seed)
    start, end = rng.choice(spans)
    out = bytearray(seed.data)
    length = end - start
    a = start + rng.randrange(length)
    b = min(end, a + rng.choice((1, 16, 256, length)))
    how = rng.choice(("random", "zeros", "reverse"))
    out[a:b] = rng.randbytes(b - a) if how == "random" else bytes(b - a) if how == "zeros" else out[a:b][::-1]
    return bytes(out), f"{how} bytes {a}-{b} in the stream at {start}"


def misdeclared_stream(rng: random.Random, seed: Seed) -> tuple[bytes, str]:
    """A stream whose dictionary lies: length, filter, predictor, or image geometry."""
    data = seed.data
    spans = _streams(data)
    if not spans:
        return byte_flips(rng, seed)
    start, _ = rng.choice(spans)
    head_start = data.rfind(b"<<", 0, start)
    while head_start > 0 and data.count(b"<<", head_start, start) > data.count(b">>", head_start, start):
        head_start = data.rfind(b"<<", 0, head_start)  # the outermost dictionary of this stream
    head = data[head_start:start]
    image = b"/Image" in head
    choices = ["length", "filter", "predictor"] + (["image_geometry"] * 3 if image else [])
    what = rng.choice(choices)
    if what == "length":
        value = rng.choice((b"0", b"1", b"-1", b"99999999", b"2147483648"))
        new = re.sub(rb"/Length\s+\d+(\s+\d+\s+R)?", b"/Length " + value, head, count=1)
        detail = f"/Length {value.decode()}"
    elif what == "filter":
        name = rng.choice((b"/DCTDecode", b"/JBIG2Decode", b"/JPXDecode", b"/LZWDecode", b"/RunLengthDecode",
                           b"/CCITTFaxDecode", b"/ASCII85Decode", b"/Nonsense", b"[/FlateDecode /FlateDecode]"))
        if b"/Filter" in head:
            new = re.sub(rb"/Filter\s*(/\w+|\[[^\]]*\])", b"/Filter " + name, head, count=1)
        else:
            new = head.replace(b"<<", b"<< /Filter " + name, 1)
        detail = f"/Filter {name.decode()}"
    elif what == "predictor":
        parms = rng.choice((b"<< /Predictor 15 /Columns 100000000 /Colors 99 >>", b"<< /Predictor 2 /BitsPerComponent 7 >>",
                            b"<< /Predictor -3 /Columns -1 >>", b"<< /EarlyChange 5 /K -1 /Columns 0 >>"))
        new = head.replace(b"<<", b"<< /DecodeParms " + parms, 1)
        detail = f"/DecodeParms {parms.decode()}"
    else:
        key, value = rng.choice(((b"/Width", b"1000000"), (b"/Height", b"2147483647"), (b"/Width", b"0"),
                                 (b"/BitsPerComponent", b"3"), (b"/BitsPerComponent", b"64"),
                                 (b"/ColorSpace", b"/DeviceN"), (b"/ColorSpace", b"/DeviceCMYK"),
                                 (b"/Height", b"-5")))
        if key in head:
            new = re.sub(re.escape(key) + rb"\s*(/\w+|\[[^\]]*\]|\d+\s+\d+\s+R|-?\d+)", key + b" " + value, head, count=1)
        else:
            new = head.replace(b"<<", b"<< " + key + b" " + value, 1)
        detail = f"image {key.decode()} {value.decode()}"
    out = data[:head_start] + new + data[start:]
    return (fix_xref(out) if b"\nxref" in out else out), detail


def splice_garbage(rng: random.Random, seed: Seed) -> tuple[bytes, str]:
    data = seed.data
    at = rng.randrange(len(data))
    how = rng.choice(("insert_random", "insert_tokens", "duplicate", "delete"))
    if how == "insert_random":
        return data[:at] + rng.randbytes(rng.choice((1, 64, 4096))) + data[at:], f"{how} at {at}"
    if how == "insert_tokens":
        tokens = [b"<<", b">>", b"[", b"]", b"endobj", b"stream", b"endstream", b"obj", b"R", b"/Type", b"(", b")",
                  b"9999999999", b"%%EOF", b"xref", b"trailer"]
        junk = b" ".join(rng.choice(tokens) for _ in range(rng.choice((3, 30, 300))))
        return data[:at] + junk + data[at:], f"{how} at {at}"
    size = rng.randrange(1, min(65536, len(data) - at) + 1)
    if how == "duplicate":
        return data[:at + size] + data[at:at + size] + data[at + size:], f"{how} {size} bytes at {at}"
    return data[:at] + data[at + size:], f"{how} {size} bytes at {at}"


# -- structural cases ---------------------------------------------------------------------------

def encrypted(rng: random.Random, seed: Seed) -> tuple[bytes, str]:
    import pymupdf

    methods = {"rc4-40": pymupdf.PDF_ENCRYPT_RC4_40, "rc4-128": pymupdf.PDF_ENCRYPT_RC4_128,
               "aes-128": pymupdf.PDF_ENCRYPT_AES_128, "aes-256": pymupdf.PDF_ENCRYPT_AES_256}
    method = rng.choice(sorted(methods))
    user_pw = rng.choice(("", "secret"))  # no user password: anyone may open it, only rights are limited
    with pymupdf.open(stream=seed.data, filetype="pdf") as doc:
        # AES and RC4 use fresh random bytes per save: only these cases are not byte-for-byte reproducible
        data = doc.tobytes(no_new_id=True, encryption=methods[method], owner_pw="owner", user_pw=user_pw,
                           permissions=rng.choice((0, pymupdf.PDF_PERM_PRINT, -1)))
    detail = f"{method}, user password {'set' if user_pw else 'empty'}"
    if rng.random() < 0.3:  # an encryption dictionary no handler knows
        data = re.sub(rb"/R\s+\d", b"/R 9", data, count=1)
        detail += ", /R 9"
    return data, detail


def active_content(rng: random.Random, seed: Seed) -> tuple[bytes, str]:
    """JavaScript, launch actions, embedded files, URIs: indexing must read text and run none of it."""
    import pymupdf

    parts = rng.sample(["javascript", "launch", "embedded_file", "attachment", "page_actions", "uri"], rng.randint(1, 4))
    with pymupdf.open(stream=seed.data, filetype="pdf") as doc:
        page = doc[0]
        catalog = doc.pdf_catalog()
        for part in parts:
            if part == "javascript":
                doc.xref_set_key(catalog, "OpenAction", "<< /S /JavaScript /JS (while \\(true\\) {app.alert\\(1\\);}) >>")
            elif part == "launch":
                page.insert_link({"kind": pymupdf.LINK_LAUNCH, "from": pymupdf.Rect(10, 10, 200, 40),
                                  "file": "/bin/sh"})
                doc.xref_set_key(catalog, "AA", "<< /WC << /S /Launch /F (/bin/sh) /Win << /F (cmd.exe) >> >> >>")
            elif part == "embedded_file":
                doc.embfile_add("payload.exe", rng.randbytes(rng.choice((10, 100_000, 1_000_000))), filename="payload.exe")
            elif part == "attachment":
                page.add_file_annot(pymupdf.Point(50, 50), rng.randbytes(5000), "notes.bin")
            elif part == "page_actions":
                doc.xref_set_key(page.xref, "AA", "<< /O << /S /JavaScript /JS (this.print\\(\\)) >> >>")
            else:
                page.insert_link({"kind": pymupdf.LINK_URI, "from": pymupdf.Rect(10, 50, 200, 80),
                                  "uri": "http://192.0.2.1/track"})
        return doc.tobytes(deflate=True, no_new_id=True), "+".join(parts)


@lru_cache(maxsize=8)
def _flat_image_data(width: int, height: int, components: int) -> bytes:
    """Deflated image rows of a simple pattern: tiny on disk, huge once decoded."""
    row = bytes((x * 7) % 256 for x in range(width * components))
    packer = zlib.compressobj(9)
    parts = [packer.compress(row) for _ in range(height)]
    return b"".join(parts) + packer.flush()


def _small_jpeg() -> bytes:
    import pymupdf

    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 64, 64), False)
    pix.set_rect(pix.irect, (200, 120, 40))
    return pix.tobytes("jpg")


def huge_image(rng: random.Random, seed: Seed) -> tuple[bytes, str]:
    what = rng.choice(("real", "declared", "jpeg_header"))
    if what == "real":
        width, height, components = rng.choice(((12000, 12000, 1), (20000, 8000, 3), (40000, 1, 3), (1, 40000, 1)))
        data = _flat_image_data(width, height, components)
        entries = b" /Filter /FlateDecode"
        detail = f"real {width}x{height}x{components}"
    elif what == "declared":  # the dictionary promises far more pixels than the stream holds
        width, height = rng.choice(((100000, 100000), (2147483647, 2), (65536, 65536), (30000, 30000)))
        components = 3
        data = zlib.compress(rng.randbytes(rng.choice((0, 10, 1000))))
        entries = b" /Filter /FlateDecode"
        detail = f"declared {width}x{height}, {len(data)} bytes of data"
    else:  # a real JPEG whose frame header says 65500 x 65500
        jpeg = bytearray(_small_jpeg())
        sof = next(i for i in range(len(jpeg) - 1) if jpeg[i] == 0xFF and jpeg[i + 1] in (0xC0, 0xC2))
        jpeg[sof + 5:sof + 9] = (65500).to_bytes(2, "big") * 2
        data, width, height, components = bytes(jpeg), 65500, 65500, 3
        entries = b" /Filter /DCTDecode"
        detail = "jpeg header 65500x65500"
    colour = b"/DeviceRGB" if components == 3 else b"/DeviceGray"
    image = (b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s /BitsPerComponent 8"
             b" /Length %d%s >>\nstream\n" % (width, height, colour, len(data), entries) + data + b"\nendstream")
    content = text_content([f"Figure {rng.randrange(100)}: an enormous image"]) + b"\nq 500 0 0 600 56 100 cm /Im0 Do Q"
    return one_page_pdf(content, resources=b" /XObject << /Im0 6 0 R >>", more=[image]), detail


def absurd_page_size(rng: random.Random, seed: Seed) -> tuple[bytes, str]:
    import pymupdf

    box = rng.choice(("[0 0 1000000000 1000000000]", "[0 0 14400 14400]", "[0 0 200000 3]", "[0 0 0 0]",
                      "[0 0 -612 -792]", "[612 792 0 0]", "[0 0 100000000000000000000000000000000000000 5]",
                      "[/a /b 1 2]", "[0 0]", "null", "[0 0 0.0001 0.0001]"))
    extra = rng.choice((None, ("UserUnit", "75000"), ("Rotate", "45"), ("Rotate", "-9000000"),
                        ("CropBox", "[5 5 99999999 3]")))
    with pymupdf.open(stream=seed.data, filetype="pdf") as doc:
        for page in doc:
            doc.xref_set_key(page.xref, "MediaBox", box)
            if extra:
                doc.xref_set_key(page.xref, *extra)
        return doc.tobytes(no_new_id=True), f"/MediaBox {box}" + (f", /{extra[0]} {extra[1]}" if extra else "")


def absurd_page_count(rng: random.Random, seed: Seed) -> tuple[bytes, str]:
    import pymupdf

    with pymupdf.open(stream=seed.data, filetype="pdf") as doc:
        pages_xref = int(doc.xref_get_key(doc.pdf_catalog(), "Pages")[1].split()[0])
        first_page = doc[0].xref
        data = doc.tobytes(no_new_id=True)  # classic xref table, no object streams: objects can be edited in place
    how = rng.choice(("count", "count", "repeated_kids", "tree_loop"))
    if how == "count":
        count = rng.choice((b"1000000000", b"2147483647", b"-1", b"0", b"99999999999999999999", b"3.5"))
        kids, detail = None, f"/Count {count.decode()}"
    elif how == "repeated_kids":  # the same page object listed many times: a real, long document
        n = rng.choice((10, 40))
        count, kids, detail = b"%d" % n, b" ".join([b"%d 0 R" % first_page] * n), f"page 1 listed {n} times"
    else:
        count, kids, detail = b"2", b"%d 0 R %d 0 R" % (first_page, pages_xref), "the page tree lists itself"

    def edit(body: bytes) -> bytes:
        body = re.sub(rb"/Count\s+\d+", b"/Count " + count, body, count=1)
        return re.sub(rb"/Kids\s*\[[^\]]*\]", b"/Kids [" + kids + b"]", body, count=1) if kids else body
    return edit_object(data, pages_xref, edit), detail


def edit_object(data: bytes, number: int, edit: Callable[[bytes], bytes]) -> bytes:
    """Rewrite object `number` of a file with one classic xref table, then correct the table's offsets."""
    m = re.search(rb"(?<![0-9])%d 0 obj" % number, data)
    end = data.index(b"endobj", m.end())
    data = data[:m.end()] + edit(data[m.end():end]) + data[end:]
    return fix_xref(data)


def fix_xref(data: bytes) -> bytes:
    offsets = {int(m.group(1)): m.start() for m in re.finditer(rb"(?<![0-9])(\d+) 0 obj", data)}
    table = data.rfind(b"\nxref") + 1
    out = bytearray(data)
    for m in re.finditer(rb"(\d+) (\d+)\r?\n", data[table:table + 40]):  # the subsection header "0 N"
        first, pos = int(m.group(1)), table + m.end()
        for i in range(int(m.group(2))):
            entry = out[pos + 20 * i:pos + 20 * i + 20]
            if entry[17:18] == b"n" and first + i in offsets:
                out[pos + 20 * i:pos + 20 * i + 10] = b"%010d" % offsets[first + i]
        break
    return re.sub(rb"startxref\s+\d+", b"startxref\n%d" % table, bytes(out))


def deep_nesting(rng: random.Random, seed: Seed) -> tuple[bytes, str]:
    depth = rng.choice((1000, 10_000, 100_000))
    where = rng.choice(("catalog", "page", "resources", "content_arrays", "content_q", "page_tree"))
    shape = rng.choice(("array", "dict"))
    nested = b"[" * depth + b"1" + b"]" * depth if shape == "array" else b"<< /A " * depth + b"1" + b" >>" * depth
    text = text_content([f"Deeply nested objects, {depth} levels."])
    if where == "catalog":
        return one_page_pdf(text, catalog_extra=b" /Deep " + nested), f"{shape} {depth} deep in the catalog"
    if where == "page":
        return one_page_pdf(text, page_extra=b" /Deep " + nested), f"{shape} {depth} deep in the page"
    if where == "resources":
        return one_page_pdf(text, resources=b" /ExtGState << /G0 " + nested + b" >>"), \
            f"{shape} {depth} deep in the resources"
    if where == "content_arrays":
        return one_page_pdf(text + b"\nBT /F1 9 Tf 50 400 Td " + b"[" * depth + b"(x)" + b"]" * depth + b" TJ ET"), \
            f"array {depth} deep as a TJ operand"
    if where == "content_q":
        return one_page_pdf(b"q " * depth + text + b" Q" * rng.choice((0, depth))), f"{depth} nested q operators"
    # a page tree `levels` deep: each Pages node holds the next one
    levels = min(depth, 20_000)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    for level in range(levels):
        number = 2 + level
        parent = b" /Parent %d 0 R" % (number - 1) if level else b""
        objects.append(b"<< /Type /Pages /Kids [%d 0 R] /Count 1%s >>" % (number + 1, parent))
    page, content, font = levels + 2, levels + 3, levels + 4
    objects.append(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R"
                   b" /Resources << /Font << /F1 %d 0 R >> >> >>" % (page - 1, content, font))
    objects.append(stream(text))
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return build_pdf(objects), f"page tree {levels} levels deep"


BIG_TEXT_BYTES = 2_000_000


def big_text_page(rng: random.Random, seed: Seed) -> tuple[bytes, str]:
    """One page holding ~2 MB of text: tiny type, overprinted lines, or one endless word."""
    how = rng.choice(("words", "words", "one_word"))
    if how == "one_word":
        content = b"BT /F1 1 Tf 10 400 Td (" + b"x" * BIG_TEXT_BYTES + b") Tj ET"
    else:
        size = rng.choice((0.5, 1, 6))
        lines, total, ops = [], 0, []
        while total < BIG_TEXT_BYTES:
            line = _sentence(rng, 20)
            total += len(line)
            lines.append(line)
        per_page = max(1, int(740 / (size * 1.2)))
        for start in range(0, len(lines), per_page):  # lines past the bottom start again at the top
            ops.append(text_content(lines[start:start + per_page], size))
        content = b"\n".join(ops)
    return one_page_pdf(content), f"{how}, {len(content)} bytes of content"


Mutation = Callable[[random.Random, Seed], "tuple[bytes, str]"]
MUTATIONS: dict[str, Mutation] = {f.__name__: f for f in (
    byte_flips, truncate, damage_xref, corrupt_stream, misdeclared_stream, splice_garbage,
    encrypted, active_content, huge_image, absurd_page_size, absurd_page_count, deep_nesting, big_text_page)}
KINDS = list(MUTATIONS)
FROM_SCRATCH = {"huge_image", "deep_nesting", "big_text_page"}  # these ignore the seed


def make_case(run_seed: int, index: int, seeds: list[Seed]) -> Case:
    kind = KINDS[index % len(KINDS)]
    rng = random.Random(f"{run_seed}/{index}")
    seed = rng.choice(seeds)
    data, detail = MUTATIONS[kind](rng, seed)
    return Case(index, kind, "-" if kind in FROM_SCRATCH else seed.name, detail, data)
