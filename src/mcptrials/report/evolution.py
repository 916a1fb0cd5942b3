"""How agents cope with server evolution: stage means, ECS, operator impact, tasks broken per operator.

A task's score on a version is the mean over its scored attempts of the checkpoint fraction,
with an outright failure (minefield, order violation) counting 0. ECS is computed over the
tasks scored on every version the group ran; the others are listed with the versions they lack.

Blame goes per consecutive pair of *run* versions (stages v0, v3, v5 give (v0, v3) and (v3, v5)):
a task broken between a pair is blamed on the operators of the rounds in between (v1..v3) that
touched one of the task's tools (a tool of its reference plan, followed through renames, merges,
migrations and aliases), never on operators that acted elsewhere on its servers.
"""

from __future__ import annotations

import itertools
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mcptrials.model import Task, split_qualified, version_sort_key
from mcptrials.scoring.ecs import (
    ecs_report,
    missing_versions,
    operator_impact,
    stage_means,
    version_matrix,
    version_task_score,
)
from mcptrials.store.db import task_for

if TYPE_CHECKING:
    from mcptrials.evolve.plan import PlanChain
    from mcptrials.evolve.versions import Lineages


def _order(versions: set[str]) -> list[str]:
    return sorted(versions, key=version_sort_key)


def _round(version: str) -> int:
    return int(version[1:]) if version[1:].isdigit() else 10**6


def _default_lineages() -> Lineages | None:
    from mcptrials.bundled.world import LINEAGES_DIR
    from mcptrials.evolve.versions import Lineages

    return Lineages(LINEAGES_DIR) if LINEAGES_DIR.is_dir() else None


def _reference_tools(task: Task) -> dict[str, list[str]]:
    """The task's reference-plan tools (original names), grouped by server."""
    steps = task.provenance.get("original_reference") or [s.model_dump() for s in task.reference]
    out: dict[str, list[str]] = defaultdict(list)
    for step in steps:
        try:
            server, tool = split_qualified(str(step["tool"]))
        except ValueError:
            continue
        if tool not in out[server]:
            out[server].append(tool)
    return out


def touching_operators(
        task: Task | None, last_version: str, lineages: Lineages | None,
        chains: dict[tuple[str, str], PlanChain | None] | None = None) -> tuple[dict[str, list[str]], str]:
    """For each round up to ``last_version``, the operators that touched one of the task's tools.

    Returns the mapping and its basis: ``tools`` when the lineages that made the task's versions
    are at hand, ``rounds`` (every operator of every round, the best available guess) when they
    are not, ``none`` when the task was not evolved. ``chains`` memoizes the loaded plan chains
    across the tasks of one report (parsing the YAML plans per task was most of a 5,000-episode report).
    """
    if task is None:
        return {}, "none"
    recorded = {str(v): list(ops) for v, ops in task.provenance.get("operators_by_version", {}).items()}
    if not recorded:
        return {}, "none"
    if lineages is None:
        return recorded, "rounds"
    from mcptrials.evolve.versions import VersionError

    applied: dict[str, list[str]] = {}
    touched: dict[str, list[str]] = {}
    used = _reference_tools(task)
    try:
        for server in task.servers:
            if chains is not None and (server, last_version) in chains:
                chain = chains[(server, last_version)]
            else:
                chain = lineages.chain(server, last_version)
                if chains is not None:
                    chains[(server, last_version)] = chain
            if chain is None:
                continue
            for version, ops in chain.operators_applied().items():
                applied.setdefault(version, []).extend(ops)
            for version, ops in chain.operators_touching(used.get(server, [])).items():
                touched.setdefault(version, []).extend(ops)
    except VersionError:
        return recorded, "rounds"
    if applied != recorded:  # not the lineages this task was run with
        return recorded, "rounds"
    return {v: list(dict.fromkeys(ops)) for v, ops in touched.items()}, "tools"


def _between(applied: Mapping[str, Sequence[str]], start: str, end: str) -> list[str]:
    """Operators of the rounds after ``start`` up to and including ``end``."""
    lo, hi = _round(start), _round(end)
    return list(dict.fromkeys(op for v, ops in sorted(applied.items(), key=lambda kv: _round(kv[0]))
                              if lo < _round(v) <= hi for op in ops))


def evolution_summary(rows: list[dict[str, Any]], tasks: Mapping[tuple[str, str], Task],
                      lineages: Lineages | None = None) -> dict[str, Any] | None:
    """Evolution metrics for one model x agent group; None when it ran on fewer than two versions.

    ``lineages`` defaults to the bundled lineages; it tells which operators touched which task.
    """
    versions = _order({r["version"] for r in rows})
    if len(versions) < 2:
        return None
    if lineages is None:
        lineages = _default_lineages()
    usable = [r for r in rows if r["outcome"] in {"passed", "failed"}]
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    passes: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for r in usable:  # a judge-only task's fulfilment is its judged verdict, 1 or 0 (MCPEvol-Bench's TF)
        values[(r["task_id"], r["version"])].append(
            float(r["outcome"] == "passed") if r["checkpoint_fraction"] is None
            else version_task_score(r["checkpoint_fraction"], r["failure_codes"]))
        passes[(r["task_id"], r["version"])].append(r["outcome"] == "passed")
    table: dict[str, dict[str, float]] = defaultdict(dict)
    for (task_id, version), vals in values.items():
        table[task_id][version] = statistics.fmean(vals)
    task_ids = sorted({r["task_id"] for r in rows})
    applied: dict[str, dict[str, list[str]]] = {}
    bases: set[str] = set()
    chains: dict[tuple[str, str], PlanChain | None] = {}
    for task_id in task_ids:
        applied[task_id], basis = touching_operators(task_for(tasks, task_id, versions[-1]), versions[-1], lineages,
                                                     chains)
        bases.add(basis)
    impact = operator_impact(table, versions, lambda t, a, b: _between(applied[t], a, b))
    broken: dict[str, int] = defaultdict(int)
    broken_tasks: list[dict[str, Any]] = []
    for task_id in task_ids:
        for start, end in itertools.pairwise(versions):
            before, after = passes.get((task_id, start)), passes.get((task_id, end))
            if before and after and all(before) and not all(after):
                blamed = sorted(set(_between(applied[task_id], start, end)), key=lambda o: (len(o), o))
                broken_tasks.append({"task_id": task_id, "from": start, "to": end, "operators": blamed})
                for op in blamed:
                    broken[op] += 1
    complete = version_matrix(table, versions, missing="skip")
    report = ecs_report(complete) if complete else None
    missing = missing_versions(table, versions, task_ids)
    basis = "tools" if bases <= {"tools", "none"} else "rounds"
    return {
        "versions": versions,
        "stage_means": stage_means(table, versions),
        "ecs": report.value if report else None,
        "ecs_tasks": report.n_tasks if report else 0,
        "ecs_basis": (f"mean over the {report.n_tasks if report else 0} tasks scored on every version "
                      f"({', '.join(versions)}); an outright failure (minefield, order violation) scores 0"),
        "tasks_missing_versions": [{"task_id": t, "missing": m} for t, m in missing.items()],
        "operator_impact": {op: {"mean_delta": i.mean, "transitions": i.count} for op, i in impact.items()},
        "tasks_broken_by_operator": dict(sorted(broken.items(), key=lambda kv: (len(kv[0]), kv[0]))),
        "broken_tasks": broken_tasks,
        "blame_basis": basis,
    }
