"""Pre-started fresh servers: an upcoming episode's sandbox and servers are made ready while earlier episodes run.

For servers that must be fresh per episode (not reusable) and start cold (no fork server),
start-up is the whole cost of a short episode. The runner tells the pool which episodes come
next; a background task prepares a few of them ahead: it creates the episode's sandbox, writes
its fixtures and starts its fresh servers there, exactly as the episode itself would, just
earlier. The episode then adopts that sandbox and those never-used processes. A prepared
server thus sees what a cold one sees (same sandbox contents at start, same environment, same
frozen clock); only the moment it started differs.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import anyio.abc

from mcptrials.model import ServerSpec, Task
from mcptrials.safety.tempdirs import temp_prefix
from mcptrials.servers import forkserver
from mcptrials.servers.connection import ServerConnection, StartFailure
from mcptrials.servers.sandbox import episode_sandbox, write_fixtures
from mcptrials.servers.toolbox import Limits

EpisodeKey = tuple[str, int]
"""(task id, attempt): which episode a prepared unit is for."""


def prestartable(spec: ServerSpec) -> bool:
    """A fresh server worth starting ahead: a process we spawn cold (a forked bundled server starts in ms).

    Not one whose config names ``${MCPTRIALS_EPISODE}``: the episode's id is not known ahead.
    """
    named = " ".join([spec.command or "", spec.cwd or "", *spec.args, *spec.env.values()])
    return (spec.transport == "stdio" and not ("bundled" in spec.tags and forkserver.enabled())
            and "MCPTRIALS_EPISODE" not in named)


@dataclass
class Prepared:
    """One upcoming episode's sandbox and its already-started fresh servers."""

    key: EpisodeKey
    root: Path
    specs: list[ServerSpec]
    conns: dict[str, ServerConnection] = field(default_factory=dict)
    failures: dict[str, StartFailure] = field(default_factory=dict)
    stopped: dict[str, anyio.Event] = field(default_factory=dict)
    now: str | None = None
    ready: anyio.Event = field(default_factory=anyio.Event)
    claimed: bool = False
    broken: bool = False

    @property
    def sandbox(self) -> Path:
        return self.root / "sandbox"


@dataclass
class Prestarter:
    """Prepares up to ``depth`` upcoming episodes ahead of the ones running, in run order."""

    group: anyio.abc.TaskGroup
    limits: Limits
    remove: Callable[[Path], None]
    """How a finished episode's directory is deleted (the pool does it in the background)."""
    depth: int = 2
    queue: list[tuple[Task, int, list[ServerSpec]]] = field(default_factory=list)
    units: dict[EpisodeKey, Prepared] = field(default_factory=dict)
    by_sandbox: dict[Path, Prepared] = field(default_factory=dict)
    started: int = 0
    adopted: int = 0
    _slots: anyio.Semaphore | None = None
    _conns: list[ServerConnection] = field(default_factory=list)

    def expect(self, upcoming: list[tuple[Task, int, list[ServerSpec]]]) -> None:
        """Queue the episodes to prepare (only their prestartable servers); the first ``depth`` begin now."""
        self.queue = [(task, attempt, [s for s in specs if prestartable(s)]) for task, attempt, specs in upcoming]
        self.queue = [item for item in self.queue if item[2]]
        self._slots = anyio.Semaphore(max(1, self.depth))
        while self.queue and self._slots.value:  # registered at once, so the first episodes find theirs
            self._slots.acquire_nowait()
            self.group.start_soon(self._prepare, self._register(*self.queue.pop(0)))
        if self.queue:
            self.group.start_soon(self._run)

    async def _run(self) -> None:
        """Prepare the next queued episode each time a running one adopts its unit."""
        assert self._slots is not None
        while self.queue:
            await self._slots.acquire()
            if not self.queue:
                self._slots.release()
                return
            self.group.start_soon(self._prepare, self._register(*self.queue.pop(0)))

    def _register(self, task: Task, attempt: int, specs: list[ServerSpec]) -> Prepared:
        """Create the episode's sandbox with its fixtures (synchronously: an episode may claim it at once)."""
        unit = Prepared(key=(task.id, attempt), root=Path(tempfile.mkdtemp(prefix=temp_prefix("episode"))).resolve(),
                        specs=specs, now=task.now.isoformat() if task.now else None)
        self.units[unit.key] = unit
        unit.sandbox.mkdir()
        self.by_sandbox[unit.sandbox] = unit
        try:
            write_fixtures(unit.sandbox, task.fixtures)
        except ValueError:
            unit.specs, unit.broken = [], True  # the episode's own sandbox reports the bad fixture
        return unit

    async def _prepare(self, unit: Prepared) -> None:
        try:
            async with anyio.create_task_group() as starting:
                for spec in unit.specs:
                    starting.start_soon(self._start, unit, spec, unit.now)
            self.started += bool(unit.specs)
        finally:
            unit.ready.set()

    async def _start(self, unit: Prepared, spec: ServerSpec, now: str | None) -> None:
        conn = ServerConnection(spec=spec, sandbox=unit.sandbox, now=now, call_timeout=self.limits.call_timeout,
                                start_timeout=self.limits.start_timeout, output_cap=self.limits.output_cap,
                                log_dir=unit.root)
        stopped = anyio.Event()

        async def serve(*, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            try:
                await conn.serve(task_status=task_status)
            finally:
                stopped.set()

        try:
            await self.group.start(serve)
        except StartFailure as failure:
            unit.failures[spec.name] = failure
            return
        unit.conns[spec.name] = conn
        unit.stopped[spec.name] = stopped
        self._conns.append(conn)
        if unit.key not in self.units:  # its episode already ended (cancelled) while this one started
            conn.close()

    @contextlib.contextmanager
    def sandbox(self, task: Task, attempt: int) -> Iterator[Path]:
        """The episode's sandbox: the prepared one when it is (being) prepared, else a new one."""
        unit = self.units.get((task.id, attempt))
        if unit is not None and unit.broken:
            unit.claimed = True
            self._forget(unit)
            shutil.rmtree(unit.root, ignore_errors=True)
            if self._slots is not None:
                self._slots.release()
            unit = None
        if unit is None or unit.claimed:
            self.queue = [item for item in self.queue if (item[0].id, item[1]) != (task.id, attempt)]
            with episode_sandbox(task.fixtures, keep=True) as box:
                try:
                    yield box
                finally:
                    self.remove(box.parent)
            return
        unit.claimed = True
        if self._slots is not None:
            self._slots.release()  # prepare the next one while this episode runs
        try:
            yield unit.sandbox
        finally:
            self._forget(unit)
            self.remove(unit.root)

    async def take(self, sandbox: Path, specs: list[ServerSpec]) -> Prepared | None:
        """The prepared unit of the episode running in ``sandbox``, once its servers are up (None: none)."""
        unit = self.by_sandbox.get(sandbox)
        if unit is None:
            return None
        await unit.ready.wait()
        if {s.name for s in unit.specs} - {s.name for s in specs}:
            return None  # the episode does not start what was prepared (never in the runner's own plans)
        self.adopted += 1
        return unit

    def _forget(self, unit: Prepared) -> None:
        for conn in unit.conns.values():
            conn.close()
        self.units.pop(unit.key, None)
        self.by_sandbox.pop(unit.sandbox, None)

    def close(self) -> None:
        """Stop every prepared, unclaimed server and remove its sandbox."""
        self.queue.clear()
        if self._slots is not None:  # wake ``_run`` if it waits for a slot no episode will free (a stopped run)
            self._slots.release()
        for conn in self._conns:
            conn.close()
        for unit in list(self.units.values()):
            if not unit.claimed:
                shutil.rmtree(unit.root, ignore_errors=True)
        self.units.clear()
