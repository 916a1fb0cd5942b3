"""Every stored field is capped: a huge tool result (text and structured) and a 3 MB completion are not stored whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, completion
from faults import nap_task, write_world
from typer.testing import CliRunner

from mcptrials.cli import app
from mcptrials.model import ModelTurn, ToolCallRecord
from mcptrials.safety.caps import SCORED_CAP
from mcptrials.store.db import Store

CAP = 2_000
MEGABYTES = 10


def _big_task(megabytes: float) -> dict[str, object]:
    task = nap_task("huge", 0.0)
    task["reference"] = [{"tool": "hostile__big", "args": {"megabytes": megabytes}}]
    task["spec"] = {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": ["hostile__big"]}]}
    return task


@pytest.mark.slow
def test_a_huge_result_is_stored_capped(tmp_path: Path, mark: str) -> None:
    """10 MB of text plus 10 MB of structured content (50 MB works too, in about a minute: see the README)."""
    tasks, servers = write_world(tmp_path, [_big_task(MEGABYTES)])
    db = tmp_path / "runs.db"
    result = CliRunner().invoke(app, ["run", "--model", "scripted:reference", "--tasks", str(tasks), "--servers",
                                      str(servers), "--db", str(db), "--output-cap", str(CAP),
                                      "--call-timeout", "300"])
    assert result.exit_code == 0, result.output
    (episode,) = list(Store(db).episodes())
    (call,) = [s for s in episode.steps if isinstance(s, ToolCallRecord)]
    assert not call.is_error, call.content
    assert call.result_bytes > MEGABYTES * 1_000_000 and call.truncated
    assert len(call.content.encode()) <= CAP + 100 and call.content.endswith("bytes]")
    marker = call.structured_content
    assert marker["_truncated"] is True and marker["bytes"] > MEGABYTES * 1_000_000
    assert len(marker["preview"].encode()) <= CAP + 100
    assert db.stat().st_size < 1_000_000  # the whole database, not 20 MB
    run = Store(db).runs()[-1]
    assert json.dumps(run).count(f'"output_cap": {CAP}') == 1  # the cap is a recorded setting


def test_model_completions_are_capped(tmp_path: Path, fake_openai: FakeOpenAI, mark: str) -> None:
    tasks, servers = write_world(tmp_path, [_big_task(0.001)])
    huge = "z" * 3_000_000
    fake_openai.responder = lambda request: completion(huge if any(m["role"] == "tool" for m in request["messages"])
                                                       else "", [("hostile__big", {"megabytes": 0.001})]
                                                       if not any(m["role"] == "tool" for m in request["messages"])
                                                       else None)
    db = tmp_path / "runs.db"
    result = CliRunner().invoke(app, ["run", "--model", "openai:fake", "--base-url", fake_openai.base_url, "--tasks",
                                      str(tasks), "--servers", str(servers), "--db", str(db), "--output-cap",
                                      str(CAP)], env={"OPENAI_API_KEY": "sk-test"})
    assert result.exit_code == 0, result.output
    (episode,) = list(Store(db).episodes())
    turns = [s for s in episode.steps if isinstance(s, ModelTurn)]
    assert len(turns[-1].text.encode()) <= CAP + 100 and "truncated: showing 2000 of 3000000 bytes" in turns[-1].text
    assert len(episode.final_answer.encode()) <= SCORED_CAP + 100 and episode.final_answer.startswith("zzz")
    assert db.stat().st_size < 3_000_000

