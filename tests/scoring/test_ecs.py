"""ECS follows Eq. 1-3 of MCPEvol-Bench: mean minus sample std per task, averaged over tasks."""

from __future__ import annotations

import itertools
import math
import statistics

import pytest

from mcptrials.model import Episode, InfraError, Score
from mcptrials.scoring.ecs import (
    VersionScore,
    collect_scores,
    ecs,
    ecs_lower_bound,
    ecs_report,
    missing_versions,
    operator_impact,
    operators_between,
    relative_change,
    stage_means,
    task_stability,
    task_version_table,
    version_matrix,
    version_task_score,
)


def test_paper_example_model_a_uses_the_sample_deviation() -> None:
    scores = [0.9, 0.5, 0.9]
    # by hand: mean = 2.3 / 3; squared deviations 0.0178 + 0.0711 + 0.0178 = 0.1067
    mean = 2.3 / 3
    sample_sd = math.sqrt((2 * (0.9 - mean) ** 2 + (0.5 - mean) ** 2) / 2)
    population_sd = math.sqrt((2 * (0.9 - mean) ** 2 + (0.5 - mean) ** 2) / 3)
    stab = task_stability(scores)
    assert stab.mean == pytest.approx(0.7667, abs=1e-4)
    assert stab.std == pytest.approx(sample_sd) == pytest.approx(0.2309, abs=1e-4)
    assert ecs({"u": scores}) == pytest.approx(0.536, abs=1e-3)
    assert round(ecs({"u": scores}), 2) == 0.54
    # the population deviation would not reproduce the paper's 0.54
    assert round(mean - population_sd, 2) == 0.58


def test_paper_example_model_b_is_stable() -> None:
    assert ecs({"u": [0.8, 0.8, 0.8]}) == pytest.approx(0.80)
    assert task_stability([0.8, 0.8, 0.8]).std == pytest.approx(0.0)


def test_lowest_ecs_for_three_integer_scores_is_4_minus_sqrt27() -> None:
    lowest = min(ecs({"u": list(c)}) for c in itertools.product(range(1, 11), repeat=3))
    assert lowest == pytest.approx(4 - math.sqrt(27))
    assert lowest == pytest.approx(-1.196, abs=1e-3)
    assert ecs({"u": [1, 1, 10]}) == pytest.approx(lowest)
    assert ecs_lower_bound(3, 1, 10) == pytest.approx(lowest)
    highest = max(ecs({"u": list(c)}) for c in itertools.product(range(1, 11), repeat=3))
    assert highest == 10


def test_ecs_averages_tasks_and_reports_detail() -> None:
    report = ecs_report({"a": [0.9, 0.5, 0.9], "b": [0.8, 0.8, 0.8]})
    assert report.value == pytest.approx((0.5357 + 0.8) / 2, abs=1e-4)
    assert (report.n_tasks, report.n_versions) == (2, 3)
    assert report.per_task["b"].ecs == pytest.approx(0.8)


@pytest.mark.parametrize(("per_task", "message"), [
    ({}, "at least one task"),
    ({"a": [1.0]}, "at least 2 versions"),
    ({"a": [1.0, 2.0], "b": [1.0, 2.0, 3.0]}, "same number of versions"),
])
def test_ecs_rejects_ill_formed_input(per_task: dict[str, list[float]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ecs(per_task)


def episode(eid: str, task: str, version: str, infra: bool = False) -> Episode:
    return Episode(id=eid, run_id="r", task_id=task, version=version, agent="react", model="m", attempt=0,
                   config_hash="h", infra_error=InfraError(kind="timeout", message="t") if infra else None)


def test_collect_scores_joins_episodes_averages_attempts_and_orders_versions() -> None:
    episodes = [episode("e1", "t1", "v0"), episode("e2", "t1", "v0"), episode("e3", "t1", "v3"),
                episode("e4", "t1", "v5"), episode("e5", "t2", "v0"), episode("e6", "t2", "v3", infra=True)]
    scores = [
        Score(episode_id="e1", scorer="rubric", scorer_version="1", passed=None, values={"tf": 8}),
        Score(episode_id="e2", scorer="rubric", scorer_version="1", passed=None, values={"tf": 6}),
        Score(episode_id="e3", scorer="rubric", scorer_version="1", passed=None, values={"tf": 5}),
        Score(episode_id="e4", scorer="rubric", scorer_version="1", passed=None, values={"tf": 4}),
        Score(episode_id="e5", scorer="rubric", scorer_version="1", passed=None, values={"tf": 9}),
        Score(episode_id="e6", scorer="rubric", scorer_version="1", passed=None, values={"tf": 1}),
        Score(episode_id="e1", scorer="effects", scorer_version="1", passed=True, value=1.0),
    ]
    collected = collect_scores(episodes, scores, scorer="rubric", value_key="tf")
    assert VersionScore("t1", "v0", 8.0) in collected and len(collected) == 5  # infra episode skipped
    table = task_version_table(collected)
    assert table["t1"] == {"v0": 7.0, "v3": 5.0, "v5": 4.0}
    assert version_matrix(table, ["v0", "v3", "v5"], missing="skip") == {"t1": [7.0, 5.0, 4.0]}
    with pytest.raises(ValueError, match=r"task 't2' has no score on version\(s\) \['v3', 'v5'\]"):
        version_matrix(table, ["v0", "v3", "v5"])
    means = stage_means(table, ["v0", "v3", "v5"])
    assert means == {"v0": 8.0, "v3": 5.0, "v5": 4.0}
    assert relative_change(means, "v0")["v5"] == pytest.approx(-0.5)


def test_operator_impact_splits_a_change_evenly() -> None:
    table = {"t1": {"v0": 8.0, "v1": 6.0, "v2": 6.5}, "t2": {"v0": 5.0, "v1": 5.0, "v2": 4.0}}
    applied = {"v1": ["O1", "O9"], "v2": ["O7"]}
    impact = operator_impact(table, ["v0", "v1", "v2"], operators_between(applied, ["v0", "v1", "v2"]))
    assert list(impact) == ["O1", "O7", "O9"]
    # t1: -2 split over O1 and O9 (-1 each); t2: 0 split (0 each)
    assert impact["O1"].total == pytest.approx(-1.0) and impact["O1"].count == 2
    assert impact["O1"].mean == pytest.approx(-0.5)
    # O7: t1 +0.5, t2 -1.0
    assert impact["O7"].mean == pytest.approx(statistics.fmean([0.5, -1.0]))


def test_operators_between_collects_every_round_of_a_jump() -> None:
    order = ["v0", "v1", "v2", "v3", "v4", "v5"]
    applied = {f"v{i}": [f"O{i}"] for i in range(1, 6)}
    between = operators_between(applied, order)
    assert between("t", "v0", "v3") == ["O1", "O2", "O3"]
    table = {"t": {"v0": 9.0, "v3": 6.0, "v5": 6.0}}
    impact = operator_impact(table, ["v0", "v3", "v5"], between)
    assert impact["O2"].total == pytest.approx(-1.0)
    assert impact["O5"].total == pytest.approx(0.0)


def test_outright_failure_scores_zero_whatever_the_checkpoint_fraction() -> None:
    assert version_task_score(0.75) == 0.75
    assert version_task_score(1.0, ["minefield"]) == 0.0
    assert version_task_score(0.5, ["wrong_arguments", "order_violation"]) == 0.0
    assert version_task_score(0.5, ["missing_effect"]) == 0.5
    episodes = [episode("e1", "t", "v0"), episode("e2", "t", "v3"), episode("e3", "t", "v3")]
    scores = [
        Score(episode_id="e1", scorer="effects", scorer_version="1", passed=True, value=1.0),
        # every checkpoint met, but a minefield was stepped on: an outright failure
        Score(episode_id="e2", scorer="effects", scorer_version="1", passed=False, value=1.0,
              failure_codes=["minefield"]),
        Score(episode_id="e3", scorer="effects", scorer_version="1", passed=False, value=0.5,
              failure_codes=["missing_effect"]),
    ]
    table = task_version_table(collect_scores(episodes, scores, scorer="effects"))
    assert table == {"t": {"v0": 1.0, "v3": 0.25}}  # (0 + 0.5) / 2, not (1.0 + 0.5) / 2
    # by hand: mean 0.625, sample sd |1 - 0.25| / sqrt(2) = 0.5303
    assert ecs(version_matrix(table, ["v0", "v3"])) == pytest.approx(0.625 - 0.75 / math.sqrt(2))


def test_tasks_missing_a_version_are_listed() -> None:
    table = {"a": {"v0": 1.0, "v3": 0.5, "v5": 0.5}, "b": {"v0": 1.0, "v5": 1.0}}
    versions = ["v0", "v3", "v5"]
    assert missing_versions(table, versions) == {"b": ["v3"]}
    # a task with no score anywhere (every attempt an infra error) is listed with every version
    assert missing_versions(table, versions, ["a", "b", "c"]) == {"b": ["v3"], "c": ["v0", "v3", "v5"]}
    assert version_matrix(table, versions, missing="skip") == {"a": [1.0, 0.5, 0.5]}
