"""The mutation proxy: an MCP server that shows an evolved interface of a real upstream server.

It connects as a client to the upstream server (a stdio command or an HTTP URL), reads its
tool list, applies a plan chain (``interface.py``) and serves the result over stdio. Calls are
translated and forwarded; checks the plan adds are answered by the proxy itself as
``is_error`` tool results. Run it as::

    python -m mcptrials.evolve.proxy --plan round1.yaml --plan round2.yaml \\
        --upstream-command python -m mcp_server_time

``--upstream-command`` takes every remaining argument, so it must come last. With no
``--plan`` the proxy is transparent (version v0 served through the same path).
``--dump-tools FILE`` writes the evolved tool list as JSON and exits instead of serving.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from mcptrials.evolve.diff import ToolListError
from mcptrials.evolve.interface import EvolvedInterface, UpstreamCall, build_interface
from mcptrials.evolve.plan import PlanChain, PlanError, load_plan_chain

MAX_PAGES = 100
UPSTREAM_HEADERS_ENV = "MCPTRIALS_UPSTREAM_HEADERS"
"""JSON object of HTTP headers for an ``--upstream-url`` (kept out of the command line, which is stored)."""
_FORWARDED_META: ContextVar[dict[str, Any] | None] = ContextVar("mcptrials_forwarded_meta", default=None)
"""The current call's ``_meta`` entries of mcptrials' own (``mcptrials/...``), passed on to the upstream."""


@asynccontextmanager
async def open_upstream(command: Sequence[str] | None = None, url: str | None = None,
                        cwd: str | None = None, env: dict[str, str] | None = None) -> AsyncIterator[Client]:
    """Connect to the upstream server (exactly one of ``command`` or ``url``), uncached."""
    if (command is None) == (url is None):
        raise ValueError("give exactly one of an upstream command or an upstream URL")
    target: StdioServerParameters | str
    if command is not None:
        if not command:
            raise ValueError("the upstream command is empty")
        target = StdioServerParameters(command=command[0], args=list(command[1:]), cwd=cwd,
                                       env=dict(os.environ) if env is None else env)
    else:
        assert url is not None
        headers = json.loads(os.environ.get(UPSTREAM_HEADERS_ENV) or "{}")
        if headers:
            from mcp.client.streamable_http import streamable_http_client

            async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0)) as http, \
                    Client(streamable_http_client(url, http_client=http), cache=None) as client:
                yield client
            return
        target = url
    async with Client(target, cache=None) as client:
        yield client


async def list_all_tools(client: Client) -> list[dict[str, Any]]:
    """Every tool the upstream lists, following pagination, in MCP wire form."""
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools += [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in page.tools]
        cursor = page.next_cursor
        if cursor is None:
            return tools
    raise RuntimeError(f"the upstream server kept paginating its tool list past {MAX_PAGES} pages")


def upstream_caller(client: Client) -> UpstreamCall:
    """Call an upstream tool and return its result without the upstream's own metadata."""
    async def call(name: str, args: dict[str, Any]) -> types.CallToolResult:
        result = await client.call_tool(name, args, meta=_FORWARDED_META.get())  # type: ignore[arg-type]
        return types.CallToolResult(content=result.content, structured_content=result.structured_content,
                                    is_error=result.is_error)
    return call


def build_server(interface: EvolvedInterface, upstream: UpstreamCall, name: str = "mcptrials-evolved",
                 version: str = "", instructions: str | None = None) -> Server[Any]:
    """A low-level MCP server that lists the evolved tools and serves calls through ``upstream``."""
    tools = [types.Tool.model_validate(wire) for wire in interface.tool_list()]

    async def on_list_tools(_ctx: ServerRequestContext[Any],
                            _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(_ctx: ServerRequestContext[Any],
                           params: types.CallToolRequestParams) -> types.CallToolResult:
        ours = {k: v for k, v in (params.meta or {}).items() if k.startswith("mcptrials/")}
        token = _FORWARDED_META.set(ours or None)
        try:
            return await interface.call(params.name, params.arguments, upstream)
        finally:
            _FORWARDED_META.reset(token)

    async def on_list_prompts(_ctx: ServerRequestContext[Any],
                              _params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[])  # the proxy evolves tools only; also its cheap health check

    return Server(name, version=version, instructions=instructions, on_list_tools=on_list_tools,
                  on_call_tool=on_call_tool, on_list_prompts=on_list_prompts)


async def evolved_tool_list(chain: PlanChain, command: Sequence[str] | None = None, url: str | None = None,
                            cwd: str | None = None) -> list[dict[str, Any]]:
    """Connect to the upstream, apply the chain and return the evolved tool list."""
    async with open_upstream(command, url, cwd) as client:
        tools = await list_all_tools(client)
    return build_interface(tools, chain).tool_list()


async def serve_stdio(chain: PlanChain, command: Sequence[str] | None = None, url: str | None = None,
                      cwd: str | None = None) -> None:
    """Run the proxy over this process's stdin and stdout until the client disconnects."""
    failure: Exception | None = None
    async with open_upstream(command, url, cwd) as client:
        try:
            interface = build_interface(await list_all_tools(client), chain)
        except (PlanError, ToolListError) as exc:  # raised after the upstream is closed, unwrapped
            failure = exc
        else:
            await _serve(client, interface, chain)
    if failure is not None:
        raise failure


async def _serve(client: Client, interface: EvolvedInterface, chain: PlanChain) -> None:
    """Serve ``interface`` over stdio, naming the server after the upstream and the version."""
    info = client.server_info
    name = info.name if info is not None else "mcptrials-evolved"
    version = chain.versions[-1] if chain.versions else "v0"
    server = build_server(interface, upstream_caller(client), name, version, client.instructions)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m mcptrials.evolve.proxy",
        description="Serve an evolved interface of an MCP server, following evolution plans.")
    parser.add_argument("--plan", action="append", default=[], type=Path,
                        help="plan file (YAML/JSON); repeat for later rounds; parents are followed")
    parser.add_argument("--upstream-url", help="URL of a streamable-HTTP upstream server")
    parser.add_argument("--upstream-cwd", help="working directory for the upstream command")
    parser.add_argument("--dump-tools", type=Path, help="write the evolved tool list as JSON and exit")
    parser.add_argument("--upstream-command", nargs=argparse.REMAINDER,
                        help="command and arguments that start the upstream server (must come last)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: parse, load plans, then serve or dump; 2 = bad input, 1 = upstream failure."""
    args = _parser().parse_args(argv)
    command = args.upstream_command or None
    if (command is None) == (args.upstream_url is None):
        print("error: give exactly one of --upstream-command CMD [ARGS...] or --upstream-url URL",
              file=sys.stderr)
        return 2
    try:
        chain = load_plan_chain(args.plan)
        if args.dump_tools is not None:
            tools = anyio.run(evolved_tool_list, chain, command, args.upstream_url, args.upstream_cwd)
            args.dump_tools.write_text(json.dumps({"tools": tools}, indent=2) + "\n", encoding="utf-8")
            return 0
        anyio.run(serve_stdio, chain, command, args.upstream_url, args.upstream_cwd)
    except (PlanError, ToolListError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (OSError, MCPError) as exc:
        print(f"error: upstream server failed: {exc}", file=sys.stderr)
        return 1
    except BaseExceptionGroup as group:
        leaves = _leaves(group)
        print(f"error: upstream server failed: {'; '.join(str(e) or type(e).__name__ for e in leaves)}",
              file=sys.stderr)
        return 1
    return 0


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    out: list[BaseException] = []
    for exc in group.exceptions:
        out += _leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc]
    return out


if __name__ == "__main__":
    sys.exit(main())
