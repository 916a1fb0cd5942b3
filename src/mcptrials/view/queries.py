"""Read-only queries the viewer needs, written against the store's tables so they stay fast on large stores.

Only light columns are read for lists and the matrix (never the episode JSON); a page reads one
episode's JSON at most twice. Every query goes through the store's SQLAlchemy engine, so it works
on any backend the store supports and never blocks a run that is writing the same store.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select

from mcptrials.model import Episode, Score, Task, chain_stratum, version_sort_key
from mcptrials.store.db import Store, episodes, row_problem, runs, scores, task_for, tasks
from mcptrials.store.run_status import run_states

OUTCOMES = ("passed", "failed", "infra_error")


class EpisodeLookupError(LookupError):
    """An episode id (or prefix) that names no stored episode, or more than one."""


class EpisodeReadError(EpisodeLookupError):
    """A stored episode whose JSON this version cannot read."""


@dataclass(frozen=True)
class TaskMeta:
    """What the filters need to know of a task: its category and reference chain length."""

    category: str
    chain: str


Column = tuple[str, str, str]
"""A matrix column: (model, agent, version)."""


@dataclass(slots=True)
class EpisodeRow:
    """One episode as lists and the matrix show it (no steps)."""

    id: str
    run_id: str
    task_id: str
    version: str
    agent: str
    model: str
    attempt: int
    outcome: str
    created_at: str
    failure_codes: list[str]
    column: Column
    infra_kind: str | None = None
    """The infra error's kind (``server_start``, ``provider_timeout``, ...) of an infra episode."""


@dataclass(frozen=True)
class Filters:
    """What a page is narrowed to; empty strings mean no filter."""

    run: str = ""
    category: str = ""
    chain: str = ""
    outcome: str = ""
    code: str = ""
    task: str = ""
    model: str = ""
    agent: str = ""
    version: str = ""

    @classmethod
    def from_query(cls, params: Any) -> Filters:
        return cls(**{name: str(params.get(name, "") or "").strip() for name in cls.__dataclass_fields__})

    def query(self, **changes: str) -> dict[str, str]:
        """The non-empty filters as query parameters, with ``changes`` applied."""
        merged = {name: getattr(self, name) for name in self.__dataclass_fields__} | changes
        return {k: v for k, v in merged.items() if v}


def task_meta(store: Store) -> dict[str, TaskMeta]:
    """Category and chain length of every stored task id (its v0 definition when there is one)."""
    out: dict[str, TaskMeta] = {}
    with store.engine.connect() as conn:
        rows = conn.execute(select(tasks.c.id, tasks.c.version, tasks.c.data)).all()
    for task_id, _version, data in sorted(rows, key=lambda r: (r[0], r[1] != "v0", r[1])):
        if task_id in out:
            continue
        body = _json_object(data)
        out[task_id] = TaskMeta(category=str(body.get("category") or "uncategorised"),
                                chain=chain_stratum(len(body.get("reference") or [])))
    return out


def _failure_codes(store: Store, task: str = "") -> dict[str, list[str]]:
    """Failure codes of every failed episode (from its effects score), by episode id."""
    query = select(scores.c.episode_id, scores.c.data).where((scores.c.scorer == "effects") & (scores.c.passed == 0))
    if task:
        query = query.join(episodes, episodes.c.id == scores.c.episode_id).where(episodes.c.task_id == task)
    with store.engine.connect() as conn:
        found = {eid: _json_object(data).get("failure_codes") for eid, data in conn.execute(query)}
    return {eid: [str(c) for c in codes] if isinstance(codes, list) else [] for eid, codes in found.items()}


def _infra_kinds(store: Store, task: str = "") -> dict[str, str]:
    """The infra error kind of every infra episode, by episode id (only those rows' JSON is read)."""
    query = select(episodes.c.id, episodes.c.data).where(episodes.c.outcome == "infra_error")
    if task:
        query = query.where(episodes.c.task_id == task)
    with store.engine.connect() as conn:
        found = {eid: _json_object(data).get("infra_error") for eid, data in conn.execute(query)}
    return {eid: str(error.get("kind") or "infra_error") if isinstance(error, dict) else "infra_error"
            for eid, error in found.items()}


MODEL_FREE = "none"
"""The model of a model-free agent's episodes (reference, stale) as stored."""


def model_label(model: str) -> str:
    """A model as pages show it: "—" for a model-free agent's, which has none."""
    return "—" if model == MODEL_FREE else model


def _json_object(data: Any) -> dict[str, Any]:
    """A stored JSON column as a dict; {} when the row holds something unreadable (lists must not fail on it)."""
    if isinstance(data, dict):
        return data
    try:
        body = json.loads(data)
    except (TypeError, ValueError):
        return {}
    return body if isinstance(body, dict) else {}


def all_rows(store: Store, task: str = "") -> list[EpisodeRow]:
    """Every stored episode (of one task when given) as a light row, ordered by task, column and attempt."""
    query = select(episodes.c.id, episodes.c.run_id, episodes.c.task_id, episodes.c.version, episodes.c.agent,
                   episodes.c.model, episodes.c.attempt, episodes.c.outcome, episodes.c.created_at)
    if task:
        query = query.where(episodes.c.task_id == task)
    with store.engine.connect() as conn:
        raw = conn.execute(query).all()
    codes = _failure_codes(store, task)
    kinds = _infra_kinds(store, task)
    out = [EpisodeRow(eid, run_id, task_id, version, agent, model, attempt, outcome, created,
                      codes.get(eid, []) if outcome == "failed" else [], (model, agent, version), kinds.get(eid))
           for eid, run_id, task_id, version, agent, model, attempt, outcome, created in map(tuple, raw)]
    out.sort(key=lambda e: (e.task_id, e.model, e.agent, e.version, e.attempt, e.id))
    return out


def select_rows(rows: list[EpisodeRow], filters: Filters, meta: dict[str, TaskMeta]) -> list[EpisodeRow]:
    """The rows meeting every filter (category and chain length through the task's definition)."""
    exact = [(name, value) for name in ("run_id", "task_id", "model", "agent", "version", "outcome")
             if (value := getattr(filters, {"run_id": "run", "task_id": "task"}.get(name, name)))]
    out = []
    for row in rows:
        if any(getattr(row, name) != value for name, value in exact):
            continue
        if filters.category or filters.chain:
            info = meta.get(row.task_id)
            if info is None or (filters.category and info.category != filters.category) \
                    or (filters.chain and info.chain != filters.chain):
                continue
        if filters.code and filters.code not in row.failure_codes:
            continue
        out.append(row)
    return out


def episode_rows(store: Store, filters: Filters, meta: dict[str, TaskMeta] | None = None) -> list[EpisodeRow]:
    """Every stored episode meeting ``filters``, ordered by task, column and attempt."""
    return select_rows(all_rows(store, filters.task), filters, task_meta(store) if meta is None else meta)


def fingerprint(store: Store) -> tuple[Any, ...]:
    """A cheap summary that changes when episodes are added or replaced or their verdicts change."""
    with store.engine.connect() as conn:
        outcomes = tuple(sorted(tuple(r) for r in conn.execute(
            select(episodes.c.outcome, func.count(), func.max(episodes.c.created_at)).group_by(episodes.c.outcome))))
        scored = tuple(conn.execute(select(func.count(), func.sum(scores.c.passed), func.sum(scores.c.value))
                                    .where(scores.c.scorer == "effects")).one())
        defined = tuple(conn.execute(select(func.count()).select_from(tasks)).one())
    return outcomes, scored, defined


@dataclass(slots=True)
class Cell:
    """The episodes of one task under one (model, agent, version)."""

    passed: int = 0
    failed: int = 0
    infra_error: int = 0
    only: str | None = None
    codes: Counter[str] = field(default_factory=Counter)
    infra_kinds: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.infra_error

    @property
    def scored(self) -> int:
        return self.passed + self.failed

    def add(self, row: EpisodeRow) -> None:
        if row.outcome == "passed":
            self.passed += 1
        elif row.outcome == "failed":
            self.failed += 1
        elif row.outcome == "infra_error":
            self.infra_error += 1
            self.infra_kinds[row.infra_kind or "infra_error"] += 1
        if row.failure_codes:
            self.codes.update(row.failure_codes)


@dataclass
class Matrix:
    """Outcome counts per task (rows) and (model, agent, version) column."""

    columns: list[Column]
    tasks: list[str]
    cells: dict[tuple[str, Column], Cell]
    totals: dict[Column, Cell]
    episodes: int

    def cell(self, task_id: str, column: Column) -> Cell | None:
        return self.cells.get((task_id, column))


def header_spans(columns: list[Column], depth: int) -> list[tuple[str, int]]:
    """Runs of columns sharing their first ``depth`` parts: (label, span) for one header row."""
    spans: list[tuple[str, int]] = []
    previous: tuple[str, ...] | None = None
    for col in columns:
        key = col[:depth]
        if key == previous:
            spans[-1] = (spans[-1][0], spans[-1][1] + 1)
        else:
            spans.append((col[depth - 1], 1))
            previous = key
    return spans


def matrix(rows: list[EpisodeRow]) -> Matrix:
    """Aggregate episode rows into the task x (model, agent, version) matrix."""
    cells: dict[tuple[str, Column], Cell] = {}
    totals: dict[Column, Cell] = {}
    for row in rows:
        key = (row.task_id, row.column)
        cell = cells.get(key)
        if cell is None:
            cell = cells[key] = Cell(only=row.id)
        else:
            cell.only = None
        cell.add(row)
        total = totals.get(row.column)
        if total is None:
            total = totals[row.column] = Cell()
        total.add(row)
    return Matrix(columns=sorted(totals), tasks=sorted({r.task_id for r in rows}), cells=cells, totals=totals,
                  episodes=len(rows))


def filter_choices(rows: list[EpisodeRow], meta: dict[str, TaskMeta]) -> dict[str, list[str]]:
    """The values each filter can take, from every stored episode row."""
    return {"model": sorted({r.model for r in rows}), "agent": sorted({r.agent for r in rows}),
            "version": sorted({r.version for r in rows}, key=version_sort_key),
            "category": sorted({m.category for m in meta.values()}), "chain": ["short", "medium", "long"],
            "outcome": list(OUTCOMES), "code": sorted({c for r in rows for c in r.failure_codes})}


def run_summaries(store: Store) -> list[dict[str, Any]]:
    """Every run with its settings and episode counts by outcome, newest first."""
    with store.engine.connect() as conn:
        counts: dict[str, Counter[str]] = {}
        for run_id, outcome, n in conn.execute(
                select(episodes.c.run_id, episodes.c.outcome, func.count()).group_by(episodes.c.run_id,
                                                                                      episodes.c.outcome)):
            counts.setdefault(run_id, Counter())[outcome] = n
        groups: dict[str, set[str]] = {}
        for run_id, model, agent in conn.execute(
                select(episodes.c.run_id, episodes.c.model, episodes.c.agent).distinct()):
            groups.setdefault(run_id, set()).add(f"{model_label(model)} / {agent}")
        versions: dict[str, set[str]] = {}
        for run_id, version in conn.execute(select(episodes.c.run_id, episodes.c.version).distinct()):
            versions.setdefault(run_id, set()).add(version)
        listed = conn.execute(select(runs.c.id, runs.c.created_at, runs.c.config_hash)
                              .order_by(runs.c.created_at.desc())).all()
    states = {s.id: s for s in run_states(store)}
    out = []
    for run_id, created, config_hash in listed:
        c = counts.get(run_id, Counter())
        state = states.get(run_id)
        out.append({"id": run_id, "created_at": created, "config_hash": config_hash,
                    "episodes": sum(c.values()), "passed": c["passed"], "failed": c["failed"],
                    "infra_error": c["infra_error"], "groups": sorted(groups.get(run_id, ()))
                    or ([state.label] if state is not None and state.label else []),
                    "versions": sorted(versions.get(run_id, ()), key=version_sort_key),
                    "state": state})
    return out


def run_config(store: Store, run_id: str) -> dict[str, Any] | None:
    """The recorded settings of one run, or None."""
    with store.engine.connect() as conn:
        row = conn.execute(select(runs.c.config).where(runs.c.id == run_id)).first()
    if row is None:
        return None
    return _json_object(row[0])


def resolve_episode_id(store: Store, ref: str) -> str:
    """The full id of the episode ``ref`` names (an id or a unique prefix of one)."""
    ref = ref.strip()
    if not ref:
        raise EpisodeLookupError("no episode id given")
    with store.engine.connect() as conn:
        if conn.execute(select(episodes.c.id).where(episodes.c.id == ref)).first():
            return ref
        found = [r[0] for r in conn.execute(select(episodes.c.id).where(
            episodes.c.id.startswith(ref, autoescape=True)).order_by(episodes.c.id).limit(6))]
    if not found:
        raise EpisodeLookupError(f"no episode with id or id prefix {ref!r} in {store.url}")
    if len(found) > 1:
        more = ", ..." if len(found) > 5 else ""
        raise EpisodeLookupError(f"episode id prefix {ref!r} is ambiguous: it matches {', '.join(found[:5])}{more}"
                                 " (give more characters)")
    return found[0]


@dataclass
class EpisodeBundle:
    """One stored episode with its scores and the task definition it was scored against."""

    episode: Episode
    scores: dict[str, Score]
    task: Task | None
    outcome: str
    problems: list[str] = field(default_factory=list)
    """Stored rows of this episode (scores, task definitions) that could not be read and are left out."""


def load_episode(store: Store, ref: str) -> EpisodeBundle:
    """The episode ``ref`` names (id or unique prefix), its scores and its task."""
    episode_id = resolve_episode_id(store, ref)
    problems: list[str] = []
    with store.engine.connect() as conn:
        row = conn.execute(select(episodes.c.data, episodes.c.outcome).where(episodes.c.id == episode_id)).one()
        try:
            episode = Episode.model_validate_json(row.data)
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            raise EpisodeReadError(f"episode {episode_id} in {store.url} cannot be read: {row_problem(exc)}"
                                   " (written by another version of mcptrials, or damaged)") from None
        found: dict[str, Score] = {}
        for scorer, data in conn.execute(select(scores.c.scorer, scores.c.data)
                                         .where(scores.c.episode_id == episode_id)):
            try:
                found[scorer] = Score.model_validate_json(data)
            except ValueError as exc:
                problems.append(f"the stored {scorer!r} score cannot be read: {row_problem(exc)}")
        defs: dict[tuple[str, str], Task] = {}
        for r in conn.execute(select(tasks).where(tasks.c.id == episode.task_id)):
            try:
                defs[(r.id, r.version)] = Task.model_validate(_json_object(r.data))
            except ValueError as exc:
                problems.append(f"the stored definition of task {r.id} {r.version} cannot be read: "
                                f"{row_problem(exc)}")
    return EpisodeBundle(episode=episode, scores=found, task=task_for(defs, episode.task_id, episode.version),
                         outcome=row.outcome, problems=problems)


def sibling_rows(store: Store, task_id: str) -> list[EpisodeRow]:
    """Every stored episode of one task (candidates to compare an episode with)."""
    return all_rows(store, task_id)
