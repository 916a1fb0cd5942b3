"""Plans load with clear errors, chain through parents, and map old calls onto new interfaces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcptrials.evolve.mapping import ToolRemovedError
from mcptrials.evolve.plan import PlanChain, PlanError, dump_plan, load_plan, load_plan_chain, parse_plan

TIME_PLANS = Path(__file__).parent / "plans" / "time"


def plan(*ops: dict[str, Any], version: str = "v1", **extra: Any) -> Any:
    return parse_plan({"version": version, "operations": list(ops), **extra})


# --------------------------------------------------------------------------- loading and validation


@pytest.mark.parametrize(("data", "fragments"), [
    ({"operations": [{"op": "describe_tool", "operator": "O9", "tool": "t", "description": "d"}]},
     ["version: Field required"]),
    ({"version": "v1", "operations": []}, ["operations: List should have at least 1 item"]),
    ({"version": "v1", "operations": [{"op": "explode", "operator": "O1"}]},
     ["operations[0]: Input tag 'explode' found using 'op' does not match any of the expected tags"]),
    ({"version": "v1", "operations": [{"op": "describe_tool", "operator": "O5", "tool": "t", "description": "d"}]},
     ["a describe_tool operation cannot carry O5 Flexible Expansion; it fits O11, O2, O3, O4, O8, O9"]),
    ({"version": "v1", "operations": [{"op": "describe_tool", "operator": "O42", "tool": "t", "description": "d"}]},
     ["unknown operator 'O42'"]),
    ({"version": "v1", "operations": [{"op": "rename_tool", "operator": "O2", "tool": "t"}]},
     ["operations[0].rename_tool.new_name: Field required"]),
    ({"version": "v1", "operations": [{"op": "add_tool", "operator": "O1", "name": "n", "description": "d"}]},
     ["needs exactly one of alias_of or steps"]),
    ({"version": "v1", "operations": [{"op": "add_param", "operator": "O8", "tool": "t", "param": "p",
                                       "schema": {"type": "string"}, "required": True, "forward_to": "q"}]},
     ["a required new parameter needs a 'default'"]),
    ({"version": "v1", "operations": [{"op": "add_param", "operator": "O5", "tool": "t", "param": "p",
                                       "schema": {"type": "string"}}]},
     ["operations[0].add_param: add_param 'p' on 't' has no behaviour: give 'forward_to'"]),
    ({"version": "v1", "operations": [{"op": "add_param", "operator": "O5", "tool": "t", "param": "p",
                                       "schema": {"type": "string"}, "forward_to": "p"}]},
     ["add_param 'p' cannot forward to itself"]),
    ({"version": "v1", "operations": [{"op": "constrain_param", "operator": "O6", "tool": "t", "param": "p",
                                       "set": {"description": "x"}}]},
     ["unsupported keyword(s) ['description']"]),
    ({"version": "v1", "operations": [{"op": "merge_tools", "operator": "O2", "tools": ["a", "b"],
                                       "new_name": "c", "description": "d", "values": {"x": "a"}}]},
     ["values must map one selector value to each merged tool"]),
    ({"version": "v1", "colour": "red", "operations": [
        {"op": "describe_tool", "operator": "O9", "tool": "t", "description": "d", "typo": 1}]},
     ["colour: Extra inputs are not permitted", "operations[0].describe_tool.typo: Extra inputs"]),
])
def test_invalid_plans_name_each_problem(tmp_path: Path, data: dict[str, Any], fragments: list[str]) -> None:
    import yaml

    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(PlanError) as info:
        load_plan(path)
    message = str(info.value)
    assert message.startswith(f"{path}: invalid evolution plan")
    for fragment in fragments:
        assert fragment in message


def test_unreadable_plan_files(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="no such plan file"):
        load_plan(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: [unclosed\n")
    with pytest.raises(PlanError, match=r"bad\.yaml: invalid YAML"):
        load_plan(bad)
    bad.write_text("- just\n- a list\n")
    with pytest.raises(PlanError, match="a plan must be a mapping"):
        load_plan(bad)


def test_json_plans_and_yaml_round_trip(tmp_path: Path) -> None:
    original = load_plan(TIME_PLANS / "round3.yaml")
    again = tmp_path / "again.yaml"
    again.write_text(dump_plan(original))
    assert load_plan(again) == original
    assert dump_plan(original).startswith("version: v3\n")
    as_json = tmp_path / "p.json"
    as_json.write_text('{"version": "v9", "operations": [{"op": "describe_tool", "operator": "O9", '
                       '"tool": "t", "description": "d"}]}')
    assert load_plan(as_json).operators == ["O9"]


def test_chain_follows_parents_once_and_in_order() -> None:
    chain = load_plan_chain([TIME_PLANS / "round3.yaml"])
    assert chain.versions == ["v1", "v2", "v3"]
    same = load_plan_chain([TIME_PLANS / f"round{i}.yaml" for i in (1, 2, 3)])
    assert same.versions == ["v1", "v2", "v3"]
    assert chain.server == "time"
    assert chain.operators_applied() == {"v1": ["O6"], "v2": ["O2"], "v3": ["O3"]}
    assert chain.upto("v2").versions == ["v1", "v2"]
    with pytest.raises(PlanError, match="no plan produces version 'v7'"):
        chain.upto("v7")


def test_chain_rejects_cycles_duplicates_and_mixed_servers(tmp_path: Path) -> None:
    op = "operations: [{op: describe_tool, operator: O9, tool: t, description: d}]\n"
    (tmp_path / "a.yaml").write_text("version: va\nparent: b.yaml\n" + op)
    (tmp_path / "b.yaml").write_text("version: vb\nparent: a.yaml\n" + op)
    with pytest.raises(PlanError, match="plan parents form a cycle"):
        load_plan_chain([tmp_path / "a.yaml"])
    one = plan({"op": "describe_tool", "operator": "O9", "tool": "t", "description": "d"})
    with pytest.raises(PlanError, match="distinct version labels"):
        PlanChain([one, one])
    other = plan({"op": "describe_tool", "operator": "O9", "tool": "t", "description": "d"}, version="v2",
                 server="x")
    with pytest.raises(PlanError, match="evolves one server"):
        PlanChain([plan({"op": "describe_tool", "operator": "O9", "tool": "t", "description": "d"},
                        server="y"), other])


# --------------------------------------------------------------------------- mapping old calls


def test_time_chain_rewrites_reference_calls_and_equivalence_sets() -> None:
    chain = load_plan_chain([TIME_PLANS / "round3.yaml"])
    assert chain.rewrite_call("time__get_current_time", {"timezone": "UTC"}) == ("time__now", {"tz": "UTC"})
    call = {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
    assert chain.rewrite_call("time__convert_time", call) == ("time__now", {**call, "mode": "convert"})
    assert chain.upto("v2").rewrite_call("convert_time", call) == ("convert_time", call)
    assert chain.rewrite_tool_names(["time__get_current_time", "time__convert_time", "other__tool"]) == [
        "time__now", "other__tool"]
    assert chain.rewrite_call("other__get_current_time", {"timezone": "x"}) == (
        "other__get_current_time", {"timezone": "x"})
    mapping = chain.tool_mapping()
    assert list(mapping) == ["convert_time", "get_current_time"]
    assert mapping["convert_time"].targets[0].fixed_args == {"mode": "convert"}
    assert chain.replacements() == {"get_current_time": "now"}


def test_mapping_composes_renames_drops_fills_and_coercions() -> None:
    chain = PlanChain([
        plan({"op": "rename_param", "operator": "O8", "tool": "search", "param": "q", "new_name": "query"},
             {"op": "remove_param", "operator": "O7", "tool": "search", "param": "page"}),
        plan({"op": "rename_tool", "operator": "O2", "tool": "search", "new_name": "find",
              "param_renames": {"query": "text"}},
             {"op": "add_param", "operator": "O8", "tool": "find", "param": "scope", "schema": {"type": "string"},
              "required": True, "default": "all", "forward_to": "year"},
             {"op": "set_required", "operator": "O6", "tool": "find", "param": "limit", "required": True,
              "fill": 10},
             {"op": "constrain_param", "operator": "O6", "tool": "find", "param": "year",
              "set": {"type": "string"}}, version="v2"),
    ])
    tool, args = chain.rewrite_call("search", {"q": "cats", "page": 2, "year": 2020})
    assert tool == "find"
    assert args == {"text": "cats", "year": "2020", "scope": "all", "limit": 10}
    assert chain.rewrite_call("search", {"q": "x", "limit": 3})[1]["limit"] == 3
    target = chain.tool_mapping(["search"])["search"].targets[0]
    assert target.arg_renames == {"q": "text"} and target.dropped_args == ["page"]


def test_mapping_of_removed_merged_and_aliased_tools() -> None:
    chain = PlanChain([plan(
        {"op": "remove_tool", "operator": "O3", "tool": "old"},
        {"op": "merge_tools", "operator": "O2", "tools": ["read", "stat"], "new_name": "file",
         "description": "d", "values": {"r": "read", "s": "stat"}, "arg_maps": {"stat": {"path": "target"}}},
        {"op": "add_tool", "operator": "O1", "name": "cat", "description": "d", "alias_of": "echo"},
    )])
    with pytest.raises(ToolRemovedError, match="'old' is gone in version v1"):
        chain.rewrite_call("old", {})
    assert chain.rewrite_tool_names(["old"]) == []
    assert chain.rewrite_call("stat", {"path": "/x"}) == ("file", {"target": "/x", "action": "s"})
    assert chain.rewrite_call("read", {"path": "/x"}) == ("file", {"path": "/x", "action": "r"})
    assert chain.rewrite_tool_names(["echo"]) == ["echo", "cat"]
    keep = PlanChain([plan({"op": "merge_tools", "operator": "O4", "tools": ["a", "b"], "new_name": "ab",
                            "description": "d", "keep_originals": True})])
    assert keep.rewrite_tool_names(["a"]) == ["a", "ab"]
    assert keep.rewrite_call("b", {}) == ("b", {})
