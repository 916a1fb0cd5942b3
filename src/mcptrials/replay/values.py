"""Carry the values a task names from an old world to a new one: pair what changed between two results.

Two results of the same call are aligned (JSON leaves by path when both parse as JSON, else the
tokens of the text) and every leaf that changed gives an (old, new) pair. A value a spec names is
updated when exactly one pair's old value is it, also when the spec names it rounded (68.04 for
68.0389 becomes 70.12 for 70.1234); a value two pairs disagree on is left alone and reported.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator
from typing import Any

from mcptrials.scoring.answers import normalise_text

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]*\d)")
_TOKEN = re.compile(r"-?\d+(?:\.\d+)?|\w+|[^\w\s]")

Pair = tuple[Any, Any]


def _tree(content: str, structured: Any) -> Any:
    if structured is not None:
        return structured
    try:
        return json.loads(content)
    except (ValueError, TypeError):
        return None


def _leaves(old: Any, new: Any) -> Iterator[Pair]:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old.keys() & new.keys():
            yield from _leaves(old[key], new[key])
    elif isinstance(old, list) and isinstance(new, list):
        for a, b in zip(old, new, strict=False):
            yield from _leaves(a, b)
    elif not isinstance(old, dict | list) and not isinstance(new, dict | list) and old != new:
        yield old, new


def _number(text: str) -> float | int | str:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def changed_pairs(old: list[tuple[str, Any]], new: list[tuple[str, Any]]) -> list[Pair]:
    """(old, new) leaf pairs of results that changed, step by step (``(content, structured_content)`` each)."""
    pairs: list[Pair] = []
    for (old_text, old_struct), (new_text, new_struct) in zip(old, new, strict=False):
        a, b = _tree(old_text, old_struct), _tree(new_text, new_struct)
        if a is not None and b is not None:
            pairs.extend(_leaves(a, b))
            continue
        before, after = _TOKEN.findall(old_text), _TOKEN.findall(new_text)
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
            if op == "replace" and i2 - i1 == j2 - j1:
                pairs.extend((_number(x), _number(y)) for x, y in zip(before[i1:i2], after[j1:j2], strict=True))
    return [p for p in pairs if not isinstance(p[0], bool) and not isinstance(p[1], bool)]


def _decimals(value: Any) -> int:
    text = str(value)
    return len(text.split(".", 1)[1]) if "." in text and "e" not in text.lower() else 0


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.replace(",", ""))
        except ValueError:
            return None
    return None


def _names(value: Any, old: Any) -> bool:
    """Whether a spec value ``value`` names the result value ``old`` (exactly, or rounded)."""
    v, o = _as_float(value), _as_float(old)
    if v is not None and o is not None:
        places = _decimals(value)
        return v == o or (places < _decimals(old) and round(o, places) == v)
    if isinstance(value, str) and isinstance(old, str) and len(value.strip()) >= 3:
        return normalise_text(value) == normalise_text(old)
    return False


def _render(value: Any, old: Any, new: Any) -> Any:
    """``new`` in the form ``value`` was written in: its type, and its decimal places when it named ``old`` rounded."""
    n, v = _as_float(new), _as_float(value)
    if n is None or v is None:
        return new if not isinstance(value, str) else str(new)
    if v == _as_float(old) and _decimals(value) >= _decimals(old):  # named exactly: the new value exactly
        return str(new) if isinstance(value, str) else new
    places = _decimals(value)
    rounded = round(n, places)
    if isinstance(value, str):
        return f"{rounded:.{places}f}"
    if isinstance(value, int):
        return int(rounded)
    return rounded


class Ambiguous(ValueError):
    """A named value that changed to different new values in different places."""


def updated_value(value: Any, pairs: list[Pair]) -> Any:
    """The new form of a spec value, or ``value`` itself when no changed result names it."""
    news = {json.dumps(_render(value, old, new), sort_keys=True, default=str): _render(value, old, new)
            for old, new in pairs if _names(value, old)}
    if len(news) > 1:
        raise Ambiguous(f"{value!r} changed to {sorted(news)}")
    return next(iter(news.values())) if news else value


def updated_text(text: str, pairs: list[Pair]) -> str:
    """``text`` with every number (and every changed text value) that a changed result names replaced."""
    def number(match: re.Match[str]) -> str:
        try:
            return str(updated_value(match.group(0), pairs))
        except Ambiguous:
            return match.group(0)

    out = _NUMBER.sub(number, text)
    for old, new in pairs:
        if isinstance(old, str) and isinstance(new, str) and len(old) >= 3 and _as_float(old) is None:
            out = out.replace(old, new)
    return out
