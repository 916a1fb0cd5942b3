"""Review findings on the report, export and terminal, each through the real CLI on a real SQLite store.

A store made by one real `mcptrials run` (reference agent, bundled units server) is turned into the
awkward cases a user's store holds: every episode an infra error, a tool result with an image (its
bytes in the run's blob store), a tool result of several megabytes.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from report_world import cli

from mcptrials.model import Episode, InfraError, ToolCallRecord
from mcptrials.servers.blobs import BlobStore
from mcptrials.store.db import Store

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGA"
                       "hKmMIQAAAABJRU5ErkJggg==")  # a 1x1 PNG


def _one_run(db: Path) -> Episode:
    cli("run", "--agent", "reference", "--task", "unit-001", "--db", str(db))
    store = Store(db)
    try:
        return next(store.episodes())
    finally:
        store.close()


def _store_variant(db: Path, episode: Episode, **changes: object) -> Episode:
    """Save a copy of ``episode`` under a new id and attempt (its scores copied), changed as given."""
    store = Store(db)
    try:
        scores = list(store.scores()[episode.id].values())
        attempt = 1 + max(e.attempt for e in store.episodes())
        variant = episode.model_copy(update={"id": f"{episode.id}-v{attempt}", "attempt": attempt, **changes})
        store.save_episode(variant, [s.model_copy(update={"episode_id": variant.id}) for s in scores])
        return variant
    finally:
        store.close()


def _with_call(episode: Episode, **changes: object) -> list[Any]:
    steps = list(episode.steps)
    index = next(i for i, s in enumerate(steps) if isinstance(s, ToolCallRecord))
    steps[index] = steps[index].model_copy(update=changes)
    return steps


@pytest.fixture(scope="module")
def infra_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store whose only episodes ended in infra errors (a server that exits at once)."""
    folder = tmp_path_factory.mktemp("infra")
    (folder / "bad.json").write_text(json.dumps({"mcpServers": {"units": {"command": "/bin/false"}}}))
    from mcptrials.bundled.world import bundled_tasks

    task = next(t for t in bundled_tasks() if t.id == "unit-001")
    (folder / "t.json").write_text(task.model_dump_json())
    db = folder / "infra.db"
    done = cli("run", "--agent", "reference", "--servers", str(folder / "bad.json"), "--tasks", str(folder / "t.json"),
               "--attempts", "2", "--db", str(db), check=False)
    assert done.returncode == 5, done.stderr  # finished, with infra errors left
    return db


def test_an_infra_only_store_gives_a_page_that_says_so_and_no_empty_plots(infra_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    cli("report", "--db", str(infra_db), "--format", "html", "--out", str(out))
    page = out.read_text()
    assert "Every episode ended in an infra error" in page
    assert 'class="js-plotly-plot"' not in page and 'id="plot-' not in page  # no axes without a point on them
    assert "<td>server_start</td><td>2</td>" in page


def test_report_episodes_shows_the_infra_error_not_scorer_codes_of_an_unrun_episode(infra_db: Path) -> None:
    text = cli("report", "--db", str(infra_db), "--episodes", env={"COLUMNS": "100"}).stdout
    rows = [line for line in text.splitlines() if line.startswith("│ unit-001")]
    assert len(rows) == 2 and all("server_start" in r and "missing_effect" not in r for r in rows), rows


@pytest.mark.parametrize("columns", ["80", "200"])
def test_explain_lists_codes_by_family_with_readable_meanings(columns: str) -> None:
    text = cli("explain", env={"COLUMNS": columns}).stdout
    for title in ("Failure codes (10)", "Tool error kinds (9)", "Operators (11)", "Evolution patterns (18)"):
        assert title in text
    assert max(len(line) for line in text.splitlines()) <= int(columns)
    # the meaning keeps most of the width: at 80 columns a code's line carries several words of its meaning
    line = next(line for line in text.splitlines() if line.startswith("│ missing_effect"))
    assert "missing effect: No successful call" in line


def test_inspect_export_carries_images_huge_results_and_infra_errors(tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log, resolve_sample_attachments
    from inspect_ai.model import ChatMessageTool, ContentImage

    db = tmp_path / "r.db"
    base = _one_run(db)
    key = BlobStore.beside(f"sqlite:///{db}").put(PNG)
    image = _store_variant(db, base, steps=_with_call(base, attachments=[
        {"kind": "image", "mime_type": "image/png", "bytes": len(PNG), "sha256": key}]))
    huge_text = "x" * 3_000_000
    huge = _store_variant(db, base, steps=_with_call(base, content=huge_text))
    infra = _store_variant(db, base, infra_error=InfraError(kind="server_crash", message="units died"),
                           termination="infra_error")
    cli("export", "--format", "inspect", "--out", str(tmp_path / "logs"), "--db", str(db))
    (path,) = (tmp_path / "logs").glob("*.eval")
    samples = {s.metadata["episode_id"]: resolve_sample_attachments(s)  # what `inspect view` shows
               for s in read_eval_log(str(path)).samples or []}
    assert set(samples) == {base.id, image.id, huge.id, infra.id}

    def tool_messages(episode: Episode) -> list[ChatMessageTool]:
        return [m for m in samples[episode.id].messages if isinstance(m, ChatMessageTool)]

    pictures = [c for m in tool_messages(image) for c in (m.content if isinstance(m.content, list) else [])
                if isinstance(c, ContentImage)]
    assert len(pictures) == 1 and pictures[0].image == f"data:image/png;base64,{base64.b64encode(PNG).decode()}"
    assert not any(isinstance(m.content, list) for m in tool_messages(base))  # no attachment, plain text
    assert tool_messages(huge)[0].text == huge_text
    error, infra_scores, base_scores = samples[infra.id].error, samples[infra.id].scores, samples[base.id].scores
    assert error is not None and "server_crash: units died" in error.message
    assert not infra_scores and base_scores is not None and base_scores["effects"].value == 1.0
