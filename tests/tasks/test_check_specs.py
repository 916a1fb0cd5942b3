"""`tasks check` on real bundled servers: necessary steps, checked arguments, spec lint."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from mcptrials.bundled.world import bundled_servers
from mcptrials.model import Task
from mcptrials.tasks.check import check_references
from mcptrials.tasks.lint import static_problems
from mcptrials.tasks.stats import task_counts

NOTE = {"tool": "files__write_file", "args": {"path": "notes/plan.md", "content": "Budget: 42,000 EUR for travel"}}
LOOK = {"tool": "files__list_directory", "args": {"path": "."}}
STATE = {"id": "written", "kind": "state", "path": "notes/plan.md", "facts": [{"label": "travel", "value": 42000}]}
ANSWER = {"id": "answer", "kind": "value_produced", "source": "final_message", "contains": ["notes/plan.md"]}


def _task(checkpoints: list[dict[str, Any]], **extra: Any) -> Task:
    return Task.model_validate({
        "id": "note", "prompt": "Write the travel budget (42,000 EUR) to notes/plan.md.", "servers": ["files"],
        "now": "2026-04-13T09:00:00+08:00", "reference": [LOOK, NOTE],
        "reference_answer": "Saved to notes/plan.md.", "spec": {"checkpoints": checkpoints}, **extra})


def _check(task: Task) -> Any:
    return anyio.run(check_references, bundled_servers(), [task])[0]


def test_a_state_check_catches_a_dropped_write_and_a_changed_content() -> None:
    result = _check(_task([STATE, ANSWER]))
    assert result.passed, result.reason
    d = result.discrimination
    assert (d.drops, d.drops_caught) == (1, 1)  # the write; the listing is not necessary
    assert d.catches_changes and d.changes >= 2  # content and path of the write change the state
    assert any("drop step 0" in m for m in d.optional)  # the discovery call may be skipped
    assert d.missed == []


def test_a_spec_that_ignores_the_resulting_state_misses_the_dropped_write() -> None:
    result = _check(_task([ANSWER]))
    assert result.passed
    assert "drop step 1 (files__write_file)" in result.discrimination.missed


def test_lint_rejects_members_that_can_never_match_and_foreign_minefields() -> None:
    never = {"id": "c", "kind": "tool_effect", "tools": ["files__write_file"], "must_include": {"filename": "x"},
             "members": [{"tool": "files__no_such_tool"}]}
    task = Task.model_validate({**_task([STATE]).model_dump(mode="json"), "spec": {
        "checkpoints": [STATE, never], "minefields": [{"tools": ["mail__delete_message"]}]}})
    assert static_problems(task) == ["minefield 0 names 'mail__delete_message', on a server the task does not offer"]
    result = _check(task)
    assert not result.passed
    assert any("can never match: it has no parameter 'filename'" in p for p in result.lint)
    assert any("'files__no_such_tool' is not offered" in p for p in result.lint)


def test_task_counts_name_tasks_without_answer_or_state_checks() -> None:
    effect_only = {"id": "c", "kind": "tool_effect", "tools": ["files__write_file"]}
    tasks = [_task([STATE]), _task([ANSWER], id="a"), _task([effect_only], id="call-only")]
    counts = task_counts(tasks, bundled_servers())
    assert (counts["answer_checked"], counts["state_checked"]) == (1, 1)
    assert counts["neither_answer_nor_state"] == 1 and counts["neither_ids"] == ["call-only"]


def test_invalid_regex_is_a_load_error() -> None:
    with pytest.raises(ValueError, match="invalid regex"):
        _task([{"id": "c", "kind": "tool_effect", "tools": ["files__write_file"],
                 "must_match": {"path": {"regex": "("}}}])


def test_a_free_text_field_the_spec_does_not_name_is_not_a_checked_argument() -> None:
    send = {"tool": "mail__send_message", "args": {"to": ["grace@ledgerly.example"], "subject": "Invoice",
                                                   "body": "We will pay INV-2291 (3,150.00 GBP) on Friday."}}
    sent = {"id": "sent", "kind": "state", "path": "mail/outbox.json", "json_path": "$[*]",
            "where": {"to": {"contains": "grace@ledgerly.example"}},
            "match": {"body": {"facts": [{"label": "INV-2291", "value": 3150}]}}}
    task = Task.model_validate({
        "id": "pay", "prompt": "Tell Grace we pay INV-2291 on Friday.", "servers": ["mail"],
        "now": "2026-04-13T09:00:00+08:00", "reference": [send], "reference_answer": "Sent.",
        "spec": {"checkpoints": [sent]}})
    d = _check(task).discrimination
    assert d.missed == [], d.missed
    assert (d.drops, d.drops_caught) == (1, 1)
    assert any("'subject'" in m for m in d.optional)          # the spec says nothing about the subject
    assert not any("'body'" in m or "'to'" in m for m in d.optional)  # both carry what the spec checks
    assert d.changes == d.changes_caught == 2
