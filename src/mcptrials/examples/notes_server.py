"""Example MCP server: plain-text notes kept in the episode sandbox."""

from __future__ import annotations

from pathlib import Path

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from mcptrials.bundled.servers._runtime import SandboxError, confined, sandbox, serve

mcp = MCPServer("notes", log_level="WARNING")


def _path(name: str, must_exist: bool = False) -> Path:
    try:
        return confined(name, must_exist=must_exist)
    except (SandboxError, FileNotFoundError) as exc:
        raise ToolError(str(exc)) from None


@mcp.tool()
def list_files() -> list[str]:
    """List every note file in the workspace."""
    root = sandbox()
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@mcp.tool()
def read_file(path: str) -> str:
    """Read a note file."""
    return _path(path, must_exist=True).read_text(encoding="utf-8")


@mcp.tool()
def write_file(path: str, content: str) -> str:
    """Create or overwrite a note file with the given content."""
    target = _path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    return f"wrote {len(content)} characters to {path}"


@mcp.tool()
def append_file(path: str, content: str) -> str:
    """Append text to the end of a note file."""
    target = _path(path, must_exist=True)
    with target.open("a", encoding="utf-8") as fh:
        fh.write(content)
    return f"appended {len(content)} characters to {path}"


@mcp.tool()
def delete_file(path: str) -> str:
    """Delete a note file for good."""
    _path(path, must_exist=True).unlink()
    return f"deleted {path}"


if __name__ == "__main__":
    serve(mcp)
