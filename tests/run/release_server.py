"""A tiny MCP server with two releases: ``python release_server.py 1.0`` or ``2.0`` (2.0 renames ``shout`` to ``yell``).

The release is also what the server says it is at ``initialize``, as a real package's server does.
"""

from __future__ import annotations

import sys

from mcp.server import MCPServer

RELEASE = sys.argv[1] if len(sys.argv) > 1 else "1.0"
server = MCPServer("release-demo", version=RELEASE)


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


if RELEASE == "1.0":
    @server.tool()
    def shout(text: str) -> str:
        """The text in capitals."""
        return text.upper()
else:
    @server.tool()
    def yell(text: str) -> str:
        """The text in capitals, with an exclamation mark."""
        return text.upper() + "!"


if __name__ == "__main__":
    server.run()
