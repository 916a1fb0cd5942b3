"""What a server asks of the client during a call (its roots, a sampled reply, an elicitation) is shown by
`mcptrials show` and carried into the inspect export, from a real run of a server that asks all three."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, completion
from report_world import cli

ASKING = Path(__file__).parents[1] / "support" / "asking_server.py"


@pytest.fixture(scope="module")
def asked_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("asked")
    (folder / "servers.json").write_text(json.dumps({"mcpServers": {
        "asking": {"command": sys.executable, "args": [str(ASKING)]}}}))
    (folder / "tasks.jsonl").write_text(json.dumps({
        "id": "trip-asks", "prompt": "Plan my trip.", "servers": ["asking"],
        "elicitation": [{"match": "city", "action": "accept", "content": {"city": "Lyon"}}],
        "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": ["asking__plan_trip"]}]},
        "reference": [{"tool": "asking__plan_trip", "args": {}}]}) + "\n")
    db = folder / "r.db"
    with FakeOpenAI() as sampler:
        sampler.queue(completion("Go far, travel light."))
        cli("run", "--servers", str(folder / "servers.json"), "--tasks", str(folder / "tasks.jsonl"), "--agent",
            "reference", "--sampling-model", "openai:fake-sampler", "--base-url", sampler.base_url, "--db", str(db),
            env={"OPENAI_API_KEY": "test-key"})
    return db


def _episode(db: Path) -> dict:
    with sqlite3.connect(db) as conn:
        return json.loads(conn.execute("select data from episodes").fetchone()[0])


def test_show_prints_each_server_request_of_a_call(asked_db: Path) -> None:
    episode = _episode(asked_db)
    [call] = episode["steps"]
    assert call["content"] == "1 root(s); motto 'Go far, travel light.'; city accept: city='Lyon'"
    text = cli("show", episode["id"], "--db", str(asked_db), env={"COLUMNS": "250"}).stdout
    root = call["events"][0]["roots"][0]
    assert f"server roots asked: {root}" in text
    assert ("server sampling (openai:fake-sampler): asked 'A travel motto, please.' → replied 'Go far, travel "
            "light.'") in text
    assert "server elicitation 'Which city should the trip go to?' → accept {\"city\": \"Lyon\"}" in text


def test_inspect_export_carries_the_server_requests(asked_db: Path, tmp_path: Path) -> None:
    pytest.importorskip("inspect_ai", reason="the inspect export needs the [inspect] extra")
    from inspect_ai.log import read_eval_log

    episode = _episode(asked_db)
    cli("export", "--format", "inspect", "--out", str(tmp_path), "--db", str(asked_db))
    [path] = tmp_path.glob("*.eval")
    [sample] = read_eval_log(str(path)).samples or []
    [info] = [e for e in sample.events if e.event == "info"]
    assert info.source == "mcp:asking"
    assert info.data["lines"] == [  # type: ignore[index,call-overload]
        f"roots asked: {episode['steps'][0]['events'][0]['roots'][0]}",
        "sampling (openai:fake-sampler): asked 'A travel motto, please.' → replied 'Go far, travel light.'",
        "elicitation 'Which city should the trip go to?' → accept {\"city\": \"Lyon\"}"]
    [tool] = [m for m in sample.messages if m.role == "tool"]
    assert [e["kind"] for e in (tool.metadata or {})["mcp_events"]] == ["roots", "sampling", "elicitation"]
