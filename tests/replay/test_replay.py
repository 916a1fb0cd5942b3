"""Replay of recorded worlds: a real server recorded, then replayed with its binary gone."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import sys
from pathlib import Path

import anyio
import pytest
from typer.testing import CliRunner

from mcptrials.agents.reference import ReferenceAgent
from mcptrials.bundled.world import bundled_servers
from mcptrials.cli import app
from mcptrials.model import Task
from mcptrials.replay.recording import load_recording
from mcptrials.replay.serve import Replay
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store

pytestmark = pytest.mark.skipif(importlib.util.find_spec("mcp_server_time") is None,
                                reason="mcp-server-time is a dev dependency")

TIME = {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}


def _task(task_id: str, steps: list[tuple[str, dict]], contains: list[str] | None = None) -> dict:
    checkpoints: list[dict] = [{"id": "used", "kind": "tool_effect", "tools": ["time__convert_time"]}]
    if contains:
        checkpoints.append({"id": "value", "kind": "value_produced", "source": "tool_result", "contains": contains})
    return {"id": task_id, "prompt": "Convert the times.", "servers": ["time"], "spec": {"checkpoints": checkpoints},
            "reference": [{"tool": tool, "args": args} for tool, args in steps], "reference_answer": "done"}


LONDON_TOKYO = {"source_timezone": "Europe/London", "time": "09:30", "target_timezone": "Asia/Tokyo"}
NY_PARIS = {"source_timezone": "America/New_York", "time": "14:00", "target_timezone": "Europe/Paris"}
NY_SYDNEY = {"source_timezone": "America/New_York", "time": "14:00", "target_timezone": "Australia/Sydney"}


def _write(path: Path, tasks: list[dict]) -> Path:
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    return path


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One recorded run, shared by the module's tests (they replay it into their own stores, never into it)."""
    tmp_path = tmp_path_factory.mktemp("recorded")
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"time": TIME}}))
    absent = tmp_path / "absent.json"
    absent.write_text(json.dumps({"mcpServers": {"time": {"command": str(tmp_path / "no-such-mcp-server-time")}}}))
    tasks = _write(tmp_path / "tasks.jsonl", [
        _task("t-tokyo", [("time__convert_time", LONDON_TOKYO)], ["18:30"]),
        _task("t-two", [("time__convert_time", NY_PARIS), ("time__convert_time", NY_SYDNEY)]),
        _task("t-wrong", [("time__convert_time", LONDON_TOKYO)], ["07:45"]),  # a failing verdict must replay too
    ])
    db = tmp_path / "rec.db"
    result = CliRunner().invoke(app, ["run", "--servers", str(servers), "--tasks", str(tasks), "--agent", "reference",
                                      "--attempts", "2", "--db", str(db)])
    assert result.exit_code == 0, result.output
    return {"servers": servers, "absent": absent, "tasks": tasks, "db": db, "dir": tmp_path}


def _episodes(db: Path) -> dict[tuple[str, int], object]:
    return {(e.task_id, e.attempt): e for e in Store(db).episodes()}


def test_recording_is_keyed_to_the_server_it_came_from(recorded: dict[str, Path]) -> None:
    for episode in _episodes(recorded["db"]).values():
        identity = episode.servers["time"]  # type: ignore[attr-defined]
        assert identity.name == "mcp-time" and identity.version and identity.tools_hash
        assert identity.replay_of is None


def test_replay_without_the_server_is_byte_identical_with_the_same_verdicts(recorded: dict[str, Path]) -> None:
    out = recorded["dir"] / "replay-identical.db"
    result = CliRunner().invoke(app, ["run", "--replay", str(recorded["db"]), "--servers", str(recorded["absent"]),
                                      "--agent", "reference", "--attempts", "2", "--db", str(out)])
    assert result.exit_code == 0, result.output
    before, after = _episodes(recorded["db"]), _episodes(out)
    assert set(before) == set(after) and len(after) == 6
    scores_before, scores_after = Store(recorded["db"]).scores(), Store(out).scores()
    for key, old in before.items():
        new = after[key]
        assert new.infra_error is None  # type: ignore[attr-defined]
        old_calls, new_calls = old.tool_calls, new.tool_calls  # type: ignore[attr-defined]
        assert len(old_calls) == len(new_calls) > 0
        for a, b in zip(old_calls, new_calls, strict=True):
            assert (b.content, b.structured_content, b.is_error) == (a.content, a.structured_content, a.is_error)
            assert b.replay == "exact"
        assert scores_after[new.id]["effects"].passed == scores_before[old.id]["effects"].passed  # type: ignore
        assert new.servers["time"].replay_of and new.servers["time"].tools_hash == old.servers["time"].tools_hash
    assert {k: scores_after[e.id]["effects"].passed for k, e in after.items()}[("t-wrong", 0)] is False  # type: ignore
    runs = Store(out).runs()
    assert runs[-1]["config"]["replay"]["on_miss"] == "error"
    report = CliRunner().invoke(app, ["report", "--db", str(out), "--format", "json"])
    data = json.loads(report.output)
    assert data["replayed_runs"][0]["calls"] == {"exact": 8}
    assert all(row["agent"] == "reference (replay)" for row in data["summary"])


def test_replay_needs_no_config_the_recorded_run_names_its_servers(recorded: dict[str, Path]) -> None:
    out = recorded["dir"] / "no-config.db"
    result = CliRunner().invoke(app, ["run", "--replay", str(recorded["db"]), "--agent", "reference",
                                      "--task", "t-two", "--db", str(out)])
    assert result.exit_code == 0, result.output
    (episode,) = Store(out).episodes()
    assert [c.replay for c in episode.tool_calls] == ["exact", "exact"] and episode.infra_error is None


def test_a_call_never_seen_is_a_replay_miss_or_goes_live(recorded: dict[str, Path]) -> None:
    sydney_first = {**LONDON_TOKYO, "target_timezone": "Australia/Sydney"}  # never recorded
    changed = _write(recorded["dir"] / "changed.jsonl", [
        _task("t-tokyo", [("time__convert_time", sydney_first), ("time__convert_time", LONDON_TOKYO)], ["18:30"])])
    out = recorded["dir"] / "miss.db"
    result = CliRunner().invoke(app, ["run", "--replay", str(recorded["db"]), "--servers", str(recorded["absent"]),
                                      "--tasks", str(changed), "--agent", "reference", "--db", str(out)])
    assert result.exit_code == 0, result.output
    (episode,) = Store(out).episodes()
    miss, hit = episode.tool_calls
    assert miss.error_kind == "replay_miss" and miss.is_error and "replay miss" in miss.content
    assert hit.replay == "exact" and not hit.is_error
    assert episode.infra_error is None and episode.termination == "done"  # the agent's doing, not infra

    live = recorded["dir"] / "live.db"
    result = CliRunner().invoke(app, ["run", "--replay", str(recorded["db"]), "--servers", str(recorded["servers"]),
                                      "--tasks", str(changed), "--agent", "reference", "--on-miss", "live",
                                      "--db", str(live)])
    assert result.exit_code == 0, result.output
    (episode,) = Store(live).episodes()
    went_live, hit = episode.tool_calls
    assert went_live.replay == "live" and not went_live.is_error and "Australia/Sydney" in went_live.content
    assert hit.replay == "exact"
    assert Store(live).runs()[-1]["config"]["replay"]["on_miss"] == "live"


def test_a_live_answer_joins_the_recording(recorded: dict[str, Path]) -> None:
    """Replaying into the recording's own store: the next replay answers the once-missing call from it."""
    own = recorded["dir"] / "own.db"
    with sqlite3.connect(recorded["db"]) as source, sqlite3.connect(own) as copy:
        source.backup(copy)
    sydney_first = {**LONDON_TOKYO, "target_timezone": "Australia/Sydney"}
    changed = _write(recorded["dir"] / "changed-own.jsonl", [
        _task("t-tokyo", [("time__convert_time", sydney_first), ("time__convert_time", LONDON_TOKYO)], ["18:30"])])
    base = ["run", "--replay", str(own), "--tasks", str(changed), "--agent", "reference", "--db", str(own)]
    assert CliRunner().invoke(app, [*base, "--servers", str(recorded["servers"]), "--on-miss", "live"]).exit_code == 0
    result = CliRunner().invoke(app, [*base, "--servers", str(recorded["absent"])])
    assert result.exit_code == 0, result.output
    last = Store(own).runs()[-1]["id"]
    (episode,) = Store(own).episodes(last)
    assert [c.replay for c in episode.tool_calls] == ["exact", "exact"]
    assert "Australia/Sydney" in episode.tool_calls[0].content


def test_normalised_arguments_match_a_recorded_call(tmp_path: Path) -> None:
    """Numbers as strings and enum values in another case reach the server as the recorded call did."""
    specs = {"units": bundled_servers()["units"]}
    task = Task.model_validate({
        "id": "u-1", "prompt": "26.2 miles in km?", "servers": ["units"],
        "spec": {"checkpoints": [{"id": "v", "kind": "value_produced", "source": "tool_result",
                                  "contains": ["42.1648"]}]},
        "reference": [{"tool": "units__convert",
                       "args": {"value": 26.2, "from_unit": "mi", "to_unit": "km", "category": "length"}}]})
    store = Store(tmp_path / "rec.db")
    anyio.run(execute, RunPlan(servers=specs, tasks=[task], agent=ReferenceAgent(), model=None), store)
    recording, _ = load_recording(str(tmp_path / "rec.db"), str(tmp_path / "rec.db"))
    spelled = task.model_copy(update={"reference": [task.reference[0].model_copy(update={"args": {
        "category": "LENGTH", "to_unit": "km", "value": "26.2", "from_unit": "mi"}})]})
    out = Store(tmp_path / "out.db")
    plan = RunPlan(servers=specs, tasks=[spelled], agent=ReferenceAgent(), model=None, replay=Replay(recording))
    anyio.run(execute, plan, out)
    (episode,) = out.episodes()
    (original,) = store.episodes()
    call = episode.tool_calls[0]
    assert call.replay == "normalised" and call.content == original.tool_calls[0].content


@pytest.mark.parametrize("args, message", [
    (["--replay", "{dir}/tasks.jsonl"], "not a result store"),
    (["--replay", "no-such-run", "--db", "{dir}/rec.db"], "no run 'no-such-run'"),
    (["--replay", "{dir}/rec.db", "--on-miss", "sometimes"], "unknown --on-miss"),
    (["--replay", "{dir}/nothing.db"], "no such file"),
    (["--replay", "{dir}/rec.db", "--stages", "v4"], "no episodes on v4"),
])
def test_bad_replay_input_is_one_line_exit_2(recorded: dict[str, Path], args: list[str], message: str) -> None:
    filled = [a.format(dir=recorded["dir"]) for a in args]
    if "--db" not in filled:
        filled += ["--db", str(recorded["dir"] / "unused.db")]
    result = CliRunner().invoke(app, ["run", *filled, "--agent", "reference", "--servers", str(recorded["absent"])])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
