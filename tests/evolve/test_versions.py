"""Tasks on evolved versions: rewriting, reference plans passing on every stage, a stale agent breaking."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from typer.testing import CliRunner

from mcptrials.bundled.world import LINEAGES_DIR, TASKS_DIR, bundled_servers
from mcptrials.cli import app
from mcptrials.evolve.versions import Lineages, VersionError, parse_versions, rewrite_task, versioned_world
from mcptrials.model import ToolEffectCheckpoint
from mcptrials.report.summary import report_from_store
from mcptrials.store.db import Store
from mcptrials.tasks.check import check_references
from mcptrials.tasks.loader import load_tasks

UNIT_TASKS = ["unit-001", "unit-002", "unit-003"]


@pytest.fixture(scope="module")
def unit_tasks():
    return [t for t in load_tasks(TASKS_DIR / "business_productivity.jsonl") if t.id in UNIT_TASKS]


def test_parse_versions() -> None:
    assert parse_versions("early,middle,late") == ["v0", "v3", "v5"]
    assert parse_versions("v0, v2,v2") == ["v0", "v2"]
    with pytest.raises(VersionError, match="unknown stage"):
        parse_versions("middle,last")


def test_rewrite_follows_renamed_tool_and_arguments(unit_tasks) -> None:
    lineages = Lineages(LINEAGES_DIR)
    task = unit_tasks[0]
    v3 = rewrite_task(task, lineages, "v3")
    assert v3.reference[0].tool == "units__convert_quantity"
    assert {"source_unit", "target_unit"} <= set(v3.reference[0].args)
    assert "from_unit" not in v3.reference[0].args
    cp = next(c for c in v3.spec.checkpoints if isinstance(c, ToolEffectCheckpoint))
    members = cp.all_members()
    assert members[0].tool == "units__convert_quantity"  # the shared predicates now belong to the renamed tool
    assert all(m.tool.startswith("units__convert") for m in members)  # the spec's other member, renamed too
    assert v3.provenance["original_reference"][0]["tool"] == "units__convert"
    assert v3.provenance["operators_by_version"] == {"v1": ["O9"], "v2": ["O5"], "v3": ["O2"]}
    assert rewrite_task(task, lineages, "v0").reference == task.reference


def test_reference_passes_on_every_stage(unit_tasks) -> None:
    specs = bundled_servers()
    lineages = Lineages(LINEAGES_DIR)
    for version in ("v0", "v3", "v5"):
        v_specs, v_tasks = versioned_world(specs, unit_tasks, lineages, version)
        results = anyio.run(check_references, v_specs, v_tasks, 3)
        assert all(r.passed for r in results), (version, [r.reason for r in results])


def test_stale_agent_breaks_on_the_replacement_and_report_counts_it(tmp_path: Path) -> None:
    db = str(tmp_path / "evo.db")
    runner = CliRunner()
    base = ["run", "--tasks", str(TASKS_DIR / "business_productivity.jsonl"), "--stages", "v2,v3", "--db", db]
    for agent in ("reference", "stale"):
        args = [*base, "--agent", agent]
        for task_id in UNIT_TASKS:
            args += ["--task", task_id]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
    report = report_from_store(Store(db))
    evolution = {e["agent"]: e for e in report["evolution"]}
    assert evolution["reference"]["ecs"] == 1.0
    assert evolution["stale"]["tasks_broken_by_operator"] == {"O2": 3}
    # the mean is of checkpoint shares: the broken call fails its effect, answer checks may still hold
    assert evolution["stale"]["stage_means"]["v2"] == 1.0 and evolution["stale"]["stage_means"]["v3"] < 0.75
    shown = runner.invoke(app, ["report", "--db", db])
    assert "Operator impact" in shown.output and "O2" in shown.output


def test_evolve_cli_is_reproducible(tmp_path: Path) -> None:
    runner = CliRunner()
    for out in ("a", "b"):
        result = runner.invoke(app, ["evolve", "--server", "units", "--rounds", "3", "--seed", "5",
                                     "--out", str(tmp_path / out)])
        assert result.exit_code == 0, result.output
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert len(files) == 1 + 2 + 3 * 3  # lineage.json, v0 (tools, manifest), v1-v3 (plan, tools, manifest)
    for rel in files:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()
    manifest = json.loads((tmp_path / "a" / "v2" / "manifest.json").read_text())
    assert manifest["operator"] and manifest["operator_violations"] == []


def test_bad_stage_is_a_clear_error() -> None:
    result = CliRunner().invoke(app, ["tasks", "check", "--stages", "early,last"])
    assert result.exit_code == 2 and "unknown stage or version 'last'" in result.output


def test_rewrite_renames_the_first_step_of_an_argument_path(unit_tasks) -> None:
    task = unit_tasks[0]
    cp = next(c for c in task.spec.checkpoints if isinstance(c, ToolEffectCheckpoint))
    pathed = cp.model_copy(update={"must_match": {"from_unit.name": {"equals": "mile"},
                                                  "from_unit[0]": {"regex": "^m"}, "to_unit": {"equals": "km"}}})
    task = task.model_copy(update={"spec": task.spec.model_copy(update={"checkpoints": [pathed]})})
    v3 = rewrite_task(task, Lineages(LINEAGES_DIR), "v3")
    member = next(m for m in v3.spec.checkpoints[0].all_members() if m.tool == "units__convert_quantity")
    assert set(member.must_match) == {"source_unit.name", "source_unit[0]", "target_unit"}
