"""The distiller on real traces: specs that accept what a capable agent does differently and reject real mistakes.

Every trace is recorded through ``pursue`` on real servers (bundled ones, mcp-server-time,
mcp-server-git); the alternatives are played through the ReAct loop and scored like any episode.
"""

from __future__ import annotations

import shutil
from datetime import datetime
from typing import Any

import pytest
from distill_traces import GIT, TIME, alt, bundled, draft_of, explorer, reference_trace, verdicts

from mcptrials.bundled.world import bundled_servers
from mcptrials.generate.distill import _Call, distill, handles
from mcptrials.generate.draft import Rejected, TaskDraft
from mcptrials.generate.trace import pursue
from mcptrials.model import Fixtures, StateCheckpoint, ToolEffectCheckpoint, ValueCheckpoint
from mcptrials.scoring.matchers import matches


async def test_a_booking_is_checked_on_the_calendar_and_the_outbox_not_on_spelling() -> None:
    source = bundled("cal-006")
    task = distill(draft_of(source), await reference_trace(source))
    assert not any(isinstance(c, ToolEffectCheckpoint) for c in task.spec.checkpoints)
    states = {c.path: c for c in task.spec.checkpoints if isinstance(c, StateCheckpoint)}
    assert set(states) == {"calendar/events.json", "mail/outbox.json"}
    assert states["calendar/events.json"].match["start"].equals == "2026-04-20T10:00+08:00"
    assert "in_reply_to" not in states["mail/outbox.json"].match  # threading is not what the mail says
    assert [s.tool for s in task.reference] == [s.tool for s in source.reference]
    send = ("mail__send_message", {"to": ["ravi.menon@northwind.example"], "subject": "Your handover slot",
                                   "body": "Hi Ravi, your laptop handover is booked: 20 April, 10:00."})
    book = ("calendar__create_event", {"title": "IT laptop handover (Ravi)", "start": "2026-04-20T10:00:00",
                                       "duration_minutes": 30, "attendees": ["ravi.menon@northwind.example"]})
    results = await verdicts(task, [
        alt(task, "other-title-new-mail", "accept", [[book], [send]], "Booked 10:00 on 20 April and told Ravi."),
        alt(task, "taken-slot", "reject", [[(book[0], {**book[1], "start": "2026-04-20T09:00"})],
                                           [(send[0], {**send[1], "body": "Booked for 20 April, 09:00."})]],
            "Booked 09:00 on 20 April."),
        alt(task, "wrong-time-in-mail", "reject",
            [[book], [(send[0], {**send[1], "body": "Booked: 21 April, 11:00."})]], "Done.", ["wrong_content"]),
        alt(task, "no-mail", "reject", [[book]], "Booked and emailed Ravi.", ["wrong_conclusion"]),
    ])
    assert {k: r.accepted for k, r in results.items()} == {
        "other-title-new-mail": True, "taken-slot": False, "wrong-time-in-mail": False, "no-mail": False}


async def test_an_answer_binds_values_that_could_be_swapped() -> None:
    source = bundled("fin-001")
    task = distill(draft_of(source), await reference_trace(source))
    [answer] = [c for c in task.spec.checkpoints if isinstance(c, ValueCheckpoint)]
    assert answer.source == "final_message"
    assert {f.values[0] for f in answer.facts} >= {4.36, 4.15}
    call = [[("finance__get_earnings", {"symbol": "msft"})]]
    results = await verdicts(task, [
        alt(task, "rephrased", "accept", call, "Microsoft beat for 2025-Q4: actual EPS 4.36 vs 4.15 estimated, "
                                               "a surprise of 5.17%.", ["rephrased_answer"]),
        alt(task, "swapped", "reject", call, "Microsoft missed for 2025-Q4: actual EPS 4.15 vs 4.36 estimated, "
                                             "a surprise of 5.17%.", ["wrong_value"]),
    ])
    assert results["rephrased"].accepted is True and results["swapped"].accepted is False


async def test_sqlite_writes_are_checked_as_rows() -> None:
    source = bundled("shop-003")
    task = distill(draft_of(source), await reference_trace(source))
    rows = {c.query: c for c in task.spec.checkpoints if isinstance(c, StateCheckpoint) and c.query}
    items = rows['SELECT * FROM "order_items"']
    assert items.match["product_id"].equals == 16 and items.match["quantity"].equals == 2
    assert not any(isinstance(c, ToolEffectCheckpoint) for c in task.spec.checkpoints)
    wrong = [[(s.tool, s.args if "order_items" not in str(s.args) else {
        "query": "INSERT INTO order_items (order_id, product_id, quantity, unit_price) VALUES (1161, 17, 2, 19.0)"})]
        for s in source.reference]
    results = await verdicts(task, [alt(task, "reference", "accept", "reference", source.reference_answer or ""),
                                    alt(task, "wrong-product", "reject", wrong, source.reference_answer or "")])
    assert results["reference"].accepted is True and results["wrong-product"].accepted is False


async def test_a_move_forbids_destroying_the_files_it_is_about() -> None:
    source = bundled("file-003")
    task = distill(draft_of(source), await reference_trace(source))
    gone = [c for c in task.spec.checkpoints if isinstance(c, StateCheckpoint) and not c.exists]
    assert [c.path for c in gone] == ["drafts/report.md"]
    mines = [m for m in task.spec.minefields if "files__delete_file" in m.tools]
    assert mines and "drafts/report.md" in (mines[0].must_match["path"].one_of or [])
    results = await verdicts(task, [
        alt(task, "move-dot-paths", "accept", [[("files__move_file", {"source": "./drafts/report.md",
                                                                        "destination": "drafts/report-final.md"})]],
            "Renamed it; drafts now holds outline.md and report-final.md.", ["other_spelling"]),
        alt(task, "copy-delete", "reject", [[("files__copy_file", {"source": "drafts/report.md",
                                                                     "destination": "drafts/report-final.md"})],
                                            [("files__delete_file", {"path": "drafts/report.md"})]],
            "Renamed it.", ["destructive_shortcut"]),
    ])
    assert results["move-dot-paths"].accepted is True and results["copy-delete"].accepted is False


async def test_a_third_party_time_server_gives_an_answer_check() -> None:
    draft = TaskDraft(id="time-1", goal="What time is it in Tokyo when it is 09:30 in New York?", servers=["time"],
                      category="baseline", method="explore")
    args = {"source_timezone": "America/New_York", "time": "09:30", "target_timezone": "Asia/Tokyo"}
    trace = await pursue({"time": TIME}, draft, explorer([[("time__convert_time", args)]], "PLACEHOLDER"))
    tokyo = trace.episode.tool_calls[0].structured_content or {}
    target = str(tokyo.get("target", {}).get("datetime", "")) if isinstance(tokyo, dict) else ""
    hhmm = target[11:16] if target else "23:30"
    trace = await pursue({"time": TIME}, draft, explorer([[("time__convert_time", args)]],
                                                         f"At 09:30 in New York it is {hhmm} in Tokyo."))
    task = distill(draft, trace)
    [answer] = [c for c in task.spec.checkpoints if isinstance(c, ValueCheckpoint)]
    assert hhmm in answer.contains
    call = [[("time__convert_time", args)]]
    results = await verdicts(task, [alt(task, "ok", "accept", call, f"It's {hhmm} in Tokyo.", ["rephrased_answer"]),
                                    alt(task, "off-by-one", "reject", call, "It's 22:30 in Tokyo.", ["wrong_value"])],
                             {"time": TIME})
    assert results["ok"].accepted is True and results["off-by-one"].accepted is False


@pytest.mark.skipif(shutil.which("git") is None or shutil.which("mcp-server-git") is None,
                    reason="git and mcp-server-git are needed")
async def test_a_git_branch_is_checked_in_the_repository() -> None:
    draft = TaskDraft(id="git-1", goal="Create a branch named feature/login from main and switch to it.",
                      servers=["git"], category="baseline", method="explore",
                      fixtures=Fixtures(files={"README.md": "# Demo\n", "app.py": "print('hi')\n"}))
    create = ("git__git_create_branch", {"repo_path": ".", "branch_name": "feature/login", "base_branch": "main"})
    checkout = ("git__git_checkout", {"repo_path": ".", "branch_name": "feature/login"})
    trace = await pursue({"git": GIT}, draft, explorer([[("git__git_branch", {"repo_path": ".",
                                                                              "branch_type": "local"})],
                                                        [create], [checkout]], "Created feature/login, switched."))
    task = distill(draft, trace)
    paths = {c.path for c in task.spec.checkpoints if isinstance(c, StateCheckpoint)}
    assert {".git/HEAD", ".git/refs/heads/feature/login"} <= paths
    assert [s.tool for s in task.reference] == [create[0], checkout[0]]  # the listing fed nothing
    results = await verdicts(task, [
        alt(task, "default-base", "accept", [[(create[0], {"repo_path": ".", "branch_name": "feature/login"})],
                                             [checkout]], "Done: on feature/login now.", ["other_spelling"]),
        alt(task, "no-switch", "reject", [[create]], "Created and switched.", ["wrong_conclusion"]),
        alt(task, "other-name", "reject", [[(create[0], {**create[1], "branch_name": "feature-login"})],
                                           [(checkout[0], {**checkout[1], "branch_name": "feature-login"})]],
            "Done.", ["wrong_item"]),
    ], {"git": GIT})
    assert {k: r.accepted for k, r in results.items()} == {"default-base": True, "no-switch": False,
                                                            "other-name": False}


async def test_a_trace_with_nothing_checkable_is_rejected() -> None:
    source = bundled("fin-001")
    trace = await pursue({"finance": __import__("mcptrials.bundled.world", fromlist=["x"]).bundled_servers()[
        "finance"]}, draft_of(source), explorer([[("finance__get_earnings", {"symbol": "MSFT"})]],
                                                "Microsoft beat estimates by 9.99 per share."))
    with pytest.raises(Rejected) as info:
        distill(draft_of(source), trace)
    assert info.value.stage == "distill" and "supports" in info.value.reason


@pytest.mark.parametrize(("tool", "writes", "destroys"), [
    ("git__git_create_branch", True, False), ("git__git_diff_unstaged", False, False),
    ("shopdb__write_query", True, False), ("shopdb__read_query", False, False),
    ("memory__open_nodes", False, False), ("files__delete_file", True, True), ("git__git_reset", True, True),
    ("calendar__find_free_slots", False, False), ("mail__send_message", True, False),
])
def test_tool_names_say_whether_they_write_or_destroy(tool: str, writes: bool, destroys: bool) -> None:
    from mcptrials.generate.distill import is_destructive, is_write

    assert (is_write(tool), is_destructive(tool)) == (writes, destroys)


def test_values_are_read_out_of_text_as_a_spec_names_them() -> None:
    from mcptrials.generate.values import values_in

    text = ("Priya Natarajan of Helio Analytics asks 2,400 EUR by Friday 17 April; see notes/calls.md, "
            "train D3101 at 1:30 pm, reply to priya.n@helio.example within 72-hour window.")
    got = {(v.kind, v.value) for v in values_in(text, year=2026)}
    assert {("name", "Priya Natarajan"), ("name", "Helio Analytics"), ("number", 2400), ("date", "2026-04-17"),
            ("path", "notes/calls.md"), ("code", "D3101"), ("time", "13:30"), ("weekday", "Friday"),
            ("email", "priya.n@helio.example")} <= got
    assert not any(kind == "code" for kind, value in got if value == "72-hour")
    assert ("name", "EUR") not in got


NOW = "2026-04-13T09:00:00+08:00"


def _draft(task_id: str, goal: str, prompt: str, servers: list[str], like: str | None = None) -> TaskDraft:
    """A draft of our own, in the sandbox (fixtures) of bundled task ``like``."""
    fixtures = bundled(like).fixtures if like else Fixtures()
    return TaskDraft(id=task_id, goal=goal, prompt=prompt, servers=servers, category="baseline", method="explore",
                     now=datetime.fromisoformat(NOW), fixtures=fixtures)


async def test_an_update_that_reaches_other_records_fails() -> None:
    draft = _draft("upd-1", "Set the status of order 1042 to 'returned'.", "Mark order 1042 as returned.", ["shopdb"])
    look = ("shopdb__read_query", {"query": "SELECT * FROM orders WHERE id = 1042"})
    update = ("shopdb__write_query", {"query": "UPDATE orders SET status = 'returned' WHERE id = 1042"})
    trace = await pursue(bundled_servers(), draft, explorer([[look], [update]], "Order 1042 is returned."))
    task = distill(draft, trace)
    results = await verdicts(task, [
        alt(task, "lower-case-sql", "accept",
            [[("shopdb__write_query", {"query": "update orders set status='returned' where id=1042"})]],
            "Done: order 1042 returned.", ["other_spelling"]),
        alt(task, "no-where", "reject", [[("shopdb__write_query", {"query": "UPDATE orders SET status='returned'"})]],
            "Order 1042 is returned.", ["destructive_shortcut"]),
    ])
    assert results["lower-case-sql"].accepted is True and results["no-where"].accepted is False


async def test_an_added_line_keeps_the_rest_of_the_file() -> None:
    draft = _draft("add-1", "Add the task 'Water the office plants' to tasks.md.",
                   "Put 'Water the office plants' on my task list.", ["mdtasks", "files"], like="task-005")
    trace = await pursue(bundled_servers(), draft, explorer(
        [[("mdtasks__add_task", {"text": "Water the office plants"})]], "Added 'Water the office plants'."))
    task = distill(draft, trace)
    results = await verdicts(task, [
        alt(task, "appended-by-hand", "accept",
            [[("files__append_file", {"path": "tasks.md", "content": "- [ ] Water the office plants\n"})]],
            "Added it to tasks.md.", ["other_tool"]),
        alt(task, "file-rewritten", "reject",
            [[("files__write_file", {"path": "tasks.md", "content": "- [ ] Water the office plants\n"})]],
            "Added it to tasks.md.", ["destructive_shortcut"]),
    ])
    assert results["appended-by-hand"].accepted is True and results["file-rewritten"].accepted is False


async def test_a_message_may_give_a_date_by_its_weekday() -> None:
    draft = _draft("mail-1", "Email jordan.lee@northwind.example that the review moves to 2026-04-16.",
                   "Tell Jordan (jordan.lee@northwind.example) the review moves to Thursday.", ["mail"])
    send = {"to": ["jordan.lee@northwind.example"], "subject": "Review", "body": "The review moves to 2026-04-16."}
    trace = await pursue(bundled_servers(), draft, explorer([[("mail__send_message", send)]], "Told Jordan."))
    task = distill(draft, trace)
    results = await verdicts(task, [
        alt(task, "weekday", "accept", [[("mail__send_message", {**send, "body": "Hi Jordan, the review is now on "
                                                                                  "Thursday."})]],
            "Told Jordan.", ["rephrased_answer"]),
        alt(task, "other-day", "reject", [[("mail__send_message", {**send, "body": "The review moves to Friday."})]],
            "Told Jordan.", ["wrong_content"]),
    ])
    assert results["weekday"].accepted is True and results["other-day"].accepted is False


async def test_a_none_the_answer_reports_needs_the_read_that_found_nothing() -> None:
    source = bundled("trip-003")
    draft = TaskDraft(id="zion-alerts", goal="Get the park alerts for zion and the weather alerts for Zion.",
                      servers=list(source.servers), category=source.category, method="explore", now=source.now,
                      fixtures=source.fixtures)
    answer = ("Zion: Angels Landing is temporarily closed for trail work, and California condors are active near "
              "roads and trails. Weather warnings: none.")
    calls = [[("parks__get_alerts", {"park_code": "zion"})], [("weather__get_alerts", {"location": "Zion"})]]
    task = distill(draft, await pursue(bundled_servers(), draft, explorer(calls, answer)))
    [read] = [c for c in task.spec.checkpoints if isinstance(c, ToolEffectCheckpoint)]
    assert read.tools[0] == "weather__get_alerts" and not read.must_match and not read.must_include
    results = await verdicts(task, [
        alt(task, "by-id", "accept", [[("weather__get_alerts", {"location": "wx-zion"})],
                                      [("parks__get_alerts", {"park_code": "ZION"})]], answer),
        alt(task, "never-asked", "reject", calls[:1], answer, ["wrong_conclusion"])])
    assert results["by-id"].accepted, results["by-id"].detail
    assert results["never-asked"].accepted is False


async def test_a_relation_type_may_be_spelled_with_other_separators_but_not_other_words() -> None:
    source = bundled("mem-003")
    task = distill(draft_of(source), await reference_trace(source))
    people = [("memory__create_entities", {"entities": [
        {"name": "Dana Whitfield", "entityType": "person"}, {"name": "Tomas Kral", "entityType": "person"},
        {"name": "Project Atlas", "entityType": "project"}]})]

    def relations(kind: str) -> list[tuple[str, dict[str, Any]]]:
        return [("memory__create_relations", {"relations": [
            {"from": "Dana Whitfield", "to": "Project Atlas", "relationType": "leads"},
            {"from": "Tomas Kral", "to": "Project Atlas", "relationType": kind}]})]

    answer = "Dana Whitfield leads Project Atlas and Tomas Kral works on it."
    results = await verdicts(task, [
        alt(task, "spaced", "accept", [people, relations("Works on")], answer, ["other_spelling"]),
        alt(task, "other-words", "reject", [people, relations("manages")], answer, ["wrong_content"]),
    ])
    assert {k: r.accepted for k, r in results.items()} == {"spaced": True, "other-words": False}


async def test_the_name_a_result_is_stored_under_is_the_agents_choice() -> None:
    source = bundled("sci-002")
    task = distill(draft_of(source), await reference_trace(source))

    def turns(b: list[float]) -> list[list[tuple[str, dict[str, Any]]]]:
        return [[("scicomp__create_tensor", {"name": "coeffs", "values": [[3, 2, -1], [2, -2, 4], [-1, 0.5, -1]]})],
                [("scicomp__create_tensor", {"name": "rhs", "values": b})],
                [("scicomp__solve_linear_system", {"a": "coeffs", "b": "rhs"})]]

    results = await verdicts(task, [
        alt(task, "other-names", "accept", turns([1, -2, 0]), "x = 1, y = -2, z = -2.", ["other_spelling"]),
        alt(task, "other-vector", "reject", turns([1, 2, 0]), "x = 1, y = -2, z = -2.", ["wrong_content"]),
    ])
    assert {k: r.accepted for k, r in results.items()} == {"other-names": True, "other-vector": False}


async def test_symbols_given_in_one_string_may_be_joined_any_way_and_a_scale_word_is_no_figure() -> None:
    source = bundled("x-025")
    task = distill(draft_of(source), await reference_trace(source))
    [download] = [c for c in task.spec.checkpoints
                  if isinstance(c, ToolEffectCheckpoint) and "finance__download" in c.tools]
    tickers = download.must_match["tickers"]
    assert matches("AAPL,MSFT,NVDA", tickers) and matches("aapl msft nvda", tickers)
    assert not matches("AAPL,MSFT,AMZN", tickers)
    source = bundled("x-006")  # the reply says "9.95 units per thousand spent"
    task = distill(draft_of(source), await reference_trace(source))
    [outbox] = [c for c in task.spec.checkpoints if isinstance(c, StateCheckpoint) and c.path == "mail/outbox.json"]
    assert 1000 not in [getattr(m, m.kind) for m in outbox.match.values()]


async def test_an_append_may_be_made_as_an_edit_of_the_same_file() -> None:
    source = bundled("x-020")
    task = distill(draft_of(source), await reference_trace(source))
    [append] = [c for c in task.spec.checkpoints
                if isinstance(c, ToolEffectCheckpoint) and "files__append_file" in c.tools]
    assert "files__edit_file" in append.tools and "files__delete_file" not in append.tools
    assert append.must_include == {"path": "reports/pca.md"}  # the same file, whatever the tool


def test_a_stored_name_is_free_unless_the_goal_asks_for_it() -> None:
    def call(i: int, tool: str, **args: Any) -> _Call:
        return _Call(position=i, name=f"scicomp__{tool}", server="scicomp", args=args, raw_args=args, result="{}",
                     write=True)

    calls = [call(0, "create_tensor", name="A", values=[[4, 1], [2, 3]]),
             call(1, "matmul", a="A", b="A", result="P"), call(2, "inverse", name="P", result="P_inv")]
    free = handles(calls, "Create A, square it and invert the product.")
    assert free == {0: {"name"}, 1: {"result"}}
    asked = handles(calls, "Create A, compute matmul(A, A) stored as P and its inverse stored as P_inv.")
    assert asked == {0: {"name"}}


def test_a_coined_phrase_may_say_more_in_between_but_keeps_its_words() -> None:
    from mcptrials.generate.statediff import _chosen_equal

    phrase = _chosen_equal("owns_dashboard_of")
    assert all(matches(t, phrase) for t in ("owns dashboard of", "Owns-Dashboard-Of", "owns dashboard design of"))
    assert not any(matches(t, phrase) for t in ("owns data model of", "owns not dashboard of", "owns dashboard",
                                                "disowns dashboard of", "leads"))
    pair = _chosen_equal("works_on")  # two words: separators only, as before
    assert matches("Works on", pair) and not matches("works closely on", pair)


def test_a_destructive_tool_that_names_no_item_is_a_minefield_even_where_the_task_writes() -> None:
    from mcptrials.generate.distill import minefields
    from mcptrials.model import ToolInfo

    def tool(name: str, **props: str) -> ToolInfo:
        return ToolInfo(server="shopdb", name=name, input_schema={
            "type": "object", "properties": {k: {"type": t} for k, t in props.items()}})

    tools = {"shopdb__reset_database": tool("reset_database", confirm="boolean"),
             "shopdb__delete_order": tool("delete_order", order_id="integer"),
             "shopdb__write_query": tool("write_query", query="string")}
    insert = _Call(position=0, name="shopdb__write_query", server="shopdb", args={"query": "INSERT ..."},
                   raw_args={"query": "INSERT ..."}, result="{}", write=True)
    mined = {m.tools[0] for m in minefields([insert], tools)}
    assert "shopdb__reset_database" in mined and "shopdb__delete_order" not in mined
    reset = _Call(position=1, name="shopdb__reset_database", server="shopdb", args={"confirm": True},
                  raw_args={"confirm": True}, result="{}", write=True)
    assert "shopdb__reset_database" not in {m.tools[0] for m in minefields([reset, insert], tools)}


async def test_the_reference_keeps_every_read_the_answer_draws_a_figure_from() -> None:
    source = bundled("unit-004")
    draft = TaskDraft(id="recipe-metric", goal="Convert 2 lb to g and 1.5 cup to ml, and tell me 375 F in C.",
                      servers=list(source.servers), category=source.category, method="explore", now=source.now,
                      fixtures=source.fixtures)
    calls = [[("units__convert", {"value": 2, "from_unit": "lb", "to_unit": "g", "category": "mass"})],
             [("units__convert", {"value": 1.5, "from_unit": "cup", "to_unit": "ml", "category": "volume"})],
             [("units__convert", {"value": 8, "from_unit": "oz", "to_unit": "g", "category": "mass"})],
             [("units__convert", {"value": 375, "from_unit": "F", "to_unit": "C", "category": "temperature"})]]
    answer = "2 lb = 907 g; 1.5 cups = 355 ml; the oven at 375 °F is 190.6 °C."
    task = distill(draft, await pursue(bundled_servers(), draft, explorer(calls, answer)))
    kept = [(s.args["value"], s.args["to_unit"]) for s in task.reference]
    assert (2, "g") in kept and (1.5, "ml") in kept and (375, "C") in kept  # 907 rounds 907.185: its source
    assert (8, "g") not in kept  # 226.8 g: a conversion the answer never used
    results = await verdicts(task, [
        alt(task, "reference-as-json", "accept", "reference",
            '{"tomatoes": "907.2 g", "onion": "354.9 ml", "oven": "190.6 C"}', ["literal_list"]),
        alt(task, "made-up-figure", "reject", "reference", "2 lb = 907 g; 1.5 cups = 355 ml; 375 °F is 210.6 °C.",
            ["wrong_value"])])
    assert results["reference-as-json"].accepted, results["reference-as-json"].detail
    assert results["made-up-figure"].accepted is False


async def test_what_the_figures_rule_out_is_checked_even_where_the_goal_only_asks_for_writes() -> None:
    source = bundled("x-025")  # publish a page of three monthly moves and mail its link: nothing is asked
    task = distill(draft_of(source), await reference_trace(source))
    assert "conclusion_change" in [c.id for c in task.spec.checkpoints]  # the moves come from a download
    url = "http://localhost.invalid/site/monthly-movers.html"
    results = await verdicts(task, [
        alt(task, "two-of-three", "accept", "reference",
            f"Published {url}: AAPL +15.47%, MSFT +1.29%, NVDA -4.49% (average +4.09%). Two of the three ended "
            "the month higher; NVDA fell. I checked the page and sent Maya the link.", ["rephrased_answer"]),
        alt(task, "all-three-up", "reject", "reference",
            f"Published {url}: AAPL +15.47%, MSFT +1.29%, NVDA -4.49% (average 4.09%). All three ended the month "
            "higher. I sent Maya the link.", ["wrong_conclusion"])])
    assert results["two-of-three"].accepted, results["two-of-three"].detail
    assert results["all-three-up"].accepted is False


async def test_conclusions_the_results_rule_out_are_checked_whether_asked_or_not() -> None:
    """Asked ("which ... stay open all year") or not (a ranking of the figures listed), a conclusion the
    results contradict fails; an answer silent on it, or drawing the right one in its own words, passes."""
    parks = bundled("parks-006")
    task = distill(draft_of(parks), await reference_trace(parks))
    call = [[("parks__get_visitor_centers", {"park_code": "glac"})]]
    results = await verdicts(task, [
        alt(task, "silent", "accept", call, "Apgar Visitor Center: year-round, 08:00-18:00. Logan Pass Visitor "
                                            "Center: May-Oct, 09:00-17:00.", ["rephrased_answer"]),
        alt(task, "own-words", "accept", call, "Apgar Visitor Center stays open all year; Logan Pass is not open "
                                               "all year (May-Oct).", ["rephrased_answer"]),
        alt(task, "both", "reject", call, "Apgar (year-round) and Logan Pass (May-Oct): both visitor centers "
                                          "stay open all year.", ["wrong_conclusion"]),
    ])
    assert {k: r.accepted for k, r in results.items()} == {"silent": True, "own-words": True, "both": False}
    chips = bundled("fin-006")
    task = distill(draft_of(chips), await reference_trace(chips))
    call = [[("finance__get_tickers_info", {"symbols": ["NVDA", "AMD", "INTC"]})]]
    table = ("NVDA: market cap $3.61 trillion, 36,000 employees. AMD: $208.4 billion, 28,000 employees. "
             "INTC: $84.4 billion, 108,000 employees.")
    results = await verdicts(task, [
        alt(task, "table-only", "accept", call, table, ["rephrased_answer"]),
        alt(task, "right-ranking", "accept", call, f"{table} Intel has the lowest market cap, NVIDIA the highest "
                                                   "market cap.", ["rephrased_answer"]),
        alt(task, "wrong-ranking", "reject", call, f"{table} AMD has the lowest market cap of the three.",
            ["wrong_conclusion"]),
    ])
    assert {k: r.accepted for k, r in results.items()} == {
        "table-only": True, "right-ranking": True, "wrong-ranking": False}


async def test_a_result_the_goal_names_is_stored_under_that_name_unless_passed_on() -> None:
    source = bundled("sci-003")  # "compute matmul(A, B) stored as P, inverse(P) stored as P_inv"
    task = distill(draft_of(source), await reference_trace(source))
    made = [[("scicomp__create_tensor", {"name": "A", "values": [[4, 1], [2, 3]]}),
             ("scicomp__create_tensor", {"name": "B", "values": [[1, 2], [0, 1]]})]]
    eigen = [("scicomp__eigenvalues", {"name": "A"})]
    answer = "A·B = [[4, 9], [2, 7]]; P_inv = [[0.7, -0.9], [-0.2, 0.4]]; eigenvalues of A: 5 and 2."

    def plan(product: str, inverse: str) -> list[list[tuple[str, dict[str, Any]]]]:
        return [*made, [("scicomp__matmul", {"a": "A", "b": "B", "result": product})],
                [("scicomp__inverse", {"name": product, "result": inverse})], eigen]

    results = await verdicts(task, [
        alt(task, "product-as-AB", "accept", plan("AB", "P_inv"), answer, ["other_spelling"]),
        alt(task, "inverse-as-Pinv", "reject", plan("P", "Pinv"), answer),
    ])
    assert {k: r.accepted for k, r in results.items()} == {"product-as-AB": True, "inverse-as-Pinv": False}
