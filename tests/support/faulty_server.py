"""A deliberately misbehaving MCP server for fault tests (run as a script)."""

from __future__ import annotations

import os
import sys
import time

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

if os.environ.get("FAULTY_FAIL_START"):
    print("refusing to start: missing configuration", file=sys.stderr)
    sys.exit(3)

mcp = MCPServer("faulty", log_level="WARNING")


@mcp.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@mcp.tool()
def fail(reason: str) -> str:
    """Always fail with a tool error."""
    raise ToolError(f"failed on purpose: {reason}")


@mcp.tool()
def crash() -> str:
    """Kill the server process mid-call."""
    os._exit(7)


@mcp.tool()
def hang(seconds: float = 3600) -> str:
    """Block for a long time."""
    time.sleep(seconds)
    return "woke up"


@mcp.tool()
def huge(size: int = 1_000_000) -> str:
    """Return a very large result."""
    return "x" * size


@mcp.tool()
def garbage() -> str:
    """Write non-protocol bytes to stdout, then answer."""
    os.write(1, b"this is not JSON-RPC at all\n{broken json\n")
    return "answered after garbage"


if __name__ == "__main__":
    mcp.run()
