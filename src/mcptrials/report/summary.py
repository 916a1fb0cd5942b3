"""Aggregate stored episodes and scores into the report's JSON: summary, breakdowns, episodes."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from mcptrials.model import Episode, Score, Task
from mcptrials.report.evolution import evolution_summary
from mcptrials.scoring.stats import mean_over_tasks, wilson_interval
from mcptrials.store.db import Store, outcome_of, task_for

RULE_METRICS = ("valid_tool_name_rate", "schema_compliance_rate", "execution_success_rate")


def episode_row(episode: Episode, scores: Mapping[str, Score]) -> dict[str, Any]:
    """One episode as a flat report row."""
    effects = scores.get("effects")
    rules = scores.get("rules")
    return {
        "episode_id": episode.id,
        "task_id": episode.task_id,
        "version": episode.version,
        "attempt": episode.attempt,
        "model": episode.model,
        "agent": episode.agent,
        "outcome": outcome_of(episode, effects),
        "termination": episode.termination,
        "checkpoints": {c.id: c.passed for c in effects.checkpoints} if effects else {},
        "checkpoint_fraction": effects.value if effects else None,
        "failure_codes": effects.failure_codes if effects and not effects.passed else [],
        "infra_error": episode.infra_error.kind if episode.infra_error else None,
        "tool_calls": len(episode.tool_calls),
        "turns": len(episode.model_turns),
        "prompt_tokens": episode.usage.prompt_tokens,
        "completion_tokens": episode.usage.completion_tokens,
        "cost_usd": round(episode.usage.cost_usd, 6),
        "duration_s": round(episode.duration_s, 3),
        **{m: (rules.values.get(m) if rules else None) for m in RULE_METRICS},
    }


def _aggregate(rows: list[dict[str, Any]], k_override: int | None = None) -> dict[str, Any]:
    """pass^k, pass@k, pass@1 with a Wilson interval over the rows of one group."""
    per_task: dict[str, list[bool]] = defaultdict(list)
    infra = 0
    for row in rows:
        if row["outcome"] == "infra_error":
            infra += 1
            continue
        per_task[row["task_id"]].append(row["outcome"] == "passed")
    attempts = max((len(v) for v in per_task.values()), default=0)
    k = k_override or attempts or 1
    counts = [(len(v), sum(v)) for v in per_task.values()]
    scored = [(n, c) for n, c in counts if n >= k]
    hat = mean_over_tasks(scored, k, "hat")
    at = mean_over_tasks(scored, k, "at")
    at1 = mean_over_tasks(counts, 1, "hat")
    low, high = wilson_interval((hat or 0.0) * len(scored), len(scored))
    usable = [r for r in rows if r["outcome"] != "infra_error"]
    out = {
        "n_tasks": len(scored), "k": k,
        "pass_hat_k": hat, "pass_at_k": at, "pass_at_1": at1,
        "ci95_low": low if scored else None, "ci95_high": high if scored else None,
        "episodes": len(rows), "infra_errors": infra,
        "tasks_short_of_k": len(counts) - len(scored),
        "prompt_tokens": sum(r["prompt_tokens"] for r in rows),
        "completion_tokens": sum(r["completion_tokens"] for r in rows),
        "cost_usd": round(sum(r["cost_usd"] for r in rows), 6),
    }
    for metric in RULE_METRICS:
        values = [r[metric] for r in usable if r[metric] is not None]
        out[metric] = sum(values) / len(values) if values else None
    return out


def build_report(episodes: Iterable[Episode], scores: Mapping[str, Mapping[str, Score]],
                 tasks: Mapping[tuple[str, str], Task], k: int | None = None) -> dict[str, Any]:
    """The whole report: summary per model x agent, breakdowns, and one row per episode."""
    rows = [episode_row(e, scores.get(e.id, {})) for e in episodes]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[(row["model"], row["agent"])].append(row)
    summary = [{"model": m, "agent": a, **_aggregate(g, k)} for (m, a), g in sorted(groups.items())]
    breakdown = []
    for (model, agent), group in sorted(groups.items()):
        for dimension, key in (("category", lambda t: t.category), ("chain_length", lambda t: t.chain_length),
                               ("version", None)):
            buckets: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for row in group:
                task = task_for(tasks, row["task_id"], row["version"])
                if key is None:
                    buckets[row["version"]].append(row)
                elif task is not None:
                    buckets[str(key(task))].append(row)
            if dimension == "version" and len(buckets) < 2:
                continue
            for value, bucket in sorted(buckets.items()):
                agg = _aggregate(bucket, k)
                breakdown.append({"model": model, "agent": agent, "dimension": dimension, "value": value,
                                  **{f: agg[f] for f in ("n_tasks", "k", "pass_hat_k", "pass_at_1",
                                                         "infra_errors")}})
    evolution = []
    for (model, agent), group in sorted(groups.items()):
        found = evolution_summary(group, tasks)
        if found is not None:
            evolution.append({"model": model, "agent": agent, **found})
    return {"summary": summary, "breakdown": breakdown, "evolution": evolution, "episodes": rows}


def report_from_store(store: Store, k: int | None = None) -> dict[str, Any]:
    """Build the report from everything in a store."""
    return build_report(store.episodes(), store.scores(), store.tasks(), k)
