"""Does a task's spec discriminate? Drop a necessary step, or change a checked argument: it must fail.

A step is *necessary* when the task cannot be completed without it: it is the only reference
call meeting some tool-effect checkpoint, or leaving it out changes the resulting state the
spec reads (any state, when the spec reads none). A discovery call whose result the agent
could know or get elsewhere is not necessary, nor is its side effect on state the spec does
not check (a read flag). A *checked* argument is one a tool-effect checkpoint constrains, or,
for a write, one whose change alters state the spec reads and that the checks are about: a
record field they match on, or a value they name (a fact of a mail body, say). A free-text
field the spec says nothing about (a subject line) is not.

Each mutation is first scored on the recorded reference trajectory (sound for tool-effect
verdicts, which depend only on a call's arguments and success); a mutation not caught there
is re-run for real and judged on the real episode, state included.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcptrials.jsonpath import argument_names
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
from mcptrials.tasks.stats import is_write_tool


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
                    keys |= argument_names([*member.must_include, *member.must_match])
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


def sole_meeters(task: Task, reference: Episode,
                 tools: Mapping[str, ToolInfo] | None) -> dict[int, list[ToolEffectCheckpoint]]:
    """Reference steps (plan positions) that alone meet tool-effect checkpoints, with those checkpoints."""
    position = {call.index: i for i, call in enumerate(reference.tool_calls)}
    sole: dict[int, list[ToolEffectCheckpoint]] = {}
    for cp in task.spec.checkpoints:
        if isinstance(cp, ToolEffectCheckpoint):
            steps = effect_steps(cp, reference, tools)
            if len(steps) == 1:
                sole.setdefault(position[steps[0]], []).append(cp)
    return sole


def _constrained_by(checkpoints: list[ToolEffectCheckpoint], tool: str) -> set[str]:
    return {key for cp in checkpoints for m in cp.all_members() if m.tool == tool
            for key in argument_names([*m.must_include, *m.must_match])}


def state_values(task: Task) -> list[Any]:
    """Every value the task's state checkpoints name (contains, facts, and matcher values)."""
    found: list[Any] = []

    def from_matcher(m: Matcher) -> None:
        kind = m.kind
        value = getattr(m, kind)
        if kind == "facts":
            found.extend(v for fact in value for v in fact.values)
        elif kind in {"one_of", "contains_all"}:
            found.extend(x for v in value for x in (v if isinstance(v, list) else [v]))
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


def changed_paths(a: Episode, b: Episode) -> set[str]:
    """Sandbox files two episodes left differently (by content hash, or by a captured query's result)."""
    files_a = {path: entry.get("sha256") for path, entry in a.state.get("files", {}).items()}
    files_b = {path: entry.get("sha256") for path, entry in b.state.get("files", {}).items()}
    changed = {path for path in files_a.keys() | files_b.keys() if files_a.get(path) != files_b.get(path)}
    queries_a, queries_b = a.state.get("queries", {}), b.state.get("queries", {})
    changed |= {key.split("\n", 1)[0] for key in queries_a.keys() | queries_b.keys()
                if queries_a.get(key) != queries_b.get(key)}
    return changed


def _state_matters(task: Task, tool: str, changed: set[str], key: str | None, value: Any,
                   expected: list[Any]) -> bool:
    """Whether a change of the resulting state is one the spec ought to notice.

    Without state checkpoints, any change by a write (by its name: send, create, delete, ...)
    counts, not a read's side effect such as a read flag. With them, only changes to files they read
    count, and for a changed argument only one the checks are about: a record field they match
    on, or (for text and SQL checks) a value they name.
    """
    states_cps = [cp for cp in task.spec.checkpoints if isinstance(cp, StateCheckpoint)]
    if not states_cps:  # a spec that reads no state must still notice a write go missing or go wrong
        return bool(changed) and is_write_tool(tool)
    reading = [cp for cp in states_cps if cp.path in changed]
    if not reading:
        return False
    if key is None:
        return True
    fields = {name.split(".")[0].split("[")[0] for cp in reading for name in [*cp.match, *cp.where]}
    return key in fields if fields else _names_spec_value(value, expected)


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
            mutation.key in _constrained_by(necessary.get(mutation.step, []), mutation.tool)
        if not caught and rerun is not None:
            result.rerun += 1
            mutated = task.model_copy(update={"reference": mutate_plan(list(task.reference), mutation)})
            episode, offered = await rerun(mutated)
            caught = episode.infra_error is None and not score_effects(task, episode, offered).passed
            if episode.infra_error is None and not matters:
                value = task.reference[mutation.step].args.get(mutation.key) if mutation.key else None
                matters = _state_matters(task, mutation.tool, changed_paths(reference, episode), mutation.key,
                                         value, expected)
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
