"""An MCP server for the adversarial reuse tests (run as a script): state a reuse pool must not hide.

``count`` keeps a counter in memory (a server wrongly marked ``"reuse": true``); ``read`` reads a
file from its working directory (a server that takes per-episode input from the sandbox it runs in);
``grow`` adds a tool to its listing (a process whose interface changed after an episode); ``pid``
tells which process answered.
"""

from __future__ import annotations

import os
from pathlib import Path

from mcp.server import MCPServer

mcp = MCPServer("reuse-adversary", log_level="WARNING")
_calls = [0]


@mcp.tool()
def count() -> str:
    """Return how many times this tool was called in this process."""
    _calls[0] += 1
    return str(_calls[0])


@mcp.tool()
def read(name: str) -> str:
    """Return the text of ``name`` in the working directory, or 'missing'."""
    path = Path(name)
    return path.read_text(encoding="utf-8") if path.is_file() else "missing"


@mcp.tool()
def grow() -> str:
    """Add a tool named ``extra`` to this server's listing."""
    mcp.add_tool(lambda: "extra", name="extra", description="Added at run time.")
    return "grown"


@mcp.tool()
def pid() -> str:
    """Return this process's id."""
    return str(os.getpid())


if __name__ == "__main__":
    mcp.run()
