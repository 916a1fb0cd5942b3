"""A folder `evolve --mode source` writes is a lineage: run, servers tools, tasks check, refresh and report accept it.

The scripted model writes a real O2 rename into a copy of the bundled ``units`` server's source,
through the real CLI; every later command serves v1 from that rewritten tree and remaps the
task through the plan the round recorded (``served_by: source``), with the code interface
lineages use.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from report_world import cli

from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.evolve.diff import diff_tool_lists
from mcptrials.evolve.plan import PlanChain
from mcptrials.evolve.source.record import round_plan
from mcptrials.evolve.versions import Lineages, VersionError, rewrite_task, versioned_servers

UNITS = "mcptrials/bundled/servers/units.py"


def _rename_script(path: Path) -> Path:
    """O2 on ``convert``: the function (and so the tool) is renamed to ``convert_units``."""
    script = {
        "select": {"operator": "O2", "target_tools": ["convert"], "rationale": "a clearer name"},
        "apply": {"summary": "convert renamed to convert_units", "details": {"old_tool": "convert"},
                  "hunks": [{"file_name": UNITS, "old_code": "def convert(\n", "new_code": "def convert_units(\n",
                             "anchor_code": ""}]},
        "tests": {"test_cases": [
            {"name": "new", "tool": "convert_units", "expect": "ok",
             "arguments": {"value": 1, "from_unit": "mi", "to_unit": "km", "category": "length"}},
            {"name": "old", "tool": "convert", "expect": "validation_error",
             "arguments": {"value": 1, "from_unit": "mi", "to_unit": "km", "category": "length"}}]},
    }
    path.write_text(json.dumps(script))
    return path


@pytest.fixture(scope="module")
def source_lineage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("source-lineage")
    out = root / "units-src"
    done = cli("evolve", "--server", "units", "--mode", "source", "--rounds", "1",
               "--model", f"scripted:{_rename_script(root / 'round.json')}", "--out", str(out))
    assert "O2" in done.stdout, done.stdout
    return out


def test_the_round_is_recorded_as_a_source_plan(source_lineage: Path) -> None:
    plan = yaml.safe_load((source_lineage / "v1" / "plan.yaml").read_text())
    assert plan["served_by"] == "source" and plan["server"] == "units"
    assert plan["operations"] == [{"op": "rename_tool", "operator": "O2", "tool": "convert",
                                   "new_name": "convert_units", "description": plan["operations"][0]["description"]}]
    manifest = json.loads((source_lineage / "v1" / "manifest.json").read_text())
    assert manifest["plan"] == "v1/plan.yaml" and manifest["entry"]["runtime"] == "python"
    assert "def convert_units(" in (source_lineage / "v1" / "tree" / UNITS).read_text()


@pytest.mark.slow
def test_servers_tools_stage_serves_the_rewritten_tree(source_lineage: Path, tmp_path: Path) -> None:
    listed = tmp_path / "v1.json"
    cli("servers", "tools", "units", "--stage", "v1", "--lineages", str(source_lineage), "--out", str(listed))
    names = {t["name"] for t in json.loads(listed.read_text())["tools"]}
    assert names == {t["name"] for t in json.loads((source_lineage / "v1" / "tools.json").read_text())}
    assert "convert_units" in names and "convert" not in names


@pytest.mark.slow
def test_tasks_check_run_refresh_and_report_accept_a_source_lineage(source_lineage: Path, tmp_path: Path) -> None:
    lineage = str(source_lineage)
    checked = cli("tasks", "check", "--stages", "v0,v1", "--lineages", lineage, "--task", "unit-001")
    assert "v1: reference plans passing their own spec: 1/1" in checked.stdout, checked.stdout
    db = tmp_path / "r.db"
    cli("run", "--agent", "reference", "--stages", "v0,v1", "--lineages", lineage, "--task", "unit-001",
        "--db", str(db))
    from mcptrials.store.db import Store

    episodes = {e.version: e for e in Store(db).episodes()}
    assert set(episodes) == {"v0", "v1"}
    assert "units__convert_units" in episodes["v1"].offered_tools
    assert "units__convert" in episodes["v0"].offered_tools
    assert episodes["v1"].tool_calls[0].name == "units__convert_units"  # the remapped reference call
    report = json.loads(cli("report", "--db", str(db), "--lineages", lineage, "--format", "json").stdout)
    assert {e["version"]: e["outcome"] for e in report["episodes"]} == {"v0": "passed", "v1": "passed"}
    # refresh plays the task as written: its call of the renamed tool breaks on v1 (exit 1), served from the tree
    broken = cli("refresh", "--stage", "v1", "--lineages", lineage, "--task", "unit-001", "--db",
                 str(tmp_path / "refresh.db"), "--format", "json", check=False)
    assert broken.returncode == 1, broken.stderr
    assert json.loads(broken.stdout)["counts"]["broken"] == 1


def test_tasks_are_remapped_through_the_recorded_plan(source_lineage: Path) -> None:
    task = next(t for t in bundled_tasks() if t.id == "unit-001")
    moved = rewrite_task(task, Lineages(source_lineage), "v1")
    assert [s.tool for s in moved.reference] == ["units__convert_units"]
    effect = moved.spec.checkpoints[0]
    assert "units__convert_units" in {m.tool for m in effect.all_members()}  # type: ignore[union-attr]


def test_a_config_with_another_entry_point_is_refused(source_lineage: Path) -> None:
    spec = bundled_servers()["units"]
    other = spec.model_copy(update={"args": ["-m", "mcptrials.bundled.servers.finance"]})
    with pytest.raises(VersionError, match=r"evolved from entry point python -m mcptrials\.bundled\.servers\.units"):
        versioned_servers({"units": other}, Lineages(source_lineage), "v1")
    assert versioned_servers({"units": spec}, Lineages(source_lineage), "v1")["units"].source_path == str(
        (source_lineage / "v1" / "tree").resolve())


def _tool(name: str, props: dict[str, Any], required: list[str] | None = None, text: str = "") -> dict[str, Any]:
    return {"name": name, "description": text or name,
            "inputSchema": {"type": "object", "properties": props, "required": required or []}}


def test_a_removed_tool_migrates_to_its_absorber_and_parameters_are_recorded() -> None:
    old = [_tool("convert", {"value": {"type": "number"}, "unit": {"type": "string"}}, ["value"]),
           _tool("convert_temperature", {"value": {"type": "number"}, "scale": {"type": "string"}}),
           _tool("list_units", {"category": {"type": "string", "default": "all"}})]
    new = [_tool("convert", {"value": {"type": "number"}, "unit": {"type": "string"},
                             "kind": {"type": "string", "default": "plain"}}, ["value"], "now temperatures too"),
           _tool("list_units", {})]
    removal = round_plan(diff_tool_lists(old, new[:1] + old[2:]), old, new[:1] + old[2:], "O3",
                         {"absorbing_tool": "convert", "selector": {"name": "kind", "value": "temperature"},
                          "arg_map": {"scale": "unit"}}, version="v1", parent="v0", server="units", summary="")
    call = PlanChain([removal]).rewrite_call("convert_temperature", {"value": 3, "scale": "C"})
    assert call == ("convert", {"value": 3, "unit": "C", "kind": "temperature"})
    assert [op.op for op in removal.operations] == ["describe_tool", "add_param", "remove_tool"]
    pruned = round_plan(diff_tool_lists(old[2:], new[1:]), old[2:], new[1:], "O7", {}, version="v2",
                        parent="v1", server="units", summary="")
    assert PlanChain([pruned]).rewrite_call("list_units", {"category": "mass"}) == ("list_units", {})


def test_a_replaced_tool_keeps_renamed_parameters_and_constraints_are_recorded() -> None:
    old = [_tool("convert", {"value": {"type": "number"}, "unit": {"type": "string", "description": "from"}},
                 ["value"])]
    new = [_tool("convert_units", {"value": {"type": "number", "minimum": 0}, "from_unit": {"type": "string"}},
                 ["value", "from_unit"])]
    stated = round_plan(diff_tool_lists(old, new), old, new, "O2", {"param_renames": {"unit": "from_unit"}},
                        version="v1", parent="v0", server="units", summary="")
    rename = stated.operations[0]
    assert rename.op == "rename_tool" and rename.param_renames == {"unit": "from_unit"}  # type: ignore[union-attr]
    assert PlanChain([stated]).rewrite_call("convert", {"value": 2, "unit": "mi"}) == (
        "convert_units", {"value": 2, "from_unit": "mi"})
    assert "constrain_param" in [op.op for op in stated.operations]
    # without the model's record, a removed and an added parameter with one schema are paired
    inferred = round_plan(diff_tool_lists(old, new), old, new, "O2", {}, version="v1", parent="v0", server="units",
                          summary="")
    assert inferred.operations[0].param_renames == {"unit": "from_unit"}  # type: ignore[union-attr]
