"""Structured output: a strict grammar from a JSON schema, and parsing (with repair) of what came back.

The grammar makes local decoding always produce parseable JSON. Remote servers may ignore a schema and
a model without a grammar wraps JSON in prose or code fences, so parsing repairs the common slips and
checks the result against the schema before anyone relies on it.
"""
from __future__ import annotations

import dataclasses
import json
import re

from .types import InvalidOutput

# llama-cpp-python's schema converter lets raw control characters into strings, which strict
# json.loads rejects; excluding them from the `char` rule makes every grammar-constrained output parse.
_LOOSE_CHAR = 'char ::= [^"\\\\] |'
_STRICT_CHAR = 'char ::= [^"\\\\\\x7F\\x00-\\x1F] |'


def schema_grammar(schema: dict) -> str:
    """GBNF text for `schema`, with control characters excluded from strings."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    gbnf = json_schema_to_gbnf(json.dumps(schema))
    if _LOOSE_CHAR in gbnf:
        gbnf = gbnf.replace(_LOOSE_CHAR, _STRICT_CHAR)
    return gbnf


def output_token_bound(schema: dict) -> int | None:
    """Most tokens a value of `schema` can take (a token can be a single character, and the grammar
    allows a little whitespace between items), or None when unbounded. A call whose max_tokens is lower
    can be cut mid-JSON, so backends raise max_tokens to this."""
    kind = schema.get("type")
    if "enum" in schema:
        return max(len(json.dumps(v)) for v in schema["enum"]) + 2
    if kind == "string":
        return schema["maxLength"] + 4 if "maxLength" in schema else None
    if kind in ("integer", "number"):
        return 24
    if kind in ("boolean", "null"):
        return 6
    if kind == "array":
        item = output_token_bound(schema.get("items", {}))
        return None if item is None or "maxItems" not in schema else schema["maxItems"] * (item + 2) + 4
    if kind == "object":
        total = 4
        for key, sub in schema.get("properties", {}).items():
            bound = output_token_bound(sub)
            if bound is None:
                return None
            total += bound + len(key) + 6
        return total
    return None


def with_room_for_schema(options, room: int | None = None):
    """`options` with max_tokens raised towards what the schema can need (so a valid answer is not cut),
    as far as `room` (tokens left in the context) allows, never below what the caller asked for."""
    bound = output_token_bound(options.schema) if options.schema else None
    if bound is None:
        return options
    target = bound if room is None else min(bound, room)
    return options if target <= options.max_tokens else dataclasses.replace(options, max_tokens=target)


def parse_json(text: str, schema: dict | None = None):
    """The JSON value in `text`, repaired if needed and checked against `schema`; InvalidOutput otherwise."""
    value = _first_json_value(text)
    if schema is not None:
        problem = schema_violation(value, schema)
        if problem:
            raise InvalidOutput(f"model output does not match the requested schema ({problem}): {_excerpt(text)}")
    return value


def parse_samples(completions: list, schema: dict) -> None:
    """Set `.parsed` on every finished sample; fail only when none parses (one bad sample of eight is
    tolerable, all eight is a broken model or prompt)."""
    errors = []
    for completion in completions:
        if completion.finish_reason == "cancelled":
            continue
        try:
            completion.parsed = parse_json(completion.text, schema)
        except InvalidOutput as exc:
            if completion.finish_reason == "length":
                exc = InvalidOutput(f"the output hit max_tokens before the JSON was complete: {exc}")
            errors.append(exc)
    if errors and len(errors) == sum(c.finish_reason != "cancelled" for c in completions):
        raise errors[0]


def _first_json_value(text: str):
    candidates = [text.strip()]
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    if fenced:
        candidates.append(fenced.group(1).strip())
    span = _outermost_span(text)
    if span:
        candidates.append(span)
    for candidate in candidates:
        for attempt in (candidate, _repaired(candidate)):
            try:
                return json.loads(attempt)
            except (json.JSONDecodeError, ValueError):
                continue
    raise InvalidOutput(f"model output is not valid JSON: {_excerpt(text)}")


def _outermost_span(text: str) -> str | None:
    """From the first { or [ to its last matching closer: drops prose before and after."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return None
    start = min(starts)
    end = text.rfind("}" if text[start] == "{" else "]")
    return text[start:end + 1] if end > start else text[start:]


def _repaired(text: str) -> str:
    """Fix the slips small models make: trailing commas, Python literals, unclosed brackets."""
    text = re.sub(r",\s*([}\]])", r"\1", text)
    text = re.sub(r"\bTrue\b", "true", re.sub(r"\bFalse\b", "false", re.sub(r"\bNone\b", "null", text)))
    text = re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", " ", text)
    closers = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            closers.append("}" if ch == "{" else "]")
        elif ch in "}]" and closers:
            closers.pop()
    if in_string:
        text += '"'
    return text + "".join(reversed(closers))


_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def schema_violation(value, schema: dict, where: str = "$") -> str | None:
    """The first way `value` breaks `schema` (the subset our prompts use), or None."""
    kind = schema.get("type")
    if kind in ("integer", "number"):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if ok and kind == "integer" and not float(value).is_integer():
            ok = False
        if not ok:
            return f"{where} should be {kind}"
    elif kind and not isinstance(value, _TYPES[kind]):
        return f"{where} should be {kind}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where} must be one of {schema['enum'][:10]}"
    if isinstance(value, dict):
        missing = [key for key in schema.get("required", []) if key not in value]
        if missing:
            return f"{where} lacks {', '.join(missing)}"
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                problem = schema_violation(value[key], sub, f"{where}.{key}")
                if problem:
                    return problem
    if isinstance(value, list):
        if len(value) > schema.get("maxItems", len(value)):
            return f"{where} has more than {schema['maxItems']} items"
        for i, item in enumerate(value):
            problem = schema_violation(item, schema.get("items", {}), f"{where}[{i}]")
            if problem:
                return problem
    return None


def _excerpt(text: str, limit: int = 200) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "…")
