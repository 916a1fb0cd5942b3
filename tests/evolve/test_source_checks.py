"""The checks of a round that need no running server: selection, targets, coverage, code shape, prompts."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest

from mcptrials.evolve.diff import diff_tool_lists
from mcptrials.evolve.operators import get_operator
from mcptrials.evolve.source.prompts import load_prompt, render
from mcptrials.evolve.source.script import scripted_round_model
from mcptrials.evolve.source.steps import (
    Selection,
    StepRejected,
    TestCase,
    operator_catalogue,
    select_operator,
    selection_problems,
    summarize_tools,
    write_test_cases,
)
from mcptrials.evolve.source.tree import SourceServer, bundled_source
from mcptrials.evolve.source.validate import (
    classify,
    coverage_problems,
    docs_only_problems,
    started,
    target_problems,
    tightened_tools,
)
from mcptrials.servers.toolbox import Limits

TOOLS: list[dict[str, Any]] = [
    {"name": "convert", "description": "Convert a value.", "inputSchema": {
        "type": "object", "required": ["value"],
        "properties": {"value": {"type": "number", "description": "Amount."},
                       "digits": {"type": "integer", "maximum": 12, "default": 6}}}},
    {"name": "ping", "description": "Check the server.", "inputSchema": {"type": "object", "properties": {}}},
]
SERVER = SourceServer(name="units", root=Path("."), module="units")


def _edited(**changes: Any) -> list[dict[str, Any]]:
    new = copy.deepcopy(TOOLS)
    convert = new[0]
    if "maximum" in changes:
        convert["inputSchema"]["properties"]["digits"]["maximum"] = changes["maximum"]
    if "ping_desc" in changes:
        new[1]["description"] = changes["ping_desc"]
    if "convert_desc" in changes:
        convert["description"] = changes["convert_desc"]
    return new


def test_selection_needs_existing_targets_with_what_the_operator_needs() -> None:
    assert selection_problems(get_operator("O5"), ["convert"], TOOLS) == []
    assert selection_problems(get_operator("O5"), [], TOOLS) == ["O5 Flexible Expansion needs exactly one target "
                                                                 "tool, got 0"]
    assert selection_problems(get_operator("O10"), ["ping"], TOOLS) == [
        "O10 Parameter Description Update needs a target with parameters; 'ping' has none"]
    assert selection_problems(get_operator("O3"), ["ping"], TOOLS[1:]) == [
        "O3 Tool Removal needs at least two tools, so one can absorb the removed one"]
    assert selection_problems(get_operator("O4"), [], TOOLS) == [
        "O4 Tool Integration needs the related tools whose descriptions it retunes"]
    assert selection_problems(get_operator("O9"), ["nope"], TOOLS) == ["target tool 'nope' does not exist"]


@pytest.mark.parametrize(("reply", "operator", "targets"), [
    ({"operator": "5", "target_tool": "convert", "rationale": "r"}, "O5", ["convert"]),
    ({"operator": "Flexible Expansion", "target_tools": ["convert"]}, "O5", ["convert"]),
    ({"operator_id": "o1", "target_tools": ["convert"]}, "O1", []),
    ('Sure!\n```json\n{"operator": "O9 Tool Description Update", "target_tools": ["ping"]}\n```', "O9", ["ping"]),
])
async def test_select_reply_variants(reply: Any, operator: str, targets: list[str]) -> None:
    model = scripted_round_model({"select": reply})
    selection = await select_operator(model, SERVER, TOOLS, None, [])
    assert (selection.operator, selection.target_tools) == (operator, targets)


async def test_select_respects_the_allowed_operators() -> None:
    model = scripted_round_model({"select": {"operator": "O9", "target_tools": ["ping"]}})
    with pytest.raises(StepRejected, match="not among the allowed ones") as info:
        await select_operator(model, SERVER, TOOLS, ["O5"], [])
    assert info.value.step == "select"


def test_target_problems_and_classify() -> None:
    described = diff_tool_lists(TOOLS, _edited(ping_desc="Say whether the server answers."))
    assert target_problems(get_operator("O9"), described, ["ping"]) == []
    assert target_problems(get_operator("O9"), described, ["convert"]) == [
        "O9 Tool Description Update changed ping instead of the target 'convert'"]
    with pytest.raises(StepRejected, match="did not change"):
        classify(get_operator("O9"), TOOLS, TOOLS, ["ping"])
    with pytest.raises(StepRejected, match="instead of the target") as info:
        classify(get_operator("O9"), TOOLS, _edited(ping_desc="Say whether it answers."), ["convert"])
    assert info.value.step == "classify"


def test_tightening_demands_a_refused_call() -> None:
    diff = diff_tool_lists(TOOLS, _edited(maximum=8))
    assert tightened_tools(diff) == {"convert"}
    assert tightened_tools(diff_tool_lists(TOOLS, _edited(maximum=20))) == set()
    ok = TestCase(tool="convert", arguments={"value": 1, "digits": 8}, expect="ok")
    assert coverage_problems([ok], diff, _edited(maximum=8)) == [
        "the release tightened 'convert', but no test case expects it to refuse a call"]
    refused = TestCase(tool="convert", arguments={"value": 1, "digits": 9}, expect="validation_error")
    assert coverage_problems([ok, refused], diff, _edited(maximum=8)) == []


def test_coverage_wants_a_successful_call_per_changed_tool() -> None:
    new = _edited(ping_desc="Answer pong.", convert_desc="Turn a value into another unit.")
    diff = diff_tool_lists(TOOLS, new)
    cases = [TestCase(tool="ping", expect="ok"), TestCase(tool="gone", expect="ok")]
    assert coverage_problems(cases, diff, new) == [
        "test case 'gone' calls 'gone', which the new version does not offer",
        "no test case expects a successful call of the changed tool 'convert'"]


async def test_test_case_replies_in_the_paper_shape_and_broken_ones() -> None:
    reply = {"tool_name": "convert", "test_cases": [
        {"test_name": "max", "tool": "units__convert", "input_arguments": {"value": 1},
         "expected_status": "Validation Error"}]}
    model = scripted_round_model({"tests": reply})
    selection = Selection(operator="O6", target_tools=["convert"])
    [parsed] = await write_test_cases(model, SERVER, selection, "s", "c", TOOLS[:1], TOOLS[:1], 12)
    assert (parsed.name, parsed.tool, parsed.arguments, parsed.expect) == ("max", "convert", {"value": 1},
                                                                          "validation_error")
    for broken, reason in (("All good, no tests needed.", "not JSON"), ({"test_cases": []}, "no list"),
                           ({"test_cases": [{"tool": "convert", "expect": "maybe"}]}, "test case 1: expect")):
        with pytest.raises(StepRejected, match=reason) as info:
            await write_test_cases(scripted_round_model({"tests": broken}), SERVER, selection, "s", "c",
                                   TOOLS, TOOLS, 12)
        assert info.value.step == "test"


OLD_CODE = '''"""Module doc."""
from pydantic import Field


def area(width: float, height: float = 1.0) -> float:
    """Area of a rectangle."""
    return width * height


TOOL = {"name": "area", "description": "Area.", "inputSchema": {"type": "object"}}
'''


@pytest.mark.parametrize(("new_code", "problem"), [
    (OLD_CODE.replace('"""Area of a rectangle."""', '"""Width times height."""')
     .replace('"description": "Area."', '"description": "Rectangle area."'), None),
    (OLD_CODE.replace("height: float = 1.0", 'height: Annotated[float, Field(description="Height.")] = 1.0')
     .replace("from pydantic import Field", "from typing import Annotated\nfrom pydantic import Field"), None),
    (OLD_CODE.replace("return width * height", "return width * height * 2"), "near line 5"),
    (OLD_CODE.replace("height: float = 1.0", "depth: float = 1.0"), "near line 5"),
    (OLD_CODE + "\nEXTRA = 1\n", "near line 12"),
])
def test_docs_only_edits_are_told_apart_from_code_edits(tmp_path: Path, new_code: str, problem: str | None) -> None:
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    (tmp_path / "old" / "m.py").write_text(OLD_CODE, encoding="utf-8")
    (tmp_path / "new" / "m.py").write_text(new_code, encoding="utf-8")
    found = docs_only_problems(tmp_path / "old", tmp_path / "new", ["m.py"])
    if problem is None:
        assert found == []
    else:
        [message] = found
        assert message.startswith("the code of m.py changed outside docstrings and descriptions") and problem in message


def test_prompts_fill_every_slot_and_name_their_steps() -> None:
    with pytest.raises(KeyError, match="unfilled slots"):
        render("select_user", server_name="x")
    text = render("select_user", server_name="units", server_description="d", tool_list=summarize_tools(TOOLS),
                  catalogue=operator_catalogue(["O5"]), feedback="")
    assert "- O5 Flexible Expansion [PARAM]" in text and "O6" not in text
    assert "    - digits (integer, optional, maximum=12, default=6)" in text
    for step in ("select", "apply", "tests"):
        assert load_prompt(f"{step}_system").startswith("# Step ")
    for number in range(1, 12):
        assert load_prompt(f"operators/O{number}").startswith(f"## Operator O{number} ")


async def test_a_tree_that_would_run_the_installed_module_is_refused(tmp_path: Path) -> None:
    empty = SourceServer(name="units", root=tmp_path, module="mcptrials.bundled.servers.units")
    origin = empty.module_origin()
    assert origin is not None and tmp_path.resolve() not in origin.parents  # found outside the tree
    with pytest.raises(StepRejected, match="outside the version's tree") as info:
        async with started(empty, tmp_path, Limits()):
            pass
    assert info.value.step == "start"


def test_a_copied_bundled_server_resolves_inside_its_copy(tmp_path: Path) -> None:
    server = bundled_source("rail", tmp_path / "rail")
    origin = server.module_origin()
    assert origin == (tmp_path / "rail" / "mcptrials" / "bundled" / "servers" / "rail.py").resolve()
    assert (tmp_path / "rail" / "mcptrials" / "bundled" / "data" / "rail.json").is_file()
    assert server.description and server.spec().env["PYTHONPATH"].split(os.pathsep)[0] == str(server.root.resolve())
