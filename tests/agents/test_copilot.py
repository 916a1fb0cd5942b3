"""The copilot agent end to end over the whole bundled pool (``--pool all``), through the CLI."""

from __future__ import annotations

import json

import pytest
from agent_brain import Brain, embeddings_reply
from fake_openai import Reply
from typer.testing import CliRunner

from mcptrials.agents.copilot import CopilotAgent, execute_target
from mcptrials.agents.retrieval import load_retriever
from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.cli import app
from mcptrials.model import ModelTurn, ToolCallRequest
from mcptrials.models.base import ModelResponse
from mcptrials.models.scripted import ScriptedModel
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store

TASK = "trip-004"


def _task():
    return next(t for t in bundled_tasks() if t.id == TASK)


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["run", "--task", TASK, *args])
    return result.exit_code, result.output  # stdout and stderr together


def _scores(db: str, agent: str) -> tuple[object, list[tuple[str, bool]]]:
    store = Store(db)
    episode = next(e for e in store.episodes() if e.agent == agent)
    effects = store.scores()[episode.id]["effects"]
    return episode, [(c.id, c.passed) for c in effects.checkpoints]


@pytest.mark.slow
def test_copilot_routes_and_executes_over_the_whole_pool(fake_openai, tmp_path) -> None:
    task = _task()
    fake_openai.responder = Brain(plan=task.reference, answer=task.reference_answer or "").openai
    db = str(tmp_path / "r.db")
    code, text = _run("--agent", "copilot", "--pool", "all", "--top-k", "3", "--model", "openai:fake",
                      "--base-url", fake_openai.base_url, "--db", db)
    assert code == 0, text
    code, text = _run("--agent", "reference", "--db", db)
    assert code == 0, text
    episode, checkpoints = _scores(db, "copilot")
    reference, reference_checkpoints = _scores(db, "reference")
    # executed calls are recorded as the real server's tools and score exactly like the direct calls
    assert [(c.server, c.tool, c.name, c.arguments) for c in episode.tool_calls] == \
        [(c.server, c.tool, c.name, c.arguments) for c in reference.tool_calls]
    assert checkpoints == reference_checkpoints and all(ok for _, ok in checkpoints)
    # the model saw only the two meta-tools, never the pool
    chat_requests = [r for r in fake_openai.requests if "messages" in r]
    assert all(sorted(t["function"]["name"] for t in r["tools"]) == ["execute", "route"] for r in chat_requests)
    # route ran over every tool of every bundled server and showed the top 3 for each need
    assert episode.offered_count == len(episode.offered_tools) > 150
    routes = [s for s in episode.steps if isinstance(s, ModelTurn) and s.role == "router"]
    assert len(routes) == len(task.reference)
    for step, route in zip(task.reference, routes, strict=True):
        shown = json.loads(route.text)
        assert len(shown) == 3 and f"{shown[0]['server']}__{shown[0]['tool']}" == step.tool


def test_execute_refuses_a_tool_route_did_not_return(fake_openai, tmp_path) -> None:
    task = _task()
    fake_openai.responder = Brain(plan=task.reference, answer="x", skip_route=True).openai
    db = str(tmp_path / "r.db")
    code, text = _run("--agent", "copilot", "--model", "openai:fake", "--base-url", fake_openai.base_url,
                      "--max-turns", "2", "--db", db)
    assert code == 0, text
    episode = next(Store(db).episodes())
    assert episode.tool_calls and all(c.error_kind == "unknown_tool" and "call route first" in c.content
                                      for c in episode.tool_calls)
    assert [c.name for c in episode.tool_calls] == [s.tool for s in task.reference]


@pytest.mark.slow
def test_copilot_with_an_embeddings_endpoint(fake_openai, tmp_path) -> None:
    task = _task()
    fake_openai.responder = Brain(plan=task.reference, answer=task.reference_answer or "").openai
    db = str(tmp_path / "r.db")
    code, text = _run("--agent", "copilot", "--pool", "all", "--retriever", "openai:embed-test",
                      "--retriever-base-url", fake_openai.base_url, "--model", "openai:fake",
                      "--base-url", fake_openai.base_url, "--db", db)
    assert code == 0, text
    assert "/v1/embeddings" in fake_openai.paths
    embedded = [r for r, p in zip(fake_openai.requests, fake_openai.paths, strict=True) if p.endswith("/embeddings")]
    assert all(r["model"] == "embed-test" for r in embedded)
    episode, checkpoints = _scores(db, "copilot")
    refused = [c for c in episode.tool_calls if c.error_kind == "unknown_tool"]  # a need the fake vectors missed
    failed = {cid for cid, ok in checkpoints if not ok}
    assert failed <= ({"_grounding"} if refused else set()), (failed, [c.name for c in refused])
    routes = [s for s in episode.steps if isinstance(s, ModelTurn) and s.role == "router"]
    assert routes and all(r.usage.prompt_tokens > 0 for r in routes)  # the endpoint's token counts are kept
    with Store(db).engine.connect() as conn:
        run = json.loads(conn.exec_driver_sql("select config from runs").scalar_one())
    assert run["agent"]["retriever"]["model"] == "embed-test" and run["agent"]["top_k"] == 5


@pytest.mark.slow
def test_copilot_with_the_offline_hybrid_retriever(fake_openai, tmp_path, monkeypatch) -> None:
    task = _task()
    fake_openai.responder = Brain(plan=task.reference, answer=task.reference_answer or "").openai
    monkeypatch.setenv("MCPTRIALS_CACHE", str(tmp_path / "cache"))
    db = str(tmp_path / "r.db")
    code, text = _run("--agent", "copilot", "--pool", "all", "--retriever", "hybrid", "--model", "openai:fake",
                      "--base-url", fake_openai.base_url, "--db", db)
    assert code == 0, text
    assert not any(p.endswith("/embeddings") for p in fake_openai.paths)  # nothing left the machine to embed
    episode, checkpoints = _scores(db, "copilot")
    assert all(ok for _, ok in checkpoints)
    assert any(isinstance(s, ModelTurn) and s.role == "router" for s in episode.steps)
    # the pool's server and tool documents were embedded once each and kept on disk, nothing else (no probe)
    assert len(list((tmp_path / "cache" / "retrieval").glob("*.npy"))) == 2
    with Store(db).engine.connect() as conn:
        run = json.loads(conn.exec_driver_sql("select config from runs").scalar_one())
    assert run["agent"]["retriever"]["backend"] == "hybrid" and run["agent"]["retriever"]["spec"] == "hybrid"


@pytest.mark.parametrize(("reply", "needle"), [
    (Reply(body={"data": []}), "expected 'data' with 2 embedding(s), got 0"),
    (Reply(body="<html>gateway</html>"), "not JSON"),
    (Reply(body={"data": [{"index": 0, "embedding": "abc"}, {"index": 1, "embedding": [1.0]}]}),
     "item 0 has no numeric 'embedding' list"),
])
def test_bad_embeddings_reply_is_one_line(fake_openai, tmp_path, reply, needle) -> None:
    fake_openai.responder = lambda body: reply if "input" in body else embeddings_reply(body)
    code, text = _run("--agent", "copilot", "--retriever", "openai:embed-test", "--retriever-base-url",
                      fake_openai.base_url, "--model", "openai:fake", "--base-url", fake_openai.base_url,
                      "--db", str(tmp_path / "r.db"))
    assert code == 2 and needle in text and "Traceback" not in text
    assert len([line for line in text.splitlines() if line.strip()]) == 1


@pytest.mark.parametrize(("arguments", "expected"), [
    ({"server": "units", "tool": "convert", "params": {"value": 1}}, ("units__convert", {"value": 1})),
    ({"tool": "units__convert", "params": '{"value": 1}'}, ("units__convert", {"value": 1})),
    ({"server": "units", "tool": "units__convert"}, ("units__convert", {})),
    ({"server": "units", "tool": "convert", "params": None}, ("units__convert", {})),
])
def test_execute_targets(arguments, expected) -> None:
    assert execute_target(arguments) == expected


@pytest.mark.parametrize("arguments", [None, {"tool": "convert"}, {"server": "units", "tool": "convert",
                                                                   "params": "[1]"},
                                       {"server": "units", "tool": "convert", "params": "{oops"}])
def test_bad_execute_arguments(arguments) -> None:
    with pytest.raises(ValueError, match="execute"):
        execute_target(arguments)


async def test_a_tool_called_directly_is_recorded_as_not_offered(tmp_path) -> None:
    def guess(messages, tools, _context) -> ModelResponse:  # a weak model calling a pool tool by name
        if any(m.role == "tool" for m in messages):
            return ModelResponse(text="I could not convert it.")
        return ModelResponse(tool_calls=[ToolCallRequest(id="c1", name="units__convert",
                                                         arguments={"value": 1, "from_unit": "km", "to_unit": "m"})])

    task = next(t for t in bundled_tasks() if t.id == "unit-001")
    store = Store(tmp_path / "r.db")
    await execute(RunPlan(servers=bundled_servers(), tasks=[task], model=ScriptedModel(source="guess", fn=guess),
                          agent=CopilotAgent(retriever=load_retriever("bm25"))), store)
    [call] = next(store.episodes()).tool_calls
    assert (call.name, call.error_kind, call.server, call.tool) == ("units__convert", "unknown_tool", None, None)
    assert "use route, then execute" in call.content
