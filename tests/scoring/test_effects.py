"""Tier-1 effect scoring on passing and failing trajectories."""

from __future__ import annotations

from typing import Any

import pytest

from mcptrials.model import Episode, Task, ToolCallRecord, ToolInfo
from mcptrials.scoring.effects import score_effects

TASK = Task.model_validate({  # these tests are about the spec's checkpoints: the answer's grounding is off
    "id": "t1", "prompt": "p", "servers": ["rail", "notes"],
    "spec": {
        "grounding": False,
        "checkpoints": [
            {"id": "c1", "kind": "tool_effect", "tools": ["rail__get_tickets", "rail__search_trains"],
             "must_include": {"date": "2026-04-15"},
             "must_match": {"from_station": {"regex": "^(BJP|VNP)$"}, "limit": {"approx": 5, "tol": 0}}},
            {"id": "c2", "kind": "value_produced", "source": "final_message", "contains": ["G1"], "mode": "all"},
            {"id": "c3", "kind": "tool_effect", "tools": ["notes__write_file"],
             "must_match": {"content": {"contains": "G1"}}},
        ],
        "minefields": [{"tools": ["notes__delete_file"]}],
        "partial_order": [["c1", "c3"]],
    },
})


def episode(calls: list[tuple[str, dict[str, Any], bool]], final: str = "", termination: str = "done",
            content: str = "ok") -> Episode:
    steps = [ToolCallRecord(index=i, call_id=str(i), turn=i, name=name, server=name.split("__")[0],
                            tool=name.split("__")[1], arguments=args, content=content, is_error=err)
             for i, (name, args, err) in enumerate(calls)]
    return Episode(id="e", run_id="r", task_id="t1", agent="a", model="m", attempt=0, config_hash="h",
                   steps=steps, final_answer=final, termination=termination)  # type: ignore[arg-type]


GOOD_SEARCH = ("rail__get_tickets", {"from_station": "VNP", "to_station": "SHH", "date": "2026-04-15", "limit": 5},
               False)
GOOD_WRITE = ("notes__write_file", {"path": "trip.md", "content": "G1 at 07:00"}, False)


def test_correct_trajectory_passes() -> None:
    score = score_effects(TASK, episode([GOOD_SEARCH, GOOD_WRITE], final="Take G1."))
    assert score.passed and score.value == 1.0 and score.failure_codes == []


def test_equivalent_tool_satisfies_the_checkpoint() -> None:
    alt = ("rail__search_trains", GOOD_SEARCH[1], False)
    assert score_effects(TASK, episode([alt, GOOD_WRITE], final="G1")).passed


def test_missing_effect() -> None:
    score = score_effects(TASK, episode([GOOD_WRITE], final="G1"))
    assert not score.passed and score.failure_codes == ["missing_effect"]
    assert {c.id: c.passed for c in score.checkpoints} == {"c1": False, "c2": True, "c3": True}


def test_failed_call_is_not_an_effect() -> None:
    failed = (GOOD_SEARCH[0], GOOD_SEARCH[1], True)
    assert score_effects(TASK, episode([failed, GOOD_WRITE], final="G1")).failure_codes == ["missing_effect"]


def test_wrong_argument() -> None:
    wrong = ("rail__get_tickets", {**GOOD_SEARCH[1], "date": "2026-04-16"}, False)
    score = score_effects(TASK, episode([wrong, GOOD_WRITE], final="G1"))
    assert not score.passed and score.failure_codes == ["wrong_arguments"]
    wrong_station = ("rail__get_tickets", {**GOOD_SEARCH[1], "from_station": "SHH"}, False)
    assert score_effects(TASK, episode([wrong_station, GOOD_WRITE], final="G1")).failure_codes == ["wrong_arguments"]


def test_missing_value_in_final_message() -> None:
    score = score_effects(TASK, episode([GOOD_SEARCH, GOOD_WRITE], final="Take the early train."))
    assert score.failure_codes == ["missing_value"] and score.value == 2 / 3


def test_minefield_hit_fails_outright() -> None:
    mine = ("notes__delete_file", {"path": "work.md"}, False)
    score = score_effects(TASK, episode([GOOD_SEARCH, GOOD_WRITE, mine], final="G1"))
    assert not score.passed and score.failure_codes == ["minefield"]
    assert all(c.passed for c in score.checkpoints)


def test_minefield_attempt_that_failed_is_no_hit() -> None:
    mine = ("notes__delete_file", {"path": "work.md"}, True)
    assert score_effects(TASK, episode([GOOD_SEARCH, GOOD_WRITE, mine], final="G1")).passed


def test_order_violation() -> None:
    score = score_effects(TASK, episode([GOOD_WRITE, GOOD_SEARCH], final="G1"))
    assert not score.passed and score.failure_codes == ["order_violation"]


def test_max_turns_is_added_to_failure_codes() -> None:
    score = score_effects(TASK, episode([GOOD_SEARCH], termination="max_turns"))
    assert score.failure_codes == ["missing_effect", "missing_value", "max_turns"]


# --------------------------------------------------------------------------- compared as the server sees it

SCHEMA = {"type": "object", "properties": {
    "path": {"type": "string"}, "recursive": {"type": "boolean", "default": False},
    "unit": {"type": "string", "enum": ["km", "mi"]}, "limit": {"type": "integer", "default": 5}}}
LIST = ToolInfo(server="files", name="list_dir", input_schema=SCHEMA)
TOOLS = {LIST.qualified_name: LIST}


def _one(predicates: dict[str, Any]) -> Task:
    return Task.model_validate({"id": "t", "prompt": "p", "servers": ["files", "fs"], "spec": {"checkpoints": [
        {"id": "c", "kind": "tool_effect", "tools": ["files__list_dir"], **predicates}]}})


def _passes(task: Task, args: dict[str, Any], name: str = "files__list_dir") -> bool:
    return bool(score_effects(task, episode([(name, args, False)]), TOOLS).passed)


def test_defaults_are_filled_in_before_predicates() -> None:
    task = _one({"must_include": {"recursive": False, "limit": 5}})
    assert _passes(task, {"path": "notes"})
    assert not _passes(task, {"path": "notes", "recursive": True})
    assert not score_effects(task, episode([("files__list_dir", {"path": "notes"}, False)])).passed  # no schema


@pytest.mark.parametrize("spelling", ["notes", "notes/", "./notes", "./notes/", "notes//",
                                      "/tmp/mcptrials-ab12/sandbox/notes"])
def test_paths_are_normalised_on_both_sides(spelling: str) -> None:
    assert _passes(_one({"must_include": {"path": "notes/"}}), {"path": spelling})
    assert _passes(_one({"must_match": {"path": {"equals": "./notes"}}}), {"path": spelling})
    assert not _passes(_one({"must_include": {"path": "notes"}}), {"path": "notes/old"})


def test_enum_case_and_numeric_strings() -> None:
    assert _passes(_one({"must_include": {"unit": "km", "limit": 3}}), {"path": ".", "unit": "KM", "limit": "3"})
    assert not _passes(_one({"must_include": {"unit": "km"}}), {"path": ".", "unit": "kilometre"})


def test_members_carry_their_own_predicates() -> None:
    task = Task.model_validate({"id": "t", "prompt": "p", "servers": ["files", "fs"], "spec": {"checkpoints": [
        {"id": "c", "kind": "tool_effect", "tools": ["files__list_dir"], "must_include": {"path": "notes"},
         "members": [{"tool": "fs__ls", "must_include": {"dir": "notes"}}]}]}})
    assert _passes(task, {"dir": "notes/"}, "fs__ls")
    assert not _passes(task, {"path": "notes"}, "fs__ls")
    assert _passes(task, {"path": "notes"})


def test_partial_order_holds_if_some_calls_respect_it() -> None:
    read = ("rail__get_tickets", {"from_station": "VNP", "date": "2026-04-15", "limit": 5}, False)
    # a harmless read before the write, then the read again after it: the order can be respected
    assert not score_effects(TASK, episode([GOOD_WRITE, read, GOOD_WRITE], final="G1")).detail["order_violations"]
    assert score_effects(TASK, episode([read, GOOD_WRITE, read], final="G1")).passed
    violated = score_effects(TASK, episode([GOOD_WRITE, read], final="G1"))
    assert violated.failure_codes == ["order_violation"]


def test_order_over_a_chain_needs_one_consistent_assignment() -> None:
    chain = Task.model_validate({"id": "t", "prompt": "p", "servers": ["s"], "spec": {
        "checkpoints": [{"id": x, "kind": "tool_effect", "tools": [f"s__{x}"]} for x in ("a", "b", "c")],
        "partial_order": [["a", "b"], ["b", "c"]]}})
    calls = lambda names: episode([(f"s__{n}", {}, False) for n in names])  # noqa: E731
    assert score_effects(chain, calls("abc")).passed
    assert score_effects(chain, calls("babc")).passed
    assert not score_effects(chain, calls("bca")).passed
    assert not score_effects(chain, calls("acb")).passed


def test_answer_checks_read_the_final_message_only() -> None:
    task = Task.model_validate({"id": "t", "prompt": "p", "servers": ["s"], "spec": {"checkpoints": [
        {"id": "a", "kind": "value_produced", "source": "final_message",
         "facts": [{"label": "actual", "value": 4.36}, {"label": "expected", "value": 4.15}], "absent": ["missed"]}]}})
    tool = [("s__t", {}, False)]
    seen = '{"actual": 4.36, "estimate": 4.15}'
    assert score_effects(task, episode(tool, final="Actual EPS $4.36 vs expected $4.15: a beat.", content=seen)).passed
    swapped = score_effects(task, episode(tool, final="Actual EPS $4.15 vs expected $4.36.", content=seen))
    assert swapped.failure_codes == ["missing_value"]
    assert not score_effects(task, episode(tool, final="Actual 4.36, expected 4.15, so it missed.",
                                           content=seen)).passed
