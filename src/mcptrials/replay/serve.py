"""Replayed servers: in-process stand-ins behind the Toolbox that answer calls from a recording.

Each episode is answered from the recorded history of the same (task, version, attempt) (an
attempt that was not recorded uses attempt ``i mod n`` of those that were). Per server, calls are
matched exactly first, then normalised (``recording.normalised_key``). Where the answer may
depend on earlier calls (a stateful server: declared ``stateful_write``, seen to answer one call
two ways, or serving a task that checks the sandbox), only the next recorded call can answer (any
call of the next recorded turn: its calls ran concurrently), so a read after a write gets the
post-write answer only after the write was replayed. The next call comes from the first history
(the same attempt first, then other attempts and runs of the same world) that made every call
so far and gave every answer so far, so the episode stays in one recorded world throughout.
Stateless servers may answer from any point of the history, then from other attempts and runs
of the same task, version and server identity. Anything else is a miss:
``on_miss="error"`` gives the agent a ``replay_miss`` tool error; ``"live"`` starts the real
server in the episode's sandbox, re-issues the calls already answered on it (so its state
catches up) and forwards the call; on a stateful server every later call then stays live.
"""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager, AbstractContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

import anyio

from mcptrials.model import Episode, ServerIdentity, ServerSpec, StateCheckpoint, Task, ToolInfo, stable_hash
from mcptrials.replay.recording import History, RecordedCall, Recording, exact_key, normalised_key
from mcptrials.safety.tempdirs import temp_prefix
from mcptrials.servers.connection import CallOutcome, ServerConnection, StartFailure
from mcptrials.servers.sandbox import episode_sandbox, write_fixtures
from mcptrials.servers.toolbox import Limits, Toolbox, open_toolbox, server_identity
from mcptrials.store.db import task_version

OnMiss = Literal["error", "live"]
ON_MISS = ("error", "live")


@dataclass
class _Cursor:
    history: History
    at: int = 0
    taken: set[int] = field(default_factory=set)
    """Calls past ``at`` answered out of order: a recorded turn's calls ran concurrently, in no fixed order."""
    alive: bool = True
    """Whether this history still agrees with every call answered so far (strict matching only)."""

    def block(self) -> range:
        """The recorded calls that may come next: the one at ``at`` and the rest of its (concurrent) turn."""
        calls = self.history.calls
        end = self.at + 1 if self.at < len(calls) else self.at
        turn = calls[self.at].record.turn if self.at < len(calls) else None
        while turn is not None and end < len(calls) and calls[end].record.turn == turn:
            end += 1
        return range(self.at, end)

    def next_match(self, level: str, key: str) -> int | None:
        calls = self.history.calls
        return next((j for j in self.block() if j not in self.taken and getattr(calls[j], level) == key), None)

    def take(self, index: int) -> RecordedCall:
        self.taken.add(index)
        while self.at in self.taken:
            self.taken.discard(self.at)
            self.at += 1
        return self.history.calls[index]

    @property
    def done(self) -> bool:
        return self.alive and self.at == len(self.history.calls)


@dataclass
class ReplayConnection:
    """A recorded server for one episode; looks like a ``ServerConnection`` to the Toolbox."""

    spec: ServerSpec
    tools: list[ToolInfo]
    server_info: dict[str, str | None] | None
    primary: _Cursor
    others: list[_Cursor]
    strict: bool
    live: ServerConnection | None = None
    live_failure: StartFailure | None = None
    dead: str | None = None
    answered: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    went_live: bool = False
    missed: bool = False
    recorded_identity: ServerIdentity | None = None
    instructions: str | None = None
    """The server's instructions as the recorded episode passed them to its agent (None if it did not)."""
    _catch_up: anyio.Lock = field(default_factory=anyio.Lock)
    _reads: dict[str, RecordedCall] = field(default_factory=dict)
    """Answers of read-only tools (``readOnlyHint``) since the last other call: a repeat of one gets it again."""
    """The identity the recording was keyed to, naming the runs it is replayed from (the Toolbox reports it)."""

    def close(self) -> None:
        """Nothing to stop: the recording stays."""

    def _schema(self, tool: str) -> dict[str, Any] | None:
        return next((t.input_schema for t in self.tools if t.name == tool), None)

    def _find(self, cursor: _Cursor, tool: str, exact: str, normalised: str) -> tuple[RecordedCall, str] | None:
        calls = cursor.history.calls
        for level, key in (("exact", exact), ("normalised", normalised)):
            ahead = next((j for j in range(cursor.at, len(calls)) if getattr(calls[j], level) == key), None)
            if ahead is not None:
                cursor.at = ahead + 1
                return calls[ahead], level
            behind = next((j for j in range(cursor.at - 1, -1, -1) if getattr(calls[j], level) == key), None)
            if behind is not None:
                return calls[behind], level
        return None

    def _find_strict(self, exact: str, normalised: str) -> tuple[RecordedCall, str] | None:
        """The next call of the first history that agrees with everything so far; the ones that do not drop out.

        Every history of the task and version that made the same calls and got the same answers
        up to here is a world the episode may be in (attempts and runs alike): one that answers
        this call differently, or never made it here, is dropped.
        """
        cursors = [c for c in [self.primary, *self.others] if c.alive]
        for level, key in (("exact", exact), ("normalised", normalised)):
            chosen = next(((c, j) for c in cursors if (j := c.next_match(level, key)) is not None), None)
            if chosen is None:
                continue
            answer = chosen[0].take(chosen[1])
            for cursor in cursors:
                if cursor is chosen[0]:
                    continue
                j = cursor.next_match("exact", exact)
                j = cursor.next_match("normalised", normalised) if j is None else j
                if j is not None and cursor.history.calls[j].answer_hash == answer.answer_hash:
                    cursor.take(j)
                else:
                    cursor.alive = False
            return answer, level
        return None

    def _read_only(self, tool: str) -> bool:
        return any(t.name == tool and t.read_only is True for t in self.tools)

    def _reread(self, tool: str, exact: str, normalised: str) -> tuple[RecordedCall, str] | None:
        """A read-only call repeated with no other call answered in between: the same answer again."""
        if not self._read_only(tool):
            return None
        for level, key in (("exact", exact), ("normalised", normalised)):
            if key in self._reads:
                return self._reads[key], level
        return None

    def _remember(self, tool: str, exact: str, normalised: str, answer: RecordedCall | None) -> None:
        if answer is None:
            return  # a miss changed nothing on the server
        if self._read_only(tool):
            self._reads[exact] = self._reads[normalised] = answer
        else:
            self._reads.clear()

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        """Answer from the recording (exact, then normalised); on a miss, an error or the live server."""
        found = None
        if not (self.strict and self.went_live):
            exact, normalised = exact_key(tool, arguments), normalised_key(tool, arguments, self._schema(tool))
            if self.strict:
                found = self._find_strict(exact, normalised) or self._reread(tool, exact, normalised)
                self._remember(tool, exact, normalised, found[0] if found else None)
            for cursor in [] if self.strict else [self.primary, *self.others]:
                found = self._find(cursor, tool, exact, normalised)
                if found is not None:
                    break
        if found is not None:
            call, level = found
            r = call.record
            self.answered.append((tool, arguments))
            return CallOutcome(content=r.content, structured_content=r.structured_content, is_error=r.is_error,
                               error_kind=r.error_kind, latency_s=0.0, truncated=r.truncated,
                               result_bytes=r.result_bytes, replay=level)
        if self.live is None and self.live_failure is None:
            self.missed = True
            return CallOutcome(
                f"replay miss: {self.spec.name}__{tool} was never called with these arguments at this point of "
                f"the recorded world (recorded episode {self.primary.history.episode_id} of run "
                f"{self.primary.history.run_id}); the replay cannot tell what the server would answer",
                is_error=True, error_kind="replay_miss", replay="miss")
        return await self._live_call(tool, arguments)

    async def _live_call(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        if self.live is None:
            reason = self.live_failure.reason if self.live_failure else "not started"
            return CallOutcome(f"replay miss and server {self.spec.name!r} is unavailable live: {reason}",
                               is_error=True, error_kind="server_unavailable", replay="live")
        if self.strict:  # bring the live server to the state the replayed calls left, once
            self.went_live = True  # a concurrent call of the same turn now waits for the catch-up, then goes live
            async with self._catch_up:
                replayed, self.answered = self.answered, []
                for done_tool, done_args in replayed:
                    await self.live.call(done_tool, done_args)
        outcome = await self.live.call(tool, arguments)
        outcome.replay = "live"
        return outcome


@dataclass
class _EpisodeReplay:
    histories: list[Episode]
    connections: dict[str, ReplayConnection]


def _same_world(identity: ServerIdentity | None, primary: ServerIdentity | None) -> bool:
    """Whether a recorded server is the same world as the primary recording's (tool list, name, version)."""
    if identity is None or primary is None:
        return True
    return (identity.tools_hash, identity.name, identity.version) == (primary.tools_hash, primary.name,
                                                                     primary.version)


class Replay:
    """Replayed servers for a run: answers every episode's calls from ``recording``."""

    def __init__(self, recording: Recording, on_miss: OnMiss = "error") -> None:
        if on_miss not in ON_MISS:
            raise ValueError(f"unknown --on-miss {on_miss!r} (error, live)")
        self.recording = recording
        self.on_miss = on_miss
        self._open: dict[tuple[str, str, int], _EpisodeReplay] = {}
        self._sandboxes: dict[str, Path] = {}

    def sandbox(self, task: Task) -> AbstractContextManager[Path]:
        """The episode sandbox: fresh when live servers may write to it, else one shared copy per fixture set.

        Under ``--on-miss error`` nothing writes to a sandbox (the stand-ins touch no files), so
        the fixtures are laid out once per distinct set and kept until the replay is gone.
        """
        if self.on_miss == "live":
            return episode_sandbox(task.fixtures)
        key = stable_hash(task.fixtures.hash_view())
        if key not in self._sandboxes:
            root = Path(tempfile.mkdtemp(prefix=temp_prefix("replay"))).resolve()
            weakref.finalize(self, shutil.rmtree, root, True)
            (root / "sandbox").mkdir()
            write_fixtures(root / "sandbox", task.fixtures)
            self._sandboxes[key] = root / "sandbox"
        return nullcontext(self._sandboxes[key])

    def settings(self) -> dict[str, Any]:
        """What the replay answers from (recorded in the run settings, so replayed runs never mix with live ones)."""
        return {"source_runs": self.recording.runs, "on_miss": self.on_miss,
                "recording": self.recording.fingerprint()}

    def _histories(self, task: Task, attempt: int) -> list[Episode]:
        version = task_version(task)
        attempts = sorted({k[2] for k in self.recording.episodes if k[0] == task.id and k[1] == version})
        if not attempts:
            return []
        chosen = attempt if attempt in attempts else attempts[attempt % len(attempts)]
        rest = [e for a in attempts if a != chosen for e in self.recording.episodes[(task.id, version, a)]]
        return [*self.recording.episodes[(task.id, version, chosen)], *rest]

    def _connection(self, spec: ServerSpec, task: Task, histories: list[Episode]) -> ReplayConnection | None:
        primary = histories[0]
        tools = self.recording.tools_of(primary, spec.name)
        if not tools and spec.name not in primary.servers:
            return None
        recorded = primary.servers.get(spec.name)
        info = {"name": recorded.name, "version": recorded.version} if recorded else None
        identity = (recorded or server_identity(tools, None)).model_copy(update={"replay_of": self.recording.runs})
        writes_checked = any(isinstance(c, StateCheckpoint) for c in task.spec.checkpoints)
        strict = writes_checked or self.recording.stateful(spec.name)
        others = [_Cursor(self.recording.history(e, spec.name)) for e in histories[1:]
                  if _same_world(e.servers.get(spec.name), recorded)]
        return ReplayConnection(spec=spec, tools=tools, server_info=info,
                                primary=_Cursor(self.recording.history(primary, spec.name)), others=others,
                                strict=strict, recorded_identity=identity,
                                instructions=primary.instructions.get(spec.name))

    def opener(self, task: Task, attempt: int) -> Callable[..., AbstractAsyncContextManager[Toolbox]]:
        """The toolbox opener for one episode (same call shape as ``open_toolbox``)."""

        @asynccontextmanager
        async def open_replayed(specs: Iterable[ServerSpec], sandbox: Path, *, now: str | None = None,
                                limits: Limits | None = None,
                                offer: tuple[frozenset[str], frozenset[str]] | None = None) -> AsyncIterator[Toolbox]:
            specs = list(specs)
            histories = self._histories(task, attempt)
            conns: dict[str, ReplayConnection] = {}
            failures: dict[str, StartFailure] = {}
            for spec in specs:
                conn = self._connection(spec, task, histories) if histories else None
                if conn is None:
                    runs = ", ".join(self.recording.runs)
                    failures[spec.name] = StartFailure(
                        spec.name, f"no recording of server {spec.name!r} for task {task.id!r} in run(s) {runs}")
                else:
                    conns[spec.name] = conn
            key = (task.id, task_version(task), attempt)
            if histories:
                self._open[key] = _EpisodeReplay(histories, conns)
            box = Toolbox(connections=cast(dict[str, ServerConnection], conns), failures=failures, offer=offer)
            if self.on_miss != "live" or not conns:
                yield box
                return
            async with open_toolbox([s for s in specs if s.name in conns], sandbox, now=now, limits=limits) as real:
                for name, conn in conns.items():
                    conn.live = real.connections.get(name)
                    conn.live_failure = real.failures.get(name)
                yield box

        return open_replayed

    def final_state(self, task: Task, attempt: int, captured: dict[str, Any]) -> dict[str, Any]:
        """The sandbox after a replayed episode: the recorded one when every stateful server was replayed whole.

        A replayed write never touched the sandbox; the state the recording ended in is right only when
        the agent made exactly the recorded calls on each stateful server. After a live call the live
        server wrote the sandbox itself (``captured``); after a divergence without one, the state is
        unknown and ``captured`` (the fixtures) is kept.
        """
        found = self._open.pop((task.id, task_version(task), attempt), None)
        if found is None:
            return captured
        strict = [c for c in found.connections.values() if c.strict]
        if any(c.went_live for c in strict):
            return captured
        if any(c.missed for c in strict):
            return captured
        whole = [{c.history.episode_id for c in [conn.primary, *conn.others] if c.done} for conn in strict]
        episode = next((e for e in found.histories if all(e.id in ids for ids in whole)), None)
        return (episode.state or captured) if episode is not None else captured
