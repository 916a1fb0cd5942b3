"""The planner agent end to end: real bundled servers, a real local OpenAI-compatible endpoint."""

from __future__ import annotations

from agent_brain import Brain

from mcptrials.agents.planner import PlannerAgent
from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.model import ModelTurn
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store


def _task(task_id: str):
    return next(t for t in bundled_tasks() if t.id == task_id)


async def test_parallel_round_compression_and_answer(fake_openai, tmp_path) -> None:
    task = _task("trip-004")  # park details, hotels nearby, forecast: three independent look-ups
    brain = Brain(plan=task.reference, answer=task.reference_answer or "")
    fake_openai.responder = brain.openai
    chat = OpenAIModel(model="fake", base_url=fake_openai.base_url, api_key="x")
    agent = PlannerAgent(max_rounds=5, compress_chars=1000)
    store = Store(tmp_path / "r.db")
    result = await execute(RunPlan(servers=bundled_servers(), tasks=[task], agent=agent, model=chat), store)
    assert result.counts["passed"] == 1, result.counts
    episode = next(store.episodes())
    calls = episode.tool_calls
    assert [c.name for c in calls] == [s.tool for s in task.reference]
    assert {c.turn for c in calls} == {0}  # one round
    # the calls ran at once: every call started before any of them had finished
    assert all(c.started_s is not None for c in calls)
    assert max(c.started_s for c in calls) < min(c.started_s + c.latency_s for c in calls)
    # long results were compressed by a model call; the model saw the short form, the record keeps the full one
    long = [c for c in calls if len(c.content) > 1000]
    compressors = [s for s in episode.steps if isinstance(s, ModelTurn) and s.role == "compressor"]
    assert long and len(compressors) == len(long)
    round_two = fake_openai.requests[1 + len(long)]  # after the round and its compressions
    tool_messages = [m["content"] for m in round_two["messages"] if m["role"] == "tool"]
    assert sum(m.startswith("[result of") and "SHORT:" in m for m in tool_messages) == len(long)
    assert all(len(m) < 1000 for m in tool_messages)
    # then the model stopped and a separate step wrote the answer from the evidence
    assert episode.termination == "done"
    final_request = fake_openai.requests[-1]
    assert final_request["messages"][0]["content"].startswith("You write the final answer")
    assert "tools" not in final_request and "Evidence from tool calls" in final_request["messages"][1]["content"]
    assert episode.final_answer == task.reference_answer
    assert episode.model_turns[-1].text == task.reference_answer


async def test_round_limit_still_answers(fake_openai, tmp_path) -> None:
    task = _task("trip-010")
    brain = Brain(plan=task.reference, answer=task.reference_answer or "")
    fake_openai.responder = brain.openai
    chat = OpenAIModel(model="fake", base_url=fake_openai.base_url, api_key="x")
    store = Store(tmp_path / "r.db")
    await execute(RunPlan(servers=bundled_servers(), tasks=[task], agent=PlannerAgent(max_rounds=1), model=chat),
                  store)
    episode = next(store.episodes())
    assert episode.termination == "max_turns"  # the loop did not see the model stop
    assert episode.final_answer == task.reference_answer  # but the synthesis step still answered


async def test_empty_synthesis_keeps_the_answer_the_model_wrote(fake_openai, tmp_path) -> None:
    """A model that answered in its last round and replies nothing to the synthesis call keeps that answer."""
    from fake_openai import completion

    task = _task("trip-004")
    brain = Brain(plan=task.reference, answer=task.reference_answer or "")

    def respond(request):
        if request["messages"][0]["content"].startswith("You write the final answer"):
            return completion("")  # the synthesis call gets an empty reply
        return brain.openai(request)

    fake_openai.responder = respond
    chat = OpenAIModel(model="fake", base_url=fake_openai.base_url, api_key="x")
    store = Store(tmp_path / "r.db")
    result = await execute(RunPlan(servers=bundled_servers(), tasks=[task], agent=PlannerAgent(), model=chat), store)
    episode = next(store.episodes())
    assert [t.text for t in episode.model_turns if t.role == "agent"][-2:] == [task.reference_answer, ""]
    assert episode.final_answer == task.reference_answer
    assert result.counts == {"passed": 1, "failed": 0, "infra_error": 0}


def test_planner_with_scripted_reference_passes_the_bundled_smoke_set(tmp_path) -> None:
    """``--agent planner --model scripted:reference`` plays every reference plan: 30 of 30 pass (it passed 2)."""
    from report_world import cli

    done = cli("run", "--agent", "planner", "--model", "scripted:reference", "--limit", "30",
               "--db", str(tmp_path / "p.db"))
    line = next(x for x in done.stderr.splitlines() if x.startswith("run "))
    assert "30 episode(s)" in line and "passed 100 % 30/30 (failed 0;" in line and "infra" not in line, line
