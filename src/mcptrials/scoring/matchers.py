"""Argument and field predicates of a TaskSpec, compared as the server sees the values.

Arguments are made *effective* before any predicate reads them: schema defaults filled in,
numeric strings read as numbers, enum values in the schema's own case, and path arguments
normalised against the sandbox (``./notes/``, ``notes/`` and ``notes`` are one path).
"""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Mapping
from typing import Any

from mcptrials.jsonpath import argument_path, is_argument_path, select
from mcptrials.model import Matcher
from mcptrials.scoring.answers import absent_violations, normalise_text, number_mentions, pattern_found, states
from mcptrials.scoring.claims import check_facts

_MISSING = object()
_NUMBER_TEXT = re.compile(r"^\s*[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\s*$")
_PATH_NAMES = re.compile(r"^(path|file|filename|file_path|filepath|dir|directory|folder|source|destination|src|dst|"
                         r"dest|target|from|to_path|from_path|source_path|destination_path|root|workspace)$|"
                         r"(_path|_file|_dir|_folder|_directory)$")
_SANDBOX_PREFIX = re.compile(r"^.*?/mcptrials-[^/]+/sandbox(?=/|$)")


def _fold(value: Any, insensitive: bool) -> Any:
    return value.casefold() if insensitive and isinstance(value, str) else value


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _NUMBER_TEXT.match(value):
        return float(value)
    return None


def values_equal(actual: Any, expected: Any, insensitive: bool = False) -> bool:
    """Equality that treats 5, 5.0 and "5" alike, recurses into lists and dicts, and can fold case."""
    if type(actual) is str and type(expected) is str:  # the common case, decided as the last line below would
        return actual.casefold() == expected.casefold() if insensitive else actual == expected
    if isinstance(expected, bool) or isinstance(actual, bool):
        return actual is expected if isinstance(expected, bool) and isinstance(actual, bool) else False
    if isinstance(expected, int | float) or isinstance(actual, int | float):
        a, e = _as_number(actual), _as_number(expected)
        return a is not None and e is not None and math.isclose(a, e, rel_tol=0.0, abs_tol=1e-12)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(
            values_equal(a, e, insensitive) for a, e in zip(actual, expected, strict=True))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(
            values_equal(actual[k], expected[k], insensitive) for k in expected)
    return bool(_fold(actual, insensitive) == _fold(expected, insensitive))


def _contains(actual: Any, needle: Any, insensitive: bool) -> bool:
    if isinstance(actual, list):  # a list holds its items, and a matrix (a list of rows) also its entries
        return any(values_equal(item, needle, insensitive) for item in actual) or any(
            values_equal(x, needle, insensitive) for item in actual if isinstance(item, list) for x in item)
    if actual is None or isinstance(actual, dict):
        return False
    text = actual if isinstance(actual, str) else str(actual)
    fold = insensitive
    if normalise_text(str(needle), fold=fold) in normalise_text(text, fold=fold):
        return True
    return states(text, needle, fold=fold)


def _text(actual: Any) -> str | None:
    if actual is None or actual is _MISSING:
        return None
    if isinstance(actual, list):
        return "\n".join(str(a) for a in actual)
    return actual if isinstance(actual, str) else str(actual)


def matches(actual: Any, matcher: Matcher) -> bool:
    """Whether one value satisfies one matcher."""
    kind = matcher.kind
    if kind == "absent":
        text = _text(actual)
        return text is None or not absent_violations(text, matcher.absent or [],
                                                     fold=True)
    if actual is _MISSING:
        return False
    insensitive = matcher.case == "insensitive"
    if kind == "equals":
        return values_equal(actual, matcher.equals, insensitive)
    if kind == "regex":
        assert matcher.regex is not None
        if isinstance(actual, dict | list) or actual is None:
            return False
        text = actual if isinstance(actual, str) else str(actual)
        return pattern_found(matcher.regex, text, insensitive)
    if kind == "contains":
        return _contains(actual, matcher.contains, insensitive)
    if kind == "contains_all":
        return all(any(_contains(actual, option, insensitive) for option in (needle if isinstance(needle, list)
                                                                             else [needle]))
                   for needle in matcher.contains_all or [])
    if kind == "one_of":
        return any(values_equal(actual, option, insensitive) for option in matcher.one_of or [])
    if kind == "approx":
        assert matcher.approx is not None
        number = _as_number(actual)
        if number is not None:
            return abs(number - matcher.approx) <= matcher.tol + 1e-12
        text = _text(actual)
        return text is not None and any(abs(m.value - matcher.approx) <= matcher.tol + 1e-12
                                        for m in number_mentions(normalise_text(text)))
    if kind == "facts":
        text = _text(actual)
        return text is not None and all(v.stated for v in check_facts(text, matcher.facts or []))
    raise ValueError(f"unknown matcher kind {kind!r}")


# --------------------------------------------------------------------------- effective arguments


def is_path_parameter(name: str, schema: Mapping[str, Any] | None = None) -> bool:
    """Whether a parameter names a file or folder (by its name, or its schema's format)."""
    if _PATH_NAMES.search(name.lower()):
        return True
    return bool(schema and schema.get("format") in {"path", "uri-reference"})


def normalise_path(value: Any) -> Any:
    """A path as the server resolves it inside the sandbox: ``./a/``, ``a/`` and ``a`` are ``a``."""
    if not isinstance(value, str):
        return value
    text = _SANDBOX_PREFIX.sub("", value.strip().replace("\\", "/"))
    if text in {"", "/", ".", "./"}:
        return "."
    text = posixpath.normpath(text.lstrip("/") if _SANDBOX_PREFIX.match(value) else text)
    return text[2:] if text.startswith("./") else text


def _properties(schema: Mapping[str, Any] | None) -> Mapping[str, Any]:
    props = (schema or {}).get("properties")
    return props if isinstance(props, Mapping) else {}


def _resolve(prop: Any, schema: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A property schema with a local ``$ref`` or a one-member ``anyOf`` (Optional) looked through."""
    if not isinstance(prop, Mapping):
        return {}
    ref = prop.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and schema:
        target = (schema.get("$defs") or {}).get(ref.split("/")[-1])
        return {**target, **{k: v for k, v in prop.items() if k != "$ref"}} if isinstance(target, Mapping) else prop
    options = [o for o in prop.get("anyOf", []) if isinstance(o, Mapping) and o.get("type") != "null"]
    if len(options) == 1:
        return {**options[0], **{k: v for k, v in prop.items() if k != "anyOf"}}
    return prop


_Prop = tuple[str, Mapping[str, Any], set[Any], Any, bool]  # name, resolved schema, types, enum, is a path
_PLANS: dict[int, tuple[Mapping[str, Any] | None, list[_Prop], dict[str, bool]]] = {}
"""Resolved properties by schema object (kept alive here, so an id is never reused while cached)."""


def _plan(schema: Mapping[str, Any] | None) -> tuple[list[_Prop], dict[str, bool]]:
    """A schema's properties looked through once (re-scoring reads the same few schemas for every call)."""
    held = _PLANS.get(id(schema))
    if held is None or held[0] is not schema:
        props: list[_Prop] = []
        for name, raw in _properties(schema).items():
            prop = _resolve(raw, schema)
            kinds = prop.get("type")
            props.append((name, prop, set(kinds) if isinstance(kinds, list) else {kinds}, prop.get("enum"),
                          is_path_parameter(name, prop)))
        if len(_PLANS) > 4096:
            _PLANS.clear()
        held = _PLANS[id(schema)] = (schema, props, {p[0]: p[4] for p in props})
    return held[1], held[2]


def effective_arguments(arguments: Mapping[str, Any] | None,
                        schema: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The arguments as the server sees them: defaults filled, numbers read, enum case fixed, paths normalised."""
    if arguments is None:
        return None
    out = dict(arguments)
    props, paths = _plan(schema)
    for name, prop, kinds, enum, _path in props:
        if name not in out and "default" in prop:
            out[name] = prop["default"]
        if name not in out:
            continue
        value = out[name]
        if isinstance(value, str) and kinds & {"number", "integer"} and _as_number(value) is not None:
            number = float(value)
            out[name] = int(number) if "integer" in kinds and number.is_integer() else number
        if isinstance(value, str) and isinstance(enum, list) and value not in enum:
            same = [e for e in enum if isinstance(e, str) and e.casefold() == value.casefold()]
            if len(same) == 1:
                out[name] = same[0]
    for name, value in out.items():
        path = paths.get(name)
        if path if path is not None else is_path_parameter(name, {}):
            out[name] = normalise_path(value)
    return out


def _reached(arguments: Mapping[str, Any], key: str) -> list[Any]:
    """The values a predicate key reads: one argument by name, or every value an argument path reaches."""
    if key in arguments:
        return [arguments[key]]
    if not is_argument_path(key):
        return []
    return select(arguments, argument_path(key))


def _leaf_name(key: str) -> str:
    """The name a predicate key ends in (``files[0].path`` -> ``path``), to tell whether it names a path."""
    if not is_argument_path(key):
        return key
    names = [step for step in argument_path(key) if isinstance(step, str) and step != "*"]
    return names[-1] if names else key


def arguments_satisfy(arguments: Mapping[str, Any] | None, must_include: Mapping[str, Any],
                      must_match: Mapping[str, Matcher]) -> bool:
    """Whether (effective) arguments include every ``must_include`` pair and meet every matcher.

    A key is an argument's name or a path into the arguments (``a.b``, ``items[0].id``,
    ``entities[].name``): the predicate holds when some value the path reaches meets it (an
    ``absent`` matcher: when every value does). Expected values of path parameters are
    normalised like the arguments they are compared to.
    """
    if arguments is None:
        return not must_include and not must_match
    for key, expected in must_include.items():
        found = _reached(arguments, key)
        nested = key not in arguments
        if is_path_parameter(_leaf_name(key)):
            expected = normalise_path(expected)
            found = [normalise_path(v) for v in found] if nested else found
        if not any(values_equal(value, expected) for value in found):
            return False
    for key, matcher in must_match.items():
        found = _reached(arguments, key)
        if is_path_parameter(_leaf_name(key)) and matcher.kind in {"equals", "one_of"}:
            options = [matcher.equals] if matcher.kind == "equals" else list(matcher.one_of or [])
            fold = matcher.case == "insensitive"
            if key not in arguments:
                found = [normalise_path(v) for v in found]
            if not any(values_equal(value, normalise_path(o), fold) for value in found for o in options):
                return False
            continue
        if not found:
            found = [_MISSING]
        test = all if matcher.kind == "absent" else any
        if not test(matches(value, matcher) for value in found):
            return False
    return True
