"""An episode's tools: every server started concurrently, exposed as ``server__tool``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import anyio

from mcptrials.fixtures import map_argument_paths
from mcptrials.model import ServerIdentity, ServerSpec, ToolInfo, split_qualified, stable_hash
from mcptrials.servers.client import ClientSetup, current_client
from mcptrials.servers.connection import CallOutcome, ServerConnection, StartFailure


@dataclass
class Limits:
    """Per-call and start-up limits of the server layer; recorded with the run."""

    call_timeout: float = 60.0
    start_timeout: float = 30.0
    output_cap: int = 20_000


@dataclass
class Toolbox:
    """Routes namespaced tool calls to the server sessions of one episode."""

    connections: dict[str, ServerConnection]
    failures: dict[str, StartFailure] = field(default_factory=dict)
    offer: tuple[frozenset[str], frozenset[str]] | None = None
    """(servers offered whole, single ``server__tool`` names offered) when not every started tool is offered."""
    reuse_violation: str | None = None
    """Set after the episode when a reused server showed state (``servers.pool``): the episode is re-run, not scored."""
    instructions: dict[str, str] = field(default_factory=dict)
    """Per server, the instructions the agent is given (set by the runner when the run passes them on)."""
    path_prefixes: dict[str, str] = field(default_factory=dict)
    """Absolute path prefixes a task names -> their real paths in the sandbox (``Fixtures.path_map``): every
    call's arguments are rewritten with them before the server sees them."""

    def offers(self, tool: ToolInfo) -> bool:
        """Whether the agent is offered ``tool`` (a distractor server's other tools are not)."""
        return self.offer is None or tool.server in self.offer[0] or tool.qualified_name in self.offer[1]

    @property
    def tools(self) -> list[ToolInfo]:
        return [tool for conn in self.connections.values() if conn.dead is None for tool in conn.tools
                if self.offers(tool)]

    def tool(self, qualified: str) -> ToolInfo | None:
        """The tool listed under ``qualified``, if any live server offers it."""
        return next((t for t in self.tools if t.qualified_name == qualified), None)

    def server_instructions(self) -> dict[str, str]:
        """Per started server, what agents should know of it: the config's ``instructions``, else its own."""
        out = {}
        for name, conn in self.connections.items():
            spec = getattr(conn, "spec", None)
            text = spec.instructions if spec is not None and spec.instructions is not None else \
                getattr(conn, "instructions", None)
            if text and text.strip():
                out[name] = text.strip()
        return out

    def server_identity(self) -> dict[str, ServerIdentity]:
        """Per started server: its whole tool list's hash and its ``initialize`` name/version (recording key)."""
        return {name: getattr(conn, "recorded_identity", None) or server_identity(conn.tools, conn.server_info)
                for name, conn in self.connections.items()}

    async def call(self, qualified: str, arguments: dict[str, Any]) -> tuple[str | None, str | None, CallOutcome]:
        """Call ``server__tool``; unknown names come back as an ``unknown_tool`` error."""
        try:
            server, tool = split_qualified(qualified)
        except ValueError:
            return None, None, CallOutcome(_unknown(qualified, self.tools), is_error=True, error_kind="unknown_tool")
        conn = self.connections.get(server)
        if conn is None:
            failure = self.failures.get(server)
            if failure is not None:
                return server, tool, CallOutcome(f"server {server!r} is unavailable: {failure.reason}",
                                                 is_error=True, error_kind="server_unavailable")
            return None, None, CallOutcome(_unknown(qualified, self.tools), is_error=True, error_kind="unknown_tool")
        if conn.dead is None and not any(t.name == tool and self.offers(t) for t in conn.tools):
            return server, None, CallOutcome(_unknown(qualified, self.tools), is_error=True,
                                             error_kind="unknown_tool")
        if self.path_prefixes:
            arguments = cast(dict[str, Any], map_argument_paths(arguments, self.path_prefixes))
        return server, tool, await conn.call(tool, arguments)


def server_identity(tools: Iterable[ToolInfo], info: dict[str, str | None] | None,
                    replay_of: list[str] | None = None) -> ServerIdentity:
    """A server's identity: the hash of its listed tools (all of them, offered or not) and its stated name/version."""
    info = info or {}
    return ServerIdentity(tools_hash=stable_hash(sorted(t.schema_hash for t in tools)), name=info.get("name"),
                          version=info.get("version"), replay_of=replay_of)


def _unknown(name: str, tools: Iterable[ToolInfo]) -> str:
    names = sorted(t.qualified_name for t in tools)
    shown = ", ".join(names[:40]) + (" ..." if len(names) > 40 else "")
    return f"unknown tool {name!r}. Available tools: {shown}"


@asynccontextmanager
async def open_toolbox(specs: Iterable[ServerSpec], sandbox: Path, *, now: str | None = None,
                       limits: Limits | None = None, log_dir: Path | None = None,
                       offer: tuple[frozenset[str], frozenset[str]] | None = None,
                       client: ClientSetup | None = None, episode: str | None = None) -> AsyncIterator[Toolbox]:
    """Start every server concurrently in ``sandbox``; yield their tools; shut all down after.

    A server that fails to start is left out and reported in ``Toolbox.failures``. ``client`` (default:
    the episode's, see ``servers.client.current_client``) says how server requests are answered.
    """
    limits = limits or Limits()
    setup, label = current_client.get() if client is None else (client, episode)
    conns = {
        spec.name: ServerConnection(spec=spec, sandbox=sandbox, now=now, call_timeout=limits.call_timeout,
                                    start_timeout=limits.start_timeout, output_cap=limits.output_cap,
                                    log_dir=log_dir, setup=setup, episode=episode or label)
        for spec in specs
    }
    failures: dict[str, StartFailure] = {}
    async with anyio.create_task_group() as sessions:

        async def start(conn: ServerConnection) -> None:
            try:
                await sessions.start(conn.serve)
            except StartFailure as failure:
                failures[conn.spec.name] = failure

        try:
            async with anyio.create_task_group() as starters:
                for conn in conns.values():
                    starters.start_soon(start, conn)
            live = {name: conn for name, conn in conns.items() if name not in failures}
            yield Toolbox(connections=live, failures=failures, offer=offer)
        finally:
            for conn in conns.values():
                conn.close()
