"""Replay vs live: the same episodes run on live servers, then replayed from the recording.

Records N episodes (the reference agent over short bundled tasks, attempts repeated to reach N)
through the runner on the live bundled servers, then replays exactly those episodes from the
stored recording with the servers' commands pointing nowhere. Both passes go through the same
runner and store (sandbox, scoring, writes); only the servers differ. Prints both wall times,
the ratio, and how many replayed episodes got byte-identical results and the same verdict.

    python bench/replay.py [--episodes 1000] [--concurrency 4]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import anyio

from mcptrials.agents.reference import ReferenceAgent
from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.model import Task
from mcptrials.replay.recording import load_recording
from mcptrials.replay.serve import Replay
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store

SERVERS = {"units", "mathstats", "worldclock", "finance", "weather"}


def _tasks(count: int) -> list[Task]:
    chosen = [t for t in bundled_tasks() if set(t.servers) <= SERVERS and len(t.servers) == 1
              and 1 <= len(t.reference) <= 3]
    return chosen[:count]


def _results(store: Store) -> dict[tuple[str, int], tuple[list[tuple[str, object, bool]], bool | None]]:
    scores = store.scores()
    return {(e.task_id, e.attempt): ([(c.content, c.structured_content, c.is_error) for c in e.tool_calls],
                                     scores[e.id]["effects"].passed) for e in store.episodes()}


def main(episodes: int, concurrency: int, task_count: int) -> None:
    tasks = _tasks(task_count)
    attempts = -(-episodes // len(tasks))
    specs = {name: spec for name, spec in bundled_servers().items() if name in SERVERS}
    gone = {name: spec.model_copy(update={"command": "/nonexistent/server", "args": []})
            for name, spec in specs.items()}
    with tempfile.TemporaryDirectory() as tmp:
        live_db, replay_db = Path(tmp) / "live.db", Path(tmp) / "replay.db"
        plan = RunPlan(servers=specs, tasks=tasks, agent=ReferenceAgent(), model=None, attempts=attempts,
                       concurrency=concurrency)
        t0 = time.perf_counter()
        live = anyio.run(execute, plan, Store(live_db))
        live_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        recording, _ = load_recording(str(live_db), str(live_db))
        load_s = time.perf_counter() - t0
        replay_plan = RunPlan(servers=gone, tasks=tasks, agent=ReferenceAgent(), model=None, attempts=attempts,
                              concurrency=concurrency, replay=Replay(recording))
        t0 = time.perf_counter()
        replayed = anyio.run(execute, replay_plan, Store(replay_db))
        replay_s = time.perf_counter() - t0
        before, after = _results(Store(live_db)), _results(Store(replay_db))
    same = sum(after.get(key) == value for key, value in before.items())
    calls = sum(len(v[0]) for v in before.values())
    print(f"tasks: {len(tasks)} x {attempts} attempts = {live.completed} live episodes ({calls} tool calls), "
          f"{replayed.completed} replayed; concurrency {concurrency}")
    print(f"live run:   {live_s:8.2f} s  ({live.completed / live_s:7.1f} episodes/s)")
    print(f"replay run: {replay_s:8.2f} s  ({replayed.completed / replay_s:7.1f} episodes/s), "
          f"plus {load_s:.2f} s to load the recording")
    print(f"speed-up (live / replay): {live_s / replay_s:.1f}x; "
          f"including the load: {live_s / (replay_s + load_s):.1f}x")
    print(f"byte-identical results and same verdict: {same}/{len(before)} episodes")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--tasks", type=int, default=20, help="distinct tasks the episodes are spread over")
    args = parser.parse_args()
    main(args.episodes, args.concurrency, args.tasks)
