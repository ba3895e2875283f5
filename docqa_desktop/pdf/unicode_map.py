"""Make a written PDF give its text back as it was written, when copied or searched.

A PDF font's ToUnicode map says which characters each glyph stands for. MuPDF (PyMuPDF 2.0) writes two kinds of
entry that readers get wrong:
- a character beyond U+FFFF (an emoji, a rare CJK ideograph) as five or six hex digits where the format wants
  UTF-16, so 😀 (1F600) reads back as ὠ (1F60);
- a glyph its shaper formed from several letters (the "fi" of "verified") as the presentation form of that
  ligature (U+FB01), so the word is no longer found by a search for "verified".
`plain_text_maps(doc)` rewrites those entries: UTF-16 surrogate pairs, and the letters a presentation form stands
for (its NFKC form). Every other entry is kept as written.
"""
from __future__ import annotations

import re
import unicodedata

import pymupdf

_BLOCK = re.compile(rb"(\d+)\s+begin(bfchar|bfrange)(.*?)end\2", re.S)
_HEX = re.compile(rb"<([0-9a-fA-F]*)>")
_PER_BLOCK = 100  # the most entries a CMap block may hold


def plain_text_maps(doc: pymupdf.Document) -> int:
    """Rewrite the ToUnicode maps of `doc`'s fonts that need it; the number rewritten."""
    rewritten = 0
    for xref in range(1, doc.xref_length()):
        kind, value = doc.xref_get_key(xref, "ToUnicode")
        if kind != "xref":
            continue
        cmap = int(value.split()[0])
        written = doc.xref_stream(cmap)
        fixed = plain_text_map(written)
        if fixed != written:
            doc.update_stream(cmap, fixed)
            rewritten += 1
    return rewritten


def plain_text_map(cmap: bytes) -> bytes:
    """One ToUnicode CMap with its misread entries rewritten; the same bytes when none is."""
    blocks = list(_BLOCK.finditer(cmap))
    ranges, chars = _entries(blocks)
    long_written = any(len(token) % 4 for block in blocks for token in _HEX.findall(block[3]))
    written = "".join(t for _, t in chars) + "".join(_range_text(*r) for r in ranges)
    if not long_written and not any(map(_presentation_form, written)):
        return cmap
    kept_ranges = []
    for low, high, first in ranges:  # a range over such characters is written out one code at a time
        if any(map(_needs_own_entry, _range_text(low, high, first))):
            chars += [(low + i, char) for i, char in enumerate(_range_text(low, high, first))]
        else:
            kept_ranges.append((low, high, first))
    body = _blocks("bfrange", [b"<%04x> <%04x> <%s>" % (low, high, _utf16(first)) for low, high, first in kept_ranges])
    body += _blocks("bfchar", [b"<%04x> <%s>" % (code, _utf16(_plain(text))) for code, text in sorted(chars)])
    return cmap[:blocks[0].start()] + body + cmap[blocks[-1].end():]


def _entries(blocks) -> tuple[list[tuple[int, int, str]], list[tuple[int, str]]]:
    """(ranges: low code, high code, the first one's character; single codes: code, text) of the blocks."""
    ranges, chars = [], []
    for block in blocks:
        if block[2] == b"bfchar":
            tokens = _HEX.findall(block[3])
            chars += [(int(code, 16), _text(dest)) for code, dest in zip(tokens[::2], tokens[1::2])]
            continue
        for line in block[3].splitlines():
            tokens = _HEX.findall(line)
            if len(tokens) < 3:
                continue
            low, high = int(tokens[0], 16), int(tokens[1], 16)
            if b"[" in line:  # one destination per code
                chars += [(low + i, _text(dest)) for i, dest in enumerate(tokens[2:])]
            else:
                first = _text(tokens[2])
                if len(first) == 1:
                    ranges.append((low, high, first))
                else:  # a range over a multi-character destination increments its last character
                    chars += [(low + i, first[:-1] + chr(ord(first[-1]) + i)) for i in range(high - low + 1)]
    return ranges, chars


def _range_text(low: int, high: int, first: str) -> str:
    """The characters of the codes low..high: `first`, then each next one."""
    return "".join(chr(ord(first) + i) for i in range(high - low + 1))


def _text(hex_digits: bytes) -> str:
    """A destination as MuPDF wrote it: UTF-16BE, or one code point written out in five or six digits."""
    if len(hex_digits) % 4:
        return chr(int(hex_digits, 16))
    return bytes.fromhex(hex_digits.decode()).decode("utf-16-be", errors="replace")


def _presentation_form(char: str) -> bool:
    """A ligature or contextual form a shaper picks (Latin fi/fl…, Arabic forms): the text is its letters."""
    return 0xFB00 <= ord(char) <= 0xFDFF or 0xFE70 <= ord(char) <= 0xFEFF


def _needs_own_entry(char: str) -> bool:
    """A character a range cannot carry: its letters, or a surrogate pair whose last byte the range would count."""
    return ord(char) > 0xFFFF or _presentation_form(char)


def _plain(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", c) if _presentation_form(c) else c for c in text)


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-be").hex().encode()


def _blocks(kind: str, lines: list[bytes]) -> bytes:
    out = b""
    for at in range(0, len(lines), _PER_BLOCK):
        part = lines[at:at + _PER_BLOCK]
        out += b"%d begin%s\n%s\nend%s\n" % (len(part), kind.encode(), b"\n".join(part), kind.encode())
    return out
