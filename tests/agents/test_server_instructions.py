"""Servers' instructions reach every agent design's system prompt (``run --server-instructions``), from a real
FastMCP server's ``initialize`` or the servers config; recorded per episode and part of the resume key. The
prompt the agent sees names the sandbox's real path where the task names a mapped absolute one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from dossier_server import INSTRUCTIONS

from mcptrials.agents.copilot import CopilotAgent
from mcptrials.agents.planner import PlannerAgent
from mcptrials.agents.react import ReactAgent
from mcptrials.agents.retrieval import load_retriever
from mcptrials.bundled.world import bundled_servers
from mcptrials.model import ServerSpec, Task, stable_hash
from mcptrials.models.base import EpisodeContext, Message, ModelResponse, ToolSchema
from mcptrials.models.scripted import ScriptedModel
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store

DOSSIER = Path(__file__).parents[1] / "support" / "dossier_server.py"
OVERRIDE = "Use the workspace folder only; never guess a file name."
DESIGNS: dict[str, Any] = {
    "react": ReactAgent,
    "planner": lambda: PlannerAgent(compress_chars=300),
    "copilot": lambda: CopilotAgent(retriever=load_retriever("bm25"), top_k=3),
}
TASK = Task.model_validate({
    "id": "see", "prompt": "Summarise /root/data/memo.txt for me.", "servers": ["files", "dossier"],
    "fixtures": {"files": {"data/memo.txt": "hello"}, "path_map": {"/root/data/": "data"}},
    "spec": {"grounding": False, "checkpoints": [
        {"id": "said", "kind": "value_produced", "source": "final_message", "contains": ["done"]}]}})


def servers() -> dict[str, ServerSpec]:
    files = bundled_servers()["files"].model_copy(update={"instructions": OVERRIDE})
    return {"files": files, "dossier": ServerSpec(name="dossier", command=sys.executable, args=[str(DOSSIER)])}


async def run_once(design: str, tmp_path: Path, on: bool) -> tuple[list[list[Message]], RunPlan, Store]:
    seen: list[list[Message]] = []

    def answer(messages: list[Message], tools: list[ToolSchema], context: EpisodeContext) -> ModelResponse:
        seen.append(list(messages))
        return ModelResponse(text="done", finish_reason="stop")

    plan = RunPlan(servers=servers(), tasks=[TASK], agent=DESIGNS[design](),
                   model=ScriptedModel(source="look", fn=answer), server_instructions=on)
    store = Store(tmp_path / f"{design}-{on}.db")
    result = await execute(plan, store)
    assert result.counts["passed"] == 1, result.counts
    return seen, plan, store


@pytest.mark.parametrize("design", list(DESIGNS))
async def test_instructions_reach_the_system_prompt_of_every_design(design: str, tmp_path: Path) -> None:
    seen, plan, store = await run_once(design, tmp_path, on=True)
    system, user = seen[0][0], seen[0][1]
    assert system.role == "system" and f"Server dossier:\n{INSTRUCTIONS}" in system.content
    assert f"Server files:\n{OVERRIDE}" in system.content  # the config's text replaces the server's own
    assert "All paths are relative to the workspace root" not in system.content
    assert "/root/data/" not in user.content and "/sandbox/data/memo.txt" in user.content
    episode = next(store.episodes())
    assert episode.instructions == {"dossier": INSTRUCTIONS, "files": OVERRIDE}
    assert plan.settings()["server_instructions"] is True

    off_seen, off_plan, off_store = await run_once(design, tmp_path, on=False)
    assert INSTRUCTIONS not in off_seen[0][0].content and OVERRIDE not in off_seen[0][0].content
    assert next(off_store.episodes()).instructions == {}
    assert "server_instructions" not in off_plan.settings()  # off is how earlier runs ran: their keys stay
    assert off_plan.record()["server_instructions"] is False and plan.record()["server_instructions"] is True
    assert stable_hash(off_plan.settings()) != stable_hash(plan.settings())
