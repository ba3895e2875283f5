"""The growing value of one field of a JSON object that is still being generated, for streaming: a reply
constrained to a schema arrives as `{"analysis": "…", "answer": "The last fe`, and what people should see
as it grows is the answer field alone."""
from __future__ import annotations

_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def partial_field(text: str, field: str) -> str | None:
    """The (possibly unfinished) string value of the top-level key `field` in the JSON prefix `text`, with
    escapes decoded (an escape cut off at the end is left out); None while the key has not appeared."""
    depth, i, n = 0, 0, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            value, end = _string(text, i + 1)
            if end is None:
                return None  # a key or value still being written, not ours yet
            i = end
            if depth == 1 and value == field and _followed_by_colon(text, i):
                start = text.index(":", i) + 1
                while start < n and text[start] in " \t\r\n":
                    start += 1
                if start < n and text[start] == '"':
                    return _string(text, start + 1)[0]
                return None
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        i += 1
    return None


def _followed_by_colon(text: str, i: int) -> bool:
    rest = text[i:].lstrip()
    return rest.startswith(":")


def _string(text: str, i: int) -> tuple[str, int | None]:
    """The string starting after its opening quote at `i`: (decoded value so far, index after the closing
    quote, or None when the text ends inside it)."""
    out = []
    n = len(text)
    while i < n:
        char = text[i]
        if char == '"':
            return "".join(out), i + 1
        if char != "\\":
            out.append(char)
            i += 1
            continue
        if i + 1 >= n:
            break
        code = text[i + 1]
        if code == "u":
            if i + 6 > n:
                break
            unit = int(text[i + 2:i + 6], 16) if _is_hex(text[i + 2:i + 6]) else 0xFFFD
            if 0xD800 <= unit < 0xDC00:  # the first half of a pair (an emoji): wait for the second half
                if i + 12 > n:
                    break
                low = int(text[i + 8:i + 12], 16) if text[i + 6:i + 8] == "\\u" and _is_hex(text[i + 8:i + 12]) else 0
                if 0xDC00 <= low < 0xE000:
                    out.append(chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)))
                    i += 12
                    continue
                unit = 0xFFFD
            out.append(chr(0xFFFD if 0xDC00 <= unit < 0xE000 else unit))
            i += 6
        else:
            out.append(_ESCAPES.get(code, code))
            i += 2
    return "".join(out), None


def _is_hex(digits: str) -> bool:
    return len(digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in digits)
