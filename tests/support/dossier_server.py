"""An MCP server (FastMCP style, run as a script) that tells agents how to use it through ``instructions``,
reads any file by its absolute path byte for byte, and takes nested arguments."""

from __future__ import annotations

import hashlib
from pathlib import Path

from mcp.server import MCPServer
from pydantic import BaseModel

INSTRUCTIONS = "Dossier desk: give files by absolute path; entity names are case-sensitive."

mcp = MCPServer("dossier", log_level="WARNING", instructions=INSTRUCTIONS)


class Entity(BaseModel):
    name: str
    role: str = "person"


@mcp.tool()
def file_digest(path: str) -> dict[str, object]:
    """Size, sha256 and whether the bytes are UTF-8 text, of the file at an absolute path."""
    data = Path(path).read_bytes()
    try:
        data.decode("utf-8")
        utf8 = True
    except UnicodeDecodeError:
        utf8 = False
    return {"path": path, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "utf8": utf8}


@mcp.tool()
def tag_entities(entities: list[Entity], source: dict[str, str] | None = None) -> str:
    """Tag the named entities in a document."""
    return f"tagged {len(entities)} entities: {', '.join(e.name for e in entities)}"


if __name__ == "__main__":
    mcp.run()
