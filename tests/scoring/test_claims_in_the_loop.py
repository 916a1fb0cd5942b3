"""Answers read as claims, through the real ReAct loop on real bundled servers: each rule on both sides.

Every case is a scripted trajectory (real tool calls, real results) with the answer a careful
reviewer would accept or reject; the Tier-1 scorer must agree. The specs are written here, so
the rules are tested apart from the bundled suite's own specs.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from mcptrials.bundled.world import bundled_servers
from mcptrials.model import Task
from mcptrials.tasks.alternatives import Alternative, play

NOW = "2026-04-13T09:00:00+08:00"
EARNINGS = [[{"tool": "finance__get_earnings", "args": {"symbol": "MSFT"}}]]
CHIPS = [[{"tool": "finance__get_tickers_info", "args": {"symbols": ["NVDA", "AMD", "INTC"]}}]]
HANDOVER = {"title": "Laptop handover", "start": "2026-04-20T10:00", "duration_minutes": 30,
            "attendees": ["ravi.menon@northwind.example"]}

TASKS: dict[str, dict[str, Any]] = {
    "eps": {"prompt": "Did Microsoft beat analysts' expectations last quarter? Give the actual and expected EPS.",
            "servers": ["finance"], "spec": {"checkpoints": [
                {"id": "figures", "kind": "value_produced", "source": "final_message",
                 "facts": [{"label": ["actual", "reported"], "value": 4.36},
                           {"label": ["expected", "estimate", "consensus"], "value": 4.15}]},
                {"id": "verdict", "kind": "conclusion", "role": ["beat", "exceeded", "topped"],
                 "opposite": ["missed", "a miss", "fell short"], "holds": True}]}},
    "chips": {"prompt": "Which of NVDA, AMD and INTC is the smallest by market cap?", "servers": ["finance"],
              "spec": {"checkpoints": [
                  {"id": "pick", "kind": "conclusion", "role": ["smallest", "lowest market cap"],
                   "options": [["Intel", "INTC"], ["AMD", "Advanced Micro Devices"], ["NVIDIA", "NVDA"]],
                   "holds": ["Intel"]}]}},
    "handover": {"prompt": "Book a 30-minute laptop handover with Ravi on Monday 20 April at 10:00.",
                 "servers": ["calendar"], "spec": {"checkpoints": [
                     {"id": "booked", "kind": "state", "path": "calendar/events.json", "json_path": "$.events[*]",
                      "match": {"title": {"contains": "handover", "case": "insensitive"}}}]}},
    "two-slots": {"prompt": "Book two laptop handovers with Ravi on Monday 20 April, at 10:00 and at 11:00.",
                  "servers": ["calendar"], "spec": {"checkpoints": [
                      {"id": "booked", "kind": "state", "path": "calendar/events.json",
                       "json_path": "$.events[*]", "match": {"title": {"contains": "handover", "case": "insensitive"}},
                       "count": 2}]}},
}


def _task(task_id: str) -> Task:
    return Task.model_validate({"id": task_id, "now": NOW, **TASKS[task_id]})


def _alt(task: str, name: str, expect: str, answer: str, turns: Any) -> Alternative:
    classes = ["rephrased_answer"] if expect == "accept" else ["wrong_value"]
    return Alternative(task=task, id=name, expect=expect, classes=classes, turns=turns, answer=answer)  # type: ignore[arg-type]


CASES = [
    # hedge rejected; two values for two labels accepted
    _alt("eps", "two-values-two-labels", "accept",
         "Yes, Microsoft beat: actual EPS $4.36 against an expected $4.15.", EARNINGS),
    _alt("eps", "hedge", "reject",
         "Yes, Microsoft beat: actual EPS was $4.36, or possibly $4.63, against an expected $4.15.", EARNINGS),
    _alt("eps", "retracted", "reject",
         "Yes, Microsoft beat: actual EPS $4.36 against an expected $4.15. Correction: the actual EPS was $4.06.",
         EARNINGS),
    _alt("eps", "respectively", "accept",
         "Actual and expected EPS were $4.36 and $4.15 respectively, so Microsoft beat.", EARNINGS),
    _alt("eps", "in-words", "accept",
         "Microsoft beat: it earned four dollars and thirty-six cents a share (actual) against an expected $4.15.",
         EARNINGS),
    # a negated conclusion rejected; "not X but Y" accepted
    _alt("eps", "negated-conclusion", "reject",
         "Microsoft did not beat expectations: actual EPS $4.36, expected $4.15.", EARNINGS),
    _alt("eps", "not-a-miss-but-a-beat", "accept",
         "It was not a miss but a beat: actual EPS $4.36 against an expected $4.15.", EARNINGS),
    _alt("chips", "right-pick", "accept", "Intel is the smallest of the three, at about $84.4 billion.", CHIPS),
    _alt("chips", "wrong-pick", "reject",
         "NVIDIA $3.61 trillion, AMD $208.4 billion, Intel $84.4 billion, so AMD is the smallest.", CHIPS),
    _alt("chips", "not-amd-but-intel", "accept", "The smallest is not AMD but Intel ($84.4 billion).", CHIPS),
    # an invented number rejected; a computed percentage accepted
    _alt("eps", "computed-percentage", "accept",
         "Yes, Microsoft beat: actual EPS $4.36 vs an expected $4.15, a surprise of 5.06%.", EARNINGS),
    _alt("eps", "invented-figure", "reject",
         "Yes, Microsoft beat: actual EPS $4.36 vs an expected $4.15, on revenue of $91.7 billion.", EARNINGS),
    _alt("eps", "weekday-off", "reject",
         "Yes, Microsoft beat (reported Friday 24 January 2026): actual EPS $4.36 vs an expected $4.15.", EARNINGS),
    _alt("eps", "weekday-right", "accept",
         "Yes, Microsoft beat (reported Saturday 24 January 2026): actual EPS $4.36 vs an expected $4.15.",
         EARNINGS),
    # a double booking rejected; two different bookings the task asks for accepted
    _alt("handover", "booked-once", "accept", "Booked the handover for Monday 20 April at 10:00.",
         [[{"tool": "calendar__create_event", "args": HANDOVER}]]),
    _alt("handover", "booked-twice", "reject", "Booked the handover for Monday 20 April at 10:00.",
         [[{"tool": "calendar__create_event", "args": HANDOVER}],
          [{"tool": "calendar__create_event", "args": HANDOVER}]]),
    _alt("two-slots", "two-different", "accept", "Booked both handovers on Monday 20 April, at 10:00 and 11:00.",
         [[{"tool": "calendar__create_event", "args": HANDOVER}],
          [{"tool": "calendar__create_event", "args": {**HANDOVER, "start": "2026-04-20T11:00"}}]]),
]


@pytest.fixture(scope="module")
def verdicts() -> dict[str, tuple[bool | None, str]]:
    tasks = [_task(t) for t in TASKS]
    results = anyio.run(play, bundled_servers(), tasks, CASES)
    return {f"{r.task_id}/{r.alt_id}": (r.accepted, r.detail) for r in results}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.key)
def test_the_scorer_judges_as_a_reviewer(case: Alternative, verdicts: dict[str, tuple[bool | None, str]]) -> None:
    accepted, detail = verdicts[case.key]
    assert accepted is not None, detail  # no infra error
    assert accepted is (case.expect == "accept"), detail
