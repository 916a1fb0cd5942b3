"""`run` lints the specs before any episode: a checkpoint naming a tool no server offers stops it with one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).parents[2] / "src" / "mcptrials" / "examples"


def test_a_checkpoint_on_a_tool_nobody_offers_stops_the_run_before_any_episode(tmp_path: Path) -> None:
    tasks = [json.loads(line) for line in (EXAMPLES / "tasks.jsonl").read_text().splitlines() if line.strip()]
    trip = next(t for t in tasks if t["id"] == "ex-trip-note")
    trip["spec"]["checkpoints"][0]["tools"] = ["rail__get_ticket"]  # the server's tool is get_tickets
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(trip) + "\n")
    done = subprocess.run([sys.executable, "-m", "mcptrials.cli", "run", "--servers", str(EXAMPLES / "servers.json"),
                           "--tasks", str(path), "--agent", "reference", "--db", "r.db"], capture_output=True,
                          text=True, cwd=tmp_path, env={**os.environ, "COLUMNS": "300"}, timeout=300)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: spec lint: task 'ex-trip-note': checkpoint 'c1': member 'rail__get_ticket' is not offered; "
        "no episode was run"]
    assert done.stdout == "" and not (tmp_path / "r.db").exists()  # nothing ran, nothing was written
