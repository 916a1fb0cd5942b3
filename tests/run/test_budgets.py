"""Budgets end cleanly: a token cap ends an episode as 'budget'; a run cost cap stops new episodes."""

from __future__ import annotations

from fake_openai import FakeOpenAI, completion

from mcptrials.agents.react import ReactAgent
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.models.pricing import Price
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store
from mcptrials.tasks.loader import load_tasks

LOOP = completion("", [("rail__get_station_codes", {"city": "Beijing"})], prompt_tokens=600, completion_tokens=100)


async def test_episode_token_cap(example_specs, example_tasks_path, fake_openai: FakeOpenAI, tmp_path) -> None:
    fake_openai.default = LOOP
    task = [t for t in load_tasks(example_tasks_path) if t.id == "ex-nanjing-seats"]
    chat = OpenAIModel(model="m", base_url=fake_openai.base_url, api_key="k")
    plan = RunPlan(servers=example_specs, tasks=task, model=chat,
                   agent=ReactAgent(max_turns=20, max_episode_tokens=2000))
    store = Store(tmp_path / "r.db")
    await execute(plan, store)
    episode = next(store.episodes())
    assert episode.termination == "budget" and len(episode.model_turns) == 3
    assert episode.usage.prompt_tokens + episode.usage.completion_tokens == 2100


async def test_run_cost_cap_stops_new_episodes(example_specs, example_tasks_path, fake_openai: FakeOpenAI,
                                               tmp_path) -> None:
    fake_openai.default = completion("done", prompt_tokens=1_000_000, completion_tokens=0)
    chat = OpenAIModel(model="m", base_url=fake_openai.base_url, api_key="k", price=Price(input=1.0, output=0))
    tasks = load_tasks(example_tasks_path)
    plan = RunPlan(servers=example_specs, tasks=tasks, model=chat, agent=ReactAgent(), concurrency=1,
                   max_cost=1.5)
    store = Store(tmp_path / "r.db")
    result = await execute(plan, store)
    assert result.completed == 2 and result.not_started == 1 and result.cost_usd == 2.0
    plan.max_cost = None
    again = await execute(plan, store)
    assert again.skipped == 2 and again.completed == 1


async def test_identical_calls_turn_after_turn_end_the_episode(example_specs, example_tasks_path,
                                                               fake_openai: FakeOpenAI, tmp_path) -> None:
    fake_openai.default = LOOP
    task = [t for t in load_tasks(example_tasks_path) if t.id == "ex-nanjing-seats"]
    chat = OpenAIModel(model="m", base_url=fake_openai.base_url, api_key="k")
    plan = RunPlan(servers=example_specs, tasks=task, model=chat, agent=ReactAgent(max_turns=20, max_repeats=3))
    store = Store(tmp_path / "r.db")
    await execute(plan, store)
    episode = next(store.episodes())
    assert episode.termination == "agent_error" and "3 turns in a row" in (episode.agent_error or "")
    assert len(episode.model_turns) == 3 and len(episode.tool_calls) == 3
    assert "agent_error" in next(iter(store.scores().values()))["effects"].failure_codes


async def test_the_same_call_with_a_new_result_each_turn_is_progress(tmp_path) -> None:
    """Adding the same task three times gives three new ids: not a loop, unlike re-reading the same list."""
    from mcptrials.bundled.world import bundled_servers
    from mcptrials.model import Task
    from mcptrials.models.scripted import Script, ScriptedModel

    task = Task.model_validate({"id": "adds", "prompt": "Add 'pack' three times.", "servers": ["mdtasks"],
                                "fixtures": {"files": {"tasks.md": "# My tasks\n"}},
                                "spec": {"checkpoints": [{"id": "a", "kind": "tool_effect",
                                                          "tools": ["mdtasks__add_task"]}]}})
    for tool, args, stuck in (("mdtasks__add_task", {"text": "pack"}, False), ("mdtasks__list_tasks", {}, True)):
        turn = {"tool_calls": [{"name": tool, "arguments": args}]}
        model = ScriptedModel(source="loop", script=Script.model_validate({"default": [turn] * 4 + [{"text": "ok"}]}))
        plan = RunPlan(servers=bundled_servers(), tasks=[task], model=model,
                       agent=ReactAgent(max_turns=10, max_repeats=3))
        store = Store(tmp_path / f"{tool}.db")
        await execute(plan, store)
        episode = next(store.episodes())
        assert (episode.termination == "agent_error") is stuck, (tool, episode.termination)
        assert len(episode.tool_calls) == (3 if stuck else 4)
