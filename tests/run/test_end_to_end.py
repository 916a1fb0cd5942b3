"""The react agent driven through the openai provider by a real local HTTP endpoint, end to end."""

from __future__ import annotations

from pathlib import Path

import anyio
from fake_openai import FakeOpenAI, Reply, completion

from mcptrials.agents.react import ReactAgent
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.models.retry import RetryPolicy
from mcptrials.report.summary import report_from_store
from mcptrials.run.runner import FatalRunError, RunPlan, execute
from mcptrials.store.db import Store
from mcptrials.tasks.loader import load_tasks


def plan(example_specs, tasks, fake: FakeOpenAI, attempts: int = 1) -> RunPlan:
    chat = OpenAIModel(model="fake", base_url=fake.base_url, api_key="sk-secret-do-not-store",
                       retry=RetryPolicy(max_retries=1, base_delay=0.01))
    return RunPlan(servers=example_specs, tasks=tasks, agent=ReactAgent(max_turns=6), model=chat,
                   attempts=attempts, concurrency=1)


def trip_task(example_tasks_path: Path):
    return [t for t in load_tasks(example_tasks_path) if t.id == "ex-trip-note"]


async def test_correct_trajectory_passes(example_specs, example_tasks_path, fake_openai, tmp_path) -> None:
    fake_openai.queue(
        completion("", [("rail__get_station_codes", {"city": "Beijing"}),
                        ("rail__get_station_codes", {"city": "Shanghai"})]),
        completion("", [("rail__get_tickets", {"from_station": "VNP", "to_station": "SHH", "date": "2026-04-15",
                                               "train_type": "G"})]),
        completion("", [("notes__write_file", {"path": "trip.md", "content": "G1 07:00 and G7 09:00"})]),
        completion("Your options are G1 and G7; saved in trip.md."),
    )
    store = Store(tmp_path / "r.db")
    result = await execute(plan(example_specs, trip_task(example_tasks_path), fake_openai), store)
    assert result.counts == {"passed": 1, "failed": 0, "infra_error": 0}
    episode = next(store.episodes())
    assert [c.name for c in episode.tool_calls] == ["rail__get_station_codes", "rail__get_station_codes",
                                                    "rail__get_tickets", "notes__write_file"]
    assert episode.usage.prompt_tokens == 4 * 11 and len(episode.model_turns) == 4
    assert "G7" in episode.tool_calls[2].content
    # the tool results went back to the model as tool messages
    assert any(m["role"] == "tool" and "G7" in m["content"] for m in fake_openai.requests[2]["messages"])
    report = report_from_store(store)
    assert report["episodes"][0]["outcome"] == "passed"
    assert report["summary"][0]["pass_hat_k"] == 1.0


async def test_wrong_trajectory_fails_with_codes(example_specs, example_tasks_path, fake_openai, tmp_path) -> None:
    fake_openai.queue(
        completion("", [("notes__write_file", {"path": "trip.md", "content": "G1"})]),
        completion("", [("rail__get_tickets", {"from_station": "SHH", "to_station": "VNP", "date": "2026-04-16"})]),
        completion("", [("notes__delete_file", {"path": "work.md"})]),
        completion("Done."),
    )
    store = Store(tmp_path / "r.db")
    result = await execute(plan(example_specs, trip_task(example_tasks_path), fake_openai), store)
    assert result.counts["failed"] == 1
    row = report_from_store(store)["episodes"][0]
    assert row["outcome"] == "failed"
    assert row["checkpoints"] == {"c1": False, "c2": False}
    assert row["failure_codes"] == ["wrong_arguments", "minefield"]


async def test_provider_failure_is_an_infra_error_and_run_goes_on(example_specs, example_tasks_path,
                                                                  fake_openai, tmp_path) -> None:
    tasks = load_tasks(example_tasks_path)[:2]
    fake_openai.queue(Reply(500, {"error": {"message": "down"}}), Reply(500, {"error": {"message": "down"}}),
                      completion("K1151 has seats."))
    store = Store(tmp_path / "r.db")
    result = await execute(plan(example_specs, tasks, fake_openai), store)
    assert result.counts["infra_error"] == 1 and result.completed == 2
    infra = [e for e in store.episodes() if e.infra_error]
    assert infra[0].infra_error.kind == "provider_server_error"
    summary = report_from_store(store)["summary"][0]
    assert summary["infra_errors"] == 1 and summary["n_tasks"] == 1


async def test_fatal_provider_error_stops_the_run(example_specs, example_tasks_path, fake_openai, tmp_path) -> None:
    fake_openai.default = Reply(401, {"error": {"message": "invalid api key"}})
    store = Store(tmp_path / "r.db")
    try:
        await execute(plan(example_specs, load_tasks(example_tasks_path), fake_openai), store)
    except FatalRunError as exc:
        assert "authentication failed" in str(exc)
    else:
        raise AssertionError("a 401 must stop the run")
    assert list(store.episodes()) == []


async def test_no_secret_is_stored(example_specs, example_tasks_path, fake_openai, tmp_path) -> None:
    fake_openai.default = completion("nothing to do")
    db = tmp_path / "r.db"
    await execute(plan(example_specs, trip_task(example_tasks_path), fake_openai), Store(db))
    await anyio.sleep(0)
    blob = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("r.db"))
    assert b"sk-secret-do-not-store" not in blob
