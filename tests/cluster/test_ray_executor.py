"""The Ray executor: the bundled smoke set on a local Ray cluster into PostgreSQL gives the same verdicts as the
default executor into SQLite; a SIGKILLed driver resumes without loss or duplicates."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mcptrials.bundled.world import bundled_tasks, smoke_tasks
from mcptrials.store.db import Store

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]  # a hang fails with stacks, never stalls CI
SMOKE = [t.id for t in smoke_tasks(bundled_tasks())]


def _env() -> dict[str, str]:
    """The environment of the commands the tests start, with the test cluster's own settings (``ray_head``)."""
    return {**os.environ, "COLUMNS": "200", "RAY_USAGE_STATS_ENABLED": "0"}


def _cmd(db: str, *extra: str) -> list[str]:
    ids = [arg for task_id in SMOKE for arg in ("--task", task_id)]
    return [sys.executable, "-m", "mcptrials.cli", "run", "--model", "scripted:reference", "--agent", "react",
            *ids, "--concurrency", "2", "--db", db, *extra]


def _verdicts(db: str) -> dict[tuple[str, int], Any]:
    """Per (task, attempt): outcome, the effects verdict per checkpoint, and every tool result the agent saw."""
    store = Store(db)
    scores = store.scores()
    out = {}
    for episode in store.episodes():
        effects = scores[episode.id]["effects"]
        out[(episode.task_id, episode.attempt)] = (
            effects.passed, [(c.id, c.passed) for c in effects.checkpoints],
            [(c.name, c.content, c.is_error) for c in episode.tool_calls], episode.final_answer)
    store.close()
    return out


def test_smoke_set_on_ray_into_postgresql_matches_local_into_sqlite(tmp_path: Path, ray_address: str,
                                                                    postgres_url: str) -> None:
    local = subprocess.run(_cmd(str(tmp_path / "local.db")), capture_output=True, text=True, env=_env(), timeout=300)
    assert local.returncode == 0, local.stderr
    remote = subprocess.run(_cmd(postgres_url, "--executor", "ray", "--address", ray_address),
                            capture_output=True, text=True, env=_env(), timeout=600)
    assert remote.returncode == 0, remote.stderr
    assert "episodes run on the Ray cluster: 1 node(s), 2 CPU(s)" in remote.stderr
    expected, got = _verdicts(str(tmp_path / "local.db")), _verdicts(postgres_url)
    assert len(expected) == len(SMOKE) == 5
    assert got == expected
    assert any(v[0] for v in got.values())  # (the reference plays pass: verdicts are not all the same default)
    from pg_cluster import PASSWORD

    assert PASSWORD not in remote.stderr + remote.stdout


def _stored(db: str) -> int:
    try:
        store = Store(db)
    except Exception:
        return 0
    try:
        return store.episode_count()
    finally:
        store.close()


def test_sigkill_of_the_ray_driver_resumes_without_loss_or_duplicates(ray_address: str, postgres_url: str,
                                                                     tmp_path: Path) -> None:
    cmd = _cmd(postgres_url, "--executor", "ray", "--address", ray_address, "--attempts", "4")
    log = tmp_path / "driver.log"
    with log.open("w") as driver_err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=driver_err, env=_env(),
                                start_new_session=True)
    deadline = time.time() + 300
    while _stored(postgres_url) < 3 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert proc.poll() is None, f"the driver ended (exit {proc.returncode}) before it could be killed: " + \
        log.read_text()[-2000:]
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    at_kill = _stored(postgres_url)
    assert 3 <= at_kill < 20

    done = subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"resuming, {at_kill} episode(s) already stored" in done.stderr  # the dead driver's lock was taken
    store = Store(postgres_url)
    keys = [e.key() for e in store.episodes()]
    assert len(keys) == len(set(keys)) == 20
    assert {eid for eid, s in store.scores().items() if "effects" in s} == {e.id for e in store.episodes()}


async def test_max_cost_and_resume_work_the_same_on_ray(ray_address: str, example_specs: dict[str, Any],
                                                        example_tasks_path: Path, fake_openai: Any,
                                                        tmp_path: Path) -> None:
    """Costs come back with each remote episode; the budget stops new ones; the next invocation resumes."""
    from fake_openai import completion

    from mcptrials.agents.react import ReactAgent
    from mcptrials.models.openai_provider import OpenAIModel
    from mcptrials.models.pricing import Price
    from mcptrials.run.executors import make_executor
    from mcptrials.run.runner import RunPlan, execute
    from mcptrials.tasks.loader import load_tasks

    fake_openai.default = completion("done", prompt_tokens=1_000_000, completion_tokens=0)
    chat = OpenAIModel(model="m", base_url=fake_openai.base_url, api_key="k", price=Price(input=1.0, output=0))
    remote = make_executor("ray", ray_address)
    try:
        plan = RunPlan(servers=example_specs, tasks=load_tasks(example_tasks_path), model=chat, agent=ReactAgent(),
                       concurrency=1, max_cost=1.5, executor=remote)
        store = Store(tmp_path / "r.db")
        result = await execute(plan, store)
        assert result.completed == 2 and result.not_started == 1 and result.cost_usd == 2.0
        plan.max_cost = None
        again = await execute(plan, store)
        assert again.skipped == 2 and again.completed == 1
    finally:
        remote.close()
    assert len(fake_openai.requests) == 3  # the model was called from the Ray workers, once per episode
