"""The distiller on writes: what a written record, file or message must carry, and which writes must not happen.

Each test distils a trace of its own (played through ``pursue`` on the bundled servers, in the
sandbox of a bundled task) and plays a correct and a wrong alternative against the spec.
"""

from __future__ import annotations

from datetime import datetime

from distill_traces import alt, bundled, draft_of, explorer, reference_trace, verdicts

from mcptrials.bundled.world import bundled_servers
from mcptrials.generate.distill import distill, forbidden_verbs
from mcptrials.generate.draft import TaskDraft
from mcptrials.generate.statediff import _kept_lines, copied_spans
from mcptrials.generate.trace import pursue
from mcptrials.model import Fixtures, Task

NOW = "2026-04-13T09:00:00+08:00"


def _draft(task_id: str, goal: str, prompt: str, servers: list[str], like: str | None = None) -> TaskDraft:
    """A draft of our own, in the sandbox (fixtures) of bundled task ``like``."""
    fixtures = bundled(like).fixtures if like else Fixtures()
    return TaskDraft(id=task_id, goal=goal, prompt=prompt, servers=servers, category="baseline", method="explore",
                     now=datetime.fromisoformat(NOW), fixtures=fixtures)


async def _distilled(draft: TaskDraft, turns: list[list[tuple[str, dict]]], answer: str) -> Task:
    return distill(draft, await pursue(bundled_servers(), draft, explorer(turns, answer)))


async def test_a_note_added_to_an_entity_binds_its_figure_and_the_entity_survives() -> None:
    draft = _draft("note-1", "Add the observation 'Budget raised to 52,000 EUR' to the entity 'Project Atlas'.",
                   "Atlas's budget was raised to 52,000 EUR - add that to what I know about Project Atlas.",
                   ["memory"], like="mem-002")
    add = ("memory__add_observations", {"observations": [{"entityName": "Project Atlas",
                                                          "contents": ["Budget raised to 52,000 EUR"]}]})
    task = await _distilled(draft, [[add]], "Added the budget note to Project Atlas.")
    reworded = ("memory__add_observations", {"observations": [{"entityName": "Project Atlas",
                                                               "contents": ["New budget: 52000 EUR"]}]})
    results = await verdicts(task, [
        alt(task, "reworded", "accept", [[reworded]], "Noted the new budget on Project Atlas.", ["other_spelling"]),
        alt(task, "wrong-figure", "reject", [[("memory__add_observations", {"observations": [
            {"entityName": "Project Atlas", "contents": ["Budget raised to 25,000 EUR"]}]})]], "Noted.",
            ["wrong_content"]),
        alt(task, "separate-entity", "reject", [[("memory__create_entities", {"entities": [
            {"name": "Atlas budget", "entityType": "note", "observations": ["Budget raised to 52,000 EUR"]}]})]],
            "Noted.", ["wrong_item"]),
        alt(task, "recreated", "reject", [[("memory__delete_entities", {"entityNames": ["Project Atlas"]})], [(
            "memory__create_entities", {"entities": [{"name": "Project Atlas", "entityType": "project",
                                                      "observations": ["Budget raised to 52,000 EUR"]}]})]],
            "Noted.", ["destructive_shortcut"]),
    ])
    assert {k: r.accepted for k, r in results.items()} == {
        "reworded": True, "wrong-figure": False, "separate-entity": False, "recreated": False}


async def test_an_event_keeps_the_length_the_request_gave() -> None:
    draft = _draft("len-1", "Create the event 'Vendor call' on 2026-04-16 at 16:00 for 30 minutes.",
                   "Put a 30-minute vendor call in my calendar on Thursday at 16:00.", ["calendar"], like="cal-003")
    book = ("calendar__create_event", {"title": "Vendor call", "start": "2026-04-16T16:00", "duration_minutes": 30})
    task = await _distilled(draft, [[book]], "Booked the vendor call on Thursday 16:00-16:30.")
    results = await verdicts(task, [
        alt(task, "other-title", "accept", [[(book[0], {**book[1], "title": "Call with vendor"})]],
            "Booked Thursday 16:00-16:30.", ["other_spelling"]),
        alt(task, "default-length", "reject", [[(book[0], {"title": "Vendor call", "start": "2026-04-16T16:00"})]],
            "Booked Thursday 16:00.", ["wrong_content"]),
    ])
    assert results["other-title"].accepted is True and results["default-length"].accepted is False


async def test_a_file_sent_by_mail_must_be_attached_and_a_ruled_out_verb_is_a_minefield() -> None:
    draft = _draft("att-1", "Write 'Stand 14, hall B' to notes/stand.txt and email sofia.marin@northwind.example "
                            "that file as an attachment.",
                   "Save 'Stand 14, hall B' in notes/stand.txt and send Sofia the file - attach it, don't forward "
                   "anything.", ["mail", "files"], like="x-019")
    note = ("files__write_file", {"path": "notes/stand.txt", "content": "Stand 14, hall B\n"})
    send = ("mail__send_message", {"to": ["sofia.marin@northwind.example"], "subject": "Stand",
                                   "body": "Hi Sofia, the stand details are attached. Alex",
                                   "attachments": ["notes/stand.txt"]})
    task = await _distilled(draft, [[note], [send]], "Saved notes/stand.txt and sent it to Sofia as an attachment.")
    results = await verdicts(task, [
        alt(task, "other-words", "accept", [[note], [(send[0], {**send[1], "body": "Here you go."})]],
            "Sent.", ["other_spelling"]),
        alt(task, "path-only", "reject", [[note], [(send[0], {**{k: v for k, v in send[1].items()
                                                                 if k != "attachments"},
                                                              "body": "The details are in notes/stand.txt."})]],
            "Sent.", ["wrong_content"]),
        alt(task, "forwarded", "reject", [[note], [("mail__forward_message", {
            "message_id": "m001", "to": ["sofia.marin@northwind.example"], "note": "See the stand notes."})], [send]],
            "Sent.", ["wrong_content"]),
    ])
    assert {k: r.accepted for k, r in results.items()} == {"other-words": True, "path-only": False,
                                                           "forwarded": False}


def test_a_request_rules_out_verbs_by_name_only() -> None:
    assert forbidden_verbs("Reply, don't forward.") == {"forward"}
    assert forbidden_verbs("Tick it off (do not delete it).") == {"delete"}
    assert forbidden_verbs("I have not paid it yet; don't worry about the rest.") == set()


async def test_a_read_only_request_forbids_every_write() -> None:
    draft = _draft("ro-1", "List the open tasks in tasks.md due on or before 2026-04-19.",
                   "What's due this week? Just tell me, don't change anything.", ["mdtasks"], like="task-004")
    look = ("mdtasks__list_tasks", {"due_before": "2026-04-19"})
    task = await _distilled(draft, [[look]], "Due this week: Pay Ledgerly invoice INV-2291 and Review NDA draft "
                                             "for Helio Analytics.")
    answer = "Due: Pay Ledgerly invoice INV-2291 and Review NDA draft for Helio Analytics."
    results = await verdicts(task, [
        alt(task, "all-then-filter", "accept", [[("mdtasks__list_tasks", {})], [look]], answer, ["extra_reads"]),
        alt(task, "ticks-one-off", "reject", [[look], [("mdtasks__complete_task", {"task_id": 1})]], answer,
            ["destructive_shortcut"]),
    ])
    assert results["all-then-filter"].accepted is True and results["ticks-one-off"].accepted is False
    free = await _distilled(_draft("ro-2", draft.goal, "What's due this week?", ["mdtasks"], like="task-004"),
                            [[look]], answer)
    assert not any("mdtasks__complete_task" in m.tools for m in free.spec.minefields)  # a read is no vow


async def test_a_message_says_what_the_request_asked_to_tell() -> None:
    draft = _draft("say-1", "Email jordan.lee@northwind.example that the parking request is withdrawn.",
                   "Tell Jordan (jordan.lee@northwind.example) my parking request is withdrawn.", ["mail"])
    send = ("mail__send_message", {"to": ["jordan.lee@northwind.example"], "subject": "Parking",
                                   "body": "Hi Jordan, my parking request is withdrawn. Alex"})
    task = await _distilled(draft, [[send]], "Told Jordan the request is withdrawn.")
    results = await verdicts(task, [
        alt(task, "own-words", "accept", [[(send[0], {**send[1], "body": "Jordan - I'm withdrawing my parking "
                                                                         "request, thanks anyway."})]],
            "Told Jordan.", ["rephrased_answer"]),
        alt(task, "says-pending", "reject", [[(send[0], {**send[1], "body": "Hi Jordan, about my parking request: "
                                                                            "still waiting on it. Alex"})]],
            "Told Jordan.", ["wrong_content"]),
    ])
    assert results["own-words"].accepted is True and results["says-pending"].accepted is False


async def test_an_edited_line_binds_its_new_date_to_its_item() -> None:
    draft = _draft("due-1", "Update task 4 in tasks.md (Renew parking permit) to due 2026-04-24.",
                   "Make the parking permit renewal due on 24 April.", ["mdtasks"], like="task-005")
    move = ("mdtasks__update_task", {"task_id": 4, "due": "2026-04-24"})
    task = await _distilled(draft, [[move]], "The parking permit renewal is now due 24 April.")
    results = await verdicts(task, [
        alt(task, "by-hand", "accept", [[("mdtasks__list_tasks", {})], [move]], "Done: due 24 April.",
            ["extra_reads"]),
        alt(task, "other-task", "reject", [[("mdtasks__update_task", {"task_id": 5, "due": "2026-04-24"})]],
            "Done: due 24 April.", ["wrong_item"]),
    ])
    assert results["by-hand"].accepted is True and results["other-task"].accepted is False


async def test_an_exported_table_keeps_its_number_of_rows() -> None:
    draft = _draft("csv-1", "Export sku and name of products with stock < 10 to exports/low.csv.",
                   "Export the products with fewer than 10 in stock to exports/low.csv.", ["shopdb"], like="x-026")
    export = ("shopdb__export_query", {"query": "SELECT sku, name FROM products WHERE stock < 10",
                                       "path": "exports/low.csv"})
    task = await _distilled(draft, [[export]], "Exported the low-stock products to exports/low.csv.")
    results = await verdicts(task, [
        alt(task, "more-columns", "accept", [[(export[0], {**export[1], "query": "SELECT name, sku, stock FROM "
                                                                                  "products WHERE stock < 10"})]],
            "Exported.", ["other_spelling"]),
        alt(task, "looser-filter", "reject", [[(export[0], {**export[1], "query": "SELECT sku, name FROM products "
                                                                                   "WHERE stock < 20"})]],
            "Exported.", ["wrong_content"]),
    ])
    assert results["more-columns"].accepted is True and results["looser-filter"].accepted is False


def test_a_kept_section_heading_is_checked() -> None:
    before = "# Guide (v1)\n\nOld intro text here.\n\n## Help\nWrite to us.\n\n## Versions\nThis is v1.\n"
    after = before.replace("v1", "v2")
    assert "Versions" in _kept_lines(before, after)
    assert "#" not in "".join(_kept_lines(before, after))
    assert _kept_lines("# A\n", "# B\n") == []  # a heading the edit changed is no kept line


async def test_a_setting_a_call_gave_one_item_stays_on_that_items_line() -> None:
    source = bundled("task-002")  # four tasks; the press release and the demo are high priority
    task = distill(draft_of(source), await reference_trace(source))
    add = "mdtasks__add_task"
    made = [[("mdtasks__create_task_file", {"title": "Product launch", "file": "launch.md"})],
            [(add, {"text": "Write the press release", "file": "launch.md", "due": "2026-04-20", "priority": "high"})],
            [(add, {"text": "Book the launch venue", "file": "launch.md", "due": "2026-04-17"})],
            [(add, {"text": "Send invites", "file": "launch.md", "due": "2026-04-22"})]]
    demo = {"text": "Prepare the demo", "file": "launch.md"}
    results = await verdicts(task, [
        alt(task, "demo-first-high", "accept", [made[0], [(add, {**demo, "priority": "high"})], *made[1:]],
            "launch.md is set up with the four tasks.", ["other_order"]),
        alt(task, "demo-normal", "reject", [*made, [(add, demo)]], "launch.md is set up with the four tasks.",
            ["wrong_content"]),
    ])
    assert {k: r.accepted for k, r in results.items()} == {"demo-first-high": True, "demo-normal": False}


async def test_a_span_of_days_a_reply_copies_from_a_page_is_checked() -> None:
    source = bundled("x-013")  # the reply quotes the policy: refunds take 5 to 7 working days
    task = distill(draft_of(source), await reference_trace(source))
    turns = [[(s.tool, s.args)] for s in source.reference[:-1]]
    send = source.reference[-1]
    reply = "Hi Leo, order 1042 is returned: full refund including shipping once we receive it, within {} working days."
    results = await verdicts(task, [
        alt(task, "dash", "accept", [*turns, [(send.tool, {**send.args, "body": reply.format("5-7")})]], "Done.",
            ["rephrased_answer"]),
        alt(task, "other-span", "reject", [*turns, [(send.tool, {**send.args, "body": reply.format("14")})]],
            "Done.", ["wrong_content"]),
    ])
    assert {k: r.accepted for k, r in results.items()} == {"dash": True, "other-span": False}


def test_a_span_is_copied_only_when_a_result_gives_it() -> None:
    page = "Damaged items are refunded in full, including shipping. Refunds take 5 to 7 working days."
    assert copied_spans("Your refund takes 5-7 working days.", [page]) == [5, 7]
    assert copied_spans("Your refund takes 3 to 5 working days.", [page]) == []
    assert copied_spans("We meet 10:00-11:30 on 2026-04-13.", ["10:00-11:30, 2026-04-13"]) == []
