"""A tiny upstream MCP server for the proxy tests: ``python toy_server.py [--http PORT]``."""

from __future__ import annotations

import sys

from mcp.server import MCPServer

server = MCPServer("toy")


@server.tool()
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def greet(name: str, greeting: str = "Hello", punctuation: str = "!") -> str:
    """Greet someone by name."""
    return f"{greeting}, {name}{punctuation}"


@server.tool()
def echo(text: str, upper: bool = False) -> str:
    """Return the text, optionally in capitals."""
    return text.upper() if upper else text


@server.tool()
def count_chars(text: str) -> int:
    """Count the characters of a text."""
    return len(text)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
