"""Wiring: turn the schema dicts into tools and route calls through the handler table."""

from __future__ import annotations

import json
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from shelf.handlers import HANDLERS
from shelf.schemas import TOOL_DEFINITIONS


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool.model_validate(d) for d in TOOL_DEFINITIONS])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    handler = HANDLERS.get(params.name)
    if handler is None:
        return types.CallToolResult(content=[types.TextContent(text="unknown tool")], is_error=True)
    try:
        value = handler(params.arguments or {})
    except (KeyError, TypeError, ValueError) as exc:
        return types.CallToolResult(content=[types.TextContent(text=f"bad arguments: {exc}")], is_error=True)
    return types.CallToolResult(content=[types.TextContent(text=json.dumps(value))])


server = Server("shelf", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
