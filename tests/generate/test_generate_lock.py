"""`generate` runs once per --out at a time (a second identical command is refused before it pays for anything,
a lock left by a killed one is taken over), and a --base-url with a query string keeps it on every request."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from gen_endpoint import GenModel, endpoint
from typer.testing import CliRunner

from mcptrials.cli import app

runner = CliRunner()
HOLD = """
import sys, time
from pathlib import Path
from mcptrials.safety.lockfile import hold_lock_file
with hold_lock_file(Path(sys.argv[1]), "a generation"):
    print("held", flush=True)
    time.sleep(300)
"""


def _generate(base_url: str, out: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["generate", "--model", "openai:gpt-4o-mini", "--base-url", base_url, "--out",
                                 str(out), "--method", "chains", "--n", "1", "--server", "weather",
                                 "--max-candidates", "1", "--format", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stderr


def test_a_second_generation_into_the_same_out_is_refused_and_a_dead_holder_is_taken_over(tmp_path: Path) -> None:
    out = tmp_path / "tasks.jsonl"
    lock = tmp_path / "tasks.gen.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with endpoint(GenModel()) as fake:
            code, stderr = _generate(fake.base_url, out)
        assert code == 2
        lines = stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {lock}: a generation into {out} is already running "
                                                       f"(pid {holder.pid} on "), stderr
        assert lines[0].endswith("; wait for it to finish or stop it (a lock whose process died is taken over at once)")
        assert fake.requests == [] and not out.exists()  # nothing paid for twice, nothing written
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
    assert lock.exists()  # left behind by the killed holder: stale, taken over at once
    with endpoint(GenModel()) as fake:
        code, stderr = _generate(fake.base_url, out)
    assert "already running" not in stderr and code in {0, 1}, stderr
    assert fake.requests and out.exists()


def test_a_base_url_query_string_is_kept_on_every_request(tmp_path: Path) -> None:
    with endpoint(GenModel()) as fake:
        code, stderr = _generate(f"{fake.base_url}?token=abc&region=eu", tmp_path / "tasks.jsonl")
    assert code in {0, 1}, stderr
    assert fake.paths and set(fake.paths) == {"/v1/chat/completions?token=abc&region=eu"}
