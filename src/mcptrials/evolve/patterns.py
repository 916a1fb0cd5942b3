"""The 18 evolution patterns P1-P18 (MCPEvol-Bench, Table 10) and the classifier that labels diffs.

A pattern is either *atomic* (one kind of change, e.g. P4 = an optional parameter appears) or
*composite* (several atomic patterns seen together, e.g. P6 = tool description change plus an
optional parameter). Classification rule, applied per tool:

1. collect the atomic patterns the tool's changes show;
2. report every composite whose parts all occur on that tool;
3. report each atomic pattern that no reported composite already covers.

P18 is the one cross-tool composite: a tool was added and *another*, surviving tool's
description changed. A replaced tool (P5) reports only P5; the finer changes between the old
and the new tool stay in the report as detail. Changes that no pattern names (default values,
output schemas, titles and annotations) are listed as unclassified rather than forced into one.

Table 10 gives P16 exactly the same name and definition as P6 ("tool description update
combined with optional parameter addition"). Taking the table literally, a change that matches
one matches the other, so both ids are reported together; ``ALIASES`` records this so that
counting analyses can fold P16 into P6.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcptrials.evolve.changes import ChangeKind, ToolDiff


@dataclass(frozen=True)
class Pattern:
    """One evolution pattern: its id, the table's short name, a definition, and its parts."""

    id: str
    name: str
    definition: str
    parts: frozenset[str] = frozenset()
    scope: str = "tool"

    @property
    def composite(self) -> bool:
        """True when the pattern is a combination of other patterns."""
        return bool(self.parts)


def _p(pid: str, name: str, definition: str, *parts: str, scope: str = "tool") -> Pattern:
    return Pattern(pid, name, definition, frozenset(parts), scope)


PATTERNS: dict[str, Pattern] = {p.id: p for p in (
    _p("P1", "TOOL-DESC_CHANGE", "The tool's natural-language description was edited."),
    _p("P2", "TOOL-ADD", "A tool that did not exist before was introduced.", scope="server"),
    _p("P3", "PARAM-DESC_CHANGE", "The description of one of the tool's parameters was edited."),
    _p("P4", "PARAM-ADD(OPTIONAL)", "A new parameter that callers may omit was added."),
    _p("P5", "TOOL-REPLACE", "An existing tool was swapped for a new one that takes over its job.",
       scope="server"),
    _p("P6", "TOOL-DESC_CHANGE + PARAM-ADD(OPTIONAL)",
       "The tool description changed and an optional parameter was added.", "P1", "P4"),
    _p("P7", "TOOL-DESC_CHANGE + PARAM-DESC_CHANGE",
       "Both the tool description and parameter descriptions were edited.", "P1", "P3"),
    _p("P8", "PARAM-STRICT/RELAX",
       "What a parameter accepts (type, enum, range, length, pattern) became stricter or looser."),
    _p("P9", "PARAM-STRICT/RELAX + PARAM-DESC_CHANGE",
       "A parameter constraint changed and parameter descriptions were edited too.", "P8", "P3"),
    _p("P10", "PARAM-ADD(REQUIRED)", "A new parameter that callers must supply was added."),
    _p("P11", "PARAM-REMOVE(OPTIONAL)", "An optional parameter was dropped."),
    _p("P12", "PARAM-ADD(OPTIONAL) + PARAM-DESC_CHANGE",
       "An optional parameter was added and other parameters' descriptions were edited.", "P4", "P3"),
    _p("P13", "PARAM-PROMOTE/DEMOTE", "An existing parameter switched between optional and required."),
    _p("P14", "PARAM-REMOVE(REQUIRED)", "A parameter that used to be mandatory was dropped."),
    _p("P15", "PARAM-REMOVE(OPTIONAL) + PARAM-DESC_CHANGE",
       "An optional parameter was dropped and the remaining parameters' descriptions were edited.",
       "P11", "P3"),
    _p("P16", "TOOL-DESC_CHANGE + PARAM-ADD(OPTIONAL)",
       "Same definition as P6 in the source table: tool description change plus optional parameter.",
       "P1", "P4"),
    _p("P17", "TOOL-REMOVE", "An existing tool was deprecated and taken away.", scope="server"),
    _p("P18", "TOOL-ADD + TOOL-DESC_CHANGE",
       "A tool was added while the description of another, existing tool was edited.", "P2", "P1",
       scope="server"),
)}
"""All patterns by id, in table order."""

ALIASES: dict[str, str] = {"P16": "P6"}
"""Pattern ids whose definition duplicates another's in the source table."""

ATOMIC_OF_KIND: dict[ChangeKind, str] = {
    ChangeKind.TOOL_ADDED: "P2",
    ChangeKind.TOOL_REPLACED: "P5",
    ChangeKind.TOOL_REMOVED: "P17",
    ChangeKind.TOOL_DESC_CHANGED: "P1",
    ChangeKind.PARAM_DESC_CHANGED: "P3",
    ChangeKind.PARAM_ADDED_OPTIONAL: "P4",
    ChangeKind.PARAM_TYPE_CHANGED: "P8",
    ChangeKind.PARAM_CONSTRAINT_CHANGED: "P8",
    ChangeKind.PARAM_ADDED_REQUIRED: "P10",
    ChangeKind.PARAM_REMOVED_OPTIONAL: "P11",
    ChangeKind.PARAM_PROMOTED: "P13",
    ChangeKind.PARAM_DEMOTED: "P13",
    ChangeKind.PARAM_REMOVED_REQUIRED: "P14",
}
"""The atomic pattern each change kind shows; kinds missing here are unclassified."""

_TOOL_COMPOSITES = [p for p in PATTERNS.values() if p.composite and p.scope == "tool"]


def pattern_sort_key(pid: str) -> int:
    """Order pattern ids numerically (P2 before P10)."""
    return int(pid[1:])


def _tool_patterns(atoms: set[str], extra: set[str]) -> list[str]:
    reported = {p.id for p in _TOOL_COMPOSITES if p.parts <= atoms} | extra
    covered = set().union(*(PATTERNS[pid].parts for pid in reported)) if reported else set()
    reported |= atoms - covered
    return sorted(reported, key=pattern_sort_key)


def classify(tools: list[ToolDiff]) -> list[str]:
    """Set ``patterns`` on every tool diff and return the sorted union of all patterns."""
    added = {id(t) for t in tools if t.status == "added"}
    described = {id(t) for t in tools if t.status == "changed" and ChangeKind.TOOL_DESC_CHANGED in t.kinds()}
    p18 = bool(added) and bool(described)
    for tool in tools:
        if tool.status == "replaced":
            tool.patterns = ["P5"]
            continue
        if tool.status in ("added", "removed"):
            atoms = {"P2" if tool.status == "added" else "P17"}
        else:
            atoms = {ATOMIC_OF_KIND[c.kind] for c in tool.changes if c.kind in ATOMIC_OF_KIND}
        extra = {"P18"} if p18 and id(tool) in added | described else set()
        tool.patterns = _tool_patterns(atoms, extra)
    union = {pid for t in tools for pid in t.patterns}
    return sorted(union, key=pattern_sort_key)
