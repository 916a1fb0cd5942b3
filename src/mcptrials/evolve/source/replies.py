"""Pull the JSON value out of a model reply that may wrap it in a fence or surround it with prose."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_FENCE_RE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


class ReplyError(ValueError):
    """A model reply that holds no usable JSON value."""


def _values(text: str) -> Iterator[Any]:
    """Yield every top-level JSON object or array embedded in ``text``, left to right."""
    index = 0
    while index < len(text):
        starts = [p for p in (text.find("{", index), text.find("[", index)) if p >= 0]
        if not starts:
            return
        start = min(starts)
        try:
            value, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            index = start + 1
            continue
        yield value
        index = end


def extract_json(text: str) -> Any:
    """Return the JSON value a reply carries: the whole text, a fenced block, or the largest embedded value.

    Fenced blocks are tried first (a ``json`` fence before others), then the bare text, then
    the largest object or array found among stray prose. Raises ``ReplyError`` with a short
    excerpt of the reply when nothing parses.
    """
    stripped = text.strip()
    if not stripped:
        raise ReplyError("the reply is empty; expected a JSON value")
    fences = sorted(_FENCE_RE.findall(stripped), key=lambda f: f[0].lower() != "json")
    for _lang, body in fences:
        try:
            return json.loads(body)
        except json.JSONDecodeError:
            continue
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        pass
    found = [(len(json.dumps(v)), v) for v in _values(stripped)]
    if found:
        return max(found, key=lambda item: item[0])[1]
    excerpt = " ".join(stripped.split())[:120]
    raise ReplyError(f"the reply is not JSON and holds no JSON object or list (it starts: {excerpt!r})")


def extract_object(text: str, list_key: str | None = None) -> dict[str, Any]:
    """Return the reply's JSON object; a bare list is wrapped as ``{list_key: [...]}`` when allowed."""
    value = extract_json(text)
    if isinstance(value, list) and list_key is not None:
        return {list_key: value}
    if not isinstance(value, dict):
        raise ReplyError(f"expected a JSON object, got a JSON {type(value).__name__}")
    return value
