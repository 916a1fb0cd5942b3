"""Paths into JSON values: the JSONPath subset state checks read, and the argument paths of effect predicates.

Stdlib only: ``mcptrials.model`` validates a task's paths with it when the task is loaded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

_STEP = re.compile(r"\.(?P<name>[A-Za-z_][\w-]*|\*)|\[(?P<index>-?\d+|\*)\]|\[['\"](?P<key>[^'\"]+)['\"]\]")

Steps = tuple[str | int, ...]
"""A parsed path: names, list indexes, and ``*`` for every child."""


class JsonPathError(ValueError):
    """A json_path this subset of JSONPath does not read."""


def parse_json_path(path: str) -> list[str | int]:
    """``$.messages[*].to`` into steps (``*`` for every child); ValueError for anything else."""
    text = path.strip()
    if not text.startswith("$"):
        raise JsonPathError(f"json_path {path!r} must start with '$'")
    steps: list[str | int] = []
    pos = 1
    while pos < len(text):
        m = _STEP.match(text, pos)
        if m is None:
            raise JsonPathError(f"json_path {path!r}: cannot read from {text[pos:]!r} ($.a.b, [0], [*], ['k'])")
        if m["name"] is not None:
            steps.append(m["name"])
        elif m["key"] is not None:
            steps.append(m["key"])
        else:
            steps.append("*" if m["index"] == "*" else int(m["index"]))
        pos = m.end()
    return steps


@lru_cache(maxsize=1024)
def json_path_steps(path: str) -> Steps:
    """:func:`parse_json_path`, once per path (a task's paths are read for every record of every episode)."""
    return tuple(parse_json_path(path))


def select(document: Any, steps: Iterable[str | int]) -> list[Any]:
    """The nodes of ``document`` that ``steps`` lead to."""
    nodes = [document]
    for step in steps:
        nxt: list[Any] = []
        for node in nodes:
            if step == "*":
                nxt += list(node.values()) if isinstance(node, dict) else list(node) if isinstance(node, list) else []
            elif isinstance(step, int):
                if isinstance(node, list) and -len(node) <= step < len(node):
                    nxt.append(node[step])
            elif isinstance(node, dict) and step in node:
                nxt.append(node[step])
        nodes = nxt
    return nodes


# --------------------------------------------------------------------------- argument paths


def is_argument_path(key: str) -> bool:
    """Whether a predicate key is a path into the arguments (``a.b``, ``x[0]``) rather than one argument's name."""
    return "." in key or "[" in key


@lru_cache(maxsize=1024)
def argument_path(key: str) -> Steps:
    """An argument path's steps: ``a.b``, ``items[0].id``, ``entities[].name`` (``[]``: any element).

    Raises :class:`JsonPathError` for a key that is no such path.
    """
    if key.startswith(("$", ".")) or not key.strip():
        raise JsonPathError(f"argument path {key!r} must start with an argument name (a.b, items[0].id, "
                            "entities[].name)")
    text = "$" + ("" if key.startswith("[") else ".") + key.replace("[]", "[*]")
    try:
        return tuple(parse_json_path(text))
    except JsonPathError:
        raise JsonPathError(f"argument path {key!r} cannot be read (a.b, items[0].id, entities[].name, "
                            "['odd key'])") from None


def argument_path_problem(key: str) -> str | None:
    """Why ``key`` cannot key an argument predicate (one phrase), or None when it can."""
    if not is_argument_path(key):
        return None
    try:
        argument_path(key)
    except JsonPathError as exc:
        return str(exc)
    return None


def first_step(key: str) -> str | int:
    """The argument a predicate key reads: the key itself, or its path's first step."""
    return argument_path(key)[0] if is_argument_path(key) else key


def with_first_step(key: str, name: str) -> str:
    """``key`` reading argument ``name`` instead of its own first one (``old.x`` -> ``new.x``)."""
    if not is_argument_path(key):
        return name
    first = argument_path(key)[0]
    if not isinstance(first, str) or not key.startswith(first):
        return key
    return name + key[len(first):]


def argument_names(keys: Iterable[str]) -> set[str]:
    """The arguments predicate keys read (a path's first step), e.g. for a spec's constrained parameters."""
    return {str(first_step(key)) for key in keys}
