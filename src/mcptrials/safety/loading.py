"""Read user documents (JSON, JSONL, YAML) within bounds: size, nesting depth, YAML alias expansion, UTF-8.

Every refusal is a ``DocumentError`` whose message is one line naming the file and what is wrong, so the
callers (task and server-config loaders) can wrap it in their own error type for the CLI.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_BYTES = int(os.environ.get("MCPTRIALS_MAX_FILE_BYTES", str(64 * 1024 * 1024)))
"""Largest task or config file read (default 64 MiB)."""
MAX_DEPTH = 64
"""Deepest nesting of lists/objects accepted in a document (a task or config needs far less)."""
MAX_NODES = 2_000_000
"""Most values a YAML document may expand to once every alias is followed (alias bombs exceed it)."""


class DocumentError(ValueError):
    """A document refused before use: too large, not UTF-8, too deep, an alias bomb, or unparsable."""


def read_text(path: Path, what: str = "file") -> str:
    """The file's text, refusing files over ``MAX_BYTES`` and text that is not UTF-8 (position given)."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise DocumentError(f"{path}: {what} is {size} bytes, over the {MAX_BYTES}-byte limit")
        chunks: list[bytes] = []
        with path.open("rb") as handle:  # bounded: a pipe (/dev/stdin) or /dev/zero has no size to check first
            while chunk := handle.read(1 << 20):
                chunks.append(chunk)
                if sum(map(len, chunks)) > MAX_BYTES:
                    raise DocumentError(f"{path}: {what} is over the {MAX_BYTES}-byte limit")
        data = b"".join(chunks)
    except OSError as exc:
        raise DocumentError(f"{path}: cannot read {what} ({exc.strerror or exc})") from None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DocumentError(f"{path}: {what} is UTF-16 text (it starts with a UTF-16 byte-order mark); "
                            "save it as UTF-8")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")  # a UTF-8 byte-order mark (Windows editors) is fine
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise DocumentError(f"{path}: {what} is not UTF-8 text (byte 0x{data[exc.start]:02x} at line {line} "
                            f"column {column}); save it as UTF-8") from None


def check_depth(value: Any, where: str, limit: int = MAX_DEPTH) -> None:
    """Refuse a parsed value nested deeper than ``limit`` (iterative: deep input cannot overflow the stack)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            raise DocumentError(f"{where}: nested deeper than {limit} levels")
        stack.extend((child, depth + 1) for child in children)


def parse_json(text: str, where: str) -> Any:
    """``json.loads`` with one-line errors for bad syntax and for nesting too deep to parse."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(f"{where}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise DocumentError(f"{where}: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise DocumentError(f"{where}: invalid JSON: {' '.join(str(exc).split())}") from None
    check_depth(value, where)
    return value


def parse_yaml(text: str, where: str) -> Any:
    """Safe-load one YAML document after bounding what its aliases expand to and how deep it nests."""
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except RecursionError:
        raise DocumentError(f"{where}: nested deeper than {MAX_DEPTH} levels") from None
    except yaml.YAMLError as exc:
        raise DocumentError(f"{where}: invalid YAML: {' '.join(str(exc).split())}") from None
    if node is None:
        return None
    _bound_nodes(node, where)
    try:
        return yaml.SafeLoader(text).get_single_data()
    except yaml.YAMLError as exc:
        raise DocumentError(f"{where}: invalid YAML: {' '.join(str(exc).split())}") from None
    except (ValueError, TypeError, AttributeError, OverflowError) as exc:
        # PyYAML's constructors raise these for values that scan but do not convert: a 2001-13-45 date,
        # ``!!int x``, ``!!timestamp x``, an integer of more digits than Python converts
        raise DocumentError(f"{where}: invalid YAML value: {' '.join(str(exc).split()) or type(exc).__name__}") \
            from None


def _bound_nodes(root: Any, where: str) -> None:
    """Count the values ``root`` expands to (each alias use counted in full); refuse bombs, cycles, depth."""
    import yaml

    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    # iterative post-order walk: (node, depth, children visited?)
    stack: list[tuple[Any, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        key = id(node)
        if isinstance(node, yaml.ScalarNode):
            sizes[key] = 1
            continue
        children = [c for pair in node.value for c in pair] if isinstance(node, yaml.MappingNode) else node.value
        if done:
            on_path.discard(key)
            total = 1 + sum(sizes[id(c)] for c in children)
            if total > MAX_NODES:
                raise DocumentError(f"{where}: YAML aliases expand to over {MAX_NODES} values (an alias bomb?)")
            sizes[key] = total
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise DocumentError(f"{where}: a YAML alias refers to itself (recursive structure)")
        if depth > MAX_DEPTH:
            raise DocumentError(f"{where}: nested deeper than {MAX_DEPTH} levels")
        on_path.add(key)
        stack.append((node, depth, True))
        stack.extend((c, depth + 1, False) for c in children if id(c) not in sizes)


def load_document(path: Path, what: str = "file", *, yaml: bool | None = None) -> Any:
    """Read and parse ``path`` as YAML or JSON, within every bound above; ``yaml`` None: YAML for
    ``.yaml``/``.yml``, else JSON."""
    text = read_text(path, what)
    if path.suffix.lower() in {".yaml", ".yml"} if yaml is None else yaml:
        return parse_yaml(text, str(path))
    return parse_json(text, str(path))


def load_jsonl(path: Path, what: str = "file") -> list[tuple[int, Any]]:
    """(line number, value) of every non-blank line of a JSON Lines file, within every bound above."""
    text = read_text(path, what)
    return [(number, parse_json(line, f"{path}:{number}")) for number, line in enumerate(text.splitlines(), 1)
            if line.strip()]


def bounded(load: Callable[..., Any], error: Callable[[str], Exception], *args: Any, **options: Any) -> Any:
    """``load(*args, **options)`` (a loader of this module) with its refusal raised as the caller's ``error``
    type, so commands and the callers that catch that type see one line naming the file."""
    try:
        return load(*args, **options)
    except DocumentError as exc:
        raise error(str(exc)) from None
