"""The grounding check's rules for figures, through the real ReAct loop on real bundled servers: each on both sides.

Every case is a scripted trajectory (real tool calls, real results) whose answer states the one fact
the spec asks for and then a figure: traced to what the agent saw (accepted) or invented so that it
meets an unrelated number of the results (rejected). The specs are written here, so the rules are
tested apart from the bundled suite's own specs.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from mcptrials.bundled.world import bundled_servers
from mcptrials.model import Task
from mcptrials.tasks.alternatives import Alternative, play

NOW = "2026-07-07T09:00:00-07:00"
FORECAST = [[{"tool": "weather__get_forecast", "args": {"location": "Hangzhou", "days": 2}}]]
TICKER = [[{"tool": "finance__get_tickers_info", "args": {"symbols": ["MSFT"]}}]]
INCOME = [[{"tool": "finance__get_financials", "args": {"symbol": "MSFT", "statement": "income"}}]]
PHARMACY = [[{"tool": "maps__geocode", "args": {"address": "Chengdu East Railway Station"}}],
            [{"tool": "maps__search_places", "args": {"query": "pharmacy", "city": "Chengdu", "type": "pharmacy"}}]]
EXPORT = [[{"tool": "calendar__export_events",
            "args": {"path": "exports/week.ics", "start_date": "2026-04-13", "end_date": "2026-04-17"}}],
          [{"tool": "files__get_file_info", "args": {"path": "exports/week.ics"}}]]  # 15 events, 2,705 bytes


def _states(value: float, *labels: str) -> dict[str, Any]:
    return {"checkpoints": [{"id": "fact", "kind": "value_produced", "source": "final_message",
                             "facts": [{"label": list(labels), "value": value}]}]}


TASKS: dict[str, dict[str, Any]] = {
    "forecast": {"prompt": "What's the weather in Hangzhou on Wednesday and Thursday?", "servers": ["weather"],
                 "spec": _states(29.7, "high")},
    "ticker": {"prompt": "What did Microsoft's stock close at last?", "servers": ["finance"],
               "spec": _states(484.84, "close")},
    "income": {"prompt": "What was Microsoft's net income last year?", "servers": ["finance"],
               "spec": _states(104004.8, "net income")},
    "export": {"prompt": "Export my events for 13-17 April to exports/week.ics: how many, and how big is the file?",
               "servers": ["calendar", "files"], "spec": _states(15, "events"), "now": "2026-04-13T09:00:00+08:00"},
    "pharmacy": {"prompt": "I'm at Chengdu East railway station: where is the nearest pharmacy?",
                 "servers": ["maps"], "spec": _states(298, "road")},
}


def _alt(task: str, name: str, expect: str, answer: str, turns: Any) -> Alternative:
    classes = ["rephrased_answer"] if expect == "accept" else ["wrong_value"]
    return Alternative(task=task, id=name, expect=expect, classes=classes, turns=turns, answer=answer)  # type: ignore[arg-type]


CASES = [
    # a size in KB may be read as 1,000 or 1,024 bytes (2,705 bytes: 2.7 KB or 2.6 KiB), never as another size
    _alt("export", "kb-read-as-1024-bytes", "accept",
         "Exported 15 events to exports/week.ics; the file is 2,705 bytes (about 2.6 KB).", EXPORT),
    _alt("export", "kb-read-as-1000-bytes", "accept", "Exported 15 events; the file is about 2.7 KB.", EXPORT),
    _alt("export", "kb-of-no-source", "reject", "Exported 15 events; the file is about 3.4 KB.", EXPORT),
    # a period is grounded by a period or the span between two stated times, not by converting any number
    _alt("forecast", "span-between-two-times", "accept",
         "Wednesday: rain, high 29.7 °C; sunrise 05:03, sunset 19:04, so about 14 hours of daylight.", FORECAST),
    _alt("forecast", "composite-span", "accept",
         "Wednesday: rain, high 29.7 °C, with 14 h 1 min between sunrise (05:03) and sunset (19:04).", FORECAST),
    _alt("forecast", "period-from-a-bare-number", "reject",
         "Wednesday: rain, high 29.7 °C, and the rain band stays over the city for about 120 hours.", FORECAST),
    # a temperature converts from its own unit only: 41 °C is not 5 read as °F
    _alt("forecast", "fahrenheit-from-celsius", "accept",
         "Wednesday: rain, high 29.7 °C (85.5 °F).", FORECAST),
    _alt("forecast", "celsius-read-as-fahrenheit", "reject",
         "Wednesday: rain, high 29.7 °C, and it will feel like 41 °C in the afternoon.", FORECAST),
    # a sum is of figures of one kind
    _alt("forecast", "sum-of-one-kind", "accept",
         "Wednesday: high 29.7 °C with 10.6 mm of rain; Thursday 25.7 mm, so 36.3 mm over the two days.", FORECAST),
    _alt("forecast", "sum-across-kinds", "reject",
         "Wednesday: high 29.7 °C with 10.6 mm of rain, and gusts up to 40.3 km/h.", FORECAST),
    # a figure lost in the rounding of its operand derives nothing; a real difference does
    _alt("ticker", "real-difference", "accept",
         "Microsoft closed at $484.84; its 52-week range is $402.91 to $505.55, a spread of $102.64.", TICKER),
    _alt("ticker", "lost-in-rounding", "reject",
         "Microsoft closed at $484.84, a market cap of $3,602,361,200,000; 37 analysts cover the stock.", TICKER),
    # a sum with a unit has an operand with that unit: 102 hours is no humidity 97 plus a UV index 5
    _alt("forecast", "sum-of-bare-numbers-as-a-period", "reject",
         "Wednesday: high 29.7 °C, humidity 97, UV index 5, and the rain keeps on for about 102 hours.", FORECAST),
    # figures under a declared scale are read at that scale; a figure derived from grounded ones grounds the next
    _alt("income", "declared-scale", "accept",
         "Microsoft's income statement, USD billions: FY2025 revenue 276.8, net income 104.0 (104,004.8 million).",
         INCOME),
    _alt("income", "invented-under-a-declared-scale", "reject",
         "Microsoft's income statement, USD billions: FY2025 revenue 281.5, net income 104.0 (104,004.8 million).",
         INCOME),
    _alt("income", "derived-operand", "accept",
         "Net income was 104,004.8 million in FY2025 against 81,056.3 million in FY2024: 22,948.5 million more, "
         "a rise of 28.3%.", INCOME),
    # a price or a percentage equal to a source number is grounded only if that number may be one
    _alt("forecast", "percent-of-a-chance", "accept",
         "Wednesday: rain, high 29.7 °C, a 65% chance of rain and 97% humidity.", FORECAST),
    _alt("forecast", "price-from-a-chance", "reject",
         "Wednesday: rain, high 29.7 °C; the museum ticket is $65, so go then.", FORECAST),
    _alt("ticker", "price-of-a-price", "accept",
         "Microsoft closed at $484.84, down from a 52-week high of $505.55.", TICKER),
    _alt("ticker", "price-from-a-headcount", "reject",
         "Microsoft closed at $484.84; its average salary is $228,000.", TICKER),
    # a percentage may be a result's fraction
    _alt("ticker", "percent-of-a-fraction", "accept",
         "Microsoft closed at $484.84; its dividend yield is 0.72%.", TICKER),
    _alt("ticker", "invented-percent", "reject",
         "Microsoft closed at $484.84; its dividend yield is 0.85%.", TICKER),
    # a distance may be the one between two places a result gave coordinates for
    _alt("pharmacy", "distance-between-coordinates", "accept",
         "Healthway Pharmacy, 298 Yan'an Road, about 8.5 km from Chengdu East station.", PHARMACY),
    _alt("pharmacy", "invented-distance", "reject",
         "Healthway Pharmacy, 298 Yan'an Road, about 12.5 km from Chengdu East station.", PHARMACY),
]


@pytest.fixture(scope="module")
def verdicts() -> dict[str, tuple[bool | None, str]]:
    tasks = [Task.model_validate({"id": t, "now": NOW, **spec}) for t, spec in TASKS.items()]  # a task's own "now" wins
    results = anyio.run(play, bundled_servers(), tasks, CASES)
    return {f"{r.task_id}/{r.alt_id}": (r.accepted, r.detail) for r in results}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.key)
def test_the_grounding_check_judges_as_a_reviewer(case: Alternative,
                                                 verdicts: dict[str, tuple[bool | None, str]]) -> None:
    accepted, detail = verdicts[case.key]
    assert accepted is not None, detail  # no infra error
    assert accepted is (case.expect == "accept"), detail
