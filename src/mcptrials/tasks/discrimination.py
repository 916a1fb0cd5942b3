"""Does a task's spec discriminate? Drop one reference step, or change one checked argument: it must fail.

Mutations are applied to the recorded reference trajectory and re-scored. This is sound in one
direction: a tool-effect verdict depends only on a call's arguments and success, so a mutation
caught here is caught in a real re-run too (a re-run can only fail more, e.g. when a later step
needed the dropped one). It can under-report catches that rest on changed tool results.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from mcptrials.model import Episode, Task, ToolCallRecord, ToolEffectCheckpoint
from mcptrials.scoring.effects import score_effects


@dataclass
class Discrimination:
    """How many single-step drops and checked-argument changes the spec catches."""

    task_id: str
    drops: int = 0
    drops_caught: int = 0
    changes: int = 0
    changes_caught: int = 0
    missed: list[str] = field(default_factory=list)

    @property
    def catches_drops(self) -> bool:
        return self.drops_caught == self.drops

    @property
    def catches_changes(self) -> bool:
        return self.changes > 0 and self.changes_caught == self.changes


def changed_value(value: Any) -> Any:
    """A value that no reasonable predicate on the original would still accept."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value * 2 + 7919
    if isinstance(value, list):
        return [] if value else ["__changed__"]
    if isinstance(value, dict):
        return {} if value else {"__changed__": True}
    return "__changed__"


def checked_arguments(task: Task, tool: str) -> set[str]:
    """Argument names of ``tool`` that some tool-effect checkpoint constrains."""
    keys: set[str] = set()
    for cp in task.spec.checkpoints:
        if isinstance(cp, ToolEffectCheckpoint) and tool in cp.tools:
            keys |= set(cp.must_include) | set(cp.must_match)
    return keys


def _without(episode: Episode, index: int) -> Episode:
    return episode.model_copy(update={"steps": [s for s in episode.steps if s.index != index]})


def _with_argument(episode: Episode, index: int, key: str) -> Episode:
    steps = []
    for step in episode.steps:
        if step.index == index and isinstance(step, ToolCallRecord) and step.arguments is not None:
            step = step.model_copy(update={"arguments": {**step.arguments, key: changed_value(step.arguments[key])}})
        steps.append(step)
    return episode.model_copy(update={"steps": steps})


def mutations(task: Task, episode: Episode) -> Iterator[tuple[str, str, Episode]]:
    """Every single mutation of the reference trajectory: (kind, description, mutated episode)."""
    for call in episode.tool_calls:
        yield "drop", f"drop step {call.index} ({call.name})", _without(episode, call.index)
    for call in episode.tool_calls:
        for key in sorted(checked_arguments(task, call.name) & set(call.arguments or {})):
            yield "change", f"change {key!r} of step {call.index} ({call.name})", _with_argument(episode, call.index,
                                                                                                  key)


def discrimination(task: Task, reference: Episode) -> Discrimination:
    """Score every mutation of a passing reference trajectory and count which the spec catches."""
    result = Discrimination(task.id)
    for kind, description, mutated in mutations(task, reference):
        caught = not score_effects(task, mutated).passed
        if kind == "drop":
            result.drops += 1
            result.drops_caught += caught
        else:
            result.changes += 1
            result.changes_caught += caught
        if not caught:
            result.missed.append(description)
    return result
