"""A low-level MCP server whose call handler dispatches with ``match`` on the tool name."""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[
        types.Tool(name="reverse", description="Reverse a string.",
                   input_schema={"type": "object", "properties": {"text": {"type": "string"}},
                                 "required": ["text"]}),
        types.Tool(name="length", description="Count characters.",
                   input_schema={"type": "object", "properties": {"text": {"type": "string"}},
                                 "required": ["text"]}),
    ])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    match params.name:
        case "reverse":
            text = str(args.get("text", ""))
            result: Any = text[::-1]
        case "length":
            result = len(str(args.get("text", "")))
        case _:
            return types.CallToolResult(content=[types.TextContent(text="unknown tool")], is_error=True)
    return types.CallToolResult(content=[types.TextContent(text=str(result))])


server = Server("strings", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
