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
    "first-step": {"prompt": "Look up our onboarding checklist on the web handbook - what's the very first thing a "
                             "new hire does?", "servers": ["web"], "spec": {"checkpoints": [
                       {"id": "answer", "kind": "value_produced", "source": "final_message", "contains": ["laptop"]}]}},
    "olivia": {"prompt": "Search my mailbox for 'quarterly review' and open Olivia's message - what does she want?",
               "servers": ["mail"], "spec": {"checkpoints": [
                   {"id": "answer", "kind": "value_produced", "source": "final_message",
                    "contains": ["Atlas", "internal site", "summary"]}]}},
    "rename": {"prompt": "Rename notes/meeting.txt to notes/2026-04-13-meeting.txt and show me the notes folder.",
               "servers": ["files"], "fixtures": {"files": {"notes/meeting.txt": "Attendees: Maya, Sam\n"}},
               "spec": {"checkpoints": [
                   {"id": "answer", "kind": "value_produced", "source": "final_message",
                    "contains": ["2026-04-13-meeting.txt"]}]}},
    "due": {"prompt": "Which of my tasks are due this week? Just tell me.", "servers": ["mdtasks"],
            "fixtures": {"files": {"tasks.md": "# My tasks\n\n- [ ] Pay Ledgerly invoice INV-2291 (due: 2026-04-13) "
                                               "(priority: high) <!-- id:1 -->\n- [ ] Review NDA draft for Helio "
                                               "Analytics (due: 2026-04-17) <!-- id:2 -->\n"}},
            "spec": {"checkpoints": [
                {"id": "answer", "kind": "value_produced", "source": "final_message",
                 "contains": ["Ledgerly", "NDA"]}]}},
    "berlin": {"prompt": "For a log entry I need the current Unix timestamp plus the local time in Berlin.",
               "servers": ["clock"], "spec": {"checkpoints": [
                   {"id": "answer", "kind": "value_produced", "source": "final_message",
                    "facts": [{"label": ["unix", "timestamp"], "value": 1776042000},
                              {"label": ["Berlin"], "value": "03:00"}]}]}},
    "drive": {"prompt": "How long is the drive from San Francisco to Yosemite?", "servers": ["maps"],
              "spec": {"checkpoints": [
                  {"id": "answer", "kind": "value_produced", "source": "final_message",
                   "facts": [{"label": ["drive", "driving", "by car"], "value": 215, "unit": "min"}]}]}},
    "note": {"prompt": "Write the first onboarding step into notes/first-step.txt.", "servers": ["files"],
             "spec": {"checkpoints": [{"id": "written", "kind": "state", "path": "notes/first-step.txt",
                                       "contains": ["laptop"]}]}},
    "close": {"prompt": "What did Apple close at on 31 March 2026?", "servers": ["finance"],
              "spec": {"checkpoints": [{"id": "answer", "kind": "value_produced", "source": "final_message",
                                        "contains": [253.62]}]}},
    "chf": {"prompt": "How many Swiss francs would 2,500 euros get me today?", "servers": ["finance"],
            "spec": {"checkpoints": [{"id": "answer", "kind": "value_produced", "source": "final_message",
                                      "contains": [2330.85]}]}},
    "gallons": {"prompt": "How many litres are in 3 imperial (UK) gallons?", "servers": ["units"],
                "spec": {"checkpoints": [{"id": "answer", "kind": "value_produced", "source": "final_message",
                                          "facts": [{"label": ["l", "litres", "liters"], "value": 13.6383,
                                                     "tol": 0.5}]}]}},
    "mileage": {"prompt": "Search the web handbook for 'mileage reimbursement': what is the current rate?",
                "servers": ["web"], "spec": {"checkpoints": [
                    {"id": "answer", "kind": "value_produced", "source": "final_message", "contains": [0.42]}]}},
    "phone": {"prompt": "What's the phone number of the main visitor center at the Grand Canyon?",
              "servers": ["parks"], "now": "2026-07-08T10:00:00-06:00", "spec": {"checkpoints": [
                  {"id": "answer", "kind": "value_produced", "source": "final_message",
                   "contains": [["+1 676-808-2587", "676-808-2587"]]}]}},
    "top3": {"prompt": "Who are our top three customers by total spend, leaving out cancelled and returned orders?",
             "servers": ["shopdb"], "spec": {"checkpoints": [
                 {"id": "answer", "kind": "value_produced", "source": "final_message",
                  "contains": [["Tara Petrov", "petrov"], ["Lena Varga", "varga"], ["Ines Moreau", "moreau"]]}]}},
}
TOP3 = [[{"tool": "shopdb__read_query", "args": {"query": (
    "SELECT c.name, SUM(i.quantity * i.unit_price) AS spend FROM customers c JOIN orders o ON o.customer_id = c.id "
    "JOIN order_items i ON i.order_id = o.id WHERE o.status NOT IN ('cancelled', 'returned') GROUP BY c.id "
    "ORDER BY spend DESC LIMIT 5")}}]]
RANKS = "1. Tara Petrov - 4,313.00\n2. Lena Varga - 4,049.00\n3. Ines Moreau - 3,724.00\n\n"
CLOSE = [[{"tool": "finance__get_price_history", "args": {"symbol": "AAPL", "period": "1mo"}}]]
CHF = [[{"tool": "finance__convert", "args": {"amount": 2500, "from_currency": "EUR", "to_currency": "CHF"}}]]
GALLONS = [[{"tool": "units__convert", "args": {"value": 3, "from_unit": "gal_uk", "to_unit": "l",
                                                "category": "volume"}}]]
MILEAGE = [[{"tool": "web__search", "args": {"query": "mileage reimbursement"}}],
           [{"tool": "web__fetch_page", "args": {"url": "https://handbook.northwind.example/policies/expenses"}}]]
CENTERS = [[{"tool": "parks__get_visitor_centers", "args": {"park_code": "grca"}}]]
ONBOARDING = [[{"tool": "web__search", "args": {"query": "onboarding checklist"}}],
              [{"tool": "web__fetch_page", "args": {"url": "https://handbook.northwind.example/people/onboarding"}}]]
OLIVIA = [[{"tool": "mail__search", "args": {"query": "quarterly review"}}],
          [{"tool": "mail__read_message", "args": {"message_id": "m015"}}]]
RENAME = [[{"tool": "files__move_file", "args": {"source": "notes/meeting.txt",
                                                 "destination": "notes/2026-04-13-meeting.txt"}}],
          [{"tool": "files__list_directory", "args": {"path": "notes"}}]]
DUE = [[{"tool": "mdtasks__list_tasks", "args": {}}]]
BERLIN = [[{"tool": "clock__now", "args": {"timezone": "Europe/Berlin"}}]]
DRIVE = [[{"tool": "maps__distance_matrix", "args": {"origins": ["San Francisco"],
                                                     "destinations": ["Yosemite National Park"], "mode": "driving"}}]]


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
    # a text value offered beside an alternative rejected; "either" about something else, a list of required
    # values in an "either ... or" accepted
    _alt("first-step", "either-this-or-that", "reject",
         "The very first step is either collecting your laptop from IT or setting up two-factor authentication.",
         ONBOARDING),
    _alt("first-step", "or-maybe", "reject",
         "Step 1: collect your laptop from IT, or maybe read the security policy first.", ONBOARDING),
    _alt("first-step", "either-of-when", "accept",
         "Step 1 of the checklist: collect the laptop from IT - either on day one or as soon as IT opens.",
         ONBOARDING),
    _alt("first-step", "or-about-the-same-step", "accept",
         "Step 1: collect your laptop from IT, or ask your manager to pick it up for you.", ONBOARDING),
    # a text value withdrawn by a correction rejected (a variant of it; a denial of its statement; the same
    # frame given another content); a correction about something else accepted
    _alt("first-step", "corrected-step", "reject",
         "Step 1: collect your laptop from IT. Correction: step 1 is setting up two-factor authentication.",
         ONBOARDING),
    _alt("first-step", "correction-elsewhere", "accept",
         "Step 1: collect your laptop from IT on day one. Correction: I first opened the wrong page.", ONBOARDING),
    _alt("rename", "corrected-name", "reject",
         "Renamed notes/meeting.txt to notes/2026-04-13-meeting.txt. Sorry, I mean notes/2026-13-04-meeting.txt.",
         RENAME),
    _alt("rename", "correction-about-old-name", "accept",
         "Renamed notes/meeting.txt to notes/2026-04-13-meeting.txt. Correction to my first note: "
         "notes/meeting.txt no longer exists.", RENAME),
    _alt("olivia", "request-withdrawn", "reject",
         "Olivia wants a one-page summary of Project Atlas status published on the internal site. Actually, "
         "she doesn't want it published at all: she wants it sent to her by email.", OLIVIA),
    _alt("olivia", "correction-adds", "accept",
         "Olivia wants a one-page summary of Project Atlas status published on the internal site. Actually, "
         "she doesn't give any deadline beyond the review itself.", OLIVIA),
    # a required item left out by "only" and denied rejected; "only" about another property, a denial that
    # keeps the item in accepted
    _alt("due", "only-one-not-the-other", "reject",
         "Ledgerly invoice INV-2291 is due today and the NDA review on the 17th. So only the Ledgerly invoice "
         "falls in this week, not the NDA review.", DUE),
    _alt("due", "only-about-priority", "accept",
         "Due this week: the Ledgerly invoice (today) and the NDA review (17 April). Only the Ledgerly invoice "
         "is high priority; the NDA review has none set.", DUE),
    _alt("due", "not-until-friday", "accept",
         "Both are due this week: the Ledgerly invoice today, and the NDA review isn't due until 17 April.", DUE),
    # a clock time hedged by a clause "- or W if ..." rejected; the same time in another zone accepted
    _alt("berlin", "or-if-standard-time", "reject",
         "Unix timestamp: 1776042000. Berlin local time: 03:00 on Monday, 13 April 2026 (UTC+2, CEST) - or "
         "02:00 if Berlin is still on standard time.", BERLIN),
    _alt("berlin", "restated-in-utc", "accept",
         "Unix timestamp: 1776042000. Berlin local time: 03:00 on Monday, 13 April 2026 (CEST), or 01:00 UTC.",
         BERLIN),
    # the same rules read what a write leaves in a file: a hedged note rejected, a plain one accepted
    _alt("note", "hedged-note", "reject", "Saved the first step to notes/first-step.txt.",
         [[{"tool": "files__write_file", "args": {"path": "notes/first-step.txt",
                                                  "content": "Step 1: either collect the laptop from IT or set up "
                                                             "two-factor authentication.\n"}}]]),
    _alt("note", "plain-note", "accept", "Saved the first step to notes/first-step.txt.",
         [[{"tool": "files__write_file", "args": {"path": "notes/first-step.txt",
                                                  "content": "Step 1: collect the laptop from IT on day one.\n"}}]]),
    # a quantity restated as another amount rejected; a right conversion, another quantity accepted
    _alt("drive", "misconverted", "reject",
         "Driving takes 215 minutes. Let me convert that: that's 2 hours 15 minutes behind the wheel.", DRIVE),
    _alt("drive", "converted-right", "accept",
         "Driving takes 215 minutes, that is 3 h 35 min behind the wheel.", DRIVE),
    _alt("drive", "another-quantity", "accept",
         "Driving takes 215 minutes, which is 311.3 km of road.", DRIVE),
    # a value denied as "not the figure" for another one rejected; another figure denied accepted
    _alt("close", "not-the-figure", "reject",
         "AAPL shows 253.62 on 31 March. To be precise, though, $253.62 is not the figure you want - the official "
         "close that day was\n**$251.72**.", CLOSE),
    _alt("close", "other-figure-not-it", "accept",
         "AAPL closed at $253.62 on 31 March 2026; the open, $251.72, is not the figure you asked for.", CLOSE),
    # a correction whose conclusion, after a ";", gives another amount rejected; one that restates the value
    # accepted
    _alt("gallons", "corrected-after-semicolon", "reject",
         "The converter returned 13.6383 litres. Correction: on reflection, 13.64 L is what you get for US gallons; "
         "imperial gallons work out smaller, so 3 UK gallons is about 11.36 litres.", GALLONS),
    _alt("gallons", "correction-restates-value", "accept",
         "3 imperial gallons is 13.6383 litres. Correction: I first asked for US gallons; so 3 UK gallons is "
         "13.6383 litres, and 3 US gallons would be 11.36 litres.", GALLONS),
    # an approximate range around the answer rejected; a range of its roundings accepted
    _alt("chf", "somewhere-between", "reject",
         "2,500 EUR comes to CHF 2,330.85. If the rate is quoted the other way, it would instead be about "
         "CHF 2,681.42, so you're looking at somewhere between roughly CHF 2,330 and CHF 2,680.", CHF),
    _alt("chf", "range-of-roundings", "accept",
         "2,500 EUR comes to CHF 2,330.85, so somewhere between roughly CHF 2,330 and 2,331 once rounded.", CHF),
    # the same figure corrected to another unit rejected; restated in the same unit accepted
    _alt("mileage", "per-mile", "reject",
         "The current rate is 0.42 EUR per kilometre. Correction: looking again at the wording, the rate is quoted "
         "per mile, so the current mileage reimbursement is 0.42 EUR per mile.", MILEAGE),
    _alt("mileage", "same-unit-again", "accept",
         "The current rate is 0.42 EUR per kilometre. Correction: I first opened the archived page; the current "
         "rate is 0.42 EUR per km.", MILEAGE),
    # a phone number offered beside another of its shape rejected; beside an email accepted
    _alt("phone", "two-numbers", "reject",
         "The main visitor center can be reached at +1 676-808-2587 or +1 400-978-2052; one of those is the main "
         "desk.", CENTERS),
    _alt("phone", "number-or-email", "accept",
         "The main visitor center can be reached at +1 676-808-2587, or by email through the park's website.",
         CENTERS),
    # a correction that drops a listed person rejected; one that drops somebody of the same surname accepted
    _alt("top3", "drops-third", "reject",
         RANKS + "Wait, one correction: Ines Moreau's total still includes a returned order, so she drops out. The "
         "actual third-best customer is Ben Petrov with 3,368.00.", TOP3),
    _alt("top3", "other-person-drops", "accept",
         RANKS + "Correction: Ines Moreau stays third, and Ben Petrov drops out of the top five.", TOP3),
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
