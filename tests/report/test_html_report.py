"""The HTML report opened in headless Chromium with no network: every plot drawn, numbers equal to the JSON report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser import Chromium
from report_world import cli, report_json

pytestmark = pytest.mark.slow  # the shared store takes a minute of real runs to build

PLOTS = ("plot-leaderboard", "plot-passk", "plot-categories", "plot-chain", "plot-pareto", "plot-versions",
         "plot-operators", "plot-failures", "plot-errors", "plot-rules")

DRAWN = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => ({
    id: gd.id,
    svg: gd.querySelectorAll('svg.main-svg').length,
    traces: gd.data.length,
    marks: gd.querySelectorAll('.cartesianlayer .trace .point, .cartesianlayer .trace path.js-line, '
                                + '.cartesianlayer .hm image').length,
    data: gd.data.map(t => ({type: t.type, name: t.name, x: Array.from(t.x || []), y: Array.from(t.y || []),
                              z: t.z ? Array.from(t.z, row => Array.from(row)) : null})),
}))"""


@pytest.fixture(scope="module")
def page_and_json(world_db: Path, chromium: Chromium, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, dict]:
    out = tmp_path_factory.mktemp("html") / "report.html"
    cli("report", "--db", str(world_db), "--format", "html", "--out", str(out))
    page = chromium.open(out.as_uri())
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 10")
    return page, report_json(world_db)


def test_every_plot_is_drawn_offline(page_and_json: tuple[Any, dict], chromium: Chromium) -> None:
    page, _ = page_and_json
    plots = {p["id"]: p for p in page.evaluate(DRAWN)}
    assert set(PLOTS) <= set(plots), f"missing plots: {set(PLOTS) - set(plots)}"
    for plot_id in PLOTS:
        plot = plots[plot_id]
        assert plot["svg"] >= 1 and plot["traces"] >= 1, plot_id
        assert plot["marks"] >= 1, f"{plot_id}: no bar, point, line or heatmap drawn"
    assert chromium.blocked == []  # plotly.js is inside the file: nothing was fetched
    assert chromium.console_errors == []
    shot = chromium.screenshot(page, "html_report")
    assert shot.stat().st_size > 50_000


def test_embedded_numbers_are_the_json_report(page_and_json: tuple[Any, dict]) -> None:
    page, data = page_and_json
    embedded = json.loads(page.evaluate("document.getElementById('report-data').textContent"))
    assert embedded == data


def _by_name(plots: dict[str, Any], plot_id: str) -> dict[str, Any]:
    return {t["name"]: t for t in plots[plot_id]["data"]}


def test_plotted_values_are_the_json_numbers(page_and_json: tuple[Any, dict]) -> None:
    page, data = page_and_json
    plots = {p["id"]: p for p in page.evaluate(DRAWN)}
    label = {(r["model"], r["agent"]): f"{r['model']} / {r['agent']}" for r in data["summary"]}

    bars = plots["plot-leaderboard"]["data"][0]
    # the fake agent ran v0 only, the others v0 and v3: the bars are pass^k on the 8 units all rows ran
    assert data["comparison"] == {"same_units": False, "shared_units": 8, "units_per_row": [16, 16, 8]}
    assert dict(zip(bars["y"], bars["x"], strict=True)) == {label[(r["model"], r["agent"])]: r["pass_hat_k_shared"]
                                                            for r in data["summary"]}
    curves = _by_name(plots, "plot-passk")
    for curve in data["pass_k_curves"]:
        trace = curves[f"{label[(curve['model'], curve['agent'])]} pass^k"]
        assert trace["x"] == [p["k"] for p in curve["points"]]
        assert trace["y"] == [p["pass_hat_k"] for p in curve["points"]]
    # the fake model gives up on one conversation in three: pass^k falls with k
    fake = next(c for c in data["pass_k_curves"] if c["model"] == "openai:fake-agent")
    assert [p["pass_hat_k"] for p in fake["points"]] == sorted((p["pass_hat_k"] for p in fake["points"]),
                                                               reverse=True)
    heat = plots["plot-categories"]["data"][0]
    cells = {(b["value"], label[(b["model"], b["agent"])]): b["pass_hat_k"]
             for b in data["breakdown"] if b["dimension"] == "category"}
    for i, category in enumerate(heat["y"]):
        for j, column in enumerate(heat["x"]):
            assert heat["z"][i][j] == cells.get((category, column)), (category, column)
    failures = _by_name(plots, "plot-failures")
    for item in data["failure_codes"]:
        trace = failures[label[(item["model"], item["agent"])]]
        assert {c: n for c, n in zip(trace["x"], trace["y"], strict=True) if n} == item["codes"]
    pareto = plots["plot-pareto"]["data"][0]
    assert sorted(zip(pareto["x"], pareto["y"], strict=True)) == sorted(
        (p["cost"], p["pass_hat_k"]) for p in data["pareto"]["points"])
    evo = next(e for e in data["evolution"] if e["agent"] == "stale")
    versions = _by_name(plots, "plot-versions")
    dashed = next(t for name, t in versions.items() if name.startswith("none / stale mean task score"))
    assert dashed["y"] == [evo["stage_means"][v] for v in evo["versions"]]


def test_tables_carry_the_json_numbers(page_and_json: tuple[Any, dict]) -> None:
    page, data = page_and_json
    rows = page.evaluate("""() => Array.from(document.querySelectorAll('#leaderboard tbody tr')).map(tr =>
        Array.from(tr.children).map(td =>
            td.dataset.value === undefined ? td.textContent : JSON.parse(td.dataset.value)))""")
    by_group = {(r[0], r[1]): r for r in rows}
    assert len(by_group) == len(data["summary"])
    for s in data["summary"]:
        row = by_group[(s["model"], s["agent"])]
        assert row[2:5] == [s["n_tasks"], s["k"], s["pass_hat_k"]]
        assert row[5] == s["ci95_low"] and row[6] == s["pass_at_k"]


def test_report_of_an_empty_store_says_so(tmp_path: Path) -> None:
    from mcptrials.store.db import Store

    Store(tmp_path / "empty.db").close()
    out = tmp_path / "r.html"
    cli("report", "--db", str(tmp_path / "empty.db"), "--format", "html", "--out", str(out))
    assert "No episodes stored yet" in out.read_text()


def test_html_into_a_folder_is_one_clear_error(tmp_path: Path, world_db: Path) -> None:
    done = cli("report", "--db", str(world_db), "--format", "html", "--out", str(tmp_path), check=False)
    assert done.returncode == 2 and "is a folder" in done.stderr and "Traceback" not in done.stderr
