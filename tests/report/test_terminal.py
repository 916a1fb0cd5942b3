"""The terminal as a newcomer meets it, through the real CLI: explain, --episodes, tasks list --ids,
servers tools --out + diff, evolve --out accepted by --lineages, tables that never cut a tool name, progress."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, Reply, completion
from report_world import cli

import mcptrials


@pytest.mark.parametrize(("code", "expect"), [
    ("O3", "Tool Removal"), ("o11", "O11"), ("P14", "PARAM-REMOVE(REQUIRED)"), ("P16", "combines P1, P4"),
    ("missing_effect", "No successful call"), ("unknown_tool", "no server offers"),
])
def test_explain_a_code(code: str, expect: str) -> None:
    assert expect in cli("explain", code).stdout


def test_explain_lists_every_operator_and_pattern_and_refuses_an_unknown_code() -> None:
    listing = cli("explain").stdout
    for code in [f"O{i}" for i in range(1, 12)] + [f"P{i}" for i in range(1, 19)]:
        assert re.search(rf"│ {code}\s", listing), code
    done = cli("explain", "P19", check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "unknown code 'P19'" in done.stderr


def test_version() -> None:
    assert cli("--version").stdout.strip() == f"mcptrials {mcptrials.__version__}"


@pytest.mark.slow
def test_report_episodes_lists_every_episode_with_outcome_and_codes(world_db: Path) -> None:
    data = json.loads(cli("report", "--db", str(world_db), "--format", "json").stdout)
    text = cli("report", "--db", str(world_db), "--episodes", env={"COLUMNS": "100"}).stdout
    rows = [line for line in text.splitlines() if line.startswith("│ ") and re.match(r"│ \S+-\d{3} ", line)]
    assert len(rows) == len(data["episodes"])
    for e in data["episodes"]:
        pattern = rf"│ {re.escape(e['task_id'])}\s+│ {e['version']}\s+│\s+{e['attempt']} │ {e['outcome']}\s"
        assert any(re.match(pattern, r) for r in rows), e
    failed = {c for e in data["episodes"] for c in e["failure_codes"]}
    assert failed and all(c in text for c in failed)
    assert "mcptrials explain CODE" in text


@pytest.mark.slow
def test_tasks_list_ids_with_category_and_chain_length() -> None:
    rows = json.loads(cli("tasks", "list", "--ids", "--format", "json").stdout)
    tasks = {t.id: t for t in mcptrials.load_tasks()}
    assert [r["id"] for r in rows] == list(tasks)
    for r in rows:
        assert (r["category"], r["chain_length"], r["steps"]) == (
            tasks[r["id"]].category, tasks[r["id"]].chain_length, len(tasks[r["id"]].reference))
    text = cli("tasks", "list", "--ids", env={"COLUMNS": "80"}).stdout
    for task_id in tasks:  # every id whole on one line, even at 80 columns
        assert re.search(rf"│ {re.escape(task_id)}\s+│", text), task_id


@pytest.mark.slow
def test_servers_tools_out_feeds_diff_with_its_exit_codes(tmp_path: Path) -> None:
    lineage = tmp_path / "units-lineage"
    cli("evolve", "--server", "units", "--rounds", "2", "--out", str(lineage))
    v0, v2 = tmp_path / "v0.json", tmp_path / "v2.json"
    cli("servers", "tools", "units", "--out", str(v0))
    cli("servers", "tools", "units", "--stage", "v2", "--lineages", str(lineage), "--out", str(v2))
    assert json.loads(v2.read_text())["tools"] == json.loads((lineage / "v2" / "tools.json").read_text())["tools"]
    assert cli("diff", str(v0), str(v0)).returncode == 0
    changed = cli("diff", str(v0), str(v2), check=False, env={"COLUMNS": "80"})
    assert changed.returncode == 1
    for name in {t["name"] for t in json.loads(v2.read_text())["tools"]} & set(changed.stdout.split()):
        assert not re.search(rf"{name[:-2]}\s*│\s*\n", changed.stdout)  # never folded across lines
    lines = changed.stdout.splitlines()
    tool_cells = [line.split("│")[1].strip() for line in lines if line.startswith("│ ")]
    known = {t["name"] for t in json.loads(v0.read_text())["tools"]}
    assert all(cell in known for cell in tool_cells if cell), tool_cells
    (tmp_path / "bad.json").write_text("{")
    bad = cli("diff", str(v0), str(tmp_path / "bad.json"), check=False)
    assert bad.returncode == 2 and "invalid JSON" in bad.stderr
    assert cli("servers", "tools", "nosuch", check=False).returncode == 2


@pytest.mark.slow
def test_evolve_out_is_accepted_by_lineages_and_a_mismatch_is_an_error(tmp_path: Path) -> None:
    lineage = tmp_path / "units-lineage"
    cli("evolve", "--server", "units", "--rounds", "2", "--out", str(lineage))
    checked = cli("tasks", "check", "--stages", "v0,v2", "--lineages", str(lineage), "--task", "unit-001")
    assert "v2: reference plans passing their own spec: 1/1" in checked.stdout
    db = tmp_path / "r.db"
    cli("run", "--agent", "reference", "--stages", "v0,v2", "--lineages", str(lineage), "--task", "unit-001",
        "--db", str(db))
    from mcptrials.store.db import Store

    offered = {e.version: {n.split("__", 1)[1] for n in e.offered_tools} for e in Store(db).episodes()}
    for version in ("v0", "v2"):
        listed = {t["name"] for t in json.loads((lineage / version / "tools.json").read_text())["tools"]}
        assert offered[version] == listed, version
    mismatch = cli("run", "--agent", "reference", "--stages", "v0,v1", "--lineages", str(lineage), "--task",
                   "fin-001", "--db", str(db), check=False)
    assert mismatch.returncode == 2 and "no lineage for finance" in mismatch.stderr
    assert "Traceback" not in mismatch.stderr
    (tmp_path / "empty").mkdir()
    empty = cli("tasks", "check", "--stages", "v0,v1", "--lineages", str(tmp_path / "empty"), "--task", "unit-001",
                check=False)
    assert empty.returncode == 2 and "no lineage for units" in empty.stderr


@pytest.mark.slow
def test_progress_bar_shows_turn_tool_call_and_eta(tmp_path: Path) -> None:
    """A live terminal (rich forced interactive): frames name the running episode's turn and tool call."""
    from mcptrials.bundled.world import bundled_tasks

    task = next(t for t in bundled_tasks() if t.id == "unit-001")
    step = task.reference[0]

    def slow(request: dict) -> Reply:
        turns = sum(1 for m in request["messages"] if m["role"] == "assistant")
        reply = completion(tool_calls=[(step.tool, step.args)]) if turns == 0 else completion("42.16 km")
        reply.delay = 1.5
        return reply

    with FakeOpenAI(responder=slow) as fake:
        env = {**os.environ, "OPENAI_API_KEY": "k", "COLUMNS": "220", "TTY_COMPATIBLE": "1",
               "TTY_INTERACTIVE": "1", "FORCE_COLOR": "1"}
        proc = subprocess.Popen([sys.executable, "-m", "mcptrials.cli", "run", "--model", "openai:fake",
                                 "--base-url", fake.base_url, "--task", "unit-001", "--db", str(tmp_path / "p.db")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        assert proc.stderr is not None
        frames = b""
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if select.select([proc.stderr], [], [], 0.2)[0]:
                frames += os.read(proc.stderr.fileno(), 65536)
        frames += proc.stderr.read()
        proc.wait(timeout=30)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", frames.decode(errors="replace"))
    assert proc.returncode == 0, text[-2000:]
    assert "ETA" in text
    assert "unit-001#0 turn 0, 0 call(s): servers starting or first model turn" in text
    assert "unit-001#0 turn 1, 1 call(s): model reads units__convert" in text  # the model is slow: seen
