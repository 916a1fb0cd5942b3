"""The typed result of comparing two tool lists: atomic changes, per-tool diffs, the report.

The diff engine (``diff.py``) fills these models, the pattern classifier (``patterns.py``)
labels them with evolution patterns P1-P18, and the operators (``operators.py``) check them
against what each mutation operator is allowed to do.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ChangeKind(StrEnum):
    """One atomic kind of interface change between two versions of a server."""

    TOOL_ADDED = "tool_added"
    TOOL_REMOVED = "tool_removed"
    TOOL_REPLACED = "tool_replaced"
    TOOL_DESC_CHANGED = "tool_description_changed"
    TOOL_METADATA_CHANGED = "tool_metadata_changed"
    OUTPUT_SCHEMA_CHANGED = "output_schema_changed"
    INPUT_SCHEMA_OTHER_CHANGED = "input_schema_other_changed"
    PARAM_ADDED_OPTIONAL = "param_added_optional"
    PARAM_ADDED_REQUIRED = "param_added_required"
    PARAM_REMOVED_OPTIONAL = "param_removed_optional"
    PARAM_REMOVED_REQUIRED = "param_removed_required"
    PARAM_PROMOTED = "param_promoted"
    PARAM_DEMOTED = "param_demoted"
    PARAM_TYPE_CHANGED = "param_type_changed"
    PARAM_CONSTRAINT_CHANGED = "param_constraint_changed"
    PARAM_DEFAULT_CHANGED = "param_default_changed"
    PARAM_DESC_CHANGED = "param_description_changed"
    PARAM_OTHER_CHANGED = "param_other_changed"


PARAM_STRUCTURE_KINDS: frozenset[ChangeKind] = frozenset({
    ChangeKind.PARAM_ADDED_OPTIONAL, ChangeKind.PARAM_ADDED_REQUIRED,
    ChangeKind.PARAM_REMOVED_OPTIONAL, ChangeKind.PARAM_REMOVED_REQUIRED,
})
"""Kinds that add or remove a parameter."""

PARAM_CONTRACT_KINDS: frozenset[ChangeKind] = frozenset({
    ChangeKind.PARAM_PROMOTED, ChangeKind.PARAM_DEMOTED, ChangeKind.PARAM_TYPE_CHANGED,
    ChangeKind.PARAM_CONSTRAINT_CHANGED, ChangeKind.PARAM_DEFAULT_CHANGED,
})
"""Kinds that change what values an existing parameter accepts or assumes."""

KIND_LABELS: dict[ChangeKind, str] = {
    ChangeKind.TOOL_ADDED: "add a tool",
    ChangeKind.TOOL_REMOVED: "remove a tool",
    ChangeKind.TOOL_REPLACED: "replace a tool",
    ChangeKind.TOOL_DESC_CHANGED: "change a tool description",
    ChangeKind.TOOL_METADATA_CHANGED: "change tool metadata (title, annotations)",
    ChangeKind.OUTPUT_SCHEMA_CHANGED: "change an output schema",
    ChangeKind.INPUT_SCHEMA_OTHER_CHANGED: "change the input schema outside its parameters",
    ChangeKind.PARAM_ADDED_OPTIONAL: "add an optional parameter",
    ChangeKind.PARAM_ADDED_REQUIRED: "add a required parameter",
    ChangeKind.PARAM_REMOVED_OPTIONAL: "remove an optional parameter",
    ChangeKind.PARAM_REMOVED_REQUIRED: "remove a required parameter",
    ChangeKind.PARAM_PROMOTED: "make an optional parameter required",
    ChangeKind.PARAM_DEMOTED: "make a required parameter optional",
    ChangeKind.PARAM_TYPE_CHANGED: "change a parameter type",
    ChangeKind.PARAM_CONSTRAINT_CHANGED: "change a parameter constraint",
    ChangeKind.PARAM_DEFAULT_CHANGED: "change a parameter default",
    ChangeKind.PARAM_DESC_CHANGED: "change a parameter description",
    ChangeKind.PARAM_OTHER_CHANGED: "change other parameter schema keys",
}
"""Human phrasing of each kind, used in violation messages and tables."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


Direction = Literal["tightened", "loosened", "changed"]
"""Whether a contract change accepts fewer values, more values, or just different ones."""


class Change(_Model):
    """One atomic change to one tool (and, for parameter changes, one parameter)."""

    kind: ChangeKind
    tool: str
    param: str | None = None
    old: Any = None
    new: Any = None
    direction: Direction | None = None
    detail: str = ""


ToolStatus = Literal["added", "removed", "replaced", "changed"]


class ToolDiff(_Model):
    """Everything that changed about one tool, and the evolution patterns it shows."""

    tool: str
    old_name: str | None = None
    status: ToolStatus
    changes: list[Change] = Field(default_factory=list)
    patterns: list[str] = Field(default_factory=list)

    def kinds(self) -> set[ChangeKind]:
        """The set of change kinds present on this tool."""
        return {c.kind for c in self.changes}


class DiffReport(_Model):
    """The full comparison of two tool lists: per-tool diffs plus the union of patterns."""

    old_tool_count: int
    new_tool_count: int
    tools: list[ToolDiff] = Field(default_factory=list)
    patterns: list[str] = Field(default_factory=list)
    unclassified: list[Change] = Field(default_factory=list)

    @property
    def changed(self) -> bool:
        """True when any tool differs between the two lists."""
        return bool(self.tools)

    def all_changes(self) -> list[Change]:
        """Every atomic change, tool by tool."""
        return [c for t in self.tools for c in t.changes]

    def by_status(self, status: ToolStatus) -> list[ToolDiff]:
        """The tool diffs with the given status, in report order."""
        return [t for t in self.tools if t.status == status]
