"""Compare two MCP tool lists and report what changed, labelled with evolution patterns.

Input is what a server answers to ``tools/list`` (``{"tools": [...]}``) or a bare list of
tools; ``inputSchema`` and ``input_schema`` are both accepted. The output is a typed
``DiffReport`` (see ``changes.py``) whose tools carry the P1-P18 patterns of ``patterns.py``.
"""

from __future__ import annotations

import difflib
import json
import sys
from collections.abc import Mapping
from io import StringIO
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from mcptrials.console_tables import protect_ids
from mcptrials.console_text import PlainTable
from mcptrials.evolve.changes import (
    PARAM_STRUCTURE_KINDS,
    Change,
    ChangeKind,
    DiffReport,
    Direction,
    ToolDiff,
)
from mcptrials.evolve.patterns import ATOMIC_OF_KIND, classify
from mcptrials.safety.loading import bounded, load_document

EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}

DOC_KEYS = frozenset({"description", "title", "examples"})
CONSTRAINT_KEYS = frozenset({
    "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems", "items",
    "prefixItems", "contains", "properties", "required", "additionalProperties", "minProperties",
    "maxProperties", "anyOf", "oneOf", "allOf", "not", "$ref", "nullable",
})
"""Parameter schema keys that restrict which values are valid."""

_LOWER_BOUNDS = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"})
_UPPER_BOUNDS = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"})
_INPUT_SCHEMA_IGNORED = frozenset({"properties", "required", "title"})


class ToolListError(ValueError):
    """A tool list that cannot be read: bad JSON, or not the shape of an MCP tool list."""


# --------------------------------------------------------------------------- loading


def normalize_tool_list(data: Any, source: str = "tool list") -> list[dict[str, Any]]:
    """Return the tools of ``{"tools": [...]}`` or a bare list in one canonical wire shape."""
    if isinstance(data, Mapping):
        if "tools" not in data:
            raise ToolListError(f"{source}: expected a list of tools or an object with a 'tools' key, "
                                f"got an object with keys {sorted(data)[:8]}")
        data = data["tools"]
    if not isinstance(data, list):
        raise ToolListError(f"{source}: 'tools' must be a list, got {type(data).__name__}")
    tools: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, raw in enumerate(data):
        tool = _normalize_tool(raw, f"{source}: tool #{index}")
        if tool["name"] in seen:
            raise ToolListError(f"{source}: tool name {tool['name']!r} appears more than once")
        seen.add(tool["name"])
        tools.append(tool)
    return tools


def _normalize_tool(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise ToolListError(f"{where}: expected an object, got {type(raw).__name__}")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise ToolListError(f"{where}: missing a non-empty string 'name'")
    where = f"{where} ({name!r})"
    description = raw.get("description") or ""
    if not isinstance(description, str):
        raise ToolListError(f"{where}: 'description' must be a string")
    schema = raw.get("inputSchema", raw.get("input_schema", EMPTY_SCHEMA))
    if schema is None:
        schema = EMPTY_SCHEMA
    if not isinstance(schema, Mapping):
        raise ToolListError(f"{where}: 'inputSchema' must be an object")
    props = schema.get("properties", {})
    if not isinstance(props, Mapping) or not all(isinstance(v, Mapping) for v in props.values()):
        raise ToolListError(f"{where}: 'inputSchema.properties' must map parameter names to schemas")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise ToolListError(f"{where}: 'inputSchema.required' must be a list of parameter names")
    tool: dict[str, Any] = {"name": name, "description": description, "inputSchema": dict(schema)}
    output = raw.get("outputSchema", raw.get("output_schema"))
    if output is not None:
        tool["outputSchema"] = output
    for key in ("title", "annotations"):
        if raw.get(key) is not None:
            tool[key] = raw[key]
    return tool


def load_tool_list(path: Path | str) -> list[dict[str, Any]]:
    """Read a tool list from a JSON file; errors name the file and what is wrong with it."""
    path = Path(path)
    if not path.exists():
        raise ToolListError(f"{path}: no such file")
    return normalize_tool_list(bounded(load_document, ToolListError, path, "tool list", yaml=False), str(path))


# --------------------------------------------------------------------------- comparing


def _squash(text: str | None) -> str:
    return " ".join((text or "").split())


def strip_docs(value: Any) -> Any:
    """Drop descriptions, titles and examples at any depth, keeping only the validating part."""
    if isinstance(value, Mapping):
        return {k: strip_docs(v) for k, v in value.items() if k not in DOC_KEYS}
    if isinstance(value, list):
        return [strip_docs(v) for v in value]
    return value


def _type_set(schema: Mapping[str, Any]) -> frozenset[str] | None:
    kind = schema.get("type")
    if isinstance(kind, str):
        return frozenset({kind})
    if isinstance(kind, list):
        return frozenset(str(k) for k in kind)
    for key in ("anyOf", "oneOf"):
        members = schema.get(key)
        if isinstance(members, list) and members and all(
            isinstance(m, Mapping) and set(m) <= {"type"} | DOC_KEYS and isinstance(m.get("type"), str)
            for m in members
        ):
            return frozenset(str(m["type"]) for m in members)
    return None


def _pure_type_union(schema: Mapping[str, Any], key: str) -> bool:
    return "type" not in schema and key in ("anyOf", "oneOf") and _type_set(schema) is not None


def _widen(types: frozenset[str]) -> frozenset[str]:
    return types | {"integer"} if "number" in types else types


def _direction(key: str, old: Any, new: Any) -> Direction:
    if old is None:
        return "tightened"
    if new is None:
        return "loosened"
    if key in _LOWER_BOUNDS | _UPPER_BOUNDS and isinstance(old, int | float) and isinstance(new, int | float):
        grew = new > old
        return "tightened" if grew == (key in _LOWER_BOUNDS) else "loosened"
    if key == "enum" and isinstance(old, list) and isinstance(new, list):
        olds = {json.dumps(v, sort_keys=True) for v in old}
        news = {json.dumps(v, sort_keys=True) for v in new}
        if news < olds:
            return "tightened"
        if news > olds:
            return "loosened"
    return "changed"


def _compare_param(tool: str, name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    out: list[Change] = []

    def add(kind: ChangeKind, old_v: Any, new_v: Any, detail: str,
            direction: Direction | None = None) -> None:
        out.append(Change(kind=kind, tool=tool, param=name, old=old_v, new=new_v, detail=detail,
                          direction=direction))

    if _squash(old.get("description")) != _squash(new.get("description")):
        add(ChangeKind.PARAM_DESC_CHANGED, old.get("description"), new.get("description"), "description")
    old_t, new_t = _type_set(old), _type_set(new)
    if old_t != new_t:
        direction: Direction = "changed"
        if old_t is not None and new_t is not None:
            if _widen(new_t) < _widen(old_t) or (new_t < old_t):
                direction = "tightened"
            elif _widen(old_t) < _widen(new_t) or old_t < new_t:
                direction = "loosened"
        add(ChangeKind.PARAM_TYPE_CHANGED, sorted(old_t) if old_t else None,
            sorted(new_t) if new_t else None, "type", direction)
    if old.get("default") != new.get("default") or ("default" in old) != ("default" in new):
        add(ChangeKind.PARAM_DEFAULT_CHANGED, old.get("default"), new.get("default"), "default")
    nested_docs = False
    for key in sorted(set(old) | set(new)):
        if key in {"description", "default", "type"}:
            continue
        o, n = old.get(key), new.get(key)
        if o == n:
            continue
        if key in ("title", "examples"):
            add(ChangeKind.PARAM_OTHER_CHANGED, o, n, key)
        elif strip_docs(o) == strip_docs(n):
            nested_docs = True
        elif key in ("anyOf", "oneOf") and (o is None or _pure_type_union(old, key)) and (
                n is None or _pure_type_union(new, key)):
            continue
        elif key in CONSTRAINT_KEYS:
            add(ChangeKind.PARAM_CONSTRAINT_CHANGED, o, n, key, _direction(key, o, n))
        else:
            add(ChangeKind.PARAM_OTHER_CHANGED, o, n, key)
    if nested_docs and not any(c.kind is ChangeKind.PARAM_DESC_CHANGED for c in out):
        add(ChangeKind.PARAM_DESC_CHANGED, None, None, "nested description")
    return out


def compare_tools(old: Mapping[str, Any], new: Mapping[str, Any], label: str | None = None) -> list[Change]:
    """All atomic changes between two versions of one tool (names are not compared)."""
    tool = label or str(new["name"])
    out: list[Change] = []
    if _squash(old.get("description")) != _squash(new.get("description")):
        out.append(Change(kind=ChangeKind.TOOL_DESC_CHANGED, tool=tool, old=old.get("description"),
                          new=new.get("description"), detail="description"))
    for key in ("title", "annotations"):
        if old.get(key) != new.get(key):
            out.append(Change(kind=ChangeKind.TOOL_METADATA_CHANGED, tool=tool, old=old.get(key),
                              new=new.get(key), detail=key))
    if old.get("outputSchema") != new.get("outputSchema"):
        out.append(Change(kind=ChangeKind.OUTPUT_SCHEMA_CHANGED, tool=tool, detail="outputSchema"))
    old_s, new_s = old.get("inputSchema", EMPTY_SCHEMA), new.get("inputSchema", EMPTY_SCHEMA)
    for key in sorted((set(old_s) | set(new_s)) - _INPUT_SCHEMA_IGNORED):
        if old_s.get(key) != new_s.get(key):
            out.append(Change(kind=ChangeKind.INPUT_SCHEMA_OTHER_CHANGED, tool=tool, old=old_s.get(key),
                              new=new_s.get(key), detail=key))
    old_p, new_p = old_s.get("properties", {}), new_s.get("properties", {})
    old_r, new_r = set(old_s.get("required", [])), set(new_s.get("required", []))
    for name in new_p:
        if name not in old_p:
            kind = ChangeKind.PARAM_ADDED_REQUIRED if name in new_r else ChangeKind.PARAM_ADDED_OPTIONAL
            out.append(Change(kind=kind, tool=tool, param=name, new=new_p[name]))
    for name in old_p:
        if name not in new_p:
            kind = ChangeKind.PARAM_REMOVED_REQUIRED if name in old_r else ChangeKind.PARAM_REMOVED_OPTIONAL
            out.append(Change(kind=kind, tool=tool, param=name, old=old_p[name]))
            continue
        if (name in old_r) != (name in new_r):
            kind = ChangeKind.PARAM_PROMOTED if name in new_r else ChangeKind.PARAM_DEMOTED
            out.append(Change(kind=kind, tool=tool, param=name, old=name in old_r, new=name in new_r,
                              detail="required", direction="tightened" if name in new_r else "loosened"))
        out.extend(_compare_param(tool, name, old_p[name], new_p[name]))
    return out


def _param_names(tool: Mapping[str, Any]) -> set[str]:
    return set(tool.get("inputSchema", EMPTY_SCHEMA).get("properties", {}))


def _looks_like_replacement(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    a, b = _param_names(old), _param_names(new)
    if a and a == b:
        return True
    ratio = difflib.SequenceMatcher(None, old["name"], new["name"]).ratio()
    overlap = len(a & b) / len(a | b) if a | b else 1.0
    return ratio >= 0.6 and overlap >= 0.5


def _pair_replacements(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]],
                       removed: list[str], added: list[str], hints: Mapping[str, str],
                       detect: bool) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for src, dst in hints.items():
        if src not in removed or dst not in added:
            raise ValueError(f"replacement hint {src!r} -> {dst!r} does not name a removed and an added tool")
        pairs[src] = dst
    if not detect:
        return pairs
    for src in removed:
        if src in pairs:
            continue
        taken = set(pairs.values())
        candidates = [d for d in added if d not in taken and _looks_like_replacement(old[src], new[d])]
        if candidates:
            pairs[src] = max(candidates, key=lambda d: (
                strip_docs(old[src]["inputSchema"]) == strip_docs(new[d]["inputSchema"]),
                difflib.SequenceMatcher(None, src, d).ratio(),
            ))
    return pairs


def diff_tool_lists(old: Any, new: Any, replacements: Mapping[str, str] | None = None,
                    detect_replacements: bool = True) -> DiffReport:
    """Compare two tool lists and return the classified report.

    ``replacements`` names known old -> new tool swaps (e.g. from an evolution plan); without
    it a removed and an added tool are paired as a replacement when they take the same
    parameters, or have similar names and mostly the same parameters.
    """
    old_tools = {t["name"]: t for t in normalize_tool_list(old, "old tool list")}
    new_tools = {t["name"]: t for t in normalize_tool_list(new, "new tool list")}
    removed = [n for n in old_tools if n not in new_tools]
    added = [n for n in new_tools if n not in old_tools]
    pairs = _pair_replacements(old_tools, new_tools, removed, added, replacements or {}, detect_replacements)
    replaced_by = {dst: src for src, dst in pairs.items()}
    diffs: list[ToolDiff] = []
    for name, tool in new_tools.items():
        if name in old_tools:
            changes = compare_tools(old_tools[name], tool)
            if changes:
                diffs.append(ToolDiff(tool=name, old_name=name, status="changed", changes=changes))
        elif name in replaced_by:
            src = replaced_by[name]
            head = Change(kind=ChangeKind.TOOL_REPLACED, tool=name, old=src, new=name,
                          detail=f"{src} -> {name}")
            diffs.append(ToolDiff(tool=name, old_name=src, status="replaced",
                                  changes=[head, *compare_tools(old_tools[src], tool, name)]))
        else:
            diffs.append(ToolDiff(tool=name, status="added",
                                  changes=[Change(kind=ChangeKind.TOOL_ADDED, tool=name)]))
    for name in removed:
        if name not in pairs:
            diffs.append(ToolDiff(tool=name, old_name=name, status="removed",
                                  changes=[Change(kind=ChangeKind.TOOL_REMOVED, tool=name)]))
    patterns = classify(diffs)
    unclassified = [c for d in diffs if d.status != "replaced"
                    for c in d.changes if c.kind not in ATOMIC_OF_KIND]
    return DiffReport(old_tool_count=len(old_tools), new_tool_count=len(new_tools), tools=diffs,
                      patterns=patterns, unclassified=unclassified)


# --------------------------------------------------------------------------- rendering


def _short(value: Any, limit: int = 60) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_KEYED_KINDS = frozenset({
    ChangeKind.PARAM_CONSTRAINT_CHANGED, ChangeKind.PARAM_OTHER_CHANGED,
    ChangeKind.TOOL_METADATA_CHANGED, ChangeKind.INPUT_SCHEMA_OTHER_CHANGED,
})


def _table(report: DiffReport, width: int | None = None) -> Table:
    table = PlainTable(title=f"Tool list diff: {report.old_tool_count} -> {report.new_tool_count} tools")
    for column in ("tool", "status", "change", "param", "old", "new", "patterns"):
        table.add_column(column, overflow="fold")
    for diff in report.tools:
        for i, change in enumerate(diff.changes):
            # words, not one snake_case token, so a narrow terminal wraps the label between words
            label = change.kind.value.replace("_", " ") + (f" ({change.direction})" if change.direction else "")
            if change.detail and change.kind in _KEYED_KINDS:
                label += f" [{change.detail}]"
            old_v, new_v = change.old, change.new
            if change.kind in PARAM_STRUCTURE_KINDS:
                old_v = new_v = None
            cells = (diff.tool if i == 0 else "", diff.status if i == 0 else "", label, change.param or "",
                     _short(old_v), _short(new_v), ", ".join(diff.patterns) if i == 0 else "")
            table.add_row(*cells)
    return protect_ids(table, ("tool", "param", "patterns", "status"), width, prose=("change", "old", "new"))


def render_diff(report: DiffReport, fmt: str = "table") -> str:
    """Render a report as a plain-text table (``"table"``) or as JSON (``"json"``)."""
    if fmt == "json":
        return report.model_dump_json(indent=2)
    if fmt != "table":
        raise ValueError(f"unknown format {fmt!r} (expected 'table' or 'json')")
    buffer = StringIO()
    console = Console(file=buffer, width=160, no_color=True, force_terminal=False)
    _print_table(console, report)
    return buffer.getvalue()


def _print_table(console: Console, report: DiffReport) -> None:
    if not report.changed:
        console.print(f"No changes ({report.old_tool_count} tools).")
        return
    console.print(_table(report, console.width))
    console.print(Text(f"Patterns: {', '.join(report.patterns) or 'none'}"
                       + (" (`mcptrials explain P<n>` says what a pattern means)" if report.patterns else "")))
    if report.unclassified:
        console.print(f"Changes no pattern names: {len(report.unclassified)}")


def diff_main(old: Path, new: Path, fmt: str = "table") -> int:
    """Print the diff of two tool-list files; exit code 0 = same, 1 = changed, 2 = bad input."""
    if fmt not in ("table", "json"):
        print(f"error: unknown format {fmt!r} (expected 'table' or 'json')", file=sys.stderr)
        return 2
    try:
        report = diff_tool_lists(load_tool_list(old), load_tool_list(new))
    except ToolListError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if fmt == "json":
        print(render_diff(report, "json"))
    else:
        _print_table(Console(), report)
    return 1 if report.changed else 0
