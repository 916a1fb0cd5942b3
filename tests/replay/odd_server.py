"""An MCP server with awkward answers for replay tests: non-ASCII, huge, failing, structured, crashing."""

from __future__ import annotations

import os
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("odd")


@server.tool()
def greet(name: str) -> str:
    """A greeting in several scripts."""
    return f"Grüße, {name}! こんにちは 👋 — «ok» \u0000end"


@server.tool()
def big(lines: int = 3000) -> str:
    """A long listing (beyond the harness's output cap)."""
    return "\n".join(f"row {i}: {'x' * 20} é" for i in range(lines))


@server.tool()
def fail(reason: str) -> str:
    """Always fails with ``reason``."""
    raise ToolError(f"refused: {reason}")


@server.tool()
def stats(item_id: int, unit: str = "kg") -> dict[str, Any]:
    """Structured statistics of one item."""
    return {"item_id": item_id, "unit": unit, "mass": item_id * 1.5, "label": "Ünïcode"}


@server.tool()
def crash() -> str:
    """Kills the server process."""
    os._exit(3)


if os.environ.get("ODD_VARIANT") == "2":  # a newer release of the server: one more tool, another greeting

    @server.tool()
    def farewell(name: str) -> str:
        """A goodbye."""
        return f"Adieu, {name}"


if __name__ == "__main__":
    server.run()
