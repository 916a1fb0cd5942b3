"""Re-scoring throughput: episodes/s of ``mcptrials score`` (``scoring.rescore``) on a large store.

Builds a store of N episodes from real ones (the reference agent on bundled tasks, run once, then
copied under new attempt numbers so every copy is its own stored episode; every third copy has
the digits of its answer shifted, so that some fail), re-scores it and prints the rate. It checks
that re-scoring reproduced every stored verdict of the unchanged copies, and that every score
record written with 2 workers is byte-identical to the one written by 1. Goal: >= 5,000 episodes/s.

    python bench/rescore.py [--episodes 20000] [--tasks 20] [--workers N] [--db postgresql://...]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path

import anyio
from sqlalchemy import select

from mcptrials.agents.reference import ReferenceAgent
from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.model import stable_hash
from mcptrials.run.runner import RunPlan, execute
from mcptrials.scoring.rescore import rescore
from mcptrials.store.db import Store, episodes, scores

_SHIFT = str.maketrans("0123456789", "1234567890")


def build(store: Store, n_tasks: int, total: int) -> int:
    """Run ``n_tasks`` bundled tasks once, then copy their episodes until ``total`` are stored."""
    plan = RunPlan(servers=dict(bundled_servers()), tasks=bundled_tasks()[:n_tasks], agent=ReferenceAgent(),
                   model=None, concurrency=2)
    anyio.run(execute, plan, store)
    with store.engine.connect() as conn:
        source = [dict(row._mapping) for row in conn.execute(select(episodes))]
    rows, copy = [], 1
    while len(source) * (copy + 1) <= total:
        for row in source:
            data = json.loads(row["data"])
            data["id"] = stable_hash([row["id"], copy])  # scattered like real ids: copies are never neighbours
            data["attempt"] = row["attempt"] + 1000 * copy
            if copy % 3 == 0:  # a wrong answer: every digit one higher
                data["final_answer"] = data["final_answer"].translate(_SHIFT)
            rows.append({**row, "id": data["id"], "attempt": data["attempt"], "data": json.dumps(data)})
        copy += 1
    with store.engine.begin() as conn:
        for start in range(0, len(rows), 5000):
            conn.execute(episodes.insert(), rows[start:start + 5000])
    return store.episode_count()


def _cpu() -> float:
    """CPU seconds of this process (with several workers, they run under a forkserver and are not counted)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20000)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--workers", type=int, default=None, help="scoring processes (default: 1, then 2)")
    parser.add_argument("--db", default=None, help="an empty database URL (default: a temporary SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(args.db or str(Path(tmp) / "bench.db"))
        total = build(store, args.tasks, args.episodes)
        with store.engine.connect() as conn:
            before = dict(conn.execute(select(episodes.c.id, episodes.c.outcome)).all())
            changed = {eid for eid, attempt in conn.execute(select(episodes.c.id, episodes.c.attempt))
                       if attempt >= 1000 and attempt // 1000 % 3 == 0}
        load = os.getloadavg()[0]
        written: dict[int, dict[tuple[str, str], str]] = {}
        for workers in ([args.workers] if args.workers else [1, 2]):
            cpu0, t0 = _cpu(), time.perf_counter()
            count, missing = rescore(store, workers=workers)
            elapsed, cpu = time.perf_counter() - t0, _cpu() - cpu0
            per_cpu = f"; {cpu:.2f} CPU-s = {count / cpu:,.0f} episodes per CPU-second" if workers == 1 else ""
            print(f"re-scored {count} episodes in {elapsed:.2f}s with workers={workers}: {count / elapsed:,.0f} "
                  f"episodes/s (goal >= 5,000){per_cpu}; "
                  f"store {store.engine.dialect.name}; load average {load:.1f} on {os.cpu_count()} CPUs")
            assert count == total and not missing
            with store.engine.connect() as conn:
                written[workers] = {(r[0], r[1]): r[2] for r in conn.execute(
                    select(scores.c.episode_id, scores.c.scorer, scores.c.data))}
                conn.execute(scores.update().values(data="{}"))  # blanked: the next pass must write each again
                conn.commit()
        with store.engine.connect() as conn:
            after = dict(conn.execute(select(episodes.c.id, episodes.c.outcome)).all())
        kept = [k for k in before if k not in changed]
        reproduced = sum(before[k] == after[k] for k in kept)
        print(f"verdicts reproduced: {reproduced}/{len(kept)} unchanged copies; {len(changed)} copies with a shifted "
              f"answer, {sum(after[k] == 'failed' for k in changed)} of them now failed; "
              f"{sum(v == 'passed' for v in after.values())} passed in all")
        if len(written) == 2:
            one, two = written.values()
            same = sum(one.get(key) == data for key, data in two.items())
            print(f"score records identical between 1 and 2 workers: {same}/{len(one)} (and {len(two)} written)")
        store.close()


if __name__ == "__main__":
    main()
