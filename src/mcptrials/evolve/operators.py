"""The 11 mutation operators O1-O11 (MCPEvol-Bench, Table 11) as data, each able to check a diff.

An operator says what one round of server evolution may do: which evolution patterns it can
produce, which interface changes it allows, which it requires, and how many tools and
parameters it may touch. ``Operator.check(diff)`` lists every way a schema diff breaks
those rules; an empty list means the diff is a faithful application of the operator.

The paper's Figure 4 (which operator yields which pattern) is an image, not text; the
pattern sets below are read from the operator definitions and prompts (Table 11, Appendix
H.1) and together cover P1-P18 exactly as the paper states.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from mcptrials.evolve.changes import (
    KIND_LABELS,
    PARAM_CONTRACT_KINDS,
    PARAM_STRUCTURE_KINDS,
    ChangeKind,
    DiffReport,
)

K = ChangeKind


class Level(StrEnum):
    """Where an operator acts: whole tools, parameter structure, or documentation only."""

    TOOL = "TOOL"
    PARAM = "PARAM"
    DESC = "DESC"


PLAN_OPS = frozenset({
    "add_tool", "rename_tool", "remove_tool", "merge_tools", "add_param", "remove_param",
    "rename_param", "set_required", "constrain_param", "describe_tool", "describe_param",
})
"""The kinds of operation an interface-level evolution plan can contain."""

Range = tuple[int, int | None]


@dataclass(frozen=True)
class Operator:
    """One mutation operator: identity, intent, the patterns it yields and the rules it obeys."""

    id: str
    name: str
    level: Level
    summary: str
    patterns: frozenset[str]
    """The evolution patterns this operator is the source of (a round may show others as well)."""
    may_change: tuple[str, ...]
    may_not_change: tuple[str, ...]
    plan_ops: frozenset[str]
    added_tools: Range = (0, 0)
    removed_tools: Range = (0, 0)
    replaced_tools: Range = (0, 0)
    changed_tools: Range = (1, 1)
    allowed: frozenset[ChangeKind] = frozenset()
    requires: tuple[frozenset[ChangeKind], ...] = ()
    max_params: int | None = 3

    @property
    def label(self) -> str:
        """``O5 Flexible Expansion``: id and name, for messages."""
        return f"{self.id} {self.name}"

    def check(self, diff: DiffReport) -> list[str]:
        """Return every rule of this operator that the diff breaks (empty list = obeys)."""
        problems: list[str] = []
        added = [t.tool for t in diff.by_status("added")]
        removed = [t.tool for t in diff.by_status("removed")]
        replaced = [t.tool for t in diff.by_status("replaced")]
        if self.replaced_tools[1]:
            swaps = min(len(added), len(removed))
            replaced += [f"{removed[i]}->{added[i]}" for i in range(swaps)]
            added, removed = added[swaps:], removed[swaps:]
        for what, names, limits in (("added tool", added, self.added_tools),
                                    ("removed tool", removed, self.removed_tools),
                                    ("replaced tool", replaced, self.replaced_tools)):
            problems += self._count(what, names, limits)
        changed = diff.by_status("changed")
        problems += self._count("changed existing tool", [t.tool for t in changed], self.changed_tools)
        for tool in changed:
            for change in tool.changes:
                if change.kind not in self.allowed:
                    where = f"{change.tool}.{change.param}" if change.param else change.tool
                    problems.append(f"{self.label} may not {KIND_LABELS[change.kind]} ({where})")
        kinds = {c.kind for t in changed for c in t.changes}
        for group in self.requires:
            if not kinds & group:
                wanted = " or ".join(sorted(KIND_LABELS[k] for k in group))
                problems.append(f"{self.label} expects at least one change to an existing tool "
                                f"that does: {wanted}")
        if self.max_params is not None:
            touched = {(c.tool, c.param) for t in changed for c in t.changes
                       if c.param and c.kind in PARAM_STRUCTURE_KINDS | PARAM_CONTRACT_KINDS}
            if len(touched) > self.max_params:
                problems.append(f"{self.label} touches {len(touched)} parameters; "
                                f"at most {self.max_params} allowed")
        return problems

    def _count(self, what: str, names: list[str], limits: Range) -> list[str]:
        low, high = limits
        if low <= len(names) and (high is None or len(names) <= high):
            return []
        wanted = f"{low}" if low == high else f"{low} to {high}" if high is not None else f"at least {low}"
        found = f"{len(names)}" + (f" ({', '.join(names)})" if names else "")
        return [f"{self.label} expects {wanted} {what}(s), found {found}"]


_DESC_KINDS = frozenset({K.TOOL_DESC_CHANGED, K.PARAM_DESC_CHANGED})
_REMOVALS = frozenset({K.PARAM_REMOVED_OPTIONAL, K.PARAM_REMOVED_REQUIRED})
_ADDITIONS = frozenset({K.PARAM_ADDED_OPTIONAL, K.PARAM_ADDED_REQUIRED})
_CONTRACT = frozenset({K.PARAM_PROMOTED, K.PARAM_DEMOTED, K.PARAM_TYPE_CHANGED, K.PARAM_CONSTRAINT_CHANGED})

OPERATORS: dict[str, Operator] = {op.id: op for op in (
    Operator(
        "O1", "Tool Addition", Level.TOOL,
        "Introduce one new tool that extends the server; every existing tool stays exactly as it was.",
        frozenset({"P2"}),
        ("the tool list, by one new tool",),
        ("any existing tool's name, description or schema",),
        frozenset({"add_tool"}),
        added_tools=(1, 1), changed_tools=(0, 0),
    ),
    Operator(
        "O2", "Tool Replacement", Level.TOOL,
        "Swap one tool for a redesigned one that still covers its main uses, alone or with other tools.",
        frozenset({"P5"}),
        ("one tool: its name, description and schema, as a whole",),
        ("any other tool",),
        frozenset({"rename_tool", "merge_tools", "describe_tool", "describe_param", "add_param", "remove_param",
                   "rename_param", "set_required", "constrain_param"}),
        replaced_tools=(1, 1), changed_tools=(0, 0),
    ),
    Operator(
        "O3", "Tool Removal", Level.TOOL,
        "Retire one tool and let a surviving tool absorb what it did, so fewer tools keep the key behaviour.",
        frozenset({"P17"}),
        ("the tool list, by one removed tool",
         "one surviving tool that takes over: its description, parameter descriptions, new optional "
         "parameters, relaxed requirements and widened value sets"),
        ("the tool list by additions", "more than one surviving tool"),
        frozenset({"remove_tool", "describe_tool", "describe_param", "add_param", "set_required",
                   "constrain_param"}),
        removed_tools=(1, 1), changed_tools=(1, 1),
        allowed=_DESC_KINDS | {K.PARAM_ADDED_OPTIONAL, K.PARAM_DEMOTED, K.PARAM_CONSTRAINT_CHANGED,
                               K.PARAM_DEFAULT_CHANGED, K.OUTPUT_SCHEMA_CHANGED},
        requires=(_DESC_KINDS,), max_params=None,
    ),
    Operator(
        "O4", "Tool Integration", Level.TOOL,
        "Add one new tool and retune the descriptions of related tools so roles are clearer and "
        "overlap smaller.",
        frozenset({"P18"}),
        ("the tool list, by one new tool", "descriptions of related existing tools"),
        ("any existing tool's name or schema, parameter descriptions included",),
        frozenset({"add_tool", "merge_tools", "describe_tool"}),
        added_tools=(1, 1), changed_tools=(1, None),
        allowed=frozenset({K.TOOL_DESC_CHANGED}), requires=(frozenset({K.TOOL_DESC_CHANGED}),),
    ),
    Operator(
        "O5", "Flexible Expansion", Level.PARAM,
        "Give one tool a few new optional parameters; every call that worked before still works.",
        frozenset({"P4", "P12"}),
        ("one tool: up to three new optional parameters", "that tool's other parameter descriptions"),
        ("the tool description", "existing parameters' types, constraints or required status",
         "required parameters (none may be added)"),
        frozenset({"add_param", "describe_param"}),
        allowed=frozenset({K.PARAM_ADDED_OPTIONAL, K.PARAM_DESC_CHANGED}),
        requires=(frozenset({K.PARAM_ADDED_OPTIONAL}),),
    ),
    Operator(
        "O6", "Constraint Mutation", Level.PARAM,
        "Tighten or loosen what up to three parameters of one tool accept: range, pattern, enum, type, "
        "or required status.",
        frozenset({"P8", "P9", "P13"}),
        ("one tool: constraints, types, defaults and required status of existing parameters",
         "the descriptions of those parameters"),
        ("the tool description", "the set of parameters"),
        frozenset({"set_required", "constrain_param", "describe_param"}),
        allowed=_CONTRACT | {K.PARAM_DEFAULT_CHANGED, K.PARAM_DESC_CHANGED},
        requires=(_CONTRACT,),
    ),
    Operator(
        "O7", "Parameter Pruning", Level.PARAM,
        "Drop up to three redundant or low-value parameters from one tool, accepting the risk when a "
        "required one goes.",
        frozenset({"P11", "P14", "P15"}),
        ("one tool: removal of parameters", "the remaining parameters' descriptions"),
        ("the tool description", "new parameters", "remaining parameters' types or constraints"),
        frozenset({"remove_param", "describe_param"}),
        allowed=_REMOVALS | {K.PARAM_DESC_CHANGED}, requires=(_REMOVALS,),
    ),
    Operator(
        "O8", "Interface Refactoring", Level.PARAM,
        "Reshape one tool's parameter list (add or remove) and rewrite its description to match.",
        frozenset({"P6", "P10", "P14", "P16"}),
        ("one tool: its description (must change), parameters added or removed (up to three)",),
        ("types or constraints of parameters that stay", "other tools"),
        frozenset({"add_param", "remove_param", "rename_param", "describe_tool"}),
        allowed=_ADDITIONS | _REMOVALS | {K.TOOL_DESC_CHANGED},
        requires=(frozenset({K.TOOL_DESC_CHANGED}), _ADDITIONS | _REMOVALS),
    ),
    Operator(
        "O9", "Tool Description Update", Level.DESC,
        "Rewrite one tool's description so it says more precisely what the tool does; behaviour "
        "is unchanged.",
        frozenset({"P1"}),
        ("one tool's description",),
        ("names, schemas, parameter descriptions, behaviour",),
        frozenset({"describe_tool"}),
        allowed=frozenset({K.TOOL_DESC_CHANGED}), requires=(frozenset({K.TOOL_DESC_CHANGED}),),
    ),
    Operator(
        "O10", "Parameter Description Update", Level.DESC,
        "Rewrite parameter descriptions of one tool so their meaning and use are clearer; the parameter "
        "set is unchanged.",
        frozenset({"P3"}),
        ("descriptions of one tool's parameters",),
        ("the tool description", "parameter names, types, constraints, required status", "behaviour"),
        frozenset({"describe_param"}),
        allowed=frozenset({K.PARAM_DESC_CHANGED}), requires=(frozenset({K.PARAM_DESC_CHANGED}),),
        max_params=None,
    ),
    Operator(
        "O11", "Joint Description Update", Level.DESC,
        "Rewrite one tool's description and its parameter descriptions together into one consistent "
        "specification.",
        frozenset({"P7"}),
        ("one tool's description and its parameter descriptions",),
        ("names, schemas, required status, behaviour",),
        frozenset({"describe_tool", "describe_param"}),
        allowed=_DESC_KINDS,
        requires=(frozenset({K.TOOL_DESC_CHANGED}), frozenset({K.PARAM_DESC_CHANGED})),
        max_params=None,
    ),
)}
"""All operators by id, O1 to O11."""


def get_operator(operator_id: str) -> Operator:
    """Look an operator up by id; the error lists the valid ids."""
    try:
        return OPERATORS[operator_id]
    except KeyError:
        valid = ", ".join(OPERATORS)
        raise ValueError(f"unknown operator {operator_id!r} (expected one of {valid})") from None


def operators_for_pattern(pattern_id: str) -> list[Operator]:
    """The operators that can produce the given evolution pattern."""
    return [op for op in OPERATORS.values() if pattern_id in op.patterns]
