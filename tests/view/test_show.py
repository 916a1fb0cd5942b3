"""`mcptrials show EPISODE`: the episode in the terminal by id or prefix; one clear line when unknown or ambiguous."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mcptrials.cli import app
from mcptrials.store.db import Store

from .copies import clone, copy_store


def test_show_by_prefix_prints_every_step_and_checkpoint(run_db: Path) -> None:
    store = Store(run_db)
    episodes, scores = list(store.episodes()), store.scores()
    store.close()
    failed = next(e for e in episodes if not scores[e.id]["effects"].passed)
    result = CliRunner().invoke(app, ["show", failed.id[:7], "--db", str(run_db)], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    text = result.output
    assert failed.task_id in text and failed.id in text and "FAILED" in text
    for step in failed.steps:
        assert f"#{step.index} " in text
    for call in failed.tool_calls:
        assert call.name in text and (not call.is_error or (call.error_kind or "error") in text)
    for cp in scores[failed.id]["effects"].checkpoints:
        assert cp.id in text
    assert text.count("✗") >= sum(1 for c in scores[failed.id]["effects"].checkpoints if not c.passed)
    for code in scores[failed.id]["effects"].failure_codes:
        assert code in text


def test_show_unknown_ambiguous_and_missing_store(run_db: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    unknown = runner.invoke(app, ["show", "no-such-episode", "--db", str(run_db)])
    assert unknown.exit_code == 2 and "no episode with id or id prefix 'no-such-episode'" in unknown.output
    assert "Traceback" not in unknown.output
    store, episodes, scores = copy_store(run_db, tmp_path / "copy.db")
    base = episodes[0]
    for n, new_id in enumerate(["abcd1111", "abcd2222"]):
        store.save_episode(*clone(base, scores[base.id], new_id, attempt=90 + n))
    store.close()
    ambiguous = runner.invoke(app, ["show", "abcd", "--db", str(tmp_path / "copy.db")])
    assert ambiguous.exit_code == 2
    assert "ambiguous" in ambiguous.output and "abcd1111" in ambiguous.output and "abcd2222" in ambiguous.output
    exact = runner.invoke(app, ["show", "abcd2222", "--db", str(tmp_path / "copy.db")])
    assert exact.exit_code == 0 and "abcd2222" in exact.output
    missing = runner.invoke(app, ["show", "abcd", "--db", str(tmp_path / "nothing.db")])
    assert missing.exit_code == 2 and "no result store" in missing.output
    assert not (tmp_path / "nothing.db").exists()


def test_view_refuses_a_missing_store_and_a_busy_port(run_db: Path, tmp_path: Path) -> None:
    import socket

    runner = CliRunner()
    missing = runner.invoke(app, ["view", "--db", str(tmp_path / "none.db")])
    assert missing.exit_code == 2 and "no result store" in missing.output
    assert not (tmp_path / "none.db").exists()  # the viewer never creates a store
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        taken = runner.invoke(app, ["view", "--db", str(run_db), "--port", str(port)])
    assert taken.exit_code == 2 and f"cannot listen on 127.0.0.1:{port}" in taken.output
    assert "Traceback" not in taken.output
