"""Server reuse: a warm server process serves many episodes when that cannot change a verdict.

Which servers are reused (``reuse_reason``): a server marked ``"reuse": true`` in its config; every
bundled server run from the shipped code: read-only ones (``static`` / ``live_read``) and stateful
ones, which keep their state in sandbox files only (``bound_spec``); never a server marked
``"reuse": false``, a third-party server left unmarked, an HTTP server, or a spec naming a
per-episode variable (``${MCPTRIALS_SANDBOX}``, ``${MCPTRIALS_EPISODE}``).

How reuse stays invisible to the score:

- Processes are pooled per key: the whole spec (command, args, env, version...), the call limits
  and, for a user's server, the task's frozen clock ``now``: such a process never serves an
  episode with another ``now`` or environment.
- A user's server serves one episode at a time (concurrent episodes get their own processes),
  so no session state or interleaved call is shared. A bundled server serves up to ``MAX_SHARE``
  running episodes at once, under any frozen clock: each call names its episode's sandbox and
  time in its ``_meta`` (``episode_binding``), the server works in that sandbox at that time
  (``bundled.servers._runtime``), and its tools run one call at a time.
- A pooled process runs in its own empty working directory (its ``MCPTRIALS_SANDBOX``), never
  in an episode's sandbox. After each episode the directory is checked: a server that wrote
  anything there is not stateless, so the process is retired, the key is never pooled again in
  this run, and the episode is reported as an infrastructure error (``server_reuse``) so it is
  re-run with a fresh server instead of being scored.
- Before a process is handed out it must answer a tool listing identical to the one it gave at
  start-up (a bundled one: a prompt listing); a process that crashed, hangs or changed its tools
  is replaced. A process whose episode saw a crash, a timeout or an abandoned call is never
  handed out again.

``MCPTRIALS_REUSE=0`` turns reuse off for a whole run (``run --no-reuse`` likewise).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from mcptrials.bundled.servers._runtime import NOW_META, SANDBOX_META
from mcptrials.model import ServerSpec, Task, stable_hash
from mcptrials.safety.tempdirs import temp_prefix
from mcptrials.servers.connection import CallOutcome, ServerConnection, StartFailure, episode_binding
from mcptrials.servers.prestart import Prestarter
from mcptrials.servers.sandbox import episode_sandbox
from mcptrials.servers.toolbox import Limits, Toolbox, open_toolbox

REUSE_ENV = "MCPTRIALS_REUSE"
PER_EPISODE_VARS = ("MCPTRIALS_SANDBOX", "MCPTRIALS_EPISODE")
"""Variables whose value differs per episode: a spec naming one is per-episode, hence never reused."""
HEALTH_TIMEOUT = 2.0
"""Longest wait for a pooled process to answer its health check before it is replaced."""
_TAINTING = {"timeout", "server_unresponsive", "server_crash", "server_unavailable", "protocol_error"}


def idle_limit(servers: int, concurrency: int) -> int:
    """How many idle processes a run keeps: one per server per running episode, within reason."""
    return max(2 * concurrency + 8, min(servers * concurrency, servers + 4 * concurrency))


def reuse_enabled() -> bool:
    """Reuse is on unless ``MCPTRIALS_REUSE=0``."""
    return os.environ.get(REUSE_ENV, "1") != "0"


def _strings(spec: ServerSpec) -> Iterable[str]:
    yield from (spec.command or "", spec.cwd or "", spec.url or "", *spec.args)
    yield from spec.env.values()
    yield from spec.headers.values()


def reuse_reason(spec: ServerSpec) -> tuple[bool, str]:
    """Whether ``spec``'s processes may serve several episodes, and why (one short phrase)."""
    marked = getattr(spec, "reuse", None)
    for text in _strings(spec):
        for var in PER_EPISODE_VARS:
            if "${" + var in text or "$" + var in text:
                return False, f"its config names the per-episode variable ${{{var}}}"
    if spec.transport != "stdio":
        return False, "it is reached over HTTP (no process of ours to keep)"
    if marked is not None:
        return bool(marked), "marked \"reuse\": " + ("true" if marked else "false") + " in its config"
    if "bundled" in spec.tags:
        if not _runs_shipped(spec):
            return False, "tagged bundled but not run from the shipped code"
        if _shipped_read_only(spec.name):
            return True, f"a bundled {spec.dynamism} server (reads shipped data and the frozen clock only)"
        return True, "a bundled stateful server (its state lives in the episode sandbox, which each call names)"
    return False, "a third-party server not marked \"reuse\": true"


@functools.cache
def _shipped_read_only(name: str) -> bool:
    """Whether the bundled world ships ``name`` as read-only: a label changed in a config is not trusted
    (a stateful server relabelled ``static`` would serve a pooled, fixture-less directory)."""
    from mcptrials.bundled.world import bundled_servers

    shipped = bundled_servers().get(name)
    return shipped is not None and shipped.dynamism in {"static", "live_read"}


def _runs_shipped(spec: ServerSpec) -> bool:
    """Whether ``spec`` runs the shipped bundled server of its name (directly or behind the evolution proxy).

    Such a server keeps no state in memory (stateful ones keep it in sandbox files only) and works in the
    sandbox and at the time a call's ``_meta`` names (``bundled.servers._runtime``).
    """
    if "bundled" not in spec.tags or spec.reuse is not None or spec.transport != "stdio":
        return False
    from mcptrials.bundled.world import bundled_servers

    ours = {sys.executable, "python", "python3"}  # this interpreter, so this installation's code
    module = ["-m", f"mcptrials.bundled.servers.{spec.name}"]
    direct = spec.args == module
    proxied = (spec.args[:2] == ["-m", "mcptrials.evolve.proxy"] and spec.args[-2:] == module
               and len(spec.args) >= 5 and spec.args[-3] in ours and spec.args[-4] == "--upstream-command")
    return spec.command in ours and spec.name in bundled_servers() and (direct or proxied)


def bound_spec(spec: ServerSpec) -> bool:
    """Whether ``spec`` runs a shipped bundled *stateful* server, whose every call names its episode's sandbox."""
    return _runs_shipped(spec) and not _shipped_read_only(spec.name)


MAX_SHARE = 8
"""Most episodes one shareable (bundled) process serves at the same time."""


def shareable_spec(spec: ServerSpec) -> bool:
    """Whether concurrent episodes may share one process: bundled servers, whose tools are functions of shipped
    data, the frozen clock and the sandbox each call names, run one call at a time (``bundled.servers._runtime``).
    A user's ``"reuse": true`` server gets one process per running episode."""
    return "bundled" in spec.tags and spec.reuse is None and reuse_reason(spec)[0]


def binds_episode(spec: ServerSpec) -> bool:
    """Whether a pooled process of ``spec`` is told each calling episode's sandbox and time (bundled servers)."""
    return shareable_spec(spec)


def pool_key(spec: ServerSpec, now: str | None, limits: Limits) -> str:
    """What a process is pooled under: everything that can change how it answers (not the frozen time for
    bundled servers, whose every call names it)."""
    return stable_hash({"spec": spec.model_dump(mode="json"), "now": None if binds_episode(spec) else now,
                        "limits": [limits.call_timeout, limits.start_timeout, limits.output_cap]})


def _listing(tools: Iterable[Any]) -> str:
    """A tool listing's identity (names, descriptions, schemas), from SDK tools or ``ToolInfo``s."""
    return stable_hash(sorted(
        [t.name, t.description or "", dict(getattr(t, "input_schema", None) or {"type": "object", "properties": {}})]
        for t in tools))


@dataclass
class _Lease:
    """One pooled process: its connection, its private directory and what its episodes did to it."""

    key: str
    conn: _WatchedConnection
    home: Path
    listing: str
    episodes: int = 1
    last_used: float = 0.0
    tainted: str | None = None
    holders: int = 0
    shareable: bool = False

    @property
    def workdir(self) -> Path:
        return self.home / "sandbox"


class _WatchedConnection(ServerConnection):
    """A pooled connection that remembers a call that leaves the process in doubt (crash, timeout)."""

    lease: _Lease | None = None

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        outcome = await super().call(tool, arguments)
        lease = self.lease
        if lease is not None and lease.tainted is None and (
                outcome.error_kind in _TAINTING or outcome.content.startswith("tool call timed out")):
            lease.tainted = f"a call ended in {outcome.error_kind}"
        return outcome


@dataclass
class PoolStats:
    """What the pool did in a run."""

    started: int = 0
    reused: int = 0
    replaced: int = 0
    retired: int = 0
    retired_dirty: int = 0
    shared: int = 0


@dataclass
class ServerPool:
    """Idle warm processes per key, leased to one episode at a time, all stopped when the pool closes."""

    group: anyio.abc.TaskGroup
    root: Path
    max_idle: int = 16
    idle: dict[str, list[_Lease]] = field(default_factory=dict)
    unsafe: dict[str, str] = field(default_factory=dict)
    """Keys found unsafe to reuse in this run (a process wrote to its directory), with the reason."""
    stats: PoolStats = field(default_factory=PoolStats)
    prestarter: Prestarter | None = None
    """Prepares upcoming episodes' fresh servers ahead (``expect``)."""
    remover: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(1, "mcptrials-rm"))
    """Deletes finished episodes' directories in the background."""
    _numbers: Iterator[int] = field(default_factory=itertools.count)
    _live: set[int] = field(default_factory=set)
    _leases: dict[int, _Lease] = field(default_factory=dict)
    busy: dict[str, list[_Lease]] = field(default_factory=dict)
    """Shareable processes currently held by at least one episode."""
    _starting: dict[str, anyio.Event] = field(default_factory=dict)

    def remove(self, root: Path) -> None:
        """Delete an episode's directory in the background."""
        self.remover.submit(shutil.rmtree, root, ignore_errors=True)

    def expect(self, upcoming: list[tuple[Task, int, list[ServerSpec]]], limits: Limits, depth: int) -> None:
        """Start preparing the fresh servers of ``upcoming`` (task, attempt, specs) episodes, ``depth`` ahead."""
        self.prestarter = Prestarter(group=self.group, limits=limits, depth=depth, remove=self.remove)
        now = {id(task): task.now.isoformat() if task.now else None for task, _, _ in upcoming}
        self.prestarter.expect([(task, attempt, [s for s in specs if not self.pooled(s, now[id(task)], limits,
                                                                                   task.fixtures.has_any())])
                                for task, attempt, specs in upcoming])

    def pooled(self, spec: ServerSpec, now: str | None, limits: Limits, fixtures: bool = False) -> bool:
        """Whether an episode gets ``spec`` from the pool (reusable and not found unsafe in this run).

        Not when the episode has fixture files, unless the server is a bundled one: a fresh process runs
        in the sandbox holding them, a pooled one in an empty directory of its own, so a reusable server
        that reads its working directory would not see them (a bundled stateful one is told the sandbox).
        """
        # a faked clock (``servers.clock``) stands still at ``now``, which is part of the key
        return (reuse_reason(spec)[0] and pool_key(spec, now, limits) not in self.unsafe
                and (not fixtures or shareable_spec(spec)))

    async def lease(self, spec: ServerSpec, now: str | None, limits: Limits) -> _Lease:
        """A healthy process for ``spec`` at ``now``: a shared or idle one, else a newly started one.

        Raises ``StartFailure`` when a new one does not come up.
        """
        key = pool_key(spec, now, limits)
        if not shareable_spec(spec):
            return self._hold(await self._idle_one(key) or await self._start(key, spec, now, limits))
        while key in self._starting:  # one start (or health check) per key at a time: the others join it
            await self._starting[key].wait()
        for lease in self.busy.get(key, []):
            if lease.holders < MAX_SHARE and lease.tainted is None and lease.conn.dead is None:
                lease.holders += 1
                lease.episodes += 1
                self.stats.reused += 1
                self.stats.shared += 1
                return lease
        self._starting[key] = anyio.Event()
        try:
            lease = await self._idle_one(key) or await self._start(key, spec, now, limits)
            lease.shareable = True
            return self._hold(lease)
        finally:
            self._starting.pop(key).set()

    async def _idle_one(self, key: str) -> _Lease | None:
        """A healthy idle process for ``key``, if there is one (unhealthy ones are stopped on the way)."""
        stack = self.idle.get(key, [])
        while stack:
            lease = stack.pop()
            if await self._healthy(lease):
                lease.episodes += 1
                self.stats.reused += 1
                return lease
            self.stats.replaced += 1
            self._stop(lease)
        return None

    def _hold(self, lease: _Lease) -> _Lease:
        lease.holders = 1
        if lease.shareable:
            self.busy.setdefault(lease.key, []).append(lease)
        return lease

    def release(self, lease: _Lease, *, aborted: bool = False) -> str | None:
        """Take ``lease`` back after its episode; returns why reuse was unsafe, when it was (else None).

        The process goes back to the idle list (once no episode holds it) unless an episode using
        it was aborted, a call left it in doubt, it died, or it wrote into its working directory
        (then its key is not pooled again and every episode that releases it is re-run).
        """
        lease.holders -= 1
        reason = None
        wrote = _written(lease.workdir)
        if wrote:
            reason = f"server {lease.conn.spec.name!r} wrote {wrote!r} into its working directory, so it is not " \
                     "stateless; it is no longer reused in this run and this episode must be re-run"
            self.unsafe[lease.key] = reason
            self.stats.retired_dirty += 1
            lease.tainted = reason
        if aborted:
            lease.tainted = lease.tainted or "an episode using it was aborted"
        if lease.holders > 0:
            return reason
        with contextlib.suppress(ValueError):
            self.busy.get(lease.key, []).remove(lease)
        if lease.tainted or lease.conn.dead is not None:
            if not wrote:
                self.stats.retired += 1
            self._stop(lease)
            return reason
        lease.last_used = time.monotonic()
        self.idle.setdefault(lease.key, []).append(lease)
        self._trim()
        return None

    async def _healthy(self, lease: _Lease) -> bool:
        """The process answers a tool listing, identical to the one it started with, in time.

        A bundled server only has to answer a (cheaper) prompt listing: its tools are fixed by the shipped code.
        """
        client = getattr(lease.conn, "_client", None)
        if lease.conn.dead is not None or client is None:
            return False
        try:
            with anyio.fail_after(HEALTH_TIMEOUT):
                if lease.conn.binds:
                    await client.list_prompts()
                    return True
                listing = await client.list_tools()
        except Exception:
            return False
        return _listing(listing.tools) == lease.listing

    async def _start(self, key: str, spec: ServerSpec, now: str | None, limits: Limits) -> _Lease:
        number = next(self._numbers)
        home = self.root / f"p{number}"
        (home / "sandbox").mkdir(parents=True)
        conn = _WatchedConnection(spec=spec, sandbox=home / "sandbox", now=now, call_timeout=limits.call_timeout,
                                  start_timeout=limits.start_timeout, output_cap=limits.output_cap, log_dir=home,
                                  binds=binds_episode(spec))
        try:
            await self.group.start(conn.serve)
        except StartFailure:
            shutil.rmtree(home, ignore_errors=True)
            raise
        lease = _Lease(key=key, conn=conn, home=home, listing=_listing(conn.tools))
        conn.lease = lease
        self._leases[number] = lease
        self.stats.started += 1
        return lease

    def _stop(self, lease: _Lease) -> None:
        """Stop the process; its session task ends in the pool's task group, off the episode's path."""
        lease.conn.close()
        for number, known in list(self._leases.items()):
            if known is lease:
                del self._leases[number]

    def _trim(self) -> None:
        """Keep at most ``max_idle`` idle processes, stopping the least recently used beyond that."""
        idle = sorted((lease for stack in self.idle.values() for lease in stack), key=lambda lease: lease.last_used)
        for lease in idle[:max(0, len(idle) - self.max_idle)]:
            self.idle[lease.key].remove(lease)
            self._stop(lease)

    def close(self) -> None:
        """Stop every process the pool started."""
        for lease in list(self._leases.values()):
            self._stop(lease)
        self.idle.clear()
        if self.prestarter is not None:
            self.prestarter.close()


def _written(workdir: Path) -> str | None:
    """The first entry a pooled process left in its (empty at start) working directory, if any."""
    try:
        with os.scandir(workdir) as entries:
            return next((e.name for e in entries), None)
    except FileNotFoundError:
        return "(its working directory was removed)"


_current: ContextVar[ServerPool | None] = ContextVar("mcptrials_server_pool", default=None)


@asynccontextmanager
async def server_pool(enabled: bool = True, max_idle: int = 16) -> AsyncIterator[ServerPool | None]:
    """Make a pool of reusable servers available to the episodes run inside this block (``idle_limit``)."""
    if not (enabled and reuse_enabled()):
        token = _current.set(None)
        try:
            yield None
        finally:
            _current.reset(token)
        return
    root = Path(tempfile.mkdtemp(prefix=temp_prefix("pool")))
    try:
        async with anyio.create_task_group() as group:
            pool = ServerPool(group=group, root=root, max_idle=max_idle)
            token = _current.set(pool)
            try:
                yield pool
            finally:
                _current.reset(token)
                pool.close()
    finally:
        pool.remover.shutdown(wait=True)
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def without_reuse() -> Any:
    """Episodes run inside this block start every server fresh, even inside a pool."""
    token = _current.set(None)
    try:
        yield
    finally:
        _current.reset(token)


def current_pool() -> ServerPool | None:
    """The pool of the enclosing ``server_pool`` block, if any."""
    return _current.get()


@contextlib.contextmanager
def pooled_sandbox(task: Task, attempt: int) -> Iterator[Path]:
    """The episode's sandbox: prepared ahead with its servers when the pool did so, else a new one.

    Inside a pool, the sandbox is removed in the background after the episode (the pool waits for
    every removal when it closes), so deleting files is off the episode's critical path.
    """
    pool = current_pool()
    if pool is None:
        with episode_sandbox(task.fixtures) as box:
            yield box
    elif pool.prestarter is not None:
        with pool.prestarter.sandbox(task, attempt) as box:
            yield box
    else:
        with episode_sandbox(task.fixtures, keep=True) as box:
            try:
                yield box
            finally:
                pool.remove(box.parent)


@asynccontextmanager
async def open_pooled_toolbox(specs: Iterable[ServerSpec], sandbox: Path, *, now: str | None = None,
                              limits: Limits | None = None, log_dir: Path | None = None,
                              offer: tuple[frozenset[str], frozenset[str]] | None = None) -> AsyncIterator[Toolbox]:
    """``open_toolbox`` that takes reusable servers from the current pool, pre-started fresh ones from its
    prestarter, and starts the rest itself.

    Same contract as ``open_toolbox``. After the block, ``Toolbox.reuse_violation`` says whether a
    pooled server showed state during the episode (then the episode must not be scored).
    """
    limits = limits or Limits()
    pool = current_pool()
    specs = list(specs)
    if pool is None:
        async with open_toolbox(specs, sandbox, now=now, limits=limits, log_dir=log_dir, offer=offer) as box:
            yield box
        return
    fixtures = _written(sandbox) is not None  # the episode's fixture files are already in its sandbox
    shared = [s for s in specs if pool.pooled(s, now, limits, fixtures)]
    fresh = [s for s in specs if s not in shared]
    prepared = await pool.prestarter.take(sandbox, fresh) if pool.prestarter is not None and fresh else None
    ready = {s.name for s in prepared.specs} if prepared is not None else set()
    cold = [s for s in fresh if s.name not in ready]
    leases: dict[str, _Lease] = {}
    failures: dict[str, StartFailure] = dict(prepared.failures) if prepared is not None else {}
    taken = anyio.Event()
    pending = [len(shared)]
    if not shared:
        taken.set()

    async def take(spec: ServerSpec) -> None:
        try:
            leases[spec.name] = await pool.lease(spec, now, limits)
        except StartFailure as failure:
            failures[spec.name] = failure
        finally:
            pending[0] -= 1
            if not pending[0]:
                taken.set()

    aborted = True
    binding = episode_binding.set({SANDBOX_META: str(sandbox), NOW_META: now or ""})
    try:
        async with anyio.create_task_group() as takers:
            for spec in shared:  # leased while the cold servers start
                takers.start_soon(take, spec)
            async with open_toolbox(cold, sandbox, now=now, limits=limits, log_dir=log_dir, offer=offer) as box:
                await taken.wait()
                conns = {**box.connections, **(prepared.conns if prepared is not None else {}),
                         **{name: lease.conn for name, lease in leases.items()}}
                merged = Toolbox(connections={s.name: conns[s.name] for s in specs if s.name in conns},
                                 failures={**box.failures, **failures}, offer=offer)
                try:
                    yield merged
                    aborted = False
                finally:
                    if prepared is not None:  # stopped like the episode's own: state is read after they exit
                        for conn in prepared.conns.values():
                            conn.close()
                        with anyio.CancelScope(shield=True):
                            for stopped in prepared.stopped.values():
                                await stopped.wait()
    finally:
        episode_binding.reset(binding)
        reasons = [pool.release(lease, aborted=aborted) for lease in leases.values()]
        if not aborted:
            merged.reuse_violation = next((r for r in reasons if r), None)
