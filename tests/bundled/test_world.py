"""The bundled world as a whole: its size and spread, a full suite check, the defaults of the CLI."""

from __future__ import annotations

import functools
import json
import sqlite3
from collections import Counter
from pathlib import Path

import anyio
import pytest
from typer.testing import CliRunner

from mcptrials.bundled.world import LINEAGES_DIR, bundled_servers, bundled_tasks
from mcptrials.cli import app
from mcptrials.evolve.versions import Lineages, versioned_world
from mcptrials.model import ToolEffectCheckpoint, ValueCheckpoint
from mcptrials.servers.toolbox import open_toolbox
from mcptrials.tasks.alternatives import (
    ACCEPT_CLASSES,
    CLAIMS_CLASSES,
    REJECT_CLASSES,
    bundled_alternatives,
    coverage_gaps,
    play,
)
from mcptrials.tasks.check import check_references

CATEGORIES = {"random", "hard-negative", "cross-domain", "same-name", "sibling", "stratified", "long-similar-chain",
              "homonym-trap", "decoy", "prerequisite-strict", "recovery-required", "destructive-adjacent",
              "ambiguous-intent", "cross-server-alternative", "complementary"}
runner = CliRunner()


def cli_json(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_world_size_and_spread() -> None:
    servers = cli_json("servers", "list")
    assert servers["servers"] >= 16 and servers["tools"] >= 120
    tasks = cli_json("tasks", "list")
    assert tasks["tasks"] >= 150
    assert set(tasks["per_category"]) == CATEGORIES and min(tasks["per_category"].values()) >= 6
    assert min(tasks["per_chain_length"].values()) >= 35
    assert tasks["cross_server"] >= 40 and tasks["state_changing"] >= 20
    dynamism = {s["dynamism"] for s in servers["per_server"].values()}
    assert dynamism == {"static", "live_read", "stateful_write"}


def test_tasks_name_only_real_tools_and_prompts_name_none() -> None:
    listing = cli_json("servers", "list")["per_server"]
    known = {f"{server}__{tool}" for server, info in listing.items() for tool in info["tool_names"]}
    bare = {tool for info in listing.values() for tool in info["tool_names"] if "_" in tool}
    for task in bundled_tasks():
        named = {step.tool for step in task.reference}
        for cp in task.spec.checkpoints:
            if isinstance(cp, ToolEffectCheckpoint):
                named |= set(cp.tool_names)
            elif isinstance(cp, ValueCheckpoint):
                named |= set(cp.tools)
        for mine in task.spec.minefields:
            named |= set(mine.tools)
        assert named <= known, (task.id, sorted(named - known))
        assert {step.tool.split("__")[0] for step in task.reference} <= set(task.servers), task.id
        assert "__" not in task.prompt and not [n for n in bare if n in task.prompt], task.id


@pytest.mark.slow
def test_every_reference_passes_discriminates_and_repeats() -> None:
    results = anyio.run(check_references, bundled_servers(), bundled_tasks(), 4, 2)
    assert [r.task_id for r in results if not r.passed] == []
    assert [r.task_id for r in results if not r.deterministic] == []
    graded = [r.discrimination for r in results]
    assert all(d is not None for d in graded)
    missed = {d.task_id: d.missed for d in graded if d is not None and d.missed}
    assert missed == {}


def test_every_information_task_checks_its_answer_and_every_write_its_state() -> None:
    counts = cli_json("tasks", "list")
    assert counts["with_reference_answer"] == counts["tasks"]
    assert counts["neither_answer_nor_state"] == 0, counts["neither_ids"]
    assert counts["state_checked"] >= counts["state_changing"] * 0.8


@pytest.mark.slow
@pytest.mark.parametrize("version", ["v0", "v1", "v2", "v3", "v4", "v5"])
def test_alternatives_corpus_is_judged_right(version: str) -> None:
    """Every correct alternative passes and every plausible wrong trajectory fails, on every version."""
    tasks, corpus = bundled_tasks(), bundled_alternatives()
    assert coverage_gaps(tasks, corpus) == {"accept": [], "reject": []}
    classes = [c for alt in corpus for c in alt.classes]
    assert all(classes.count(c) >= 15 for c in (*ACCEPT_CLASSES, *REJECT_CLASSES)), Counter(classes)
    lineages = Lineages(LINEAGES_DIR)
    servers, v_tasks = versioned_world(bundled_servers(), tasks, lineages, version)
    results = anyio.run(play, servers, v_tasks, corpus, version, lineages.chains_at(version))  # servers reused
    assert len(results) == len(corpus)
    assert [(r.task_id, r.alt_id, r.detail) for r in results if r.applicable and not r.right] == []
    if version == "v0":  # every verdict, and why, is the same with a fresh server per episode
        fresh = anyio.run(functools.partial(play, servers, v_tasks, corpus, version, reuse=False))
        assert [(r.task_id, r.alt_id, r.accepted, r.detail) for r in fresh] == \
            [(r.task_id, r.alt_id, r.accepted, r.detail) for r in results]


async def test_clock_follows_the_frozen_time_over_stdio(tmp_path: Path) -> None:
    clock = bundled_servers()["clock"]
    seen = []
    for now in ("2026-04-13T09:00:00+08:00", "2031-12-31T23:30:00+00:00"):
        async with open_toolbox([clock], tmp_path, now=now) as box:
            _, _, out = await box.call("clock__now", {"timezone": "UTC"})
            assert not out.is_error, out.content
            seen.append(out.content)
    assert "2026-04-13" in seen[0] and "01:00" in seen[0]
    assert "2031-12-31" in seen[1] and "23:30" in seen[1]


@pytest.mark.parametrize("args", [["--agent", "reference"], ["--model", "scripted:reference"]])
def test_run_defaults_to_the_bundled_world(tmp_path: Path, args: list[str]) -> None:
    db = tmp_path / "r.db"
    result = runner.invoke(app, ["run", *args, "--limit", "3", "--db", str(db)])
    assert result.exit_code == 0, result.output
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select task_id, outcome from episodes").fetchall()
    assert len(rows) == 3 and {o for _, o in rows} == {"passed"}


def test_bundled_corpus_covers_every_claims_class() -> None:
    """The corpus (its claims part written blind) has at least 15 trajectories of each class answers are read for."""
    classes = [c for alt in bundled_alternatives() for c in alt.classes]
    assert all(classes.count(c) >= 15 for c in CLAIMS_CLASSES), Counter(classes)
