"""Each judge against a real local OpenAI-compatible endpoint: prompts sent, verdicts read, errors kept."""

from __future__ import annotations

import pytest
from judge_endpoint import COMPLETION_TOKENS, PROMPT_TOKENS

from mcptrials.judges.base import JUDGE_ERROR, JudgeModel, MalformedReply, build_judges, extract_json
from mcptrials.judges.errors import ErrorTypeJudge
from mcptrials.judges.keypoints import KeyPointJudge, generate_key_points
from mcptrials.judges.labelset import shipped_world
from mcptrials.judges.rubric import DIMENSIONS, RubricJudge
from mcptrials.judges.tier2 import Tier2Judge
from mcptrials.models.registry import load_model
from mcptrials.scoring.effects import score_effects
from mcptrials.scoring.rescore import offered_tools
from mcptrials.store.db import Store

PRICE_IN, PRICE_OUT = 0.15, 0.60  # the shipped gpt-4o-mini price, USD per million tokens
COST_PER_REQUEST = (PROMPT_TOKENS * PRICE_IN + COMPLETION_TOKENS * PRICE_OUT) / 1_000_000


@pytest.fixture(scope="module")
def world():
    episodes, catalog, tasks = shipped_world(current_tasks=False)
    by_key = {e.model.split("reviewed:")[1]: e for e in episodes.values()}
    return by_key, catalog, tasks


def case(world, key):
    by_key, catalog, tasks = world
    episode = by_key[key]
    task = tasks[(episode.task_id, "v0")]
    tools = offered_tools(episode, catalog)
    return task, episode, score_effects(task, episode, tools), tools


def judge_model(endpoint, store=None, retries=2) -> JudgeModel:
    return JudgeModel(chat=load_model("openai:gpt-4o-mini", base_url=endpoint.base_url), cache=store, retries=retries)


def test_extract_json_is_tolerant() -> None:
    assert extract_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json('Sure! {"a": {"b": [1, 2]}} hope that helps {"c": 3}') == {"a": {"b": [1, 2]}}
    assert extract_json('text {not json} then {"ok": true}') == {"ok": True}
    with pytest.raises(MalformedReply):
        extract_json("no object here [1, 2]")


async def test_tier2_prompt_reaches_endpoint_and_upgrades(world, judge_endpoint) -> None:
    task, episode, tier1, tools = case(world, "math-001/mental-arithmetic")
    assert tier1.passed is False and tier1.failure_codes == ["missing_effect"]
    score = await Tier2Judge(judge_model(judge_endpoint)).judge(task, episode, tier1, tools)
    assert len(judge_endpoint.requests) == 1
    request = judge_endpoint.requests[0]
    assert request["model"] == "gpt-4o-mini"
    user = request["messages"][1]["content"]
    assert task.prompt in user and "Checkpoint c1 (tool_effect)" in user and "mathstats__stdev" in user
    assert score is not None and score.scorer == "judge:tier2" and score.passed is True
    assert score.values["overturned"] == 1.0 and score.checkpoints[0].passed
    assert score.values["judge_cost_usd"] == pytest.approx(COST_PER_REQUEST)


async def test_tier2_never_judges_order_violations_minefields_or_passes(world, judge_endpoint) -> None:
    judge = Tier2Judge(judge_model(judge_endpoint))
    for key in ("fin-004/converts-before-quote", "sci-001/cleans-up-k", "fin-001/reference"):
        task, episode, tier1, tools = case(world, key)
        assert await judge.judge(task, episode, tier1, tools) is None, key
    assert judge_endpoint.requests == []


async def test_keypoint_judge_verdict(world, judge_endpoint) -> None:
    task, episode, tier1, tools = case(world, "fin-001/answer-missing-estimate")
    bare = task.model_copy(update={"key_points": []})
    assert await KeyPointJudge(judge_model(judge_endpoint)).judge(bare, episode, tier1, tools) is None
    assert judge_endpoint.requests == []
    task = task.model_copy(update={"key_points": ["States the actual EPS 4.36", "States the expected EPS 4.15"]})
    score = await KeyPointJudge(judge_model(judge_endpoint)).judge(task, episode, tier1, tools)
    user = judge_endpoint.requests[-1]["messages"][1]["content"]
    assert "1. States the actual EPS 4.36" in user and episode.final_answer in user
    assert score is not None and score.passed is True and score.values["key_points_met"] == 2.0


async def test_generate_key_points(world, judge_endpoint) -> None:
    task = case(world, "fin-001/reference")[0]
    points = await generate_key_points(judge_model(judge_endpoint), task)
    assert points == ["States the actual EPS", "States the expected EPS"]
    assert "finance__get_earnings" in judge_endpoint.requests[0]["messages"][1]["content"]


async def test_rubric_orderings_differ_and_scores_average(world, judge_endpoint) -> None:
    task, episode, tier1, tools = case(world, "fin-006/one-by-one")
    judge = RubricJudge(judge_model(judge_endpoint), repeats=5)
    score = await judge.judge(task, episode, tier1, tools)
    assert len(judge_endpoint.requests) == 5
    systems = [r["messages"][0]["content"] for r in judge_endpoint.requests]
    orders = [tuple(s.rsplit("keyed exactly:", 1)[1].strip().split(", ")) for s in systems]
    assert len(set(orders)) == 5 and all(sorted(o) == sorted(DIMENSIONS) for o in orders)
    tool_orders = [tuple(line for line in r["messages"][1]["content"].splitlines() if line.startswith("- finance__"))
                   for r in judge_endpoint.requests]
    assert len(set(tool_orders)) > 1
    assert score is not None and score.values["task_fulfillment"] == 7.0 and score.value == pytest.approx(0.7)
    assert score.values["task_fulfillment_spread"] == 0.0 and score.values["repeats"] == 5.0
    assert score.values["judge_cost_usd"] == pytest.approx(5 * COST_PER_REQUEST)
    # the same episode gives the same orderings: a re-run asks the very same prompts
    again = [s for _o, s, _u in judge.prompts(task, episode, tools)]
    assert again == systems


async def test_error_types_rules_first_then_judge(world, judge_endpoint) -> None:
    judge = ErrorTypeJudge(judge_model(judge_endpoint))
    expected = {"sci-001/cleans-up-k": ("intent_tool_misalignment", "minefield"),
                "fin-004/converts-before-quote": ("planning_logic_error", "order_violation"),
                "fin-010/out-of-turns": ("planning_logic_error", "max_turns"),
                "unit-001/stuck-repeating": ("planning_logic_error", "repeated_calls"),
                "fin-003/schema-violation-gives-up": ("specification_syntax_error", "unknown_tool_or_schema"),
                "fin-001/unknown-tool-then-guess": ("specification_syntax_error", "unknown_tool_or_schema")}
    for key, (klass, rule) in expected.items():
        task, episode, tier1, tools = case(world, key)
        score = await judge.judge(task, episode, tier1, tools)
        assert score is not None and score.detail["error_class"] == klass and score.detail["rule"] == rule, key
    assert judge_endpoint.requests == []
    task, episode, tier1, tools = case(world, "fin-003/reversed-direction")
    score = await judge.judge(task, episode, tier1, tools)
    assert len(judge_endpoint.requests) == 1
    assert score is not None and score.detail["error_class"] == "semantic_parameter_error"
    assert score.detail["decided_by"] == "judge" and score.detail["taxonomy"] == "argument_hallucination"


async def test_malformed_reply_retried_then_recorded(world, judge_endpoint) -> None:
    task, episode, tier1, tools = case(world, "math-001/mental-arithmetic")
    judge_endpoint.replies = ["I think yes.", '{"achieved": "perhaps"}']
    score = await Tier2Judge(judge_model(judge_endpoint)).judge(task, episode, tier1, tools)
    assert len(judge_endpoint.requests) == 3 and score is not None and score.passed is True
    retry = judge_endpoint.requests[2]["messages"]
    assert retry[-1]["role"] == "user" and "'achieved' must be true or false" in retry[-1]["content"]
    judge_endpoint.requests.clear()
    judge_endpoint.replies = ["nope", "still nope", "no json at all"]
    score = await Tier2Judge(judge_model(judge_endpoint)).judge(task, episode, tier1, tools)
    assert len(judge_endpoint.requests) == 3
    assert score is not None and score.passed is None and score.failure_codes == [JUDGE_ERROR]
    assert "malformed reply after 3 request(s)" in score.detail["error"]
    assert score.values["judge_cost_usd"] == pytest.approx(3 * COST_PER_REQUEST)


async def test_cached_judgments_are_not_requested_again(world, judge_endpoint, tmp_path) -> None:
    store = Store(tmp_path / "cache.db")
    task, episode, tier1, tools = case(world, "fin-006/one-by-one")
    judges = build_judges(judge_model(judge_endpoint, store), "rubric,errors", rubric_repeats=3)
    first = [await j.judge(task, episode, tier1, tools) for j in judges]
    assert len(judge_endpoint.requests) == 3
    judges = build_judges(judge_model(judge_endpoint, Store(tmp_path / "cache.db")), "rubric", rubric_repeats=3)
    second = await judges[0].judge(task, episode, tier1, tools)
    assert len(judge_endpoint.requests) == 3  # nothing asked again
    assert second is not None and first[0] is not None
    assert second.values == first[0].values and second.detail["cached"] == 3
