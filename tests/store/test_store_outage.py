"""PostgreSQL stopped in the middle of a run: one line naming the store, exit code 6, every finished episode kept,
and the same command resumes once the server is back."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "robustness"))

from faults import nap_task, run_command, write_world
from pg_cluster import _as_postgres, _binaries, new_database, postgres_cluster

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'mcptrials[postgres]')")
TASKS = 8


def _stored(url: str) -> int:
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            return int(conn.execute("select count(*) from episodes").fetchone()[0])
    except psycopg.Error:
        return 0


def _pg_ctl(data: str, *args: str) -> None:
    folder = _binaries()
    assert folder is not None
    subprocess.run(_as_postgres([str(folder / "pg_ctl"), "-D", data, *args]), check=True, capture_output=True,
                   timeout=90)


def test_a_store_that_stops_answering_mid_run_is_one_line_and_exit_6(tmp_path: Path) -> None:
    tasks, servers = write_world(tmp_path, [nap_task(f"t{i}", 0.5) for i in range(TASKS)])
    try:
        cluster = postgres_cluster()  # the test's own: stopping it must not touch the session's cluster
        base = cluster.__enter__()
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot start a PostgreSQL cluster: {exc}")
    try:
        url = new_database(base)
        with psycopg.connect(url) as conn:
            data = str(conn.execute("show data_directory").fetchone()[0])
            port = str(conn.execute("show port").fetchone()[0])
        command = run_command(tasks, servers, url, "--concurrency", "1")  # type: ignore[arg-type]
        run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "COLUMNS": "250"})
        deadline = time.monotonic() + 120
        while _stored(url) < 2 and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.2)
        _pg_ctl(data, "-m", "fast", "-w", "stop")
        stdout, stderr = run.communicate(timeout=120)
        assert "Traceback" not in stdout + stderr, stderr
        assert len(stderr.splitlines()) <= 3, stderr  # the progress bar and the one error line, no traceback
        errors = [line for line in stderr.splitlines() if line.startswith("error")]
        host = f"postgresql+psycopg://postgres:***@127.0.0.1:{port}/{url.rsplit('/', 1)[1]}"
        assert errors == [f"error: {host}: the database server stopped answering (terminating connection due to "
                          "administrator command); what was stored before is safe: re-run the same command once it "
                          "is back to resume"], stderr
        assert run.returncode == 6
        assert "pg-" not in stderr  # the password is never printed

        root = str(Path(data).parent)
        _pg_ctl(data, "-o", f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off", "-l",
                f"{root}/log", "-w", "-t", "60", "start")
        kept = _stored(url)
        assert 2 <= kept < TASKS  # nothing finished was lost; the run stopped before the end
        again = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr
        assert f"{kept} already stored" in again.stderr
        assert _stored(url) == TASKS
    finally:
        cluster.__exit__(None, None, None)
