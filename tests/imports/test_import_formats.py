"""import livemcpbench, dynamicmcpbench and mcpevol on files written here in each published format."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

from report_world import cli

sys.path.insert(0, str(Path(__file__).parents[1] / "judges"))
from judge_endpoint import JudgeEndpoint

from mcptrials.evolve.versions import Lineages
from mcptrials.model import StateCheckpoint, ToolEffectCheckpoint, ValueCheckpoint
from mcptrials.servers.config import load_servers
from mcptrials.tasks.loader import load_tasks

FIXTURES = Path(__file__).parent / "fixtures"


def _import(fmt: str, out: Path, *extra: str) -> dict:
    return json.loads(cli("import", fmt, str(FIXTURES / fmt), "--out", str(out), "--format", "json", *extra).stdout)


def test_livemcpbench_key_points_fixtures_and_servers(tmp_path: Path) -> None:
    table = _import("livemcpbench", tmp_path)
    rows = {(r["kind"], r["name"]): r for r in table["rows"]}
    assert table["counts"]["task"] == {"mapped": 1, "partial": 1, "dropped": 1}
    assert "not_a_listed_tool" in rows[("task", "lmb-price-2")]["reason"]
    assert "imaginary_tool" in rows[("task", "lmb-lost-3")]["reason"]
    assert rows[("server", "@someone/crypto-price")]["needs"] == "network to install, network"
    tasks = {t.id: t for t in load_tasks(tmp_path / "tasks.jsonl")}
    note = tasks["lmb-note-1"]
    assert note.spec.judges == ["keypoints"] and note.servers == ["files"]
    assert note.key_points == ["Read the file /root/txt/notes.txt.", "Count its lines.", "Answer 3."]
    assert note.fixtures.path_map == {"/root/": "."}
    assert Path(note.fixtures.copy["txt"]).joinpath("notes.txt").read_text() == "alpha\nbeta\ngamma\n"
    assert tasks["lmb-price-2"].servers == ["someone-crypto-price"]
    assert set(load_servers(tmp_path / "servers.json")) == {"files", "someone-crypto-price"}


def test_dynamicmcpbench_spec_mapping(tmp_path: Path) -> None:
    table = _import("dynamicmcpbench", tmp_path)
    rows = {(r["kind"], r["name"]): r for r in table["rows"]}
    assert "state_condition" in rows[("task", "spec-add")]["reason"]
    assert "must_succeed false" in rows[("task", "spec-quote")]["reason"]
    assert rows[("trace", "trace-orphan")]["status"] == "dropped"
    unrecorded = rows[("trace", "trace-none")]  # spec-quote was distilled from a trace the file does not hold
    assert unrecorded["status"] == "dropped" and "spec-quote" in unrecorded["reason"]
    assert rows[("trace", "trace-add")]["status"] == "mapped"
    assert rows[("server", "quotes")]["needs"] == "network"
    task = {t.id: t for t in load_tasks(tmp_path / "tasks.jsonl")}["spec-add"]
    add, double, answer = task.spec.checkpoints
    assert isinstance(add, ToolEffectCheckpoint) and add.tools == ["calc__add"] and add.must_include == {"a": 2, "b": 3}
    assert isinstance(double, ToolEffectCheckpoint) and double.must_match["a"].regex == "^5"
    assert isinstance(answer, ValueCheckpoint) and answer.source == "final_message"
    assert answer.contains == [["10", "ten"]] and answer.regex == [r"\b10\b"]
    assert not any(isinstance(c, StateCheckpoint) for c in task.spec.checkpoints)
    assert task.spec.partial_order == [("add", "double")]  # the order naming the dropped probe is dropped too
    assert task.spec.minefields[0].tools == ["calc__reset"] and task.spec.grounding is False
    assert [c.tool for c in task.reference] == ["calc__add", "calc__mul"]
    assert task.provenance["dynamism"] == "static"


def test_dynamicmcpbench_traces_replayed(tmp_path: Path) -> None:
    """Their recorded trace becomes a stored episode (passing Tier-1); a run under --replay answers from it."""
    recorded = tmp_path / "recorded.db"
    _import("dynamicmcpbench", tmp_path / "out", "--store", str(recorded))
    stored = json.loads(cli("report", "--db", str(recorded), "--format", "json").stdout)
    assert [(s["model"], s["pass_at_1"]) for s in stored["summary"]] == [("recorded/explorer-model", 1.0)]
    replayed = tmp_path / "replayed.db"
    cli("run", "--replay", str(recorded), "--model", "scripted:reference", "--db", str(replayed))
    with sqlite3.connect(replayed) as conn:
        episodes = [json.loads(d) for (d,) in conn.execute("SELECT data FROM episodes")]
    calls = [s for s in episodes[0]["steps"] if s["kind"] == "tool"]
    assert [(c["name"], c["content"], c["replay"]) for c in calls] == [
        ("calc__add", "5", "exact"), ("calc__mul", "10", "exact")]
    report = json.loads(cli("report", "--db", str(replayed), "--format", "json").stdout)
    assert report["summary"][0]["pass_at_1"] == 1.0


def test_mcpevol_stages_and_lineages(tmp_path: Path) -> None:
    table = _import("mcpevol", tmp_path)
    rows = {(r["kind"], r["name"]): r for r in table["rows"]}
    assert table["counts"]["stage"]["mapped"] == 3
    assert rows[("mutation", "round 1 clock:now (TOOL)")]["status"] == "dropped"
    assert rows[("mutation", "round 2 @acme/notes:write_file (PARAM)")]["status"] == "partial"
    task = load_tasks(tmp_path / "tasks.jsonl")[0]
    assert task.id == "mcpevol-0" and task.spec.judges == ["keypoints"]
    assert [(c.tool, c.args) for c in task.reference] == [
        ("acme-notes__write_file", {"path": "hello.txt", "content": "hello"})]
    lineages = Lineages(tmp_path / "lineages")
    assert lineages.servers() == ["acme-notes"] and lineages.versions("acme-notes") == ["v0", "v1", "v2"]
    assert lineages.operators("acme-notes", "v2")
    stage = json.loads((tmp_path / "stages" / "iter3.json").read_text())["mcpServers"]["acme-notes"]
    assert stage["args"] == ["/path/to/iter3-servers/notes/index.js"]


def test_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    for args, message in (
        (["import", "nosuch", str(FIXTURES), "--out", str(tmp_path)], "unknown format 'nosuch'"),
        (["import", "mcp-bench", str(tmp_path / "absent"), "--out", str(tmp_path)], "no such file or folder"),
    ):
        done = cli(*args, check=False)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    broken = tmp_path / "broken"
    (broken / "tasks").mkdir(parents=True)
    (broken / "tasks" / "mcpbench_tasks_single_runner_format.json").write_text("{not json")
    done = cli("import", "mcp-bench", str(broken), "--out", str(tmp_path / "o"), check=False)
    assert done.returncode == 2 and "mcpbench_tasks_single_runner_format.json" in done.stderr
    assert "Traceback" not in done.stderr


def test_mcpevol_round_runs_as_a_server_version(tmp_path: Path) -> None:
    """The DESC record of round 1 becomes version v1 of the real notes server: the agent is offered the
    rewritten description there, the original one on v0, and the task is run and stored on both."""
    out = tmp_path / "out"
    _import("mcpevol", out)
    db = tmp_path / "r.db"
    cli("run", "--servers", str(out / "servers.json"), "--tasks", str(out / "tasks.jsonl"), "--stages", "v0,v1",
        "--lineages", str(out / "lineages"), "--model", "scripted:reference", "--db", str(db))
    with sqlite3.connect(db) as conn:
        versions = sorted(v for (v,) in conn.execute("SELECT version FROM episodes"))
        described = {json.loads(d)["description"] for (d,) in conn.execute("SELECT data FROM tools")
                     if json.loads(d)["name"] == "write_file"}
    assert versions == ["v0", "v1"]
    assert "Store text in a note file, replacing what it held" in described and len(described) == 2
    with JudgeEndpoint() as judge:  # task fulfilment on each version by the key-point judge, then ECS over them
        cli("score", "--db", str(db), "--judge", "openai:gpt-4o-mini", "--judge-base-url", judge.base_url,
            "--judges", "keypoints")
    report = json.loads(cli("report", "--db", str(db), "--format", "json", "--lineages", str(out / "lineages")).stdout)
    evolution = report["evolution"][0]
    assert evolution["versions"] == ["v0", "v1"] and evolution["ecs"] == 1.0 and evolution["ecs_tasks"] == 1


def test_mcpevol_task_fulfilment_by_the_key_point_judge(tmp_path: Path) -> None:
    """An imported MCPEvol task is judge-only: unjudged after the run, passed once the key-point judge says so."""
    out = tmp_path / "out"
    _import("mcpevol", out)
    db = tmp_path / "r.db"
    cli("run", "--servers", str(out / "servers.json"), "--tasks", str(out / "tasks.jsonl"),
        "--model", "scripted:reference", "--db", str(db))
    before = json.loads(cli("report", "--db", str(db), "--format", "json").stdout)["papers"]["server_scope"]
    assert [(r["unjudged"], r["pass_rate"]) for r in before] == [(1, None)]
    with JudgeEndpoint() as judge:
        cli("score", "--db", str(db), "--judge", "openai:gpt-4o-mini", "--judge-base-url", judge.base_url,
            "--judges", "keypoints")
        assert any("Uses write_file (acme-notes)" in json.dumps(r["messages"]) for r in judge.requests)
    report = json.loads(cli("report", "--db", str(db), "--format", "json").stdout)
    assert report["episodes"][0]["judges"]["keypoints"]["passed"] is True
    assert [(r["unjudged"], r["pass_rate"]) for r in report["papers"]["server_scope"]] == [(0, 1.0)]


def _evolution_checkout(root: Path, rounds: list[dict]) -> Path:
    """A small MCPEvol-Bench checkout written here: the notes server, no test case, one record per round."""
    config = root / "servers" / "1mcp_config" / "original" / "mcp.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"mcpServers": {"@acme/notes": {
        "command": sys.executable, "args": ["-m", "mcptrials.examples.notes_server"]}}}))
    cases = root / "src" / "custom" / "data" / "test_cases" / "test_cases.json"
    cases.parent.mkdir(parents=True)
    cases.write_text("[]")
    folder = root / "src" / "custom" / "data" / "mutation"
    for record in rounds:  # round K lives K folders deep, as theirs do
        folder = folder / "HYBRID"
        folder.mkdir(parents=True)
        (folder / "evolution.json").write_text(json.dumps(record))
    return root


def test_mcpevol_records_in_each_shape_their_rounds_use(tmp_path: Path) -> None:
    """Rewrites recorded as old/new text with a per-parameter action become plans the real notes server is served
    through; a parameter their source added and later removed never reaches a plan; a new tool (by config or by
    name) is one dropped row, its summaries none."""
    new_text = "Store text in a note, replacing whatever the note held before"
    src = _evolution_checkout(tmp_path / "src", [
        {"@acme/notes": {
            "write_file": {
                "evolution_summary": "narrowed the tool",
                "tool_description_change": {"old_description": "Write a file", "new_description": new_text,
                                            "reason": "clearer"},
                "parameter_changes": [
                    {"name": "content", "action": "modify", "description_old": "", "description_new": "The text"},
                    {"name": "mode", "action": "add", "description_old": "", "description_new": "how to write"}],
                "diff_hunks": [{"old_code": "a", "new_code": "b", "file_name": "notes.js"}]},
            "mutation_type": "PARAM", "task_idx": 0}},
        {"@acme/notes": {
            "write_file": {
                "evolution_summary": "dropped the mode again",
                "parameter_changes": [
                    {"name": "mode", "action": "remove", "description_old": "how to write", "description_new": ""},
                    {"name": "content", "action": "modify", "description_old": "The text",
                     "description_new": "The note's whole new text"}]},
            "mutation_type": "PARAM", "task_idx": 0}},
        {"@acme/notes": {
            "integration_summary": "adds a search tool", "diff_hunks": [{"old_code": "", "new_code": "c"}],
            "new_tool_config": {"name": "search_notes", "description": "Find notes", "input_schema": {}},
            "mutation_type": "TOOL", "task_idx": 1}},
        {"@acme/notes": {
            "addition_summary": "adds a tag tool", "new_tool_name": "tag_note",
            "auto_optimizations": [{"tool_name": "read_file", "reason": "r", "changes": "c"}],
            "diff_hunks": [], "mutation_type": "TOOL", "task_idx": 2}}])
    out = tmp_path / "out"
    table = json.loads(cli("import", "mcpevol", str(src), "--out", str(out), "--format", "json").stdout)
    rows = [(r["name"], r["status"], r["reason"]) for r in table["rows"] if r["kind"] == "mutation"]
    assert [(name, status) for name, status, _ in rows] == [
        ("round 1 @acme/notes:write_file (PARAM)", "partial"),
        ("round 2 @acme/notes:write_file (PARAM)", "partial"),
        ("round 3 @acme/notes:search_notes (TOOL)", "dropped"),
        ("round 4 @acme/notes:tag_note (TOOL)", "dropped")]
    assert "2 operations carried" in rows[0][2] and "mode" in rows[0][2]
    assert "remove_param mode left out" in rows[1][2] and "read_file" in rows[3][2]
    lineages = Lineages(out / "lineages")
    assert lineages.versions("acme-notes") == ["v0", "v1", "v2"]
    assert lineages.operators("acme-notes", "v2") == {"v1": ["O11"], "v2": ["O10"]}
    listed = tmp_path / "tools.json"
    cli("servers", "tools", "acme-notes", "--servers", str(out / "servers.json"), "--stage", "v2",
        "--lineages", str(out / "lineages"), "--out", str(listed))
    write = {t["name"]: t for t in json.loads(listed.read_text())["tools"]}["write_file"]
    assert write["description"] == new_text
    assert write["inputSchema"]["properties"]["content"]["description"] == "The note's whole new text"
    assert sorted(write["inputSchema"]["properties"]) == ["content", "path"]
