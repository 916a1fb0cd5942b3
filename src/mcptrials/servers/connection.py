"""One live MCP session to one server, held open for a whole episode.

The session lives in its own task (anyio requires a context to be left in the task that
entered it); callers in other tasks call tools through it. Every failure is turned into a
structured outcome with an error kind, never an exception that escapes to the run.

Who is to blame decides the kind. A call that runs past the per-call timeout is probed: when
the server still answers another request, the call itself was too slow (the agent's arguments asked for
too much): a ``timeout`` the agent sees and is scored on; when it does not, the server is stuck
and the outcome is infrastructure (``server_unresponsive``). An HTTP 5xx answer to a call on a
streamable-HTTP server is the server failing, never the agent: infrastructure (``server_crash``).
"""

from __future__ import annotations

import logging
import math
import os
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from mcptrials.model import ErrorKind, ServerSpec, ToolInfo, stable_hash
from mcptrials.safety.secrets import redact, spec_secrets
from mcptrials.servers import forkserver
from mcptrials.servers.client import (
    NO_EPISODE,
    ClientSetup,
    ClientSide,
    current_client,
    media_placeholder,
    resource_text,
)
from mcptrials.servers.clock import faketime_vars, frozen_clock
from mcptrials.servers.config import episode_spec
from mcptrials.servers.extras import Extras, ExtrasError
from mcptrials.servers.forkserver import ForkServer
from mcptrials.servers.guard import guarded
from mcptrials.servers.task_calls import call_as_task, can_call_tasks

CONNECTION_CLOSED = -32000
REQUEST_TIMEOUT = -32001
PROBE_TIMEOUT = 5.0
"""Longest wait for the probe request that tells a slow call from a stuck server."""
ROOTS_SETTLE_S = 0.3
"""Pause after start-up when the server asked for roots, so the answer is applied before the first call."""
PROGRESS_CAP_FACTOR = 10
"""Progress notifications extend a call's timeout up to this many times the per-call timeout, no further."""
_CRASH_ERRORS = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream,
                 BrokenPipeError, ConnectionError, httpx2.TransportError)


logging.getLogger("mcp").addHandler(logging.NullHandler())
"""The SDK logs from its transports (a stream closed while the session ends, a failed session DELETE) without
a handler of its own, so Python's last-resort handler printed them, tracebacks included, on runs that went
right. Every failure that matters reaches us as an outcome; the records still go to any handler the
embedding program configures."""


@asynccontextmanager
async def _owning_client(http: httpx2.AsyncClient, transport: AbstractAsyncContextManager[Any]) -> AsyncIterator[Any]:
    """``transport`` over ``http``, closing ``http`` after the transport ended its session (the SDK leaves
    a client it was given open: its sockets were left to the garbage collector)."""
    async with http, transport as streams:
        yield streams


episode_binding: ContextVar[dict[str, str] | None] = ContextVar("mcptrials_episode_binding", default=None)
"""The running episode's sandbox and frozen time as bundled servers read them from a request's ``_meta``."""

@dataclass
class CallOutcome:
    """The normalised result of one tool call."""

    content: str
    structured_content: Any = None
    is_error: bool = False
    error_kind: ErrorKind | None = None
    latency_s: float = 0.0
    truncated: bool = False
    result_bytes: int = 0
    replay: str | None = None
    """Under replay: exact, normalised, live or miss (how the recorded world answered)."""
    events: list[dict[str, Any]] = field(default_factory=list)
    """Requests the server made of the client during the call, and its progress notifications."""
    attachments: list[dict[str, Any]] = field(default_factory=list)
    """Images and audio the call returned (stored in the blob store when there is one)."""


@dataclass
class StartFailure(Exception):
    """A server that did not come up; ``stderr_tail`` holds its last words."""

    server: str
    reason: str
    stderr_tail: str = ""

    def __str__(self) -> str:
        tail = f"\n--- last stderr lines ---\n{self.stderr_tail}" if self.stderr_tail else ""
        return f"server {self.server!r} failed to start: {self.reason}{tail}"


def render_content(blocks: list[Any], attachments: list[dict[str, Any]] | None = None) -> str:
    """Flatten MCP content blocks into the text the agent reads (media as placeholders naming their blob)."""
    parts: list[str] = []
    media = iter(attachments or [])
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind in {"image", "audio"}:
            stored = next(media, None)
            parts.append(media_placeholder(stored) if stored else
                         f"[{kind}: {getattr(block, 'mime_type', '?')}, {len(getattr(block, 'data', ''))} b64 chars]")
        elif kind == "resource":
            parts.append(resource_text(block.resource))
        elif kind == "resource_link":
            parts.append(f"[resource link {block.uri}]")
        else:
            parts.append(str(block))
    return "\n".join(parts)


def cap_output(text: str, cap: int) -> tuple[str, bool, int]:
    """Truncate ``text`` to ``cap`` bytes (UTF-8) with a marker; return text, truncated, size."""
    data = text.encode("utf-8")
    size = len(data)
    if size <= cap:
        return text, False, size
    kept = data[:cap].decode("utf-8", errors="ignore")
    return f"{kept}\n...[output truncated: showing {cap} of {size} bytes]", True, size


def _stderr_tail(path: Path | None, lines: int = 15) -> str:
    if path is None or not path.exists():
        return ""
    return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])


@dataclass
class ServerConnection:
    """A server's session for one episode: start, list tools, call, close."""

    spec: ServerSpec
    sandbox: Path
    now: str | None = None
    call_timeout: float = 60.0
    start_timeout: float = 30.0
    output_cap: int = 20_000
    log_dir: Path | None = None
    tools: list[ToolInfo] = field(default_factory=list)
    startup_s: float = 0.0
    dead: str | None = None
    server_info: dict[str, str | None] | None = None
    """The server's name and version as it stated them at ``initialize`` (None if it did not)."""
    instructions: str | None = None
    """The ``instructions`` the server gave at ``initialize`` (None if it gave none)."""
    episode: str | None = None
    """The episode's id, the value of ``${MCPTRIALS_EPISODE}``."""
    setup: ClientSetup = field(default_factory=lambda: current_client.get()[0])
    """How server requests are answered (default: the running episode's, so a pooled session gets it too)."""
    extras: Extras = field(default_factory=Extras)
    """Resources, prompts and tools not offered (task-augmented) the server listed at start-up."""
    binds: bool = False
    """Each call names the calling episode's sandbox and time in its ``_meta`` (``episode_binding``): set for
    pooled bundled servers, which serve episode after episode (and read-only ones several at once)."""
    side: ClientSide | None = None
    _client: Client | None = None
    _closing: anyio.Event = field(default_factory=anyio.Event)
    _stderr_path: Path | None = None
    _forks: ForkServer | None = None
    _http_failures: list[int] = field(default_factory=list)
    _calls_running: int = 0

    async def _record_status(self, response: httpx2.Response) -> None:
        if response.status_code >= 500:
            self._http_failures.append(response.status_code)

    def episode_values(self) -> dict[str, str]:
        """The values of the per-episode config variables."""
        return {"MCPTRIALS_SANDBOX": str(self.sandbox), "MCPTRIALS_NOW": self.now or "",
                "MCPTRIALS_EPISODE": self.episode or self.sandbox.parent.name}

    def _fork_environment(self) -> dict[str, str] | None:
        """The environment of the fork server to fork this server from, or None to start it cold.

        Bundled servers, and third-party ones this interpreter runs (``forkserver.python_target``): a
        fresh process either way, without paying the SDK import. A frozen clock cannot be preloaded
        into a forked child, so such servers come from a fork server started under that clock (and zone).
        """
        spec = self.spec
        if spec.transport != "stdio" or spec.command is None or not forkserver.enabled():
            return None
        if "bundled" in spec.tags:
            return {}
        spec = episode_spec(spec, self.episode_values())
        assert spec.command is not None
        if forkserver.python_target(_interpreter(spec.command), list(spec.args), spec.env) is None:
            return None
        if not (self.now and spec.faketime):
            return {}
        clock = faketime_vars(self.now, dict(spec.env))
        if clock is None:
            return None
        zone = spec.env.get("TZ", os.environ.get("TZ"))
        return {**clock, **({"TZ": zone} if zone is not None else {})}

    def _transport(self, errlog: TextIO) -> Any:
        spec = episode_spec(self.spec, self.episode_values())
        if spec.transport == "sse":
            assert spec.url is not None
            return sse_client(spec.url, headers=spec.headers or None, timeout=30.0, sse_read_timeout=300.0)
        if spec.transport == "http":
            assert spec.url is not None
            http = httpx2.AsyncClient(headers=spec.headers, timeout=httpx2.Timeout(30.0, read=300.0),
                                      event_hooks={"response": [self._record_status]})
            return _owning_client(http, streamable_http_client(spec.url, http_client=http))
        assert spec.command is not None
        env = dict(spec.env)
        env.setdefault("PYTHONUNBUFFERED", "1")
        for key in ("PYTHONPATH", "VIRTUAL_ENV", "LANG", "LC_ALL", "TZ"):
            if key in os.environ:
                env.setdefault(key, os.environ[key])
        env["MCPTRIALS_SANDBOX"] = str(self.sandbox)
        if self.now:
            env["MCPTRIALS_NOW"] = self.now
        command, args = _interpreter(spec.command), list(spec.args)
        forked = _forked(self._forks, command, args, env) if self._forks is not None else None
        if self.now and spec.faketime and "bundled" not in spec.tags:  # bundled servers read MCPTRIALS_NOW
            if forked is not None:  # forked from a fork server already under this clock: its children keep it
                env.update(faketime_vars(self.now, env) or {})
            else:
                command, args = frozen_clock(command, args, self.now, env)
        if forked is not None:  # the fork server kills its own children's groups
            command, args = forked
        else:
            command, args = guarded(command, args, env)
        params = StdioServerParameters(command=command, args=args, env=env,
                                       cwd=spec.cwd or str(self.sandbox), encoding_error_handler="replace")
        return stdio_client(params, errlog=errlog)

    async def serve(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Hold the session open until ``close``; report start-up through ``task_status``.

        Raises ``StartFailure`` before ``task_status.started`` when the server does not come up.
        """
        environment = self._fork_environment()
        if environment is not None:
            self._forks = await anyio.to_thread.run_sync(forkserver.shared, environment)
        log_dir = self.log_dir or self.sandbox.parent
        # named by a hash, never by the server's name: a name is text from a config file, not a path
        self._stderr_path = log_dir / f"server-{stable_hash(self.spec.name)}.stderr.log"
        started = False
        failure: str | None = None
        t0 = time.perf_counter()
        # One scope bounds start-up; its deadline is lifted once tools are listed, so the
        # session's own task groups nest inside it as anyio requires.
        scope = anyio.CancelScope(deadline=anyio.current_time() + self.start_timeout)
        with open(self._stderr_path, "w", encoding="utf-8") as errlog, scope:
            try:
                self.side = side = ClientSide(self.spec.name, self.sandbox, self.setup)
                async with Client(self._transport(errlog), cache=None, read_timeout_seconds=None,
                                  list_roots_callback=side.list_roots, elicitation_callback=side.elicitation,
                                  sampling_callback=side.sampling if _declares_sampling(self.setup) else None,
                                  mode=_connect_mode(self.spec)) as client:
                    listing = await client.list_tools()
                    listed = self.extras.admit(listing.tools, tasks=can_call_tasks(client))
                    self.tools = [
                        ToolInfo(server=self.spec.name, name=t.name, description=t.description or "",
                                 input_schema=dict(t.input_schema or {"type": "object", "properties": {}}),
                                 output_schema=dict(t.output_schema) if t.output_schema else None,
                                 read_only=t.annotations.read_only_hint if t.annotations else None)
                        for t in listed
                    ]
                    await self.extras.discover(client, self.spec.name)
                    if any(e["kind"] == "roots" for e in side.events):
                        # a server that asked for roots at start-up applies them asynchronously (the npm
                        # filesystem server validates each folder): let it settle before the first call
                        await anyio.sleep(ROOTS_SETTLE_S)
                    if self.setup.expose_resources:
                        self.tools += self.extras.as_tools(self.spec.name, {t.name for t in self.tools})
                    self.startup_s = time.perf_counter() - t0
                    info = client.server_info
                    self.server_info = None if info is None else {"name": info.name, "version": info.version}
                    self.instructions = client.instructions or None
                    scope.deadline = math.inf
                    self._client = client
                    started = True
                    task_status.started()
                    await self._closing.wait()
            except Exception as exc:
                if not started:
                    failure = _describe(exc)
                # after start-up, a server that dies is already recorded by the call that saw it
            finally:
                self._client = None
        if not started:
            reason = failure or f"no answer within {self.start_timeout:g}s"
            secrets = spec_secrets(self.spec)  # an HTTP error quoting a ?token= URL, a server echoing its args
            tail = redact(_stderr_tail(self._stderr_path), secrets)
            raise StartFailure(self.spec.name, redact(reason, secrets), tail)

    def close(self) -> None:
        """Ask the session task to shut the server down."""
        self._closing.set()

    @property
    def client(self) -> Client | None:
        """The live MCP client session (None before start-up and after close), for raw protocol requests."""
        return self._client

    @property
    def stderr_tail(self) -> str:
        return _stderr_tail(self._stderr_path)

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        """Call one tool; every failure comes back as an outcome with an error kind."""
        if self.dead is not None or self._client is None:
            return CallOutcome(f"server {self.spec.name!r} is unavailable: {self.dead or 'not started'}",
                               is_error=True, error_kind="server_unavailable")
        t0 = time.perf_counter()
        failures_before = len(self._http_failures)
        side = self.side
        episode = current_client.get()
        if side is not None and episode is not NO_EPISODE:
            side.setup = self.setup = episode[0]  # a reused session answers for the episode calling it
        seen = len(side.events) if side is not None else 0
        if side is not None and not self._calls_running:
            side.call_mark = seen
        self._calls_running += 1
        try:
            outcome = await self._call(tool, arguments, t0, failures_before)
        finally:
            self._calls_running -= 1
        if side is not None:
            outcome.events = side.take_events(seen)
        return outcome

    async def _call(self, tool: str, arguments: dict[str, Any], t0: float, failures_before: int) -> CallOutcome:
        assert self._client is not None
        if self.extras.handles(tool, self.setup.expose_resources):
            try:
                with anyio.fail_after(self.call_timeout):
                    text = await self.extras.call(self._client, tool, arguments)
            except ExtrasError as exc:
                return CallOutcome(str(exc), is_error=True, error_kind="tool_error",
                                   latency_s=time.perf_counter() - t0)
            except TimeoutError:
                return await self._timed_out(t0)
            except MCPError as exc:
                return CallOutcome(f"error {exc.code}: {exc.message}", is_error=True, error_kind="tool_error",
                                   latency_s=time.perf_counter() - t0)
            capped, truncated, size = cap_output(text, self.output_cap)
            return CallOutcome(capped, latency_s=time.perf_counter() - t0, truncated=truncated, result_bytes=size)
        # the deadline restarts on each progress notification (like promptfoo's resetTimeoutOnProgress),
        # up to an overall cap, so a server that reports progress forever still ends the call
        start = anyio.current_time()
        cap = start + self.call_timeout * PROGRESS_CAP_FACTOR
        scope = anyio.CancelScope(deadline=start + self.call_timeout)

        def extend() -> None:
            scope.deadline = min(anyio.current_time() + self.call_timeout, cap)

        progress = self.side.progress(extend) if self.side is not None else None
        meta = episode_binding.get() if self.binds else None
        try:
            with scope:
                if tool in self.extras.task_required:  # news of the task restarts the deadline, as progress does
                    result = await call_as_task(self._client, tool, arguments, meta=meta, on_change=extend,
                                                record=self.side.note if self.side is not None else None)
                else:
                    result = await self._client.call_tool(tool, arguments, progress_callback=progress,
                                                          meta=meta)  # type: ignore[arg-type]
            if scope.cancelled_caught:
                if scope.deadline >= cap:
                    return await self._timed_out(t0, f"{self.call_timeout * PROGRESS_CAP_FACTOR:g} s (the "
                                                     f"overall cap for a call that keeps reporting progress)")
                return await self._timed_out(t0)
        except TimeoutError:
            return await self._timed_out(t0)
        except MCPError as exc:
            latency = time.perf_counter() - t0
            if exc.code == REQUEST_TIMEOUT:
                return await self._timed_out(t0)
            if exc.code == CONNECTION_CLOSED:
                self.dead = "connection closed during a call"
                return CallOutcome(f"server {self.spec.name!r} crashed: {exc.message}", is_error=True,
                                   error_kind="server_crash", latency_s=latency)
            if len(self._http_failures) > failures_before:
                status = self._http_failures[-1]
                return CallOutcome(f"server {self.spec.name!r} failed: HTTP {status} on a tool call ({exc.message})",
                                   is_error=True, error_kind="server_crash", latency_s=latency)
            return CallOutcome(f"protocol error {exc.code}: {exc.message}", is_error=True,
                               error_kind="protocol_error", latency_s=latency)
        except _CRASH_ERRORS as exc:
            self.dead = f"connection lost ({type(exc).__name__})"
            return CallOutcome(f"server {self.spec.name!r} crashed: {_describe(exc)}", is_error=True,
                               error_kind="server_crash", latency_s=time.perf_counter() - t0)
        except Exception as exc:  # a malformed response the SDK could not validate
            return CallOutcome(f"invalid response from server: {_describe(exc)}", is_error=True,
                               error_kind="protocol_error", latency_s=time.perf_counter() - t0)
        latency = time.perf_counter() - t0
        blocks = list(result.content)
        attachments = self.side.media(blocks) if self.side is not None else []
        text, truncated, size = cap_output(render_content(blocks, attachments), self.output_cap)
        return CallOutcome(
            attachments=attachments,
            content=text,
            structured_content=result.structured_content,
            is_error=bool(result.is_error),
            error_kind="tool_error" if result.is_error else None,
            latency_s=latency,
            truncated=truncated,
            result_bytes=size,
        )


    async def responsive(self, timeout: float = PROBE_TIMEOUT) -> bool:
        """True when the server answers a request (a tool listing) within ``timeout`` seconds.

        A listing, not a ping: ping is gone from newer protocol revisions, and every server answers
        ``tools/list``. The client does not cache it (``cache=None``), so the server really answers.
        """
        client = self._client
        if self.dead is not None or client is None:
            return False
        try:
            with anyio.fail_after(timeout):
                await client.list_tools()
        except Exception:
            return False
        return True

    async def _timed_out(self, t0: float, waited: str | None = None) -> CallOutcome:
        """A call past its timeout: the agent's problem if the server is alive, infrastructure if not."""
        waited = waited or f"{self.call_timeout:g} s"
        if await self.responsive():
            return CallOutcome(f"tool call timed out after {waited} and was abandoned; the server is still "
                               "running, so the request itself takes too long (ask for less, or narrow it)",
                               is_error=True, error_kind="timeout", latency_s=time.perf_counter() - t0)
        self.dead = f"no answer to a call within {waited} nor to a request after it"
        return CallOutcome(f"tool call timed out after {waited} and server {self.spec.name!r} no longer "
                           "answers", is_error=True, error_kind="server_unresponsive",
                           latency_s=time.perf_counter() - t0)


def _connect_mode(spec: ServerSpec) -> str:
    """``legacy`` (the initialize handshake) for a user's stdio server, else the SDK's ``auto``.

    On the newest protocol revision a server built on the Python SDK 2.x has no back-channel inside a tool
    call, so its ``ctx.elicit`` and sampling requests fail (``NoBackChannelError``); over the handshake they
    reach this client's callbacks. Servers on older SDKs (every npm one today) negotiate the handshake anyway.
    """
    return "legacy" if spec.transport == "stdio" and "bundled" not in spec.tags else "auto"


def _declares_sampling(setup: ClientSetup) -> bool:
    return setup.sampling_model is not None if setup.declare_sampling is None else setup.declare_sampling


def _interpreter(command: str) -> str:
    """A bare ``python`` means the interpreter mcptrials runs in."""
    return sys.executable if command in {"python", "python3"} else command


def _forked(forks: ForkServer, command: str, args: list[str], env: dict[str, str]) -> tuple[str, list[str]] | None:
    """The launcher command that has ``forks`` run this server, a proxy's upstream likewise; None if it cannot."""
    target = forkserver.python_target(command, args, env)
    if target is None:
        return None
    module, rest = target
    if module == "mcptrials.evolve.proxy" and "--upstream-command" in rest:
        at = rest.index("--upstream-command")
        upstream = rest[at + 1:]
        if upstream[:2] == [sys.executable, "-m"] and len(upstream) >= 3:
            launch_cmd, launch_args = forks.command(upstream[2], upstream[3:])
            rest = [*rest[:at + 1], launch_cmd, *launch_args]
    return forks.command(module, rest)


def _describe(exc: BaseException) -> str:
    """A one-line description of an exception, unwrapping exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
