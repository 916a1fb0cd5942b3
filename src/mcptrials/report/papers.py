"""The published benchmarks' own tables, from the report's episode rows and the stored tasks.

MCP-Bench: average rounds and tool calls per model, single- versus multi-server results;
DynamicMCPBench: results by dynamism and by scope, the share of tasks no model and every model solved;
LiveMCPBench: error classes (query / retrieve / tool / other), tool hallucination rate, retrievals per episode.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from mcptrials.model import Episode, ModelTurn, StateCheckpoint, Task
from mcptrials.store.db import task_for


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def verdict(row: dict[str, Any]) -> bool | None:
    """Whether the episode passed; None when it has no verdict (an infra error, a judge-only task unjudged)."""
    return {"passed": True, "failed": False}.get(row["outcome"])


def _by(rows: list[dict[str, Any]], task_of: Callable[[dict[str, Any]], Task | None], key: Callable[[Task], str],
        verdicts: Mapping[str, bool | None]) -> list[dict[str, Any]]:
    """Pass rate (pass@1 over episodes with a verdict) per model x agent x value of ``key``; ``unjudged``
    counts the judge-only episodes no judge has passed or failed yet."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        task = task_of(row)
        if task is not None and row["outcome"] != "infra_error":
            groups[(row["model"], row["agent"], key(task))].append(row)
    out = []
    for (m, a, v), g in sorted(groups.items()):
        known = [bool(verdicts[r["episode_id"]]) for r in g if verdicts[r["episode_id"]] is not None]
        out.append({"model": m, "agent": a, "value": v, "episodes": len(g), "unjudged": len(g) - len(known),
                    "pass_rate": sum(known) / len(known) if known else None})
    return out


def dynamism(task: Task) -> str:
    """static, live_read or stateful_write: as the task's source says, else state checks mean a write."""
    given = task.provenance.get("dynamism")
    if isinstance(given, str) and given:
        return given
    return "stateful_write" if any(isinstance(c, StateCheckpoint) for c in task.spec.checkpoints) else "static"


def paper_tables(rows: list[dict[str, Any]], episodes: Mapping[str, Episode],
                 tasks: Mapping[tuple[str, str], Task]) -> dict[str, Any]:
    """Every table above, keyed by name (each a list of rows)."""
    def task_of(row: dict[str, Any]) -> Task | None:
        return task_for(tasks, row["task_id"], row["version"])

    effort = []
    per_group: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["outcome"] != "infra_error":
            per_group[(row["model"], row["agent"])].append(row)
    for (model, agent), group in sorted(per_group.items()):
        eps = [episodes[r["episode_id"]] for r in group if r["episode_id"] in episodes]
        calls = [c for e in eps for c in e.tool_calls]
        routes = [s for e in eps for s in e.steps if isinstance(s, ModelTurn) and s.role == "router"]
        effort.append({"model": model, "agent": agent, "episodes": len(group),
                       "avg_rounds": _mean([float(r["turns"]) for r in group]),
                       "avg_tool_calls": _mean([float(r["tool_calls"]) for r in group]),
                       "retrievals_per_episode": len(routes) / len(group) if group else None,
                       "tool_hallucination_rate": (sum(c.error_kind == "unknown_tool" for c in calls) / len(calls)
                                                   if calls else None)})
    verdicts = {r["episode_id"]: verdict(r) for r in rows}
    return {
        "effort": effort,
        "server_scope": _by(rows, task_of, lambda t: "single" if len(t.servers) == 1 else "multi", verdicts),
        "dynamism": _by(rows, task_of, dynamism, verdicts),
        "cross_server": _by(rows, task_of, lambda t: "cross_server" if (
            t.spec.complexity and t.spec.complexity.cross_server) or len(t.servers) > 1 else "one_server", verdicts),
        "solved_share": solved_share(rows, verdicts),
        "error_classes": error_classes(rows),
    }


def solved_share(rows: list[dict[str, Any]], verdicts: Mapping[str, bool | None]) -> dict[str, Any]:
    """Over (task, version) units every model ran: the share no model solved and the share every model solved.

    A model solved a unit when one of its attempts passed (DynamicMCPBench's cross-model table); episodes
    without a verdict do not count.
    """
    solved: dict[tuple[str, str], dict[str, bool]] = defaultdict(dict)
    for row in rows:
        if verdicts[row["episode_id"]] is None:
            continue
        unit, model = (row["task_id"], row["version"]), f"{row['model']} / {row['agent']}"
        solved[unit][model] = solved[unit].get(model, False) or bool(verdicts[row["episode_id"]])
    models = {m for by in solved.values() for m in by}
    shared = [by for by in solved.values() if set(by) == models]
    n = len(shared)
    return {"models": len(models), "units": n,
            "none_solved": sum(not any(by.values()) for by in shared) / n if n else None,
            "all_solved": sum(all(by.values()) for by in shared) / n if n else None}


def live_error_class(row: dict[str, Any]) -> str:
    """A failed episode's LiveMCPBench class: the tool was never found (retrieve), a call failed (tool), the
    request was misread (query), else other; read from the error judge's labels and the episode's tool errors."""
    judged = (row.get("judges") or {}).get("errors") or {}
    if judged.get("taxonomy") in {"tool_blindness", "server_attribution_error"}:
        return "retrieve"
    if judged.get("error_class") == "specification_syntax_error" or row["tool_errors"]:
        return "tool"
    if judged.get("error_class") == "intent_tool_misalignment":
        return "query"
    return "other"


def error_classes(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Failed episodes per LiveMCPBench error class (query / retrieve / tool / other), per model x agent."""
    groups: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for row in rows:
        if row["outcome"] == "failed":
            groups[(row["model"], row["agent"])][live_error_class(row)] += 1
    return [{"model": m, "agent": a, **{c: counts[c] for c in ("query", "retrieve", "tool", "other")}}
            for (m, a), counts in sorted(groups.items())]
