"""import mcp-bench on files written here in MCP-Bench's format; the offline task run on a real stdio server."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

from report_world import cli

sys.path.insert(0, str(Path(__file__).parents[1] / "judges"))
from judge_endpoint import JudgeEndpoint

from mcptrials.servers.config import load_servers
from mcptrials.tasks.loader import load_tasks

FIXTURES = Path(__file__).parent / "fixtures"


def _import(fmt: str, out: Path, *extra: str) -> dict:
    done = cli("import", fmt, str(FIXTURES / fmt), "--out", str(out), "--format", "json", *extra)
    return json.loads(done.stdout)


def test_mcp_bench_tasks_servers_and_table(tmp_path: Path) -> None:
    table = _import("mcp-bench", tmp_path)
    assert table["counts"]["task"] == {"mapped": 2, "partial": 0, "dropped": 0}
    rows = {(r["kind"], r["name"]): r for r in table["rows"]}
    assert rows[("server", "Weather Service")]["needs"] == "api key: WEATHER_API_KEY, network"
    assert rows[("server", "Time MCP")]["needs"] == ""
    tiles = rows[("server", "Map Tiles")]
    assert tiles["status"] == "partial" and "start it yourself" in tiles["reason"]
    assert rows[("distractors", "clock_check_000")]["status"] == "dropped"
    tasks = {t.id: t for t in load_tasks(tmp_path / "tasks.jsonl")}
    clock = tasks["clock_check_000"]
    assert clock.spec.judges == ["rubric"] and clock.spec.checkpoints == []
    assert clock.prompt.startswith("What time is it in Paris")
    assert [(c.tool, c.args) for c in clock.reference] == [
        ("time-mcp__get_current_time", {"timezone": "Europe/Paris"}),
        ("time-mcp__convert_time",
         {"source_timezone": "Europe/Paris", "time": "10:00", "target_timezone": "Asia/Tokyo"})]
    assert ("time-mcp__get_current_time", "time-mcp__convert_time") in clock.dependencies
    rain = tasks["rain_window_000"]
    assert ("weather-service__get_forecast", "weather-service__get_alerts") in rain.dependencies
    assert [c.tool for c in rain.reference] == ["weather-service__get_forecast", "time-mcp__get_current_time"]
    specs = load_servers(tmp_path / "servers.json", environ={})  # loads with no key set
    assert specs["weather-service"].env == {"WEATHER_API_KEY": ""} and specs["map-tiles"].transport == "http"
    offline = [t.id for t in load_tasks(tmp_path / "tasks.offline.jsonl")]
    assert offline == ["clock_check_000"]


def test_mcp_bench_offline_task_runs_on_its_keyless_server(tmp_path: Path) -> None:
    """The imported offline task, played by the scripted model on MCP-Bench's Time MCP (a real stdio server):
    every call succeeds and keeps the dependency the analysis names."""
    out = tmp_path / "out"
    _import("mcp-bench", out)
    db = tmp_path / "r.db"
    cli("run", "--servers", str(out / "servers.json"), "--tasks", str(out / "tasks.offline.jsonl"),
        "--model", "scripted:reference", "--db", str(db))
    with sqlite3.connect(db) as conn:
        (data,) = conn.execute("SELECT data FROM scores WHERE scorer = 'rules'").fetchone()
    values = json.loads(data)["values"]
    assert values["execution_success_rate"] == 1.0
    assert values["dependency_compliance_rate"] == 1.0
    report = json.loads(cli("report", "--db", str(db), "--format", "json").stdout)
    effort = report["papers"]["effort"][0]
    assert effort["avg_tool_calls"] == 2.0 and effort["tool_hallucination_rate"] == 0.0


def test_mcp_bench_rubric_judges_with_the_hidden_analysis(tmp_path: Path) -> None:
    """The rubric judge scores the imported task with its concrete description and dependency analysis (which
    the agent never saw); its overall score is the mean of its axes."""
    out = tmp_path / "out"
    _import("mcp-bench", out)
    db = tmp_path / "r.db"
    cli("run", "--servers", str(out / "servers.json"), "--tasks", str(out / "tasks.offline.jsonl"),
        "--model", "scripted:reference", "--db", str(db))
    with JudgeEndpoint() as judge:
        cli("score", "--db", str(db), "--judge", "openai:gpt-4o-mini", "--judge-base-url", judge.base_url,
            "--judges", "rubric", "--rubric-repeats", "2")
        prompts = [json.dumps(r["messages"]) for r in judge.requests]
    assert len(prompts) == 2 and all("get_current_time \\u2192 convert_time" in p for p in prompts)
    episode = json.loads(cli("report", "--db", str(db), "--format", "json").stdout)["episodes"][0]
    rubric = episode["judges"]["rubric"]
    assert rubric["value"] == 0.7 and rubric["repeats"] == 2
