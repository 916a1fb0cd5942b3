"""A file system confined to the episode workspace: list, read, write, edit, search, move, delete.

Every path is relative to the workspace (``MCPTRIALS_SANDBOX``). Absolute paths, ``..`` and
symbolic links that lead outside are refused before anything is read or written.
"""

from __future__ import annotations

import fnmatch
import shutil
from pathlib import Path
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import SandboxError, confined, serve
from mcptrials.bundled.servers._workspace import relative, workspace_path, write_text

DYNAMISM = "stateful_write"
CATEGORY = "productivity"
DESCRIPTION = "Read, write, edit, search, move and delete files inside the workspace folder."

mcp = MCPServer("files", log_level="WARNING",
                instructions="All paths are relative to the workspace root, e.g. 'notes/todo.md'.")

MAX_READ = 200_000
Path_ = Annotated[str, Field(description="Path relative to the workspace, e.g. 'notes/todo.md'")]


def _inside(path: Path) -> bool:
    """True when ``path`` (possibly a symlink) resolves inside the workspace."""
    try:
        confined(relative(path))
    except (SandboxError, ValueError):
        return False
    return True


def _walk(start: Path, *, hidden: bool) -> list[Path]:
    """Files and folders under ``start`` in sorted order, skipping links that lead outside."""
    out: list[Path] = []
    for entry in sorted(start.iterdir(), key=lambda p: p.name):
        if not hidden and entry.name.startswith("."):
            continue
        if not _inside(entry):
            continue
        out.append(entry)
        if entry.is_dir() and not entry.is_symlink():
            out.extend(_walk(entry, hidden=hidden))
    return out


def _text(path: Path, shown: str) -> str:
    if not path.is_file():
        raise ToolError(f"{shown!r} is not a file")
    if path.stat().st_size > MAX_READ:
        raise ToolError(f"{shown!r} is larger than {MAX_READ} bytes")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{shown!r} is not a UTF-8 text file") from None


@mcp.tool()
def list_directory(
    path: Annotated[str, Field(description="Folder relative to the workspace; '.' is the root")] = ".",
    recursive: bool = False,
    show_hidden: bool = False,
) -> dict[str, Any]:
    """List the files and folders in a workspace folder, with sizes."""
    folder = workspace_path(path, must_exist=True)
    if not folder.is_dir():
        raise ToolError(f"{path!r} is not a folder")
    entries = _walk(folder, hidden=show_hidden) if recursive else [
        e for e in sorted(folder.iterdir(), key=lambda p: p.name)
        if (show_hidden or not e.name.startswith(".")) and _inside(e)]
    return {"path": relative(folder), "entries": [
        {"path": relative(e), "type": "folder" if e.is_dir() else "file",
         **({"size": e.stat().st_size} if e.is_file() else {})}
        for e in entries]}


@mcp.tool()
def read_file(
    path: Path_,
    start_line: Annotated[int | None, Field(ge=1, description="First line to return (1-based)")] = None,
    end_line: Annotated[int | None, Field(ge=1, description="Last line to return (inclusive)")] = None,
) -> dict[str, Any]:
    """Read a text file from the workspace, optionally only a range of lines."""
    target = workspace_path(path, must_exist=True)
    content = _text(target, path)
    if start_line or end_line:
        lines = content.splitlines(keepends=True)
        content = "".join(lines[(start_line or 1) - 1:end_line])
    return {"path": relative(target), "content": content}


@mcp.tool()
def write_file(
    path: Path_,
    content: str,
    overwrite: Annotated[bool, Field(description="Replace the file if it already exists")] = True,
) -> dict[str, Any]:
    """Create a text file or replace its contents. Missing parent folders are created."""
    target = workspace_path(path)
    if target.is_dir():
        raise ToolError(f"{path!r} is a folder")
    existed = target.exists()
    if existed and not overwrite:
        raise ToolError(f"{path!r} already exists; pass overwrite=true to replace it")
    write_text(target, content)
    return {"path": relative(target), "bytes": len(content.encode()), "created": not existed}


@mcp.tool()
def append_file(path: Path_, content: str) -> dict[str, Any]:
    """Append text to the end of a file (the file is created when missing)."""
    target = workspace_path(path)
    if target.is_dir():
        raise ToolError(f"{path!r} is a folder")
    before = _text(target, path) if target.exists() else ""
    write_text(target, before + content)
    return {"path": relative(target), "bytes": len((before + content).encode())}


@mcp.tool()
def edit_file(
    path: Path_,
    find: Annotated[str, Field(min_length=1, description="Exact text to look for")],
    replace: Annotated[str, Field(description="Text to put in its place")],
    replace_all: Annotated[bool, Field(description="Replace every occurrence, not only the first")] = False,
    dry_run: Annotated[bool, Field(description="Only report what would change")] = False,
) -> dict[str, Any]:
    """Find and replace exact text in a file.

    Fails when the text is not found, so nothing changes silently. By default only the first
    occurrence is replaced; set ``replace_all`` for every one. With ``dry_run`` the file is
    left alone and the would-be result is returned.
    """
    target = workspace_path(path, must_exist=True)
    content = _text(target, path)
    count = content.count(find)
    if count == 0:
        raise ToolError(f"text not found in {path!r}: {find[:80]!r}")
    updated = content.replace(find, replace) if replace_all else content.replace(find, replace, 1)
    if not dry_run:
        write_text(target, updated)
    return {"path": relative(target), "occurrences": count, "replaced": count if replace_all else 1,
            "dry_run": dry_run, **({"preview": updated} if dry_run else {})}


@mcp.tool()
def search_files(
    pattern: Annotated[str, Field(description="Glob on file names, e.g. '*.md' or 'report*'")],
    path: str = ".",
) -> dict[str, Any]:
    """Find files whose NAME matches a glob pattern (searches folders recursively)."""
    folder = workspace_path(path, must_exist=True)
    if not folder.is_dir():
        raise ToolError(f"{path!r} is not a folder")
    matches = [relative(p) for p in _walk(folder, hidden=False)
               if p.is_file() and not p.is_symlink() and fnmatch.fnmatch(p.name.lower(), pattern.lower())]
    return {"pattern": pattern, "matches": matches}


@mcp.tool()
def search_text(
    query: Annotated[str, Field(min_length=1, description="Text to look for inside files")],
    path: str = ".",
    case_sensitive: bool = False,
    max_results: Annotated[int, Field(ge=1, le=500)] = 50,
) -> dict[str, Any]:
    """Search the CONTENTS of text files for a string; returns matching lines with line numbers."""
    folder = workspace_path(path, must_exist=True)
    needle = query if case_sensitive else query.lower()
    hits: list[dict[str, Any]] = []
    candidates = [folder] if folder.is_file() else _walk(folder, hidden=False)
    for file in candidates:
        if not file.is_file() or file.is_symlink() or file.stat().st_size > MAX_READ:
            continue
        try:
            lines = file.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(lines, start=1):
            if needle in (line if case_sensitive else line.lower()):
                hits.append({"path": relative(file), "line": number, "text": line.strip()[:300]})
                if len(hits) >= max_results:
                    return {"query": query, "matches": hits, "truncated": True}
    return {"query": query, "matches": hits, "truncated": False}


@mcp.tool()
def get_file_info(path: Path_) -> dict[str, Any]:
    """Type, size and line count of a file or folder."""
    target = workspace_path(path, must_exist=True)
    info: dict[str, Any] = {"path": relative(target), "type": "folder" if target.is_dir() else "file"}
    if target.is_file():
        data = target.read_bytes()
        info.update(size=len(data), lines=data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1))
    else:
        info["entries"] = len(list(target.iterdir()))
    return info


@mcp.tool()
def create_directory(path: Path_) -> dict[str, Any]:
    """Create a folder (and any missing parents)."""
    target = workspace_path(path)
    if target.exists() and not target.is_dir():
        raise ToolError(f"{path!r} exists and is a file")
    target.mkdir(parents=True, exist_ok=True)
    return {"path": relative(target), "created": True}


@mcp.tool()
def move_file(
    source: Path_,
    destination: Annotated[str, Field(description="New path; an existing folder moves the file into it")],
    overwrite: bool = False,
) -> dict[str, Any]:
    """Move or rename a file or folder within the workspace."""
    src = workspace_path(source, must_exist=True)
    dst = workspace_path(destination)
    if src == confined("."):
        raise ToolError("the workspace root cannot be moved")
    if dst.is_dir():
        dst = workspace_path(relative(dst / src.name))
    if dst.exists() and not overwrite:
        raise ToolError(f"{relative(dst)!r} already exists; pass overwrite=true to replace it")
    if src.is_dir() and (dst == src or src in dst.parents):
        raise ToolError("cannot move a folder into itself")
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(src), str(dst))
    return {"from": relative(src), "to": relative(dst)}


@mcp.tool()
def delete_file(
    path: Path_,
    recursive: Annotated[bool, Field(description="Needed to delete a non-empty folder")] = False,
) -> dict[str, Any]:
    """Permanently delete a file (or a folder with recursive=true). There is no undo."""
    target = workspace_path(path, must_exist=True)
    if target == confined("."):
        raise ToolError("the workspace root cannot be deleted")
    link = confined(".") / path
    if link.is_symlink():  # a link that stays inside: remove the link, not what it points to
        link.unlink()
        return {"deleted": relative(link)}
    if target.is_dir():
        if any(target.iterdir()) and not recursive:
            raise ToolError(f"{path!r} is a non-empty folder; pass recursive=true to delete it")
        shutil.rmtree(target)
    else:
        target.unlink()
    return {"deleted": relative(target)}


if __name__ == "__main__":
    serve(mcp)
