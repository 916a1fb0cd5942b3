"""A judge-only task (no checkpoint, ``spec.judges`` named) through `run`, `score`, `score --judge` and `report`:
no Tier-1 verdict, unjudged (and out of the pass rates) until its judge speaks, then the judge's verdict."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from judge_endpoint import JudgeEndpoint


def mcptrials(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcptrials.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "COLUMNS": "200"}, timeout=300)


def judged_task(task_id: str, **spec: object) -> dict[str, object]:
    return {"id": task_id, "prompt": "How large is notes/a.txt?", "servers": ["files"],
            "fixtures": {"files": {"notes/a.txt": "twelve bytes"}},
            "spec": {"judges": ["keypoints"], **spec}, "key_points": ["States that the file has 12 bytes"],
            "reference": [{"tool": "files__get_file_info", "args": {"path": "notes/a.txt"}}],
            "reference_answer": "notes/a.txt has 12 bytes."}


def summary(cwd: Path) -> tuple[dict[str, object], dict[str, dict[str, object]]]:
    report = mcptrials("report", "--db", "r.db", "--format", "json", cwd=cwd)
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    return data["summary"][0], {r["task_id"]: r for r in data["episodes"]}


def stored_outcomes(cwd: Path) -> dict[str, str]:
    with sqlite3.connect(cwd / "r.db") as conn:
        return dict(conn.execute("select task_id, outcome from episodes"))


def test_judge_only_task_is_unjudged_until_its_judge_gives_the_verdict(tmp_path: Path,
                                                                        judge_endpoint: JudgeEndpoint) -> None:
    tasks = [judged_task("judged"), judged_task("mined", minefields=[{"tools": ["files__get_file_info"]}]),
             {"id": "ruled", "prompt": "How large is notes/a.txt?", "servers": ["files"],
              "fixtures": {"files": {"notes/a.txt": "twelve bytes"}},
              "spec": {"grounding": False, "checkpoints": [
                  {"id": "size", "kind": "value_produced", "source": "tool_result", "regex": [r'"size":\s*12\b']}]},
              "reference": [{"tool": "files__get_file_info", "args": {"path": "notes/a.txt"}}]}]
    (tmp_path / "tasks.json").write_text(json.dumps(tasks))
    checked = mcptrials("tasks", "check", "--tasks", "tasks.json", "--task", "judged", "--task", "ruled", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr  # a judge-only spec is a valid spec
    done = mcptrials("run", "--tasks", "tasks.json", "--agent", "reference", "--db", "r.db", cwd=tmp_path)
    assert done.returncode == 0, done.stderr

    head, rows = summary(tmp_path)
    assert rows["judged"]["outcome"] == "unjudged" and rows["judged"]["verdict"] == "judged"
    assert rows["judged"]["checkpoint_fraction"] is None and rows["judged"]["checkpoints"] == {}
    assert rows["mined"]["outcome"] == "failed" and rows["mined"]["failure_codes"] == ["minefield"]
    assert rows["ruled"]["outcome"] == "passed" and rows["ruled"]["verdict"] == "deterministic"
    assert (head["n_tasks"], head["pass_at_1"], head["judged_episodes"], head["unjudged"]) == (2, 0.5, 2, 1)
    table = mcptrials("report", "--db", "r.db", "--episodes", cwd=tmp_path).stdout
    assert "2 episode verdicts are judged" in table and "1 not judged yet, left out of the pass rates" in table
    assert "unjudged" in table and "failed (judged)" in table
    html = mcptrials("report", "--db", "r.db", "--format", "html", "-o", "r.html", cwd=tmp_path)
    assert html.returncode == 0 and 'id="judged-note"' in (tmp_path / "r.html").read_text()

    rescored = mcptrials("score", "--db", "r.db", cwd=tmp_path)  # Tier-1 again: still no verdict of its own
    assert rescored.returncode == 0, rescored.stderr
    assert stored_outcomes(tmp_path) == {"judged": "unjudged", "mined": "failed", "ruled": "passed"}

    judged = mcptrials("score", "--db", "r.db", "--judge", "openai:gpt-4o-mini", "--judge-base-url",
                       judge_endpoint.base_url, "--judges", "keypoints", cwd=tmp_path)
    assert judged.returncode == 0, judged.stderr
    head, rows = summary(tmp_path)
    assert rows["judged"]["outcome"] == "passed" and rows["judged"]["judges"]["keypoints"]["passed"] is True
    assert (head["n_tasks"], head["pass_at_1"], head["unjudged"]) == (3, 2 / 3, 0)
    assert mcptrials("score", "--db", "r.db", cwd=tmp_path).returncode == 0  # Tier-1 leaves the judges' verdict
    assert stored_outcomes(tmp_path) == {"judged": "passed", "mined": "failed", "ruled": "passed"}
