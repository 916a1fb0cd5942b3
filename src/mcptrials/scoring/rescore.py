"""Re-grade stored episodes: a benchmark fix means re-scoring, never re-running.

Re-scoring is bulk work. The store is cut into ranges of ``CHUNK`` episodes by primary key; each
range is read, parsed, scored and written (one transaction, two executemany statements) by one
process: this one, and for large stores one helper process per further CPU. Only range bounds
and counts pass between processes, never episodes or scores.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

from sqlalchemy.engine import URL

from mcptrials.model import Episode, Task, ToolInfo, split_qualified
from mcptrials.scoring.effects import score_effects
from mcptrials.scoring.rules import score_rules
from mcptrials.store.db import Store, is_judged, outcome_of, score_row, task_for

CHUNK = 500
"""Episodes per range: per read, per job and per write transaction."""


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
    """One range's result: episodes read, episodes scored, task ids with no definition, rows that could not be
    read, who scored it."""

    seen: int = 0
    scored: int = 0
    missing: set[str] = field(default_factory=set)
    unreadable: list[str] = field(default_factory=list)
    pid: int = field(default_factory=os.getpid)


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
"""What ranges are scored against: set in this process by ``rescore``, in each helper by ``_set_world``."""

_STORE: Store | None = None
"""The store ranges are read from and written to (in a helper, its own connection to it)."""


PARALLEL_FROM = 4 * CHUNK
"""Stores at least this large are re-scored by one process per usable CPU."""


def _usable_cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _set_world(world: _World, url: URL) -> None:
    """A helper's start: the world to score against, and a connection of its own to the store."""
    global _WORLD, _STORE
    _WORLD, _STORE = world, Store(url, migrate=False)


def _score_range(bounds: tuple[str, str | None]) -> _Scored:
    """Read, score and write the episodes with ``after < id <= through`` (``through`` None: to the end)."""
    assert _WORLD is not None and _STORE is not None
    chunk = _STORE.episode_json_range(*bounds)
    out = _Scored(seen=len(chunk))
    rows, changed = [], {}
    noted = len(_STORE.unreadable)
    for episode_id, data, stored in chunk:
        episode = _STORE.read_row("episode", episode_id, Episode.model_validate_json, data)
        if episode is None:
            continue
        task = task_for(_WORLD.known, episode.task_id, episode.version)
        if task is None:
            out.missing.add(episode.task_id)
            continue
        tools = _WORLD.tools_for(episode)
        effects = score_effects(task, episode, tools)
        rows += [score_row(effects), score_row(score_rules(episode, tools, task))]
        outcome = outcome_of(episode, effects)
        if is_judged(effects) and stored in {"passed", "failed"}:
            outcome = stored  # a judge-only task's verdict is its judges': Tier-1 leaves it as they gave it
        if outcome != stored:  # (an episode row is large: it is rewritten only when its outcome changes)
            changed[episode.id] = outcome
        out.scored += 1
    _STORE.write_score_rows(rows, changed)
    out.unreadable = _STORE.unreadable[noted:]
    return out


def rescore(store: Store, tasks: Mapping[tuple[str, str], Task] | None = None, *, workers: int | None = None,
            chunk: int = CHUNK, on_chunk: Callable[[int], None] | None = None) -> tuple[int, list[str]]:
    """Score every stored episode again; ``tasks`` ((id, version) -> task) overrides stored definitions.

    ``workers``: scoring processes, this one included (default: 1 below ``PARALLEL_FROM`` episodes,
    else the usable CPUs). The helpers are forked when this process runs no other thread, else
    started by a forkserver (see ``_Helpers``); this process scores chunks while they start.
    ``on_chunk(n)`` is called after each chunk of ``n`` episodes is written (a progress bar).
    Returns the number re-scored and the ids of tasks that could not be found.
    Stored episodes that cannot be read are left out and listed in ``store.unreadable``.
    """
    global _WORLD, _STORE
    known = store.tasks()
    if tasks:
        store.save_tasks(tasks.values())
        known.update(tasks)
    _WORLD, _STORE = _World(known, store.tool_catalog()), store
    workers = workers or (_usable_cpus() if store.episode_count() >= PARALLEL_FROM else 1)
    count, missing = 0, set[str]()
    try:
        for result in _scored_chunks(store, workers, chunk):
            count += result.scored
            missing |= result.missing
            store.unreadable += [line for line in result.unreadable if line not in store.unreadable]
            if on_chunk:
                on_chunk(result.seen)
    finally:
        _WORLD, _STORE = None, None
    return count, sorted(missing)


def _scored_chunks(store: Store, workers: int, chunk: int) -> Iterator[_Scored]:
    """Scored ranges as they finish; this process scores too, so ``workers`` processes score in all.

    Helpers that start by a forkserver take about half a second, while this process scores the
    first ranges; once they are up, a range goes to them while fewer than two per helper are in
    flight, and this process scores the next one itself otherwise. If a helper dies, this process
    scores its ranges again (a range is written in one transaction, so none is half done) and
    goes on alone.
    """
    ranges = store.episode_id_ranges(chunk)
    if workers <= 1:
        yield from map(_score_range, ranges)
        return
    url = store.engine.url
    if url.get_backend_name() == "sqlite" and url.database:  # (a forkserver may run in another directory)
        url = url.set(database=os.path.abspath(url.database))
    helpers = _Helpers(workers - 1, url)
    pending: deque[tuple[tuple[str, str | None], Future[_Scored]]] = deque()

    def finished(block: bool) -> Iterator[_Scored]:
        while pending and (block or pending[0][1].done()):
            bounds, job = pending.popleft()
            try:
                yield job.result()
            except BrokenProcessPool:
                helpers.broken = True
                _LOG.warning("a re-scoring helper process died; this process scores its ranges again")
                yield _score_range(bounds)

    try:
        for bounds in ranges:
            yield from finished(block=False)
            pool = helpers.pool(wait=_WAIT_FOR_HELPERS)
            if pool is not None and len(pending) < 2 * helpers.count:
                pending.append((bounds, pool.submit(_score_range, bounds)))
            else:
                yield _score_range(bounds)
        yield from finished(block=True)
    finally:
        helpers.close()


_WAIT_FOR_HELPERS = False
"""Tests set this to have every chunk wait for the helpers (a small store is otherwise scored here alone)."""

_LOG = logging.getLogger(__name__)


class _Helpers:
    """Scoring processes: forked from this process when it runs no other thread (it takes
    milliseconds, and the task definitions are shared, not copied); else started in a background
    thread by a forkserver, since a fork would copy a lock another thread (a progress bar, an HTTP
    server) may hold."""

    def __init__(self, count: int, url: URL) -> None:
        assert _WORLD is not None
        self.count, self._world, self._url = count, _WORLD, url
        self.broken = False
        self._pool: ProcessPoolExecutor | None = None
        self._error: BaseException | None = None
        self._ready = threading.Event()
        methods = multiprocessing.get_all_start_methods()
        if threading.active_count() == 1 and "fork" in methods:
            self._start("fork")
        else:
            threading.Thread(target=self._start, args=("forkserver" if "forkserver" in methods else "spawn",),
                             name="mcptrials-rescore-pool", daemon=True).start()

    def _start(self, method: str) -> None:
        try:
            self._pool = ProcessPoolExecutor(self.count, mp_context=multiprocessing.get_context(method),
                                             initializer=_set_world, initargs=(self._world, self._url))
            if method != "fork":  # start them here, not at the first submit in the scoring thread
                for job in [self._pool.submit(os.getpid) for _ in range(self.count)]:
                    job.result()
        except BrokenProcessPool:
            self.broken = True
        except BaseException as exc:  # raised again in the scoring thread, by pool()
            self._error = exc
        finally:
            self._ready.set()

    def pool(self, wait: bool = False) -> ProcessPoolExecutor | None:
        """The helpers once they are up (None while they start, unless ``wait``, or after one died)."""
        if wait:
            self._ready.wait()
        if self._error is not None:
            raise self._error
        return self._pool if self._ready.is_set() and not self.broken else None

    def close(self) -> None:
        self._ready.wait()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
