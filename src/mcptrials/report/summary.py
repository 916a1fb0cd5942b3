"""Aggregate stored episodes and scores into the report's JSON: summary, breakdowns, episodes."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from mcptrials.judges.summary import episode_judgments, judge_section
from mcptrials.model import Episode, Score, Task, version_sort_key
from mcptrials.report.evolution import evolution_summary
from mcptrials.report.papers import paper_tables
from mcptrials.report.sections import extra_sections
from mcptrials.scoring.stats import pass_rates, wilson_interval
from mcptrials.store.db import UNJUDGED, Store, is_judged, outcome_of, task_for
from mcptrials.store.db import episodes as episodes_table

if TYPE_CHECKING:
    from mcptrials.evolve.versions import Lineages

RULE_METRICS = ("valid_tool_name_rate", "schema_compliance_rate", "execution_success_rate",
                "dependency_compliance_rate")


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
        "agent": episode.agent + (" (replay)" if any(s.replay_of for s in episode.servers.values()) else ""),
        "outcome": outcome_of(episode, effects, scores.values()),
        "verdict": "judged" if is_judged(effects) else "deterministic",
        "termination": episode.termination,
        "checkpoints": {c.id: c.passed for c in effects.checkpoints} if effects else {},
        "checkpoint_fraction": effects.value if effects else None,
        "failure_codes": effects.failure_codes if effects and not effects.passed else [],
        "infra_error": episode.infra_error.kind if episode.infra_error else None,
        "tool_calls": len(episode.tool_calls),
        "tool_errors": dict(Counter(c.error_kind or "tool_error" for c in episode.tool_calls if c.is_error)),
        "turns": len(episode.model_turns),
        "prompt_tokens": episode.usage.prompt_tokens,
        "completion_tokens": episode.usage.completion_tokens,
        "cost_usd": round(episode.usage.cost_usd, 6),
        "duration_s": round(episode.duration_s, 3),
        **{m: (rules.values.get(m) if rules else None) for m in RULE_METRICS},
        "judges": episode_judgments(scores),
    }


Unit = tuple[str, str]
"""(task id, server version): the unit pass^k is computed over."""


def _units(rows: list[dict[str, Any]]) -> tuple[dict[Unit, list[bool]], Counter[Unit]]:
    """Scored attempts per (task, version), and infra episodes per (task, version).

    An unjudged episode (a judge-only task no judge has given a verdict on) is no attempt either.
    """
    attempts: dict[Unit, list[bool]] = {}
    infra: Counter[Unit] = Counter()
    for row in rows:
        unit = (row["task_id"], row["version"])
        if row["outcome"] == UNJUDGED:
            continue
        attempts.setdefault(unit, [])
        if row["outcome"] == "infra_error":
            infra[unit] += 1
        else:
            attempts[unit].append(row["outcome"] == "passed")
    return attempts, infra


def group_k(rows: list[dict[str, Any]], k_override: int | None = None) -> int:
    """The k of pass^k for a group: the override, else the most scored attempts of any (task, version)."""
    attempts, _ = _units(rows)
    return k_override or max((len(v) for v in attempts.values()), default=0) or 1


def _aggregate(rows: list[dict[str, Any]], k_override: int | None = None) -> dict[str, Any]:
    """pass^k, pass@k, pass@1 with a Wilson interval over the (task, version) units of one group.

    Infra episodes are not attempts: a unit left with fewer than k scored attempts is listed in
    ``short_of_k`` (with its infra count), and every unit with infra episodes in ``infra_by_task``.
    """
    attempts, infra = _units(rows)
    rates = pass_rates(attempts, k_override)
    n = rates.n_units
    low, high = wilson_interval((rates.pass_hat_k or 0.0) * n, n)
    usable = [r for r in rows if r["outcome"] != "infra_error"]
    short = set(rates.short_of_k)

    def unit_row(unit: Unit) -> dict[str, Any]:
        return {"task_id": unit[0], "version": unit[1], "scored_attempts": len(attempts[unit]),
                "infra_errors": infra[unit]}

    out: dict[str, Any] = {
        "n_tasks": n, "n_task_ids": len({unit[0] for unit in attempts if unit not in short}),
        "unit": "task x version", "k": rates.k,
        "pass_hat_k": rates.pass_hat_k, "pass_at_k": rates.pass_at_k, "pass_at_1": rates.pass_at_1,
        "ci95_low": low if n else None, "ci95_high": high if n else None,
        "episodes": len(rows), "infra_errors": sum(infra.values()),
        "judged_episodes": sum(r["verdict"] == "judged" for r in rows),
        "unjudged": sum(r["outcome"] == UNJUDGED for r in rows),
        "tasks_short_of_k": len(short),
        "short_of_k": [unit_row(u) for u in sorted(short)],
        "infra_by_task": [unit_row(u) for u in sorted(infra)],
        "prompt_tokens": sum(r["prompt_tokens"] for r in rows),
        "completion_tokens": sum(r["completion_tokens"] for r in rows),
        "cost_usd": round(sum(r["cost_usd"] for r in rows), 6),
    }
    for metric in RULE_METRICS:
        values = [r[metric] for r in usable if r[metric] is not None]
        out[metric] = sum(values) / len(values) if values else None
    return out


def shared_units(groups: Mapping[tuple[str, str], list[dict[str, Any]]], k: int | None = None) -> dict[str, Any]:
    """What the leaderboard may rank on: the (task, version) units every model x agent row ran.

    Rows run on different task sets are not comparable on their own pass^k; each row also gets
    pass^k over the shared units (``pass_hat_k_shared``), which the leaderboard ranks on.
    """
    sets = {group: {(r["task_id"], r["version"]) for r in rows if r["outcome"] != "infra_error"}
            for group, rows in groups.items()}  # a unit only infra episodes reached was not run
    shared = set.intersection(*sets.values()) if sets else set()
    rows_shared = {}
    for group, rows in groups.items():
        agg = _aggregate([r for r in rows if (r["task_id"], r["version"]) in shared], group_k(rows, k))
        rows_shared[group] = {"units": len(sets[group]), "n_tasks_shared": agg["n_tasks"],
                              "pass_hat_k_shared": agg["pass_hat_k"], "ci95_low_shared": agg["ci95_low"],
                              "ci95_high_shared": agg["ci95_high"]}
    return {"same_units": len({frozenset(u) for u in sets.values()}) <= 1, "shared_units": len(shared),
            "units_per_row": sorted((len(u) for u in sets.values()), reverse=True), "rows": rows_shared}


def build_report(episodes: Iterable[Episode], scores: Mapping[str, Mapping[str, Score]],
                 tasks: Mapping[tuple[str, str], Task], k: int | None = None,
                 lineages: Lineages | None = None) -> dict[str, Any]:
    """The whole report: summary per model x agent, per-version tables, breakdowns, infra left, episodes.

    pass^k is computed per (task, version); ``lineages`` (default: the bundled ones) tells the
    evolution section which operators touched which task.
    """
    episodes = list(episodes)
    rows = [episode_row(e, scores.get(e.id, {})) for e in episodes]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[(row["model"], row["agent"])].append(row)
    summary: list[dict[str, Any]] = []
    per_version: list[dict[str, Any]] = []
    unresolved: list[dict[str, Any]] = []
    breakdown: list[dict[str, Any]] = []
    for (model, agent), group in sorted(groups.items()):
        group_k_value = group_k(group, k)
        total = _aggregate(group, group_k_value)
        summary.append({"model": model, "agent": agent, **total})
        unresolved.extend({"model": model, "agent": agent, **item} for item in total["infra_by_task"])
        by_version: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in group:
            by_version[row["version"]].append(row)
        for version in sorted(by_version, key=version_sort_key):
            agg = _aggregate(by_version[version], group_k_value)
            per_version.append({"model": model, "agent": agent, "version": version,
                                **{f: agg[f] for f in ("n_tasks", "k", "pass_hat_k", "pass_at_k", "pass_at_1",
                                                       "ci95_low", "ci95_high", "episodes", "infra_errors",
                                                       "tasks_short_of_k")}})
        for dimension, key in (("category", lambda t: t.category), ("chain_length", lambda t: t.chain_length)):
            buckets: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for row in group:
                task = task_for(tasks, row["task_id"], row["version"])
                if task is not None:
                    buckets[str(key(task))].append(row)
            for value, bucket in sorted(buckets.items()):
                agg = _aggregate(bucket, group_k_value)
                breakdown.append({"model": model, "agent": agent, "dimension": dimension, "value": value,
                                  **{f: agg[f] for f in ("n_tasks", "k", "pass_hat_k", "pass_at_1",
                                                         "infra_errors")}})
    compared = shared_units(groups, k)
    for row in summary:
        row.update(compared["rows"][(row["model"], row["agent"])])
    evolution = []
    for (model, agent), group in sorted(groups.items()):
        found = evolution_summary(group, tasks, lineages)
        if found is not None:
            evolution.append({"model": model, "agent": agent, **found})
    comparison = {key: compared[key] for key in ("same_units", "shared_units", "units_per_row")}
    return {"summary": summary, "comparison": comparison, "per_version": per_version, "breakdown": breakdown,
            "infra_unresolved": unresolved, "evolution": evolution, "judges": judge_section(episodes, scores, tasks),
            **extra_sections(rows, summary), "papers": paper_tables(rows, {e.id: e for e in episodes}, tasks),
            "episodes": rows}


@dataclass(frozen=True)
class EpisodeFilter:
    """Which stored episodes a report covers (``report --model/--agent/--run/--task``); empty: all."""

    models: tuple[str, ...] = ()
    agents: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.models or self.agents or self.runs or self.tasks)

    def keeps(self, episode: Episode) -> bool:
        return all(not wanted or value in wanted for value, wanted in (
            (episode.model, self.models), (episode.agent, self.agents), (episode.run_id, self.runs),
            (episode.task_id, self.tasks)))

    def unknown(self, store: Store) -> list[str]:
        """``--model X: ...`` for each given value no stored episode has (with the values there are)."""
        seen: dict[str, set[str]] = {"model": set(), "agent": set(), "run": set(), "task": set()}
        with store.engine.connect() as conn:  # light columns only, never the episodes' JSON
            for row in conn.execute(select(episodes_table.c.model, episodes_table.c.agent, episodes_table.c.run_id,
                                           episodes_table.c.task_id).distinct()):
                for name, value in zip(("model", "agent", "run", "task"), row, strict=True):
                    seen[name].add(value)
        out = []
        for name, wanted in (("model", self.models), ("agent", self.agents), ("run", self.runs),
                             ("task", self.tasks)):
            missing = [v for v in wanted if v not in seen[name]]
            if missing:
                known = sorted(seen[name])
                shown = ", ".join(known[:10]) + (f" (+{len(known) - 10} more)" if len(known) > 10 else "")
                out.append(f"--{name} {', '.join(missing)}: no stored episode has it (stored: {shown or 'none'})")
        return out


def report_from_store(store: Store, k: int | None = None, lineages: Lineages | None = None,
                      only: EpisodeFilter | None = None) -> dict[str, Any]:
    """Build the report from everything in a store (only the episodes ``only`` keeps, when given)."""
    episodes = store.episodes() if not only else (e for e in store.episodes() if only.keeps(e))
    return build_report(episodes, store.scores(), store.tasks(), k, lineages)
