"""What a hostile or unlucky store does to `mcptrials view` and `mcptrials show`: markup, script and terminal escape
sequences in tool results, huge results, damaged rows, unknown filter values and paths, narrow terminals, and two
trajectories that part ways (an extra call, another tool at the same point)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx
import pytest
from browser import Chromium
from typer.testing import CliRunner

from mcptrials.cli import app
from mcptrials.model import Episode, ModelTurn, Score, ToolCallRecord, ToolCallRequest, Usage
from mcptrials.servers.blobs import BlobStore
from mcptrials.store.db import Store
from mcptrials.view.align import align
from mcptrials.view.episode import StepView

from .conftest import Served, start_view, stop_view
from .copies import clone, copy_store

SCRIPT = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">'
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;cHduZWQ=\x07"
"""A window-title change, a screen clear and a clipboard write, as a server could put them in a result."""
MARKUP = "[/x] closing tag with no opening one, and [bold red]styled[/bold red] text"


SVG = (b'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><script>window.__xss = 3</script>'
       b'<rect width="8" height="8" fill="red"/></svg>')
"""An "image" a server returned, with script inside: harmless in an <img>, dangerous when opened on its own."""


def _hostile(episode: Episode, svg_key: str) -> Episode:
    """``episode`` with every field a server or a model controls turned hostile, and one huge result."""
    huge = "Z" * 200_000  # one line: a clip by lines alone lets it through
    steps: list[ModelTurn | ToolCallRecord] = [
        ModelTurn(index=0, text=f"thinking {SCRIPT} {MARKUP} {ESCAPES}", latency_s=1.25,
                  usage=Usage(prompt_tokens=1234, completion_tokens=56),
                  tool_calls=[ToolCallRequest(id="c0", name="units__convert", arguments=None,
                                              raw_arguments='{"value": 1, ' + SCRIPT)]),
        ToolCallRecord(index=1, call_id="c0", turn=0, name="units__" + SCRIPT, arguments={"k": SCRIPT, "m": MARKUP},
                       content=f"{SCRIPT}\n{MARKUP}\n{ESCAPES}\n{huge}", is_error=True, error_kind="tool_error",
                       latency_s=0.004, attachments=[{"kind": "image", "mime_type": "image/svg+xml",
                                                      "sha256": svg_key, "bytes": len(SVG)}]),
    ]
    return episode.model_copy(update={"steps": steps, "final_answer": f"{MARKUP} {SCRIPT} {ESCAPES}",
                                      "model": "model" + SCRIPT})


Hostile = tuple[Path, Episode, list[Score]]
"""The store, its hostile episode, and that episode's scores."""


@pytest.fixture(scope="module")
def hostile_db(run_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Hostile:
    """A copy of the real runs plus a hostile episode, a damaged episode, and an episode with a damaged score."""
    db = tmp_path_factory.mktemp("hostile") / "hostile.db"
    store, episodes, scores = copy_store(run_db, db)
    base = next(e for e in episodes if not scores[e.id]["effects"].passed)
    svg_key = BlobStore.beside(db).put(SVG)
    hostile, hostile_scores = clone(_hostile(base, svg_key), scores[base.id], "hostile00000001", attempt=50)
    # a task author may name a checkpoint with spaces or a '#': its links must still land on its row
    hostile_scores = [s.model_copy(update={"checkpoints": [c.model_copy(update={"id": f"{c.id} ok#1"})
                                                           for c in s.checkpoints]}) for s in hostile_scores]
    store.save_episode(hostile, hostile_scores)
    for new_id, attempt in (("damaged00000001", 51), ("badscore0000001", 52)):
        store.save_episode(*clone(base, scores[base.id], new_id, attempt=attempt))
    store.close()
    with sqlite3.connect(db) as conn:  # rows another version (or a torn copy) left behind
        conn.execute("UPDATE episodes SET data = '{\"id\": 1' WHERE id = 'damaged00000001'")
        conn.execute("UPDATE scores SET data = '[1, 2]' WHERE episode_id = 'badscore0000001' AND scorer = 'effects'")
    return db, hostile, hostile_scores


def _show(db: Path, ref: str, columns: int = 120) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["show", ref, "--db", str(db)], env={"COLUMNS": str(columns)})
    return result.exit_code, result.output


def test_show_prints_hostile_text_as_text(hostile_db: Hostile) -> None:
    db, hostile, _ = hostile_db
    code, text = _show(db, hostile.id, 200)
    assert code == 0, text
    assert "[/x] closing tag" in text and "[bold red]styled[/bold red]" in text  # not read as rich markup
    assert "\x1b" not in text and "\x07" not in text  # no escape sequence reaches the terminal ...
    assert "\\x1b]0;pwned" in text  # ... it is shown, visibly
    assert "(did not parse)" in text and "tool_error" in text
    assert "1234 in / 56 out tokens, 1.25 s" in text and "4 ms" in text


@pytest.mark.parametrize("columns", [40, 200])
def test_show_clips_a_huge_result_and_fits_the_terminal(hostile_db: Hostile,
                                                        columns: int) -> None:
    db, hostile, hostile_scores = hostile_db
    code, text = _show(db, hostile.id, columns)
    assert code == 0, text
    assert "Z" * 3000 not in text.replace("\n", "").replace("│", "").replace(" ", "")
    assert "more characters" in text and "mcptrials view" in text
    assert len(text) < 30_000
    assert max(len(line) for line in text.splitlines()) <= columns
    # on a narrow terminal the step's facts move out of a clipped title, and every checkpoint keeps its detail
    assert "tool_error" in text
    flat = " ".join(text.replace("│", " ").split())
    effects = next(s for s in hostile_scores if s.scorer == "effects")
    for result in effects.checkpoints:
        assert result.id in flat
        assert " ".join(result.detail.split()[:3]) in flat, (result.detail, flat[-800:])


def test_show_on_damaged_rows_says_what_is_wrong(hostile_db: Hostile) -> None:
    db, _, _ = hostile_db
    code, text = _show(db, "damaged00000001")
    assert code == 2 and "Traceback" not in text
    assert "damaged00000001" in text and "cannot be read" in text and len(text.strip().splitlines()) <= 3
    code, text = _show(db, "badscore0000001")
    assert code == 0 and "left out: the stored 'effects' score cannot be read" in " ".join(text.split())


def test_pages_on_a_hostile_store(hostile_db: Hostile, chromium: Chromium) -> None:
    db, hostile, _ = hostile_db
    served = start_view(db)
    try:
        # script in results, names, arguments, the answer and the model name is shown as text, never run
        for path in (f"/episode/{hostile.id}", f"/diff?a={hostile.id}&b=damaged", f"/diff?a={hostile.id}&b="
                     + next(e for e in _ids(db) if e not in {hostile.id, "damaged00000001", "badscore0000001"}),
                     "/matrix", "/episodes", f"/episodes?model=model{SCRIPT}"):
            page = chromium.open(served.url + path)
            assert page.evaluate("window.__xss") is None, path
        page = chromium.open(f"{served.url}/episode/{hostile.id}")
        chromium.screenshot(page, "hostile_episode", full_page=False)
        body = page.locator("main").inner_text()
        assert SCRIPT in body and "[/x] closing tag" in body
        assert page.locator("#step-1 .tool-name").inner_text() == "units__" + SCRIPT
        # the scripted runs cost no tokens, so this turn is where the tokens and latency shown are checked
        assert "1234 in / 56 out tokens · 1.25 s" in page.locator("#step-0 .meta").inner_text()
        assert "4 ms" in page.locator("#step-1 .meta").inner_text()
        assert "tool_error" in page.locator("#step-1").inner_text()
        badges = page.locator("#timeline a.cp")
        assert badges.count() >= 1
        for n in range(badges.count()):  # every checkpoint badge on a step leads to that checkpoint's row
            badges.nth(n).click()
            row = page.evaluate("document.querySelector(':target')?.dataset.cp ?? null")
            assert row is not None and row in badges.nth(n).inner_text(), row
        # the huge result is folded behind "show all", not laid out in full
        assert page.locator("#step-1 details summary .more").inner_text().startswith("show all")
        # pages run only the viewer's own script, and the SVG opened on its own is sandboxed (its script never runs)
        image = page.locator("#step-1 figure.media img")
        assert image.count() == 1
        image.scroll_into_view_if_needed()  # an SVG image is drawn (its type survives the link: image/svg+xml)
        page.wait_for_function("img => img.complete && img.naturalWidth === 8", arg=image.element_handle())
        blob = chromium.open(served.url + (image.get_attribute("src") or ""))
        assert blob.evaluate("window.__xss") is None
        with httpx.Client(base_url=served.url, timeout=30) as client:
            assert "script-src 'self'" in client.get(f"/episode/{hostile.id}").headers["content-security-policy"]
            damaged = client.get("/episode/damaged00000001")
            assert damaged.status_code == 422 and "cannot be read" in damaged.text and "Traceback" not in damaged.text
            assert client.get(f"/diff?a={hostile.id}&b=damaged00000001").status_code == 422
            partial = client.get("/episode/badscore0000001")
            assert partial.status_code == 200 and "left out: the stored" in partial.text
            for path in ("/matrix", "/episodes", "/matrix?code=missing_effect", "/"):  # one bad row spoils no list
                assert client.get(path).status_code == 200, path
            for path, status, said in (("/no/such/page", 404, "no page at /no/such/page"),
                                       ("/episode/", 404, "no page at"), ("/static/nope.css", 404, "no page at")):
                response = client.get(path)
                assert response.status_code == status and said in response.text and "<h1>" in response.text
            posted = client.post("/matrix")
            assert posted.status_code == 405 and "POST is not allowed" in posted.text
    finally:
        stop_view(served)
    assert chromium.blocked == []
    # the only console errors: the damaged diff's status, and the sandbox refusing the SVG's script
    assert all("status of 422" in e or "Blocked script execution" in e for e in chromium.console_errors), \
        chromium.console_errors
    assert any("Blocked script execution" in e for e in chromium.console_errors)


def test_unknown_filter_values_are_said_not_hidden(hostile_db: Hostile,
                                                   chromium: Chromium) -> None:
    db, _, _ = hostile_db
    served = start_view(db)
    try:
        page = chromium.open(f"{served.url}/matrix?outcome=bogus&version=v9")
        notes = page.locator(".unknown-filter")
        assert notes.count() == 2
        assert "outcome “bogus”" in notes.nth(0).inner_text() and "passed" in notes.nth(0).inner_text()
        assert "version “v9”" in notes.nth(1).inner_text()
        # the form shows the filter in force (not "all"), so submitting it again keeps what the URL asked for
        assert page.locator("select[name=outcome]").input_value() == "bogus"
        assert page.locator("select[name=version]").input_value() == "v9"
        chromium.screenshot(page, "unknown_filters")
        known = chromium.open(f"{served.url}/matrix?outcome=failed")
        assert known.locator(".unknown-filter").count() == 0
    finally:
        stop_view(served)


def _ids(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute("SELECT id FROM episodes ORDER BY id")]


# -- alignment ---------------------------------------------------------------------------------------------------


class _Steps:
    """An episode view with only steps, from a spec such as ``"m search m get m"`` (m: a model turn)."""

    def __init__(self, spec: str) -> None:
        self.steps = [StepView(anchor=f"step-{i}", step=ModelTurn(index=i, text="t") if word == "m" else
                               ToolCallRecord(index=i, call_id=str(i), turn=0, name=f"srv__{word}", arguments={}))
                      for i, word in enumerate(spec.split())]


def _aligned(a: str, b: str) -> list[tuple[str, str, str]]:
    def word(view: StepView | None) -> str:
        if view is None:
            return "-"
        step = view.step
        return step.name.split("__", 1)[1] if isinstance(step, ToolCallRecord) else "m"

    rows = align(_Steps(a), _Steps(b))  # type: ignore[arg-type]
    left = [r.a.step.index for r in rows if r.a]
    right = [r.b.step.index for r in rows if r.b]
    assert left == list(range(len(a.split()))) and right == list(range(len(b.split())))  # each step once, in order
    return [(word(r.a), word(r.b), r.relation) for r in rows]


def test_alignment_marks_another_tool_apart_from_the_same_tool() -> None:
    # a tool renamed on an evolved version sits at the same point, but it is not "the same tool"
    assert _aligned("m convert m", "m convert_quantity m") == [
        ("m", "m", "same"), ("convert", "convert_quantity", "other"), ("m", "m", "same")]
    # one side calls two tools where the other calls one: the first pair, the rest against a gap
    assert _aligned("m x y m", "m z m") == [
        ("m", "m", "same"), ("x", "z", "other"), ("y", "-", "only_a"), ("m", "m", "same")]


def test_alignment_keeps_model_turns_paired_around_an_extra_call() -> None:
    assert _aligned("m x m", "m m") == [("m", "m", "same"), ("x", "-", "only_a"), ("m", "m", "same")]
    # a call where the other side has a model turn: never shown as one step changed into another
    assert _aligned("m x m", "m m m") == [
        ("m", "m", "same"), ("x", "-", "only_a"), ("m", "m", "same"), ("-", "m", "only_b")]
    # an extra call on one side (a retry): the rest still lines up step for step
    assert [r for r in _aligned("m x m y m", "m x m x m y m") if r[2] != "same"] == [
        ("-", "m", "only_b"), ("-", "x", "only_b")]


def test_every_step_shows_its_calls_tokens_and_latency(viewer: Served, chromium: Chromium) -> None:
    """What a model turn asked for, what it cost, and how long each call took, as stored, on every step."""
    store = Store(viewer.db)
    episodes = list(store.episodes())
    store.close()
    seen_asks = 0
    for e in episodes:
        page = chromium.open(f"{viewer.url}/episode/{e.id}")
        for step in e.steps:
            box = page.locator(f"#step-{step.index}")
            text = box.inner_text()
            if isinstance(step, ModelTurn):
                assert f"{step.usage.prompt_tokens} in / {step.usage.completion_tokens} out tokens" in text
                asks = box.locator(".asks li")
                assert asks.count() == len(step.tool_calls)
                for n, call in enumerate(step.tool_calls):
                    assert asks.nth(n).locator(".tool-name").inner_text() == call.name
                    for key in call.arguments or {}:
                        assert f'"{key}"' in asks.nth(n).inner_text()
                seen_asks += len(step.tool_calls)
            else:
                latency = f"{step.latency_s * 1000:.0f} ms" if step.latency_s < 1 else f"{step.latency_s:.2f} s"
                assert latency in box.locator(".meta").inner_text()
                for key in step.arguments or {}:
                    assert f'"{key}"' in box.locator(".args").inner_text()
                assert " ".join(step.content.split())[:60] in " ".join(box.locator(".result").inner_text().split())
    assert seen_asks > 0  # the react episodes asked for calls through model turns


def test_a_store_broken_under_the_viewer_gets_one_line(run_db: Path, tmp_path: Path) -> None:
    """A store replaced or damaged while the viewer runs (here its scores table is gone): each page says so in one
    line, and the viewer keeps serving."""
    db = tmp_path / "broken.db"
    with sqlite3.connect(run_db) as source, sqlite3.connect(db) as target:
        source.backup(target)
    served = start_view(db)
    try:
        with httpx.Client(base_url=served.url, timeout=30) as client:
            assert client.get("/matrix").status_code == 200
            with sqlite3.connect(db) as conn:
                conn.execute("DROP TABLE scores")
            for path in ("/matrix", "/episodes", f"/episode/{_ids(db)[0]}"):
                response = client.get(path)
                assert response.status_code == 503, (path, response.text[:300])
                assert "The store cannot be read just now" in response.text and "no such table" in response.text
                assert "Traceback" not in response.text
            assert client.get("/").status_code == 200  # the runs page needs no scores: still up
    finally:
        stop_view(served)
