"""One episode laid out for reading: its steps in order, each checkpoint tied to the step that met or missed it.

Shared by the web page and the terminal view, so both say the same thing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mcptrials.model import (
    ModelTurn,
    StateCheckpoint,
    Task,
    ToolCallRecord,
    ToolEffectCheckpoint,
    ValueCheckpoint,
)
from mcptrials.view.queries import EpisodeBundle

JUDGE_PREFIX = "judge:"
FINAL = "final"
"""The anchor of the final answer (a checkpoint on the final message points there)."""
_REASON_KEYS = ("reason", "rationale", "explanation", "error")


@dataclass
class CheckpointView:
    """A checkpoint's verdict and where in the trajectory it was met, or the steps that tried and missed."""

    id: str
    kind: str
    description: str
    passed: bool
    failure: str | None
    detail: str
    met_at: str | None = None
    """Anchor of the step that met it (``step-N`` or ``final``)."""
    tried_at: list[str] = field(default_factory=list)
    """Anchors of steps that aimed at it without meeting it (calls of its tools, the final answer)."""

    @property
    def anchors(self) -> list[str]:
        return [self.met_at] if self.met_at else self.tried_at


@dataclass
class StepView:
    """One step with the checkpoints it met or missed and the media its result carried."""

    anchor: str
    step: ModelTurn | ToolCallRecord
    met: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    media: list[dict[str, Any]] = field(default_factory=list)

    @property
    def is_tool(self) -> bool:
        return isinstance(self.step, ToolCallRecord)

    @property
    def arguments_json(self) -> str:
        step = self.step
        if isinstance(step, ToolCallRecord):
            return pretty(step.arguments)
        return ""


@dataclass
class JudgeView:
    """A judge's verdict on the episode, with the reasons it gave."""

    name: str
    passed: bool | None
    value: float | None
    model: str | None
    values: dict[str, float]
    reasons: list[tuple[str, str]]
    failure_codes: list[str]


@dataclass
class EpisodeView:
    """Everything an episode page or `mcptrials show` prints."""

    bundle: EpisodeBundle
    steps: list[StepView]
    checkpoints: list[CheckpointView]
    final_met: list[str]
    final_missed: list[str]
    judges: list[JudgeView]
    failure_codes: list[str]
    minefield_hits: list[str]
    order_violations: list[str]
    rules: dict[str, float]

    @property
    def episode(self) -> Any:
        return self.bundle.episode

    @property
    def task(self) -> Task | None:
        return self.bundle.task


def pretty(value: Any) -> str:
    """A value as indented JSON (or as it is when it is not JSON)."""
    if value is None:
        return ""
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _anchor(index: int) -> str:
    return f"step-{index}"


def _tried(cp: Any, steps: list[ModelTurn | ToolCallRecord]) -> list[str]:
    """Steps that aimed at a missed checkpoint: calls of its tools (else failed calls on its servers), or the
    answer it reads."""
    if isinstance(cp, ToolEffectCheckpoint):
        names = set(cp.tool_names)
        calls = [s for s in steps if isinstance(s, ToolCallRecord)]
        aimed = [s for s in calls if s.name in names]
        if not aimed:  # e.g. a call of the tool's old name on an evolved server: same server, no success
            servers = {n.split("__", 1)[0] for n in names}
            aimed = [s for s in calls if s.is_error and (s.server or s.name.split("__", 1)[0]) in servers]
        return [_anchor(s.index) for s in aimed]
    if isinstance(cp, ValueCheckpoint):
        out = []
        if cp.source in {"tool_result", "any"}:
            out = [_anchor(s.index) for s in steps if isinstance(s, ToolCallRecord) and not s.is_error
                   and (not cp.tools or s.name in cp.tools)]
        if cp.source in {"final_message", "any"}:
            out.append(FINAL)
        return out
    return []


def _reasons(detail: Any, path: str = "", depth: int = 0) -> list[tuple[str, str]]:
    """Every reason-like text in a judge's detail, labelled by where it sits (``key_points[2]``)."""
    out: list[tuple[str, str]] = []
    if depth > 5:
        return out
    if isinstance(detail, dict):
        for key, value in detail.items():
            where = f"{path}.{key}" if path else str(key)
            if key in _REASON_KEYS and isinstance(value, str) and value.strip():
                out.append((path or key, value))
            else:
                out.extend(_reasons(value, where, depth + 1))
    elif isinstance(detail, list):
        for i, value in enumerate(detail):
            out.extend(_reasons(value, f"{path}[{i}]", depth + 1))
    return out[:40]


def build(bundle: EpisodeBundle) -> EpisodeView:
    """Lay out a stored episode for reading."""
    episode, task = bundle.episode, bundle.task
    effects = bundle.scores.get("effects")
    specs = {cp.id: cp for cp in task.spec.checkpoints} if task else {}
    steps = [StepView(anchor=_anchor(s.index), step=s,
                      media=list(getattr(s, "attachments", []) or []) if isinstance(s, ToolCallRecord) else [])
             for s in episode.steps]
    by_anchor = {s.anchor: s for s in steps}
    final_met: list[str] = []
    final_missed: list[str] = []
    checkpoints = []
    scored = effects if episode.infra_error is None else None  # an infra episode has no verdict to show
    for result in scored.checkpoints if scored else []:
        cp = specs.get(result.id)
        view = CheckpointView(id=result.id, kind=getattr(cp, "kind", "?"),
                              description=getattr(cp, "description", "") or _describe(cp),
                              passed=result.passed, failure=result.failure, detail=result.detail)
        if result.passed and result.matched_step is not None:
            anchor = _anchor(result.matched_step)
            view.met_at = anchor if anchor in by_anchor else FINAL  # len(steps) is the final answer
        elif not result.passed and cp is not None:
            view.tried_at = _tried(cp, episode.steps)
        for anchor in view.anchors:
            if anchor == FINAL:
                (final_met if view.passed else final_missed).append(view.id)
            elif anchor in by_anchor:
                (by_anchor[anchor].met if view.passed else by_anchor[anchor].missed).append(view.id)
        checkpoints.append(view)
    judges = [JudgeView(name=name[len(JUDGE_PREFIX):], passed=s.passed, value=s.value,
                        model=s.detail.get("judge_model"), values=dict(s.values),
                        reasons=_reasons(s.detail), failure_codes=list(s.failure_codes))
              for name, s in sorted(bundle.scores.items()) if name.startswith(JUDGE_PREFIX)]
    rules = bundle.scores.get("rules")
    detail = scored.detail if scored else {}
    return EpisodeView(bundle=bundle, steps=steps, checkpoints=checkpoints, final_met=final_met,
                       final_missed=final_missed, judges=judges,
                       failure_codes=list(scored.failure_codes) if scored else [],
                       minefield_hits=list(detail.get("minefield_hits") or []),
                       order_violations=list(detail.get("order_violations") or []),
                       rules=dict(rules.values) if rules else {})


def _describe(cp: Any) -> str:
    """A one-line summary of a checkpoint spec without a description."""
    if isinstance(cp, ToolEffectCheckpoint):
        args = {**cp.must_include, **{k: m.model_dump() for k, m in cp.must_match.items()}}
        return f"call {' | '.join(cp.tool_names)}" + (f" with {json.dumps(args, default=str)}" if args else "")
    if isinstance(cp, ValueCheckpoint):
        where = {"final_message": "the answer", "tool_result": "a tool result", "any": "a result or the answer"}
        bits = [json.dumps(cp.contains, default=str)] if cp.contains else []
        bits += [f"facts {', '.join(str(f.labels[0]) for f in cp.facts)}"] if cp.facts else []
        bits += [f"not {json.dumps(cp.absent, default=str)}"] if cp.absent else []
        bits += [f"matching {json.dumps(cp.regex)}"] if cp.regex else []
        return f"{' '.join(bits)} in {where[cp.source]}"
    if isinstance(cp, StateCheckpoint):
        return f"sandbox file {cp.path}" + ("" if cp.exists else " must not exist")
    return ""
