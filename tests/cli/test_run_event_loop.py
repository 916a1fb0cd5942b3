"""`run` over several versions keeps one event loop, so a provider's pooled connections stay usable."""

from __future__ import annotations

from agent_brain import Brain
from fake_openai import FakeOpenAI
from typer.testing import CliRunner

from mcptrials.bundled.world import bundled_tasks
from mcptrials.cli import app
from mcptrials.store.db import Store


def test_stages_through_a_keep_alive_endpoint(tmp_path) -> None:
    task = next(t for t in bundled_tasks() if t.id == "unit-001")
    brain = Brain(plan=task.reference, answer=task.reference_answer or "")
    db = tmp_path / "r.db"
    with FakeOpenAI(responder=brain.openai, keep_alive=True) as endpoint:  # HTTP/1.1, as real endpoints speak
        result = CliRunner().invoke(app, ["run", "--task", "unit-001", "--stages", "v0,v1", "--model", "openai:fake",
                                          "--base-url", endpoint.base_url, "--db", str(db)],
                                    env={"OPENAI_API_KEY": "sk-test"})
    assert result.exit_code == 0, result.output
    versions = sorted(e.version for e in Store(db).episodes())
    assert versions == ["v0", "v1"]
