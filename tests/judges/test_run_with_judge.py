"""`run --judge`: judges score each episode right after Tier-1, stored beside it."""

from __future__ import annotations

from fake_openai import completion

from mcptrials.agents.react import ReactAgent
from mcptrials.judges.apply import judges_from_spec
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.models.retry import RetryPolicy
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store
from mcptrials.tasks.loader import load_tasks


async def test_run_calls_judges_after_tier1(example_specs, example_tasks_path, fake_openai, judge_endpoint,
                                            tmp_path) -> None:
    fake_openai.queue(
        completion("", [("rail__get_tickets", {"from_station": "SHH", "to_station": "VNP", "date": "2026-04-16"})]),
        completion("Done."),
    )
    store = Store(tmp_path / "r.db")
    chat = OpenAIModel(model="fake", base_url=fake_openai.base_url, api_key="x",
                       retry=RetryPolicy(max_retries=0, base_delay=0.01))
    task = [t for t in load_tasks(example_tasks_path) if t.id == "ex-trip-note"]
    judges = judges_from_spec("openai:gpt-4o-mini", store, "tier2,errors", base_url=judge_endpoint.base_url)[1]
    plan = RunPlan(servers=example_specs, tasks=task, agent=ReactAgent(max_turns=4), model=chat, concurrency=1,
                   judges=judges)
    result = await execute(plan, store)
    assert result.counts["failed"] == 1
    scores = next(iter(store.scores().values()))
    assert {"effects", "rules", "judge:tier2", "judge:errors"} <= set(scores)
    assert judge_endpoint.requests, "the judge endpoint was never asked"
    assert result.cost_usd == sum(s.values.get("judge_cost_usd", 0.0) for s in scores.values())
