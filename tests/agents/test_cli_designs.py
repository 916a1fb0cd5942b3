"""The agent-design options of ``run`` and ``bench retrieval`` through the CLI: wiring, settings, bad input."""

from __future__ import annotations

import json

import pytest
from agent_brain import Brain, embeddings_reply
from typer.testing import CliRunner

from mcptrials.bundled.world import bundled_tasks
from mcptrials.cli import app
from mcptrials.store.db import Store


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize(("args", "needle"), [
    (["--agent", "react", "--modules", "reflect,dream"], "unknown module(s) 'dream' (known: reflect, plan, memory)"),
    (["--agent", "planner", "--modules", "plan"], "--modules are options of the react agent, not of 'planner'"),
    (["--agent", "copilot", "--top-k", "0"], "--top-k must be at least 1 (got 0)"),
    (["--agent", "copilot", "--retriever", "bm99"],
     "unknown retriever 'bm99' (known: bm25, local, hybrid, local:gemma, hybrid:gemma, openai:MODEL)"),
    (["--agent", "copilot", "--retriever", "openai:"], "needs an embedding model name"),
    (["--agent", "planner", "--max-rounds", "0"], "--max-rounds must be at least 1 (got 0)"),
    (["--agent", "reference", "--pool", "everything"], "unknown pool 'everything' (known: task, all)"),
    (["--agent", "reference", "--pool", "all", "--distractors", "2"], "--pool all already offers every tool"),
])
def test_bad_design_options_are_one_line(tmp_path, args: list[str], needle: str) -> None:
    code, text = invoke("run", "--task", "unit-001", "--db", str(tmp_path / "r.db"), *args)
    assert code == 2 and needle in text and "Traceback" not in text, text
    assert len([line for line in text.splitlines() if line.strip()]) == 1


@pytest.mark.parametrize("ks", ["0,1", "a,b", ""])
def test_bad_cutoffs(ks: str) -> None:
    code, text = invoke("bench", "retrieval", "--k", ks)
    assert code == 2 and "--k" in text and "Traceback" not in text


def test_planner_through_the_cli_records_its_settings(fake_openai, tmp_path) -> None:
    task = next(t for t in bundled_tasks() if t.id == "trip-010")
    fake_openai.responder = Brain(plan=task.reference, answer=task.reference_answer or "").openai
    db = str(tmp_path / "r.db")
    code, text = invoke("run", "--task", "trip-010", "--agent", "planner", "--max-rounds", "3", "--model",
                        "openai:fake", "--base-url", fake_openai.base_url, "--db", db)
    assert code == 0, text
    store = Store(db)
    [episode] = list(store.episodes())
    assert episode.agent == "planner" and store.scores()[episode.id]["effects"].passed
    assert store.runs()[0]["config"]["agent"]["max_rounds"] == 3


def test_bench_retrieval_json() -> None:
    code, text = invoke("bench", "retrieval", "--k", "1,5", "--format", "json")
    assert code == 0, text
    data = json.loads(text)
    assert data["tasks"] == len(bundled_tasks()) and data["pool_tools"] > 150
    [bm25] = data["retrievers"]
    assert bm25["retriever"] == "bm25" and bm25["tasks"] == data["tasks"]
    recall = bm25["recall_at_k"]
    assert set(recall) == {"1", "5"} and 0 < recall["1"] <= recall["5"] <= 1
    assert 0 < bm25["mrr"] <= 1 and bm25["all_needed_at_k"]["1"] <= recall["1"] and bm25["index_seconds"] > 0


def test_bench_retrieval_puts_an_embeddings_endpoint_beside_bm25(fake_openai, tmp_path) -> None:
    fake_openai.responder = embeddings_reply
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(t.model_dump_json() + "\n" for t in bundled_tasks()[:3]))
    code, text = invoke("bench", "retrieval", "--tasks", str(tasks), "--retriever", "bm25,openai:embed-test",
                        "--retriever-base-url", fake_openai.base_url, "--k", "1,3", "--format", "json")
    assert code == 0, text
    bm25, remote = json.loads(text)["retrievers"]
    assert (bm25["retriever"], remote["retriever"]) == ("bm25", "openai:embed-test")
    assert remote["settings"]["backend"] == "openai-embeddings" and set(remote["recall_at_k"]) == {"1", "3"}
    assert any(path.endswith("/embeddings") for path in fake_openai.paths)
