"""Refresh a task suite on today's servers: is each task identical, drifted or broken since its baseline?

Every task's reference plan is played again by the reference agent (fresh sandbox, the task's
frozen clock, as ``tasks check`` does) and compared with the task's **baseline**, taken in this
order: the ``provenance.refresh`` block a previous ``refresh --out`` wrote into the task (a
results hash per reference step and the tools' schema hashes); else the first refresh of the task
stored in the result store; else none, and this refresh records it (the task counts as
``identical`` to itself, and the output says ``baseline: none``).

- ``identical``: every step gives the baseline's result byte for byte and the spec passes.
- ``drifted``: some result changed, every step still succeeds, and the spec passes, as written or
  once the values it names are carried over to the new results (``values.py``; the refreshed task
  gets them, and the reference answer its numbers).
- ``broken``: a step fails (tool gone, arguments rejected, server down) or the spec cannot pass.

When the servers' tool lists changed since the baseline, the P1-P18 diff is attached, and a
broken task names the patterns of the tool whose step failed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import anyio
from sqlalchemy import JSON, Column, Integer, MetaData, String, Table, Text, select

from mcptrials.agents.reference import ReferenceAgent
from mcptrials.evolve.diff import diff_tool_lists
from mcptrials.model import Episode, ServerSpec, Task, ToolInfo, ValueCheckpoint, stable_hash
from mcptrials.replay.values import Ambiguous, changed_pairs, updated_text, updated_value
from mcptrials.run.runner import RunPlan, run_episode
from mcptrials.scoring.effects import score_effects
from mcptrials.store.db import Store

Verdict = Literal["identical", "drifted", "broken"]
CLASSES: tuple[Verdict, ...] = ("identical", "drifted", "broken")
RESULT_CAP = 20_000
"""Longest result text kept per step in the store (the baseline values are carried over from)."""

_meta = MetaData()
refreshes = Table(
    "refreshes", _meta,
    Column("id", String, primary_key=True),
    Column("created_at", String, nullable=False),
    Column("label", String, nullable=False),
    Column("counts", JSON, nullable=False),
)
refresh_tasks = Table(
    "refresh_tasks", _meta,
    Column("refresh_id", String, primary_key=True),
    Column("task_id", String, primary_key=True),
    Column("verdict", String, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("data", Text, nullable=False),
)


def result_hash(content: str, structured: Any, is_error: bool) -> str:
    """The identity of one result: text, structured content and error flag (byte-exact)."""
    return stable_hash([content, structured, is_error])


@dataclass
class TaskRefresh:
    """One task's refresh: its class, why, the interface changes that touched it, and its new baseline."""

    task_id: str
    verdict: Verdict
    reasons: list[str]
    baseline: str
    hashes: list[str]
    tools: dict[str, str]
    results: list[tuple[str, Any]] = field(default_factory=list)
    patterns: list[str] = field(default_factory=list)
    interface: list[dict[str, Any]] = field(default_factory=list)
    updates: list[dict[str, Any]] = field(default_factory=list)
    task: Task | None = None
    """The task to write out: the new baseline (and carried-over values) unless broken."""

    def as_dict(self) -> dict[str, Any]:
        return {"task": self.task_id, "class": self.verdict, "reasons": self.reasons, "baseline": self.baseline,
                "patterns": self.patterns, "interface_changes": self.interface, "updates": self.updates}


@dataclass
class Baseline:
    source: str
    hashes: list[str]
    tools: dict[str, str]
    results: list[tuple[str, Any]] | None = None


class RefreshStore:
    """Refreshes kept in the result store (two tables beside the episodes)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        if not store.read_only:  # a reader's store is at head, which has them
            _meta.create_all(store.engine)

    def first(self, task_id: str) -> Baseline | None:
        """The oldest stored refresh of a task that recorded a baseline (not a broken one)."""
        with self.store.engine.connect() as conn:
            row = conn.execute(select(refresh_tasks.c.data).where(
                (refresh_tasks.c.task_id == task_id) & (refresh_tasks.c.verdict != "broken"))
                .order_by(refresh_tasks.c.seq)).first()
        if row is None:
            return None
        data = json.loads(row[0])
        return Baseline("store", data["hashes"], data["tools"], [tuple(r) for r in data["results"]])

    def results_for(self, task_id: str, hashes: list[str]) -> list[tuple[str, Any]] | None:
        """Stored results whose hashes are exactly ``hashes`` (to carry values from a task-file baseline)."""
        with self.store.engine.connect() as conn:
            for (data,) in conn.execute(select(refresh_tasks.c.data).where(refresh_tasks.c.task_id == task_id)):
                found = json.loads(data)
                if found["hashes"] == hashes:
                    return [tuple(r) for r in found["results"]]
        return None

    def save(self, label: str, items: list[TaskRefresh]) -> str:
        now = datetime.now(UTC)
        refresh_id = f"refresh-{now.strftime('%Y%m%dT%H%M%S%f')}"
        counts = {c: sum(r.verdict == c for r in items) for c in CLASSES}
        with self.store.engine.begin() as conn:
            seq = len(conn.execute(select(refreshes.c.id)).all())
            conn.execute(refreshes.insert().values(id=refresh_id, created_at=now.isoformat(timespec="seconds"),
                                                   label=label, counts=counts))
            for item in items:
                data = {**item.as_dict(), "hashes": item.hashes, "tools": item.tools,
                        "results": [[text[:RESULT_CAP], structured] for text, structured in item.results]}
                conn.execute(refresh_tasks.insert().values(refresh_id=refresh_id, task_id=item.task_id,
                                                           verdict=item.verdict, seq=seq,
                                                           data=json.dumps(data, default=str)))
        return refresh_id

    def history(self) -> list[dict[str, Any]]:
        """Every stored refresh in time order: when, what, and its counts."""
        with self.store.engine.connect() as conn:
            rows = conn.execute(select(refreshes).order_by(refreshes.c.created_at, refreshes.c.id)).all()
        return [{"id": r.id, "created_at": r.created_at, "label": r.label,
                 "counts": r.counts if isinstance(r.counts, dict) else json.loads(r.counts)} for r in rows]


def decay(store: Store) -> list[dict[str, Any]]:
    """The decay curve: per stored refresh, the fraction of tasks identical, drifted and broken."""
    out = []
    for row in RefreshStore(store).history():
        total = sum(row["counts"].values())
        out.append({**row, "tasks": total,
                    "fractions": {c: round(row["counts"].get(c, 0) / total, 4) if total else 0.0 for c in CLASSES}})
    return out


def _baseline(task: Task, saved: RefreshStore | None) -> Baseline | None:
    block = task.provenance.get("refresh")
    if isinstance(block, Mapping) and isinstance(block.get("results"), list):
        hashes = [str(h) for h in block["results"]]
        results = saved.results_for(task.id, hashes) if saved else None
        return Baseline("task", hashes, dict(block.get("tools") or {}), results)
    return saved.first(task.id) if saved else None


def _wire(tool: ToolInfo) -> dict[str, Any]:
    out: dict[str, Any] = {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}
    if tool.output_schema is not None:
        out["outputSchema"] = tool.output_schema
    return out


def interface_changes(task: Task, old: Mapping[str, str], now: Mapping[str, ToolInfo],
                      catalog: Mapping[str, ToolInfo]) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """The P1-P18 diff of each of the task's servers since the baseline, and the patterns per old tool name."""
    changes: list[dict[str, Any]] = []
    by_tool: dict[str, list[str]] = {}
    current = {q: t.schema_hash for q, t in now.items()}
    for server in task.servers:
        before = {q: h for q, h in old.items() if q.startswith(f"{server}__")}
        after = {q: h for q, h in current.items() if q.startswith(f"{server}__")}
        if before == after:
            continue
        old_tools = [catalog.get(f"{h}:{server}") for h in before.values()]
        if any(t is None for t in old_tools):  # the old schemas are not in this store: names only
            for q in sorted(before.keys() - after.keys()):
                by_tool[q] = ["tool gone"]
                changes.append({"server": server, "tool": q, "status": "removed", "patterns": []})
            for q in sorted(q for q in before.keys() & after.keys() if before[q] != after[q]):
                by_tool[q] = ["schema changed"]
                changes.append({"server": server, "tool": q, "status": "changed", "patterns": []})
            continue
        report = diff_tool_lists([_wire(t) for t in old_tools if t is not None],
                                 [_wire(now[q]) for q in after])
        for diff in report.tools:
            changes.append({"server": server, "tool": f"{server}__{diff.tool}", "status": diff.status,
                            "old_name": diff.old_name, "patterns": diff.patterns,
                            "changes": [c.kind.value + (f" {c.param}" if c.param else "") for c in diff.changes]})
            if diff.old_name:
                by_tool.setdefault(f"{server}__{diff.old_name}", []).extend(diff.patterns)
    return changes, by_tool


def _carry_values(task: Task, pairs: list[tuple[Any, Any]]) -> tuple[Task, list[dict[str, Any]], list[str]]:
    """The task with the values its spec names (and its reference answer's numbers) carried to the new results."""
    updates: list[dict[str, Any]] = []
    problems: list[str] = []

    def carry(value: Any, where: str) -> Any:
        try:
            new = updated_value(value, pairs)
        except Ambiguous as exc:
            problems.append(f"{where}: {exc}")
            return value
        if new != value:
            updates.append({"where": where, "old": value, "new": new})
        return new

    checkpoints = []
    for cp in task.spec.checkpoints:
        if isinstance(cp, ValueCheckpoint):
            contains = [[carry(v, f"{cp.id}.contains") for v in item] if isinstance(item, list)
                        else carry(item, f"{cp.id}.contains") for item in cp.contains]
            facts = [f.model_copy(update={"value": [carry(v, f"{cp.id}.facts") for v in f.value]
                                          if isinstance(f.value, list) else carry(f.value, f"{cp.id}.facts")})
                     for f in cp.facts]
            cp = cp.model_copy(update={"contains": contains, "facts": facts})
        checkpoints.append(cp)
    answer = task.reference_answer
    if answer:
        new_answer = updated_text(answer, pairs)
        if new_answer != answer:
            updates.append({"where": "reference_answer", "old": answer, "new": new_answer})
            answer = new_answer
    spec = task.spec.model_copy(update={"checkpoints": checkpoints})
    return task.model_copy(update={"spec": spec, "reference_answer": answer}), updates, problems


def _failures(task: Task, episode: Episode, tools: Mapping[str, ToolInfo]) -> list[str]:
    score = score_effects(task, episode, tools)
    return [*(f"{r.id}: {r.detail}" for r in score.checkpoints if not r.passed),
            *score.detail.get("minefield_hits", []), *score.detail.get("order_violations", [])]


def _with_baseline(task: Task, hashes: list[str], tools: dict[str, str], at: str) -> Task:
    block = {"at": at, "results": hashes, "tools": tools}
    return task.model_copy(update={"provenance": {**task.provenance, "refresh": block}})


def classify(task: Task, episode: Episode, offered: Mapping[str, ToolInfo], baseline: Baseline | None,
             catalog: Mapping[str, ToolInfo], at: str) -> TaskRefresh:
    """Compare one task's fresh reference run with its baseline."""
    calls = episode.tool_calls
    hashes = [result_hash(c.content, c.structured_content, c.is_error) for c in calls]
    tools = {q: t.schema_hash for q, t in offered.items()}
    results = [(c.content, c.structured_content) for c in calls]
    item = TaskRefresh(task.id, "identical", [], baseline.source if baseline else "none", hashes, tools, results)
    by_tool: dict[str, list[str]] = {}
    if baseline is not None:
        item.interface, by_tool = interface_changes(task, baseline.tools, offered, catalog)
    if episode.infra_error is not None:
        item.verdict, item.reasons = "broken", [f"server unavailable: {episode.infra_error.message.splitlines()[0]}"]
        return item
    failed = next((c for c in calls if c.is_error), None)
    if failed is not None:
        what = {"unknown_tool": "tool gone", "tool_error": "arguments rejected or the call failed",
                "protocol_error": "arguments rejected"}.get(failed.error_kind or "", failed.error_kind or "error")
        item.verdict = "broken"
        item.reasons = [f"step {calls.index(failed)} {failed.name}: {what}: {failed.content[:200]}"]
        item.patterns = sorted(set(by_tool.get(failed.name, [])), key=lambda p: (len(p), p))
        return item
    failures = _failures(task, episode, offered)
    if baseline is None:
        item.reasons = ["no baseline: this refresh records one"]
        if failures:
            item.verdict, item.reasons = "broken", ["the reference fails its spec: " + "; ".join(failures)]
        else:
            item.task = _with_baseline(task, hashes, tools, at)
        return item
    if hashes == baseline.hashes and len(calls) == len(baseline.hashes):
        if failures:
            item.verdict, item.reasons = "broken", ["same results, but the spec fails: " + "; ".join(failures)]
        else:
            item.task = _with_baseline(task, hashes, tools, at)
        return item
    changed = [i for i, h in enumerate(hashes) if i >= len(baseline.hashes) or baseline.hashes[i] != h]
    item.reasons = [f"results changed at step(s) {', '.join(map(str, changed))}"]
    new_task, problems = task, list[str]()
    if baseline.results is not None:
        pairs = changed_pairs(baseline.results, results)
        new_task, item.updates, problems = _carry_values(task, pairs)
    elif failures:
        item.reasons.append("the baseline's results are not in this store, so no value could be carried over")
    replayed = episode.model_copy(update={"final_answer": new_task.reference_answer or ""})
    still = _failures(new_task, replayed, offered)
    if still:
        item.verdict = "broken"
        item.reasons.append("spec no longer satisfiable: " + "; ".join([*still, *problems]))
        return item
    item.verdict = "drifted"
    item.reasons += problems
    item.task = _with_baseline(new_task, hashes, tools, at)
    return item


async def refresh(servers: Mapping[str, ServerSpec], tasks: list[Task], store: Store | None, concurrency: int = 4,
                  on_done: Callable[[TaskRefresh], None] | None = None) -> list[TaskRefresh]:
    """Play every task's reference plan on ``servers`` and classify it against its baseline."""
    plan = RunPlan(servers=dict(servers), tasks=tasks, agent=ReferenceAgent(), model=None)
    saved = RefreshStore(store) if store is not None else None
    catalog = store.tool_catalog() if store is not None else {}
    at = datetime.now(UTC).isoformat(timespec="seconds")
    results: dict[str, TaskRefresh] = {}
    limiter = anyio.Semaphore(max(1, concurrency))

    async def one(task: Task) -> None:
        async with limiter:
            if not task.reference:
                results[task.id] = TaskRefresh(task.id, "broken", ["the task has no reference plan"], "none", [], {})
            else:
                episode, offered = await run_episode(plan, task, 0, "refresh", "refresh")
                if store is not None:
                    store.save_tools(offered.values())
                results[task.id] = classify(task, episode, offered, _baseline(task, saved), catalog, at)
        if on_done:
            on_done(results[task.id])

    async with anyio.create_task_group() as tg:
        for task in tasks:
            tg.start_soon(one, task)
    return [results[t.id] for t in tasks]

