"""Render a report as one self-contained HTML file: Plotly plots with plotly.js embedded, offline.

Every plot and table is drawn from the same report dict ``report --format json`` prints, and
that dict is embedded in the page (``<script id="report-data">``), so the two never disagree.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from typing import Any

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from mcptrials.report.codes import all_codes
from mcptrials.report.render import judged_note, leaderboard_note, ranked

CHAIN_ORDER = ("short", "medium", "long")
PALETTE = ("#2563eb", "#ea580c", "#16a34a", "#9333ea", "#dc2626", "#0891b2", "#ca8a04", "#db2777", "#4b5563")
_CONFIG = {"displaylogo": False, "responsive": True, "modeBarButtonsToRemove": ["lasso2d", "select2d"]}


def _label(row: dict[str, Any]) -> str:
    return f"{row['model']} / {row['agent']}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _layout(fig: go.Figure, title: str, height: int = 380, **axes: Any) -> go.Figure:
    axes.setdefault("margin", {"l": 60, "r": 20, "t": 50, "b": 50})
    fig.update_layout(title={"text": title, "x": 0.01, "font": {"size": 15}}, height=height, template="plotly_white",
                      legend={"orientation": "h", "y": -0.2}, font={"size": 12}, colorway=list(PALETTE), **axes)
    return fig


_RATE_AXIS = {"range": [0, 1.05], "tickformat": ".0%"}


# --------------------------------------------------------------------------- figures


def leaderboard_figure(summary: list[dict[str, Any]], shared: int | None = None) -> go.Figure:
    """pass^k per model x agent as horizontal bars with the Wilson 95 % interval as error bars.

    ``shared``: the rows ran different task sets, so the bars are pass^k on the ``shared`` units they all ran.
    """
    suffix = "" if shared is None else "_shared"
    rate, low, high = f"pass_hat_k{suffix}", f"ci95_low{suffix}", f"ci95_high{suffix}"
    rows = sorted((r for r in summary if r.get(rate) is not None), key=lambda r: r[rate])
    fig = go.Figure(go.Bar(
        x=[r[rate] for r in rows], y=[_label(r) for r in rows], orientation="h",
        marker_color=PALETTE[0], text=[f"{_pct(r[rate])} (k={r['k']})" for r in rows],
        textposition="auto", insidetextanchor="start", cliponaxis=False,
        error_x={"type": "data", "symmetric": False,
                 "array": [r[high] - r[rate] for r in rows],
                 "arrayminus": [r[rate] - r[low] for r in rows]},
        hovertemplate="%{y}: pass^k %{x:.1%}<extra></extra>", name="pass^k"))
    title = "Leaderboard: pass^k with 95% interval" + ("" if shared is None else f" on the {shared} shared units")
    return _layout(fig, title, height=max(200, 90 + 45 * len(rows)), xaxis=_RATE_AXIS, yaxis={"automargin": True})


def colours_for(summary: list[dict[str, Any]]) -> dict[str, str]:
    """One colour per model x agent, the same in every plot of the page."""
    return {_label(r): PALETTE[i % len(PALETTE)] for i, r in enumerate(summary)}


def pass_k_figure(curves: list[dict[str, Any]], colours: dict[str, str]) -> go.Figure:
    """pass^k (solid) and pass@k (dotted) against k, one colour per model x agent."""
    fig = go.Figure()
    for curve in curves:
        colour = colours.get(_label(curve), PALETTE[-1])
        ks = [p["k"] for p in curve["points"]]
        fig.add_trace(go.Scatter(x=ks, y=[p["pass_hat_k"] for p in curve["points"]], mode="lines+markers",
                                 name=f"{_label(curve)} pass^k", line={"color": colour}))
        fig.add_trace(go.Scatter(x=ks, y=[p["pass_at_k"] for p in curve["points"]], mode="lines+markers",
                                 name=f"{_label(curve)} pass@k", line={"color": colour, "dash": "dot"}))
    return _layout(fig, "pass^k (all k attempts pass) and pass@k (any passes) by k",
                   xaxis={"title": "k", "dtick": 1}, yaxis={**_RATE_AXIS, "title": "rate"})


def heatmap_figure(breakdown: list[dict[str, Any]], dimension: str = "category") -> go.Figure:
    """pass^k per category (rows) and model x agent (columns), the value written in each cell."""
    cells = [b for b in breakdown if b["dimension"] == dimension]
    columns = list(dict.fromkeys(_label(b) for b in cells))
    values = sorted({b["value"] for b in cells})
    lookup = {(b["value"], _label(b)): b for b in cells}
    z = [[lookup[(v, c)]["pass_hat_k"] if (v, c) in lookup else None for c in columns] for v in values]
    text = [[_pct(lookup[(v, c)]["pass_hat_k"]) + f" ({lookup[(v, c)]['n_tasks']})" if (v, c) in lookup else ""
             for c in columns] for v in values]
    fig = go.Figure(go.Heatmap(z=z, x=columns, y=values, text=text, texttemplate="%{text}", zmin=0, zmax=1,
                               colorscale="RdYlGn", colorbar={"tickformat": ".0%", "title": "pass^k"},
                               hovertemplate="%{y} / %{x}: %{text}<extra></extra>"))
    return _layout(fig, f"pass^k by {dimension} and model (task x version units in brackets)",
                   height=max(260, 110 + 30 * len(values)), yaxis={"automargin": True, "autorange": "reversed"},
                   margin={"l": 170, "r": 20, "t": 50, "b": 50})


def chain_figure(breakdown: list[dict[str, Any]], colours: dict[str, str]) -> go.Figure:
    """pass^k against reference chain length (short 1-2, medium 3-4, long 5+ steps), per model x agent."""
    cells = [b for b in breakdown if b["dimension"] == "chain_length"]
    fig = go.Figure()
    for label in dict.fromkeys(_label(b) for b in cells):
        mine = {b["value"]: b for b in cells if _label(b) == label}
        xs = [v for v in CHAIN_ORDER if v in mine] + sorted(set(mine) - set(CHAIN_ORDER))
        fig.add_trace(go.Scatter(x=xs, y=[mine[x]["pass_hat_k"] for x in xs], mode="lines+markers", name=label,
                                 line={"color": colours.get(label, PALETTE[-1])},
                                 text=[f"{mine[x]['n_tasks']} units" for x in xs],
                                 hovertemplate="%{x}: %{y:.1%} (%{text})<extra></extra>"))
    return _layout(fig, "pass^k by chain length of the reference plan",
                   xaxis={"title": "chain length", "categoryorder": "array", "categoryarray": list(CHAIN_ORDER)},
                   yaxis={**_RATE_AXIS, "title": "pass^k"})


def pareto_figure(front: dict[str, Any]) -> go.Figure:
    """Cost (or tokens) against pass^k; the Pareto front joined by a line."""
    points = front["points"]
    axis = "cost (USD)" if front["axis"] == "cost_usd" else "tokens (prompt + completion)"
    fig = go.Figure(go.Scatter(
        x=[p["cost"] for p in points], y=[p["pass_hat_k"] for p in points], mode="markers+text",
        text=[_label(p) for p in points], textposition="top center", name="model / agent",
        marker={"size": 12, "color": [PALETTE[1] if p["on_front"] else PALETTE[8] for p in points]}))
    on = sorted((p for p in points if p["on_front"]), key=lambda p: p["cost"])
    fig.add_trace(go.Scatter(x=[p["cost"] for p in on], y=[p["pass_hat_k"] for p in on], mode="lines",
                             name="Pareto front", line={"color": PALETTE[1], "dash": "dash"}))
    return _layout(fig, f"{axis.split(' ')[0].capitalize()} vs pass^k (orange: on the Pareto front)",
                   xaxis={"title": axis, "rangemode": "tozero"}, yaxis={**_RATE_AXIS, "title": "pass^k"})


def versions_figure(per_version: list[dict[str, Any]], evolution: list[dict[str, Any]],
                    colours: dict[str, str]) -> go.Figure:
    """pass^k per server version (solid) and the mean task score ECS is built from (dashed)."""
    fig = go.Figure()
    labels = list(dict.fromkeys(_label(r) for r in per_version))
    for label in labels:
        colour = colours.get(label, PALETTE[-1])
        rows = [r for r in per_version if _label(r) == label]
        fig.add_trace(go.Scatter(x=[r["version"] for r in rows], y=[r["pass_hat_k"] for r in rows],
                                 mode="lines+markers", name=f"{label} pass^k", line={"color": colour}))
        evo = next((e for e in evolution if _label(e) == label), None)
        if evo is not None:
            fig.add_trace(go.Scatter(x=evo["versions"], y=[evo["stage_means"].get(v) for v in evo["versions"]],
                                     mode="lines+markers", line={"color": colour, "dash": "dash"},
                                     name=f"{label} mean task score (ECS {_num(evo['ecs'])})"))
    return _layout(fig, "Scores per server version", xaxis={"title": "server version", "type": "category"},
                   yaxis={**_RATE_AXIS, "title": "score"})


def operators_figure(evolution: list[dict[str, Any]], colours: dict[str, str]) -> go.Figure:
    """Mean score change per operator (blamed transitions), one bar series per model x agent."""
    fig = go.Figure()
    for evo in evolution:
        ops = sorted(evo["operator_impact"], key=lambda o: (len(o), o))
        impact = evo["operator_impact"]
        fig.add_trace(go.Bar(x=ops, y=[impact[o]["mean_delta"] for o in ops], name=_label(evo),
                             marker_color=colours.get(_label(evo), PALETTE[-1]),
                             text=[f"{impact[o]['transitions']} tr., {evo['tasks_broken_by_operator'].get(o, 0)} "
                                   "broken" for o in ops],
                             hovertemplate="%{x}: %{y:+.3f} (%{text})<extra></extra>"))
    return _layout(fig, "Operator impact: mean change of task score where the operator touched the task's tools",
                   barmode="group", xaxis={"title": "operator (see the legend)"},
                   yaxis={"title": "mean score change", "zeroline": True})


def counts_figure(items: list[dict[str, Any]], key: str, title: str, colours: dict[str, str]) -> go.Figure:
    """Grouped bars of counts per code (``items[i][key]`` maps code -> count), one series per model x agent."""
    codes = sorted({c for it in items for c in it[key]}, key=lambda c: -sum(it[key].get(c, 0) for it in items))
    fig = go.Figure()
    for it in items:
        fig.add_trace(go.Bar(x=codes, y=[it[key].get(c, 0) for c in codes], name=_label(it),
                             marker_color=colours.get(_label(it), PALETTE[-1])))
    return _layout(fig, title, barmode="group", yaxis={"title": "count", "rangemode": "tozero"})


def rules_figure(summary: list[dict[str, Any]], colours: dict[str, str]) -> go.Figure:
    """The rule metrics (MCP-Bench) per model x agent."""
    from mcptrials.report.summary import RULE_METRICS

    names = {"valid_tool_name_rate": "valid tool names", "schema_compliance_rate": "schema compliance",
             "execution_success_rate": "execution success", "dependency_compliance_rate": "dependency compliance"}
    fig = go.Figure()
    for r in summary:
        fig.add_trace(go.Bar(x=[names[m] for m in RULE_METRICS], y=[r[m] for m in RULE_METRICS], name=_label(r),
                             marker_color=colours.get(_label(r), PALETTE[-1]),
                             text=[_pct(r[m]) for m in RULE_METRICS], textposition="outside"))
    return _layout(fig, "Rule metrics (share of tool calls)", barmode="group",
                   yaxis={**_RATE_AXIS, "range": [0, 1.12], "title": "rate"})  # room for the 100.0% labels


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


# --------------------------------------------------------------------------- page


def _table(columns: list[str], rows: list[list[Any]], raw: list[list[Any]] | None = None) -> str:
    """An HTML table; a cell whose raw value is a number carries it in ``data-value``."""
    head = "".join(f"<th>{_esc(c)}</th>" for c in columns)
    body = []
    for i, row in enumerate(rows):
        cells = []
        for j, cell in enumerate(row):
            value = raw[i][j] if raw else None
            attr = f' data-value="{_esc(json.dumps(value))}"' if isinstance(value, int | float) else ""
            cells.append(f"<td{attr}>{_esc(cell)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _plot(fig: go.Figure, div_id: str) -> str:
    return str(fig.to_html(full_html=False, include_plotlyjs=False, div_id=div_id, config=_CONFIG))


def _section(anchor: str, title: str, intro: str, body: str) -> str:
    return f'<section id="{anchor}"><h2>{_esc(title)}</h2><p class="intro">{intro}</p>{body}</section>'


def _leaderboard_table(summary: list[dict[str, Any]], comparison: dict[str, Any]) -> str:
    differ = not comparison.get("same_units", True)
    cols = ["model", "agent", "task x version", "k", "pass^k", "95% CI", "pass@k", "pass@1", "infra errors",
            "tokens", "cost $", *([f"pass^k on {comparison['shared_units']} shared"] if differ else [])]
    rows, raw = [], []
    for r in ranked(summary, comparison):
        ci = "–" if r["ci95_low"] is None else f"{100 * r['ci95_low']:.0f}–{100 * r['ci95_high']:.0f}%"
        tokens = r["prompt_tokens"] + r["completion_tokens"]
        shared = [r.get("pass_hat_k_shared")] if differ else []
        rows.append([r["model"], r["agent"], r["n_tasks"], r["k"], _pct(r["pass_hat_k"]), ci, _pct(r["pass_at_k"]),
                     _pct(r["pass_at_1"]), r["infra_errors"], f"{tokens:,}", f"{r['cost_usd']:.4f}",
                     *map(_pct, shared)])
        raw.append([None, None, r["n_tasks"], r["k"], r["pass_hat_k"], r["ci95_low"], r["pass_at_k"], r["pass_at_1"],
                    r["infra_errors"], tokens, r["cost_usd"], *shared])
    note = f'<p class="note" id="leaderboard-note">{_esc(leaderboard_note(comparison))}</p>' if differ else ""
    judged = judged_note(summary)
    note += f'<p class="note" id="judged-note">{_esc(judged)}</p>' if judged else ""
    return note + _table(cols, rows, raw)


def _evolution_table(evolution: list[dict[str, Any]]) -> str:
    cols = ["model", "agent", "versions", "ECS", "tasks in ECS", "tasks missing a version", "tasks broken"]
    rows, raw = [], []
    for e in evolution:
        rows.append([e["model"], e["agent"], ", ".join(e["versions"]), _num(e["ecs"]), e["ecs_tasks"],
                     len(e["tasks_missing_versions"]), len(e["broken_tasks"])])
        raw.append([None, None, None, e["ecs"], e["ecs_tasks"], len(e["tasks_missing_versions"]),
                    len(e["broken_tasks"])])
    nobody = "no operator touching its tools (or a release: no operators)"
    broken = "".join(f"<li>{_esc(b['task_id'])}: {_esc(b['from'])} → {_esc(b['to'])}, blamed on "
                     f"{_esc(', '.join(b['operators']) or nobody)}</li>"
                     for e in evolution for b in e["broken_tasks"])
    return _table(cols, rows, raw) + (f"<details><summary>Tasks broken between versions</summary><ul>{broken}</ul>"
                                      "</details>" if broken else "")


def _legend() -> str:
    rows = [[c.code, c.family, c.name, c.meaning] for c in all_codes()]
    return _table(["code", "kind", "name", "meaning"], rows)


_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#111827;background:#f3f4f6}
header{background:#111827;color:#f9fafb;padding:18px 32px}
header h1{margin:0 0 4px;font-size:22px} header p{margin:0;color:#d1d5db;font-size:14px}
nav{padding:8px 32px;background:#e5e7eb;font-size:13px;position:sticky;top:0;z-index:10}
nav a{margin-right:14px;color:#1f2937;text-decoration:none} nav a:hover{text-decoration:underline}
main{max-width:1280px;margin:0 auto;padding:16px 24px}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:8px 0 4px}
.card{background:#fff;border-radius:8px;padding:10px 16px;box-shadow:0 1px 2px #0001;min-width:150px}
.card b{display:block;font-size:22px} .card span{font-size:12px;color:#6b7280}
section{background:#fff;border-radius:8px;margin:16px 0;padding:12px 20px;box-shadow:0 1px 2px #0001}
section h2{font-size:17px;margin:6px 0} .intro{color:#4b5563;font-size:13px;margin:2px 0 8px}
table{border-collapse:collapse;font-size:12.5px;margin:8px 0;width:100%}
th,td{border-bottom:1px solid #e5e7eb;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f9fafb} td[data-value]{text-align:right;font-variant-numeric:tabular-nums}
.empty{color:#6b7280;font-style:italic} details{font-size:13px;margin:6px 0}
"""


_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})
"""JSON escapes for the characters that could end or re-open the embedded data block (``</script``,
``<!--<script``): the JSON means the same, and no stored text can change how the page is parsed."""


def render_html(report: dict[str, Any], title: str = "mcptrials report", source: str = "") -> str:
    """The whole report as one HTML document with plotly.js inlined (no network needed to view it)."""
    summary = report["summary"]
    comparison = report.get("comparison") or {"same_units": True}
    colours = colours_for(summary)
    data = json.dumps(report, default=str, sort_keys=False).translate(_SCRIPT_SAFE)
    parts: list[str] = []
    nav: list[tuple[str, str]] = []

    def add(anchor: str, heading: str, intro: str, body: str) -> None:
        nav.append((anchor, heading))
        parts.append(_section(anchor, heading, intro, body))

    def empty(why: str) -> str:
        return f'<p class="empty">{_esc(why)}</p>'

    ended = report.get("runs_ended_early") or []
    if ended:  # a crash or an interrupt: say so before the (possibly empty) results
        add("runs", "Runs that ended early", "Their finished episodes are stored; re-run the same command to "
            "resume (stored episodes are skipped).",
            _table(["run", "model / agent / version", "status", "what to do"],
                   [[s["id"], s["label"] or "", s["text"] + (f": {s['note']}" if s["status"] == "failed" and s["note"]
                                                             else ""), s["hint"]] for s in ended]))
    if not summary:
        parts.append(_section("empty", "No episodes", "", empty("No episodes stored yet: run `mcptrials run` first.")))
    elif not any(r["n_tasks"] for r in summary):  # only infra errors: no plot has a point to draw
        kinds = Counter(str(e["infra_error"]) for e in report["episodes"] if e["outcome"] == "infra_error")
        add("leaderboard", "Leaderboard", "Infra errors are not attempts.",
            empty("Every episode ended in an infra error (the harness, not the agent), so nothing was scored "
                  "and there is nothing to plot. Fix the cause and run again: stored infra episodes are retried.")
            + _leaderboard_table(summary, comparison)
            + _table(["infra error", "episodes"], [[k, n] for k, n in kinds.most_common()]))
    else:
        shared = None if comparison.get("same_units", True) or not comparison["shared_units"] \
            else comparison["shared_units"]
        add("leaderboard", "Leaderboard", "pass^k over (task, server version) units; the interval is the Wilson 95% "
            "interval. Infra errors are not attempts.", _plot(leaderboard_figure(summary, shared), "plot-leaderboard")
            + _leaderboard_table(summary, comparison))
        add("passk", "pass^k by k", "How reliability falls as more attempts must all pass (pass^k) and how often "
            "any of k passes (pass@k).", _plot(pass_k_figure(report["pass_k_curves"], colours), "plot-passk"))
        has_category = any(b["dimension"] == "category" for b in report["breakdown"])
        add("categories", "Category × model", "pass^k of each task category for each model and agent.",
            _plot(heatmap_figure(report["breakdown"]), "plot-categories") if has_category
            else empty("No task definitions stored for these episodes."))
        has_chain = any(b["dimension"] == "chain_length" for b in report["breakdown"])
        add("chain", "Chain length", "Short: 1-2 reference steps, medium: 3-4, long: 5 or more.",
            _plot(chain_figure(report["breakdown"], colours), "plot-chain") if has_chain
            else empty("No task definitions stored for these episodes."))
        add("pareto", "Cost vs pass^k", "Models and agents no other beats on both cost and pass^k form the front."
            + (" Nothing was priced, so tokens stand in for cost." if report["pareto"]["axis"] == "tokens" else ""),
            _plot(pareto_figure(report["pareto"]), "plot-pareto"))
        evolution = report["evolution"]
        multi = len({r["version"] for r in report["per_version"]}) > 1
        add("versions", "Server versions and ECS", "pass^k on each server version; dashed: the mean task score "
            "(checkpoint fraction, 0 after an outright failure) that ECS is computed from.",
            (_plot(versions_figure(report["per_version"], evolution, colours), "plot-versions")
             + _evolution_table(evolution))
            if multi else empty("Every episode ran on one server version (run with --stages or --versions to compare "
                                 "versions)."))
        impact = any(e["operator_impact"] for e in evolution)
        add("operators", "Operator impact", "Blamed per consecutive pair of versions run, only on operators that "
            "touched a tool the task uses.", _plot(operators_figure(evolution, colours), "plot-operators") if impact
            else empty("No evolved versions were run, or no operator touched a task's tools."))
        fails = any(f["codes"] for f in report["failure_codes"])
        add("failures", "Failure codes", "Why failed episodes failed (Tier-1 scorer; one episode may have several "
            "codes).", _plot(counts_figure(report["failure_codes"], "codes", "Failure codes of failed episodes",
                                           colours), "plot-failures") if fails else empty("No failed episodes."))
        errors = any(e["kinds"] for e in report["tool_error_kinds"])
        judged = (report.get("judges") or {}).get("error_types", {}).get("per_model", {})
        body = (_plot(counts_figure(report["tool_error_kinds"], "kinds", "Tool calls by error kind", colours),
                      "plot-errors") if errors else empty("No tool call returned an error."))
        if judged:
            items = [{"model": m, "agent": "judged", "types": counts} for m, counts in judged.items()]
            body += _plot(counts_figure(items, "types", "Error types (error-type judge)", colours), "plot-error-types")
        add("errors", "Error types", "Tool-call errors the agents met, by kind; with --judge, the error-type "
            "judge's classes as well.", body)
        add("rules", "Rule metrics", "Valid tool names, schema-compliant arguments and successful executions, "
            "as shares of tool calls.", _plot(rules_figure(summary, colours), "plot-rules"))
    add("legend", "Legend", "Every code this report and `mcptrials diff` use (also: `mcptrials explain CODE`).",
        f"<details><summary>Show the {len(all_codes())} codes</summary>{_legend()}</details>")
    episodes = report["episodes"]
    comparable = comparison.get("same_units", True) or comparison["shared_units"]
    best = ranked(summary, comparison)[0] if summary and comparable else None
    cards = [("episodes", f"{len(episodes):,}"), ("models × agents", str(len(summary))),
             ("tasks", str(len({e['task_id'] for e in episodes}))),
             ("versions", str(len({e['version'] for e in episodes}))),
             ("infra errors", str(sum(r["infra_errors"] for r in summary)))]
    if any(r.get("judged_episodes") for r in summary):
        cards += [("judged verdicts (judge-only tasks)", str(sum(r["judged_episodes"] for r in summary))),
                  ("unjudged: not in pass rates", str(sum(r["unjudged"] for r in summary)))]
    if best is not None:
        rate = best["pass_hat_k"] if comparison.get("same_units", True) else best.get("pass_hat_k_shared")
        on = "" if comparison.get("same_units", True) else f" (on {comparison['shared_units']} shared units)"
        cards.insert(0, (f"best pass^k{on}: {_label(best)}", _pct(rate)))
    card_html = "".join(f'<div class="card"><b>{_esc(v)}</b><span>{_esc(k)}</span></div>' for k, v in cards)
    nav_html = "".join(f'<a href="#{a}">{_esc(t)}</a>' for a, t in nav)
    return (
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{_esc(title)}</title>"
        f"<style>{_CSS}</style><script>{get_plotlyjs()}</script></head><body>"
        f"<header><h1>{_esc(title)}</h1><p>{_esc(source)}</p></header><nav>{nav_html}</nav>"
        f"<main><div class=\"cards\">{card_html}</div>{''.join(parts)}</main>"
        f"<script type=\"application/json\" id=\"report-data\">{data}</script></body></html>"
    )
