"""The report's judge section: judged scores per episode, Tier-1 vs Tier-1+2, error types, cost, TF-ECS."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from mcptrials.judges.base import JUDGE_ERROR, SCORER_PREFIX
from mcptrials.judges.rubric import DIMENSIONS
from mcptrials.model import Episode, Score, Task, version_sort_key
from mcptrials.scoring.ecs import collect_scores, ecs_report, task_version_table, version_matrix


def judged_scores(scores: Mapping[str, Score]) -> dict[str, Score]:
    """An episode's judged scores by judge name."""
    return {name[len(SCORER_PREFIX):]: s for name, s in scores.items() if name.startswith(SCORER_PREFIX)}


def episode_judgments(scores: Mapping[str, Score]) -> dict[str, dict[str, Any]]:
    """One episode's judged scores, each with its judge model, verdict, main values and cost."""
    out: dict[str, dict[str, Any]] = {}
    for name, s in sorted(judged_scores(scores).items()):
        row: dict[str, Any] = {
            "judge_model": s.detail.get("judge_model"), "version": s.scorer_version, "passed": s.passed,
            "value": None if s.value is None else round(s.value, 4),
            "judge_error": JUDGE_ERROR in s.failure_codes,
            "prompt_tokens": int(s.values.get("judge_prompt_tokens", 0)),
            "completion_tokens": int(s.values.get("judge_completion_tokens", 0)),
            "cost_usd": round(s.values.get("judge_cost_usd", 0.0), 6), "cached": s.detail.get("cached", 0),
        }
        if name == "rubric":
            row["dimensions"] = {d: round(s.values[d], 3) for d in DIMENSIONS if d in s.values}
            row["spread"] = {d: round(s.values[f"{d}_spread"], 3) for d in DIMENSIONS if f"{d}_spread" in s.values}
            row["repeats"] = int(s.values.get("repeats", 0))
        elif name == "keypoints" and "key_points" in s.values:
            row["key_points_met"] = f"{int(s.values['key_points_met'])}/{int(s.values['key_points'])}"
        elif name == "tier2":
            row["overturned"] = bool(s.values.get("overturned"))
            row["checkpoints_upgraded"] = int(s.values.get("checkpoints_upgraded", 0))
        elif name == "errors":
            row["error_class"] = s.detail.get("error_class")
            row["taxonomy"] = s.detail.get("taxonomy")
            row["decided_by"] = s.detail.get("decided_by")
        if s.detail.get("error"):
            row["error"] = s.detail["error"]
        out[name] = row
    return out


def _rate(values: list[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def judge_section(episodes: Iterable[Episode], scores: Mapping[str, Mapping[str, Score]],
                  tasks: Mapping[tuple[str, str], Task]) -> dict[str, Any]:
    """Everything the report says about judges; empty lists when nothing was judged."""
    from mcptrials.store.db import task_for

    episodes = [e for e in episodes if e.infra_error is None and e.termination != "infra_error"]
    groups: dict[tuple[str, str], list[Episode]] = defaultdict(list)
    for e in episodes:
        groups[(e.model, e.agent)].append(e)
    tiers: list[dict[str, Any]] = []
    rubric: list[dict[str, Any]] = []
    keypoints: list[dict[str, Any]] = []
    tf_ecs: list[dict[str, Any]] = []
    counts: dict[str, dict[str, Counter[str]]] = {d: defaultdict(Counter) for d in ("model", "category", "version")}
    taxonomy: dict[str, Counter[str]] = defaultdict(Counter)
    usage: dict[str, dict[str, Any]] = {}
    any_judged = False
    for (model, agent), group in sorted(groups.items()):
        t1: list[bool] = []
        t12: list[bool] = []
        judged = overturned = errors = 0
        dims: dict[str, list[float]] = defaultdict(list)
        kp: list[bool] = []
        for e in group:
            by = scores.get(e.id, {})
            effects = by.get("effects")
            if effects is None:
                continue
            judged_here = judged_scores(by)
            any_judged = any_judged or bool(judged_here)
            tier2 = judged_here.get("tier2")
            if effects.passed is not None:  # (a judge-only task has no Tier-1 verdict to compare)
                t1.append(bool(effects.passed))
                if tier2 is not None and JUDGE_ERROR not in tier2.failure_codes:
                    judged += 1
                    overturned += bool(tier2.passed)
                    t12.append(bool(tier2.passed))
                else:
                    errors += tier2 is not None
                    t12.append(bool(effects.passed))
            rub = judged_here.get("rubric")
            if rub is not None and JUDGE_ERROR not in rub.failure_codes:
                for d in DIMENSIONS:
                    if d in rub.values:
                        dims[d].append(rub.values[d])
                if rub.value is not None:
                    dims["overall"].append(rub.value)
            key = judged_here.get("keypoints")
            if key is not None and key.passed is not None:
                kp.append(bool(key.passed))
            err = judged_here.get("errors")
            if err is not None and err.detail.get("error_class"):
                task = task_for(tasks, e.task_id, e.version)
                klass = str(err.detail["error_class"])
                counts["model"][model][klass] += 1
                counts["category"][task.category if task else "unknown"][klass] += 1
                counts["version"][e.version][klass] += 1
                if err.detail.get("taxonomy"):
                    taxonomy[model][str(err.detail["taxonomy"])] += 1
            for name, s in judged_here.items():
                u = usage.setdefault(name, {"judge": name, "judge_models": set(), "scores": 0, "judge_errors": 0,
                                            "requests": 0, "cached": 0, "prompt_tokens": 0,
                                            "completion_tokens": 0, "cost_usd": 0.0})
                u["judge_models"].add(s.detail.get("judge_model") or "rules")
                u["scores"] += 1
                u["judge_errors"] += JUDGE_ERROR in s.failure_codes
                u["requests"] += int(s.detail.get("requests", 0))
                u["cached"] += int(s.detail.get("cached", 0))
                u["prompt_tokens"] += int(s.values.get("judge_prompt_tokens", 0))
                u["completion_tokens"] += int(s.values.get("judge_completion_tokens", 0))
                u["cost_usd"] += s.values.get("judge_cost_usd", 0.0)
        tiers.append({"model": model, "agent": agent, "episodes": len(t1), "tier1_pass_rate": _rate(t1),
                      "tier1_2_pass_rate": _rate(t12), "tier2_judged": judged, "tier2_overturned": overturned,
                      "tier2_judge_errors": errors})
        if dims:
            rubric.append({"model": model, "agent": agent, "episodes": len(dims.get("overall", [])),
                           **{d: round(statistics.fmean(v), 3) for d, v in dims.items()}})
        if kp:
            keypoints.append({"model": model, "agent": agent, "episodes": len(kp), "pass_rate": _rate(kp)})
        found = _tf_ecs(group, scores)
        if found is not None:
            tf_ecs.append({"model": model, "agent": agent, **found})
    if not any_judged:
        return {}
    for u in usage.values():
        u["judge_models"] = sorted(u["judge_models"])
        u["cost_usd"] = round(u["cost_usd"], 6)
    return {
        "tier1_vs_tier1_2": tiers,
        "error_types": {f"per_{d}": {k: dict(v) for k, v in sorted(c.items())} for d, c in counts.items()},
        "failure_taxonomy_per_model": {k: dict(v) for k, v in sorted(taxonomy.items())},
        "rubric": rubric, "keypoints": keypoints, "tf_ecs": tf_ecs,
        "usage": sorted(usage.values(), key=lambda u: u["judge"]),
        "total_cost_usd": round(sum(u["cost_usd"] for u in usage.values()), 6),
        "total_tokens": sum(u["prompt_tokens"] + u["completion_tokens"] for u in usage.values()),
    }


def _tf_ecs(group: list[Episode], scores: Mapping[str, Mapping[str, Score]]) -> dict[str, Any] | None:
    """MCPEvol ECS on the rubric's task fulfilment (1-10), beside ECS on the checkpoint fraction."""
    versions = sorted({e.version for e in group}, key=version_sort_key)
    if len(versions) < 2:
        return None
    flat = [s for e in group for s in scores.get(e.id, {}).values()]
    tf = task_version_table(collect_scores(group, flat, scorer=SCORER_PREFIX + "rubric",
                                           value_key="task_fulfillment"))
    frac = task_version_table(collect_scores(group, flat, scorer="effects"))
    tf_rows = version_matrix(tf, versions, missing="skip")
    frac_rows = {t: v for t, v in version_matrix(frac, versions, missing="skip").items() if t in tf_rows}
    if not tf_rows:
        return None
    tf_report = ecs_report(tf_rows)
    frac_report = ecs_report(frac_rows) if frac_rows else None
    return {"versions": versions, "tasks": tf_report.n_tasks, "ecs_tf_1_10": round(tf_report.value, 4),
            "ecs_checkpoint_fraction": None if frac_report is None else round(frac_report.value, 4),
            "tf_mean_per_version": {v: round(statistics.fmean(r[i] for r in tf_rows.values()), 3)
                                    for i, v in enumerate(versions)}}
