"""The server object, imported by every module that registers tools."""

from mcp.server import MCPServer

server = MCPServer("notes", log_level="WARNING")
