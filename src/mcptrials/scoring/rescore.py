"""Re-grade stored episodes: a benchmark fix means re-scoring, never re-running.

Re-scoring is bulk work: episodes are read in chunks by primary key, parsed and scored in this
process and, for large stores, in helper processes too, and each chunk's scores and outcomes are
written in one transaction with two executemany statements.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from multiprocessing.pool import AsyncResult
from typing import Any

from mcptrials.model import Episode, Task, ToolInfo, split_qualified
from mcptrials.scoring.effects import score_effects
from mcptrials.scoring.rules import score_rules
from mcptrials.store.db import Store, outcome_of, score_row, task_for

CHUNK = 500
"""Episodes per read, per worker job and per write transaction."""


def offered_tools(episode: Episode, catalog: Mapping[str, ToolInfo]) -> dict[str, ToolInfo]:
    """The tools an episode was offered, looked up in the store's catalog by schema hash."""
    tools = {}
    for qualified, digest in episode.tool_hashes.items():
        info = catalog.get(f"{digest}:{split_qualified(qualified)[0]}")
        if info is not None:
            tools[qualified] = info
    return tools


@dataclass
class _Scored:
    """One chunk's result: score rows, new outcomes by episode id, and task ids with no definition."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    outcomes: dict[str, str] = field(default_factory=dict)
    missing: set[str] = field(default_factory=set)
    seen: int = 0
    pid: int = field(default_factory=os.getpid)
    """The process that scored it."""


@dataclass
class _World:
    known: Mapping[tuple[str, str], Task]
    catalog: Mapping[str, ToolInfo]
    offers: dict[tuple[tuple[str, str], ...], dict[str, ToolInfo]] = field(default_factory=dict)

    def tools_for(self, episode: Episode) -> dict[str, ToolInfo]:
        """Offered tools, computed once per distinct offer (most episodes of a run share one)."""
        key = tuple(sorted(episode.tool_hashes.items()))
        found = self.offers.get(key)
        if found is None:
            found = self.offers[key] = offered_tools(episode, self.catalog)
        return found


_WORLD: _World | None = None
"""What ``_score_chunk`` scores against: set in this process, or in each worker by ``_set_world``."""


PARALLEL_FROM = 10_000
"""Stores at least this large are re-scored by one worker process per usable CPU."""


def _usable_cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _set_world(world: _World) -> None:
    global _WORLD
    _WORLD = world


def _score_chunk(chunk: list[str]) -> _Scored:
    assert _WORLD is not None
    out = _Scored(seen=len(chunk))
    for data in chunk:
        episode = Episode.model_validate_json(data)
        task = task_for(_WORLD.known, episode.task_id, episode.version)
        if task is None:
            out.missing.add(episode.task_id)
            continue
        tools = _WORLD.tools_for(episode)
        effects = score_effects(task, episode, tools)
        out.rows += [score_row(effects), score_row(score_rules(episode, tools))]
        out.outcomes[episode.id] = outcome_of(episode, effects)
    return out


def rescore(store: Store, tasks: Mapping[tuple[str, str], Task] | None = None, *, workers: int | None = None,
            chunk: int = CHUNK, on_chunk: Callable[[int], None] | None = None) -> tuple[int, list[str]]:
    """Score every stored episode again; ``tasks`` ((id, version) -> task) overrides stored definitions.

    ``workers``: scoring processes (default: 1, in this process, below ``PARALLEL_FROM`` episodes; else
    the usable CPUs: starting workers costs about a second). Workers are started fresh (forkserver),
    never forked from this process: a fork of a process with threads (a progress bar, an HTTP server)
    can inherit a held lock and hang.
    ``on_chunk(n)`` is called after each chunk of ``n`` episodes is written (a progress bar).
    Returns the number re-scored and the ids of tasks that could not be found.
    """
    global _WORLD
    known = store.tasks()
    if tasks:
        store.save_tasks(tasks.values())
        known.update(tasks)
    _WORLD = _World(known, store.tool_catalog())
    workers = workers or (_usable_cpus() if store.episode_count() >= PARALLEL_FROM else 1)
    count, missing = 0, set[str]()
    try:
        for result in _scored_chunks(store, workers, chunk):
            store.write_score_rows(result.rows, result.outcomes)
            count += len(result.outcomes)
            missing |= result.missing
            if on_chunk:
                on_chunk(result.seen)
    finally:
        _WORLD = None
    return count, sorted(missing)


def _scored_chunks(store: Store, workers: int, chunk: int) -> Iterator[_Scored]:
    """Scored chunks as they finish; this process scores too, so ``workers`` processes score in all.

    The helper processes start in the background (about a second) while this process scores the
    first chunks; once they are up, a chunk goes to them while fewer than two per helper are in
    flight (bounded memory), and this process scores the next one itself otherwise.
    """
    chunks = store.episode_json_chunks(chunk)
    if workers <= 1:
        yield from map(_score_chunk, chunks)
        return
    helpers = _Helpers(workers - 1)
    try:
        pending: deque[AsyncResult[_Scored]] = deque()
        for raw in chunks:
            while pending and pending[0].ready():
                yield pending.popleft().get()
            pool = helpers.pool(wait=_WAIT_FOR_HELPERS)
            if pool is not None and len(pending) < 2 * helpers.count:
                pending.append(pool.apply_async(_score_chunk, (raw,)))
            else:
                yield _score_chunk(raw)
        while pending:
            yield pending.popleft().get()
    finally:
        helpers.close()


_WAIT_FOR_HELPERS = False
"""Tests set this to have every chunk wait for the helpers (a small store is otherwise scored here alone)."""


class _Helpers:
    """Scoring processes started in a background thread, by a forkserver: never forked from this
    process, whose threads (a progress bar, an HTTP server) may hold a lock a fork would copy."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._pool: multiprocessing.pool.Pool | None = None
        self._error: BaseException | None = None
        self._ready = threading.Event()
        threading.Thread(target=self._start, name="mcptrials-rescore-pool", daemon=True).start()

    def _start(self) -> None:
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        try:
            self._pool = multiprocessing.get_context(method).Pool(self.count, initializer=_set_world,
                                                                  initargs=(_WORLD,))
        except BaseException as exc:  # raised again in the scoring thread, by pool()
            self._error = exc
        finally:
            self._ready.set()

    def pool(self, wait: bool = False) -> multiprocessing.pool.Pool | None:
        """The helpers' pool once it is up (None while it starts, unless ``wait``)."""
        if wait:
            self._ready.wait()
        if self._error is not None:
            raise self._error
        return self._pool if self._ready.is_set() else None

    def close(self) -> None:
        self._ready.wait()
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
