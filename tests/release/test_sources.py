"""How a config entry is pointed at another release: the launchers of npm and PyPI servers, and git work trees."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcptrials.model import ServerSpec
from mcptrials.release.sources import ReleaseError, _after_launcher, _moved, guess_registry

PKG = "@modelcontextprotocol/server-filesystem"


@pytest.mark.parametrize(("command", "args", "package", "expected"), [
    ("npx", ["-y", PKG, "/data"], PKG, (None, ["/data"])),
    ("npx", ["--yes", f"{PKG}@2025.7.1", "/data", "/more"], PKG, (None, ["/data", "/more"])),
    ("npx", ["-y", "-p", PKG, "mcp-server-filesystem", "/data"], PKG, ("mcp-server-filesystem", ["/data"])),
    ("uvx", ["mcp-server-git", "--repository", "."], "mcp-server-git", (None, ["--repository", "."])),
    ("uvx", ["mcp-server-git==2025.7.1"], "mcp-server-git", (None, [])),
    ("uvx", ["--from", "mcp-server-time", "mcp-server-time", "--local-timezone", "UTC"], "mcp-server-time",
     ("mcp-server-time", ["--local-timezone", "UTC"])),
    ("pipx", ["run", "mcp-server-git"], "mcp-server-git", (None, [])),
])
def test_the_servers_own_arguments_are_kept(command: str, args: list[str], package: str,
                                            expected: tuple[str | None, list[str]]) -> None:
    spec = ServerSpec(name="s", command=command, args=args)
    assert _after_launcher(spec, package) == expected


def test_an_entry_running_another_package_is_refused() -> None:
    spec = ServerSpec(name="s", command="npx", args=["-y", "@modelcontextprotocol/server-memory"])
    with pytest.raises(ReleaseError, match="runs '@modelcontextprotocol/server-memory', not the package"):
        _after_launcher(spec, PKG)


def test_the_registry_is_told_by_the_command_or_asked_for() -> None:
    assert guess_registry(ServerSpec(name="s", command="npx"), "pkg") == "npm"
    assert guess_registry(ServerSpec(name="s", command="uvx"), "pkg") == "pypi"
    assert guess_registry(ServerSpec(name="s", command="/usr/bin/my-server"), "@scope/pkg") == "npm"
    with pytest.raises(ReleaseError, match="give --registry npm or --registry pypi"):
        guess_registry(ServerSpec(name="s", command="/usr/bin/my-server"), "pkg")


def test_every_mention_of_the_work_tree_moves_to_the_old_copy(tmp_path: Path) -> None:
    root, copy = tmp_path / "repo", tmp_path / "cache" / "repo@abc"
    spec = ServerSpec(name="s", command=sys.executable, args=[f"{root}/server.py", f"{root}-other/x.py"],
                      cwd=str(root / "src"), env={"PYTHONPATH": f"{root}/src:/elsewhere"})
    moved = _moved(spec, root, copy)
    assert moved.args == [f"{copy}/server.py", f"{root}-other/x.py"]  # a sibling folder is not the tree
    assert moved.cwd == str(copy / "src") and moved.env["PYTHONPATH"] == f"{copy}/src:/elsewhere"
    assert moved.command == sys.executable
