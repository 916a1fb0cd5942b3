"""What a demanding user does to the store: secrets in odd places of a URL, bracketed hints, Ctrl-C mid-run."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcptrials.store.db import Store, run_locks
from mcptrials.store.engine import display_url

SECRET = "s3cr3t-Pw"
ENV = {**os.environ, "COLUMNS": "200"}


def _cli(*args: str, hide: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a child; ``hide`` names a module made unimportable there."""
    start = ["-m", "mcptrials.cli"] if hide is None else [
        "-c", f"import sys; sys.modules[{hide!r}] = None; from mcptrials.cli import main; "
              "sys.argv = ['mcptrials', *sys.argv[1:]]; main()"]
    return subprocess.run([sys.executable, *start, *args], capture_output=True, text=True, env=ENV, timeout=120)


@pytest.mark.parametrize("url", [
    f"postgresql://me:{SECRET}@db.example.org/results",
    f"postgresql://me@db.example.org/results?password={SECRET}&sslmode=require",
    f"postgresql://me@db.example.org/results?sslpassword={SECRET}",
])
def test_a_password_anywhere_in_the_url_is_masked(url: str) -> None:
    shown = display_url(url)
    assert SECRET not in shown and "db.example.org/results" in shown


def test_a_password_in_the_query_string_is_never_printed_by_the_cli() -> None:
    done = _cli("report", "--db", f"postgresql://me@127.0.0.1:1/results?password={SECRET}")
    assert done.returncode == 2
    assert SECRET not in done.stdout + done.stderr
    assert done.stderr.startswith("error: cannot open the result store") and done.stderr.count("\n") == 1


def test_an_error_hint_in_brackets_is_printed_as_written() -> None:
    """Rich markup would eat "[postgres]" out of "pip install 'mcptrials[postgres]'"."""
    done = _cli("report", "--db", f"postgresql+asyncpg://me:{SECRET}@127.0.0.1:1/results", hide="asyncpg")
    assert done.returncode == 2
    assert "pip install 'mcptrials[postgres]'" in done.stderr
    assert SECRET not in done.stdout + done.stderr


@pytest.mark.slow
def test_ctrl_c_stops_a_run_and_releases_its_lock(tmp_path: Path, example_tasks_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    cmd = [sys.executable, "-m", "mcptrials.cli", "run", "--agent", "reference", "--tasks", str(example_tasks_path),
           "--servers", str(example_tasks_path.with_name("servers.json")), "--concurrency", "1", "--db", db,
           "--attempts", "30"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV,
                            start_new_session=True)
    deadline = time.time() + 60
    held = False
    while time.time() < deadline and proc.poll() is None and not held:
        time.sleep(0.2)
        if Path(db).exists():
            with Store(db).engine.connect() as conn:
                held = conn.execute(run_locks.select()).first() is not None
    assert held and proc.poll() is None, "the run never took its lock"
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    with Store(db).engine.connect() as conn:
        assert conn.execute(run_locks.select()).first() is None  # released: the next run need not wait
    again = subprocess.run([*cmd[:-1], "1"], capture_output=True, text=True, env=ENV, timeout=120)
    assert again.returncode == 0, again.stderr


def test_view_on_postgresql_never_prints_the_password(postgres_url: str) -> None:
    from pg_cluster import PASSWORD

    Store(postgres_url).close()  # a migrated, empty store
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    view = subprocess.Popen([sys.executable, "-m", "mcptrials.cli", "view", "--db", postgres_url, "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV)
    try:
        assert view.stdout is not None
        banner = view.stdout.readline()
    finally:
        view.terminate()
        rest = view.communicate(timeout=30)[0]
    assert "mcptrials view: http://127.0.0.1:" in banner and ":***@" in banner
    assert PASSWORD not in banner + rest
