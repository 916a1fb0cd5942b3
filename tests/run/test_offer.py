"""Pools and distractors: what an episode offers, chosen deterministically and recorded."""

from __future__ import annotations

import json
import random
from pathlib import Path

import anyio
import pytest
from typer.testing import CliRunner

from mcptrials.bundled.world import LINEAGES_DIR, bundled_servers, bundled_tasks
from mcptrials.cli import app
from mcptrials.evolve.versions import Lineages, rewrite_task
from mcptrials.model import Task, ToolInfo, stable_hash
from mcptrials.run.offer import apply_distractors, choose_distractors, pick_distractors
from mcptrials.run.options import catalogue
from mcptrials.servers.toolbox import open_toolbox
from mcptrials.store.db import Store


@pytest.fixture(scope="module")
def pool() -> list[ToolInfo]:
    return anyio.run(catalogue, bundled_servers())


def _task(task_id: str) -> Task:
    return next(t for t in bundled_tasks() if t.id == task_id)


def test_half_same_name_rest_near_misses_deterministic(pool: list[ToolInfo]) -> None:
    task = _task("unit-001")  # uses units__convert; finance__convert has the same bare name
    names = pick_distractors(task, pool, 4, seed=7)
    shuffled = list(pool)
    random.Random(1).shuffle(shuffled)
    assert pick_distractors(task, shuffled, 4, seed=7) == names  # the catalogue's order does not matter
    assert len(names) == 4 and len(set(names)) == 4
    assert "finance__convert" in names
    assert not any(n.startswith("units__") for n in names)
    choice = choose_distractors(task, pool, 4, seed=7)
    assert choice.same_name == 1 and "only 1 same-name tool" in choice.note  # the catalogue has one, it says so


def test_same_name_half_when_the_catalogue_has_them(pool: list[ToolInfo]) -> None:
    task = _task("trip-010")  # maps__geocode, weather__get_weather_by_coordinates
    extra = [ToolInfo(server=f"alt{i}", name=name, description="x")
             for i, name in enumerate(["geocode", "get_weather_by_coordinates", "geocode"])]
    choice = choose_distractors(task, [*pool, *extra], 4, seed=0)
    assert choice.same_name == 2 and not choice.note
    assert sum(n.partition("__")[2] in {"geocode", "get_weather_by_coordinates"} for n in choice.names) == 2
    other_seed = {tuple(choose_distractors(task, [*pool, *extra], 4, seed=s).names) for s in range(6)}
    assert len(other_seed) > 1  # the seed matters


def test_too_small_a_catalogue_is_noted(pool: list[ToolInfo]) -> None:
    task = _task("unit-001")
    small = [t for t in pool if t.server in {"units", "clock"}]
    choice = choose_distractors(task, small, 10, seed=0)
    assert len(choice.names) == 7 and all(n.startswith("clock__") for n in choice.names)
    assert "only 7 tool(s) outside the task's offer" in choice.note


def test_visible_hash_covers_distractors_and_is_unchanged_without() -> None:
    task = _task("unit-001")
    old = stable_hash({"prompt": task.prompt, "servers": task.servers,
                       "now": task.now.isoformat() if task.now else None,
                       "fixtures": {"files": task.fixtures.files}})  # (the fixtures as they were before copy/path_map)
    assert task.visible_hash() == old
    assert task.model_copy(update={"distractors": ["finance__convert"]}).visible_hash() != old


def test_distractor_on_the_tasks_own_server_is_refused() -> None:
    data = _task("unit-001").model_dump()
    data["distractors"] = ["units__list_units"]
    with pytest.raises(ValueError, match="on one of the task's own servers"):
        Task.model_validate(data)


async def test_toolbox_offers_only_the_chosen_tools(tmp_path: Path) -> None:
    specs = bundled_servers()
    offer = (frozenset({"units"}), frozenset({"finance__convert"}))
    async with open_toolbox([specs["units"], specs["finance"]], tmp_path, offer=offer) as box:
        names = {t.qualified_name for t in box.tools}
        assert "finance__convert" in names and not any(n.startswith("finance__") and n != "finance__convert"
                                                       for n in names)
        _, _, outcome = await box.call("finance__get_earnings", {"symbol": "AAPL"})
        assert outcome.error_kind == "unknown_tool"
        _, _, outcome = await box.call("finance__convert", {"amount": 1, "from_currency": "EUR",
                                                            "to_currency": "USD"})
        assert outcome.error_kind != "unknown_tool"


def test_run_distractors_recorded_per_episode_and_in_settings(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    result = CliRunner().invoke(app, ["run", "--agent", "reference", "--task", "unit-001", "--task", "trip-010",
                                      "--distractors", "3", "--distractor-seed", "5", "--db", db])
    assert result.exit_code == 0, result.output
    assert "distractors" in result.output and "same-name" in result.output  # unit-001's note is shown
    store = Store(db)
    episodes = {e.task_id: e for e in store.episodes()}
    stored = {t.id: t for t in [_task("unit-001"), _task("trip-010")]}
    for task_id, episode in episodes.items():
        own = [n for n in episode.offered_tools if n.partition("__")[0] in stored[task_id].servers]
        extra = sorted(set(episode.offered_tools) - set(own))
        assert len(extra) == 3 and episode.offered_count == len(own) + 3
    assert "finance__convert" in episodes["unit-001"].offered_tools
    run = store.runs()[0]
    assert run["config"]["distractors"] == {"k": 3, "seed": 5}
    # the same command resumes: the distractor choice is reproduced, so nothing runs again
    again = CliRunner().invoke(app, ["run", "--agent", "reference", "--task", "unit-001", "--task", "trip-010",
                                     "--distractors", "3", "--distractor-seed", "5", "--db", db])
    assert "2 already stored" in again.output


def test_pool_all_offers_every_tool(tmp_path: Path, pool: list[ToolInfo]) -> None:
    db = str(tmp_path / "r.db")
    result = CliRunner().invoke(app, ["run", "--agent", "reference", "--task", "unit-001", "--pool", "all",
                                      "--db", db])
    assert result.exit_code == 0, result.output
    episode = next(Store(db).episodes())
    assert episode.offered_tools == sorted(t.qualified_name for t in pool)
    assert json.dumps(Store(db).runs()[0]["config"]["pool"]) == '"all"'


def test_distractors_follow_evolution() -> None:
    task = _task("trip-002").model_copy(update={"distractors": ["weather__get_weather_by_coordinates"]})
    evolved = rewrite_task(task, Lineages(LINEAGES_DIR), "v5")
    assert evolved.distractors == ["weather__get_current_weather"]


def test_apply_keeps_recorded_distractors(pool: list[ToolInfo]) -> None:
    recorded = _task("unit-001").model_copy(update={"distractors": ["clock__now"]})
    tasks, _ = apply_distractors([recorded, _task("trip-010")], pool, 2, seed=0)
    assert tasks[0].distractors == ["clock__now"]
    assert len(tasks[1].distractors) == 2 and tasks[1].provenance["distractors"]["k"] == 2
