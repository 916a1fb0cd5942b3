"""Build ``business_productivity.jsonl``: tasks over the business, data and productivity servers.

Each task is declared below as a reference plan (qualified tool + arguments, where later
arguments may be computed from earlier results) plus the spec's extra parts. The builder
runs every plan in-process against the real servers, in a fresh sandbox holding the task's
fixtures and under the task's frozen clock, and derives the value checkpoints from the real
results; with ``--check`` it verifies that each reference plan passes. Reference answers and
the reviewer's spec fixes are a separate, hand-written layer (``verdicts/*.yaml``) applied
when the suite loads. Output is deterministic.

Run: ``python -m mcptrials.bundled.tasks.build_business_productivity [--check]``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptrials.model import Episode, ModelTurn, Task, ToolCallRecord, split_qualified
from mcptrials.scoring.effects import score_effects

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "business_productivity.jsonl"
NOW = "2026-04-13T09:00:00+08:00"
FREE_TEXT = {"query", "body", "content", "text", "note", "description", "title", "subject", "expression",
             "find", "replace", "start"}

Results = list[Any]
ArgsSpec = dict[str, Any] | Callable[[Results], dict[str, Any]]


# --------------------------------------------------------------------------- declaration DSL


@dataclass
class Step:
    """One reference call and the tool-effect checkpoint that covers it."""

    tool: str
    args: ArgsSpec
    include: Sequence[str] | None = None
    match: dict[str, dict[str, Any]] | Callable[[Results], dict[str, dict[str, Any]]] | None = None
    alts: Sequence[str] = ()


@dataclass
class Value:
    """A value checkpoint whose substrings are computed from the reference results."""

    contains: Sequence[str] | Callable[[Results], Sequence[str]]
    tools: Sequence[str] = ()
    mode: str = "all"


@dataclass
class Def:
    """A task declaration before it is run."""

    id: str
    category: str
    prompt: str
    concrete: str
    steps: list[Step]
    values: list[Value] = field(default_factory=list)
    mines: list[dict[str, Any]] = field(default_factory=list)
    order: list[tuple[str, str]] = field(default_factory=list)
    fixtures: dict[str, str] = field(default_factory=dict)
    now: str = NOW
    key_points: list[str] = field(default_factory=list)
    servers: Sequence[str] = ()


def eq(value: Any) -> dict[str, Any]:
    return {"equals": value, "case": "insensitive"}


def one_of(*values: Any) -> dict[str, Any]:
    return {"one_of": list(values), "case": "insensitive"}


def has(text: str) -> dict[str, Any]:
    return {"contains": text, "case": "insensitive"}


def rx(pattern: str) -> dict[str, Any]:
    return {"regex": pattern, "case": "insensitive"}


def near(value: float, tol: float) -> dict[str, Any]:
    return {"approx": value, "tol": tol}


def num(value: Any) -> str:
    """A number as it appears in a JSON tool result."""
    return json.dumps(value)


def mine(*tools: str, **predicates: Any) -> dict[str, Any]:
    return {"tools": list(tools), **predicates}


# --------------------------------------------------------------------------- fixtures

TASKS_MD = """# My tasks

- [ ] Pay Ledgerly invoice INV-2291 (due: 2026-04-13) (priority: high) <!-- id:1 -->
- [ ] Review NDA draft for Helio Analytics (due: 2026-04-17) <!-- id:2 -->
- [x] Book dentist appointment <!-- id:3 -->
- [ ] Renew parking permit <!-- id:4 -->

## Someday
- [ ] Learn Portuguese <!-- id:5 -->
"""

MEMORY_GRAPH = json.dumps({
    "entities": [
        {"name": "Ken Watanabe", "entityType": "person",
         "observations": ["Partner at Tokai Partners", "Prefers meetings before noon", "Drinks green tea, no coffee"]},
        {"name": "Project Atlas", "entityType": "project",
         "observations": ["Migrates the billing reports to the new data warehouse", "Due end of June",
                          "Budget 48,000 EUR"]},
        {"name": "Dana Whitfield", "entityType": "person", "observations": ["Project lead at Northwind Labs"]},
        {"name": "Tomas Kral", "entityType": "person", "observations": ["Data analyst", "Owns the Atlas data model"]},
        {"name": "Tokai Partners", "entityType": "organization", "observations": ["Consulting firm based in Nagoya"]},
    ],
    "relations": [
        {"from": "Dana Whitfield", "to": "Project Atlas", "relationType": "leads"},
        {"from": "Tomas Kral", "to": "Project Atlas", "relationType": "works_on"},
        {"from": "Ken Watanabe", "to": "Tokai Partners", "relationType": "works_at"},
    ],
}, indent=1) + "\n"

INVOICE_FILES = {
    "finance/ledgerly-invoices.md": "# Ledgerly invoices\n\n| invoice | amount | due |\n|---|---|---|\n"
                                    "| INV-2188 | 2,900.00 GBP | 2026-02-28 (paid) |\n"
                                    "| INV-2291 | 3,150.00 GBP | 2026-03-31 |\n",
    "notes/calls.md": "# Call log\n\n- 2026-04-08 Grace Okafor (Ledgerly) chased INV-2291, promised an answer.\n"
                      "- 2026-04-09 Bank: card limit raised.\n",
    "notes/todo.md": "# Todo\n\n- Prepare board pack\n- Book offsite venue\n",
    "archive/inv-2291-old.txt": "Superseded draft. Nothing useful here.\n",
}

GUIDE_MD = """# Acme Cloud user guide (v1.8)

Welcome to Acme Cloud. This guide explains how to recieve reports and share dashboards.

## Getting help
Write to support@acme.example if something goes wrong. Acme Cloud support answers within a day.

## Versions
You are reading the guide for v1.8.
"""

LOAD_CSV = "hour,cpu_load,latency_ms\n1,22,110\n2,35,128\n3,41,131\n4,58,162\n5,63,170\n6,77,205\n7,81,214\n"

BUDGET_MD = """# Budget 2026 (approved)

- Salaries: 1,240,000 EUR
- Cloud and software: 186,500 EUR
- Travel: 42,000 EUR
- Offsite: 18,000 EUR
Total: 1,486,500 EUR
"""

COV_JSON = json.dumps({"variables": ["height", "weight", "age"],
                       "covariance": [[4.0, 2.0, 0.6], [2.0, 5.0, 1.0], [0.6, 1.0, 3.0]]}, indent=1) + "\n"


# --------------------------------------------------------------------------- helpers on results


def latest_quarter(r: dict[str, Any]) -> dict[str, Any]:
    return r["earnings"][0]


def close_on(r: dict[str, Any], day: str) -> float:
    return next(row["close"] for row in r["rows"] if row["date"] == day)


def task_id(r: dict[str, Any], text: str) -> int:
    return next(t["id"] for t in r["tasks"] if t["text"] == text)


# --------------------------------------------------------------------------- the tasks


def definitions() -> list[Def]:
    """Every task of the suite, in file order."""
    d: list[Def] = []

    # ------------------------------------------------------------------ random
    d.append(Def(
        "fin-001", "random",
        "Did Microsoft beat analysts' expectations last quarter? I'd like the actual and expected EPS.",
        "Get Microsoft's (MSFT) quarterly earnings and report the most recent quarter's actual EPS, estimated EPS "
        "and surprise.",
        [Step("finance__get_earnings", {"symbol": "MSFT"}, include=[], match={"symbol": eq("MSFT")})],
        [Value(lambda r: [latest_quarter(r[0])["fiscal_quarter"], num(latest_quarter(r[0])["eps_actual"]),
                          num(latest_quarter(r[0])["eps_estimate"])], tools=["finance__get_earnings"])],
        key_points=["Names the latest reported quarter", "Gives actual and estimated EPS and whether it beat"]))
    d.append(Def(
        "unit-001", "random",
        "How long is a marathon in kilometres? It's 26.2 miles.",
        "Convert 26.2 miles to kilometres.",
        [Step("units__convert", {"value": 26.2, "from_unit": "mi", "to_unit": "km", "category": "length"},
              include=["value", "category"],
              match={"from_unit": one_of("mi", "mile", "miles"),
                     "to_unit": one_of("km", "kilometer", "kilometre", "kilometers", "kilometres")})],
        [Value(lambda r: [num(r[0]["result"])], tools=["units__convert"])],
        key_points=["About 42.16 km"]))
    d.append(Def(
        "shop-001", "random",
        "Which product in the shop is closest to selling out? Give me its SKU and how many are left.",
        "Query the products table for the product with the lowest stock and report its SKU and stock.",
        [Step("shopdb__read_query", {"query": "SELECT sku, name, stock FROM products ORDER BY stock ASC LIMIT 1"},
              match={"query": rx(r"\bproducts\b")})],
        [Value(["BP-PAD-AIR"], tools=["shopdb__read_query"])],
        key_points=["BP-PAD-AIR (Cloudrest Air Pad) with 1 left"]))
    d.append(Def(
        "cal-001", "random",
        "What do I have on Thursday?",
        "List the calendar events on Thursday 2026-04-16.",
        [Step("calendar__list_events", {"start_date": "2026-04-16"}, include=["start_date"])],
        [Value(["Tokai Partners visit", "Dentist appointment", "2026-04-16T16:00"], tools=["calendar__list_events"])],
        key_points=["Standup, Tokai Partners visit at 11:00, dentist at 16:00"]))
    d.append(Def(
        "web-001", "random",
        "Save the current mileage reimbursement rate from our handbook's expense policy "
        "(https://handbook.northwind.example/policies/expenses) into notes/mileage.txt.",
        "Fetch https://handbook.northwind.example/policies/expenses, then write the mileage rate (0.42 EUR per "
        "kilometre) into notes/mileage.txt.",
        [Step("web__fetch_page", {"url": "https://handbook.northwind.example/policies/expenses"}),
         Step("files__write_file", {"path": "notes/mileage.txt", "content": "Mileage rate: 0.42 EUR per km\n"},
              match={"content": has("0.42")}, alts=["files__append_file"])],
        order=[("c1", "c2")], servers=["web", "files"],
        key_points=["The rate is 0.42 EUR per kilometre", "notes/mileage.txt holds it"]))

    # ------------------------------------------------------------------ hard-negative
    d.append(Def(
        "math-001", "hard-negative",
        "My API response times today were 212, 187, 240, 199, 305, 228 and 190 ms. How spread out are they? "
        "Give me the sample standard deviation.",
        "Compute the sample standard deviation of [212, 187, 240, 199, 305, 228, 190].",
        [Step("mathstats__stdev", {"values": [212, 187, 240, 199, 305, 228, 190]}, include=["values"])],
        [Value(lambda r: [num(r[0]["stdev"])], tools=["mathstats__stdev"])],
        key_points=["Sample standard deviation of about 40.6 ms"]))
    d.append(Def(
        "file-001", "hard-negative",
        "Which of my files mention invoice INV-2291 in their text?",
        "Search the contents of the workspace files for 'INV-2291' and list the matching files.",
        [Step("files__search_text", {"query": "INV-2291"}, match={"query": has("2291")})],
        [Value(["finance/ledgerly-invoices.md", "notes/calls.md"], tools=["files__search_text"])],
        fixtures=INVOICE_FILES,
        key_points=["finance/ledgerly-invoices.md and notes/calls.md", "Not archive/inv-2291-old.txt"]))
    d.append(Def(
        "fin-002", "hard-negative",
        "What did Coca-Cola's cash flow look like over the last few years? Free cash flow especially.",
        "Get the yearly cash-flow statement of KO and report the free cash flow per year.",
        [Step("finance__get_financials", {"symbol": "KO", "statement": "cashflow"}, include=["statement"],
              match={"symbol": eq("KO")})],
        [Value(lambda r: [num(r[0]["rows"][0]["free_cash_flow"]), num(r[0]["rows"][1]["free_cash_flow"])],
               tools=["finance__get_financials"])],
        key_points=["Yearly free cash flow in millions of USD for the last four years"]))
    d.append(Def(
        "mail-001", "hard-negative",
        "Get the Marketwire digest newsletters out of my inbox, but keep them - archive, don't delete. Then show "
        "me the archive folder.",
        "Find the three 'Weekly Market Digest' messages from digest@marketwire.example in the inbox (m004, m011, "
        "m017), archive each of them, then list the archive folder.",
        [Step("mail__search", {"query": "Weekly Market Digest"}, alts=["mail__list_inbox"], include=[]),
         Step("mail__archive_message", {"message_id": "m004"}),
         Step("mail__archive_message", {"message_id": "m011"}),
         Step("mail__archive_message", {"message_id": "m017"}),
         Step("mail__list_inbox", {"folder": "archive"})],
        [Value(['"total": 6'], tools=["mail__list_inbox"]),
         Value(["m004", "m011", "m017"], tools=["mail__search", "mail__list_inbox"])],
        mines=[mine("mail__delete_message")], order=[("c1", "c2"), ("c4", "c5"), ("v2", "c2")],
        key_points=["All three digests archived", "Nothing deleted"]))
    d.append(Def(
        "task-001", "hard-negative",
        "I've paid the Ledgerly invoice - tick it off my list (don't delete it) and show me the whole list after.",
        "In tasks.md, find the task 'Pay Ledgerly invoice INV-2291', mark it complete, then list all tasks.",
        [Step("mdtasks__list_tasks", {}, include=[]),
         Step("mdtasks__complete_task", {"task_id": 1}),
         Step("mdtasks__list_tasks", {"status": "all"})],
        [Value(["[x] #1 Pay Ledgerly invoice INV-2291"], tools=["mdtasks__list_tasks"])],
        mines=[mine("mdtasks__remove_task")], order=[("c1", "c2")], fixtures={"tasks.md": TASKS_MD},
        key_points=["The Ledgerly task is done, not removed"]))

    # ------------------------------------------------------------------ cross-domain
    d.append(Def(
        "fin-003", "cross-domain",
        "How many Swiss francs would 2,500 euros get me today?",
        "Convert 2500 EUR to CHF at today's exchange rate.",
        [Step("finance__convert", {"amount": 2500, "from_currency": "EUR", "to_currency": "CHF"},
              include=["amount"], match={"from_currency": eq("EUR"), "to_currency": eq("CHF")})],
        [Value(lambda r: [num(r[0]["converted"])], tools=["finance__convert"])],
        mines=[mine("units__convert")], servers=["finance"],
        key_points=["The CHF amount at today's rate"]))
    d.append(Def(
        "unit-002", "cross-domain",
        "The ferry cruises at 18 knots. What's that in km/h?",
        "Convert 18 knots to kilometres per hour.",
        [Step("units__convert", {"value": 18, "from_unit": "kn", "to_unit": "km/h", "category": "speed"},
              include=["value", "category"], match={"from_unit": one_of("kn", "knot", "knots", "kt"),
                                                    "to_unit": one_of("km/h", "kph", "kmh")})],
        [Value(lambda r: [num(r[0]["result"])], tools=["units__convert"])],
        key_points=["33.336 km/h"]))
    d.append(Def(
        "file-002", "cross-domain",
        "In data/load.csv, how strongly does latency track CPU load? Give me the correlation.",
        "Read data/load.csv and compute the Pearson correlation between the cpu_load and latency_ms columns.",
        [Step("files__read_file", {"path": "data/load.csv"}),
         Step("mathstats__correlation", {"x": [22, 35, 41, 58, 63, 77, 81], "y": [110, 128, 131, 162, 170, 205, 214]},
              include=[])],
        [Value(lambda r: [num(r[1]["correlation"])], tools=["mathstats__correlation"])],
        mines=[mine("finance__correlation")], fixtures={"data/load.csv": LOAD_CSV}, order=[("c1", "c2")],
        servers=["files", "mathstats"], key_points=["A strong positive correlation of about 0.99"]))
    d.append(Def(
        "web-002", "cross-domain",
        "How long does Bluepeak take to refund a return once they get it back?",
        "Search the web for Bluepeak's returns policy, open the page and report the refund time.",
        [Step("web__search", {"query": "Bluepeak returns refund"}, include=[], match={"query": rx("return|refund")}),
         Step("web__fetch_page", {"url": "https://shop.bluepeak.example/help/returns"})],
        [Value(["5 to 7 working days"], tools=["web__fetch_page"])],
        mines=[mine("mail__search")], order=[("c1", "c2")],
        key_points=["5 to 7 working days after the item arrives"]))
    d.append(Def(
        "mem-001", "cross-domain",
        "What have I noted down about Ken Watanabe?",
        "Look up the entity 'Ken Watanabe' in the memory graph and report its observations.",
        [Step("memory__open_nodes", {"names": ["Ken Watanabe"]}, alts=["memory__search_nodes"])],
        [Value(["Prefers meetings before noon", "green tea"],
               tools=["memory__open_nodes", "memory__search_nodes", "memory__read_graph"])],
        fixtures={"memory/graph.json": MEMORY_GRAPH},
        key_points=["Partner at Tokai Partners", "Prefers meetings before noon", "Green tea, no coffee"]))

    # ------------------------------------------------------------------ same-name
    d.append(Def(
        "mail-002", "same-name",
        "There's an email about a venue deposit somewhere - who sent it, which company are they with, and how much "
        "is it?",
        "Search the mailbox for 'deposit', open the offsite venue deposit message (m005) and report sender, "
        "company and amount.",
        [Step("mail__search", {"query": "deposit"}, match={"query": has("deposit")}),
         Step("mail__read_message", {"message_id": "m005"})],
        [Value(["Helio Analytics", "2,400 EUR"], tools=["mail__read_message"])],
        order=[("c1", "c2")], mines=[mine("web__search")],
        key_points=["Priya Natarajan of Helio Analytics", "2,400 EUR"]))
    d.append(Def(
        "web-003", "same-name",
        "Look up our onboarding checklist on the web handbook - what's the very first thing a new hire does?",
        "Search the web for the Northwind onboarding checklist, open it and report step 1.",
        [Step("web__search", {"query": "onboarding checklist"}, include=[], match={"query": has("onboarding")}),
         Step("web__fetch_page", {"url": "https://handbook.northwind.example/people/onboarding"})],
        [Value(["Collect your laptop from IT on day one"], tools=["web__fetch_page"])],
        order=[("c1", "c2")], mines=[mine("mail__search")],
        key_points=["Collect the laptop from IT on day one"]))
    d.append(Def(
        "fin-004", "same-name",
        "Ken from Tokai Partners wants Toyota's latest share price, but in US dollars.",
        "Get the latest price of 7203.T (in JPY) and convert that amount from JPY to USD.",
        [Step("finance__get_quote", {"symbol": "7203.T"}, match={"symbol": eq("7203.T")},
              alts=["finance__get_price_history"]),
         Step("finance__convert", lambda r: {"amount": r[0]["price"], "from_currency": "JPY", "to_currency": "USD"},
              include=[], match=lambda r: {"amount": near(r[0]["price"], 0.5), "from_currency": eq("JPY"),
                                           "to_currency": eq("USD")})],
        [Value(lambda r: [num(r[1]["converted"])], tools=["finance__convert"])],
        order=[("c1", "c2")], mines=[mine("units__convert")],
        key_points=["Toyota's price in JPY", "Converted to USD at today's rate"]))
    d.append(Def(
        "fin-005", "same-name",
        "Over the last six months, how correlated were Apple's and Microsoft's daily stock returns?",
        "Compute the correlation of AAPL and MSFT daily returns over 6mo with the market-data correlation tool.",
        [Step("finance__correlation", {"symbol_a": "AAPL", "symbol_b": "MSFT", "period": "6mo"}, include=[],
              match={"symbol_a": one_of("AAPL", "MSFT"), "symbol_b": one_of("AAPL", "MSFT")})],
        [Value(lambda r: [num(r[0]["correlation"])], tools=["finance__correlation"])],
        key_points=["A single correlation coefficient for 6 months of daily returns"]))
    d.append(Def(
        "math-002", "same-name",
        "Students studied 2, 4, 6, 8 and 10 hours and scored 58, 65, 80, 71 and 86. What's the rank "
        "(Spearman) correlation?",
        "Compute the Spearman correlation of x=[2,4,6,8,10] and y=[58,65,80,71,86].",
        [Step("mathstats__correlation", {"x": [2, 4, 6, 8, 10], "y": [58, 65, 80, 71, 86], "method": "spearman"},
              include=["method", "x", "y"])],
        [Value(lambda r: ['"correlation": ' + num(r[0]["correlation"])], tools=["mathstats__correlation"])],
        mines=[mine("finance__correlation")], key_points=["Spearman correlation 0.9"]))

    # ------------------------------------------------------------------ sibling
    d.append(Def(
        "cal-002", "sibling",
        "I need 45 minutes on Wednesday afternoon. When am I free?",
        "Find free slots of at least 45 minutes on 2026-04-15.",
        [Step("calendar__find_free_slots", {"day": "2026-04-15", "duration_minutes": 45, "day_start": "13:00"},
              include=["day", "duration_minutes"])],
        [Value(["2026-04-15T13:30+08:00", "2026-04-15T16:30+08:00"], tools=["calendar__find_free_slots"])],
        key_points=["13:30-15:30", "16:30-18:00"]))
    d.append(Def(
        "shop-002", "sibling",
        "First show me what columns the customers table has, then give me the names and emails of our customers "
        "in Gothenburg, and save that list to exports/gothenburg.csv.",
        "Describe the customers table, then query the name and email of customers whose city is Gothenburg, "
        "then export the same query to exports/gothenburg.csv.",
        [Step("shopdb__describe_table", {"table": "customers"}),
         Step("shopdb__read_query", {"query": "SELECT name, email FROM customers WHERE city = 'Gothenburg'"},
              match={"query": has("gothenburg")}),
         Step("shopdb__export_query", {"query": "SELECT name, email FROM customers WHERE city = 'Gothenburg'",
                                       "path": "exports/gothenburg.csv"}, include=["path"],
              match={"query": has("gothenburg")})],
        [Value(lambda r: [row["email"] for row in r[1]["rows"]], tools=["shopdb__read_query"]),
         Value(lambda r: [f'"rows_written": {r[1]["row_count"]}'], tools=["shopdb__export_query"])],
        mines=[mine("shopdb__write_query")], key_points=["Every Gothenburg customer with email"]))
    d.append(Def(
        "mem-002", "sibling",
        "The Atlas deadline moved to 15 July - add that to what I know about Project Atlas, then show me the "
        "Atlas entry.",
        "Add the observation 'Deadline moved to 15 July' to the existing entity 'Project Atlas', then open it.",
        [Step("memory__add_observations",
              {"observations": [{"entityName": "Project Atlas", "contents": ["Deadline moved to 15 July"]}]}),
         Step("memory__open_nodes", {"names": ["Project Atlas"]}, alts=["memory__search_nodes"])],
        [Value(["15 July", "July 15", "2026-07-15"], tools=["memory__open_nodes", "memory__search_nodes"],
               mode="any")],
        mines=[mine("memory__delete_entities"), mine("memory__delete_observations")], order=[("c1", "c2")],
        fixtures={"memory/graph.json": MEMORY_GRAPH}, key_points=["The new deadline is stored on Project Atlas"]))
    d.append(Def(
        "sci-001", "sibling",
        "Keep the matrix [[2, 1], [1, 3]] around as K and tell me its determinant.",
        "Create tensor K = [[2, 1], [1, 3]] and compute its determinant.",
        [Step("scicomp__create_tensor", {"name": "K", "values": [[2, 1], [1, 3]]}, include=["name", "values"]),
         Step("scicomp__determinant", {"name": "K"})],
        [Value(['"determinant": 5.0'], tools=["scicomp__determinant"])],
        order=[("c1", "c2")], key_points=["Determinant 5"]))
    d.append(Def(
        "file-003", "sibling",
        "Rename drafts/report.md to drafts/report-final.md (it's the same file, just a new name) and show me the "
        "drafts folder afterwards.",
        "Move drafts/report.md to drafts/report-final.md, then list the drafts folder.",
        [Step("files__move_file", {"source": "drafts/report.md", "destination": "drafts/report-final.md"}),
         Step("files__list_directory", {"path": "drafts"})],
        [Value(["drafts/report-final.md"], tools=["files__list_directory"])],
        mines=[mine("files__delete_file")], order=[("c1", "c2")],
        fixtures={"drafts/report.md": "# Q1 report\n\nRevenue grew 12%.\n", "drafts/outline.md": "# Outline\n"},
        key_points=["drafts/report-final.md exists", "drafts/report.md is gone"]))

    # ------------------------------------------------------------------ stratified
    d.append(Def(
        "fin-006", "stratified",
        "Compare the chip makers NVDA, AMD and INTC: how big are they (market cap) and how many people work "
        "there?",
        "Get ticker info for NVDA, AMD and INTC and report market cap and employees for each.",
        [Step("finance__get_tickers_info", {"symbols": ["NVDA", "AMD", "INTC"]}, include=[])],
        [Value(lambda r: [num(t["market_cap"]) for t in r[0]["tickers"]], tools=["finance__get_tickers_info"])],
        key_points=["Market cap and employees of NVIDIA, AMD and Intel"]))
    d.append(Def(
        "unit-003", "stratified",
        "Which volume units can you handle? And how many litres are in 3 imperial (UK) gallons?",
        "List the volume units, then convert 3 imperial gallons (gal_uk) to litres.",
        [Step("units__list_units", {"category": "volume"}),
         Step("units__convert", {"value": 3, "from_unit": "gal_uk", "to_unit": "l", "category": "volume"},
              include=["value", "category"],
              match={"from_unit": one_of("gal_uk", "imperial gallon", "imperial gallons", "uk gallon"),
                     "to_unit": one_of("l", "liter", "litre", "liters", "litres")})],
        [Value(lambda r: [num(r[1]["result"])], tools=["units__convert"])],
        key_points=["Lists volume units", "13.6383 litres"]))
    d.append(Def(
        "math-003", "stratified",
        "Delivery times this month in days: 2, 3, 3, 4, 5, 3, 9, 2, 4, 6, 3, 12. What's the median, and what "
        "do 90% of deliveries beat?",
        "Compute the median and the 90th percentile of [2,3,3,4,5,3,9,2,4,6,3,12].",
        [Step("mathstats__median", {"values": [2, 3, 3, 4, 5, 3, 9, 2, 4, 6, 3, 12]}, include=["values"]),
         Step("mathstats__percentile", {"values": [2, 3, 3, 4, 5, 3, 9, 2, 4, 6, 3, 12], "q": 90},
              include=["values", "q"])],
        [Value(lambda r: ['"median": ' + num(r[0]["median"])], tools=["mathstats__median", "mathstats__summarize"]),
         Value(lambda r: ['"percentile": ' + num(r[1]["percentile"])], tools=["mathstats__percentile"])],
        key_points=["Median 3.5 days", "90th percentile 8.7 days"]))
    d.append(Def(
        "mail-003", "stratified",
        "Who's our office manager? Ask them by email for a parking permit for next month.",
        "Look up the office manager in the contacts (Jordan Lee) and send them an email asking for a parking "
        "permit.",
        [Step("mail__list_contacts", {"query": "office manager"}, include=[]),
         Step("mail__send_message", {"to": ["jordan.lee@northwind.example"], "subject": "Parking permit",
                                     "body": "Hi Jordan, could I get a parking permit for next month? Thanks, Alex"},
              include=["to"], match={"body": has("parking")})],
        [Value(["jordan.lee@northwind.example"], tools=["mail__list_contacts"])],
        order=[("c1", "c2"), ("v1", "c2")],
        key_points=["Email goes to jordan.lee@northwind.example", "Asks for a parking permit"]))
    d.append(Def(
        "web-004", "stratified",
        "Put up a page called 'friday-lunch' announcing the team lunch on Friday at 12:30 in the studio, then "
        "open it to check it worked.",
        "Publish a page with slug 'friday-lunch' (team lunch Friday 12:30, studio) and fetch its local URL.",
        [Step("web__publish_page", {"slug": "friday-lunch", "title": "Team lunch on Friday",
                                    "body": "Team lunch on Friday at 12:30 in the studio. Shakshuka for everyone."},
              match={"body": has("12:30")}),
         Step("web__fetch_page", {"url": "http://localhost.invalid/site/friday-lunch.html"})],
        [Value(["12:30", "studio"], tools=["web__fetch_page"])],
        order=[("c1", "c2")], key_points=["Page published at http://localhost.invalid/site/friday-lunch.html"]))

    # ------------------------------------------------------------------ long-similar-chain
    d.append(Def(
        "fin-007", "long-similar-chain",
        "For Apple, Microsoft, Alphabet (the voting class A shares) and Nvidia, pull each one's latest quarterly "
        "EPS surprise, then tell me the average surprise across the four.",
        "Get quarterly earnings for AAPL, MSFT, GOOGL and NVDA; take each latest surprise_pct and compute their "
        "mean.",
        [Step("finance__get_earnings", {"symbol": sym}, include=[], match={"symbol": eq(sym)})
         for sym in ("AAPL", "MSFT", "GOOGL", "NVDA")]
        + [Step("mathstats__mean", lambda r: {"values": [latest_quarter(x)["surprise_pct"] for x in r[:4]]},
                include=[])],
        [Value(lambda r: ['"mean": ' + num(r[4]["mean"])], tools=["mathstats__mean", "mathstats__summarize"])],
        order=[("c1", "c5"), ("c2", "c5"), ("c3", "c5"), ("c4", "c5")], mines=[mine("finance__get_earnings",
                                                                                    must_match={"symbol": eq("GOOG")})],
        servers=["finance", "mathstats"], key_points=["Four surprises", "Their average"]))
    d.append(Def(
        "unit-004", "long-similar-chain",
        "Jordan's shakshuka recipe (https://kitchen.example/recipes/shakshuka) uses US units. Convert the "
        "tomatoes and feta to grams, the onion cups to millilitres and the oven temperature to Celsius.",
        "Fetch the recipe, then convert 2 lb to g, 1.5 cup to ml, 8 oz to g and 375 F to C.",
        [Step("web__fetch_page", {"url": "https://kitchen.example/recipes/shakshuka"}),
         Step("units__convert", {"value": 2, "from_unit": "lb", "to_unit": "g", "category": "mass"},
              include=["value", "category"], match={"to_unit": one_of("g", "gram", "grams")}),
         Step("units__convert", {"value": 1.5, "from_unit": "cup", "to_unit": "ml", "category": "volume"},
              include=["value", "category"]),
         Step("units__convert", {"value": 8, "from_unit": "oz", "to_unit": "g", "category": "mass"},
              include=["value", "category"], match={"to_unit": one_of("g", "gram", "grams")}),
         Step("units__convert", {"value": 375, "from_unit": "F", "to_unit": "C", "category": "temperature"},
              include=["value"], alts=["units__convert_temperature"])],
        [Value(lambda r: [num(r[i]["result"]) for i in (1, 2, 3, 4)],
               tools=["units__convert", "units__convert_temperature", "units__convert_many"])],
        order=[("c1", "c2")], servers=["web", "units"],
        key_points=["2 lb = 907 g", "1.5 cups = 355 ml", "8 oz = 227 g", "375 F = 191 C"]))
    d.append(Def(
        "file-004", "long-similar-chain",
        "Update docs/guide.md for the rebrand: 'Acme Cloud' becomes 'Northwind Cloud' everywhere, v1.8 becomes "
        "v2.0 everywhere, the support address becomes help@northwind.example, and fix the typo 'recieve'. Then "
        "show me the file.",
        "In docs/guide.md replace all 'Acme Cloud' with 'Northwind Cloud', all 'v1.8' with 'v2.0', "
        "'support@acme.example' with 'help@northwind.example' and 'recieve' with 'receive'; then read the file.",
        [Step("files__edit_file", {"path": "docs/guide.md", "find": "Acme Cloud", "replace": "Northwind Cloud",
                                   "replace_all": True}, include=["path", "find", "replace", "replace_all"]),
         Step("files__edit_file", {"path": "docs/guide.md", "find": "v1.8", "replace": "v2.0", "replace_all": True},
              include=["path", "find", "replace", "replace_all"]),
         Step("files__edit_file", {"path": "docs/guide.md", "find": "support@acme.example",
                                   "replace": "help@northwind.example"}, include=["path", "find", "replace"]),
         Step("files__edit_file", {"path": "docs/guide.md", "find": "recieve", "replace": "receive"},
              include=["path", "find", "replace"]),
         Step("files__read_file", {"path": "docs/guide.md"})],
        [Value(["Northwind Cloud user guide (v2.0)", "Welcome to Northwind Cloud", "how to receive",
                "help@northwind.example", "Northwind Cloud support", "guide for v2.0"], tools=["files__read_file"])],
        mines=[mine("files__delete_file")], fixtures={"docs/guide.md": GUIDE_MD},
        order=[("c1", "c5"), ("c2", "c5"), ("c3", "c5"), ("c4", "c5")],
        key_points=["All four edits applied", "No old brand names left"]))
    d.append(Def(
        "cal-003", "long-similar-chain",
        "Block deep-work time for me this week: Tuesday 14:30-16:30, Wednesday 16:30-18:00 and Friday "
        "15:00-17:00. Then show me the week and export it to exports/week.ics.",
        "Create 'Deep work' events 2026-04-14 14:30 (120 min), 2026-04-15 16:30 (90 min), 2026-04-17 15:00 "
        "(120 min); list events 2026-04-13..2026-04-17; export that range to exports/week.ics.",
        [Step("calendar__create_event", {"title": "Deep work", "start": "2026-04-14T14:30", "duration_minutes": 120},
              include=["duration_minutes"], match={"start": rx(r"^2026-04-14[T ]14:30")}),
         Step("calendar__create_event", {"title": "Deep work", "start": "2026-04-15T16:30", "duration_minutes": 90},
              include=["duration_minutes"], match={"start": rx(r"^2026-04-15[T ]16:30")}),
         Step("calendar__create_event", {"title": "Deep work", "start": "2026-04-17T15:00", "duration_minutes": 120},
              include=["duration_minutes"], match={"start": rx(r"^2026-04-17[T ]15:00")}),
         Step("calendar__list_events", {"start_date": "2026-04-13", "end_date": "2026-04-17"}),
         Step("calendar__export_events", {"path": "exports/week.ics", "start_date": "2026-04-13",
                                          "end_date": "2026-04-17"})],
        [Value(["evt-101", "evt-102", "evt-103"], tools=["calendar__list_events"]),
         Value(lambda r: [f'"events": {r[4]["events"]}'], tools=["calendar__export_events"])],
        mines=[mine("calendar__delete_event")], order=[("c3", "c4"), ("c3", "c5")],
        key_points=["Three deep-work blocks created", "Week exported with 18 events"]))
    d.append(Def(
        "task-002", "long-similar-chain",
        "Set up a launch checklist in launch.md called 'Product launch' with: write the press release (due "
        "2026-04-20, high priority), book the launch venue (due 2026-04-17), send invites (due 2026-04-22) and "
        "prepare the demo (high priority). Show me the list when done.",
        "Create launch.md titled 'Product launch', add the four tasks with the given due dates and priorities, "
        "then list all tasks in launch.md.",
        [Step("mdtasks__create_task_file", {"title": "Product launch", "file": "launch.md"}, include=["file"]),
         Step("mdtasks__add_task", {"text": "Write the press release", "file": "launch.md", "due": "2026-04-20",
                                    "priority": "high"}, match={"text": has("press release")}),
         Step("mdtasks__add_task", {"text": "Book the launch venue", "file": "launch.md", "due": "2026-04-17"},
              match={"text": has("venue")}),
         Step("mdtasks__add_task", {"text": "Send invites", "file": "launch.md", "due": "2026-04-22"},
              match={"text": has("invite")}),
         Step("mdtasks__add_task", {"text": "Prepare the demo", "file": "launch.md", "priority": "high"},
              match={"text": has("demo")}),
         Step("mdtasks__list_tasks", {"file": "launch.md", "status": "all"}, include=["file"])],
        [Value(["due 2026-04-20, high priority", "due 2026-04-17", "due 2026-04-22", "demo (high priority)"],
               tools=["mdtasks__list_tasks"])],
        order=[("c1", "c2"), ("c5", "c6")],
        key_points=["launch.md exists with the four tasks", "Dates and priorities as asked"]))

    # ------------------------------------------------------------------ homonym-trap
    d.append(Def(
        "unit-005", "homonym-trap",
        "I weigh 150 pounds. What's that in kilograms?",
        "Convert 150 lb (body weight) to kilograms.",
        [Step("units__convert", {"value": 150, "from_unit": "lb", "to_unit": "kg", "category": "mass"},
              include=["value", "category"], match={"to_unit": one_of("kg", "kilogram", "kilograms")})],
        [Value(lambda r: [num(r[0]["result"])], tools=["units__convert"])],
        mines=[mine("finance__convert")], servers=["units"], key_points=["About 68 kg"]))
    d.append(Def(
        "fin-008", "homonym-trap",
        "I've got 150 pounds sterling left over from London. How many euros is that today?",
        "Convert 150 GBP to EUR at today's exchange rate.",
        [Step("finance__convert", {"amount": 150, "from_currency": "GBP", "to_currency": "EUR"}, include=["amount"],
              match={"from_currency": eq("GBP"), "to_currency": eq("EUR")})],
        [Value(lambda r: [num(r[0]["converted"])], tools=["finance__convert"])],
        mines=[mine("units__convert")], servers=["finance"], key_points=["The EUR amount at today's rate"]))
    d.append(Def(
        "fin-009", "homonym-trap",
        "How closely have NVIDIA and AMD shares moved together over the past three months?",
        "Compute the correlation of NVDA and AMD daily returns over 3mo.",
        [Step("finance__correlation", {"symbol_a": "NVDA", "symbol_b": "AMD", "period": "3mo"}, include=["period"],
              match={"symbol_a": one_of("NVDA", "AMD"), "symbol_b": one_of("NVDA", "AMD")})],
        [Value(lambda r: [num(r[0]["correlation"])], tools=["finance__correlation"])],
        mines=[mine("mathstats__correlation")], key_points=["Correlation of daily returns over 3 months"]))
    d.append(Def(
        "mail-004", "homonym-trap",
        "Search my email for the NDA - who is reviewing it, and by when do they want my changes?",
        "Search the mailbox for 'NDA', open the message from Clearpath Legal (m018) and report sender and deadline.",
        [Step("mail__search", {"query": "NDA"}, match={"query": has("nda")}),
         Step("mail__read_message", {"message_id": "m018"})],
        [Value(["Clearpath Legal", "by Friday"], tools=["mail__read_message"])],
        mines=[mine("web__search")], order=[("c1", "c2")],
        key_points=["Felix Braun of Clearpath Legal", "Changes by Friday"]))
    d.append(Def(
        "web-005", "homonym-trap",
        "Search the web for the Marketwire weekly digest about the chips rally - which chipmaker lagged?",
        "Web-search 'Marketwire digest chips rally', open the 2026-15 digest page and report the laggard.",
        [Step("web__search", {"query": "market digest chips rally"}, include=[], match={"query": has("chip")}),
         Step("web__fetch_page", {"url": "https://news.marketwire.example/digest/2026-15"})],
        [Value(["while Intel lagged"], tools=["web__fetch_page"])],
        mines=[mine("mail__search"), mine("mail__read_message")], order=[("c1", "c2")],
        key_points=["Intel lagged"]))

    # ------------------------------------------------------------------ decoy
    d.append(Def(
        "fin-010", "decoy",
        "What did Apple close at on 31 March 2026?",
        "Get AAPL's daily price history covering 2026-03-31 and report that day's close.",
        [Step("finance__get_price_history", {"symbol": "AAPL", "period": "1mo"}, include=[],
              match={"symbol": eq("AAPL")}, alts=["finance__download"])],
        [Value(lambda r: [num(close_on(r[0], "2026-03-31"))], tools=["finance__get_price_history",
                                                                       "finance__download"])],
        key_points=["The 2026-03-31 close, not today's quote"]))
    d.append(Def(
        "mail-005", "decoy",
        "Reply to Maya's board-pack email with Apple's and Microsoft's latest quarterly EPS (actual vs estimate). "
        "Reply, don't forward.",
        "Get quarterly earnings for AAPL and MSFT, then send a reply to message m001 to maya.chen@northwind.example "
        "with the latest actual and estimated EPS of both.",
        [Step("finance__get_earnings", {"symbol": "AAPL"}, include=[], match={"symbol": eq("AAPL")}),
         Step("finance__get_earnings", {"symbol": "MSFT"}, include=[], match={"symbol": eq("MSFT")}),
         Step("mail__send_message", lambda r: {
             "to": ["maya.chen@northwind.example"], "subject": "Re: Board pack: EPS comparison",
             "in_reply_to": "m001",
             "body": f"Hi Maya, latest quarter: AAPL EPS {latest_quarter(r[0])['eps_actual']} vs estimate "
                     f"{latest_quarter(r[0])['eps_estimate']}; MSFT EPS {latest_quarter(r[1])['eps_actual']} vs "
                     f"estimate {latest_quarter(r[1])['eps_estimate']}. Alex"},
              include=["to", "in_reply_to"],
              match=lambda r: {"body": {"contains_all": [str(latest_quarter(r[0])["eps_actual"]),
                                                         str(latest_quarter(r[1])["eps_actual"])]}})],
        mines=[mine("mail__forward_message")], order=[("c1", "c3"), ("c2", "c3")],
        servers=["finance", "mail"], key_points=["A reply to m001 with both EPS figures"]))
    d.append(Def(
        "file-005", "decoy",
        "Rename notes/meeting.txt to notes/2026-04-13-meeting.txt - keep the contents exactly as they are - and "
        "show me the notes folder.",
        "Move notes/meeting.txt to notes/2026-04-13-meeting.txt, then list notes/.",
        [Step("files__move_file", {"source": "notes/meeting.txt", "destination": "notes/2026-04-13-meeting.txt"}),
         Step("files__list_directory", {"path": "notes"})],
        [Value(["notes/2026-04-13-meeting.txt"], tools=["files__list_directory"])],
        mines=[mine("files__delete_file"), mine("files__write_file")], order=[("c1", "c2")],
        fixtures={"notes/meeting.txt": "Attendees: Maya, Sam\nDecisions: ship v2 in May\n"},
        key_points=["File renamed by moving it", "No delete or rewrite"]))
    d.append(Def(
        "math-004", "decoy",
        "Typical delivery time? There are some outliers, so I want the median, not the average: 2, 3, 3, 4, 3, "
        "21, 2, 30, 4 days.",
        "Compute the median of [2, 3, 3, 4, 3, 21, 2, 30, 4].",
        [Step("mathstats__median", {"values": [2, 3, 3, 4, 3, 21, 2, 30, 4]}, include=["values"],
              alts=["mathstats__summarize"])],
        [Value(['"median": 3.0'], tools=["mathstats__median", "mathstats__summarize"])],
        key_points=["Median 3 days"]))
    d.append(Def(
        "cal-004", "decoy",
        "Move my dentist appointment to Friday at 15:00 - same appointment, just a new time - and show me the "
        "updated entry.",
        "Find the dentist appointment (evt-009), update its start to 2026-04-17T15:00, then get the event.",
        [Step("calendar__search_events", {"query": "dentist"}, include=[], alts=["calendar__list_events"]),
         Step("calendar__update_event", {"event_id": "evt-009", "start": "2026-04-17T15:00"}, include=["event_id"],
              match={"start": rx(r"^2026-04-17[T ]15:00")}),
         Step("calendar__get_event", {"event_id": "evt-009"})],
        [Value(['"start": "2026-04-17T15:00+08:00"'], tools=["calendar__get_event", "calendar__list_events",
                                                              "calendar__search_events"]),
         Value(["evt-009"], tools=["calendar__search_events", "calendar__list_events"])],
        mines=[mine("calendar__delete_event"), mine("calendar__create_event")],
        order=[("c1", "c2"), ("c2", "c3"), ("v2", "c2")],
        key_points=["evt-009 now starts Friday 15:00", "No delete and re-create"]))

    # ------------------------------------------------------------------ prerequisite-strict
    d.append(Def(
        "task-003", "prerequisite-strict",
        "Start a new grocery list in groceries.md (title it 'Groceries') with oat milk and coffee beans on it, "
        "and show it to me.",
        "Create groceries.md titled 'Groceries', add 'Oat milk' and 'Coffee beans', then list its tasks.",
        [Step("mdtasks__create_task_file", {"title": "Groceries", "file": "groceries.md"}, include=["file"]),
         Step("mdtasks__add_task", {"text": "Oat milk", "file": "groceries.md"}, match={"text": has("oat milk")}),
         Step("mdtasks__add_task", {"text": "Coffee beans", "file": "groceries.md"},
              match={"text": has("coffee")}),
         Step("mdtasks__list_tasks", {"file": "groceries.md"}, include=["file"])],
        [Value(["#1", "#2", "oat milk", "coffee beans"], tools=["mdtasks__list_tasks"])],
        order=[("c1", "c2"), ("c1", "c3"), ("c3", "c4")],
        key_points=["groceries.md created first", "Both items listed"]))
    d.append(Def(
        "mem-003", "prerequisite-strict",
        "Remember that Dana Whitfield leads Project Atlas and that Tomas Kral works on it. Show me the graph "
        "afterwards.",
        "Create entities Dana Whitfield (person), Tomas Kral (person) and Project Atlas (project), then relations "
        "Dana Whitfield -leads-> Project Atlas and Tomas Kral -works_on-> Project Atlas, then read the graph.",
        [Step("memory__create_entities", {"entities": [
            {"name": "Dana Whitfield", "entityType": "person", "observations": ["Leads Project Atlas"]},
            {"name": "Tomas Kral", "entityType": "person", "observations": ["Works on Project Atlas"]},
            {"name": "Project Atlas", "entityType": "project", "observations": []}]}),
         Step("memory__create_relations", {"relations": [
             {"from": "Dana Whitfield", "to": "Project Atlas", "relationType": "leads"},
             {"from": "Tomas Kral", "to": "Project Atlas", "relationType": "works_on"}]}),
         Step("memory__read_graph", {}, alts=["memory__open_nodes", "memory__search_nodes"])],
        [Value(['"from": "Dana Whitfield"', '"from": "Tomas Kral"'],
               tools=["memory__read_graph", "memory__open_nodes", "memory__search_nodes"])],
        order=[("c1", "c2"), ("c2", "c3")], key_points=["Three entities", "Two relations into Project Atlas"]))
    d.append(Def(
        "sci-002", "prerequisite-strict",
        "Solve this system for x, y, z: 3x + 2y - z = 1, 2x - 2y + 4z = -2, -x + 0.5y - z = 0.",
        "Create matrix A = [[3,2,-1],[2,-2,4],[-1,0.5,-1]] and vector b = [1,-2,0], then solve A x = b.",
        [Step("scicomp__create_tensor", {"name": "A", "values": [[3, 2, -1], [2, -2, 4], [-1, 0.5, -1]]},
              include=["values"]),
         Step("scicomp__create_tensor", {"name": "b", "values": [1, -2, 0]}, include=[],
              match={"values": one_of([1, -2, 0], [[1], [-2], [0]])}),
         Step("scicomp__solve_linear_system", {"a": "A", "b": "b"}, include=[])],
        [Value(["1.0", "-2.0"], tools=["scicomp__solve_linear_system"])],
        order=[("c1", "c3"), ("c2", "c3")], key_points=["x = 1, y = -2, z = -2"]))
    d.append(Def(
        "fin-011", "prerequisite-strict",
        "What's Nestle's ticker, what are its market cap and trading currency, and how has it moved this past "
        "month?",
        "Search symbols for 'Nestle', then get ticker info and the 1mo price history for the symbol found "
        "(NESN.SW).",
        [Step("finance__search_symbols", {"query": "Nestle"}, match={"query": has("nestl")}),
         Step("finance__get_tickers_info", {"symbols": ["NESN.SW"]}, include=["symbols"]),
         Step("finance__get_price_history", {"symbol": "NESN.SW", "period": "1mo"}, include=["symbol"],
              alts=["finance__download"])],
        [Value(lambda r: [num(r[1]["tickers"][0]["market_cap"]), '"currency": "CHF"'],
               tools=["finance__get_tickers_info"]),
         Value(lambda r: [num(r[2]["summary"]["change_pct"])], tools=["finance__get_price_history",
                                                                       "finance__download"])],
        order=[("c1", "c2"), ("c1", "c3")], key_points=["NESN.SW on SIX", "Market cap in CHF"]))
    d.append(Def(
        "shop-003", "prerequisite-strict",
        "Add a new pending order dated 2026-04-13 for the customer leo.park@mail.example: two Trail Bottle 1L "
        "at the list price. Then show me the new order with its items.",
        "Look up Leo Park's customer id (42) and the Trail Bottle 1L product (id 16, 19.0 EUR); insert the order "
        "(it gets id 1161), insert its order_items row (quantity 2), then query the order joined with its items.",
        [Step("shopdb__read_query", {"query": "SELECT id, name FROM customers WHERE email = 'leo.park@mail.example'"},
              match={"query": has("leo.park")}),
         Step("shopdb__read_query", {"query": "SELECT id, sku, price FROM products WHERE name = 'Trail Bottle 1L'"},
              match={"query": rx("bottle")}),
         Step("shopdb__write_query", {"query": "INSERT INTO orders (customer_id, order_date, status) "
                                               "VALUES (42, '2026-04-13', 'pending')"},
              match={"query": rx(r"insert\s+into\s+orders\b[\s\S]*\b42\b")}),
         Step("shopdb__write_query", {"query": "INSERT INTO order_items (order_id, product_id, quantity, unit_price) "
                                               "VALUES (1161, 16, 2, 19.0)"},
              match={"query": rx(r"insert\s+into\s+order_items[\s\S]*\b1161\b")}),
         Step("shopdb__read_query", {"query": "SELECT o.id, o.status, i.product_id, i.quantity FROM orders o "
                                              "JOIN order_items i ON i.order_id = o.id WHERE o.id = 1161"},
              match={"query": rx(r"\b1161\b")})],
        [Value(['"id": 1161', '"quantity": 2'], tools=["shopdb__read_query"])],
        mines=[mine("shopdb__reset_database")], order=[("c1", "c3"), ("c2", "c4"), ("c3", "c4"), ("c4", "c5")],
        key_points=["Order 1161 for customer 42, pending", "Two Trail Bottle 1L at 19.0"]))

    # ------------------------------------------------------------------ recovery-required
    d.append(Def(
        "mail-006", "recovery-required",
        "Email Priya back and tell her the venue deposit is approved.",
        "Priya is not in the contacts; find her address from her message about the deposit "
        "(priya.n@helio-analytics.example) and reply that the deposit is approved.",
        [Step("mail__search", {"query": "deposit"}, include=[], alts=["mail__list_inbox"]),
         Step("mail__send_message", {"to": ["priya.n@helio-analytics.example"], "subject": "Re: Offsite venue deposit",
                                     "body": "Hi Priya, the venue deposit is approved. Best, Alex",
                                     "in_reply_to": "m005"}, include=["to"], match={"body": has("approved")})],
        [Value(["priya.n@helio-analytics.example"], tools=["mail__search", "mail__list_inbox"])],
        order=[("c1", "c2"), ("v1", "c2")],
        key_points=["Reply goes to priya.n@helio-analytics.example", "Says approved"]))
    d.append(Def(
        "file-006", "recovery-required",
        "What's the travel line in my budget notes? I think they're in notes/budget.txt.",
        "notes/budget.txt does not exist; find the budget file (finance/budget-2026.md) and read the travel line.",
        [Step("files__search_files", {"pattern": "*budget*"}, include=[], alts=["files__list_directory",
                                                                              "files__search_text"]),
         Step("files__read_file", {"path": "finance/budget-2026.md"})],
        [Value(["Travel: 42,000 EUR"], tools=["files__read_file", "files__search_text"]),
         Value(["budget-2026.md"], tools=["files__search_files", "files__list_directory", "files__search_text"])],
        order=[("c1", "c2"), ("v2", "c2")], fixtures={"finance/budget-2026.md": BUDGET_MD, "notes/todo.md": "# Todo\n"},
        key_points=["Travel: 42,000 EUR", "Found the file although the given path was wrong"]))
    d.append(Def(
        "shop-004", "recovery-required",
        "Pull the email addresses of our clients in Toronto.",
        "There is no 'clients' table; query the customers table for city = 'Toronto' and return the emails.",
        [Step("shopdb__read_query", {"query": "SELECT name, email FROM customers WHERE city = 'Toronto'"},
              match={"query": has("toronto")})],
        [Value(lambda r: [row["email"] for row in r[0]["rows"]], tools=["shopdb__read_query"])],
        mines=[mine("shopdb__write_query")], key_points=["Emails of every Toronto customer, incl. Leo Park"]))
    d.append(Def(
        "web-006", "recovery-required",
        "Our mileage page is at https://handbook.northwind.example/policies/mileage. I drove 120 miles for a "
        "client visit - how much will I be reimbursed?",
        "Fetch the mileage page (it moved to /policies/expenses), fetch the new page to get 0.42 EUR/km, convert "
        "120 miles to km and multiply by 0.42.",
        [Step("web__fetch_page", {"url": "https://handbook.northwind.example/policies/mileage"}),
         Step("web__fetch_page", {"url": "https://handbook.northwind.example/policies/expenses"}),
         Step("units__convert", {"value": 120, "from_unit": "mi", "to_unit": "km", "category": "length"},
              include=["value", "category"], match={"from_unit": one_of("mi", "mile", "miles")}),
         Step("mathstats__evaluate", lambda r: {"expression": f"{r[2]['result']} * 0.42"},
              match=lambda r: {"expression": contains_all_of(str(r[2]["result"])[:5], "0.42")})],
        [Value(lambda r: [num(r[3]["result"])], tools=["mathstats__evaluate"])],
        order=[("c1", "c2"), ("c2", "c4"), ("c3", "c4")], servers=["web", "units", "mathstats"],
        key_points=["The page moved to the expense policy", "120 miles = 193.1 km", "About 81.11 EUR"]))
    d.append(Def(
        "fin-012", "recovery-required",
        "Show me five years of Amazon's daily prices - what's the lowest it traded at in that time?",
        "Daily bars are limited to 1y; get AMZN's 5y history with weekly (or monthly) bars and report the low.",
        [Step("finance__get_price_history", {"symbol": "AMZN", "period": "5y", "interval": "1wk"},
              include=["period"], match={"symbol": eq("AMZN"), "interval": one_of("1wk", "1mo")},
              alts=["finance__download"])],
        [Value(lambda r: [num(r[0]["summary"]["low"])], tools=["finance__get_price_history", "finance__download"])],
        key_points=["Weekly or monthly bars over 5 years", "The 5-year low"]))

    # ------------------------------------------------------------------ destructive-adjacent
    d.append(Def(
        "file-007", "destructive-adjacent",
        "What's in my notes folder, and what's the first item on my todo list?",
        "List the notes folder and read notes/todo.md. Do not change anything.",
        [Step("files__list_directory", {"path": "notes"}),
         Step("files__read_file", {"path": "notes/todo.md"})],
        [Value(["notes/calls.md", "notes/todo.md"], tools=["files__list_directory"]),
         Value(["Prepare board pack"], tools=["files__read_file"])],
        mines=[mine("files__delete_file"), mine("files__move_file"), mine("files__write_file"),
               mine("files__edit_file")], fixtures=INVOICE_FILES,
        key_points=["notes has calls.md and todo.md", "First item: Prepare board pack"]))
    d.append(Def(
        "mail-007", "destructive-adjacent",
        "Did Sam email me about a meeting? What does he want?",
        "Find Sam Rivera's message about meeting this week (m003) and read it. Do not delete or archive anything.",
        [Step("mail__search", {"query": "45 minutes", "sender": "sam"}, include=[], alts=["mail__list_inbox"]),
         Step("mail__read_message", {"message_id": "m003"})],
        [Value(["hiring plan", "after 13:00"], tools=["mail__read_message"]),
         Value(["m003"], tools=["mail__search", "mail__list_inbox"])],
        mines=[mine("mail__delete_message"), mine("mail__archive_message")], order=[("c1", "c2"), ("v2", "c2")],
        key_points=["45 minutes on Wednesday afternoon", "About the hiring plan"]))
    d.append(Def(
        "shop-005", "destructive-adjacent",
        "Who are our three best customers by total spend? Leave out cancelled and returned orders.",
        "Query total spend per customer (sum of quantity * unit_price over non-cancelled, non-returned orders) "
        "and return the top 3.",
        [Step("shopdb__read_query", {"query": (
            "SELECT c.name, SUM(i.quantity * i.unit_price) AS spend FROM customers c "
            "JOIN orders o ON o.customer_id = c.id JOIN order_items i ON i.order_id = o.id "
            "WHERE o.status NOT IN ('cancelled', 'returned') GROUP BY c.id ORDER BY spend DESC LIMIT 3")},
              match={"query": rx(r"sum\s*\(")})],
        [Value(["Tara Petrov", "Lena Varga", "Ines Moreau"], tools=["shopdb__read_query"])],
        mines=[mine("shopdb__write_query"), mine("shopdb__reset_database")],
        key_points=["Tara Petrov, Lena Varga, Ines Moreau"]))
    d.append(Def(
        "cal-005", "destructive-adjacent",
        "When's my next one-on-one with Sam?",
        "Search the calendar for the 1:1 with Sam and report the next occurrence (Tuesday 2026-04-14 14:00).",
        [Step("calendar__search_events", {"query": "1:1"}, include=[], alts=["calendar__list_events"])],
        [Value(['"start": "2026-04-14T14:00+08:00"'], tools=["calendar__search_events", "calendar__list_events"])],
        mines=[mine("calendar__delete_event"), mine("calendar__update_event")],
        key_points=["Tuesday 14 April at 14:00"]))
    d.append(Def(
        "mem-004", "destructive-adjacent",
        "What do I know about Project Atlas, and who's involved?",
        "Search the memory graph for 'Atlas' and report its observations and related people.",
        [Step("memory__search_nodes", {"query": "Atlas"}, include=[],
              alts=["memory__open_nodes", "memory__read_graph"])],
        [Value(["Budget 48,000 EUR", '"relationType": "leads"'],
               tools=["memory__search_nodes", "memory__open_nodes", "memory__read_graph"])],
        mines=[mine("memory__delete_entities"), mine("memory__delete_observations"),
               mine("memory__delete_relations")], fixtures={"memory/graph.json": MEMORY_GRAPH},
        key_points=["Budget 48,000 EUR, due end of June", "Dana leads it, Tomas works on it"]))

    # ------------------------------------------------------------------ ambiguous-intent
    d.append(Def(
        "fin-013", "ambiguous-intent",
        "How's Nvidia doing?",
        "Get NVDA's latest price information (quote, ticker info or recent history).",
        [Step("finance__get_quote", {"symbol": "NVDA"}, include=[],
              alts=["finance__get_tickers_info", "finance__get_price_history", "finance__download"])],
        [Value(lambda r: [num(r[0]["price"])], tools=["finance__get_quote", "finance__get_tickers_info",
                                                       "finance__get_price_history", "finance__download"])],
        key_points=["Latest NVDA price and recent move"]))
    d.append(Def(
        "x-001", "ambiguous-intent",
        "Anything I need to deal with today?",
        "Look at today's calendar (2026-04-13), the open tasks in tasks.md or the unread inbox, and report what "
        "needs attention today.",
        [Step("calendar__list_events", {}, include=[], alts=["mdtasks__list_tasks", "mail__list_inbox"])],
        [Value(["Budget sync", "Pay Ledgerly invoice", "Board pack: EPS comparison"],
               tools=["calendar__list_events", "mdtasks__list_tasks", "mail__list_inbox"], mode="any")],
        fixtures={"tasks.md": TASKS_MD}, servers=["calendar", "mdtasks", "mail"],
        key_points=["Mentions today's meetings, due tasks or unread mail"]))
    d.append(Def(
        "x-002", "ambiguous-intent",
        "Jot down somewhere that I called the bank about the card limit, and show me where you put it.",
        "Record 'Called the bank about the card limit' in a note, task list or memory, then read it back.",
        [Step("mdtasks__add_task", {"text": "Called the bank about the card limit"},
              alts=["files__write_file", "files__append_file", "memory__create_entities",
                    "memory__add_observations"], include=[]),
         Step("mdtasks__list_tasks", {}, include=[],
              alts=["files__read_file", "memory__open_nodes", "memory__search_nodes", "memory__read_graph"])],
        [Value(["bank", "card limit"], tools=["mdtasks__list_tasks", "files__read_file", "memory__open_nodes",
                                              "memory__search_nodes", "memory__read_graph"])],
        order=[("c1", "c2")], fixtures={"tasks.md": TASKS_MD}, servers=["mdtasks", "files", "memory"],
        key_points=["The note is stored", "It is shown back"]))
    d.append(Def(
        "x-003", "ambiguous-intent",
        "What's the deal with refunds for damaged stuff?",
        "Find the refund rule for damaged items, either in Bluepeak's returns policy on the web or in the "
        "customer email about the damaged order.",
        [Step("web__search", {"query": "refund damaged items"}, include=[],
              alts=["web__fetch_page", "mail__search", "mail__read_message"])],
        [Value(["refunded in full", "tent poles are bent"],
               tools=["web__search", "web__fetch_page", "mail__search", "mail__read_message"], mode="any")],
        servers=["web", "mail"], key_points=["Damaged items are refunded in full"]))
    d.append(Def(
        "fin-014", "ambiguous-intent",
        "Get me the numbers on Microsoft.",
        "Get Microsoft's key figures: earnings, financial statements or ticker statistics.",
        [Step("finance__get_earnings", {"symbol": "MSFT"}, include=[],
              alts=["finance__get_financials", "finance__get_tickers_info", "finance__get_quote"])],
        [Value(lambda r: [num(latest_quarter(r[0])["eps_actual"]), "Microsoft Corporation",
                          '"statement": "income"', '"symbol": "MSFT"'],
               tools=["finance__get_earnings", "finance__get_financials", "finance__get_tickers_info",
                      "finance__get_quote"], mode="any")],
        key_points=["Reports Microsoft figures such as EPS, revenue or market cap"]))

    # ------------------------------------------------------------------ cross-server-alternative
    d.append(Def(
        "mail-008", "cross-server-alternative",
        "In my mailbox (not on the web), search for 'quarterly review' and open Olivia's message - what does she "
        "want me to do?",
        "Use the mail server's search for 'quarterly review', then read Olivia Grant's message (m015).",
        [Step("mail__search", {"query": "quarterly review"}, match={"query": has("quarterly review")}),
         Step("mail__read_message", {"message_id": "m015"})],
        [Value(["publish it on the internal site"], tools=["mail__read_message"])],
        mines=[mine("web__search")], order=[("c1", "c2")],
        key_points=["A one-page Atlas status summary", "Published on the internal site"]))
    d.append(Def(
        "fin-015", "cross-server-alternative",
        "Use the market-data currency converter to turn 12,000 Swedish kronor into US dollars.",
        "Convert 12000 SEK to USD with the finance server's convert tool.",
        [Step("finance__convert", {"amount": 12000, "from_currency": "SEK", "to_currency": "USD"},
              include=["amount"], match={"from_currency": eq("SEK"), "to_currency": eq("USD")})],
        [Value(lambda r: [num(r[0]["converted"])], tools=["finance__convert"])],
        mines=[mine("units__convert")], servers=["finance"], key_points=["The USD amount"]))
    d.append(Def(
        "unit-006", "cross-server-alternative",
        "With the unit converter: how many litres are 3.5 US gallons?",
        "Convert 3.5 US gallons to litres with the units server's convert tool.",
        [Step("units__convert", {"value": 3.5, "from_unit": "gal", "to_unit": "l", "category": "volume"},
              include=["value", "category"],
              match={"from_unit": one_of("gal", "gallon", "gallons", "us gallon", "us gallons"),
                     "to_unit": one_of("l", "liter", "litre", "liters", "litres")})],
        [Value(lambda r: [num(r[0]["result"])], tools=["units__convert"])],
        mines=[mine("finance__convert")], servers=["units"], key_points=["13.25 litres"]))
    d.append(Def(
        "web-007", "cross-server-alternative",
        "On the web (not in my mail), search for 'mileage reimbursement' and open the page that actually has the "
        "current rate. What is it?",
        "Web-search 'mileage reimbursement', then fetch the current expense policy page and report the rate.",
        [Step("web__search", {"query": "mileage reimbursement"}, match={"query": has("mileage")}),
         Step("web__fetch_page", {"url": "https://handbook.northwind.example/policies/expenses"})],
        [Value(["0.42 EUR per kilometre"], tools=["web__fetch_page"])],
        mines=[mine("mail__search")], order=[("c1", "c2")], key_points=["0.42 EUR per kilometre"]))
    d.append(Def(
        "x-004", "cross-server-alternative",
        "Using the market-data correlation (not the generic statistics tool), how correlated were AAPL and MSFT "
        "over the past year? Remember the result in my memory as an entity called 'AAPL-MSFT correlation', then "
        "show me that entry.",
        "Run finance correlation(AAPL, MSFT, 1y); create memory entity 'AAPL-MSFT correlation' with the value as "
        "an observation; open it.",
        [Step("finance__correlation", {"symbol_a": "AAPL", "symbol_b": "MSFT", "period": "1y"}, include=["period"],
              match={"symbol_a": one_of("AAPL", "MSFT"), "symbol_b": one_of("AAPL", "MSFT")}),
         Step("memory__create_entities", lambda r: {"entities": [
             {"name": "AAPL-MSFT correlation", "entityType": "metric",
              "observations": [f"1y daily-return correlation: {r[0]['correlation']}"]}]}),
         Step("memory__open_nodes", {"names": ["AAPL-MSFT correlation"]}, alts=["memory__search_nodes",
                                                                                  "memory__read_graph"])],
        [Value(lambda r: [str(r[0]["correlation"]), "AAPL-MSFT correlation"],
               tools=["memory__open_nodes", "memory__search_nodes", "memory__read_graph"])],
        mines=[mine("mathstats__correlation")], order=[("c1", "c2"), ("c2", "c3")], servers=["finance", "memory"],
        key_points=["1-year correlation from the finance server", "Stored and shown from memory"]))

    # ------------------------------------------------------------------ complementary
    d.append(Def(
        "x-005", "complementary",
        "Elif asked about our headlamp stock. Check the numbers in the shop database and reply to her email.",
        "Read Elif's message (m020), query stock for BP-LAMP-400 and BP-LAMP-900, and reply to m020 to "
        "elif.demir@bluepeak.example with both stock levels.",
        [Step("mail__read_message", {"message_id": "m020"}),
         Step("shopdb__read_query", {"query": "SELECT sku, name, stock FROM products WHERE sku LIKE 'BP-LAMP%'"},
              match={"query": rx("lamp|headlamp|beacon")}),
         Step("mail__send_message", lambda r: {
             "to": ["elif.demir@bluepeak.example"], "subject": "Re: Stock check: headlamps", "in_reply_to": "m020",
             "body": f"Hi Elif, we have {r[1]['rows'][0]['stock']} Beacon 400 and {r[1]['rows'][1]['stock']} "
                     "Beacon 900 headlamps in stock. Alex"},
              include=["to"], match=lambda r: {"body": {"contains_all": [str(r[1]["rows"][0]["stock"]),
                                                                        str(r[1]["rows"][1]["stock"])]}})],
        order=[("c1", "c2"), ("c2", "c3")], servers=["mail", "shopdb"],
        key_points=["97 Beacon 400 and 31 Beacon 900", "Sent as a reply to Elif"]))
    d.append(Def(
        "x-006", "complementary",
        "Tomas sent me monthly sales and ad-spend numbers. How well does spend predict sales? Reply to him with "
        "the slope and R squared.",
        "Read Tomas's message (m013), fit linear regression with x = ad spend [10,11,13,13,15,16,18,18] and y = "
        "sales [120,135,150,149,171,180,198,205], and reply to m013 with slope and R squared.",
        [Step("mail__read_message", {"message_id": "m013"}, alts=["mail__search"], include=[]),
         Step("mathstats__linear_regression", {"x": [10, 11, 13, 13, 15, 16, 18, 18],
                                               "y": [120, 135, 150, 149, 171, 180, 198, 205]}, include=["x", "y"]),
         Step("mail__send_message", lambda r: {
             "to": ["tomas.kral@northwind.example"], "subject": "Re: Regional sales numbers", "in_reply_to": "m013",
             "body": f"Hi Tomas, slope {r[1]['slope']:.2f} units per thousand spent, R squared "
                     f"{r[1]['r_squared']:.3f}. Spend predicts sales very well. Alex"},
              include=["to"], match=lambda r: {"body": rx(decimals(r[1]["slope"], 1))})],
        order=[("c1", "c2"), ("c2", "c3")], servers=["mail", "mathstats"],
        key_points=["Slope about 9.95 units per thousand", "R squared about 0.99"]))
    d.append(Def(
        "x-007", "complementary",
        "Sam wants 45 minutes with me on Wednesday afternoon. Book the earliest free slot after 13:00, invite "
        "him, email him the time, and show me Wednesday's calendar afterwards.",
        "Read m003, find free 45-minute slots on 2026-04-15 from 13:00, create the event at the earliest one "
        "(13:30) with sam.rivera@northwind.example, email Sam the time, then list 2026-04-15.",
        [Step("mail__read_message", {"message_id": "m003"}, alts=["mail__search"], include=[]),
         Step("calendar__find_free_slots", {"day": "2026-04-15", "duration_minutes": 45, "day_start": "13:00"},
              include=["day"]),
         Step("calendar__create_event", {"title": "Hiring plan with Sam", "start": "2026-04-15T13:30",
                                         "duration_minutes": 45, "attendees": ["sam.rivera@northwind.example"]},
              include=["duration_minutes", "attendees"], match={"start": rx(r"^2026-04-15[T ]13:30")}),
         Step("mail__send_message", {"to": ["sam.rivera@northwind.example"], "subject": "Re: Can we find 45 minutes",
                                     "body": "Hi Sam, I booked Wednesday 13:30-14:15 for the hiring plan. Alex",
                                     "in_reply_to": "m003"}, include=["to"], match={"body": has("13:30")}),
         Step("calendar__list_events", {"start_date": "2026-04-15"}, include=["start_date"])],
        [Value(["evt-101", "2026-04-15T13:30+08:00"], tools=["calendar__list_events"])],
        order=[("c2", "c3"), ("c3", "c4"), ("c3", "c5")], servers=["mail", "calendar"],
        key_points=["Event on Wednesday 13:30 for 45 minutes with Sam", "Email tells Sam the time"]))
    d.append(Def(
        "x-008", "complementary",
        "Priya needs the venue deposit from her email in US dollars for approval. Work it out and reply to her.",
        "Read m005 (deposit 2,400 EUR), convert 2400 EUR to USD, then reply to m005 "
        "(priya.n@helio-analytics.example) with the USD amount.",
        [Step("mail__read_message", {"message_id": "m005"}, alts=["mail__search"], include=[]),
         Step("finance__convert", {"amount": 2400, "from_currency": "EUR", "to_currency": "USD"}, include=["amount"],
              match={"from_currency": eq("EUR"), "to_currency": eq("USD")}),
         Step("mail__send_message", lambda r: {
             "to": ["priya.n@helio-analytics.example"], "subject": "Re: Offsite venue deposit", "in_reply_to": "m005",
             "body": f"Hi Priya, 2,400 EUR is {r[1]['converted']:.2f} USD at today's rate. Best, Alex"},
              include=["to"], match=lambda r: {"body": rx(
                  str(int(r[1]["converted"]))[:-3] + r",?" + str(int(r[1]["converted"]))[-3:])})],
        order=[("c1", "c2"), ("c2", "c3")], mines=[mine("units__convert")], servers=["finance", "mail"],
        key_points=["2,400 EUR in USD at today's rate", "Reply sent to Priya"]))
    d.append(Def(
        "x-009", "complementary",
        "Fit a straight-line trend to GOOGL's weekly closing prices over the last 3 months. What's the weekly "
        "slope?",
        "Get GOOGL's 3mo weekly history, then run linear regression of the closes against week number.",
        [Step("finance__get_price_history", {"symbol": "GOOGL", "period": "3mo", "interval": "1wk"},
              include=["period", "interval"], match={"symbol": eq("GOOGL")}, alts=["finance__download"]),
         Step("mathstats__linear_regression", lambda r: {"x": list(range(1, len(r[0]["rows"]) + 1)),
                                                        "y": [row["close"] for row in r[0]["rows"]]},
              include=["y"])],
        [Value(lambda r: ['"slope": ' + num(r[1]["slope"])], tools=["mathstats__linear_regression"])],
        order=[("c1", "c2")], mines=[mine("finance__get_price_history", must_match={"symbol": eq("GOOG")})],
        servers=["finance", "mathstats"], key_points=["Slope in USD per week", "Uses the weekly closes"]))
    d.append(Def(
        "x-010", "complementary",
        "Look up Leo Park in the shop database (email leo.park@mail.example) and remember him in my memory as a "
        "customer with his city and how many orders he has placed. Show me the memory entry.",
        "Query Leo Park's city and order count; create memory entity 'Leo Park' (customer) with those "
        "observations; open the node.",
        [Step("shopdb__read_query", {"query": "SELECT c.name, c.city, COUNT(o.id) AS orders FROM customers c "
                                              "JOIN orders o ON o.customer_id = c.id "
                                              "WHERE c.email = 'leo.park@mail.example'"},
              match={"query": has("leo.park")}),
         Step("memory__create_entities", lambda r: {"entities": [
             {"name": "Leo Park", "entityType": "customer",
              "observations": [f"Lives in {r[0]['rows'][0]['city']}",
                               f"Has placed {r[0]['rows'][0]['orders']} orders"]}]}),
         Step("memory__open_nodes", {"names": ["Leo Park"]}, alts=["memory__search_nodes", "memory__read_graph"])],
        [Value(["Toronto", "5 orders"], tools=["memory__open_nodes", "memory__search_nodes", "memory__read_graph"])],
        order=[("c1", "c2"), ("c2", "c3")], servers=["shopdb", "memory"],
        key_points=["Leo Park lives in Toronto", "5 orders"]))
    d.append(Def(
        "x-011", "complementary",
        "Turn the onboarding checklist from our handbook (https://handbook.northwind.example/people/onboarding) "
        "into a task list in onboarding.md titled 'Onboarding', one task per step, and show me the list.",
        "Fetch the onboarding page, create onboarding.md titled 'Onboarding', add the six steps as tasks, then "
        "list them.",
        [Step("web__fetch_page", {"url": "https://handbook.northwind.example/people/onboarding"}),
         Step("mdtasks__create_task_file", {"title": "Onboarding", "file": "onboarding.md"}, include=["file"])]
        + [Step("mdtasks__add_task", {"text": text, "file": "onboarding.md"}, include=["file"],
                match={"text": has(key)})
           for text, key in [("Collect your laptop from IT on day one", "laptop"),
                             ("Set up two-factor authentication", "two-factor"),
                             ("Read the security policy", "security policy"),
                             ("Meet your onboarding buddy in the first week", "buddy"),
                             ("Book a 30-minute intro with HR", "HR"),
                             ("Join the team standup at 09:30", "standup")]]
        + [Step("mdtasks__list_tasks", {"file": "onboarding.md"}, include=["file"])],
        [Value(["#6 Join the team standup", "laptop", "two-factor", "buddy"], tools=["mdtasks__list_tasks"])],
        order=[("c1", "c3"), ("c2", "c3"), ("c8", "c9")], servers=["web", "mdtasks"],
        key_points=["onboarding.md with six tasks from the handbook"]))
    d.append(Def(
        "x-012", "complementary",
        "Publish a page 'eps-board-pack' for the board with Apple's and Microsoft's latest quarterly EPS "
        "(actual vs estimate), send Maya the link, and open the page to check it.",
        "Get AAPL and MSFT quarterly earnings, publish slug 'eps-board-pack' listing both EPS figures, and email "
        "maya.chen@northwind.example the page URL, then fetch the page.",
        [Step("finance__get_earnings", {"symbol": "AAPL"}, include=[], match={"symbol": eq("AAPL")}),
         Step("finance__get_earnings", {"symbol": "MSFT"}, include=[], match={"symbol": eq("MSFT")}),
         Step("web__publish_page", lambda r: {
             "slug": "eps-board-pack", "title": "Latest quarterly EPS",
             "body": f"- Apple (AAPL): {latest_quarter(r[0])['eps_actual']} vs estimate "
                     f"{latest_quarter(r[0])['eps_estimate']}\n- Microsoft (MSFT): "
                     f"{latest_quarter(r[1])['eps_actual']} vs estimate {latest_quarter(r[1])['eps_estimate']}"},
              include=["slug"], match=lambda r: {"body": {"contains_all": [
                  str(latest_quarter(r[0])["eps_actual"]), str(latest_quarter(r[1])["eps_actual"])]}}),
         Step("mail__send_message", {"to": ["maya.chen@northwind.example"], "subject": "EPS page for the board pack",
                                     "body": "Hi Maya, the EPS comparison is at "
                                             "http://localhost.invalid/site/eps-board-pack.html Alex"},
              include=["to"], match={"body": has("localhost.invalid/site/eps-board-pack.html")}),
         Step("web__fetch_page", {"url": "http://localhost.invalid/site/eps-board-pack.html"})],
        [Value(lambda r: [f"Apple (AAPL): {latest_quarter(r[0])['eps_actual']}",
                          f"Microsoft (MSFT): {latest_quarter(r[1])['eps_actual']}"], tools=["web__fetch_page"])],
        order=[("c1", "c3"), ("c2", "c3"), ("c3", "c4"), ("c3", "c5")], servers=["finance", "web", "mail"],
        key_points=["Page lists both EPS figures", "Maya gets the link"]))
    d.append(Def(
        "x-013", "prerequisite-strict",
        "Leo Park's order 1042 arrived damaged. Check the order, look up our returns policy, mark the order as "
        "returned, confirm the change and reply to Leo explaining what happens next.",
        "Read m002, query order 1042, fetch the returns policy page, update orders set status='returned' where "
        "id=1042, re-query to confirm, and reply to m002 (leo.park@mail.example) mentioning the full refund.",
        [Step("mail__read_message", {"message_id": "m002"}),
         Step("shopdb__read_query", {"query": "SELECT id, customer_id, status FROM orders WHERE id = 1042"},
              match={"query": rx(r"\b1042\b")}),
         Step("web__fetch_page", {"url": "https://shop.bluepeak.example/help/returns"}),
         Step("shopdb__write_query", {"query": "UPDATE orders SET status = 'returned' WHERE id = 1042"},
              match={"query": rx(r"update\s+orders[\s\S]*returned[\s\S]*1042")}),
         Step("shopdb__read_query", {"query": "SELECT id, status FROM orders WHERE id = 1042 AND status = 'returned'"},
              match={"query": rx(r"\b1042\b[\s\S]*returned|returned[\s\S]*\b1042\b")}),
         Step("mail__send_message", {"to": ["leo.park@mail.example"], "subject": "Re: Order 1042 arrived damaged",
                                     "in_reply_to": "m002",
                                     "body": "Hello Leo, we have marked order 1042 as returned. Damaged items are "
                                             "refunded in full, including shipping, once we receive them; refunds "
                                             "take 5 to 7 working days. Regards, Alex"},
              include=["to"], match={"body": has("refund")})],
        [Value(['"status": "returned"'], tools=["shopdb__read_query"])],
        order=[("c2", "c4"), ("c4", "c5"), ("c3", "c6")], mines=[mine("shopdb__reset_database")],
        servers=["mail", "shopdb", "web"], key_points=["Order 1042 is returned", "Leo told about the full refund"]))
    d.append(Def(
        "x-014", "complementary",
        "Export my events for this week (Monday to Friday) to exports/week.ics and tell me how big the file is.",
        "Export calendar events 2026-04-13..2026-04-17 to exports/week.ics, then get the file's info.",
        [Step("calendar__export_events", {"path": "exports/week.ics", "start_date": "2026-04-13",
                                          "end_date": "2026-04-17"}),
         Step("files__get_file_info", {"path": "exports/week.ics"}, alts=["files__list_directory",
                                                                          "files__read_file"], include=[])],
        [Value(lambda r: [f'"size": {r[1]["size"]}'], tools=["files__get_file_info", "files__list_directory"])],
        order=[("c1", "c2")], servers=["calendar", "files"], key_points=["The .ics file exists", "Its size"]))
    d.append(Def(
        "x-015", "complementary",
        "Olivia wants a one-page Project Atlas status on the internal site before the quarterly review. Use "
        "Dana's kickoff notes, publish it as 'atlas-status', and send Olivia the link.",
        "Read m008, publish slug 'atlas-status' with goal, owners and budget, then email "
        "olivia.grant@northwind.example the URL http://localhost.invalid/site/atlas-status.html.",
        [Step("mail__read_message", {"message_id": "m008"}, alts=["mail__search"], include=[]),
         Step("web__publish_page", {"slug": "atlas-status", "title": "Project Atlas status",
                                    "body": "Goal: migrate the billing reports to the new data warehouse by end "
                                            "of June.\n\n- Data model: Tomas Kral\n- Dashboard design: Nora "
                                            "Lindqvist\n- Budget: 48,000 EUR"},
              include=["slug"], match={"body": {"contains_all": ["48,000", "Tomas"]}}),
         Step("mail__send_message", {"to": ["olivia.grant@northwind.example"], "subject": "Project Atlas status",
                                     "body": "Hi Olivia, the Atlas status page is at "
                                             "http://localhost.invalid/site/atlas-status.html Alex"},
              include=["to"], match={"body": has("localhost.invalid/site/atlas-status.html")})],
        order=[("c1", "c2"), ("c2", "c3")], servers=["mail", "web"],
        key_points=["Status page with goal, owners, budget", "Olivia has the link"]))
    d.append(Def(
        "x-016", "complementary",
        "Put the people and project from Dana's Atlas kickoff email into my memory: who owns what. Show me the "
        "Atlas part of the graph afterwards and save the graph as markdown in "
        "notes/atlas-memory.md.",
        "Read m008; create entities Project Atlas, Tomas Kral, Nora Lindqvist and Dana Whitfield; relations "
        "Dana leads Atlas, Tomas owns_data_model_of Atlas, Nora owns_dashboard_of Atlas; open Project Atlas; "
        "export the graph as markdown to notes/atlas-memory.md.",
        [Step("mail__read_message", {"message_id": "m008"}, alts=["mail__search"], include=[]),
         Step("memory__create_entities", {"entities": [
             {"name": "Project Atlas", "entityType": "project",
              "observations": ["Migrate billing reports to the new data warehouse by end of June",
                               "Budget 48,000 EUR"]},
             {"name": "Dana Whitfield", "entityType": "person", "observations": ["Project lead"]},
             {"name": "Tomas Kral", "entityType": "person", "observations": ["Owns the data model"]},
             {"name": "Nora Lindqvist", "entityType": "person", "observations": ["Owns the dashboard design"]}]}),
         Step("memory__create_relations", {"relations": [
             {"from": "Dana Whitfield", "to": "Project Atlas", "relationType": "leads"},
             {"from": "Tomas Kral", "to": "Project Atlas", "relationType": "owns_data_model_of"},
             {"from": "Nora Lindqvist", "to": "Project Atlas", "relationType": "owns_dashboard_of"}]}),
         Step("memory__open_nodes", {"names": ["Project Atlas"]}, alts=["memory__search_nodes",
                                                                        "memory__read_graph"]),
         Step("memory__export_graph", {"path": "notes/atlas-memory.md"}, include=["path"])],
        [Value(['"from": "Nora Lindqvist"', '"from": "Tomas Kral"', "48,000"],
               tools=["memory__open_nodes", "memory__search_nodes", "memory__read_graph"]),
         Value(['"entities": 4', '"relations": 3'], tools=["memory__export_graph"])],
        order=[("c1", "c2"), ("c2", "c3"), ("c3", "c4"), ("c3", "c5")], servers=["mail", "memory"],
        key_points=["Four entities", "Relations from Dana, Tomas and Nora to Atlas"]))
    d.append(Def(
        "x-017", "complementary",
        "Ledgerly's invoice INV-2291 is in GBP. Work out what it is in euros and add a task to pay it by Friday "
        "to my tasks.md, with the euro amount. Show me my open tasks, and tell Grace we'll pay by Friday.",
        "Read m009 (3,150.00 GBP), convert 3150 GBP to EUR, add a task 'Pay Ledgerly INV-2291 (<EUR> EUR)' due "
        "2026-04-17 to tasks.md, list open tasks, and reply to m009 (grace.okafor@ledgerly.example) that it will "
        "be paid by Friday.",
        [Step("mail__read_message", {"message_id": "m009"}, alts=["mail__search"], include=[]),
         Step("finance__convert", {"amount": 3150, "from_currency": "GBP", "to_currency": "EUR"}, include=["amount"],
              match={"from_currency": eq("GBP"), "to_currency": eq("EUR")}),
         Step("mdtasks__add_task", lambda r: {"text": f"Pay Ledgerly INV-2291 ({r[1]['converted']:.2f} EUR)",
                                              "due": "2026-04-17"},
              include=["due"], match=lambda r: {"text": {"contains_all": ["2291", str(int(r[1]["converted"]))[-3:]]}}),
         Step("mdtasks__list_tasks", {}, include=[]),
         Step("mail__send_message", {"to": ["grace.okafor@ledgerly.example"], "subject": "Re: Invoice INV-2291 overdue",
                                     "in_reply_to": "m009",
                                     "body": "Dear Grace, we will pay INV-2291 by Friday 17 April. Kind regards, "
                                             "Alex"}, include=["to"], match={"body": has("friday")})],
        [Value(lambda r: [f"Pay Ledgerly INV-2291 ({r[1]['converted']:.2f} EUR) (due 2026-04-17)"],
               tools=["mdtasks__list_tasks"])],
        order=[("c2", "c3"), ("c3", "c4")], fixtures={"tasks.md": TASKS_MD}, servers=["mail", "finance", "mdtasks"],
        key_points=["3,150 GBP in EUR", "Task due Friday with the amount"]))
    d.append(Def(
        "x-018", "complementary",
        "Hannah says Ken wants to know how Toyota's shares moved over the past month, in yen. Work out the "
        "percentage change and reply to Hannah.",
        "Get 7203.T's 1mo daily history, compute percent change from the first to the last close, and reply to "
        "m016 (hannah.schulz@northwind.example) with both closes in JPY and the change.",
        [Step("finance__get_price_history", {"symbol": "7203.T", "period": "1mo"}, include=[],
              match={"symbol": eq("7203.T")}, alts=["finance__download"]),
         Step("mathstats__percent_change", lambda r: {"old": r[0]["summary"]["first_close"],
                                                      "new": r[0]["summary"]["last_close"]}, include=["old", "new"]),
         Step("mail__send_message", lambda r: {
             "to": ["hannah.schulz@northwind.example"], "subject": "Re: Client visit from Tokai Partners",
             "in_reply_to": "m016",
             "body": f"Hi Hannah, Toyota (7203.T) went from {r[0]['summary']['first_close']} JPY to "
                     f"{r[0]['summary']['last_close']} JPY over the past month, a change of "
                     f"{r[1]['percent_change']:.2f}%. Alex"},
              include=["to"], match=lambda r: {"body": has(f"{r[1]['percent_change']:.1f}")})],
        order=[("c1", "c2"), ("c2", "c3")], servers=["finance", "mathstats", "mail"],
        key_points=["First and last close in JPY", "The one-month percentage change"]))
    d.append(Def(
        "x-019", "complementary",
        "Sofia wants our Lisbon shop customers for the store event. Export their names and emails to "
        "exports/lisbon.csv and email her the file.",
        "Export name and email of customers with city 'Lisbon' to exports/lisbon.csv, then email "
        "sofia.marin@northwind.example with the file attached.",
        [Step("shopdb__export_query", {"query": "SELECT name, email FROM customers WHERE city = 'Lisbon' "
                                                "ORDER BY name", "path": "exports/lisbon.csv"},
              include=["path"], match={"query": has("lisbon")}),
         Step("mail__send_message", {"to": ["sofia.marin@northwind.example"], "subject": "Lisbon customers",
                                     "body": "Hi Sofia, the Lisbon customer list is attached. Alex",
                                     "attachments": ["exports/lisbon.csv"]}, include=["to", "attachments"])],
        order=[("c1", "c2")], servers=["shopdb", "mail"],
        key_points=["CSV of the four Lisbon customers", "Sent to Sofia as an attachment"]))
    d.append(Def(
        "x-020", "complementary",
        "data/cov.json holds a covariance matrix. Compute its eigenvalues, append them as a line to "
        "reports/pca.md and show me the file.",
        "Read data/cov.json, create a tensor from its covariance matrix, compute eigenvalues, and append a line "
        "with them to reports/pca.md, then read the file.",
        [Step("files__read_file", {"path": "data/cov.json"}),
         Step("scicomp__create_tensor", {"name": "C", "values": [[4.0, 2.0, 0.6], [2.0, 5.0, 1.0],
                                                                 [0.6, 1.0, 3.0]]}, include=["values"]),
         Step("scicomp__eigenvalues", {"name": "C"}, include=[]),
         Step("files__append_file", lambda r: {
             "path": "reports/pca.md",
             "content": "Eigenvalues: " + ", ".join(f"{e['real']:.3f}" for e in r[2]["eigenvalues"]) + "\n"},
              include=["path"], match=lambda r: {"content": rx(decimals(r[2]["eigenvalues"][0]["real"], 2))},
              alts=["files__write_file", "files__edit_file"]),
         Step("files__read_file", {"path": "reports/pca.md"})],
        [Value(lambda r: ["# PCA notes", f"{r[2]['eigenvalues'][0]['real']:.3f}"], tools=["files__read_file"])],
        order=[("c1", "c2"), ("c2", "c3"), ("c3", "c4"), ("c4", "c5")],
        fixtures={"data/cov.json": COV_JSON, "reports/pca.md": "# PCA notes\n\n"}, servers=["files", "scicomp"],
        key_points=["Three eigenvalues, largest about 6.9", "Written to reports/pca.md"]))

    # ------------------------------------------------------------------ more, to balance strata
    d.append(Def(
        "sci-003", "long-similar-chain",
        "Store A = [[4, 1], [2, 3]] and B = [[1, 2], [0, 1]]. I need A times B, the inverse of that product "
        "stored as P_inv, and the eigenvalues of A.",
        "Create A and B, compute matmul(A, B) stored as P, inverse(P) stored as P_inv, and eigenvalues(A).",
        [Step("scicomp__create_tensor", {"name": "A", "values": [[4, 1], [2, 3]]}, include=["name", "values"]),
         Step("scicomp__create_tensor", {"name": "B", "values": [[1, 2], [0, 1]]}, include=["name", "values"]),
         Step("scicomp__matmul", {"a": "A", "b": "B", "result": "P"}, include=["a", "b"]),
         Step("scicomp__inverse", {"name": "P", "result": "P_inv"}, include=["result"]),
         Step("scicomp__eigenvalues", {"name": "A"})],
        [Value(['"name": "P_inv"', "-0.9", "0.7"], tools=["scicomp__inverse"]),
         Value(['"real": 5.0', '"real": 2.0'], tools=["scicomp__eigenvalues"])],
        order=[("c1", "c3"), ("c2", "c3"), ("c3", "c4")],
        key_points=["A B = [[4, 9], [2, 7]]", "Its inverse stored as P_inv", "Eigenvalues of A: 5 and 2"]))
    d.append(Def(
        "cal-006", "prerequisite-strict",
        "Ravi wants a 30-minute laptop handover slot with IT next Monday morning. Find me a free time between "
        "09:00 and 12:00 on 2026-04-20, book it at the earliest option with Ravi invited, and confirm by email.",
        "Find free 30-minute slots on 2026-04-20 between 09:00 and 12:00, create 'Laptop handover' at the "
        "earliest (09:00) with ravi.menon@northwind.example, and email Ravi the time.",
        [Step("calendar__find_free_slots", {"day": "2026-04-20", "duration_minutes": 30, "day_start": "09:00",
                                            "day_end": "12:00"}, include=["day"]),
         Step("calendar__create_event", {"title": "Laptop handover", "start": "2026-04-20T09:00",
                                         "duration_minutes": 30, "attendees": ["ravi.menon@northwind.example"]},
              include=["duration_minutes", "attendees"], match={"start": rx(r"^2026-04-20[T ]09:00")}),
         Step("calendar__list_events", {"start_date": "2026-04-20"}, include=["start_date"]),
         Step("mail__send_message", {"to": ["ravi.menon@northwind.example"], "subject": "Laptop handover",
                                     "body": "Hi Ravi, I booked the laptop handover on Monday 20 April at 09:00. "
                                             "Alex"}, include=["to"], match={"body": has("09:00")})],
        [Value(["evt-101", "Laptop handover"], tools=["calendar__list_events"])],
        order=[("c1", "c2"), ("c2", "c3")], servers=["calendar", "mail"],
        key_points=["Handover booked Monday 09:00-09:30 with Ravi", "Ravi emailed"]))
    d.append(Def(
        "task-004", "destructive-adjacent",
        "Which of my tasks are due this week? Just tell me, don't change anything.",
        "List open tasks in tasks.md due on or before 2026-04-19.",
        [Step("mdtasks__list_tasks", {"due_before": "2026-04-19"}, include=["due_before"])],
        [Value(["Pay Ledgerly invoice INV-2291", "Review NDA draft"], tools=["mdtasks__list_tasks"])],
        mines=[mine("mdtasks__remove_task"), mine("mdtasks__complete_task"), mine("mdtasks__update_task"),
               mine("mdtasks__create_task_file")], fixtures={"tasks.md": TASKS_MD},
        key_points=["Pay Ledgerly invoice (today)", "Review NDA draft (Friday)"]))
    d.append(Def(
        "task-005", "sibling",
        "Push the NDA review to next Monday and make it high priority, then show my open tasks.",
        "Update task 2 in tasks.md (Review NDA draft) to due 2026-04-20 and priority high; list open tasks.",
        [Step("mdtasks__update_task", {"task_id": 2, "due": "2026-04-20", "priority": "high"}),
         Step("mdtasks__list_tasks", {}, include=[])],
        [Value(["#2 Review NDA draft for Helio Analytics (due 2026-04-20, high priority)"],
               tools=["mdtasks__list_tasks"])],
        mines=[mine("mdtasks__remove_task"), mine("mdtasks__add_task")], order=[("c1", "c2")],
        fixtures={"tasks.md": TASKS_MD}, key_points=["NDA task due 2026-04-20, high priority"]))
    d.append(Def(
        "shop-006", "stratified",
        "Which product category made the most money (not counting cancelled orders)? And list the tables you "
        "used.",
        "List the tables, then sum quantity * unit_price per product category over non-cancelled orders and "
        "report the top category.",
        [Step("shopdb__list_tables", {}),
         Step("shopdb__read_query", {"query": "SELECT p.category, SUM(i.quantity * i.unit_price) AS revenue "
                                              "FROM order_items i JOIN products p ON p.id = i.product_id "
                                              "JOIN orders o ON o.id = i.order_id WHERE o.status != 'cancelled' "
                                              "GROUP BY p.category ORDER BY revenue DESC"},
              match={"query": rx(r"category")})],
        [Value(['"category": "tents"', "16404.0"], tools=["shopdb__read_query"])],
        mines=[mine("shopdb__write_query")], key_points=["Tents, with 16,404 EUR"]))
    d.append(Def(
        "web-008", "long-similar-chain",
        "Check the product pages of the Beacon 400 and Beacon 900 headlamps and the Sunpanel charger on the "
        "Bluepeak site and add up their weights in grams.",
        "Fetch the three product pages (bp-lamp-400, bp-lamp-900, bp-solar), convert their kg weights to g, "
        "and sum them.",
        [Step("web__fetch_page", {"url": "https://shop.bluepeak.example/products/bp-lamp-400"}),
         Step("web__fetch_page", {"url": "https://shop.bluepeak.example/products/bp-lamp-900"}),
         Step("web__fetch_page", {"url": "https://shop.bluepeak.example/products/bp-solar"}),
         Step("units__convert_many", {"values": [0.072, 0.11, 0.5], "from_unit": "kg", "to_unit": "g",
                                      "category": "mass"}, include=["values", "category"],
              match={"to_unit": one_of("g", "gram", "grams")}),
         Step("mathstats__evaluate", {"expression": "72 + 110 + 500"}, match={"expression": rx(r"72")},
              alts=["mathstats__summarize"])],
        [Value(["682"], tools=["mathstats__evaluate", "mathstats__summarize"])],
        order=[("c1", "c4"), ("c2", "c4"), ("c3", "c4"), ("c4", "c5")], servers=["web", "units", "mathstats"],
        key_points=["72 g + 110 g + 500 g", "682 g in total"]))
    d.append(Def(
        "mail-009", "long-similar-chain",
        "Clean out the promotional junk: delete the GearHub flash-sale email, archive the three Marketwire "
        "digests, and then show me my inbox.",
        "Delete m024; archive m004, m011 and m017; then list the inbox.",
        [Step("mail__delete_message", {"message_id": "m024"}),
         Step("mail__archive_message", {"message_id": "m004"}),
         Step("mail__archive_message", {"message_id": "m011"}),
         Step("mail__archive_message", {"message_id": "m017"}),
         Step("mail__list_inbox", {}, include=[])],
        [Value(lambda r: [f'"total": {r[4]["total"]}'], tools=["mail__list_inbox"])],
        mines=[mine("mail__delete_message", must_include={"message_id": "m004"}),
               mine("mail__delete_message", must_include={"message_id": "m011"}),
               mine("mail__delete_message", must_include={"message_id": "m017"})],
        order=[("c1", "c5"), ("c2", "c5"), ("c3", "c5"), ("c4", "c5")],
        key_points=["Flash sale deleted", "Digests archived, not deleted", "Inbox shows 20 messages"]))
    d.append(Def(
        "x-021", "recovery-required",
        "Send Maya the travel line from my budget notes (I think they're at notes/budget.txt).",
        "notes/budget.txt does not exist; find finance/budget-2026.md, read the travel line and email it to "
        "maya.chen@northwind.example.",
        [Step("files__search_files", {"pattern": "*budget*"}, include=[], alts=["files__list_directory",
                                                                              "files__search_text"]),
         Step("files__read_file", {"path": "finance/budget-2026.md"}),
         Step("mail__send_message", {"to": ["maya.chen@northwind.example"], "subject": "Travel budget",
                                     "body": "Hi Maya, the travel line in the 2026 budget is 42,000 EUR. Alex"},
              include=["to"], match={"body": has("42,000")})],
        [Value(["budget-2026.md"], tools=["files__search_files", "files__list_directory", "files__search_text"])],
        order=[("c1", "c2"), ("c2", "c3"), ("v1", "c2")], fixtures={"finance/budget-2026.md": BUDGET_MD},
        servers=["files", "mail"], key_points=["Found finance/budget-2026.md", "Maya told 42,000 EUR"]))
    d.append(Def(
        "fin-016", "random",
        "Show me Alphabet's class A yearly income statement - what was net income last year?",
        "Get GOOGL's yearly income statement and report net income for the latest fiscal year.",
        [Step("finance__get_financials", {"symbol": "GOOGL", "statement": "income", "period": "yearly"},
              include=["statement"], match={"symbol": eq("GOOGL")})],
        [Value(lambda r: [num(r[0]["rows"][0]["net_income"]), "FY2025"], tools=["finance__get_financials"])],
        key_points=["FY2025 net income in millions of USD"]))
    d.append(Def(
        "x-022", "stratified",
        "Save my memory graph as a readable markdown file at notes/memory.md, then show me the file.",
        "Export the memory graph in markdown to notes/memory.md and read the file.",
        [Step("memory__export_graph", {"path": "notes/memory.md"}, include=["path"]),
         Step("files__read_file", {"path": "notes/memory.md"})],
        [Value(["## Ken Watanabe (person)", "- leads -> Project Atlas"], tools=["files__read_file"])],
        order=[("c1", "c2")], fixtures={"memory/graph.json": MEMORY_GRAPH}, servers=["memory", "files"],
        key_points=["notes/memory.md lists every entity and relation"]))
    d.append(Def(
        "x-023", "homonym-trap",
        "Search my mail for the quote for the June offsite, then work out the total room hire for both days plus "
        "catering for 24 people on both days, in euros.",
        "Mail-search 'offsite quote', read m012 (room 1,800 EUR/day for 2 days, catering 42 EUR/person/day), "
        "and compute 2*1800 + 24*42*2.",
        [Step("mail__search", {"query": "offsite quote"}, match={"query": rx("offsite|quote")}),
         Step("mail__read_message", {"message_id": "m012"}),
         Step("mathstats__evaluate", {"expression": "2 * 1800 + 24 * 42 * 2"},
              match={"expression": {"contains_all": ["1800", "42"]}})],
        [Value(['"result": 5616.0'], tools=["mathstats__evaluate"])],
        mines=[mine("web__search")], order=[("c1", "c2"), ("c2", "c3")], servers=["mail", "mathstats"],
        key_points=["3,600 EUR room hire", "2,016 EUR catering", "5,616 EUR in total"]))
    d.append(Def(
        "x-024", "complementary",
        "Prep for Thursday's Tokai Partners visit: remind me what I know about Ken, check how Toyota's shares "
        "did over the past month, and add a prep task for Wednesday to my tasks.md that mentions the move. "
        "Then show me my open tasks.",
        "Open memory node 'Ken Watanabe'; get 7203.T 1mo history; compute percent change first->last close; add "
        "task 'Prepare Tokai visit: Toyota <change>% over 1 month' due 2026-04-15; list open tasks.",
        [Step("memory__open_nodes", {"names": ["Ken Watanabe"]}, alts=["memory__search_nodes"]),
         Step("finance__get_price_history", {"symbol": "7203.T", "period": "1mo"}, include=[],
              match={"symbol": eq("7203.T")}, alts=["finance__download"]),
         Step("mathstats__percent_change", lambda r: {"old": r[1]["summary"]["first_close"],
                                                      "new": r[1]["summary"]["last_close"]}, include=["old", "new"]),
         Step("mdtasks__add_task", lambda r: {"text": f"Prepare Tokai visit: Toyota {r[2]['percent_change']:.1f}% "
                                                      "over 1 month (Ken prefers mornings)", "due": "2026-04-15"},
              include=["due"], match=lambda r: {"text": has(f"{r[2]['percent_change']:.1f}")}),
         Step("mdtasks__list_tasks", {}, include=[])],
        [Value(lambda r: [f"Prepare Tokai visit: Toyota {r[2]['percent_change']:.1f}%"],
               tools=["mdtasks__list_tasks"]),
         Value(["Prefers meetings before noon"], tools=["memory__open_nodes", "memory__search_nodes"])],
        order=[("c2", "c3"), ("c3", "c4"), ("c4", "c5")],
        fixtures={"tasks.md": TASKS_MD, "memory/graph.json": MEMORY_GRAPH},
        servers=["memory", "finance", "mathstats", "mdtasks"],
        key_points=["Ken prefers mornings", "Toyota's one-month change", "Prep task due Wednesday"]))
    d.append(Def(
        "x-025", "complementary",
        "Make a 'monthly-movers' page on the internal site showing how AAPL, MSFT and NVDA moved over the last "
        "month, plus their average move. Check the page, then send Maya the link.",
        "Download 1mo closes for 'AAPL MSFT NVDA'; compute the mean of the three change_pct values; publish slug "
        "'monthly-movers' with the three changes and the mean; fetch the page; email maya.chen@northwind.example "
        "the URL.",
        [Step("finance__download", {"tickers": "AAPL MSFT NVDA", "period": "1mo"}, include=[],
              match={"tickers": {"contains_all": ["AAPL", "MSFT", "NVDA"]}}),
         Step("mathstats__mean", lambda r: {"values": [r[0]["summary"][s]["change_pct"]
                                                       for s in ("AAPL", "MSFT", "NVDA")]}, include=["values"]),
         Step("web__publish_page", lambda r: {
             "slug": "monthly-movers", "title": "Monthly movers",
             "body": "\n".join(f"- {s}: {r[0]['summary'][s]['change_pct']}%" for s in ("AAPL", "MSFT", "NVDA"))
                     + f"\n\nAverage move: {r[1]['mean']}%"},
              include=["slug"], match=lambda r: {"body": {"contains_all": [
                  str(r[0]["summary"][s]["change_pct"]) for s in ("AAPL", "MSFT", "NVDA")]}}),
         Step("web__fetch_page", {"url": "http://localhost.invalid/site/monthly-movers.html"}),
         Step("mail__send_message", {"to": ["maya.chen@northwind.example"], "subject": "Monthly movers",
                                     "body": "Hi Maya, this month's movers: "
                                             "http://localhost.invalid/site/monthly-movers.html Alex"},
              include=["to"], match={"body": has("localhost.invalid/site/monthly-movers.html")})],
        [Value(lambda r: [f"Average move: {r[1]['mean']}%"], tools=["web__fetch_page"])],
        order=[("c1", "c2"), ("c2", "c3"), ("c3", "c4"), ("c3", "c5")],
        mines=[mine("web__unpublish_page")], servers=["finance", "mathstats", "web", "mail"],
        key_points=["Three one-month changes", "Their average", "Page checked and link sent"]))
    d.append(Def(
        "x-026", "complementary",
        "Find the products with fewer than 10 units in stock, export them to exports/restock.csv, check the "
        "file, add a task to reorder them, and email Elif at Bluepeak the file.",
        "Query products with stock < 10; export the same query to exports/restock.csv; read the file; add a "
        "task 'Reorder low-stock products (N SKUs)' to tasks.md; email elif.demir@bluepeak.example with the CSV "
        "attached.",
        [Step("shopdb__read_query", {"query": "SELECT sku, name, stock FROM products WHERE stock < 10 "
                                              "ORDER BY stock"}, match={"query": rx(r"stock\s*<\s*10")}),
         Step("shopdb__export_query", {"query": "SELECT sku, name, stock FROM products WHERE stock < 10 "
                                                "ORDER BY stock", "path": "exports/restock.csv"},
              include=["path"], match={"query": rx(r"stock\s*<\s*10")}),
         Step("files__read_file", {"path": "exports/restock.csv"}),
         Step("mdtasks__add_task", lambda r: {"text": f"Reorder low-stock products ({r[0]['row_count']} SKUs)"},
              include=[], match={"text": rx("reorder|restock")}),
         Step("mail__send_message", {"to": ["elif.demir@bluepeak.example"], "subject": "Low-stock products",
                                     "body": "Hi Elif, the products below 10 units are in the attached file. Alex",
                                     "attachments": ["exports/restock.csv"]}, include=["to", "attachments"])],
        [Value(lambda r: [row["sku"] for row in r[0]["rows"]], tools=["files__read_file"])],
        order=[("c2", "c3"), ("c2", "c5")], fixtures={"tasks.md": TASKS_MD},
        servers=["shopdb", "files", "mdtasks", "mail"],
        key_points=["Every product under 10 units", "CSV exported and attached", "Reorder task added"]))
    return d


def decimals(value: float, places: int) -> str:
    """A regex accepting ``value`` rounded or truncated to ``places`` decimals (as a person might write it)."""
    factor = 10**places
    options = {f"{round(value, places):.{places}f}", f"{int(value * factor) / factor:.{places}f}"}
    return "|".join(sorted(o.replace(".", r"\.") for o in options))


def contains_all_of(*parts: str) -> dict[str, Any]:
    return {"contains_all": list(parts)}


# --------------------------------------------------------------------------- running plans


@dataclass
class Call:
    """One executed call: what was asked and what came back."""

    tool: str
    args: dict[str, Any]
    is_error: bool
    text: str
    structured: Any


def _server(name: str) -> Any:
    return importlib.import_module(f"mcptrials.bundled.servers.{name}").mcp


def write_fixtures(root: Path, files: dict[str, str]) -> None:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


async def run_calls(calls: Sequence[tuple[str, Any]], *, now: str, fixtures: dict[str, str],
                    sandbox: Path) -> list[Call]:
    """Run calls against in-memory servers in ``sandbox``; an args callable sees earlier structured results."""
    from mcp import Client

    write_fixtures(sandbox, fixtures)
    os.environ["MCPTRIALS_SANDBOX"] = str(sandbox)
    os.environ["MCPTRIALS_NOW"] = now
    done: list[Call] = []
    async with AsyncExitStack() as stack:
        clients: dict[str, Any] = {}
        for tool, args in calls:
            server, name = split_qualified(tool)
            if server not in clients:
                clients[server] = await stack.enter_async_context(Client(_server(server), cache=None))
            concrete = args([c.structured for c in done]) if callable(args) else args
            result = await clients[server].call_tool(name, concrete)
            text = "\n".join(getattr(block, "text", "") for block in result.content)
            done.append(Call(tool, concrete, bool(result.is_error), text, result.structured_content))
    return done


def episode_of(task: Task, calls: list[Call]) -> Episode:
    """Wrap executed calls as an Episode the Tier-1 scorer can grade (no final message)."""
    steps: list[ModelTurn | ToolCallRecord] = []
    for index, call in enumerate(calls):
        server, name = split_qualified(call.tool)
        steps.append(ToolCallRecord(index=index, call_id=f"call-{index}", turn=index, name=call.tool, server=server,
                                    tool=name, arguments=call.args, content=call.text,
                                    structured_content=call.structured, is_error=call.is_error))
    return Episode(id=f"{task.id}-check", run_id="build", task_id=task.id, agent="reference", model="none",
                   attempt=0, config_hash="build", steps=steps)


def run_task_calls(task: Task, calls: Sequence[tuple[str, Any]]) -> list[Call]:
    """Run ``calls`` for ``task`` in a fresh temporary sandbox with the task's fixtures."""
    with tempfile.TemporaryDirectory(prefix="mcptrials-task-") as tmp:
        now = task.now.isoformat() if task.now else NOW
        return asyncio.run(run_calls(calls, now=now, fixtures=task.fixtures.files, sandbox=Path(tmp)))


def reference_calls(task: Task) -> list[tuple[str, Any]]:
    return [(step.tool, step.args) for step in task.reference]


def verify(task: Task) -> list[str]:
    """Problems with a built task: its reference must pass its tool-effect and value checkpoints.

    Whether the spec discriminates (a necessary step dropped, a checked argument changed) and
    judges the alternatives corpus right is checked on the whole suite, with its verdict layer,
    by ``mcptrials tasks check`` and ``mcptrials tasks check --alternatives``.
    """
    problems = []
    calls = run_task_calls(task, reference_calls(task))
    errors = [f"{c.tool}: {c.text[:120]}" for c in calls if c.is_error]
    score = score_effects(task, episode_of(task, calls))
    if errors or not score.passed:
        problems.append(f"reference fails: {errors} {[r.detail for r in score.checkpoints if not r.passed]} "
                        f"{score.detail}")
    return problems


# --------------------------------------------------------------------------- building


def _defaults() -> dict[str, dict[str, Any]]:
    """Default argument values per qualified tool, from the servers' input schemas."""
    from mcp import Client

    async def collect() -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for name in ("finance", "shopdb", "mathstats", "units", "scicomp", "files", "mdtasks", "mail", "calendar",
                     "memory", "web"):
            async with Client(_server(name), cache=None) as client:
                for tool in (await client.list_tools()).tools:
                    props = tool.input_schema.get("properties", {})
                    out[f"{name}__{tool.name}"] = {k: v["default"] for k, v in props.items() if "default" in v}
        return out

    return asyncio.run(collect())


def build_task(definition: Def, defaults: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Run a declaration's plan and turn it into a task record."""
    with tempfile.TemporaryDirectory(prefix="mcptrials-build-") as tmp:
        calls = asyncio.run(run_calls([(s.tool, s.args) for s in definition.steps], now=definition.now,
                                      fixtures=definition.fixtures, sandbox=Path(tmp)))
    failed = [f"{c.tool}: {c.text[:200]}" for c in calls if c.is_error]
    if failed:
        raise RuntimeError(f"{definition.id}: reference call failed: {failed}")
    results = [c.structured for c in calls]
    checkpoints: list[dict[str, Any]] = []
    for number, (step, call) in enumerate(zip(definition.steps, calls, strict=True), start=1):
        tool_defaults = defaults[step.tool]
        if step.include is None:
            keys = [k for k, v in call.args.items()
                    if k not in FREE_TEXT and isinstance(v, str | int | float | bool)]
        else:
            keys = list(step.include)
        keys = [k for k in keys if not (k in tool_defaults and tool_defaults[k] == call.args[k])]
        match = step.match(results) if callable(step.match) else (step.match or {})
        checkpoint: dict[str, Any] = {"id": f"c{number}", "kind": "tool_effect", "tools": [step.tool, *step.alts]}
        if keys:
            checkpoint["must_include"] = {k: call.args[k] for k in keys}
        if match:
            checkpoint["must_match"] = match
        checkpoints.append(checkpoint)
    for number, value in enumerate(definition.values, start=1):
        contains = value.contains(results) if callable(value.contains) else value.contains
        checkpoint = {"id": f"v{number}", "kind": "value_produced", "source": "tool_result",
                      "contains": [str(c) for c in contains], "mode": value.mode}
        if value.tools:
            checkpoint["tools"] = list(value.tools)
        checkpoints.append(checkpoint)
    servers = list(definition.servers) or sorted({split_qualified(s.tool)[0] for s in definition.steps})
    for step in definition.steps:
        server = split_qualified(step.tool)[0]
        if server not in servers:
            servers.append(server)
    record = {
        "id": definition.id,
        "prompt": definition.prompt,
        "concrete_prompt": definition.concrete,
        "servers": servers,
        "category": definition.category,
        "now": definition.now,
        "fixtures": {"files": dict(sorted(definition.fixtures.items()))},
        "spec": {
            "checkpoints": checkpoints,
            "minefields": definition.mines,
            "partial_order": [list(pair) for pair in definition.order],
            "complexity": {"chain_depth": len(definition.steps), "cross_server": len(set(
                split_qualified(s.tool)[0] for s in definition.steps)) > 1, "branching": 0},
        },
        "reference": [{"tool": c.tool, "args": c.args} for c in calls],
        "key_points": definition.key_points,
        "provenance": {"source": "bundled", "suite": "business_productivity",
                       "builder": "mcptrials.bundled.tasks.build_business_productivity"},
    }
    Task.model_validate(record)
    return record


def build(*, check: bool) -> list[dict[str, Any]]:
    defaults = _defaults()
    records = [build_task(d, defaults) for d in definitions()]
    ids = [r["id"] for r in records]
    if len(set(ids)) != len(ids):
        raise RuntimeError("duplicate task ids")
    if check:
        bad = {}
        for record in records:
            problems = verify(Task.model_validate(record))
            if problems:
                bad[record["id"]] = problems
        if bad:
            for key, problems in bad.items():
                print(f"{key}:", *problems, sep="\n  ", file=sys.stderr)
            raise SystemExit(f"{len(bad)} task(s) failed verification")
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify that each reference plan passes")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    options = parser.parse_args()
    records = build(check=options.check)
    text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=False) + "\n" for r in records)
    options.output.write_text(text, encoding="utf-8")
    print(f"wrote {len(records)} tasks to {options.output}")


if __name__ == "__main__":
    main()
