"""A low-level MCP server: one list handler returning Tool objects, one call handler with if/elif."""

from __future__ import annotations

import json
from typing import Any

import anyio
import jsonschema
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.types import CallToolRequestParams, CallToolResult, ListToolsResult, TextContent, Tool

TOOLS = [
    Tool(
        name="add",
        description="Add two integers.",
        input_schema={
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "First addend."},
                "b": {"type": "integer", "description": "Second addend."},
            },
            "required": ["a", "b"],
        },
    ),
    Tool(
        name="shout",
        description="Return the text in capitals.",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string", "description": "Text to shout."}},
            "required": ["text"],
        },
    ),
]


def _reply(value: Any, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=json.dumps(value))], is_error=error)


async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
    return ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
    name = params.name
    arguments = params.arguments or {}
    schema = next((t.input_schema for t in TOOLS if t.name == name), None)
    if schema is None:
        return _reply(f"unknown tool {name}", error=True)
    try:
        jsonschema.validate(arguments, schema)
    except jsonschema.ValidationError as exc:
        return _reply(f"invalid arguments: {exc.message}", error=True)
    if name == "add":
        return _reply({"sum": arguments["a"] + arguments["b"]})
    elif name == "shout":
        return _reply({"text": arguments["text"].upper()})
    return _reply(f"unknown tool {name}", error=True)


server = Server("calc", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
