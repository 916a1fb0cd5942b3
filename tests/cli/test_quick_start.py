"""The quick start: `mcptrials run` with no options runs a short smoke set on the embedded model with limits
that end it in minutes, then says where to look next; options given explicitly keep their meaning."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcptrials.bundled.world import QUICK_TASKS, bundled_tasks, quick_tasks
from mcptrials.cli import QUICK_MAX_REPEATS, QUICK_MAX_TOKENS, QUICK_MAX_TURNS
from mcptrials.store.db import Store


def _needs_model() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python (the 'local' extra) is not installed")
    from mcptrials.models.weights import WeightsError, default_model_path

    try:
        default_model_path()
    except WeightsError as exc:
        pytest.skip(f"the default model's weights are not installed: {exc}")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcptrials.cli", "run", *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "200"}, timeout=1800)


def test_the_quick_set_is_three_short_single_server_tasks() -> None:
    chosen = quick_tasks(bundled_tasks())
    assert [t.id for t in chosen] == list(QUICK_TASKS)
    assert all(len(t.servers) == 1 and t.chain_length == "short" for t in chosen)
    fallback = quick_tasks([t for t in bundled_tasks() if t.id not in QUICK_TASKS])  # ids renamed: still three
    assert len(fallback) == 3 and all(len(t.servers) == 1 for t in fallback)


@pytest.mark.slow
def test_quick_start_runs_the_smoke_set_and_says_what_to_do_next(tmp_path: Path) -> None:
    _needs_model()
    db = tmp_path / "qs.db"
    started = time.monotonic()
    done = _run("--db", str(db))
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert "smoke set of 3 bundled tasks" in done.stderr
    for step in ("mcptrials view", "--format html -o report.html", "--model openai:gpt-4o-mini",
                 "--servers my_servers.json --tasks my_tasks.jsonl"):
        assert step in done.stdout, step
    [run] = Store(db).runs()
    config = run["config"]
    assert config["agent"]["max_turns"] == QUICK_MAX_TURNS and config["model"]["max_tokens"] == QUICK_MAX_TOKENS
    assert config["agent"]["max_repeats"] == QUICK_MAX_REPEATS and config["model"]["constrained"] is True
    assert config["concurrency"] == 1 and config["tasks"] == 3
    assert took < 900, f"the quick start took {took:.0f}s"  # about a minute on an idle 2-core machine


@pytest.mark.slow
def test_explicit_limits_keep_their_meaning_in_the_quick_start(tmp_path: Path) -> None:
    _needs_model()
    db = tmp_path / "qs.db"
    done = _run("--db", str(db), "--max-turns", "1", "--max-tokens", "48")
    assert done.returncode == 0, done.stderr
    [run] = Store(db).runs()
    config = run["config"]
    assert (config["agent"]["max_turns"], config["model"]["max_tokens"]) == (1, 48)
    assert all(len(e.model_turns) <= 1 for e in Store(db).episodes())
