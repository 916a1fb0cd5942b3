"""Argument predicates of a TaskSpec: exact inclusion and per-key matchers."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from mcptrials.model import Matcher

_MISSING = object()


def _fold(value: Any, insensitive: bool) -> Any:
    return value.casefold() if insensitive and isinstance(value, str) else value


def values_equal(actual: Any, expected: Any, insensitive: bool = False) -> bool:
    """Equality that treats 5 and 5.0 alike, recurses into lists and dicts, and can fold case."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return actual is expected if isinstance(expected, bool) and isinstance(actual, bool) else False
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return math.isclose(actual, expected, rel_tol=0.0, abs_tol=1e-12)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(
            values_equal(a, e, insensitive) for a, e in zip(actual, expected, strict=True))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(
            values_equal(actual[k], expected[k], insensitive) for k in expected)
    return bool(_fold(actual, insensitive) == _fold(expected, insensitive))


def _contains(actual: Any, needle: str, insensitive: bool) -> bool:
    if isinstance(actual, list):
        return any(values_equal(item, needle, insensitive) for item in actual)
    if actual is None:
        return False
    return _fold(needle, insensitive) in _fold(actual if isinstance(actual, str) else str(actual), insensitive)


def matches(actual: Any, matcher: Matcher) -> bool:
    """Whether one argument value satisfies one matcher."""
    if actual is _MISSING:
        return False
    insensitive = matcher.case == "insensitive"
    kind = matcher.kind
    if kind == "equals":
        return values_equal(actual, matcher.equals, insensitive)
    if kind == "regex":
        assert matcher.regex is not None
        if isinstance(actual, dict | list) or actual is None:
            return False
        text = actual if isinstance(actual, str) else str(actual)
        try:
            return re.search(matcher.regex, text, re.IGNORECASE if insensitive else 0) is not None
        except re.error:
            return False
    if kind == "contains":
        assert matcher.contains is not None
        return _contains(actual, matcher.contains, insensitive)
    if kind == "contains_all":
        return all(_contains(actual, needle, insensitive) for needle in matcher.contains_all or [])
    if kind == "one_of":
        return any(values_equal(actual, option, insensitive) for option in matcher.one_of or [])
    if kind == "approx":
        assert matcher.approx is not None
        try:
            number = float(actual)
        except (TypeError, ValueError):
            return False
        return abs(number - matcher.approx) <= matcher.tol + 1e-12
    raise ValueError(f"unknown matcher kind {kind!r}")


def arguments_satisfy(arguments: Mapping[str, Any] | None, must_include: Mapping[str, Any],
                      must_match: Mapping[str, Matcher]) -> bool:
    """Whether call arguments include every ``must_include`` pair and meet every matcher."""
    if arguments is None:
        return not must_include and not must_match
    for key, expected in must_include.items():
        if key not in arguments or not values_equal(arguments[key], expected):
            return False
    return all(matches(arguments.get(key, _MISSING), m) for key, m in must_match.items())
