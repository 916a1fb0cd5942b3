"""`import mcptrials`: the API does what the CLI does, on the same store, with the same numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


@pytest.fixture(scope="module")
def stale_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A store of the model-free ``stale`` agent on two tasks, v0 and v3, two attempts: (path, run ids)."""
    db = tmp_path_factory.mktemp("api-read") / "r.db"
    tasks = [t for t in mcptrials.load_tasks() if t.id in {"unit-001", "fin-001"}]
    results = mcptrials.run_tasks(tasks, agent="stale", stages="v0,v3", attempts=2, db=db)
    return db, [r.run_id for r in results]


def test_the_package_namespace_is_the_api_and_its_subpackages() -> None:
    """``dir(mcptrials)``: the names of ``__all__`` and modules, nothing an import brought along."""
    import types

    names = {n for n in dir(mcptrials) if not n.startswith("_")}
    stray = {n for n in names if not isinstance(getattr(mcptrials, n), types.ModuleType)} - set(mcptrials.__all__)
    assert stray == set()
    assert "PackageNotFoundError" not in dir(mcptrials) and "version" not in names
    assert {"read_episodes", "read_scores"} <= set(mcptrials.__all__)


def test_run_tasks_without_a_model_refuses_before_running(tmp_path: Path) -> None:
    """No silent embedded-model run: a model-using agent without ``model=`` is one ValueError, nothing written."""
    import subprocess
    import sys

    db = tmp_path / "r.db"
    code = ("import mcptrials\n"
            "tasks = [t for t in mcptrials.load_tasks() if t.id == 'unit-001']\n"
            f"mcptrials.run_tasks(tasks, agent='react', db={str(db)!r})\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "ValueError: run_tasks(agent='react') needs model=: a spec such as 'openai:gpt-4o-mini', or 'local:' "
        "for the embedded model (slow); the agents 'reference' and 'stale' need none")
    assert not db.exists()


def test_read_episodes_returns_stored_episodes_whole_and_filtered(stale_db: tuple[Path, list[str]]) -> None:
    db, (run_v0, run_v3) = stale_db
    everything = mcptrials.read_episodes(db)
    assert len(everything) == 8 and all(isinstance(e, mcptrials.Episode) for e in everything)
    assert all(e.steps and e.tool_calls for e in everything)  # whole: every turn and call
    rows = {r["episode_id"]: r for r in mcptrials.build_report(db)["episodes"]}
    assert {e.id for e in everything} == set(rows)
    assert {(e.version, e.run_id) for e in mcptrials.read_episodes(db, run=run_v3)} == {("v3", run_v3)}
    assert len(mcptrials.read_episodes(db, run=run_v0, task="unit-001")) == 2
    failed = mcptrials.read_episodes(db, outcome="failed")
    assert {e.id for e in failed} == {i for i, r in rows.items() if r["outcome"] == "failed"} != set()
    assert mcptrials.read_episodes(db, model="none", agent="stale", version="v0") == \
        [e for e in everything if e.version == "v0"]
    assert mcptrials.read_episodes(db, agent="react") == []

    verdicts = mcptrials.read_scores(db)
    assert set(verdicts) == set(rows)
    assert all(isinstance(v["effects"], mcptrials.Score) and v["effects"].passed == (rows[i]["outcome"] == "passed")
               for i, v in verdicts.items())


def test_read_episodes_refuses_unknown_runs_outcomes_and_missing_stores(stale_db: tuple[Path, list[str]],
                                                                         tmp_path: Path) -> None:
    db, _ = stale_db
    with pytest.raises(ValueError, match="no run 'nope' in"):
        mcptrials.read_episodes(db, run="nope")
    with pytest.raises(ValueError, match="outcome='pass': one of passed, failed, infra_error"):
        mcptrials.read_episodes(db, outcome="pass")
    missing = tmp_path / "none.db"
    with pytest.raises(FileNotFoundError, match="no result store at"):
        mcptrials.read_episodes(missing)
    assert not missing.exists()


def _documented_sections() -> dict[str, str]:
    """The API page's "The report dict" part, split by its ``### `section` `` headings."""
    page = (Path(__file__).parents[2] / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    part = page.split("## The report dict", 1)[1].split("\n## ", 1)[0]
    return {chunk.split("`", 2)[1]: chunk for chunk in part.split("\n### ")[1:]}


def _structural_keys(value: Any) -> set[str]:
    """Keys of the dicts in ``value`` and in the lists they hold (not of dicts keyed by data: ids, codes)."""
    keys: set[str] = set()
    if isinstance(value, list):
        for item in value:
            keys |= _structural_keys(item)
    elif isinstance(value, dict):
        for key, inner in value.items():
            keys.add(key)
            if isinstance(inner, list):
                keys |= _structural_keys(inner)
    return keys


def test_every_key_of_the_report_dict_is_documented(stale_db: tuple[Path, list[str]]) -> None:
    db, _ = stale_db
    data = mcptrials.build_report(db)
    sections = _documented_sections()
    assert set(sections) == set(data)
    assert data["evolution"] and data["episodes"] and data["pareto"]["points"]  # the sections are filled
    for name, value in data.items():
        undocumented = {k for k in _structural_keys(value) if f"`{k}`" not in sections[name]}
        assert undocumented == set(), (name, undocumented)
    doc = mcptrials.build_report.__doc__ or ""
    assert all(f"``{name}``" in doc for name in data)
