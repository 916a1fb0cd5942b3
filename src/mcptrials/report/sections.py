"""Report sections the plots need beyond the tables: pass^k by k, failure codes, tool error kinds, Pareto front.

Each is computed once here from the report's episode rows and summary, so the JSON report and
the HTML report show the same numbers.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from mcptrials.scoring.stats import pass_rates

Group = tuple[str, str]
"""(model, agent): the unit every leaderboard row and plot series stands for."""


def _groups(rows: list[dict[str, Any]]) -> dict[Group, list[dict[str, Any]]]:
    out: dict[Group, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        out[(row["model"], row["agent"])].append(row)
    return dict(sorted(out.items()))


def pass_k_curves(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """pass^k and pass@k for k = 1 .. the most scored attempts, per model x agent, over (task, version) units.

    A unit counts at k only when it has at least k scored attempts (``n_tasks`` says how many did).
    """
    curves = []
    for (model, agent), group in _groups(rows).items():
        attempts: dict[tuple[str, str], list[bool]] = defaultdict(list)
        for row in group:
            if row["outcome"] != "infra_error":
                attempts[(row["task_id"], row["version"])].append(row["outcome"] == "passed")
        most = max((len(v) for v in attempts.values()), default=0)
        points = []
        for k in range(1, most + 1):
            rates = pass_rates(attempts, k)
            points.append({"k": k, "pass_hat_k": rates.pass_hat_k, "pass_at_k": rates.pass_at_k,
                           "n_tasks": rates.n_units})
        curves.append({"model": model, "agent": agent, "points": points})
    return curves


def failure_codes(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """How often each failure code occurs on failed episodes, per model x agent (an episode may have several)."""
    out = []
    for (model, agent), group in _groups(rows).items():
        counts: Counter[str] = Counter()
        failed = [r for r in group if r["outcome"] == "failed"]
        for row in failed:
            counts.update(row["failure_codes"] or ["(no code)"])
        out.append({"model": model, "agent": agent, "failed_episodes": len(failed),
                    "codes": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))})
    return out


def tool_error_kinds(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool calls per error kind (tool_error, unknown_tool, invalid_arguments, timeout, ...), per model x agent."""
    out = []
    for (model, agent), group in _groups(rows).items():
        counts: Counter[str] = Counter()
        for row in group:
            counts.update(row.get("tool_errors") or {})
        out.append({"model": model, "agent": agent, "tool_calls": sum(r["tool_calls"] for r in group),
                    "kinds": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))})
    return out


def pareto(summary: list[dict[str, Any]]) -> dict[str, Any]:
    """Cost (USD, or tokens when nothing was priced) against pass^k per model x agent, with the Pareto front.

    A point is on the front when no other point is at most as costly and strictly better, or
    strictly cheaper and at least as good.
    """
    priced = any(r["cost_usd"] for r in summary)
    axis = "cost_usd" if priced else "tokens"
    points = [{"model": r["model"], "agent": r["agent"], "pass_hat_k": r["pass_hat_k"],
               "cost": r["cost_usd"] if priced else r["prompt_tokens"] + r["completion_tokens"]}
              for r in summary if r["pass_hat_k"] is not None]
    for p in points:
        p["on_front"] = not any(
            (q["cost"] <= p["cost"] and q["pass_hat_k"] > p["pass_hat_k"])
            or (q["cost"] < p["cost"] and q["pass_hat_k"] >= p["pass_hat_k"]) for q in points if q is not p)
    return {"axis": axis, "points": points}


def extra_sections(rows: list[dict[str, Any]], summary: list[dict[str, Any]]) -> dict[str, Any]:
    """The sections above, keyed as they appear in the report."""
    return {"pass_k_curves": pass_k_curves(rows), "failure_codes": failure_codes(rows),
            "tool_error_kinds": tool_error_kinds(rows), "pareto": pareto(summary)}
