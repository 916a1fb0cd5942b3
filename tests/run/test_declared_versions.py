"""Two releases of one server run into one store are two versions (k=1 each) in the report, ECS and the viewer.

The releases are real MCP servers over stdio (``release_server.py 1.0`` and ``2.0``, which renames a tool), run
by the real ``mcptrials`` command with the reference agent; the viewer is asked over HTTP through its app.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from mcptrials.model import PlannedCall, Task, TaskSpec, ValueCheckpoint
from mcptrials.store.db import Store
from mcptrials.view.app import create_app, open_store

MCPTRIALS = str(Path(sys.executable).parent / "mcptrials")
SERVER = str(Path(__file__).with_name("release_server.py"))


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MCPTRIALS, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "200"})


def release(label: str) -> dict[str, list[str]]:
    return {"args": [SERVER, label]}


def write_world(folder: Path, entry: dict) -> tuple[Path, Path]:
    """A servers config with the server ``demo`` as ``entry`` says, and two tasks on it (one uses the renamed tool)."""
    config = folder / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"demo": {"command": sys.executable, **entry}}}))
    tasks = folder / "tasks.jsonl"
    add = Task(id="t-add", prompt="What is 2 + 3?", servers=["demo"],
               spec=TaskSpec(checkpoints=[ValueCheckpoint(id="sum", contains=["5"])]),
               reference=[PlannedCall(tool="demo__add", args={"a": 2, "b": 3})])
    shout = Task(id="t-shout", prompt="Say 'quiet' in capitals.", servers=["demo"],
                 spec=TaskSpec(checkpoints=[ValueCheckpoint(id="caps", contains=["QUIET"])]),
                 reference=[PlannedCall(tool="demo__shout", args={"text": "quiet"})])
    tasks.write_text(add.model_dump_json() + "\n" + shout.model_dump_json() + "\n")
    return config, tasks


def run(config: Path, tasks: Path, db: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return cli("run", "--agent", "reference", "--servers", str(config), "--tasks", str(tasks), "--db", str(db),
               "--concurrency", "2", *extra)


def assert_two_versions(db: Path) -> None:
    """report --format json, ECS (the evolution section) and the viewer's matrix show 1.0 and 2.0 apart."""
    report = cli("report", "--db", str(db), "--format", "json")
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    per_version = {row["version"]: row for row in data["per_version"]}
    assert sorted(per_version) == ["1.0", "2.0"]
    assert all(row["k"] == 1 and row["n_tasks"] == 2 and row["episodes"] == 2 for row in per_version.values())
    assert per_version["1.0"]["pass_hat_k"] == 1.0 and per_version["2.0"]["pass_hat_k"] == 0.5
    assert data["summary"][0]["k"] == 1 and data["summary"][0]["n_tasks"] == 4  # 2 tasks x 2 versions, not 2 x k=2
    evolution = data["evolution"][0]
    assert evolution["versions"] == ["1.0", "2.0"] and evolution["stage_means"] == {"1.0": 1.0, "2.0": 0.5}
    assert evolution["ecs_tasks"] == 2
    assert evolution["ecs"] == pytest.approx((1.0 + 0.5 - statistics.stdev([1.0, 0.0])) / 2)
    assert evolution["broken_tasks"] == [{"task_id": "t-shout", "from": "1.0", "to": "2.0", "operators": []}]
    table = cli("report", "--db", str(db))
    assert table.returncode == 0 and "1.0" in table.stdout and "2.0" in table.stdout
    html = cli("report", "--db", str(db), "--format", "html", "-o", str(db.with_suffix(".html")))
    assert html.returncode == 0, html.stderr
    page = db.with_suffix(".html").read_text()
    assert "<td>1.0, 2.0</td>" in page and "t-shout: 1.0 → 2.0" in page
    with TestClient(create_app(*open_store(str(db))), base_url="http://127.0.0.1") as client:
        page = client.get("/matrix")
        assert page.status_code == 200
        assert 'data-col="none|reference|1.0"' in page.text and 'data-col="none|reference|2.0"' in page.text
        assert 'data-task="t-shout" data-col="none|reference|2.0" data-passed="0" data-failed="1"' in page.text
        assert 'data-task="t-shout" data-col="none|reference|1.0" data-passed="1" data-failed="0"' in page.text


@pytest.mark.slow
def test_two_releases_declared_in_one_config_are_two_versions(tmp_path: Path) -> None:
    config, tasks = write_world(tmp_path, {"versions": {"1.0": release("1.0"), "2.0": release("2.0")}})
    db = tmp_path / "store.db"
    done = run(config, tasks, db)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr  # each release says at initialize that it is its label
    store = Store(db)
    try:
        episodes = list(store.episodes())
        runs = store.runs()
    finally:
        store.close()
    assert sorted((e.task_id, e.version, e.attempt) for e in episodes) == [
        ("t-add", "1.0", 0), ("t-add", "2.0", 0), ("t-shout", "1.0", 0), ("t-shout", "2.0", 0)]
    assert {(e.version, e.servers["demo"].version) for e in episodes} == {("1.0", "1.0"), ("2.0", "2.0")}
    assert sorted(r["config"]["version"] for r in runs) == ["1.0", "2.0"]
    assert_two_versions(db)
    # picking one version runs only it: everything is stored already, nothing runs again
    again = run(config, tasks, db, "--versions", "1.0")
    assert again.returncode == 0 and "2 already stored" in again.stderr, again.stderr


@pytest.mark.slow
def test_two_builds_labelled_by_version_key_in_two_runs_are_two_versions(tmp_path: Path) -> None:
    """The old behaviour: both builds were v0, pooled into one pass^k with k=2."""
    db = tmp_path / "store.db"
    for label in ("1.0", "2.0"):
        folder = tmp_path / label
        folder.mkdir()
        config, tasks = write_world(folder, {"version": label, **release(label)})
        done = run(config, tasks, db)
        assert done.returncode == 0, done.stderr
    assert_two_versions(db)


@pytest.mark.slow
def test_a_label_its_server_contradicts_is_said_and_recorded_with_the_run(tmp_path: Path) -> None:
    config, tasks = write_world(tmp_path, {"versions": {"2.0": release("2.0"), "2.1": release("2.0")}})
    db = tmp_path / "store.db"
    done = run(config, tasks, db, "--task", "t-add")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(lines) == 2, done.stderr
    assert "server 'demo' version '2.1' reports itself as release-demo 2.0 (tools " in lines[0]
    assert "server 'demo' versions '2.0' and '2.1' look like one build" in lines[1]
    store = Store(db)
    try:
        recorded = {r["config"]["version"]: r["config"].get("warnings", []) for r in store.runs()}
    finally:
        store.close()
    assert len(recorded["2.0"]) == 1 and "look like one build" in recorded["2.0"][0]
    assert len(recorded["2.1"]) == 2


def test_an_unknown_label_in_versions_is_one_line_and_exit_2(tmp_path: Path) -> None:
    config, tasks = write_world(tmp_path, {"versions": {"1.0": release("1.0"), "2.0": release("2.0")}})
    done = run(config, tasks, tmp_path / "store.db", "--versions", "1.0,3.0")
    assert done.returncode == 2
    assert done.stderr.strip() == "error: --versions: no server declares version '3.0' (declared: 1.0, 2.0)"
    assert not (tmp_path / "store.db").exists()
    both = run(config, tasks, tmp_path / "store.db", "--versions", "1.0", "--stages", "v0,v1")
    assert both.returncode == 2 and both.stderr.startswith("error: give --versions or --stages, not both")


def test_the_api_runs_declared_versions_and_warns_about_a_contradicted_label(tmp_path: Path) -> None:
    import mcptrials

    config, tasks = write_world(tmp_path, {"versions": {"1.0": release("1.0"), "1.1": release("1.0")}})
    with pytest.warns(UserWarning) as caught:
        results = mcptrials.run_tasks(mcptrials.load_tasks(tasks)[:1], mcptrials.load_servers(config),
                                      agent="reference", versions="1.0,1.1", db=tmp_path / "api.db")
    said = [str(w.message) for w in caught]
    assert len(said) == 2 and said[0].startswith("server 'demo' version '1.1' reports itself as release-demo 1.0")
    assert said[1].startswith("server 'demo' versions '1.0' and '1.1' look like one build")
    assert [r.completed for r in results] == [1, 1]
    versions = sorted(e.version for e in mcptrials.read_episodes(tmp_path / "api.db"))
    assert versions == ["1.0", "1.1"]
    with pytest.raises(ValueError, match=r"no server declares version 'v3'.*lineage stages go to --stages"):
        mcptrials.run_tasks(mcptrials.load_tasks(tasks), mcptrials.load_servers(config), agent="reference",
                            versions="v3", db=tmp_path / "api.db")


@pytest.mark.slow
def test_a_checkpoint_on_a_tool_one_release_dropped_is_said_not_fatal(tmp_path: Path) -> None:
    from mcptrials.model import ToolEffectCheckpoint

    config, _ = write_world(tmp_path, {"versions": {"1.0": release("1.0"), "2.0": release("2.0")}})
    tasks = tmp_path / "effect.jsonl"
    tasks.write_text(Task(id="t-shouted", prompt="Shout 'quiet'.", servers=["demo"],
                          spec=TaskSpec(checkpoints=[ToolEffectCheckpoint(id="shouted", tools=["demo__shout"])]),
                          reference=[PlannedCall(tool="demo__shout", args={"text": "quiet"})]).model_dump_json() + "\n")
    done = run(config, tasks, tmp_path / "store.db")
    assert done.returncode == 0, done.stderr
    assert "warning: task 't-shouted': checkpoint 'shouted': member 'demo__shout' is not offered on 2.0 only: its " \
           "episodes there cannot pass" in done.stderr
    # on the new release alone, nothing offers the checkpoint's tool: the usual lint stops the run
    alone = run(config, tasks, tmp_path / "other.db", "--versions", "2.0")
    assert alone.returncode == 2 and "spec lint: task 't-shouted'" in alone.stderr


def test_servers_tools_lists_one_declared_version(tmp_path: Path) -> None:
    config, _ = write_world(tmp_path, {"versions": {"1.0": release("1.0"), "2.0": release("2.0")}})
    listed = {label: cli("servers", "tools", "demo", "--servers", str(config), "--version", label)
              for label in ("1.0", "2.0")}
    assert all(done.returncode == 0 for done in listed.values()), listed
    assert "shout" in listed["1.0"].stdout and "yell" not in listed["1.0"].stdout
    assert "yell" in listed["2.0"].stdout and "shout" not in listed["2.0"].stdout
    unknown = cli("servers", "tools", "demo", "--servers", str(config), "--version", "9")
    assert unknown.returncode == 2 and "no server declares version '9' (declared: 1.0, 2.0)" in unknown.stderr
