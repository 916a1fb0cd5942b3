"""The schema diff reports exactly the Table 10 patterns for hand-made tool-list pairs."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcptrials.evolve.changes import ChangeKind
from mcptrials.evolve.diff import (
    ToolListError,
    diff_main,
    diff_tool_lists,
    load_tool_list,
    normalize_tool_list,
    render_diff,
)
from mcptrials.evolve.patterns import ALIASES, PATTERNS

BASE: list[dict[str, Any]] = [
    {
        "name": "search_notes",
        "description": "Search notes by text.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Text to look for."},
                "limit": {"type": "integer", "description": "Most results to return.", "default": 10,
                          "minimum": 1, "maximum": 100},
                "tag": {"type": "string", "description": "Only notes carrying this tag."},
                "order": {"type": "string", "enum": ["newest", "oldest"], "description": "Sort order."},
            },
            "required": ["query"],
        },
    },
    {
        "name": "get_note",
        "description": "Fetch one note by its id.",
        "inputSchema": {"type": "object", "properties": {"note_id": {"type": "string", "description": "Id."}},
                        "required": ["note_id"]},
    },
    {"name": "list_tags", "description": "List every tag in use.", "inputSchema": {"type": "object",
                                                                                   "properties": {}}},
]

Mutation = Callable[[list[dict[str, Any]]], None]


def tool(tools: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(t for t in tools if t["name"] == name)


def props(tools: list[dict[str, Any]], name: str = "search_notes") -> dict[str, Any]:
    return tool(tools, name)["inputSchema"]["properties"]


def required(tools: list[dict[str, Any]], name: str = "search_notes") -> list[str]:
    return tool(tools, name)["inputSchema"].setdefault("required", [])


def set_desc(name: str, text: str) -> Mutation:
    return lambda ts: tool(ts, name).__setitem__("description", text)


def set_param_desc(param: str, text: str) -> Mutation:
    return lambda ts: props(ts)[param].__setitem__("description", text)


def add_param(param: str, schema: dict[str, Any], is_required: bool = False) -> Mutation:
    def run(ts: list[dict[str, Any]]) -> None:
        props(ts)[param] = schema
        if is_required:
            required(ts).append(param)
    return run


def remove_param(param: str) -> Mutation:
    def run(ts: list[dict[str, Any]]) -> None:
        del props(ts)[param]
        if param in required(ts):
            required(ts).remove(param)
    return run


def set_key(param: str, key: str, value: Any) -> Mutation:
    return lambda ts: props(ts)[param].__setitem__(key, value)


def promote(param: str) -> Mutation:
    return lambda ts: required(ts).append(param)


def demote(param: str) -> Mutation:
    return lambda ts: required(ts).remove(param)


def add_tool(name: str, params: dict[str, Any] | None = None) -> Mutation:
    schema = {"type": "object", "properties": params or {"text": {"type": "string"}}, "required": []}
    return lambda ts: ts.append({"name": name, "description": f"The {name} tool.", "inputSchema": schema})


def remove_tool(name: str) -> Mutation:
    return lambda ts: ts.remove(tool(ts, name))


def rename_tool(old: str, new: str) -> Mutation:
    return lambda ts: tool(ts, old).__setitem__("name", new)


def both(*mutations: Mutation) -> Mutation:
    def run(ts: list[dict[str, Any]]) -> None:
        for m in mutations:
            m(ts)
    return run


OPTIONAL_SORT = {"type": "string", "description": "Field to sort by."}

CASES: list[tuple[str, Mutation, set[str]]] = [
    ("P1 tool description", set_desc("search_notes", "Full-text search over all notes."), {"P1"}),
    ("P2 tool added", add_tool("archive_note"), {"P2"}),
    ("P3 param description", set_param_desc("query", "Words that must appear in the note."), {"P3"}),
    ("P4 optional param added", add_param("sort", OPTIONAL_SORT), {"P4"}),
    ("P5 tool renamed", rename_tool("get_note", "fetch_note"), {"P5"}),
    ("P5 tool replaced by a richer one",
     both(remove_tool("get_note"), add_tool("get_note_v2", {"note_id": {"type": "string"},
                                                            "with_history": {"type": "boolean"}})), {"P5"}),
    ("P6 tool description + optional param",
     both(set_desc("search_notes", "Search notes; can sort."), add_param("sort", OPTIONAL_SORT)),
     {"P6", "P16"}),
    ("P7 tool + param descriptions",
     both(set_desc("search_notes", "Search all notes."), set_param_desc("tag", "A tag name.")), {"P7"}),
    ("P8 range tightened", set_key("limit", "maximum", 50), {"P8"}),
    ("P8 enum widened", set_key("order", "enum", ["newest", "oldest", "relevance"]), {"P8"}),
    ("P8 type changed", set_key("limit", "type", "string"), {"P8"}),
    ("P8 pattern added", set_key("tag", "pattern", "^[a-z]+$"), {"P8"}),
    ("P9 constraint + param description",
     both(set_key("limit", "maximum", 50), set_param_desc("limit", "At most 50 results.")), {"P9"}),
    ("P10 required param added", add_param("folder", {"type": "string"}, is_required=True), {"P10"}),
    ("P11 optional param removed", remove_param("tag"), {"P11"}),
    ("P12 optional param + other param description",
     both(add_param("sort", OPTIONAL_SORT), set_param_desc("query", "Search words.")), {"P12"}),
    ("P13 param promoted", promote("tag"), {"P13"}),
    ("P13 param demoted", demote("query"), {"P13"}),
    ("P14 required param removed", remove_param("query"), {"P14"}),
    ("P15 optional param removed + remaining description",
     both(remove_param("tag"), set_param_desc("query", "Search words.")), {"P15"}),
    ("P16 same definition as P6",
     both(set_desc("get_note", "Fetch a note."),
          lambda ts: props(ts, "get_note").__setitem__("fields", {"type": "array"})), {"P6", "P16"}),
    ("P17 tool removed", remove_tool("list_tags"), {"P17"}),
    ("P18 tool added + other tool description",
     both(add_tool("archive_note"), set_desc("get_note", "Fetch one note; see archive_note.")), {"P18"}),
    # combinations and non-pattern changes
    ("unrelated add + remove stay apart",
     both(remove_tool("list_tags"), add_tool("export_all", {"format": {"type": "string"}})), {"P2", "P17"}),
    ("tool desc + param desc + constraint",
     both(set_desc("search_notes", "Find notes."), set_param_desc("limit", "Cap."),
          set_key("limit", "minimum", 5)),
     {"P7", "P9"}),
    ("two atomic changes on one tool", both(promote("tag"), add_param("folder", {"type": "string"}, True)),
     {"P10", "P13"}),
    ("default change names no pattern", set_key("limit", "default", 20), set()),
    ("whitespace-only description edit is no change",
     set_desc("get_note", "Fetch one  note by its id. "), set()),
]


@pytest.mark.parametrize(("name", "mutation", "expected"), CASES, ids=[c[0] for c in CASES])
def test_diff_reports_exactly_the_expected_patterns(
    name: str, mutation: Mutation, expected: set[str]
) -> None:
    new = copy.deepcopy(BASE)
    mutation(new)
    report = diff_tool_lists(BASE, new)
    assert set(report.patterns) == expected
    assert report.patterns == sorted(report.patterns, key=lambda p: int(p[1:]))


def test_every_pattern_has_a_case() -> None:
    covered = {pid for _, _, expected in CASES for pid in expected}
    assert covered == set(PATTERNS)
    assert ALIASES == {"P16": "P6"}


def test_identical_lists_report_no_change() -> None:
    report = diff_tool_lists(BASE, copy.deepcopy(BASE))
    assert not report.changed
    assert report.patterns == [] and report.tools == []


def test_default_change_is_listed_as_unclassified() -> None:
    new = copy.deepcopy(BASE)
    set_key("limit", "default", 20)(new)
    report = diff_tool_lists(BASE, new)
    assert report.changed
    assert [c.kind for c in report.unclassified] == [ChangeKind.PARAM_DEFAULT_CHANGED]


def test_change_details_name_tool_param_and_direction() -> None:
    new = copy.deepcopy(BASE)
    both(set_key("limit", "maximum", 50), set_key("order", "enum", ["newest"]))(new)
    (diff,) = diff_tool_lists(BASE, new).tools
    by_param = {c.param: c for c in diff.changes}
    assert by_param["limit"].kind is ChangeKind.PARAM_CONSTRAINT_CHANGED
    limit = by_param["limit"]
    assert (limit.old, limit.new, limit.direction) == (100, 50, "tightened")
    assert by_param["order"].direction == "tightened"


def test_p18_labels_the_added_and_the_redescribed_tool() -> None:
    new = copy.deepcopy(BASE)
    both(add_tool("archive_note"), set_desc("get_note", "Fetch a note."), set_key("limit", "maximum", 5))(new)
    report = diff_tool_lists(BASE, new)
    per_tool = {t.tool: t.patterns for t in report.tools}
    assert per_tool == {"archive_note": ["P18"], "get_note": ["P18"], "search_notes": ["P8"]}


def test_replacement_keeps_the_old_name_and_inner_changes() -> None:
    new = copy.deepcopy(BASE)
    both(rename_tool("get_note", "fetch_note"), set_desc("fetch_note", "Read a note."))(new)
    (diff,) = diff_tool_lists(BASE, new).tools
    assert (diff.status, diff.old_name, diff.tool) == ("replaced", "get_note", "fetch_note")
    assert diff.patterns == ["P5"]
    assert ChangeKind.TOOL_DESC_CHANGED in diff.kinds()


def test_replacement_hints_and_disabled_detection() -> None:
    new = copy.deepcopy(BASE)
    both(remove_tool("list_tags"), add_tool("tags_overview", {}))(new)
    assert set(diff_tool_lists(BASE, new).patterns) == {"P2", "P17"}
    hinted = diff_tool_lists(BASE, new, replacements={"list_tags": "tags_overview"})
    assert hinted.patterns == ["P5"]
    renamed = copy.deepcopy(BASE)
    rename_tool("get_note", "fetch_note")(renamed)
    assert diff_tool_lists(BASE, renamed, detect_replacements=False).patterns == ["P2", "P17"]
    with pytest.raises(ValueError, match="does not name a removed and an added tool"):
        diff_tool_lists(BASE, new, replacements={"get_note": "tags_overview"})


def test_optional_via_anyof_null_is_not_a_type_change() -> None:
    old = [{"name": "t", "inputSchema": {"type": "object", "properties": {
        "x": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}}}}]
    new = copy.deepcopy(old)
    new[0]["inputSchema"]["properties"]["x"]["anyOf"] = [{"type": "null"}, {"type": "integer"}]
    assert not diff_tool_lists(old, new).changed
    new[0]["inputSchema"]["properties"]["x"] = {"type": "integer", "default": None}
    report = diff_tool_lists(old, new)
    assert [c.kind for c in report.all_changes()] == [ChangeKind.PARAM_TYPE_CHANGED]
    assert report.all_changes()[0].direction == "tightened"


def test_accepts_wire_object_bare_list_and_snake_case() -> None:
    snake = [{"name": t["name"], "description": t["description"], "input_schema": t["inputSchema"]}
             for t in BASE]
    assert not diff_tool_lists({"tools": BASE}, snake).changed
    assert normalize_tool_list([{"name": "bare"}])[0]["inputSchema"] == {"type": "object", "properties": {}}


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("payload", "message"), [
    ({"items": []}, "expected a list of tools or an object with a 'tools' key"),
    ({"tools": {"a": 1}}, "'tools' must be a list"),
    ([{"description": "no name"}], "tool #0: missing a non-empty string 'name'"),
    (["just a string"], "tool #0: expected an object"),
    ([{"name": "a"}, {"name": "a"}], "tool name 'a' appears more than once"),
    ([{"name": "a", "inputSchema": []}], "'inputSchema' must be an object"),
    ([{"name": "a", "inputSchema": {"properties": {"x": 3}}}], "must map parameter names to schemas"),
    ([{"name": "a", "inputSchema": {"required": "x"}}], "'inputSchema.required' must be a list"),
    ([{"name": "a", "description": 7}], "'description' must be a string"),
])
def test_bad_shapes_are_named(tmp_path: Path, payload: Any, message: str) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(payload))
    with pytest.raises(ToolListError, match=r"tools\.json") as info:
        load_tool_list(path)
    assert message in str(info.value)


def test_bad_json_and_missing_file_are_named(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"tools": [\n  {"name": "a",}\n]}')
    with pytest.raises(ToolListError, match=r"broken\.json: invalid JSON at line 2"):
        load_tool_list(broken)
    with pytest.raises(ToolListError, match=r"nope\.json: no such file"):
        load_tool_list(tmp_path / "nope.json")


# --------------------------------------------------------------------------- rendering and the CLI entry


def write(path: Path, tools: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"tools": tools}))
    return path


def test_diff_main_exit_codes_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path / "old.json", BASE)
    new_tools = copy.deepcopy(BASE)
    both(add_tool("archive_note"), remove_param("tag"))(new_tools)
    new = write(tmp_path / "new.json", new_tools)
    assert diff_main(old, old, "json") == 0
    assert json.loads(capsys.readouterr().out)["tools"] == []
    assert diff_main(old, new, "json") == 1
    data = json.loads(capsys.readouterr().out)
    assert data["patterns"] == ["P2", "P11"]
    assert diff_main(old, new, "table") == 1
    out = capsys.readouterr().out
    assert "archive_note" in out and "P11" in out
    (tmp_path / "bad.json").write_text("not json")
    assert diff_main(old, tmp_path / "bad.json", "table") == 2
    assert "bad.json: invalid JSON" in capsys.readouterr().err
    assert diff_main(old, new, "yaml") == 2


def test_render_table_and_json() -> None:
    new = copy.deepcopy(BASE)
    set_key("limit", "maximum", 50)(new)
    report = diff_tool_lists(BASE, new)
    text = render_diff(report, "table")
    assert "param constraint changed" in text and "[maximum]" in text and "Patterns: P8" in text
    assert json.loads(render_diff(report, "json"))["patterns"] == ["P8"]
    assert "No changes" in render_diff(diff_tool_lists(BASE, BASE))
    with pytest.raises(ValueError, match="unknown format"):
        render_diff(report, "xml")
