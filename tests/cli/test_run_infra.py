"""`run` with a server that never starts: the reason is printed once with the episodes it hit, every
headline counts the infra episodes, and the exit code says infra errors remain."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from infra_world import infra_world


def mcptrials(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcptrials.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "COLUMNS": "200"}, timeout=300)


def test_a_server_that_never_starts_is_named_once_counted_and_fails_the_exit_code(tmp_path: Path) -> None:
    servers, tasks = infra_world(tmp_path)
    done = mcptrials("run", "--servers", str(servers), "--tasks", str(tasks), "--agent", "reference",
                     "--attempts", "2", "--db", "r.db", cwd=tmp_path)
    assert done.returncode == 5, done.stderr
    assert "passed 75 % 6/8, 2 infra (failed 0;" in done.stderr
    heads = [line for line in done.stderr.splitlines() if line.startswith("infra error (")]
    assert len(heads) == 1, done.stderr  # one distinct failure, printed once
    import sqlite3

    with sqlite3.connect(tmp_path / "r.db") as conn:
        ids = sorted(r[0] for r in conn.execute("select id from episodes where outcome = 'infra_error'"))
    assert len(ids) == 2
    assert heads[0].startswith("infra error (server_start, server 'broken') in 2 episode(s): ")
    assert sorted(heads[0].split(": ", 1)[1].split(", ")) == ids
    assert done.stderr.count("refusing to start: missing configuration") == 1  # the server's own words, once
    assert "2 episode(s) ended in an infra error" in done.stderr
    shown = mcptrials("show", ids[0], "--db", "r.db", cwd=tmp_path).stdout  # no verdict for what never ran
    assert "checkpoints: not scored: the episode ended in an infra error" in shown and "✗" not in shown
    # a clean re-run of the scored part: nothing left over, exit 0
    again = mcptrials("run", "--servers", str(servers), "--tasks", str(tasks), "--agent", "reference",
                      "--attempts", "2", "--db", "r.db", "--task", "ex-trip-note", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
