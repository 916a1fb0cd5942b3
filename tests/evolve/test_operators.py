"""Each operator accepts a diff that does what it describes and names every rule a diff breaks."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from mcptrials.evolve.diff import diff_tool_lists
from mcptrials.evolve.operators import OPERATORS, PLAN_OPS, Level, get_operator, operators_for_pattern
from mcptrials.evolve.patterns import PATTERNS

OLD: list[dict[str, Any]] = [
    {"name": "read", "description": "Read a file.", "inputSchema": {
        "type": "object", "required": ["path"],
        "properties": {"path": {"type": "string", "description": "File path."},
                       "encoding": {"type": "string", "description": "Text encoding.", "default": "utf-8"},
                       "limit": {"type": "integer", "description": "Bytes to read."}}}},
    {"name": "write", "description": "Write a file.", "inputSchema": {
        "type": "object", "required": ["path", "text"],
        "properties": {"path": {"type": "string", "description": "File path."},
                       "text": {"type": "string", "description": "Content."}}}},
]


def edited(**edits: Any) -> list[dict[str, Any]]:
    """Copy OLD and apply small named edits used across the cases."""
    new = copy.deepcopy(OLD)
    read = new[0]
    props = read["inputSchema"]["properties"]
    if "read_desc" in edits:
        read["description"] = edits["read_desc"]
    if "write_desc" in edits:
        new[1]["description"] = edits["write_desc"]
    if "param_desc" in edits:
        props["path"]["description"] = edits["param_desc"]
    for name in edits.get("add_optional", []):
        props[name] = {"type": "string"}
    for name in edits.get("add_required", []):
        props[name] = {"type": "string"}
        read["inputSchema"]["required"].append(name)
    for name in edits.get("drop", []):
        del props[name]
    if "limit_max" in edits:
        props["limit"]["maximum"] = edits["limit_max"]
    if edits.get("new_tool"):
        schema = {"type": "object", "properties": {"target": {"type": "string"}}}
        new.append({"name": "stat", "description": "File facts.", "inputSchema": schema})
    if edits.get("remove_write"):
        del new[1]
    if edits.get("rename_write"):
        new[1]["name"] = "save"
    return new


GOOD = {
    "O1": edited(new_tool=True),
    "O2": edited(rename_write=True),
    "O3": edited(remove_write=True, read_desc="Read a file, or write it when text is given.",
                 add_optional=["text"]),
    "O4": edited(new_tool=True, read_desc="Read a file's content; use stat for its size."),
    "O5": edited(add_optional=["offset", "mode"]),
    "O6": edited(limit_max=4096, param_desc="Absolute file path."),
    "O7": edited(drop=["limit"]),
    "O8": edited(read_desc="Read a file from an offset.", add_optional=["offset"], drop=["limit"]),
    "O9": edited(read_desc="Return the text of a file."),
    "O10": edited(param_desc="Absolute path of the file."),
    "O11": edited(read_desc="Return the text of a file.", param_desc="Absolute path."),
}


def test_operator_table_is_complete() -> None:
    assert list(OPERATORS) == [f"O{i}" for i in range(1, 12)]
    assert {op.level for op in OPERATORS.values()} == set(Level)
    assert [op.id for op in OPERATORS.values() if op.level is Level.TOOL] == ["O1", "O2", "O3", "O4"]
    covered = set().union(*(op.patterns for op in OPERATORS.values()))
    assert covered == set(PATTERNS)
    for op in OPERATORS.values():
        assert op.plan_ops <= PLAN_OPS and op.may_change and op.may_not_change and op.summary
    assert [op.id for op in operators_for_pattern("P13")] == ["O6"]


@pytest.mark.parametrize("operator_id", list(GOOD))
def test_operator_accepts_its_own_change(operator_id: str) -> None:
    diff = diff_tool_lists(OLD, GOOD[operator_id])
    assert get_operator(operator_id).check(diff) == []
    assert set(diff.patterns) & get_operator(operator_id).patterns or operator_id == "O3"


@pytest.mark.parametrize(("operator_id", "new", "fragment"), [
    ("O1", edited(new_tool=True, read_desc="x"), "O1 Tool Addition may not change a tool description (read)"),
    ("O1", OLD, "expects 1 added tool(s), found 0"),
    ("O2", edited(rename_write=True, read_desc="x"), "changed existing tool(s), found 1 (read)"),
    ("O3", edited(remove_write=True), "expects 1 changed existing tool(s), found 0"),
    ("O3", edited(remove_write=True, read_desc="x", drop=["limit"]), "may not remove an optional parameter"),
    ("O4", edited(new_tool=True), "expects at least one change to an existing tool that does: change a tool"),
    ("O5", edited(add_required=["mode"]), "may not add a required parameter (read.mode)"),
    ("O5", edited(add_optional=["a", "b", "c", "d"]), "touches 4 parameters; at most 3 allowed"),
    ("O6", edited(read_desc="x", limit_max=5), "may not change a tool description"),
    ("O7", edited(drop=["limit"], read_desc="x"), "may not change a tool description"),
    ("O8", edited(add_optional=["offset"]), "expects at least one change to an existing tool that does: "
                                             "change a tool description"),
    ("O8", edited(read_desc="x", limit_max=3), "may not change a parameter constraint (read.limit)"),
    ("O9", edited(read_desc="x", write_desc="y"),
     "expects 1 changed existing tool(s), found 2 (read, write)"),
    ("O10", edited(read_desc="x"), "may not change a tool description"),
    ("O11", edited(read_desc="x"), "does: change a parameter description"),
])
def test_operator_names_each_violation(operator_id: str, new: list[dict[str, Any]], fragment: str) -> None:
    problems = get_operator(operator_id).check(diff_tool_lists(OLD, new))
    assert any(fragment in p for p in problems), problems


def test_unknown_operator_lists_valid_ids() -> None:
    with pytest.raises(ValueError, match="expected one of O1, O2"):
        get_operator("O12")
