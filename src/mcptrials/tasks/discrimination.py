"""Does a task's spec discriminate? Drop one reference step, or change one checked argument: it must fail.

Each mutation is first scored on the recorded reference trajectory. That is sound in one
direction: a tool-effect verdict depends only on a call's arguments and success, so a mutation
caught there is caught by a real re-run too. A mutation it does not catch (e.g. one that only
changes a tool result a value checkpoint reads) is re-run for real with the mutated plan.

A step's checked arguments are those its tool-effect checkpoints constrain; when they constrain
none, every argument of the step counts (its value checkpoints are what must notice).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from mcptrials.model import Episode, PlannedCall, Task, ToolCallRecord, ToolEffectCheckpoint
from mcptrials.scoring.effects import score_effects


@dataclass(frozen=True)
class Mutation:
    """Drop reference step ``step``, or change its argument ``key``."""

    kind: str
    step: int
    tool: str
    key: str | None = None

    def __str__(self) -> str:
        what = f"drop step {self.step}" if self.kind == "drop" else f"change {self.key!r} of step {self.step}"
        return f"{what} ({self.tool})"


@dataclass
class Discrimination:
    """How many single-step drops and checked-argument changes the spec catches."""

    task_id: str
    drops: int = 0
    drops_caught: int = 0
    changes: int = 0
    changes_caught: int = 0
    rerun: int = 0
    missed: list[str] = field(default_factory=list)

    @property
    def catches_drops(self) -> bool:
        return self.drops_caught == self.drops

    @property
    def catches_changes(self) -> bool:
        return self.changes_caught == self.changes


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


def checked_arguments(task: Task, tool: str, arguments: dict[str, Any]) -> list[str]:
    """The arguments of one call of ``tool`` whose change the spec must notice."""
    keys: set[str] = set()
    for cp in task.spec.checkpoints:
        if isinstance(cp, ToolEffectCheckpoint) and tool in cp.tools:
            keys |= set(cp.must_include) | set(cp.must_match)
    return sorted((keys or set(arguments)) & set(arguments))


def mutations(task: Task) -> list[Mutation]:
    """Every single-step drop and every checked-argument change of the task's reference plan."""
    drops = [Mutation("drop", i, step.tool) for i, step in enumerate(task.reference)]
    changes = [Mutation("change", i, step.tool, key) for i, step in enumerate(task.reference)
               for key in checked_arguments(task, step.tool, step.args)]
    return drops + changes


def mutate_plan(plan: list[PlannedCall], mutation: Mutation) -> list[PlannedCall]:
    """The reference plan with one mutation applied."""
    if mutation.kind == "drop":
        return [s for i, s in enumerate(plan) if i != mutation.step]
    assert mutation.key is not None
    out = list(plan)
    step = out[mutation.step]
    args = {**step.args, mutation.key: changed_value(step.args[mutation.key])}
    out[mutation.step] = PlannedCall(tool=step.tool, args=args)
    return out


def mutate_trajectory(episode: Episode, mutation: Mutation) -> Episode:
    """The recorded reference trajectory with one mutation applied (results kept as recorded)."""
    calls = episode.tool_calls
    target = calls[mutation.step].index
    steps = []
    for step in episode.steps:
        if step.index == target and isinstance(step, ToolCallRecord):
            if mutation.kind == "drop":
                continue
            assert mutation.key is not None and step.arguments is not None
            step = step.model_copy(update={"arguments": {**step.arguments,
                                                         mutation.key: changed_value(step.arguments[mutation.key])}})
        steps.append(step)
    return episode.model_copy(update={"steps": steps})


Rerun = Callable[[Task], Awaitable[Episode]]


async def discrimination(task: Task, reference: Episode, rerun: Rerun | None = None) -> Discrimination:
    """Count the mutations the spec catches, re-running for real those the recorded trajectory cannot decide."""
    result = Discrimination(task.id)
    for mutation in mutations(task):
        caught = not score_effects(task, mutate_trajectory(reference, mutation)).passed
        if not caught and rerun is not None:
            result.rerun += 1
            mutated = task.model_copy(update={"reference": mutate_plan(list(task.reference), mutation)})
            episode = await rerun(mutated)
            caught = episode.infra_error is None and not score_effects(task, episode).passed
        if mutation.kind == "drop":
            result.drops += 1
            result.drops_caught += caught
        else:
            result.changes += 1
            result.changes_caught += caught
        if not caught:
            result.missed.append(str(mutation))
    return result
