"""An episode's tools: every server started concurrently, exposed as ``server__tool``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from mcptrials.model import ServerSpec, ToolInfo, split_qualified
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

    @property
    def tools(self) -> list[ToolInfo]:
        return [tool for conn in self.connections.values() if conn.dead is None for tool in conn.tools]

    def tool(self, qualified: str) -> ToolInfo | None:
        """The tool listed under ``qualified``, if any live server offers it."""
        return next((t for t in self.tools if t.qualified_name == qualified), None)

    def tool_hashes(self) -> dict[str, str]:
        return {t.qualified_name: t.schema_hash for t in self.tools}

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
        if conn.dead is None and not any(t.name == tool for t in conn.tools):
            return server, None, CallOutcome(_unknown(qualified, self.tools), is_error=True,
                                             error_kind="unknown_tool")
        return server, tool, await conn.call(tool, arguments)


def _unknown(name: str, tools: Iterable[ToolInfo]) -> str:
    names = sorted(t.qualified_name for t in tools)
    shown = ", ".join(names[:40]) + (" ..." if len(names) > 40 else "")
    return f"unknown tool {name!r}. Available tools: {shown}"


@asynccontextmanager
async def open_toolbox(specs: Iterable[ServerSpec], sandbox: Path, *, now: str | None = None,
                       limits: Limits | None = None, log_dir: Path | None = None) -> AsyncIterator[Toolbox]:
    """Start every server concurrently in ``sandbox``; yield their tools; shut all down after.

    A server that fails to start is left out and reported in ``Toolbox.failures``.
    """
    limits = limits or Limits()
    conns = {
        spec.name: ServerConnection(spec=spec, sandbox=sandbox, now=now, call_timeout=limits.call_timeout,
                                    start_timeout=limits.start_timeout, output_cap=limits.output_cap,
                                    log_dir=log_dir)
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
            yield Toolbox(connections=live, failures=failures)
        finally:
            for conn in conns.values():
                conn.close()
