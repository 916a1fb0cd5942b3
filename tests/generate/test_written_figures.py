"""Figures a text copies from results, bound to what they are: whose figure (a table's row), which figure (the
field the request names), and the unit a rate is per. Each rule with cases on both sides."""

from __future__ import annotations

import json
import re
from datetime import datetime

from distill_traces import alt, bundled, explorer, verdicts

from mcptrials.bundled.world import bundled_servers
from mcptrials.generate.answercheck import answer_checkpoint
from mcptrials.generate.cells import cell_facts
from mcptrials.generate.distill import distill
from mcptrials.generate.draft import TaskDraft
from mcptrials.generate.rates import rate_patterns
from mcptrials.generate.trace import pursue
from mcptrials.scoring.claims import check_facts, text_problems

STOCK = json.dumps({"columns": ["sku", "name", "stock"], "rows": [
    {"sku": "BP-LAMP-400", "name": "Beacon 400 Headlamp", "stock": 97},
    {"sku": "BP-LAMP-900", "name": "Beacon 900 Headlamp", "stock": 31}], "row_count": 2})
EARNINGS = [json.dumps({"symbol": s, "name": n, "currency": "USD", "earnings": [
    {"fiscal_quarter": "2025-Q4", "eps_actual": a, "eps_estimate": e}]})
    for s, n, a, e in (("AAPL", "Apple", 1.62, 1.71), ("MSFT", "Microsoft", 4.36, 4.15))]


def _holds(readings: list[list], text: str) -> bool:
    return all(v.stated for facts in readings for v in check_facts(text, facts))


def test_figures_of_two_rows_stay_with_their_rows() -> None:
    readings = cell_facts("Hi Elif, we have 97 Beacon 400 and 31 Beacon 900 headlamps in stock. Alex", [STOCK],
                          "Reply to Elif with the stock of both headlamps.", 2026)
    assert readings
    assert _holds(readings, "Beacon 400: 97 units, Beacon 900: 31 units.")
    assert _holds(readings, "| Model | In stock |\n|---|---|\n"
                            "| Beacon 400 Headlamp | 97 |\n| Beacon 900 Headlamp | 31 |")
    assert not _holds(readings, "Hi Elif, we have 31 Beacon 400 and 97 Beacon 900 headlamps in stock. Alex")


def test_two_figures_of_one_row_stay_with_their_field_when_the_request_names_the_fields() -> None:
    asked = "Send Maya Apple's and Microsoft's latest EPS, actual vs estimate."
    readings = cell_facts("Apple: actual EPS 1.62, estimate 1.71. Microsoft: actual EPS 4.36, estimate 4.15.",
                          EARNINGS, asked, 2026)
    assert readings
    assert _holds(readings, "Microsoft: actual 4.36 vs estimate 4.15; Apple: actual 1.62 vs estimate 1.71.")
    assert _holds(readings, "Apple: estimate 1.71, actual 1.62. Microsoft: estimate 4.15, actual 4.36.")
    assert not _holds(readings, "Apple: actual EPS 1.71, estimate 1.62. Microsoft: actual EPS 4.36, estimate 4.15.")
    assert not _holds(readings, "Apple: actual EPS 1.62, estimate 1.71. Microsoft: actual EPS 4.36, estimate 4.36.")
    # the request does not name the fields: which figure is which is not asked, only whose
    unnamed = cell_facts("Apple: actual EPS 1.62, estimate 1.71. Microsoft: actual EPS 4.36, estimate 4.15.",
                         EARNINGS, "Send Maya Apple's and Microsoft's latest EPS.", 2026)
    assert _holds(unnamed, "Apple 1.71 vs 1.62, Microsoft 4.15 vs 4.36.")


def test_rows_named_only_by_a_code_bind_nothing() -> None:
    """A text may name a record by a name no result gives ("Apple" for AAPL): a code alone is no label."""
    coded = [json.dumps({"symbol": s, "earnings": [{"eps_actual": a}]}) for s, a in (("AAPL", 1.62), ("MSFT", 4.36))]
    assert cell_facts("AAPL EPS 1.62; MSFT EPS 4.36.", coded, "Send the EPS of both.", 2026) == []


def test_a_rate_keeps_the_unit_it_is_per() -> None:
    results = ['{"url": "https://handbook.example/expenses", "text": "Mileage: 0.42 EUR per kilometre driven."}']
    check = answer_checkpoint("The current mileage rate is 0.42 EUR per kilometre.",
                              "Fetch the expense policy and report the mileage rate.", "", results, 2026)
    assert check is not None and check.regex
    for right in ("€0.42 per kilometre for your own car.", "0.42 EUR/km (miles are converted first).",
                  "EUR 0.42 per km", "The rate: 0.42 EUR a km."):
        assert not text_problems(check, right), right
    assert text_problems(check, "The current mileage rate is 0.42 EUR per mile.")


def test_a_rate_under_one_unit_of_money_may_be_given_in_cents() -> None:
    patterns = rate_patterns("The current mileage rate is 0.42 EUR per kilometre.", [0.42])
    assert patterns and re.search(patterns[0], "It is 42 euro cents per kilometre.")
    assert re.search(patterns[0], "It is 42 cents/km.")
    assert not re.search(patterns[0], "It is 42 euro cents per mile.")
    assert not re.search(patterns[0], "It is 42 EUR per km.")
    assert not re.search(patterns[0], "It is 142 cents per km.")


def test_a_rate_per_day_or_hour_is_not_pinned_to_its_wording() -> None:
    """Per day is also "daily": no pattern for durations, and none for a figure that is no rate."""
    assert rate_patterns("The hire costs 14 EUR a day.", [14]) == []
    assert rate_patterns("The route is 120 km long and costs 35 EUR.", [120, 35]) == []
    patterns = rate_patterns("Fuel: 1.85 EUR per litre.", [1.85])
    assert patterns and re.search(patterns[0], "1.85 EUR/l") and not re.search(patterns[0], "1.85 EUR per gallon")


async def test_a_reply_with_two_stock_figures_fails_when_they_are_swapped() -> None:
    like = bundled("x-005")
    draft = TaskDraft(id="cells-1", goal="Query stock for BP-LAMP-400 and BP-LAMP-900 and email "
                      "elif.demir@bluepeak.example both stock levels.", prompt="Tell Elif how many of each headlamp "
                      "we have.", servers=["shopdb", "mail"], category="baseline", method="explore",
                      now=datetime.fromisoformat("2026-04-13T09:00:00+08:00"), fixtures=like.fixtures)
    query = ("shopdb__read_query", {"query": "SELECT sku, name, stock FROM products WHERE sku LIKE 'BP-LAMP%'"})

    def send(body: str) -> tuple[str, dict]:
        return ("mail__send_message", {"to": ["elif.demir@bluepeak.example"], "subject": "Headlamp stock",
                                       "body": body})

    task = distill(draft, await pursue(bundled_servers(), draft, explorer(
        [[query], [send("Hi Elif, we have 97 Beacon 400 and 31 Beacon 900 headlamps in stock. Alex")]],
        "Sent Elif the stock.")))
    results = await verdicts(task, [
        alt(task, "table", "accept", [[query], [send("| Model | Stock |\n|---|---|\n| Beacon 900 Headlamp | 31 |\n"
                                                     "| Beacon 400 Headlamp | 97 |")]], "Sent.", ["rephrased_answer"]),
        alt(task, "swapped", "reject", [[query], [send("Hi Elif, we have 31 Beacon 400 and 97 Beacon 900 "
                                                       "headlamps. Alex")]], "Sent.", ["wrong_content"]),
    ])
    assert results["table"].right, results["table"].detail
    assert results["swapped"].right, results["swapped"].detail


def _own_draft(task_id: str, goal: str, prompt: str, servers: list[str], like: str) -> TaskDraft:
    return TaskDraft(id=task_id, goal=goal, prompt=prompt, servers=servers, category="baseline", method="explore",
                     now=datetime.fromisoformat("2026-04-13T09:00:00+08:00"), fixtures=bundled(like).fixtures)


async def test_an_export_holds_as_many_records_as_the_explorers() -> None:
    draft = _own_draft("export-1", "Export calendar events 2026-04-13..2026-04-17 to exports/week.ics.",
                       "Save this week's calendar to exports/week.ics.", ["calendar", "files"], like="x-014")

    def export(end: str) -> tuple[str, dict]:
        return ("calendar__export_events", {"path": "exports/week.ics", "start_date": "2026-04-13", "end_date": end})

    task = distill(draft, await pursue(bundled_servers(), draft, explorer(
        [[export("2026-04-17")]], "Exported the week to exports/week.ics.")))
    results = await verdicts(task, [  # the weekend holds no event: the same export
        alt(task, "through-sunday", "accept", [[export("2026-04-19")]], "Saved to exports/week.ics.",
            ["other_spelling"]),
        alt(task, "monday-only", "reject", [[export("2026-04-13")]], "Saved to exports/week.ics.",
            ["wrong_content"]),
    ])
    assert results["through-sunday"].right, results["through-sunday"].detail
    assert results["monday-only"].right, results["monday-only"].detail


async def test_a_new_tasks_due_date_is_bound_to_it_beside_an_older_task_of_the_same_name() -> None:
    draft = _own_draft("due-1", "Add a task 'Pay Ledgerly INV-2291 (3715.03 EUR)' due 2026-04-17 to tasks.md.",
                       "Remind me to pay the Ledgerly invoice (3715.03 EUR) by Friday.", ["mdtasks"], like="x-017")

    def add(text: str, due: str) -> tuple[str, dict]:
        return ("mdtasks__add_task", {"text": text, "due": due})

    task = distill(draft, await pursue(bundled_servers(), draft, explorer(
        [[add("Pay Ledgerly INV-2291 (3715.03 EUR)", "2026-04-17")]], "Added, due Friday 17 April.")))
    results = await verdicts(task, [
        alt(task, "reworded", "accept", [[add("Pay Ledgerly invoice INV-2291: €3,715.03 (3,150 GBP)", "2026-04-17")]],
            "Added, due Friday.", ["other_spelling"]),
        alt(task, "due-today", "reject", [[add("Pay Ledgerly INV-2291 (3715.03 EUR)", "2026-04-13")]],
            "Added.", ["wrong_content"]),
    ])
    assert results["reworded"].right, results["reworded"].detail
    assert results["due-today"].right, results["due-today"].detail
