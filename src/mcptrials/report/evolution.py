"""How agents cope with server evolution: stage means, ECS, operator impact, tasks broken per operator."""

from __future__ import annotations

import itertools
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from mcptrials.model import Task
from mcptrials.scoring.ecs import ecs_report, operator_impact, stage_means, version_matrix
from mcptrials.store.db import task_for


def _order(versions: set[str]) -> list[str]:
    return sorted(versions, key=lambda v: int(v[1:]) if v[1:].isdigit() else 10**6)


def _operators(tasks: Mapping[tuple[str, str], Task], task_id: str, versions: Sequence[str]) -> dict[str, list[str]]:
    """For each version, the operators that made it from its predecessor, on this task's servers."""
    task = task_for(tasks, task_id, versions[-1])
    applied = task.provenance.get("operators_by_version", {}) if task else {}
    return {str(v): list(ops) for v, ops in applied.items()}


def _between(applied: Mapping[str, Sequence[str]], start: str, end: str) -> list[str]:
    lo, hi = int(start[1:]), int(end[1:])
    return [op for v, ops in applied.items() if lo < int(v[1:]) <= hi for op in ops]


def evolution_summary(rows: list[dict[str, Any]], tasks: Mapping[tuple[str, str], Task]) -> dict[str, Any] | None:
    """Evolution metrics for one model x agent group; None when it ran on fewer than two versions."""
    usable = [r for r in rows if r["outcome"] != "infra_error" and r["checkpoint_fraction"] is not None]
    versions = _order({r["version"] for r in usable})
    if len(versions) < 2:
        return None
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    passes: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for r in usable:
        values[(r["task_id"], r["version"])].append(r["checkpoint_fraction"])
        passes[(r["task_id"], r["version"])].append(r["outcome"] == "passed")
    table: dict[str, dict[str, float]] = defaultdict(dict)
    for (task_id, version), vals in values.items():
        table[task_id][version] = statistics.fmean(vals)
    applied = {task_id: _operators(tasks, task_id, versions) for task_id in table}
    impact = operator_impact(table, versions, lambda t, a, b: _between(applied[t], a, b))
    broken: dict[str, int] = defaultdict(int)
    for task_id in table:
        for start, end in itertools.pairwise(versions):
            before, after = passes.get((task_id, start)), passes.get((task_id, end))
            if before and after and all(before) and not all(after):
                for op in sorted(set(_between(applied[task_id], start, end))):
                    broken[op] += 1
    complete = version_matrix(table, versions, missing="skip")
    report = ecs_report(complete) if complete else None
    return {
        "versions": versions,
        "stage_means": stage_means(table, versions),
        "ecs": report.value if report else None,
        "ecs_tasks": report.n_tasks if report else 0,
        "operator_impact": {op: {"mean_delta": i.mean, "transitions": i.count} for op, i in impact.items()},
        "tasks_broken_by_operator": dict(sorted(broken.items(), key=lambda kv: (len(kv[0]), kv[0]))),
    }
