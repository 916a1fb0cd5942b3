"""The embedded local model on a real short episode: real model turns, real tool calls, stored."""

from __future__ import annotations

import pytest

from mcptrials.agents.react import ReactAgent
from mcptrials.models.base import SamplingSettings
from mcptrials.models.registry import load_model
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store
from mcptrials.tasks.loader import load_tasks

pytest.importorskip("llama_cpp", reason="the local extra (llama-cpp-python) is installed by .ci/run")


async def test_local_model_runs_a_real_episode(example_specs, example_tasks_path, tmp_path) -> None:
    task = [t for t in load_tasks(example_tasks_path) if t.id == "ex-nanjing-seats"]
    model = load_model("local:", sampling=SamplingSettings(temperature=0.0, max_tokens=160, seed=0))
    plan = RunPlan(servers={"rail": example_specs["rail"]}, tasks=task, model=model,
                   agent=ReactAgent(max_turns=2))
    store = Store(tmp_path / "local.db")
    result = await execute(plan, store)
    assert result.completed == 1 and result.counts["infra_error"] == 0
    episode = next(store.episodes())
    turns = episode.model_turns
    assert turns and all(t.usage.prompt_tokens > 0 for t in turns)
    assert episode.usage.completion_tokens > 0
    assert episode.model == "local:default"
    # the model asked for at least one tool, and the call really reached the server
    assert episode.tool_calls and episode.tool_calls[0].name.startswith("rail__")
    run = store.runs()[-1]["config"]
    assert run["model"]["sha256"].startswith("1d9614638d18")
