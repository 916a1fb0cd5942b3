"""`mcptrials view` in a real headless Chromium, against a store made by real runs: matrix counts, every step and
checkpoint of every episode, the side-by-side alignment, judges, and screenshots kept as artifacts."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import httpx
import pytest
from browser import Chromium

from mcptrials.model import Episode, Score
from mcptrials.store.db import Store, outcome_of

from .conftest import Served

pytestmark = pytest.mark.slow


def stored(db: Path) -> tuple[list[Episode], dict[str, dict[str, Score]]]:
    store = Store(db)
    try:
        return list(store.episodes()), store.scores()
    finally:
        store.close()


def test_runs_page_lists_both_runs(viewer: Served, chromium: Chromium) -> None:
    episodes, _ = stored(viewer.db)
    page = chromium.open(viewer.url + "/")
    rows = page.locator("#runs tbody tr")
    assert rows.count() == len({e.run_id for e in episodes}) >= 2
    listed = sorted(int(rows.nth(i).locator("td").nth(4).inner_text()) for i in range(rows.count()))
    assert listed == sorted(Counter(e.run_id for e in episodes).values())
    chromium.screenshot(page, "runs")
    assert chromium.blocked == [] and chromium.console_errors == []


def test_matrix_counts_match_the_store(viewer: Served, chromium: Chromium) -> None:
    episodes, scores = stored(viewer.db)
    expected: dict[tuple[str, str], Counter[str]] = {}
    for e in episodes:
        outcome = outcome_of(e, scores.get(e.id, {}).get("effects"))
        expected.setdefault((e.task_id, f"{e.model}|{e.agent}|{e.version}"), Counter())[outcome] += 1
    page = chromium.open(viewer.url + "/matrix")
    chromium.screenshot(page, "matrix")
    cells = page.locator("#matrix td.cell:not(.empty)")
    seen = {}
    for i in range(cells.count()):
        cell = cells.nth(i)
        counts = Counter({name: int(cell.get_attribute(f"data-{attr}") or 0)
                          for name, attr in (("passed", "passed"), ("failed", "failed"), ("infra_error", "infra"))})
        seen[(cell.get_attribute("data-task"), cell.get_attribute("data-col"))] = counts
        assert cell.locator("a").inner_text().strip().startswith(f"{counts['passed']}/{counts['failed']}")
    assert {k: +v for k, v in seen.items()} == expected
    # 4 tasks x (2 agents x 2 versions), and the stale agent fails somewhere on v5 (the evolved server changed)
    assert len({t for t, _ in expected}) == 4 and len({c for _, c in expected}) == 4
    failed = {key for key, c in expected.items() if c["failed"]}
    assert failed and all(col.endswith("|stale|v5") for _, col in failed)
    assert chromium.blocked == [] and chromium.console_errors == []


def test_matrix_filters(viewer: Served, chromium: Chromium) -> None:
    episodes, scores = stored(viewer.db)
    failing = [e for e in episodes if outcome_of(e, scores[e.id].get("effects")) == "failed"]
    codes = Counter(code for e in failing for code in scores[e.id]["effects"].failure_codes)
    page = chromium.open(viewer.url + "/matrix")
    page.select_option("select[name=outcome]", "failed")  # submits on change
    page.wait_for_url("**outcome=failed**")
    total = page.locator("#matrix td.cell:not(.empty)")
    assert sum(int(total.nth(i).get_attribute("data-failed") or 0) for i in range(total.count())) == len(failing)
    assert sum(int(total.nth(i).get_attribute("data-passed") or 0) for i in range(total.count())) == 0
    chromium.screenshot(page, "matrix_failed")
    code, n = codes.most_common(1)[0]
    page = chromium.open(viewer.url + f"/matrix?code={code}")
    cells = page.locator("#matrix td.cell:not(.empty)")
    assert sum(int(cells.nth(i).get_attribute("data-failed") or 0) for i in range(cells.count())) == n
    page = chromium.open(viewer.url + "/matrix?chain=long")  # the 4 bundled tasks here are short
    assert "No episodes match" in page.locator("main").inner_text()
    page = chromium.open(viewer.url + "/matrix?category=no-such-category")
    assert "No episodes match" in page.locator("main").inner_text()


def test_episode_pages_show_every_step_and_checkpoint(viewer: Served, chromium: Chromium) -> None:
    episodes, scores = stored(viewer.db)
    shot = set()
    for e in episodes:
        effects = scores[e.id]["effects"]
        page = chromium.open(f"{viewer.url}/episode/{e.id}")
        steps = page.locator("#timeline article.step[data-step]")
        assert [int(steps.nth(i).get_attribute("data-step") or -1) for i in range(steps.count())] == \
            [s.index for s in e.steps]
        kinds = [steps.nth(i).get_attribute("data-kind") for i in range(steps.count())]
        assert kinds == [s.kind for s in e.steps]
        for call in e.tool_calls:
            box = page.locator(f"#step-{call.index}")
            assert call.name in box.locator(".tool-name").inner_text()
            if call.is_error:
                assert (call.error_kind or "error") in box.inner_text()
        rows = page.locator("#checkpoints tr[data-cp]")
        assert rows.count() == len(effects.checkpoints)
        for result in effects.checkpoints:
            row = page.locator(f"#cp-{result.id}")
            assert row.get_attribute("class") == ("met" if result.passed else "missed")
            for link in row.locator("a.step-link").all():  # every link lands on a step of this page
                target = (link.get_attribute("href") or "#")[1:]
                assert page.locator(f"#{target}").count() == 1
            if result.passed and result.matched_step is not None:
                anchor = f"step-{result.matched_step}" if result.matched_step < len(e.steps) else "final"
                assert row.locator(f"a[href='#{anchor}']").count() == 1
                assert page.locator(f"#{anchor} .cp.met", has_text=result.id).count() == 1
        assert page.locator("#outcome").inner_text() == outcome_of(e, effects)
        if e.final_answer:
            assert e.final_answer.strip()[:40] in page.locator("#final").inner_text()
        key = (outcome_of(e, effects), e.agent)
        if key not in shot:
            shot.add(key)
            chromium.screenshot(page, f"episode_{key[0]}_{key[1]}")
    assert chromium.blocked == [] and chromium.console_errors == []


def test_judge_scores_with_reasons(viewer: Served, chromium: Chromium) -> None:
    episodes, scores = stored(viewer.db)
    judged = [e for e in episodes if any(name.startswith("judge:") for name in scores[e.id])]
    assert judged, "the judge pass stored no judged score"
    e = judged[0]
    page = chromium.open(f"{viewer.url}/episode/{e.id}")
    for name, score in scores[e.id].items():
        if name.startswith("judge:"):
            box = page.locator(f"#judge-{name.split(':', 1)[1]}")
            assert box.count() == 1
            reason = score.detail.get("reason") or next(
                (j.get("reason") for j in score.detail.get("judgments", []) if j.get("reason")), None)
            if reason:
                assert reason in box.inner_text()


def test_side_by_side_aligns_v0_with_v5(viewer: Served, chromium: Chromium) -> None:
    episodes, scores = stored(viewer.db)
    by = {(e.task_id, e.agent, e.version): e for e in episodes}
    broken = next(e for e in episodes if e.agent == "stale" and e.version == "v5"
                  and not scores[e.id]["effects"].passed)
    good = by[(broken.task_id, "react", "v0")]
    page = chromium.open(f"{viewer.url}/diff?a={good.id}&b={broken.id}")
    chromium.screenshot(page, "diff_v0_react_vs_v5_stale")
    rows = page.locator("#diff tr.aligned[data-relation]")
    pairs = [(rows.nth(i).get_attribute("data-a"), rows.nth(i).get_attribute("data-b"),
              rows.nth(i).get_attribute("data-relation")) for i in range(rows.count())]
    # every step of each side appears once, in order
    assert [a for a, _, _ in pairs if a] == [str(s.index) for s in good.steps]
    assert [b for _, b, _ in pairs if b] == [str(s.index) for s in broken.steps]
    # the v0 call and the stale v5 call of the same tool share a row
    first_broken = broken.tool_calls[0]
    row = next(p for p in pairs if p[1] == str(first_broken.index))
    partner = next(s for s in good.steps if str(s.index) == row[0])
    assert partner.kind == "tool" and partner.name == first_broken.name and row[2] == "changed"
    # on the broken episode's own page, each missed checkpoint points at the failed call that aimed at it
    own = chromium.open(f"{viewer.url}/episode/{broken.id}")
    for result in scores[broken.id]["effects"].checkpoints:
        if not result.passed and result.failure in {"missing_effect", "wrong_arguments"}:
            assert own.locator(f"#cp-{result.id} a.step-link").count() >= 1
            assert own.locator(f"#step-{first_broken.index} .cp.missed", has_text=result.id).count() == 1
    verdicts = page.locator("#diff-checkpoints tbody tr")
    for i in range(verdicts.count()):
        cid = verdicts.nth(i).locator("td").first.inner_text()
        # an implicit check (_grounding, _writes) is recorded only where it fails: the other side shows "–"
        left = next((c.passed for c in scores[good.id]["effects"].checkpoints if c.id == cid), False)
        right = next((c.passed for c in scores[broken.id]["effects"].checkpoints if c.id == cid), False)
        text = verdicts.nth(i).inner_text()
        assert text.count("✓") == left + right
    assert chromium.blocked == [] and chromium.console_errors == []


def test_compare_form_on_episode_page_opens_the_diff(viewer: Served, chromium: Chromium) -> None:
    episodes, _ = stored(viewer.db)
    e = episodes[0]
    page = chromium.open(f"{viewer.url}/episode/{e.id}")
    options = page.locator("#compare-with option")
    assert options.count() == sum(1 for x in episodes if x.task_id == e.task_id) - 1
    page.click("form.compare button")
    page.wait_for_url("**/diff?**")
    assert page.locator("#diff").count() == 1


def test_unknown_and_ambiguous_episode(viewer: Served) -> None:
    assert httpx.get(viewer.url + "/episode/nope-not-here").status_code == 404
    assert "no episode" in httpx.get(viewer.url + "/episode/nope-not-here").text
    assert httpx.get(viewer.url + "/diff?a=zzz").status_code == 404
