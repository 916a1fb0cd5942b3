"""The evolution section of the report: ECS with outright failures and missing versions, blame per run-version pair."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from mcptrials.evolve.versions import Lineages
from mcptrials.model import Episode, PlannedCall, Score, Task, TaskSpec, ValueCheckpoint
from mcptrials.report.summary import build_report

ROUNDS = {
    # round: (operator, plan operation); the tasks below use notes.read and notes.write
    "v1": ("O9", "{op: describe_tool, operator: O9, tool: read, description: Read one note by its path.}"),
    "v2": ("O1", "{op: add_tool, operator: O1, name: list_all, alias_of: list, description: Every note.}"),
    "v3": ("O2", "{op: rename_tool, operator: O2, tool: write, new_name: save}"),
    "v4": ("O10", "{op: describe_param, operator: O10, tool: save, param: path, description: Where.}"),
    "v5": ("O7", "{op: remove_param, operator: O7, tool: list, param: limit}"),
}


@pytest.fixture
def lineages(tmp_path: Path) -> Lineages:
    for k, (version, (_operator, operation)) in enumerate(ROUNDS.items(), start=1):
        folder = tmp_path / "notes" / version
        folder.mkdir(parents=True)
        parent = "null" if k == 1 else f"../v{k - 1}/plan.yaml"
        (folder / "plan.yaml").write_text(f"version: {version}\nparent: {parent}\nserver: notes\n"
                                          f"operations:\n  - {operation}\n")
    return Lineages(tmp_path)


def _task(task_id: str, version: str) -> Task:
    applied = {v: [op] for v, (op, _) in ROUNDS.items() if int(v[1:]) <= int(version[1:])}
    reference = [PlannedCall(tool="notes__read", args={"path": "a.md"}),
                 PlannedCall(tool="notes__write", args={"path": "b.md", "content": "x"})]
    return Task(id=task_id, prompt="copy a note", servers=["notes"],
                spec=TaskSpec(checkpoints=[ValueCheckpoint(id="c1", contains=["x"])]), reference=reference,
                provenance={"version": version, "operators_by_version": applied,
                            "original_reference": [s.model_dump() for s in reference]})


def _episode(task_id: str, version: str, attempt: int = 0) -> Episode:
    return Episode(id=f"{task_id}-{version}-{attempt}", run_id="r", task_id=task_id, version=version,
                   agent="react", model="m", attempt=attempt, config_hash="h")


def _effects(episode: Episode, value: float, codes: list[str] | None = None) -> Score:
    return Score(episode_id=episode.id, scorer="effects", scorer_version="1", passed=value == 1.0 and not codes,
                 value=value, failure_codes=codes or [])


def _report(results: dict[tuple[str, str], tuple[float, list[str]]], lineages: Lineages) -> dict:
    episodes, scores = [], {}
    for (task_id, version), (value, codes) in results.items():
        episode = _episode(task_id, version)
        episodes.append(episode)
        scores[episode.id] = {"effects": _effects(episode, value, codes)}
    tasks = {(t, v): _task(t, v) for t, v in results}
    report = build_report(episodes, scores, tasks, lineages=lineages)
    assert len(report["evolution"]) == 1
    return report["evolution"][0]


def test_blame_goes_to_operators_that_touched_the_task_between_run_versions(lineages: Lineages) -> None:
    evo = _report({
        # broken between v0 and v3: rounds v1..v3 ran O9 (on read), O1 (on list), O2 (write -> save)
        ("early", "v0"): (1.0, []), ("early", "v3"): (0.5, []), ("early", "v5"): (0.5, []),
        # broken between v3 and v5: rounds v4..v5 ran O10 (on save, the renamed write) and O7 (on list)
        ("late", "v0"): (1.0, []), ("late", "v3"): (1.0, []), ("late", "v5"): (0.0, []),
    }, lineages)
    assert evo["versions"] == ["v0", "v3", "v5"] and evo["blame_basis"] == "tools"
    assert evo["broken_tasks"] == [
        {"task_id": "early", "from": "v0", "to": "v3", "operators": ["O2", "O9"]},
        {"task_id": "late", "from": "v3", "to": "v5", "operators": ["O10"]},
    ]
    # O1 and O7 acted only on 'list', which neither task uses: never blamed
    assert evo["tasks_broken_by_operator"] == {"O2": 1, "O9": 1, "O10": 1}
    assert set(evo["operator_impact"]) == {"O2", "O9", "O10"}


def test_without_the_lineages_blame_falls_back_to_every_operator_of_the_rounds_between(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    (other / "notes").mkdir(parents=True)  # a lineages folder that did not make these versions
    evo = _report({("t", "v0"): (1.0, []), ("t", "v3"): (0.0, [])}, Lineages(other))
    assert evo["blame_basis"] == "rounds"
    assert evo["tasks_broken_by_operator"] == {"O1": 1, "O2": 1, "O9": 1}


def test_ecs_counts_outright_failures_and_lists_tasks_missing_a_version(lineages: Lineages) -> None:
    evo = _report({
        ("mine", "v0"): (1.0, []), ("mine", "v3"): (1.0, ["minefield"]), ("mine", "v5"): (1.0, []),
        ("steady", "v0"): (1.0, []), ("steady", "v3"): (1.0, []), ("steady", "v5"): (1.0, []),
        ("gappy", "v0"): (1.0, []), ("gappy", "v5"): (1.0, []),
    }, lineages)
    assert evo["tasks_missing_versions"] == [{"task_id": "gappy", "missing": ["v3"]}]
    assert evo["ecs_tasks"] == 2
    assert "every version (v0, v3, v5)" in evo["ecs_basis"]
    # mine: scores 1, 0, 1 (the minefield zeroes v3): mean 2/3, sample sd 1/sqrt(3); steady: 1
    mine = 2 / 3 - 1 / math.sqrt(3)
    assert evo["ecs"] == pytest.approx((mine + 1.0) / 2)
    assert evo["stage_means"]["v3"] == pytest.approx(0.5)


def test_terminal_report_shows_per_version_tables_infra_and_what_ecs_left_out(lineages: Lineages) -> None:
    from rich.console import Console

    from mcptrials.model import InfraError
    from mcptrials.report.render import print_tables

    results = {("a", "v0"): 1.0, ("a", "v3"): 0.0, ("b", "v0"): 1.0}
    episodes = [_episode(t, v) for t, v in results]
    scores = {e.id: {"effects": _effects(e, results[(e.task_id, e.version)])} for e in episodes}
    broken = _episode("b", "v3").model_copy(update={
        "termination": "infra_error", "infra_error": InfraError(kind="server_start", message="no start")})
    tasks = {(t, v): _task(t, v) for t, v in [*results, ("b", "v3")]}
    report = build_report([*episodes, broken], scores, tasks, lineages=lineages)
    assert [(r["version"], r["n_tasks"], r["pass_at_1"], r["tasks_short_of_k"]) for r in report["per_version"]] == [
        ("v0", 2, 1.0, 0), ("v3", 1, 0.0, 1)]
    assert report["infra_unresolved"] == [{"model": "m", "agent": "react", "task_id": "b", "version": "v3",
                                           "scored_attempts": 0, "infra_errors": 1}]
    console = Console(record=True, width=220)
    print_tables(report, console)
    text = console.export_text()
    assert "Results per server version" in text and "Infra errors still stored" in text
    assert "Left out of ECS, 1 task(s) missing a version: b (no v3)" in text
    assert "an outright failure (minefield, order violation) scores 0" in text
