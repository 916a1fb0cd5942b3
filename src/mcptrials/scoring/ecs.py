"""Evolutionary Competency Score (ECS), operator impact and per-stage aggregation.

ECS (MCPEvol-Bench, Eq. 1-3) rewards an agent that scores well *and* steadily as its servers
evolve. For every task u with scores S_u,1..S_u,N on N server versions:

    mu_u    = (1/N) * sum_i S_u,i
    sigma_u = sqrt( sum_i (S_u,i - mu_u)^2 / (N - 1) )        # sample standard deviation
    ECS     = (1/|U|) * sum_u (mu_u - sigma_u)

The paper's worked example uses the sample deviation: {0.9, 0.5, 0.9} gives
mu = 0.767, sigma = 0.231 and ECS = 0.536 ~ 0.54 (the population deviation, 0.189, would give
0.578). For N = 3 integer scores in [1, 10] the minimum is {1, 1, 10}: 4 - sqrt(27) ~ -1.20.

A task's score on a version is the fraction of its checkpoints met, except that an outright
failure (a minefield stepped on, the partial order broken) scores 0 whatever else was done.
Tasks lacking a score on some version cannot enter ECS; ``missing_versions`` lists them so a
report can say which were left out.

Operator impact (Appendix D.3): the change of a task's score between consecutive versions is
credited to the operators applied in between, split evenly when there are several; an
operator's impact is the mean of the shares it received.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from mcptrials.model import Episode, Score

OUTRIGHT_FAILURES = frozenset({"minefield", "order_violation"})
"""Failure codes that fail a task outright: its version score is 0, not its checkpoint fraction."""


def version_task_score(checkpoint_fraction: float, failure_codes: Iterable[str] = ()) -> float:
    """The score one attempt contributes to its task's version score: 0 on an outright failure."""
    return 0.0 if OUTRIGHT_FAILURES.intersection(failure_codes) else float(checkpoint_fraction)


@dataclass(frozen=True)
class VersionScore:
    """One score of one task on one server version (one attempt, or already averaged)."""

    task_id: str
    version: str
    value: float


@dataclass(frozen=True)
class TaskStability:
    """A task's mean, sample standard deviation and mu - sigma across versions."""

    mean: float
    std: float
    ecs: float


@dataclass(frozen=True)
class EcsReport:
    """ECS over a set of tasks, with each task's contribution."""

    value: float
    n_tasks: int
    n_versions: int
    per_task: dict[str, TaskStability]


@dataclass(frozen=True)
class OperatorImpact:
    """How much an operator moved scores: the sum and mean of the shares credited to it."""

    operator: str
    total: float
    count: int

    @property
    def mean(self) -> float:
        """Average score change per credited transition."""
        return self.total / self.count if self.count else 0.0


def task_stability(scores: Sequence[float]) -> TaskStability:
    """Mean, sample standard deviation (N - 1) and mu - sigma of one task's scores."""
    if len(scores) < 2:
        raise ValueError(f"ECS needs a task's scores on at least 2 versions, got {len(scores)}")
    mean = statistics.fmean(scores)
    std = statistics.stdev(scores)
    return TaskStability(mean=mean, std=std, ecs=mean - std)


def ecs_report(per_task: Mapping[str, Sequence[float]]) -> EcsReport:
    """ECS with per-task detail; every task must have scores on the same number of versions."""
    if not per_task:
        raise ValueError("ECS needs at least one task")
    sizes = {len(v) for v in per_task.values()}
    if len(sizes) != 1:
        raise ValueError(f"every task needs scores on the same number of versions, got sizes {sorted(sizes)}")
    stability = {task: task_stability(scores) for task, scores in per_task.items()}
    value = statistics.fmean(s.ecs for s in stability.values())
    return EcsReport(value=value, n_tasks=len(stability), n_versions=sizes.pop(), per_task=stability)


def ecs(per_task: Mapping[str, Sequence[float]]) -> float:
    """Evolutionary Competency Score: the mean over tasks of (mean - sample std) across versions."""
    return ecs_report(per_task).value


def ecs_lower_bound(n_versions: int, low: float, high: float) -> float:
    """The lowest ECS reachable with N scores in [low, high] when only the extremes are used.

    One version at ``high`` and the rest at ``low`` (or the mirror) is the worst case for N = 3;
    the function evaluates every split of N between the two extremes and returns the minimum.
    """
    best = math.inf
    for k in range(n_versions + 1):
        scores = [high] * k + [low] * (n_versions - k)
        best = min(best, task_stability(scores).ecs)
    return best


# --------------------------------------------------------------------------- gathering scores


def collect_scores(episodes: Iterable[Episode], scores: Iterable[Score], scorer: str | None = None,
                   value_key: str | None = None) -> list[VersionScore]:
    """Join stored scores to their episodes, skipping scores without a value.

    An outright failure (``OUTRIGHT_FAILURES`` among the score's failure codes) counts 0.
    ``scorer`` keeps one scorer's verdicts; ``value_key`` reads ``Score.values[key]`` (e.g. a
    rubric's task-fulfillment dimension) instead of ``Score.value``.
    """
    by_id = {e.id: e for e in episodes}
    out: list[VersionScore] = []
    for score in scores:
        if scorer is not None and score.scorer != scorer:
            continue
        episode = by_id.get(score.episode_id)
        value = score.values.get(value_key) if value_key else score.value
        if episode is None or value is None or episode.infra_error is not None:
            continue
        out.append(VersionScore(episode.task_id, episode.version, version_task_score(value, score.failure_codes)))
    return out


def task_version_table(scores: Iterable[VersionScore]) -> dict[str, dict[str, float]]:
    """Average attempts into one value per (task, version): ``table[task][version]``."""
    sums: dict[tuple[str, str], list[float]] = defaultdict(list)
    for s in scores:
        sums[(s.task_id, s.version)].append(s.value)
    table: dict[str, dict[str, float]] = defaultdict(dict)
    for (task, version), values in sorted(sums.items()):
        table[task][version] = statistics.fmean(values)
    return dict(table)


def version_matrix(table: Mapping[str, Mapping[str, float]], versions: Sequence[str],
                   missing: Literal["error", "skip"] = "error") -> dict[str, list[float]]:
    """Order each task's scores by ``versions``; tasks lacking a version raise or are skipped."""
    out: dict[str, list[float]] = {}
    for task, row in sorted(table.items()):
        absent = [v for v in versions if v not in row]
        if absent:
            if missing == "error":
                raise ValueError(f"task {task!r} has no score on version(s) {absent}")
            continue
        out[task] = [row[v] for v in versions]
    return out


def missing_versions(table: Mapping[str, Mapping[str, float]], versions: Sequence[str],
                     tasks: Iterable[str] = ()) -> dict[str, list[str]]:
    """Tasks (of ``table`` and of ``tasks``) lacking a score on some of ``versions``, with those versions."""
    out: dict[str, list[str]] = {}
    for task in sorted(set(table) | set(tasks)):
        row = table.get(task, {})
        absent = [v for v in versions if v not in row]
        if absent:
            out[task] = absent
    return out


# --------------------------------------------------------------------------- stages and operators


def stage_means(table: Mapping[str, Mapping[str, float]], versions: Sequence[str]) -> dict[str, float]:
    """Mean score per version over the tasks scored on it."""
    out: dict[str, float] = {}
    for version in versions:
        values = [row[version] for row in table.values() if version in row]
        if values:
            out[version] = statistics.fmean(values)
    return out


def relative_change(means: Mapping[str, float], base: str) -> dict[str, float]:
    """Each stage's mean relative to the base stage: (m - m_base) / m_base."""
    reference = means[base]
    if reference == 0:
        raise ValueError(f"the base stage {base!r} has mean 0; a relative change is undefined")
    return {v: (m - reference) / reference for v, m in means.items()}


OperatorsBetween = Callable[[str, str, str], Sequence[str]]
"""``(task_id, from_version, to_version) -> operators applied in between``."""


def operators_between(applied: Mapping[str, Sequence[str]], order: Sequence[str]) -> OperatorsBetween:
    """Build an ``OperatorsBetween`` from one lineage: ``applied[v]`` made ``v`` from its predecessor.

    A jump over several rounds (early -> middle = v0 -> v3) collects every round's operators.
    """
    position = {v: i for i, v in enumerate(order)}

    def between(_task: str, start: str, end: str) -> list[str]:
        return [op for v in order[position[start] + 1: position[end] + 1] for op in applied.get(v, ())]

    return between


def operator_impact(table: Mapping[str, Mapping[str, float]], versions: Sequence[str],
                    operators: OperatorsBetween) -> dict[str, OperatorImpact]:
    """Credit each task's score change between consecutive versions to the operators in between.

    When k operators separate two versions, each receives delta / k; a transition with no
    operator is not credited. Result is keyed and ordered by operator id.
    """
    totals: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for task, row in table.items():
        for start, end in itertools.pairwise(versions):
            if start not in row or end not in row:
                continue
            applied = list(operators(task, start, end))
            if not applied:
                continue
            share = (row[end] - row[start]) / len(applied)
            for op in applied:
                totals[op] += share
                counts[op] += 1
    ordered = sorted(totals, key=lambda o: (len(o), o))
    return {op: OperatorImpact(op, totals[op], counts[op]) for op in ordered}
