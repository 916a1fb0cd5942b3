"""Every agent design on an evolved server version (``run --stages``), through every kind of provider.

The designs only ever call ``ChatModel.generate``: the same decisions reach them through the
openai wire format, the anthropic wire format (both over real local HTTP) and the scripted
provider's callable, and each design solves the task on v5, where the weather server's
coordinates tool has been merged into another one.
"""

from __future__ import annotations

from typing import Any

import pytest
from agent_brain import Brain

from mcptrials.agents.copilot import CopilotAgent
from mcptrials.agents.planner import PlannerAgent
from mcptrials.agents.react import ReactAgent
from mcptrials.agents.retrieval import load_retriever
from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.cli import versioned_worlds
from mcptrials.model import ModelTurn
from mcptrials.models.anthropic_provider import AnthropicModel
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.models.scripted import ScriptedModel
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store

DESIGNS: dict[str, Any] = {
    "planner": lambda: PlannerAgent(compress_chars=300),
    "copilot": lambda: CopilotAgent(retriever=load_retriever("bm25"), top_k=3),
    "react+modules": lambda: ReactAgent(modules=("reflect", "plan", "memory"), memory_chars=400,
                                        name="react+reflect+plan+memory"),
}
HELPER_ROLE = {"planner": "compressor", "copilot": "router", "react+modules": "reflection"}


@pytest.mark.slow
@pytest.mark.parametrize("provider", ["openai", "anthropic", "scripted"])
@pytest.mark.parametrize("design", list(DESIGNS))
async def test_design_on_evolved_version(design: str, provider: str, fake_openai, tmp_path) -> None:
    task = next(t for t in bundled_tasks() if t.id == "trip-010")
    [(version, specs, tasks)] = versioned_worlds(bundled_servers(), [task], "v5", None)
    evolved = tasks[0]
    assert "weather__get_current_weather" in [s.tool for s in evolved.reference]  # the v0 tool is gone
    brain = Brain(plan=evolved.reference, answer=evolved.reference_answer or "",
                  mistake_first=design == "react+modules")
    chat: Any
    if provider == "openai":
        fake_openai.responder = brain.openai
        chat = OpenAIModel(model="fake", base_url=fake_openai.base_url, api_key="x")
    elif provider == "anthropic":
        fake_openai.responder = brain.anthropic
        chat = AnthropicModel(model="claude-test", base_url=fake_openai.root_url, api_key="sk-ant-test")
    else:
        chat = ScriptedModel(source="brain", fn=brain.scripted)
    store = Store(tmp_path / "r.db")
    plan = RunPlan(servers=specs, tasks=tasks, agent=DESIGNS[design](), model=chat, version=version)
    result = await execute(plan, store)
    assert result.counts["passed"] == 1, result.counts
    episode = next(store.episodes())
    assert episode.version == "v5"
    assert "weather__get_current_weather" in [c.name for c in episode.tool_calls if not c.is_error]
    assert any(isinstance(s, ModelTurn) and s.role == HELPER_ROLE[design] for s in episode.steps)
    if provider != "scripted":
        assert fake_openai.requests  # the turns really went over HTTP
