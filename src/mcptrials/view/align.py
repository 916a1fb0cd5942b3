"""Align two episodes of the same task step by step, so a side-by-side view shows where they part ways.

Tool calls are matched by tool name (without its server prefix), model turns with model turns; a run of
steps with no counterpart is shown against a gap. Calls that match by name but differ in arguments or
outcome are marked as changed; a call of another tool at the same point (such as a tool renamed on an
evolved version) as other.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from mcptrials.model import ModelTurn, ToolCallRecord
from mcptrials.view.episode import EpisodeView, StepView

Relation = Literal["same", "changed", "other", "only_a", "only_b"]


@dataclass
class AlignedRow:
    """One row of the side-by-side view: a step of each episode (or a gap) and how they relate."""

    a: StepView | None
    b: StepView | None
    relation: Relation


def _key(view: StepView) -> str:
    step = view.step
    if isinstance(step, ToolCallRecord):
        return "tool:" + (step.tool or step.name.split("__", 1)[-1])
    return "model" if isinstance(step, ModelTurn) and step.role == "agent" else f"model:{step.role}"


def _same(a: StepView, b: StepView) -> bool:
    x, y = a.step, b.step
    if isinstance(x, ToolCallRecord) and isinstance(y, ToolCallRecord):
        return x.name == y.name and x.arguments == y.arguments and x.is_error == y.is_error
    if isinstance(x, ModelTurn) and isinstance(y, ModelTurn):
        return x.text == y.text and [(c.name, c.arguments) for c in x.tool_calls] == \
            [(c.name, c.arguments) for c in y.tool_calls]
    return False


def align(a: EpisodeView, b: EpisodeView) -> list[AlignedRow]:
    """The steps of ``a`` and ``b`` in order, paired where they do the same kind of thing."""
    left, right = a.steps, b.steps
    matcher = SequenceMatcher(a=[_key(s) for s in left], b=[_key(s) for s in right], autojunk=False)
    rows: list[AlignedRow] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            rows += [AlignedRow(x, y, "same" if _same(x, y) else "changed") for x, y in zip(left[i1:i2],
                                                                                         right[j1:j2], strict=True)]
        elif op == "delete":
            rows += [AlignedRow(x, None, "only_a") for x in left[i1:i2]]
        elif op == "insert":
            rows += [AlignedRow(None, y, "only_b") for y in right[j1:j2]]
        else:
            rows += _pair_by_kind(left[i1:i2], right[j1:j2])
    return rows


def _pair_by_kind(xs: list[StepView], ys: list[StepView]) -> list[AlignedRow]:
    """A stretch where the two sides did different things: pair steps of the same kind in order (a call of
    another tool, e.g. a tool renamed on an evolved version, is marked ``other``), the rest against gaps."""
    kinds = SequenceMatcher(a=[x.is_tool for x in xs], b=[y.is_tool for y in ys], autojunk=False)
    rows: list[AlignedRow] = []
    for op, i1, i2, j1, j2 in kinds.get_opcodes():
        paired = list(zip(xs[i1:i2], ys[j1:j2], strict=False)) if op in ("equal", "replace") else []
        for x, y in paired:
            if x.is_tool == y.is_tool:
                rows.append(AlignedRow(x, y, "changed" if _key(x) == _key(y) else "other"))
            else:
                rows += [AlignedRow(x, None, "only_a"), AlignedRow(None, y, "only_b")]
        rows += [AlignedRow(x, None, "only_a") for x in xs[i1 + len(paired):i2]]
        rows += [AlignedRow(None, y, "only_b") for y in ys[j1 + len(paired):j2]]
    return rows


def checkpoint_table(a: EpisodeView, b: EpisodeView) -> list[tuple[str, bool | None, bool | None]]:
    """Each checkpoint id with its verdict in ``a`` and in ``b`` (None when the episode was not held to it)."""
    va = {c.id: c.passed for c in a.checkpoints}
    vb = {c.id: c.passed for c in b.checkpoints}
    return [(cid, va.get(cid), vb.get(cid)) for cid in dict.fromkeys([*va, *vb])]
