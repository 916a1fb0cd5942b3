"""A server's tool list as a JSON file in the MCP wire shape (``{"tools": [...]}``), the input `diff` reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcptrials.model import ToolInfo


def wire_tool(tool: ToolInfo) -> dict[str, Any]:
    """One tool as ``tools/list`` gives it: name, description, inputSchema, outputSchema, annotations."""
    out: dict[str, Any] = {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}
    if tool.output_schema is not None:
        out["outputSchema"] = tool.output_schema
    if tool.read_only is not None:
        out["annotations"] = {"readOnlyHint": tool.read_only}
    return out


def tool_list_json(tools: list[ToolInfo]) -> str:
    """The tool list as indented JSON text, tools in the server's order."""
    return json.dumps({"tools": [wire_tool(t) for t in tools]}, indent=2, ensure_ascii=False) + "\n"


def write_tool_list(tools: list[ToolInfo], path: Path) -> None:
    """Write the tool list to ``path`` (parents created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(tool_list_json(tools), encoding="utf-8")
