"""A fork server that cannot bind its socket (TMPDIR too long for a Unix socket path) falls back to cold starts."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from faults import describe, hostile_spec, wait_gone

from mcptrials.servers import forkserver
from mcptrials.servers.toolbox import open_toolbox

pytestmark = pytest.mark.skipif(not forkserver.enabled(), reason="this platform has no fork/send_fds")


@pytest.fixture
def long_tmpdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """TMPDIR 150 characters deep, and a process with no fork server yet (restored afterwards)."""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    assert len(str(deep)) > 110
    monkeypatch.setenv("TMPDIR", str(deep))
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.setattr(forkserver, "_instances", {})
    monkeypatch.setattr(forkserver, "_unavailable", None)
    yield deep


async def test_long_tmpdir_means_cold_starts_with_one_warning(long_tmpdir: Path, mark: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    spec = hostile_spec(forked=True)
    for _ in range(2):
        async with open_toolbox([spec], long_tmpdir) as box:
            assert not box.failures, box.failures
            assert box.connections["hostile"]._forks is None  # cold-started
            _, _, out = await box.call("hostile__echo", {"text": "still served"})
            assert out.content == "still served"
    err = capsys.readouterr().err
    assert err.count("fork server unavailable") == 1 and "starting servers cold" in err
    assert "AF_UNIX path too long" in err or "too long" in err
    assert [p.name for p in long_tmpdir.iterdir() if p.name.startswith("mcptrials-fork-")] == []  # no stale dir
    left = wait_gone(mark)
    assert left == [], describe(left)
