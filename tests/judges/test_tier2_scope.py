"""Tier-2 as DynamicMCPBench has it: a judge may upgrade only a failed tool-effect checkpoint.

The judge here says "achieved" to everything (a local OpenAI-compatible endpoint); no failed
answer, state, conclusion, grounding, duplicate-write, minefield or order check may become a pass.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from judge_endpoint import JudgeEndpoint

from mcptrials.judges.base import JudgeModel
from mcptrials.judges.tier2 import Tier2Judge
from mcptrials.model import Episode, Task, ToolCallRecord
from mcptrials.models.registry import load_model
from mcptrials.scoring.effects import score_effects

RESULT = '{"symbol": "MSFT", "actual": 4.36, "estimate": 4.15}'
TASK = Task.model_validate({
    "id": "t", "prompt": "Did Microsoft beat? Note it in notes.md.", "servers": ["finance", "files"],
    "now": "2026-04-13T09:00:00+08:00",
    "spec": {"checkpoints": [
        {"id": "read", "kind": "tool_effect", "tools": ["finance__get_earnings"], "must_include": {"symbol": "MSFT"}},
        {"id": "noted", "kind": "tool_effect", "tools": ["files__write_file"], "must_include": {"path": "notes.md"}},
        {"id": "answer", "kind": "value_produced", "source": "final_message",
         "facts": [{"label": "actual", "value": 4.36}]},
        {"id": "verdict", "kind": "conclusion", "role": ["beat"], "opposite": ["missed"], "holds": True},
        {"id": "file", "kind": "state", "path": "notes.md", "contains": ["4.36"]}],
        "minefields": [{"tools": ["files__delete_file"]}],
        "partial_order": [["read", "noted"]]}})
GOOD_ANSWER = "Yes, Microsoft beat: actual EPS 4.36."


def _episode(calls: list[tuple[str, dict[str, Any]]], answer: str = GOOD_ANSWER, note: str | None = "4.36") -> Episode:
    steps = [ToolCallRecord(index=i, call_id=str(i), turn=i, name=name, server=name.split("__")[0],
                            tool=name.split("__")[1], arguments=args,
                            content=RESULT if name == "finance__get_earnings" else '{"ok": true}')
             for i, (name, args) in enumerate(calls)]
    state = {"files": {"notes.md": {"size": 4, "sha256": "x", "text": note}} if note is not None else {}}
    return Episode(id="e", run_id="r", task_id="t", agent="a", model="m", attempt=0, config_hash="h", steps=steps,
                   final_answer=answer, state=state)


READ = ("finance__get_earnings", {"symbol": "MSFT"})
WRITE = ("files__write_file", {"path": "notes.md", "content": "4.36"})
FAILING = {
    "answer": _episode([READ, WRITE], answer="Yes, Microsoft beat."),
    "conclusion": _episode([READ, WRITE], answer="Microsoft missed: actual EPS 4.36."),
    "grounding": _episode([READ, WRITE], answer="Yes, Microsoft beat: actual EPS 4.36 on revenue of $91.7 billion."),
    "state": _episode([READ, WRITE], note="nothing"),
    "minefield": _episode([READ, WRITE, ("files__delete_file", {"path": "old.md"})]),
    "order": _episode([WRITE, READ]),
    "duplicate": _episode([READ, ("files__append_file", {"path": "log.md", "content": "x"}),
                           ("files__append_file", {"path": "log.md", "content": "x"}), WRITE]),
    "effect-and-answer": _episode([READ, ("files__write_file", {"path": "other.md", "content": "4.36"})],
                                  answer="Yes, Microsoft beat."),
}


def always_yes(_request: dict[str, Any]) -> str:
    return json.dumps({"achieved": True, "evidence_steps": [0], "reason": "looks fine to me"})


@pytest.fixture
def yes_judge():
    with JudgeEndpoint(always_yes) as endpoint:
        model = JudgeModel(chat=load_model("openai:gpt-4o-mini", base_url=endpoint.base_url), retries=0)
        yield Tier2Judge(model), endpoint


def test_the_failing_episodes_fail_tier1_for_the_named_reason() -> None:
    expected = {"answer": "missing_value", "conclusion": "wrong_conclusion", "grounding": "ungrounded_claim",
                "state": "wrong_state", "minefield": "minefield", "order": "order_violation",
                "duplicate": "duplicate_write", "effect-and-answer": "missing_value"}
    for name, episode in FAILING.items():
        score = score_effects(TASK, episode)
        assert score.passed is False and expected[name] in score.failure_codes, (name, score.failure_codes)
    assert score_effects(TASK, _episode([READ, WRITE])).passed is True


async def test_an_always_yes_judge_overturns_no_answer_state_minefield_or_order_failure(yes_judge) -> None:
    judge, endpoint = yes_judge
    for name, episode in FAILING.items():
        tier1 = score_effects(TASK, episode)
        verdict = await judge.judge(TASK, episode, tier1)
        assert verdict is None or verdict.passed is False, name
    assert endpoint.requests == []  # it was never even asked


async def test_a_failed_tool_effect_alone_may_be_upgraded(yes_judge) -> None:
    judge, endpoint = yes_judge
    episode = _episode([READ, ("files__write_file", {"path": "./notes.md.tmp", "content": "4.36"})])
    tier1 = score_effects(TASK, episode)
    assert tier1.failure_codes == ["wrong_arguments"]
    verdict = await judge.judge(TASK, episode, tier1)
    assert verdict is not None and verdict.passed is True
    assert len(endpoint.requests) == 1 and "final answer" not in endpoint.requests[0]["messages"][1]["content"]
