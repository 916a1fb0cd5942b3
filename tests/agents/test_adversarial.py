"""What real models and users do to the agent designs: malformed plans, failing helper calls, odd routes, bad pools.

Every case runs real bundled MCP servers and talks to the local OpenAI-compatible endpoint over
HTTP; the model side is a scripted responder that misbehaves in one way per test.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from agent_brain import Brain, embeddings_reply
from fake_openai import FakeOpenAI, Reply, completion
from typer.testing import CliRunner

from mcptrials.agents.copilot import CopilotAgent
from mcptrials.agents.planner import PlannerAgent
from mcptrials.agents.react import ReactAgent
from mcptrials.agents.retrieval import load_retriever
from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.cli import app
from mcptrials.model import Episode, ModelTurn, Task
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.models.retry import RetryPolicy
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store

Body = dict[str, Any]


def _task(task_id: str) -> Task:
    return next(t for t in bundled_tasks() if t.id == task_id)


def _chat(fake: FakeOpenAI) -> OpenAIModel:
    return OpenAIModel(model="fake", base_url=fake.base_url, api_key="x", retry=RetryPolicy(max_retries=0))


def _system(body: Body) -> str:
    first = body["messages"][0]
    return first["content"] if first["role"] == "system" else ""


def _agent_turns(fake: FakeOpenAI) -> list[Body]:
    """The requests of the planner's own rounds (not its compressor or final-answer calls)."""
    return [r for r in fake.requests if "messages" in r and r.get("tools")]


async def _run(fake: FakeOpenAI, tmp_path, agent: Any, task: Task, responder: Callable[[Body], Reply],
               **plan: Any) -> Episode:
    fake.responder = responder
    store = Store(tmp_path / "r.db")
    await execute(RunPlan(servers=bundled_servers(), tasks=[task], agent=agent, model=_chat(fake), **plan), store)
    [episode] = list(store.episodes())
    return episode


def _planner_script(rounds: list[Reply], task: Task) -> Callable[[Body], Reply]:
    """The planner's rounds from ``rounds`` (then 'done'), compressions and the answer from the brain."""
    brain = Brain(plan=task.reference, answer=task.reference_answer or "")
    queue = list(rounds)

    def reply(body: Body) -> Reply:
        if body.get("tools") and not _system(body).startswith(("You shorten", "You write the final")):
            return queue.pop(0) if queue else completion("I have what I need.")
        return brain.openai(body)
    return reply


# --------------------------------------------------------------------------- planner


async def test_planner_malformed_round_is_recorded_call_by_call(fake_openai, tmp_path) -> None:
    """Unknown tools, arguments that are not an object, the same call twice with the same id: all recorded."""
    task = _task("trip-010")
    geocode = ("maps__geocode", {"address": "Golden Gate Bridge"})
    bad_round = Reply(body=json.loads(json.dumps(completion("", [geocode, ("nosuch__tool", {}),
                                                                  ("maps__geocode", "[1, 2]")]).body)))
    calls = bad_round.body["choices"][0]["message"]["tool_calls"]  # type: ignore[index]
    calls.append({**calls[0], "function": {**calls[0]["function"]}})  # same call, same id (some servers do)
    calls.append({"id": "call_0", "type": "function",  # another call reusing that id
                  "function": {"name": "weather__get_weather_by_coordinates",
                               "arguments": json.dumps({"lat": 37.82, "lon": -122.478})}})
    episode = await _run(fake_openai, tmp_path, PlannerAgent(max_rounds=3), task, _planner_script([bad_round], task))
    kinds = [(c.name, c.error_kind) for c in episode.tool_calls]
    assert kinds == [("maps__geocode", None), ("nosuch__tool", "unknown_tool"), ("maps__geocode", "invalid_arguments"),
                     ("maps__geocode", None), ("weather__get_weather_by_coordinates", None)]
    assert len({c.call_id for c in episode.tool_calls}) == 5  # every call is told apart in the record
    round_two = _agent_turns(fake_openai)[1]["messages"]
    answered = [m for m in round_two if m["role"] == "tool"]
    asked = [c["id"] for m in round_two if m["role"] == "assistant" for c in m["tool_calls"]]
    assert sorted(m["tool_call_id"] for m in answered) == sorted(asked) and len(set(asked)) == 5
    weather = next(m for m in answered if "temperature" in m["content"].lower() or "cloud" in m["content"].lower())
    assert weather["tool_call_id"] == asked[-1]  # the weather result answers the weather call, not the geocode
    assert episode.termination == "done" and episode.final_answer == task.reference_answer


@pytest.mark.parametrize("text", [
    "Plan: first I will call maps__geocode for the bridge, then the weather tool.",
    '```json\n{"name": "maps__geocode", "arguments": {"address": "Golden Gate Bridge"}}\n```'])
async def test_planner_prose_or_fenced_json_instead_of_calls(fake_openai, tmp_path, text: str) -> None:
    """Native tool mode: text that only describes calls runs nothing; the answer says what the evidence lacks."""
    task = _task("trip-010")
    episode = await _run(fake_openai, tmp_path, PlannerAgent(), task, _planner_script([completion(text)], task))
    assert episode.tool_calls == [] and episode.termination == "done"
    final = fake_openai.requests[-1]["messages"][1]["content"]
    assert "(no tool was called)" in final and episode.model_turns[0].text == text


async def test_planner_thirty_calls_in_one_round(fake_openai, tmp_path) -> None:
    task = _task("unit-001")
    many = completion("", [("units__convert", {"value": i, "from_unit": "mi", "to_unit": "km",
                                               "category": "length"}) for i in range(30)])
    episode = await _run(fake_openai, tmp_path, PlannerAgent(max_rounds=2), task, _planner_script([many], task))
    assert len(episode.tool_calls) == 30 and not any(c.is_error for c in episode.tool_calls)
    assert {c.turn for c in episode.tool_calls} == {0}
    answered = [m for m in _agent_turns(fake_openai)[1]["messages"] if m["role"] == "tool"]
    assert len(answered) == 30


async def test_planner_text_and_calls_runs_the_calls(fake_openai, tmp_path) -> None:
    """A model that says it is done while asking for calls: the calls run, the loop goes on."""
    task = _task("unit-001")
    step = task.reference[0]
    both = completion("DONE. The answer is 42 km.", [(step.tool, step.args)])
    episode = await _run(fake_openai, tmp_path, PlannerAgent(max_rounds=3), task, _planner_script([both], task))
    assert [c.name for c in episode.tool_calls] == [step.tool] and not episode.tool_calls[0].is_error
    assert len(_agent_turns(fake_openai)) == 2 and episode.termination == "done"


async def test_planner_that_repeats_itself_still_answers_from_its_evidence(fake_openai, tmp_path) -> None:
    """A model that never says done and asks for the same calls every round: evidence is gathered, so answer."""
    task = _task("unit-001")
    step = task.reference[0]
    same = [completion("", [(step.tool, step.args)]) for _ in range(10)]
    episode = await _run(fake_openai, tmp_path, PlannerAgent(max_rounds=10), task, _planner_script(same, task))
    assert len(_agent_turns(fake_openai)) == 3  # stopped at the third identical round
    assert episode.agent_error and "same tool calls" in episode.agent_error
    assert episode.final_answer == task.reference_answer  # the synthesis still ran on what was gathered


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("status", [500, 401])
async def test_planner_compressor_provider_error(fake_openai, tmp_path, status: int, provider: str) -> None:
    """The compressor's provider fails: an infra error for the episode (or a stopped run), never a traceback."""
    from mcptrials.models.anthropic_provider import AnthropicModel
    from mcptrials.run.runner import FatalRunError

    task = _task("trip-004")
    brain = Brain(plan=task.reference, answer=task.reference_answer or "")
    failure = Reply(status=status, body={"type": "error", "error": {"type": "api_error", "message": "boom"}})

    def reply(body: Body) -> Reply:
        system = body["system"] if provider == "anthropic" else _system(body)
        if str(system).startswith("You shorten"):
            return failure
        return brain.anthropic(body) if provider == "anthropic" else brain.openai(body)

    fake_openai.responder = reply
    chat = _chat(fake_openai) if provider == "openai" else AnthropicModel(
        model="claude-test", base_url=fake_openai.root_url, api_key="sk-ant-test", retry=RetryPolicy(max_retries=0))
    store = Store(tmp_path / "r.db")
    plan = RunPlan(servers=bundled_servers(), tasks=[task], agent=PlannerAgent(compress_chars=500), model=chat)
    if status == 401:
        with pytest.raises(FatalRunError, match="authentication failed"):
            await execute(plan, store)
        return
    await execute(plan, store)
    [episode] = list(store.episodes())
    assert episode.termination == "infra_error" and episode.infra_error is not None
    assert episode.infra_error.kind == "provider_server_error"
    assert [c.name for c in episode.tool_calls] == [s.tool for s in task.reference]  # what ran is kept


async def test_planner_compressor_timeout_is_an_infra_error(fake_openai, tmp_path) -> None:
    task = _task("trip-004")
    brain = Brain(plan=task.reference, answer=task.reference_answer or "")

    def reply(body: Body) -> Reply:
        return Reply(delay=3.0, body=completion("late").body) if _system(body).startswith("You shorten") \
            else brain.openai(body)

    fake_openai.responder = reply
    chat = OpenAIModel(model="fake", base_url=fake_openai.base_url, api_key="x", timeout=0.5,
                       retry=RetryPolicy(max_retries=0))
    store = Store(tmp_path / "r.db")
    await execute(RunPlan(servers=bundled_servers(), tasks=[task], agent=PlannerAgent(compress_chars=500),
                          model=chat), store)
    [episode] = list(store.episodes())
    assert episode.infra_error is not None and episode.infra_error.kind == "provider_timeout"


async def test_planner_empty_compression_falls_back_to_a_bounded_result(fake_openai, tmp_path) -> None:
    """An empty compression: the model sees the result cut to the threshold; the record keeps it whole."""
    task = _task("trip-004")
    brain = Brain(plan=task.reference, answer=task.reference_answer or "")

    def reply(body: Body) -> Reply:
        return completion("   ") if _system(body).startswith("You shorten") else brain.openai(body)

    episode = await _run(fake_openai, tmp_path, PlannerAgent(compress_chars=500), task, reply)
    long = [c for c in episode.tool_calls if len(c.content) > 500]
    assert long and [s.role for s in episode.steps if isinstance(s, ModelTurn)].count("compressor") == len(long)
    seen = [m["content"] for m in _agent_turns(fake_openai)[1]["messages"] if m["role"] == "tool"]
    assert all(len(text) < 500 + 200 for text in seen)
    assert episode.termination == "done" and episode.final_answer == task.reference_answer


def _faulty_task() -> Task:
    spec = {"checkpoints": [{"id": "said", "kind": "value_produced", "contains": ["hello"]}]}
    return Task(id="faulty-1", prompt="Echo hello, and fetch the big report.", servers=["faulty"], spec=spec)


async def test_planner_huge_and_failing_results_in_one_round(fake_openai, tmp_path, faulty_spec) -> None:
    """A 5 MB result, an error and a plain result in one round: capped, compressed, errors shown as such."""
    task = _faulty_task()
    round_ = completion("", [("faulty__huge", {"size": 5_000_000}), ("faulty__fail", {"reason": "disk on fire"}),
                             ("faulty__echo", {"text": "hello"})])
    script = _planner_script([round_], task)

    def reply(body: Body) -> Reply:
        if _system(body).startswith("You shorten"):
            return completion("SHORT: a very long run of characters")
        if _system(body).startswith("You write the final"):
            return completion("hello")
        return script(body)

    fake_openai.responder = reply
    store = Store(tmp_path / "r.db")
    await execute(RunPlan(servers={"faulty": faulty_spec}, tasks=[task], agent=PlannerAgent(),
                          model=_chat(fake_openai)), store)
    [episode] = list(store.episodes())
    huge, fail, echo = episode.tool_calls
    assert huge.truncated and len(huge.content) <= 25_000 and not huge.is_error  # the record keeps the capped result
    assert fail.error_kind == "tool_error" and "disk on fire" in fail.content and echo.content.strip() == "hello"
    assert [s.role for s in episode.steps if isinstance(s, ModelTurn)].count("compressor") == 1  # errors never are
    seen = {m["tool_call_id"]: m["content"] for m in _agent_turns(fake_openai)[1]["messages"] if m["role"] == "tool"}
    assert seen[huge.call_id].startswith("[result of") and seen[fail.call_id].startswith("ERROR (tool_error)")
    assert episode.termination == "done" and store.scores()[episode.id]["effects"].passed


async def test_planner_server_crash_mid_round_is_an_infra_error(fake_openai, tmp_path, faulty_spec) -> None:
    task = _faulty_task()
    round_ = completion("", [("faulty__echo", {"text": "hello"}), ("faulty__crash", {})])
    fake_openai.responder = _planner_script([round_], task)
    store = Store(tmp_path / "r.db")
    await execute(RunPlan(servers={"faulty": faulty_spec}, tasks=[task], agent=PlannerAgent(),
                          model=_chat(fake_openai)), store)
    [episode] = list(store.episodes())
    assert episode.termination == "infra_error" and episode.infra_error is not None
    assert episode.infra_error.server == "faulty" and len(episode.tool_calls) == 2


# --------------------------------------------------------------------------- copilot


def _turns(queue: list[Reply], answer: str = "finished") -> Callable[[Body], Reply]:
    """Chat turns from ``queue``, then ``answer``; embeddings requests get the brain's hashed vectors."""
    def reply(body: Body) -> Reply:
        if "input" in body:
            return embeddings_reply(body)
        return queue.pop(0) if queue else completion(answer)
    return reply


def _routes(episode: Episode) -> list[ModelTurn]:
    return [s for s in episode.steps if isinstance(s, ModelTurn) and s.role == "router"]


async def test_copilot_bad_routes_are_answered_and_recorded(fake_openai, tmp_path) -> None:
    """A route without a usable need (missing, a list, a number, not JSON, blank) is refused and recorded."""
    task = _task("unit-001")
    bad = completion("", [("route", {}), ("route", {"query": ["convert", "miles"]}), ("route", {"query": 7}),
                          ("route", "{oops"), ("route", {"query": "   "})])
    good = completion("", [("route", {"query": "convert miles to kilometres"})])
    episode = await _run(fake_openai, tmp_path, CopilotAgent(retriever=load_retriever("bm25")), task,
                         _turns([bad, good]))
    assert episode.termination == "done"
    routes = _routes(episode)
    assert len(routes) == 6 and all("route needs a 'query'" in r.text for r in routes[:5])
    assert ("units", "convert") in [(h["server"], h["tool"]) for h in json.loads(routes[5].text)]
    replies = [m["content"] for m in fake_openai.requests[1]["messages"] if m["role"] == "tool"]
    assert len(replies) == 5 and all(r.startswith("ERROR (invalid_arguments)") for r in replies)


async def test_copilot_huge_route_query_is_cut_before_the_embeddings_endpoint(fake_openai, tmp_path) -> None:
    """A model pasting pages into route: the endpoint (limited like real ones) still answers; the episode goes on."""
    task = _task("unit-001")
    huge = "convert miles to kilometres " * 20_000
    chat = [completion("", [("route", {"query": huge})])]

    def reply(body: Body) -> Reply:
        if "input" in body and any(len(text) > 30_000 for text in body["input"]):
            return Reply(status=400, body={"error": {"message": "This model's maximum context length is 8192 tokens"}})
        return _turns(chat)(body)

    agent = CopilotAgent(retriever=load_retriever("openai:embed", fake_openai.base_url))
    episode = await _run(fake_openai, tmp_path, agent, task, reply)
    assert episode.termination == "done" and episode.infra_error is None and not episode.agent_error
    shown = json.loads(_routes(episode)[0].text)
    assert any(hit["tool"] == "convert" and hit["server"] == "units" for hit in shown)


async def test_copilot_same_bare_name_reaches_the_server_asked_for(fake_openai, tmp_path) -> None:
    """units__convert and finance__convert: execute reaches exactly the server named, however it is named."""
    task = _task("unit-001")
    route = completion("", [("route", {"query": "convert a value between units or currencies"})])
    execute_calls = completion("", [
        ("execute", {"server": "finance", "tool": "convert",
                     "params": {"amount": 10, "from_currency": "EUR", "to_currency": "USD"}}),
        ("execute", {"tool": "units__convert", "params": task.reference[0].args}),
        ("execute", {"server": "finance", "tool": "units__convert", "params": task.reference[0].args}),
        ("execute", {"server": "units", "tool": "convert", "params": [1, 2]}),
        ("execute", {"server": "units__convert", "tool": "convert", "params": {}}),
        ("execute", {"server": "units", "tool": "convert", **task.reference[0].args}),  # arguments beside, not in
        ("execute", {"server": "units", "tool": "convert", "arguments": task.reference[0].args}),
    ])
    agent = CopilotAgent(retriever=load_retriever("bm25"), top_k=10)
    episode = await _run(fake_openai, tmp_path, agent, task, _turns([route, execute_calls]), pool="all")
    shown = {(h["server"], h["tool"]) for h in json.loads(_routes(episode)[0].text)}
    assert {("units", "convert"), ("finance", "convert")} <= shown
    records = {c.call_id: c for c in episode.tool_calls}
    by_id = [records[f"call_{i}"] for i in range(7)]
    assert (by_id[0].server, by_id[0].tool, by_id[0].is_error) == ("finance", "convert", False)
    assert (by_id[1].server, by_id[1].tool, by_id[1].is_error) == ("units", "convert", False)
    assert by_id[2].error_kind == "unknown_tool" and by_id[2].server is None  # never sent to the wrong server
    assert by_id[3].error_kind == "invalid_arguments" and by_id[4].is_error and by_id[4].server is None
    for misplaced in by_id[5:]:  # refused, not run with no arguments
        assert misplaced.error_kind == "invalid_arguments" and "inside 'params'" in misplaced.content


async def test_copilot_top_k_larger_than_the_pool(fake_openai, tmp_path) -> None:
    task = _task("unit-001")
    route = completion("", [("route", {"query": "convert miles"})])
    episode = await _run(fake_openai, tmp_path, CopilotAgent(retriever=load_retriever("bm25"), top_k=500), task,
                         _turns([route]))
    shown = [(h["server"], h["tool"]) for h in json.loads(_routes(episode)[0].text)]
    assert len(shown) == len(set(shown)) > 1 and len(shown) <= episode.offered_count < 500  # every match, once


async def test_copilot_route_with_nothing_matching_says_so(fake_openai, tmp_path) -> None:
    """A need with no word of any tool in it ("what is the ...") gets no tools, not the alphabetically first ones."""
    task = _task("unit-001")
    route = completion("", [("route", {"query": "what is the"}), ("route", {"query": "xyzzy plugh"}),
                            ("route", {"query": "convert length units"})])
    episode = await _run(fake_openai, tmp_path, CopilotAgent(retriever=load_retriever("bm25"), top_k=5), task,
                         _turns([route]), pool="all")
    nothing, gibberish, some = (r.text for r in _routes(episode))
    assert nothing.startswith("No tools matched") and gibberish.startswith("No tools matched")
    assert all(hit["score"] > 0 for hit in json.loads(some))


def _vector_reply(vector_of: Callable[[int, str], list[float]]) -> Callable[[Body], Reply]:
    def reply(body: Body) -> Reply:
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        return Reply(body={"data": [{"index": i, "embedding": vector_of(i, text)} for i, text in enumerate(inputs)],
                           "usage": {"prompt_tokens": len(inputs)}})
    return reply


async def test_copilot_embeddings_that_change_dimension_between_calls(fake_openai, tmp_path) -> None:
    """The endpoint swaps models mid-run (vectors of another length): an infra error saying so, no traceback."""
    task = _task("unit-001")
    calls = [0]

    def vector(_i: int, text: str) -> list[float]:
        return [1.0, float(len(text) % 7), 0.5] if calls[0] > 1 else [1.0, 0.0, float(len(text) % 5), 2.0]

    def reply(body: Body) -> Reply:
        if "input" in body:
            calls[0] += 1
            return _vector_reply(vector)(body)
        return completion("", [("route", {"query": f"convert {len(fake_openai.requests)}"})]) \
            if len(fake_openai.requests) < 4 else completion("done")

    agent = CopilotAgent(retriever=load_retriever("openai:embed", fake_openai.base_url))
    episode = await _run(fake_openai, tmp_path, agent, task, reply)
    assert episode.infra_error is not None and episode.infra_error.kind == "provider_malformed_response"
    assert "length" in episode.infra_error.message


@pytest.mark.parametrize("value", ["NaN", "Infinity"])
def test_embeddings_that_are_not_finite_stop_the_command_with_one_line(fake_openai, tmp_path, value: str) -> None:
    def reply(body: Body) -> Reply:
        inputs = body["input"]
        return Reply(body='{"data": [' + ", ".join(
            f'{{"index": {i}, "embedding": [1.0, {value}, 0.5]}}' for i in range(len(inputs))) + "]}")

    fake_openai.responder = reply
    result = CliRunner().invoke(app, ["run", "--task", "unit-001", "--agent", "copilot", "--retriever", "openai:e",
                                      "--retriever-base-url", fake_openai.base_url, "--model", "openai:fake",
                                      "--base-url", fake_openai.base_url, "--db", str(tmp_path / "r.db")])
    assert result.exit_code == 2 and "not a finite number" in result.output and "Traceback" not in result.output
    assert len([line for line in result.output.splitlines() if line.strip()]) == 1


def _embeddings_as_asked(body: Body) -> Reply:
    """Like OpenAI: vectors as base64 float32 when the request asks for ``encoding_format: base64``."""
    import base64
    import struct

    reply = embeddings_reply(body)
    if body.get("encoding_format") == "base64":
        for item in reply.body["data"]:  # type: ignore[index]
            vector = item["embedding"]
            item["embedding"] = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
    return reply


def test_embeddings_endpoint_that_keeps_connections_alive(fake_openai, tmp_path) -> None:
    """Real endpoints keep connections open (the probe's event loop and the run's must not share one) and
    send base64 unless asked for floats."""
    task = _task("unit-001")
    fake_openai.responder = Brain(plan=task.reference, answer=task.reference_answer or "").openai
    with FakeOpenAI(responder=_embeddings_as_asked, keep_alive=True) as embeddings:
        result = CliRunner().invoke(app, ["run", "--task", "unit-001", "--agent", "copilot", "--retriever", "openai:e",
                                          "--retriever-base-url", embeddings.base_url, "--model", "openai:fake",
                                          "--base-url", fake_openai.base_url, "--db", str(tmp_path / "r.db")])
        assert len(embeddings.requests) >= 3  # the probe, the pool, the need
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and "Event loop is closed" not in result.output
    episode = next(Store(tmp_path / "r.db").episodes())
    assert episode.infra_error is None and _routes(episode)


def test_embeddings_rate_limited_then_fine(fake_openai, tmp_path) -> None:
    task = _task("unit-001")
    fake_openai.queue(Reply(status=429, body={"error": {"message": "slow down"}}, headers={"retry-after": "0"}))
    fake_openai.responder = Brain(plan=task.reference, answer=task.reference_answer or "").openai
    db = str(tmp_path / "r.db")
    result = CliRunner().invoke(app, ["run", "--task", "unit-001", "--agent", "copilot", "--retriever", "openai:e",
                                      "--retriever-base-url", fake_openai.base_url, "--model", "openai:fake",
                                      "--base-url", fake_openai.base_url, "--db", db])
    assert result.exit_code == 0, result.output
    assert fake_openai.paths[:2] == ["/v1/embeddings", "/v1/embeddings"]  # the probe was retried
    assert Store(db).scores()[next(Store(db).episodes()).id]["effects"].passed


# --------------------------------------------------------------------------- react modules


def _roles(episode: Episode) -> list[str]:
    return [s.role for s in episode.steps if isinstance(s, ModelTurn)]


async def test_reflect_when_every_call_fails(fake_openai, tmp_path) -> None:
    """Every turn fails (a different wrong call each time): a reflection after each, the turn limit ends it."""
    task = _task("unit-001")
    wrong = [completion("", [("units__convert", {"value": i, "from_unit": "parsec", "to_unit": "??"})])
             for i in range(3)]

    def reply(body: Body) -> Reply:
        last = body["messages"][-1]["content"] or ""
        if last.startswith("A tool call you just made failed"):
            return completion(f"REFLECTION {len(fake_openai.requests)}")
        return wrong.pop(0) if wrong else completion("gave up")

    episode = await _run(fake_openai, tmp_path, ReactAgent(modules=("reflect",), max_turns=3, name="react+reflect"),
                         task, reply)
    assert all(c.is_error for c in episode.tool_calls) and len(episode.tool_calls) == 3
    assert _roles(episode) == ["agent", "reflection"] * 3 and episode.termination == "max_turns"


async def test_plan_turn_provider_error_is_an_infra_error(fake_openai, tmp_path) -> None:
    task = _task("unit-001")

    def reply(body: Body) -> Reply:
        if (body["messages"][-1]["content"] or "").startswith("Before acting"):
            return Reply(status=503, body={"error": {"message": "overloaded"}})
        return completion("unused")

    episode = await _run(fake_openai, tmp_path, ReactAgent(modules=("plan",), name="react+plan"), task, reply)
    assert episode.termination == "infra_error" and episode.infra_error is not None
    assert episode.infra_error.kind == "provider_server_error" and "503" in episode.infra_error.message


async def test_memory_with_one_result_larger_than_the_threshold_keeps_the_plan_in_view(fake_openai, tmp_path) -> None:
    """A single result alone exceeds the memory threshold: summaries roll, the latest exchange and plan stay."""
    task = _task("trip-004")
    brain = Brain(plan=task.reference, answer=task.reference_answer or "")
    steps = [completion("", [(s.tool, s.args)]) for s in task.reference]  # one call per turn

    def reply(body: Body) -> Reply:
        last = body["messages"][-1]["content"] or ""
        if last.startswith(("Before acting", "Revise your plan", "Summarise the work")):
            return brain.openai(body)
        return steps.pop(0) if steps else completion(task.reference_answer or "")

    agent = ReactAgent(modules=("plan", "memory"), memory_chars=300, revise_every=100, name="react+plan+memory")
    episode = await _run(fake_openai, tmp_path, agent, task, reply)
    assert episode.termination == "done" and all(not c.is_error for c in episode.tool_calls)
    assert "memory" in _roles(episode)
    last = fake_openai.requests[-1]["messages"]
    assert any(m["content"].startswith("Summary of your work so far") for m in last if m["role"] == "user")
    # the plan, written once before acting, is still in view after the earlier turns were summarised
    assert any((m["content"] or "").startswith("Your plan") for m in last)
    assert [m["role"] for m in last][-2:] == ["assistant", "tool"]


# --------------------------------------------------------------------------- prompt tool mode


_TAG = "<tool_call>"


def _prompt_mode(brain: Brain) -> Callable[[Body], Reply]:
    """Drive ``brain`` through ``--tool-mode prompt``: tools read from the system prompt, calls written as tags."""
    from mcptrials.models.base import Message, ToolSchema

    def reply(body: Body) -> Reply:
        assert not body.get("tools")  # prompt mode never sends native tools
        messages: list[Message] = []
        tools: list[ToolSchema] = []
        for m in body["messages"]:
            content = m["content"] or ""
            if m["role"] == "system" and "Tools (name, description" in content:
                head, _, block = content.partition("Tools (name, description, JSON Schema of the arguments):\n")
                tools = [ToolSchema(**json.loads(line)) for line in block.splitlines() if line.strip()]
                content = head.split("You can use the tools listed below")[0].strip()
            if m["role"] == "assistant" and _TAG in content:
                from mcptrials.models.toolcall_parse import parse_output

                parsed = parse_output(content)
                from mcptrials.model import ToolCallRequest

                calls = [ToolCallRequest(id=f"p{i}", name=c.name, arguments=c.arguments)
                         for i, c in enumerate(parsed.calls)]
                messages.append(Message(role="assistant", content=parsed.text, tool_calls=calls))
            elif m["role"] == "user" and content.startswith("Result of "):
                messages.append(Message(role="tool", content=content))
            else:
                messages.append(Message(role=m["role"], content=content))
        response = brain.reply(messages, tools)
        text = response.text + "".join(f"\n{_TAG}{json.dumps({'name': c.name, 'arguments': c.arguments})}</tool_call>"
                                       for c in response.tool_calls)
        return completion(text.strip())
    return reply


@pytest.mark.parametrize("design", [["--agent", "planner"], ["--agent", "copilot", "--pool", "all"],
                                    ["--agent", "react", "--modules", "reflect,plan,memory"]])
def test_designs_in_prompt_tool_mode(fake_openai, tmp_path, design: list[str]) -> None:
    task = _task("trip-010")
    fake_openai.responder = _prompt_mode(Brain(plan=task.reference, answer=task.reference_answer or "",
                                               mistake_first="react" in design))
    db = str(tmp_path / "r.db")
    result = CliRunner().invoke(app, ["run", "--task", "trip-010", *design, "--tool-mode", "prompt",
                                      "--model", "openai:fake", "--base-url", fake_openai.base_url, "--db", db])
    assert result.exit_code == 0, result.output
    store = Store(db)
    [episode] = list(store.episodes())
    assert store.scores()[episode.id]["effects"].passed, (episode.termination, episode.final_answer)
    assert [c.name for c in episode.tool_calls if not c.is_error] == [s.tool for s in task.reference]
    assert store.runs()[0]["config"]["model"]["tool_mode"] == "prompt"


# --------------------------------------------------------------------------- pools and distractors


def _broken() -> Any:
    import sys

    from mcptrials.model import ServerSpec

    return ServerSpec(name="broken", command=sys.executable, args=["-c", "import sys; sys.exit(3)"])


async def test_pool_all_with_a_server_that_does_not_start_is_an_infra_error_naming_it(tmp_path) -> None:
    """The pool the run records is every configured server: one missing means the episode is not what was asked."""
    from mcptrials.agents.reference import ReferenceAgent

    servers = {**bundled_servers(), "broken": _broken()}
    store = Store(tmp_path / "r.db")
    await execute(RunPlan(servers=servers, tasks=[_task("unit-001")], agent=ReferenceAgent(), model=None,
                          pool="all"), store)
    [episode] = list(store.episodes())
    assert episode.termination == "infra_error" and episode.infra_error is not None
    assert (episode.infra_error.kind, episode.infra_error.server) == ("server_start", "broken")


def test_distractor_catalogue_with_a_server_that_does_not_start_is_refused() -> None:
    """Distractors chosen from a catalogue that lacks a server would change when it comes back (and the resume key)."""
    from mcptrials.run.offer import OfferError
    from mcptrials.run.options import prepare_offer

    specs = {name: spec for name, spec in bundled_servers().items() if name in {"units", "finance", "clock"}}
    with pytest.raises(OfferError, match="broken"):
        prepare_offer({**specs, "broken": _broken()}, [_task("unit-001")], "task", 3, 0)


def test_distractors_when_the_task_uses_the_whole_config() -> None:
    from mcptrials.run.options import prepare_offer

    specs = {"units": bundled_servers()["units"]}
    tasks, setting, notes = prepare_offer(specs, [_task("unit-001")], "task", 50, 0)
    assert tasks[0].distractors == [] and setting == {"k": 50, "seed": 0}
    assert "only 0 tool(s) outside the task's offer (wanted 50)" in notes["unit-001"]


def test_distractor_choice_is_the_same_in_another_process(tmp_path) -> None:
    """Seeded choice does not depend on the interpreter's hash seed (set order) or the catalogue's order."""
    import os
    import subprocess
    import sys

    from mcptrials.run.options import catalogue

    tools = anyio.run(catalogue, bundled_servers())
    path = tmp_path / "catalogue.json"
    path.write_text(json.dumps([t.model_dump(mode="json") for t in reversed(tools)]))
    script = ("import json,sys; from mcptrials.model import ToolInfo; from mcptrials.run.offer import pick_distractors;"
              "from mcptrials.bundled.world import bundled_tasks;"
              "pool=[ToolInfo.model_validate(t) for t in json.load(open(sys.argv[1]))];"
              "print(json.dumps({t.id: pick_distractors(t, pool, 6, 11) for t in bundled_tasks()[:40]}))")
    outputs = [subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")]
    assert outputs[0] == outputs[1] and len(json.loads(outputs[0])) == 40


async def test_recorded_distractor_removed_on_an_evolved_version(tmp_path) -> None:
    """A distractor the version retired is replaced by what took over its job; the offer never names a dead tool."""
    from mcptrials.agents.reference import ReferenceAgent
    from mcptrials.cli import versioned_worlds

    task = _task("unit-001").model_copy(update={"distractors": ["mathstats__stdev", "finance__convert"]})
    [(version, specs, tasks)] = versioned_worlds(bundled_servers(), [task], "v5", None)
    store = Store(tmp_path / "r.db")
    await execute(RunPlan(servers=specs, tasks=tasks, agent=ReferenceAgent(), model=None, version=version), store)
    [episode] = list(store.episodes())
    extra = sorted(n for n in episode.offered_tools if not n.startswith("units__"))
    assert "mathstats__stdev" not in extra and "finance__convert" not in extra
    assert extra == sorted(tasks[0].distractors) and episode.offered_count == len(episode.offered_tools)


# --------------------------------------------------------------------------- settings and resume


def test_every_design_option_changes_the_resume_key() -> None:
    """Each option that can change a score gives another settings hash; equivalent spellings give the same."""
    from itertools import combinations

    from mcptrials.agents.registry import load_agent
    from mcptrials.model import stable_hash

    def key(agent: str, pool: str = "task", distractors: dict[str, int] | None = None, retriever: str = "bm25",
            retriever_base_url: str | None = None, **options: Any) -> str:
        design = load_agent(agent, retriever=load_retriever(retriever, retriever_base_url), **options)
        plan = RunPlan(servers=bundled_servers(), tasks=[], agent=design, model=None, pool=pool,
                       distractors=distractors)
        return stable_hash([design.name, plan.settings()])

    variants = [key("react"), key("planner"), key("planner", max_rounds=5), key("copilot"), key("copilot", top_k=3),
                key("copilot", retriever="openai:e", retriever_base_url="http://127.0.0.1:9/v1"),
                key("copilot", retriever="openai:e2", retriever_base_url="http://127.0.0.1:9/v1"),
                key("copilot", retriever="openai:e", retriever_base_url="http://127.0.0.1:8/v1"),
                key("react", pool="all"), key("react", distractors={"k": 2, "seed": 0}),
                key("react", distractors={"k": 2, "seed": 1}), key("react", distractors={"k": 3, "seed": 0})]
    subsets = [",".join(c) for n in (1, 2, 3) for c in combinations(["reflect", "plan", "memory"], n)]
    variants += [key("react", modules=s) for s in subsets]
    assert len(set(variants)) == len(variants)
    assert key("react", modules="memory,reflect") == key("react", modules="reflect,memory")
    names = {load_agent("react", modules=s).name for s in subsets}
    assert len(names) == len(subsets) and all(n.startswith("react+") for n in names)


@pytest.mark.parametrize("design", [["--agent", "planner", "--max-rounds", "4"],
                                    ["--agent", "copilot", "--top-k", "4"],
                                    ["--agent", "react", "--modules", "plan"]])
def test_resumed_run_does_not_redo_stored_episodes(fake_openai, tmp_path, design: list[str]) -> None:
    brains = {t.id: Brain(plan=t.reference, answer=t.reference_answer or "") for t in map(_task, ["unit-001",
                                                                                                 "trip-010"])}

    def reply(body: Body) -> Reply:  # which task: the one whose prompt the conversation carries
        text = json.dumps(body)
        task_id = next(i for i in brains if json.dumps(_task(i).prompt)[1:-1] in text)
        return brains[task_id].openai(body)

    fake_openai.responder = reply
    db = str(tmp_path / "r.db")
    args = [*design, "--model", "openai:fake", "--base-url", fake_openai.base_url, "--db", db]
    first = CliRunner().invoke(app, ["run", "--task", "unit-001", *args])
    assert first.exit_code == 0, first.output
    before = len(fake_openai.requests)
    again = CliRunner().invoke(app, ["run", "--task", "unit-001", "--task", "trip-010", *args])
    assert again.exit_code == 0 and "1 already stored" in again.output, again.output
    resumed = [r for r in fake_openai.requests[before:] if "messages" in r]
    assert resumed and all(_task("unit-001").prompt not in json.dumps(r) for r in resumed)
    episodes = list(Store(db).episodes())
    assert sorted(e.task_id for e in episodes) == ["trip-010", "unit-001"]
    changed = CliRunner().invoke(app, ["run", "--task", "unit-001", *args[:-2], "--max-repeats", "2", "--db", db])
    assert changed.exit_code == 0 and "0 already stored" in changed.output  # another setting: a new episode
