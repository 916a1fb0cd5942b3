"""The alternatives corpus: trajectories written as an adversary, and the check that specs judge them right.

For each task, *correct alternatives* (what a capable agent might do instead of the reference:
another tool, another order, extra reads, other spellings, another phrasing) must pass, and
*plausible wrong* trajectories (a wrong or swapped value, the wrong item, a destructive
shortcut, the right calls with a wrong conclusion, a write with wrong content) must fail.
Each is played through the real ReAct loop with a scripted model, on real servers, and
scored like any episode; on an evolved version its calls are first rewritten to that
version's interface.

File format (YAML or JSON: a list, or ``{"alternatives": [...]}``)::

    - task: fin-001
      id: swapped-eps
      expect: reject                  # accept | reject
      classes: [wrong_value]
      why: States the estimate as the actual.
      turns:                          # each turn: the calls made at once; or the word `reference`
        - - {tool: finance__get_earnings, args: {symbol: MSFT}}
      answer: Microsoft missed, with EPS of 4.15 against 4.36 expected.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mcptrials.evolve.mapping import ToolRemovedError, rewrite_call
from mcptrials.evolve.plan import PlanChain
from mcptrials.model import PlannedCall, ServerSpec, Task, split_qualified
from mcptrials.safety.loading import bounded, load_document

ACCEPT_CLASSES = ("other_tool", "other_order", "extra_reads", "other_spelling", "rephrased_answer",
                  "numbers_in_words", "former_latter", "literal_list", "other_unit")
REJECT_CLASSES = ("wrong_value", "wrong_item", "destructive_shortcut", "wrong_conclusion", "wrong_content",
                  "hedged", "retracted", "ungrounded_figure", "weekday_mismatch", "duplicate_write")
CLAIMS_CLASSES = ("numbers_in_words", "former_latter", "literal_list", "other_unit", "hedged", "retracted",
                  "ungrounded_figure", "weekday_mismatch", "duplicate_write")
"""Classes about how an answer is read as claims (written blind, one writer per server group)."""
ALTERNATIVES_DIR = Path(__file__).resolve().parents[1] / "bundled" / "tasks" / "alternatives"


class AlternativesError(ValueError):
    """An alternatives file that cannot be used; the message names file, entry and field."""


class AltCall(BaseModel):
    """One tool call of an alternative trajectory."""

    model_config = ConfigDict(extra="forbid")
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class Alternative(BaseModel):
    """One hand-written trajectory for a task, with the verdict a careful reviewer gives it."""

    model_config = ConfigDict(extra="forbid")
    task: str
    id: str
    expect: Literal["accept", "reject"]
    classes: list[str] = Field(min_length=1)
    why: str = ""
    turns: list[list[AltCall]] | Literal["reference"]
    answer: str = ""
    versions: list[str] | None = None
    """The versions this trajectory can be played on as it was meant (default: every version)."""

    @model_validator(mode="after")
    def _known_classes(self) -> Alternative:
        allowed = ACCEPT_CLASSES if self.expect == "accept" else REJECT_CLASSES
        wrong = [c for c in self.classes if c not in allowed]
        if wrong:
            raise ValueError(f"classes {wrong} do not fit expect={self.expect} (use {', '.join(allowed)})")
        return self

    @property
    def key(self) -> str:
        return f"{self.task}/{self.id}"

    def calls(self, task: Task) -> list[list[PlannedCall]]:
        """The turns as planned calls; ``reference`` is the task's own plan, one call per turn."""
        if self.turns == "reference":
            return [[step] for step in task.reference]
        return [[PlannedCall(tool=c.tool, args=c.args) for c in turn] for turn in self.turns]


def load_alternatives(*paths: str | Path) -> list[Alternative]:
    """Read alternatives files (or every .yaml/.json in folders); entries keyed task/id must be unique."""
    found: list[Alternative] = []
    seen: set[str] = set()
    for raw in paths:
        path = Path(raw)
        files = sorted(p for p in path.iterdir() if p.suffix in {".yaml", ".yml", ".json"}) if path.is_dir() \
            else [path]
        for file in files:
            data = bounded(load_document, AlternativesError, file, "alternatives file", yaml=file.suffix != ".json")
            if isinstance(data, dict):
                data = data.get("alternatives", [])
            if not isinstance(data, list):
                raise AlternativesError(f"{file}: expected a list of alternatives")
            for i, entry in enumerate(data or []):
                try:
                    alt = Alternative.model_validate(entry)
                except ValidationError as exc:
                    first = exc.errors()[0]
                    where = ".".join(str(p) for p in first["loc"])
                    raise AlternativesError(f"{file}[{i}]: {where or '<entry>'}: {first['msg']}") from None
                if alt.key in seen:
                    raise AlternativesError(f"{file}[{i}]: alternative {alt.key!r} is defined twice")
                seen.add(alt.key)
                found.append(alt)
    return found


def bundled_alternatives() -> list[Alternative]:
    """The bundled suite's alternatives corpus."""
    return load_alternatives(ALTERNATIVES_DIR) if ALTERNATIVES_DIR.is_dir() else []


def _rewritten(calls: list[list[PlannedCall]],
               chains: Mapping[str, PlanChain]) -> tuple[list[list[PlannedCall]], list[str]]:
    """The calls in an evolved version's interface, and the tools of those it cannot make as meant."""
    out, gone = [], []
    for turn in calls:
        new_turn = []
        for call in turn:
            try:
                chain = chains.get(split_qualified(call.tool)[0])
            except ValueError:
                chain = None
            if chain is None:
                new_turn.append(call)
                continue
            try:
                tool, args = rewrite_call(chain, call.tool, call.args, faithful=True)
            except ToolRemovedError:
                new_turn.append(call)
                gone.append(call.tool)
                continue
            new_turn.append(PlannedCall(tool=tool, args=args))
        out.append(new_turn)
    return out, gone


def removed_calls(calls: list[list[PlannedCall]], chains: Mapping[str, PlanChain]) -> list[str]:
    """The calls of a trajectory an evolved version cannot make as they were meant (the tool is gone)."""
    return _rewritten(calls, chains)[1]


def rewrite_for_version(calls: list[list[PlannedCall]], chains: Mapping[str, PlanChain]) -> list[list[PlannedCall]]:
    """Calls written for v0, in the interface of an evolved version.

    A call that the version cannot make as it was meant (its tool is gone, or a value it gives is
    one the tool now fixes otherwise) stays as written, so a wrong trajectory never turns right.
    """
    return _rewritten(calls, chains)[0]


@dataclass
class AltResult:
    """How the spec judged one alternative on one version."""

    task_id: str
    alt_id: str
    version: str
    expect: str
    classes: list[str]
    category: str
    accepted: bool | None
    detail: str = ""
    applicable: bool = True
    """False: the version removed a tool this correct trajectory calls; it is counted apart."""

    @property
    def right(self) -> bool:
        return self.accepted is not None and self.accepted == (self.expect == "accept")


@dataclass
class AltSummary:
    """Counts over played alternatives: per class, category and version, and every miss."""

    results: list[AltResult]
    tasks_without: dict[str, list[str]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        played = [r for r in self.results if r.applicable]

        def tally(key: Any) -> dict[str, dict[str, int]]:
            table: dict[str, Counter[str]] = defaultdict(Counter)
            for r in played:
                for name in key(r):
                    table[name]["total"] += 1
                    table[name]["right"] += r.right
                    table[name]["accepted" if r.accepted else "rejected"] += 1
            return {k: dict(v) for k, v in sorted(table.items())}

        accept = [r for r in played if r.expect == "accept"]
        reject = [r for r in played if r.expect == "reject"]
        return {
            "trajectories": len(played),
            "right": sum(r.right for r in played),
            "accept": {"total": len(accept), "accepted": sum(bool(r.accepted) for r in accept)},
            "reject": {"total": len(reject), "rejected": sum(r.accepted is False for r in reject)},
            "infra_errors": sum(r.accepted is None for r in played),
            "per_class": tally(lambda r: r.classes),
            "per_category": tally(lambda r: [r.category]),
            "per_version": tally(lambda r: [r.version]),
            "class_counts_v0": dict(sorted(Counter(c for r in played if r.version == "v0"
                                                   for c in r.classes).items())),
            "tasks_without": self.tasks_without,
            "misses": [{"task": r.task_id, "id": r.alt_id, "version": r.version, "expect": r.expect,
                        "classes": r.classes, "detail": r.detail} for r in played if not r.right],
            "not_applicable": [{"task": r.task_id, "id": r.alt_id, "version": r.version, "detail": r.detail}
                               for r in self.results if not r.applicable],
        }


def coverage_gaps(tasks: Sequence[Task], alternatives: Sequence[Alternative]) -> dict[str, list[str]]:
    """Tasks with no correct alternative, and tasks with no wrong one."""
    have: dict[str, set[str]] = defaultdict(set)
    for alt in alternatives:
        have[alt.task].add(alt.expect)
    return {"accept": [t.id for t in tasks if "accept" not in have[t.id]],
            "reject": [t.id for t in tasks if "reject" not in have[t.id]]}


def _explain(score: Any, episode: Any) -> str:
    if episode.infra_error is not None:
        return f"infra error: {episode.infra_error.message[:200]}"
    parts = [f"{r.id}: {r.detail}" for r in score.checkpoints if not r.passed]
    parts += score.detail.get("minefield_hits", []) + score.detail.get("order_violations", [])
    return "; ".join(parts) if parts else "all checkpoints met"


async def play(servers: Mapping[str, ServerSpec], tasks: Sequence[Task], alternatives: Sequence[Alternative],
               version: str = "v0", chains_of: Any = None, concurrency: int = 4,
               on_result: Callable[[AltResult], None] | None = None, reuse: bool = True) -> list[AltResult]:
    """Play each alternative through the ReAct loop with a scripted model and score it.

    Servers are reused as in a run (``servers.pool``) unless ``reuse`` is False: then each is fresh.

    ``chains_of(task)`` gives the plan chains of the task's servers at ``version`` (none on v0);
    ``on_result`` hears of each result as it comes (a progress bar).
    """
    from mcptrials.agents.react import ReactAgent
    from mcptrials.models.scripted import Script, ScriptedModel
    from mcptrials.run.runner import RunPlan, run_episode, score_episode
    from mcptrials.servers.pool import idle_limit, server_pool

    by_id = {t.id: t for t in tasks}
    limiter = anyio.Semaphore(concurrency)
    results: list[AltResult] = []

    async def one(alt: Alternative) -> None:
        task = by_id[alt.task]
        turns = alt.calls(task)

        def not_applicable(why: str) -> None:
            result = AltResult(alt.task, alt.id, version, alt.expect, list(alt.classes), task.category, None,
                               f"not applicable on {version}: {why}", applicable=False)
            results.append(result)
            if on_result is not None:
                on_result(result)

        if alt.versions is not None and version not in alt.versions:
            return not_applicable(f"the entry is for {', '.join(alt.versions)}")
        if alt.turns != "reference" and chains_of is not None:
            turns, gone = _rewritten(turns, chains_of(task))
            if gone and alt.expect == "accept":  # a right trajectory this version cannot make: not played
                return not_applicable(f"{', '.join(gone)} is gone")
        script = Script.model_validate({"default": [
            *({"tool_calls": [{"name": c.tool, "arguments": c.args} for c in turn]} for turn in turns),
            {"text": alt.answer},
        ]})
        model = ScriptedModel(source=f"alternative:{alt.key}", script=script)
        plan = RunPlan(servers=dict(servers), tasks=[task], agent=ReactAgent(max_turns=len(turns) + 2),
                       model=model, version=version)
        async with limiter:
            episode, offered = await run_episode(plan, task, 0, "alternatives", "alternatives")
        score = score_episode(task, episode, offered)[0]
        accepted = None if episode.infra_error is not None else bool(score.passed)
        result = AltResult(alt.task, alt.id, version, alt.expect, list(alt.classes), task.category, accepted,
                           _explain(score, episode))
        results.append(result)
        if on_result is not None:
            on_result(result)

    async with server_pool(reuse, max_idle=idle_limit(len(servers), concurrency)), anyio.create_task_group() as tg:
        for alt in alternatives:
            if alt.task in by_id:
                tg.start_soon(one, alt)
    order = {alt.key: i for i, alt in enumerate(alternatives)}
    return sorted(results, key=lambda r: order[f"{r.task_id}/{r.alt_id}"])
