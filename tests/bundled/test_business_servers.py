"""Business, data and productivity servers of the bundled world: behaviour, confinement, determinism, stdio."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

SERVERS = ["finance", "shopdb", "mathstats", "units", "scicomp", "files", "mdtasks", "mail", "calendar", "memory",
           "web"]
STATEFUL = ["files", "mdtasks", "mail", "calendar", "memory", "shopdb", "web"]
NOW = "2026-04-13T09:00:00+08:00"


def server(name: str) -> Any:
    return importlib.import_module(f"mcptrials.bundled.servers.{name}").mcp


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "sandbox"
    root.mkdir()
    monkeypatch.setenv("MCPTRIALS_SANDBOX", str(root))
    monkeypatch.setenv("MCPTRIALS_NOW", NOW)
    return root


async def call(name: str, tool: str, args: dict[str, Any] | None = None) -> tuple[bool, str, Any]:
    async with Client(server(name), cache=None) as client:
        result = await client.call_tool(tool, args or {})
    return bool(result.is_error), "\n".join(getattr(b, "text", "") for b in result.content), result.structured_content


async def ok(name: str, tool: str, args: dict[str, Any] | None = None) -> Any:
    is_error, text, structured = await call(name, tool, args)
    assert not is_error, text
    return structured


async def refused(name: str, tool: str, args: dict[str, Any]) -> str:
    is_error, text, _ = await call(name, tool, args)
    assert is_error, f"{name}.{tool}({args}) should have been refused: {text[:200]}"
    return text


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
            for p in sorted(folder.rglob("*"))}


# --------------------------------------------------------------------------- metadata and start-up


def test_module_metadata_and_tool_count() -> None:
    total = 0
    for name in SERVERS:
        module = importlib.import_module(f"mcptrials.bundled.servers.{name}")
        assert module.DYNAMISM in {"static", "live_read", "stateful_write"}
        assert module.CATEGORY in {"finance", "data", "math", "science", "productivity", "web"}
        assert module.DESCRIPTION and "\n" not in module.DESCRIPTION
        tools = module.mcp._tool_manager.list_tools()
        assert len(tools) >= 4, name
        assert all(t.description for t in tools), name
        total += len(tools)
    assert total >= 70


def test_servers_import_only_light_modules() -> None:
    code = ("import sys\n"
            f"for name in {SERVERS!r}:\n"
            "    __import__('mcptrials.bundled.servers.' + name)\n"
            "print(sorted(m for m in ('numpy', 'pandas', 'scipy', 'sqlalchemy', 'openai') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_data_generator_is_reproducible(tmp_path: Path) -> None:
    from mcptrials.bundled.data import generate_business as gen

    shipped = {name: (gen.HERE / name).read_text(encoding="utf-8")
               for name in ("finance.json", "shopdb.json", "mail.json", "calendar.json", "web_pages.json")}
    fresh = {
        "finance.json": gen.finance_data(), "shopdb.json": gen.shop_data(), "mail.json": gen.mail_data(),
        "calendar.json": gen.calendar_data(), "web_pages.json": {"pages": gen.web_pages()},
    }
    for name, data in fresh.items():
        assert json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n" == shipped[name], name
    assert sum(len(t.encode()) for t in shipped.values()) < 1_500_000
    assert len(fresh["web_pages.json"]["pages"]) >= 40


# --------------------------------------------------------------------------- finance


async def test_finance_history_and_download_agree(sandbox: Path) -> None:
    history = await ok("finance", "get_price_history", {"symbol": "aapl", "period": "3mo", "interval": "1wk"})
    table = await ok("finance", "download", {"tickers": "AAPL, MSFT", "period": "3mo", "interval": "1wk"})
    assert [r["close"] for r in history["rows"]] == [r["AAPL"] for r in table["rows"]]
    assert history["summary"] == table["summary"]["AAPL"]
    assert history["end"] < "2026-04-13"  # the window ends before the frozen day


async def test_finance_prices_move_with_the_clock_but_days_are_fixed(sandbox: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    early = await ok("finance", "get_price_history", {"symbol": "NVDA", "period": "1mo"})
    monkeypatch.setenv("MCPTRIALS_NOW", "2026-04-20T09:00:00+08:00")
    later = await ok("finance", "get_price_history", {"symbol": "NVDA", "period": "1mo"})
    assert later["end"] > early["end"]
    shared = {r["date"]: r["close"] for r in early["rows"]}
    assert all(shared[r["date"]] == r["close"] for r in later["rows"] if r["date"] in shared)


async def test_finance_info_earnings_statements_and_errors(sandbox: Path) -> None:
    info = await ok("finance", "get_tickers_info", {"symbols": ["AAPL", "MSFT", "NOPE"]})
    assert [t["symbol"] for t in info["tickers"]] == ["AAPL", "MSFT", "NOPE"]
    assert "error" in info["tickers"][2] and info["tickers"][0]["market_cap"] > 0
    quarterly = await ok("finance", "get_earnings", {"symbol": "MSFT"})
    assert len(quarterly["earnings"]) == 4
    assert all(q["report_date"] < "2026-04-13" for q in quarterly["earnings"])
    yearly = await ok("finance", "get_earnings", {"symbol": "MSFT", "period": "yearly", "limit": 2})
    assert [y["fiscal_year"] for y in yearly["earnings"]] == [2025, 2024]
    balance = await ok("finance", "get_financials", {"symbol": "KO", "statement": "balance", "period": "quarterly"})
    row = balance["rows"][0]
    assert row["total_assets"] == pytest.approx(row["total_liabilities"] + row["shareholders_equity"], abs=0.2)
    text = await refused("finance", "get_price_history", {"symbol": "AAPL", "period": "5y", "interval": "1d"})
    assert "1wk" in text
    assert "search_symbols" in await refused("finance", "get_quote", {"symbol": "GOOGLE"})
    assert "period" in await refused("finance", "get_price_history", {"symbol": "AAPL", "period": "2y"})
    found = await ok("finance", "search_symbols", {"query": "Berkshire"})
    assert {m["symbol"] for m in found["matches"]} == {"BRK-A", "BRK-B"}


async def test_finance_convert_and_correlation(sandbox: Path) -> None:
    there = await ok("finance", "convert", {"amount": 1000, "from_currency": "EUR", "to_currency": "JPY"})
    back = await ok("finance", "convert", {"amount": there["converted"], "from_currency": "JPY",
                                           "to_currency": "EUR"})
    assert isinstance(there["converted"], int) and back["converted"] == pytest.approx(1000, abs=0.05)
    assert "future" in await refused("finance", "convert", {"amount": 1, "from_currency": "USD",
                                                             "to_currency": "EUR", "on_date": "2026-05-01"})
    twins = await ok("finance", "correlation", {"symbol_a": "GOOG", "symbol_b": "GOOGL", "period": "1y"})
    pair = await ok("finance", "correlation", {"symbol_a": "KO", "symbol_b": "NVDA"})
    assert twins["correlation"] > 0.99 and -1 < pair["correlation"] < 0.9


# --------------------------------------------------------------------------- shopdb


async def test_shopdb_reads_are_read_only_and_writes_persist(sandbox: Path) -> None:
    tables = await ok("shopdb", "list_tables")
    assert {t["name"]: t["rows"] for t in tables["tables"]} == {
        "customers": 60, "order_items": 400, "orders": 160, "products": 40}
    assert (sandbox / "shop" / "shop.db").is_file()
    for query in ("DELETE FROM orders", "SELECT 1; DELETE FROM orders", "WITH x AS (SELECT 1) DELETE FROM orders"):
        await refused("shopdb", "read_query", {"query": query})
    for query in ("DROP TABLE orders", "ATTACH DATABASE 'other.db' AS o", "PRAGMA writable_schema = 1",
                  "CREATE TABLE t (x)"):
        await refused("shopdb", "write_query", {"query": query})
    assert "FOREIGN KEY" in await refused("shopdb", "write_query", {
        "query": "INSERT INTO orders (customer_id, order_date, status) VALUES (999, '2026-04-13', 'pending')"})
    changed = await ok("shopdb", "write_query", {"query": "UPDATE orders SET status = 'returned' WHERE id = 1042"})
    assert changed["rows_affected"] == 1
    again = await ok("shopdb", "read_query", {"query": "SELECT status FROM orders WHERE id = 1042"})
    assert again["rows"] == [{"status": "returned"}]
    described = await ok("shopdb", "describe_table", {"table": "order_items"})
    assert {k["references"] for k in described["foreign_keys"]} == {"orders(id)", "products(id)"}
    assert "customers" in await refused("shopdb", "describe_table", {"table": "clients"})
    await refused("shopdb", "reset_database", {})
    await ok("shopdb", "reset_database", {"confirm": True})
    reset = await ok("shopdb", "read_query", {"query": "SELECT status FROM orders WHERE id = 1042"})
    assert reset["rows"] == [{"status": "delivered"}]


async def test_shopdb_export_writes_csv_in_the_sandbox(sandbox: Path) -> None:
    out = await ok("shopdb", "export_query", {"query": "SELECT name, email FROM customers WHERE city = 'Lisbon' "
                                                       "ORDER BY name", "path": "exports/lisbon.csv"})
    lines = (sandbox / "exports" / "lisbon.csv").read_text().splitlines()
    assert lines[0] == "name,email" and len(lines) == out["rows_written"] + 1 == 5


# --------------------------------------------------------------------------- mathstats, units, scicomp


async def test_mathstats_tools(sandbox: Path) -> None:
    assert (await ok("mathstats", "evaluate", {"expression": "(3 + 4) * 2 / sqrt(16)"}))["result"] == 3.5
    await refused("mathstats", "evaluate", {"expression": "__import__('os').system('true')"})
    await refused("mathstats", "evaluate", {"expression": "9 ** 99999"})
    data = [2, 4, 4, 4, 5, 5, 7, 9]
    assert (await ok("mathstats", "stdev", {"values": data, "kind": "population"}))["stdev"] == 2.0
    assert (await ok("mathstats", "variance", {"values": data, "kind": "population"}))["variance"] == 4.0
    assert (await ok("mathstats", "median", {"values": [5, 1, 9, 3]}))["median"] == 4.0
    assert (await ok("mathstats", "percentile", {"values": list(range(1, 11)), "q": 90}))["percentile"] == 9.1
    assert (await ok("mathstats", "percentile", {"values": list(range(1, 11)), "q": 90, "method": "lower"})
            )["percentile"] == 9.0
    await refused("mathstats", "percentile", {"values": [1, 2], "q": 150})
    fit = await ok("mathstats", "linear_regression", {"x": [1, 2, 3, 4], "y": [3, 5, 7, 9], "predict_at": [10]})
    assert (fit["slope"], fit["intercept"], fit["r_squared"], fit["predictions"][0]["y"]) == (2.0, 1.0, 1.0, 21.0)
    rho = await ok("mathstats", "correlation", {"x": [1, 2, 3, 4], "y": [1, 4, 9, 10], "method": "spearman"})
    assert rho["correlation"] == 1.0
    assert "pair" in await refused("mathstats", "correlation", {"x": [1, 2, 3], "y": [1, 2]})
    assert (await ok("mathstats", "cagr", {"start_value": 100, "end_value": 121, "years": 2}))["cagr_percent"] == 10.0


async def test_units_conversions_and_helpful_errors(sandbox: Path) -> None:
    marathon = await ok("units", "convert", {"value": 26.2, "from_unit": "miles", "to_unit": "km",
                                             "category": "length"})
    assert marathon["result"] == 42.1648 and marathon["from_unit"] == "mi"
    oven = await ok("units", "convert_temperature", {"value": 350, "from_scale": "F", "to_scale": "C"})
    assert oven["result"] == 176.667
    assert "mass unit" in await refused("units", "convert", {"value": 150, "from_unit": "pounds", "to_unit": "kg",
                                                              "category": "length"})
    await refused("units", "convert", {"value": 1, "from_unit": "m", "to_unit": "ft", "category": "colour"})
    assert "absolute zero" in await refused("units", "convert", {"value": -300, "from_unit": "C", "to_unit": "K",
                                                                  "category": "temperature"})
    batch = await ok("units", "convert_many", {"values": [1, 2], "from_unit": "GiB", "to_unit": "MB",
                                               "category": "data"})
    assert [r["result"] for r in batch["results"]] == [1073.74, 2147.48]


async def test_scicomp_linear_algebra(sandbox: Path) -> None:
    async with Client(server("scicomp"), cache=None) as client:
        async def run(tool: str, args: dict[str, Any]) -> Any:
            result = await client.call_tool(tool, args)
            assert not result.is_error, result.content[0].text
            return result.structured_content

        await run("create_tensor", {"name": "A", "values": [[3, 2, -1], [2, -2, 4], [-1, 0.5, -1]]})
        await run("create_tensor", {"name": "b", "values": [1, -2, 0]})
        assert (await run("solve_linear_system", {"a": "A", "b": "b", "result": "x"}))["data"] == [1.0, -2.0, -2.0]
        assert (await run("matmul", {"a": "A", "b": "x"}))["data"] == [1.0, -2.0, 0.0]
        assert (await run("determinant", {"name": "A"}))["determinant"] == -3.0
        await run("inverse", {"name": "A", "result": "Ainv"})
        await run("matmul", {"a": "A", "b": "Ainv", "result": "I"})
        assert (await run("get_tensor", {"name": "I"}))["data"] == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        await run("create_tensor", {"name": "R", "values": [[0, -1], [1, 0]]})
        assert (await run("eigenvalues", {"name": "R"}))["eigenvalues"] == [{"real": 0.0, "imag": 1.0},
                                                                            {"real": 0.0, "imag": -1.0}]
        await run("create_tensor", {"name": "S", "values": [[2, -1, 0], [-1, 2, -1], [0, -1, 2]]})
        values = [e["real"] for e in (await run("eigenvalues", {"name": "S"}))["eigenvalues"]]
        assert values == [3.414214, 2.0, 0.585786]
        await run("create_tensor", {"name": "Z", "values": [[1, 2], [2, 4]]})
        singular = await client.call_tool("inverse", {"name": "Z"})
        assert singular.is_error and "singular" in singular.content[0].text
        await run("delete_tensor", {"name": "Z"})
        names = [t["name"] for t in (await run("list_tensors", {}))["tensors"]]
        assert "Z" not in names and "A" in names


async def test_scicomp_store_is_per_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPTRIALS_SANDBOX", str(tmp_path / "one"))
    await ok("scicomp", "create_tensor", {"name": "A", "values": [1, 2]})
    monkeypatch.setenv("MCPTRIALS_SANDBOX", str(tmp_path / "two"))
    assert (await ok("scicomp", "list_tensors"))["tensors"] == []


# --------------------------------------------------------------------------- productivity servers


async def test_files_edit_search_move_delete(sandbox: Path) -> None:
    (sandbox / "notes").mkdir()
    (sandbox / "notes" / "todo.md").write_text("# Todo\n- buy milk\n- call bank\n")
    edited = await ok("files", "edit_file", {"path": "notes/todo.md", "find": "milk", "replace": "oat milk"})
    assert edited["replaced"] == 1
    assert "not found" in await refused("files", "edit_file", {"path": "notes/todo.md", "find": "eggs",
                                                                "replace": "x"})
    hits = await ok("files", "search_text", {"query": "BANK"})
    assert hits["matches"] == [{"path": "notes/todo.md", "line": 3, "text": "- call bank"}]
    assert (await ok("files", "search_files", {"pattern": "*.md"}))["matches"] == ["notes/todo.md"]
    await ok("files", "move_file", {"source": "notes/todo.md", "destination": "archive/todo.md"})
    assert (await ok("files", "read_file", {"path": "archive/todo.md", "start_line": 2, "end_line": 2}))[
        "content"] == "- buy oat milk\n"
    assert "already exists" in await refused("files", "write_file", {"path": "archive/todo.md", "content": "x",
                                                                      "overwrite": False})
    assert "non-empty" in await refused("files", "delete_file", {"path": "archive"})
    await ok("files", "delete_file", {"path": "archive", "recursive": True})
    assert not (sandbox / "archive").exists()
    await refused("files", "delete_file", {"path": "."})


async def test_mdtasks_lifecycle(sandbox: Path) -> None:
    assert "create_task_file" in await refused("mdtasks", "add_task", {"text": "x"})
    await ok("mdtasks", "create_task_file", {"title": "Launch", "sections": ["Design"]})
    first = await ok("mdtasks", "add_task", {"text": "Draft brief", "due": "tomorrow", "priority": "high"})
    assert first["added"] == {"id": 1, "text": "Draft brief", "status": "open", "due": "2026-04-14",
                              "priority": "high", "section": None}
    await ok("mdtasks", "add_task", {"text": "Mockups", "section": "Design"})
    await ok("mdtasks", "complete_task", {"task_id": 2})
    await ok("mdtasks", "update_task", {"task_id": 1, "priority": "low"})
    listed = await ok("mdtasks", "list_tasks", {"status": "all"})
    assert listed["checklist"] == ["[ ] #1 Draft brief (due 2026-04-14, low priority)", "[x] #2 Mockups"]
    await ok("mdtasks", "remove_task", {"task_id": 1})
    assert (await ok("mdtasks", "list_tasks", {"status": "all"}))["count"] == 1
    text = (sandbox / "tasks.md").read_text()
    assert text.startswith("# Launch\n") and "- [x] Mockups <!-- id:2 -->" in text


async def test_mdtasks_assigns_ids_to_hand_written_lines(sandbox: Path) -> None:
    (sandbox / "list.md").write_text("# L\n\n- [ ] one\n- [x] two\n")
    listed = await ok("mdtasks", "list_tasks", {"file": "list.md", "status": "all"})
    assert listed["checklist"] == ["[ ] #1 one", "[x] #2 two"]
    await ok("mdtasks", "add_task", {"file": "list.md", "text": "three"})
    assert "- [ ] one <!-- id:1 -->" in (sandbox / "list.md").read_text()


async def test_mail_flow(sandbox: Path) -> None:
    inbox = await ok("mail", "list_inbox", {"unread_only": True, "limit": 50})
    assert inbox["messages"][0]["id"] == "m001" and inbox["messages"][0]["date"] == "2026-04-13T08:05+08:00"
    assert not (sandbox / "mail").exists()  # reading does not create state
    message = await ok("mail", "read_message", {"message_id": "m003"})
    assert message["read"] is True and "45 minutes" in message["subject"]
    assert (await ok("mail", "list_contacts", {"query": "Priya"}))["count"] == 0
    found = await ok("mail", "search", {"query": "deposit", "sender": "priya"})
    assert [m["id"] for m in found["messages"]] == ["m005"]
    assert "list_contacts" in await refused("mail", "send_message", {"to": ["Maya"], "subject": "x", "body": "y"})
    sent = await ok("mail", "send_message", {"to": ["maya.chen@northwind.example"], "subject": "", "body": "EPS",
                                             "in_reply_to": "m001"})
    assert sent["id"] == "s001" and sent["subject"] == "Re: Board pack: EPS comparison"
    await ok("mail", "forward_message", {"message_id": "m009", "to": ["maya.chen@northwind.example"]})
    outbox = json.loads((sandbox / "mail" / "outbox.json").read_text())
    assert [m["id"] for m in outbox] == ["s001", "s002"]
    await ok("mail", "archive_message", {"message_id": "m004"})
    await ok("mail", "delete_message", {"message_id": "m024"})
    await refused("mail", "read_message", {"message_id": "m024"})
    assert "m004" in [m["id"] for m in (await ok("mail", "list_inbox", {"folder": "archive"}))["messages"]]
    assert (await ok("mail", "list_inbox", {"folder": "sent"}))["total"] == 2


async def test_calendar_flow(sandbox: Path) -> None:
    today = await ok("calendar", "list_events")
    assert [e["title"] for e in today["events"]] == ["Team standup", "Budget sync", "Customer call: Bluepeak"]
    free = await ok("calendar", "find_free_slots", {"day": "2026-04-15", "duration_minutes": 45,
                                                    "day_start": "13:00"})
    assert free["free_slots"][0] == {"start": "2026-04-15T13:30+08:00", "end": "2026-04-15T15:30+08:00",
                                     "minutes": 120}
    created = await ok("calendar", "create_event", {"title": "Hiring plan", "start": "2026-04-15T14:00",
                                                    "duration_minutes": 45})
    assert created["created"]["id"] == "evt-101" and created["conflicts"] == []
    clash = await ok("calendar", "create_event", {"title": "Clash", "start": "2026-04-15 10:30"})
    assert clash["conflicts"] and clash["conflicts"][0].startswith("evt-007")
    assert "past" in await refused("calendar", "create_event", {"title": "Old", "start": "2026-04-10T10:00"})
    moved = await ok("calendar", "update_event", {"event_id": "evt-009", "start": "2026-04-17T15:00"})
    assert moved["updated"]["end"] == "2026-04-17T16:00+08:00"
    await ok("calendar", "delete_event", {"event_id": "evt-015"})
    await refused("calendar", "get_event", {"event_id": "evt-015"})
    exported = await ok("calendar", "export_events", {"path": "exports/week.ics", "start_date": "2026-04-13",
                                                      "end_date": "2026-04-17"})
    ics = (sandbox / "exports" / "week.ics").read_text()
    assert ics.count("BEGIN:VEVENT") == exported["events"] and "SUMMARY:Hiring plan" in ics


async def test_memory_graph(sandbox: Path) -> None:
    assert "create_entities" in await refused("memory", "create_relations", {
        "relations": [{"from": "A", "to": "B", "relationType": "knows"}]})
    await ok("memory", "create_entities", {"entities": [
        {"name": "Dana", "entityType": "person", "observations": ["Leads Atlas"]},
        {"name": "Atlas", "entityType": "project"}]})
    again = await ok("memory", "create_entities", {"entities": [{"name": "Dana", "entityType": "person"}]})
    assert again["skipped_existing"] == ["Dana"]
    await ok("memory", "create_relations", {"relations": [{"from": "Dana", "to": "Atlas", "relationType": "leads"}]})
    await ok("memory", "add_observations", {"observations": [{"entityName": "Atlas", "contents": ["Due June"]}]})
    found = await ok("memory", "search_nodes", {"query": "june"})
    assert [e["name"] for e in found["entities"]] == ["Atlas"] and len(found["relations"]) == 1
    await ok("memory", "export_graph", {"path": "notes/memory.md"})
    assert "- leads -> Atlas" in (sandbox / "notes" / "memory.md").read_text()
    await ok("memory", "delete_entities", {"entityNames": ["Dana"]})
    assert (await ok("memory", "read_graph"))["relations"] == []


async def test_web_fetch_search_publish(sandbox: Path) -> None:
    moved = await ok("web", "fetch_page", {"url": "https://handbook.northwind.example/policies/mileage"})
    assert moved["status"] == 301 and moved["moved_to"].endswith("/policies/expenses")
    page = await ok("web", "fetch_page", {"url": moved["moved_to"]})
    assert "0.42 EUR per kilometre" in page["text"]
    assert "404" in await refused("web", "fetch_page", {"url": "https://example.com/"})
    results = await ok("web", "search", {"query": "shakshuka recipe"})
    assert results["results"][0]["url"] == "https://kitchen.example/recipes/shakshuka"
    published = await ok("web", "publish_page", {"slug": "team-news", "title": "News & notes",
                                                 "body": "Hello <b>team</b>\n\n- one\n- two"})
    assert published == {"path": "site/team-news.html", "url": "http://localhost.invalid/site/team-news.html",
                         "bytes": published["bytes"]}
    back = await ok("web", "fetch_page", {"url": published["url"]})
    assert back["title"] == "News & notes" and "Hello <b>team</b>" in back["text"]
    assert "<b>" not in (sandbox / "site" / "team-news.html").read_text()
    assert [p["slug"] for p in (await ok("web", "list_published"))["pages"]] == ["team-news"]
    await ok("web", "unpublish_page", {"slug": "team-news"})
    assert (await ok("web", "list_published"))["pages"] == []


# --------------------------------------------------------------------------- confinement

# (server, tool, arguments with {p} where the path goes)
PATH_CALLS = [
    ("files", "read_file", {"path": "{p}"}),
    ("files", "write_file", {"path": "{p}", "content": "pwned"}),
    ("files", "delete_file", {"path": "{p}", "recursive": True}),
    ("files", "move_file", {"source": "notes.txt", "destination": "{p}"}),
    ("files", "list_directory", {"path": "{p}"}),
    ("mdtasks", "create_task_file", {"title": "x", "file": "{p}"}),
    ("mdtasks", "list_tasks", {"file": "{p}"}),
    ("mail", "send_message", {"to": ["a@b.example"], "subject": "s", "body": "b", "attachments": ["{p}"]}),
    ("calendar", "export_events", {"path": "{p}", "start_date": "2026-04-13", "end_date": "2026-04-14"}),
    ("memory", "export_graph", {"path": "{p}"}),
    ("shopdb", "export_query", {"query": "SELECT 1", "path": "{p}"}),
    ("web", "publish_page", {"slug": "{p}", "title": "t", "body": "b"}),
    ("web", "fetch_page", {"url": "http://localhost.invalid/site/{p}"}),
]


def _fill(args: dict[str, Any], path: str) -> dict[str, Any]:
    return json.loads(json.dumps(args).replace("{p}", path.replace("\\", "\\\\")))


@pytest.mark.parametrize(("name", "tool", "args"), PATH_CALLS, ids=[f"{s}.{t}" for s, t, _ in PATH_CALLS])
async def test_paths_outside_the_sandbox_are_refused(name: str, tool: str, args: dict[str, Any], sandbox: Path,
                                                     tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret\n")
    (sandbox / "notes.txt").write_text("mine\n")
    (sandbox / "link").symlink_to(outside, target_is_directory=True)
    (sandbox / "link.md").symlink_to(outside / "secret.md")
    before_outside, before_parent = snapshot(outside), sorted(p.name for p in tmp_path.iterdir())
    suffix = ".ics" if tool == "export_events" else ".md"
    for path in (f"../escape{suffix}", str(outside / f"abs{suffix}"), f"link/secret{suffix}", f"link/new{suffix}",
                 f"link{suffix}" if suffix == ".md" else "link/x.ics"):
        text = await refused(name, tool, _fill(args, path))
        assert "secret" not in text.replace("secret.md", "").replace("secret.ics", "")
    assert snapshot(outside) == before_outside
    assert sorted(p.name for p in tmp_path.iterdir()) == before_parent
    assert (sandbox / "notes.txt").read_text() == "mine\n"


@pytest.mark.parametrize(("name", "state_dir", "tool", "args"), [
    ("mail", "mail", "archive_message", {"message_id": "m004"}),
    ("mail", "mail", "send_message", {"to": ["a@b.example"], "subject": "s", "body": "b"}),
    ("calendar", "calendar", "create_event", {"title": "t", "start": "2026-04-14T10:00"}),
    ("calendar", "calendar", "list_events", {}),
    ("memory", "memory", "create_entities", {"entities": [{"name": "a", "entityType": "b"}]}),
    ("shopdb", "shop", "list_tables", {}),
    ("web", "site", "publish_page", {"slug": "x", "title": "t", "body": "b"}),
])
async def test_state_folders_linked_outside_are_refused(name: str, state_dir: str, tool: str, args: dict[str, Any],
                                                        sandbox: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep\n")
    (sandbox / state_dir).symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)
    text = await refused(name, tool, args)
    assert "outside the workspace" in text
    assert snapshot(outside) == before


async def test_mdtasks_task_file_symlinked_outside_is_refused(sandbox: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# Theirs\n- [ ] keep <!-- id:1 -->\n")
    (sandbox / "tasks.md").symlink_to(outside)
    for tool, args in [("list_tasks", {}), ("add_task", {"text": "x"}), ("remove_task", {"task_id": 1}),
                       ("create_task_file", {"title": "t", "overwrite": True})]:
        await refused("mdtasks", tool, args)
    assert outside.read_text() == "# Theirs\n- [ ] keep <!-- id:1 -->\n"


async def test_files_listing_skips_links_that_leave(sandbox: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    (sandbox / "out").symlink_to(outside, target_is_directory=True)
    (sandbox / "inside.txt").write_text("i")
    (sandbox / "ok-link.txt").symlink_to(sandbox / "inside.txt")
    listed = await ok("files", "list_directory", {"recursive": True})
    assert [e["path"] for e in listed["entries"]] == ["inside.txt", "ok-link.txt"]
    assert (await ok("files", "search_text", {"query": "s"}))["matches"] == []
    await ok("files", "delete_file", {"path": "ok-link.txt"})  # removes the link, not its target
    assert (sandbox / "inside.txt").exists()


# --------------------------------------------------------------------------- determinism

SCRIPT: list[tuple[str, str, dict[str, Any]]] = [
    ("finance", "get_tickers_info", {"symbols": ["AAPL", "7203.T"]}),
    ("finance", "download", {"tickers": "MSFT NVDA", "period": "6mo", "interval": "1wk"}),
    ("finance", "get_financials", {"symbol": "SAP", "statement": "income", "period": "quarterly"}),
    ("finance", "convert", {"amount": 99.5, "from_currency": "CHF", "to_currency": "SEK"}),
    ("shopdb", "write_query", {"query": "INSERT INTO customers (name, email) VALUES ('A B', 'a@b.example')"}),
    ("shopdb", "read_query", {"query": "SELECT * FROM customers ORDER BY id DESC LIMIT 3"}),
    ("mathstats", "summarize", {"values": [3, 1, 4, 1, 5, 9, 2, 6]}),
    ("units", "list_units", {}),
    ("scicomp", "create_tensor", {"name": "M", "values": [[1, 2, 3], [4, 5, 6], [7, 8, 10]]}),
    ("scicomp", "eigenvalues", {"name": "M"}),
    ("files", "write_file", {"path": "a/b.txt", "content": "hello"}),
    ("files", "list_directory", {"recursive": True}),
    ("mdtasks", "create_task_file", {"title": "T"}),
    ("mdtasks", "add_task", {"text": "x", "due": "today"}),
    ("mail", "send_message", {"to": ["x@y.example"], "subject": "s", "body": "b"}),
    ("mail", "list_inbox", {"folder": "sent"}),
    ("calendar", "create_event", {"title": "t", "start": "2026-04-14T10:00"}),
    ("calendar", "list_events", {"start_date": "2026-04-13", "end_date": "2026-04-20"}),
    ("memory", "create_entities", {"entities": [{"name": "n", "entityType": "t", "observations": ["o"]}]}),
    ("memory", "read_graph", {}),
    ("web", "search", {"query": "expense policy hotel"}),
    ("web", "publish_page", {"slug": "p", "title": "T", "body": "B"}),
    ("web", "list_published", {}),
]


async def _run_script(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    root.mkdir()
    monkeypatch.setenv("MCPTRIALS_SANDBOX", str(root))
    monkeypatch.setenv("MCPTRIALS_NOW", NOW)
    texts = []
    for name, tool, args in SCRIPT:
        is_error, text, _ = await call(name, tool, args)
        assert not is_error, text
        texts.append(text)
    return texts


async def test_same_calls_in_fresh_sandboxes_give_identical_results(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    first = await _run_script(tmp_path / "one", monkeypatch)
    second = await _run_script(tmp_path / "two", monkeypatch)
    assert first == second
    files_one = {k: v for k, v in snapshot(tmp_path / "one").items() if not k.endswith(".db")}
    assert files_one == {k: v for k, v in snapshot(tmp_path / "two").items() if not k.endswith(".db")}


# --------------------------------------------------------------------------- stdio


@pytest.mark.parametrize("name", SERVERS)
async def test_stdio_smoke(name: str, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", f"mcptrials.bundled.servers.{name}"],
        env={**{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH", "VIRTUAL_ENV")},
             "MCPTRIALS_SANDBOX": str(tmp_path), "MCPTRIALS_NOW": NOW})
    probe = {
        "finance": ("get_quote", {"symbol": "AAPL"}, "last_session"),
        "shopdb": ("list_tables", {}, "order_items"),
        "mathstats": ("mean", {"values": [1, 2, 3]}, "2.0"),
        "units": ("convert", {"value": 1, "from_unit": "km", "to_unit": "m", "category": "length"}, "1000"),
        "scicomp": ("create_identity", {"name": "I", "size": 2}, "shape"),
        "files": ("write_file", {"path": "x.txt", "content": "hi"}, "x.txt"),
        "mdtasks": ("create_task_file", {"title": "T"}, "tasks.md"),
        "mail": ("search", {"query": "deposit"}, "m005"),
        "calendar": ("list_events", {}, "Budget sync"),
        "memory": ("read_graph", {}, "entities"),
        "web": ("fetch_page", {"url": "https://handbook.northwind.example/"}, "handbook"),
    }[name]
    async with Client(params, cache=None) as client:
        tools = (await client.list_tools()).tools
        assert probe[0] in {t.name for t in tools}
        result = await client.call_tool(probe[0], probe[1])
        assert not result.is_error and probe[2] in result.content[0].text
    if name == "files":
        assert (tmp_path / "x.txt").read_text() == "hi"
