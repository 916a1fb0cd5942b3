"""Symlinks planted on the bundled servers' temporary and journal file names never let a write leave the sandbox."""

from __future__ import annotations

from pathlib import Path

from mcptrials.bundled.world import bundled_servers
from mcptrials.servers.toolbox import open_toolbox

SENTINEL = "outside, untouched\n"


def _plant(link: Path, outside: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)


async def test_file_writes_ignore_links_on_temporary_names(tmp_path: Path) -> None:
    box_dir, outside = tmp_path / "sandbox", tmp_path / "outside"
    box_dir.mkdir()
    outside.mkdir()
    victims = {name: outside / name for name in ("tmp-victim", "state-victim", "absent-victim")}
    victims["tmp-victim"].write_text(SENTINEL)
    victims["state-victim"].write_text(SENTINEL)
    _plant(box_dir / "notes.md.tmp", victims["tmp-victim"])  # the old fixed temporary name
    _plant(box_dir / ".notes.md.tmp", victims["state-victim"])
    _plant(box_dir / "memo.md.tmp", victims["absent-victim"])  # a dangling link: would create the file
    specs = bundled_servers()
    async with open_toolbox([specs["files"]], box_dir) as box:
        for path in ("notes.md", "memo.md"):
            _, _, out = await box.call("files__write_file", {"path": path, "content": "inside\n"})
            assert not out.is_error, out.content
        _, _, out = await box.call("files__append_file", {"path": "notes.md", "content": "more\n"})
        assert not out.is_error, out.content
    assert (box_dir / "notes.md").read_text() == "inside\nmore\n"
    assert victims["tmp-victim"].read_text() == SENTINEL and victims["state-victim"].read_text() == SENTINEL
    assert not victims["absent-victim"].exists()
    assert sorted(p.name for p in outside.iterdir()) == ["state-victim", "tmp-victim"]


async def test_database_builds_and_writes_ignore_planted_links(tmp_path: Path) -> None:
    box_dir, outside = tmp_path / "sandbox", tmp_path / "outside"
    box_dir.mkdir()
    outside.mkdir()
    for name in ("shop.db.building", "shop.db-journal", "shop.db-wal"):
        _plant(box_dir / "shop" / name, outside / name)  # dangling: opening them would create files outside
    specs = bundled_servers()
    async with open_toolbox([specs["shopdb"]], box_dir) as box:
        _, _, out = await box.call("shopdb__write_query", {"query": "DELETE FROM order_items WHERE quantity > 100"})
        assert not out.is_error, out.content
        _, _, out = await box.call("shopdb__read_query", {"query": "SELECT count(*) AS n FROM customers"})
        assert not out.is_error, out.content
    assert (box_dir / "shop" / "shop.db").is_file() and not (box_dir / "shop" / "shop.db").is_symlink()
    assert list(outside.iterdir()) == []
