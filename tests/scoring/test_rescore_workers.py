"""Re-scoring in helper processes gives exactly the in-process scores, even while this process runs threads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from sqlalchemy import func, select

from mcptrials.agents.reference import ReferenceAgent
from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.run.runner import RunPlan, execute
from mcptrials.scoring import rescore as rescoring
from mcptrials.scoring.rescore import rescore
from mcptrials.store.db import Store, scores


@pytest.mark.timeout(300)
def test_workers_score_like_one_process_while_a_thread_holds_a_lock(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path / "r.db")
    plan = RunPlan(servers=dict(bundled_servers()), tasks=bundled_tasks()[:4], agent=ReferenceAgent(), model=None)
    anyio.run(execute, plan, store)

    def dump() -> dict[str, dict[str, tuple[bool | None, float | None, str]]]:
        return {eid: {name: (s.passed, s.value, s.model_dump_json()) for name, s in by.items()}
                for eid, by in store.scores().items()}

    assert rescore(store, workers=1) == (4, [])
    alone = dump()
    held, release = threading.Lock(), threading.Event()

    def holder() -> None:  # a fork taken now would copy this lock held (the hang a forked pool can meet)
        with held:
            release.wait(60)

    scored_by: list[int] = []
    chunks = rescoring._scored_chunks

    def spy(*args: object) -> Iterator[rescoring._Scored]:
        for scored in chunks(*args):  # type: ignore[arg-type]
            scored_by.append(scored.pid)
            yield scored

    monkeypatch.setattr(rescoring, "_scored_chunks", spy)
    monkeypatch.setattr(rescoring, "_WAIT_FOR_HELPERS", True)  # four episodes are otherwise done before they start
    thread = threading.Thread(target=holder, daemon=True)
    thread.start()
    try:
        assert rescore(store, workers=2, chunk=1) == (4, [])
    finally:
        release.set()
        thread.join()
    assert dump() == alone
    assert len(scored_by) == 4 and any(pid != os.getpid() for pid in scored_by), scored_by


_DYING_HELPERS = """
import json, os, sys
from mcptrials.scoring import rescore as rescoring
from mcptrials.store.db import Store, scores

parent, real = os.getpid(), rescoring._score_range


def dying(bounds):
    if os.getpid() != parent:
        os._exit(9)  # a helper killed in the middle of a range (the OOM killer, a kill -9)
    return real(bounds)


rescoring._score_range, rescoring._WAIT_FOR_HELPERS = dying, True
print(json.dumps(rescoring.rescore(Store(sys.argv[1]), workers=2, chunk=1)))
"""


@pytest.mark.timeout(300)
def test_a_helper_that_dies_costs_no_episode_and_no_hang(tmp_path: Path) -> None:
    """Run in a fresh interpreter: with no other thread running, the helpers are forked."""
    store = Store(tmp_path / "r.db")
    plan = RunPlan(servers=dict(bundled_servers()), tasks=bundled_tasks()[:4], agent=ReferenceAgent(), model=None)
    anyio.run(execute, plan, store)
    before = {eid: {name: s.model_dump_json() for name, s in by.items()} for eid, by in store.scores().items()}
    with store.engine.begin() as conn:
        conn.execute(scores.delete())
    done = subprocess.run([sys.executable, "-c", _DYING_HELPERS, str(tmp_path / "r.db")], capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == [4, []]
    assert "helper process died" in done.stderr  # (the helpers were used, and died)
    after = {eid: {name: s.model_dump_json() for name, s in by.items()} for eid, by in store.scores().items()}
    assert after == before
    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(scores)).scalar() == 8
