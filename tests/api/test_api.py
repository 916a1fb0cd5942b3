"""`import mcptrials`: the API does what the CLI does, on the same store, with the same numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_world import cli

import mcptrials


def test_api_runs_evolves_reports_and_exports_like_the_cli(tmp_path: Path) -> None:
    db = tmp_path / "api.db"
    lineage = tmp_path / "units-lineage"
    manifests = mcptrials.evolve_server("units", lineage, rounds=2, seed=0)
    assert [m.version for m in manifests] == ["v0", "v1", "v2"]
    tasks = [t for t in mcptrials.load_tasks() if t.id in {"unit-001", "unit-005"}]
    results = mcptrials.run_tasks(tasks, agent="stale", stages="v0,v2", lineages=lineage, attempts=2, db=db)
    assert [r.completed for r in results] == [4, 4]
    again = mcptrials.run_tasks(tasks, agent="stale", stages="v0,v2", lineages=lineage, attempts=2, db=db)
    assert [r.skipped for r in again] == [4, 4]  # resumed, as the CLI does

    data = mcptrials.build_report(db)
    assert data == json.loads(cli("report", "--db", str(db), "--format", "json").stdout)
    assert {r["version"] for r in data["per_version"]} == {"v0", "v2"}
    assert mcptrials.score(db) == 8

    page = mcptrials.write_report(db, tmp_path / "r.html")
    assert json.dumps(data["summary"][0]["pass_hat_k"]) in page.read_text()
    logs = mcptrials.export_results(db, "inspect", tmp_path / "logs")
    assert len(logs) == 2 and all(p.suffix == ".eval" for p in logs)


def test_api_refuses_lineages_for_other_servers(tmp_path: Path) -> None:
    lineage = tmp_path / "units-lineage"
    mcptrials.evolve_server("units", lineage, rounds=1)
    finance_task = [t for t in mcptrials.load_tasks() if t.id == "fin-001"]
    from mcptrials.evolve.versions import VersionError

    with pytest.raises(VersionError, match="no lineage for finance"):
        mcptrials.run_tasks(finance_task, agent="stale", stages="v0,v1", lineages=lineage, db=tmp_path / "x.db")


def test_version_is_the_package_version() -> None:
    from importlib.metadata import version

    assert mcptrials.__version__ == version("mcptrials")
    assert cli("--version").stdout.strip() == f"mcptrials {mcptrials.__version__}"


def test_api_names_leave_the_subpackages_plain_modules() -> None:
    """``mcptrials.run`` etc. are ordinary packages: importable, reloadable, typed, never replaced by a function."""
    import importlib
    import inspect
    import pickle

    import mcptrials.evolve.lineage
    import mcptrials.export.command
    import mcptrials.report.summary
    import mcptrials.run.runner
    from mcptrials.run import runner

    for name in ("run", "report", "export", "evolve"):
        package = getattr(mcptrials, name)
        assert inspect.ismodule(package) and not callable(package), name
        assert importlib.reload(package) is package
    assert runner is mcptrials.run.runner
    assert pickle.loads(pickle.dumps(mcptrials.run_tasks)) is mcptrials.run_tasks  # Ray ships functions by reference
    assert set(mcptrials.__all__) <= set(dir(mcptrials))
    assert (Path(mcptrials.__file__).parent / "py.typed").is_file()  # type checkers read the API's annotations
