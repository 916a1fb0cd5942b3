"""The react modules (reflect, plan, memory): each changes the transcript as it says, alone and together."""

from __future__ import annotations

import json

import pytest
from agent_brain import Brain

from mcptrials.agents.modules import ModuleError, parse_modules
from mcptrials.agents.react import ReactAgent
from mcptrials.agents.registry import load_agent
from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.model import Episode, ModelTurn
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store

TASK = "trip-010"  # geocode a landmark, then the weather there


async def _episode(fake_openai, tmp_path, agent: ReactAgent) -> tuple[Episode, list[dict]]:
    task = next(t for t in bundled_tasks() if t.id == TASK)
    fake_openai.responder = Brain(plan=task.reference, answer=task.reference_answer or "", mistake_first=True).openai
    chat = OpenAIModel(model="fake", base_url=fake_openai.base_url, api_key="x")
    store = Store(tmp_path / f"{agent.name}.db")
    result = await execute(RunPlan(servers=bundled_servers(), tasks=[task], agent=agent, model=chat), store)
    assert result.counts["passed"] == 1, result.counts
    requests = list(fake_openai.requests)
    fake_openai.requests.clear()
    return next(store.episodes()), requests


def _roles(episode: Episode) -> list[str]:
    return [s.role for s in episode.steps if isinstance(s, ModelTurn)]


async def test_plain_react_has_no_module_turns(fake_openai, tmp_path) -> None:
    episode, requests = await _episode(fake_openai, tmp_path, ReactAgent())
    assert _roles(episode) == ["agent", "agent", "agent"]
    assert not any(m["role"] == "user" and m["content"].startswith(("Your", "Summary"))
                   for r in requests for m in r["messages"])


async def test_reflect_critiques_a_failed_call(fake_openai, tmp_path) -> None:
    episode, requests = await _episode(fake_openai, tmp_path, ReactAgent(modules=("reflect",)))
    assert _roles(episode) == ["agent", "reflection", "agent", "agent"]  # only after the failed first call
    reflection = next(s for s in episode.steps if isinstance(s, ModelTurn) and s.role == "reflection")
    assert reflection.text.startswith("REFLECTION:")
    failed = episode.tool_calls[0]
    assert failed.error_kind == "unknown_tool" and reflection.index > failed.index
    second_turn = requests[2]["messages"]  # the agent's next turn sees its critique after the error
    assert second_turn[-1] == {"role": "user", "content": f"Your reflection on the failed call:\n{reflection.text}"}


async def test_plan_is_written_first_and_revised(fake_openai, tmp_path) -> None:
    episode, requests = await _episode(fake_openai, tmp_path, ReactAgent(modules=("plan",), revise_every=2))
    roles = _roles(episode)
    assert roles[0] == "plan"  # before any action
    assert roles == ["plan", "agent", "plan", "agent", "plan", "agent"]  # revised after the failure and turn 2
    assert requests[1]["messages"][2]["content"].startswith("Your plan (revise it as you learn more):\nPLAN:")
    assert any((m["content"] or "").startswith("Your revised plan:\nREVISED PLAN:") for m in requests[-1]["messages"])


async def test_memory_summarises_earlier_turns(fake_openai, tmp_path) -> None:
    episode, requests = await _episode(fake_openai, tmp_path, ReactAgent(modules=("memory",), memory_chars=400))
    assert _roles(episode) == ["agent", "agent", "memory", "agent"]
    last = requests[-1]["messages"]
    assert last[2]["content"].startswith("Summary of your work so far") and "MEMORY:" in last[2]["content"]
    # the first (failed) exchange is gone from the context; the latest exchange is kept whole
    assert "nosuch__tool" not in json.dumps(last)
    assert [m["role"] for m in last[3:]] == ["assistant", "tool", "tool"]
    memory_request = requests[-2]["messages"]  # the full context the summary replaced, plus the instruction
    assert "nosuch__tool" in json.dumps(memory_request) and len(json.dumps(last)) < len(json.dumps(memory_request))


async def test_modules_compose(fake_openai, tmp_path) -> None:
    agent = load_agent("react", modules="memory,reflect,plan")
    assert agent.name == "react+reflect+plan+memory"
    settings = agent.settings()
    assert settings["modules"]["names"] == ["reflect", "plan", "memory"]
    assert set(settings["modules"]) == {"names", "prompts_hash", "memory_chars", "revise_every"}
    episode, _ = await _episode(fake_openai, tmp_path, agent)  # type: ignore[arg-type]
    assert {"plan", "reflection", "agent"} <= set(_roles(episode))
    assert episode.agent == "react+reflect+plan+memory"


def test_settings_without_modules_are_unchanged() -> None:
    assert set(ReactAgent().settings()) == {"agent", "max_turns", "max_episode_tokens", "max_repeats",
                                            "system_prompt_hash"}


@pytest.mark.parametrize("text", ["reflect,dream", "plan,plan", "memory,,x"])
def test_bad_modules(text: str) -> None:
    with pytest.raises(ModuleError):
        parse_modules(text)
