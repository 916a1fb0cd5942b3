"""Render a report as terminal tables, JSON or CSV."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from rich.console import Console
from rich.table import Table

from mcptrials.console_tables import protect_ids
from mcptrials.console_text import PlainTable, plain


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


IDENTIFIERS = ("model", "agent", "version", "task", "operator", "judge", "judge model", "category", "chain_length")
"""Columns whose values are never broken mid-word while the terminal has room (see console_tables)."""


def _show(console: Console, table: Table) -> None:
    console.print(protect_ids(table, IDENTIFIERS, console.width))


def render_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=False, default=str)


def render_csv(report: dict[str, Any]) -> str:
    """The episode rows as CSV (nested fields as JSON text)."""
    rows = report["episodes"]
    buffer = io.StringIO()
    if not rows:
        return ""
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    writer.writeheader()
    for row in rows:
        writer.writerow({k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in row.items()})
    return buffer.getvalue()


def _print_per_version(report: dict[str, Any], console: Console) -> None:
    rows = report.get("per_version", [])
    if not rows:
        return
    table = PlainTable(title="Results per server version", title_justify="left")
    for col in ("model", "agent", "version", "tasks", "k", "pass^k", "95% CI", "pass@k", "pass@1", "short of k",
                "infra errors"):
        table.add_column(col, justify="left" if col in {"model", "agent", "version"} else "right")
    for r in rows:
        ci = "-" if r["ci95_low"] is None else f"{100 * r['ci95_low']:.0f}-{100 * r['ci95_high']:.0f}%"
        table.add_row(r["model"], r["agent"], r["version"], str(r["n_tasks"]), str(r["k"]), _pct(r["pass_hat_k"]),
                      ci, _pct(r["pass_at_k"]), _pct(r["pass_at_1"]), str(r["tasks_short_of_k"]),
                      str(r["infra_errors"]))
    _show(console, table)


def _print_infra(report: dict[str, Any], console: Console) -> None:
    rows = report.get("infra_unresolved", [])
    if not rows:
        return
    table = PlainTable(title="Infra errors still stored (not results: run the same command again to retry them)",
                  title_justify="left")
    for col in ("model", "agent", "task", "version", "infra episodes", "scored attempts"):
        table.add_column(col, justify="right" if col in {"infra episodes", "scored attempts"} else "left")
    for r in rows:
        table.add_row(r["model"], r["agent"], r["task_id"], r["version"], str(r["infra_errors"]),
                      str(r["scored_attempts"]))
    _show(console, table)


def _print_judges(report: dict[str, Any], console: Console) -> None:
    judges = report.get("judges") or {}
    if not judges:
        return
    tiers = PlainTable(title="Tier-1 vs Tier-1+2 (the Tier-2 judge may upgrade failed effect, value and state "
                             "checkpoints)", title_justify="left")
    for col in ("model", "agent", "episodes", "Tier-1 pass", "Tier-1+2 pass", "judged", "overturned",
                "judge errors"):
        tiers.add_column(col, justify="left" if col in {"model", "agent"} else "right")
    for r in judges["tier1_vs_tier1_2"]:
        tiers.add_row(r["model"], r["agent"], str(r["episodes"]), _pct(r["tier1_pass_rate"]),
                      _pct(r["tier1_2_pass_rate"]), str(r["tier2_judged"]), str(r["tier2_overturned"]),
                      str(r["tier2_judge_errors"]))
    _show(console, tiers)
    usage = PlainTable(title="Judges: model, calls and cost", title_justify="left")
    for col in ("judge", "judge model", "scores", "judge errors", "requests", "cached", "tokens", "cost $"):
        usage.add_column(col, justify="left" if col in {"judge", "judge model"} else "right")
    for u in judges["usage"]:
        usage.add_row(u["judge"], ", ".join(u["judge_models"]), str(u["scores"]), str(u["judge_errors"]),
                      str(u["requests"]), str(u["cached"]), f"{u['prompt_tokens'] + u['completion_tokens']:,}",
                      f"{u['cost_usd']:.4f}")
    _show(console, usage)
    for r in judges.get("rubric", []):
        dims = ", ".join(f"{k} {v}" for k, v in r.items() if k not in {"model", "agent", "episodes"})
        console.print(plain(f"Rubric means ({r['model']} / {r['agent']}, {r['episodes']} episodes): {dims}"))
    for r in judges.get("keypoints", []):
        console.print(plain(f"Key-point judge ({r['model']} / {r['agent']}): pass rate {_pct(r['pass_rate'])} "
                            f"over {r['episodes']} episodes"))
    for r in judges.get("tf_ecs", []):
        console.print(plain(f"ECS on judged task fulfilment 1-10 ({r['model']} / {r['agent']}, {r['tasks']} tasks): "
                            f"{_num(r['ecs_tf_1_10'])}; on the checkpoint fraction: "
                            f"{_num(r['ecs_checkpoint_fraction'])}"))
    for model, counts in judges["error_types"]["per_model"].items():
        by_count = sorted(counts.items(), key=lambda x: -x[1])
        console.print(plain(f"Error types ({model}): " + ", ".join(f"{k} {v}" for k, v in by_count)))


def judged_note(summary: list[dict[str, Any]]) -> str | None:
    """Which verdicts are the judges' (judge-only tasks) and how many are still unjudged (one line), or None."""
    judged = sum(r.get("judged_episodes", 0) for r in summary)
    if not judged:
        return None
    unjudged = sum(r.get("unjudged", 0) for r in summary)
    left = (f"; {unjudged} not judged yet, left out of the pass rates (`mcptrials score --judge MODEL` judges "
            "them)") if unjudged else ""
    return (f"{judged} episode verdict{'s are' if judged != 1 else ' is'} judged: judge-only tasks, decided by "
            f"the judges they name (key points), not by Tier-1{left}.")


def leaderboard_note(comparison: dict[str, Any]) -> str:
    """What the leaderboard ranks on when its rows ran different task sets (one line)."""
    sizes = " / ".join(str(n) for n in comparison["units_per_row"])
    if not comparison["shared_units"]:
        return (f"Rows ran on different task sets ({sizes} task x version units) and share none: their pass^k "
                "are not comparable, so the rows are not ranked.")
    n = comparison["shared_units"]
    return (f"Rows ran on different task sets ({sizes} task x version units): ranked on the {n} "
            f"unit{'s' if n != 1 else ''} all rows share (pass^k on them in the last column).")


def ranked(summary: list[dict[str, Any]], comparison: dict[str, Any]) -> list[dict[str, Any]]:
    """Leaderboard order: by pass^k, on the shared units when the rows' task sets differ (none shared: as given)."""
    if comparison.get("same_units", True):
        return sorted(summary, key=lambda r: -(r["pass_hat_k"] or 0))
    if not comparison["shared_units"]:
        return list(summary)
    return sorted(summary, key=lambda r: -(r.get("pass_hat_k_shared") or 0))


def print_tables(report: dict[str, Any], console: Console) -> None:
    """The summary and breakdowns as terminal tables."""
    if not report["summary"]:
        console.print("No episodes stored yet.")
        return
    comparison = report.get("comparison") or {"same_units": True}
    differ = not comparison["same_units"]
    table = PlainTable(title="Results per model and agent (unit: one task on one server version)", title_justify="left")
    shared_col = f"pass^k on {comparison.get('shared_units', 0)} shared"
    for col in ("model", "agent", "task x version", "k", "pass^k", "95% CI", "pass@k", "pass@1", "short of k",
                "infra errors", *([shared_col] if differ else [])):
        table.add_column(col, justify="left" if col in {"model", "agent"} else "right")
    usage = PlainTable(title="Tool use and cost", title_justify="left")
    for col in ("model", "agent", "valid names", "schema ok", "calls ok", "deps kept", "tokens in", "tokens out",
                "cost $"):
        usage.add_column(col, justify="left" if col in {"model", "agent"} else "right")
    if differ:
        console.print(leaderboard_note(comparison), highlight=False, soft_wrap=True)
    for r in ranked(report["summary"], comparison):
        ci = "-" if r["ci95_low"] is None else f"{100 * r['ci95_low']:.0f}-{100 * r['ci95_high']:.0f}%"
        table.add_row(r["model"], r["agent"], str(r["n_tasks"]), str(r["k"]), _pct(r["pass_hat_k"]), ci,
                      _pct(r["pass_at_k"]), _pct(r["pass_at_1"]), str(r["tasks_short_of_k"]), str(r["infra_errors"]),
                      *([_pct(r.get("pass_hat_k_shared"))] if differ else []))
        usage.add_row(r["model"], r["agent"], _pct(r["valid_tool_name_rate"]), _pct(r["schema_compliance_rate"]),
                      _pct(r["execution_success_rate"]), _pct(r["dependency_compliance_rate"]),
                      f"{r['prompt_tokens']:,}", f"{r['completion_tokens']:,}",
                      f"{r['cost_usd']:.4f}")
    _show(console, table)
    note = judged_note(report["summary"])
    if note:
        console.print(plain(note))
    _show(console, usage)
    _print_judges(report, console)
    _print_per_version(report, console)
    _print_infra(report, console)
    dims = sorted({b["dimension"] for b in report["breakdown"]})
    for dim in dims:
        sub = PlainTable(title=f"pass^k by {dim.replace('_', ' ')}", title_justify="left")
        for col in ("model", "agent", dim, "task x version", "pass^k", "pass@1", "infra"):
            sub.add_column(col)
        for b in (b for b in report["breakdown"] if b["dimension"] == dim):
            sub.add_row(b["model"], b["agent"], b["value"], str(b["n_tasks"]), _pct(b["pass_hat_k"]),
                        _pct(b["pass_at_1"]), str(b["infra_errors"]))
        _show(console, sub)
    _print_papers(report.get("papers") or {}, console)
    for evo in report.get("evolution", []):
        table = PlainTable(title=f"Server evolution: {evo['model']} / {evo['agent']} (ECS {_num(evo['ecs'])} over "
                            f"{evo['ecs_tasks']} tasks)", title_justify="left")
        table.add_column("version")
        table.add_column("mean task score", justify="right")
        for version in evo["versions"]:
            table.add_row(version, _num(evo["stage_means"].get(version)))
        _show(console, table)
        if evo.get("ecs_basis"):
            console.print(plain(f"ECS: {evo['ecs_basis']}."))
        missing = evo.get("tasks_missing_versions", [])
        if missing:
            console.print(plain(f"Left out of ECS, {len(missing)} task(s) missing a version: " + ", ".join(
                f"{m['task_id']} (no {'/'.join(m['missing'])})" for m in missing)))
        basis = "operators that touched the task's tools" if evo.get("blame_basis") == "tools" else \
            "every operator of the rounds in between (lineages not at hand)"
        ops = PlainTable(title=f"Operator impact (per consecutive pair of run versions; blame: {basis})",
                    title_justify="left")
        for col in ("operator", "mean score change", "transitions", "tasks broken"):
            ops.add_column(col, justify="left" if col == "operator" else "right")
        for op in sorted(set(evo["operator_impact"]) | set(evo["tasks_broken_by_operator"]),
                         key=lambda o: (len(o), o)):
            impact = evo["operator_impact"].get(op, {})
            ops.add_row(op, _num(impact.get("mean_delta"), signed=True), str(impact.get("transitions", 0)),
                        str(evo["tasks_broken_by_operator"].get(op, 0)))
        _show(console, ops)
    failed = [e for e in report["episodes"] if e["outcome"] == "failed"]
    if failed:
        codes: dict[str, int] = {}
        for e in failed:
            for code in e["failure_codes"]:
                codes[code] = codes.get(code, 0) + 1
        by_count = sorted(codes.items(), key=lambda x: -x[1])
        console.print(plain("Failure codes: " + ", ".join(f"{c} {n}" for c, n in by_count)))


def _print_papers(papers: dict[str, Any], console: Console) -> None:
    """The published benchmarks' tables: effort and retrieval, pass rate by scope and dynamism, tasks solved."""
    if not papers.get("effort"):
        return
    effort = PlainTable(title="Effort and retrieval (MCP-Bench, LiveMCPBench)", title_justify="left")
    for col in ("model", "agent", "avg rounds", "avg tool calls", "retrievals/episode", "hallucinated tools"):
        effort.add_column(col, justify="left" if col in {"model", "agent"} else "right")
    for r in papers["effort"]:
        effort.add_row(r["model"], r["agent"], _num(r["avg_rounds"]), _num(r["avg_tool_calls"]),
                       _num(r["retrievals_per_episode"]), _pct(r["tool_hallucination_rate"]))
    _show(console, effort)
    split = PlainTable(title="Pass rate by server scope and dynamism (MCP-Bench, DynamicMCPBench)",
                       title_justify="left")
    for col in ("model", "agent", "by", "value", "episodes", "unjudged", "pass rate"):
        split.add_column(col)
    for key in ("server_scope", "cross_server", "dynamism"):
        for r in papers.get(key, []):
            split.add_row(r["model"], r["agent"], key.replace("_", " "), r["value"], str(r["episodes"]),
                          str(r["unjudged"]), _pct(r["pass_rate"]))
    _show(console, split)
    if papers.get("error_classes"):
        classes = PlainTable(title="Failed episodes by error class (LiveMCPBench)", title_justify="left")
        for col in ("model", "agent", "query", "retrieve", "tool", "other"):
            classes.add_column(col)
        for r in papers["error_classes"]:
            classes.add_row(r["model"], r["agent"], *(str(r[c]) for c in ("query", "retrieve", "tool", "other")))
        _show(console, classes)
    share = papers.get("solved_share") or {}
    if share.get("units"):
        console.print(f"Tasks no model solved: {_pct(share['none_solved'])}; every model solved: "
                      f"{_pct(share['all_solved'])} (over {share['units']} tasks x versions all {share['models']} "
                      "model x agent rows ran)", highlight=False)
