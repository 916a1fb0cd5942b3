"""Does a task's spec discriminate? Drop a necessary step, or change a checked argument: it must fail.

A step is *necessary* when the task cannot be completed without it: it is the only reference
call meeting some tool-effect checkpoint, or leaving it out changes the resulting state of
the sandbox. A discovery call whose result the agent could know or get elsewhere is not
necessary, and a spec need not notice it missing. A *checked* argument is one a tool-effect
checkpoint constrains, or, for a write no such checkpoint constrains, one whose value carries
something the spec's state checks name (a fact of a mail body, say) and whose change alters
the resulting state. A free-text field the spec says nothing about (a subject line) is not.

Each mutation is first scored on the recorded reference trajectory (sound for tool-effect
verdicts, which depend only on a call's arguments and success); a mutation not caught there
is re-run for real and judged on the real episode, state included.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcptrials.model import (
    Episode,
    Matcher,
    PlannedCall,
    StateCheckpoint,
    Task,
    ToolCallRecord,
    ToolEffectCheckpoint,
    ToolInfo,
)
from mcptrials.scoring.answers import normalise_text, states
from mcptrials.scoring.effects import effect_steps, score_effects


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
    """How many necessary-step drops and checked-argument changes the spec catches."""

    task_id: str
    drops: int = 0
    drops_caught: int = 0
    changes: int = 0
    changes_caught: int = 0
    rerun: int = 0
    optional: list[str] = field(default_factory=list)
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


def constrained_arguments(task: Task, tool: str) -> set[str]:
    """The arguments of ``tool`` that some tool-effect checkpoint constrains."""
    keys: set[str] = set()
    for cp in task.spec.checkpoints:
        if isinstance(cp, ToolEffectCheckpoint):
            for member in cp.all_members():
                if member.tool == tool:
                    keys |= set(member.must_include) | set(member.must_match)
    return keys


def checked_arguments(task: Task, tool: str, arguments: dict[str, Any]) -> list[str]:
    """The arguments of one call of ``tool`` whose change the spec may have to notice."""
    keys = constrained_arguments(task, tool)
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
    """The recorded reference trajectory with one mutation applied (results and state kept as recorded)."""
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


def sole_meeters(task: Task, reference: Episode, tools: Mapping[str, ToolInfo] | None) -> set[int]:
    """Reference steps (plan positions) that alone meet some tool-effect checkpoint."""
    position = {call.index: i for i, call in enumerate(reference.tool_calls)}
    sole: set[int] = set()
    for cp in task.spec.checkpoints:
        if isinstance(cp, ToolEffectCheckpoint):
            steps = effect_steps(cp, reference, tools)
            if len(steps) == 1:
                sole.add(position[steps[0]])
    return sole


def state_values(task: Task) -> list[Any]:
    """Every value the task's state checkpoints name (contains, facts, and matcher values)."""
    found: list[Any] = []

    def from_matcher(m: Matcher) -> None:
        kind = m.kind
        value = getattr(m, kind)
        if kind == "facts":
            found.extend(v for fact in value for v in fact.values)
        elif kind in {"one_of", "contains_all"}:
            found.extend(value)
        elif kind in {"equals", "contains", "approx"} and not isinstance(value, dict | list):
            found.append(value)

    for cp in task.spec.checkpoints:
        if isinstance(cp, StateCheckpoint):
            found.append(cp.path)
            found.extend(cp.contains)
            found.extend(v for fact in cp.facts for v in fact.values)
            for matcher in [*cp.match.values(), *cp.where.values()]:
                from_matcher(matcher)
            for row in cp.rows or []:
                found.extend(row)
    return [v for v in found if v is not None and str(v).strip()]


def _names_spec_value(argument: Any, values: list[Any]) -> bool:
    """Whether an argument's value carries one of the spec's named values."""
    if argument is None or not values:
        return False
    text = argument if isinstance(argument, str) else json.dumps(argument, default=str)
    return any(states(text, v) or normalise_text(str(v)) in normalise_text(text) for v in values)


def same_state(a: Episode, b: Episode) -> bool:
    """Whether two episodes left the sandbox in the same state (file hashes and query results)."""
    def digest(e: Episode) -> Any:
        files = {path: entry.get("sha256") for path, entry in e.state.get("files", {}).items()}
        return files, e.state.get("queries", {})
    return bool(digest(a) == digest(b))


Rerun = Callable[[Task], Awaitable[tuple[Episode, Mapping[str, ToolInfo]]]]


async def discrimination(task: Task, reference: Episode, rerun: Rerun | None = None,
                         tools: Mapping[str, ToolInfo] | None = None) -> Discrimination:
    """Count the mutations the spec catches; mutations that matter and are not caught are missed."""
    result = Discrimination(task.id)
    necessary = sole_meeters(task, reference, tools)
    expected = state_values(task)
    for mutation in mutations(task):
        caught = not score_effects(task, mutate_trajectory(reference, mutation), tools).passed
        matters = mutation.step in necessary if mutation.kind == "drop" else \
            mutation.key in constrained_arguments(task, mutation.tool)
        named = mutation.kind == "drop" or _names_spec_value(task.reference[mutation.step].args.get(
            mutation.key or ""), expected)
        if not caught and rerun is not None:
            result.rerun += 1
            mutated = task.model_copy(update={"reference": mutate_plan(list(task.reference), mutation)})
            episode, offered = await rerun(mutated)
            caught = episode.infra_error is None and not score_effects(task, episode, offered).passed
            matters = matters or (named and episode.infra_error is None and not same_state(reference, episode))
        if not caught and not matters:
            result.optional.append(str(mutation))
            continue
        if mutation.kind == "drop":
            result.drops += 1
            result.drops_caught += caught
        else:
            result.changes += 1
            result.changes_caught += caught
        if not caught:
            result.missed.append(str(mutation))
    return result
