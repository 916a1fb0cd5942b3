"""The store behaves the same on SQLite and PostgreSQL, with writers in several processes at once."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from sqlalchemy import inspect, select, text

from mcptrials.model import Episode, InfraError, Score, Task, TaskSpec, ValueCheckpoint
from mcptrials.store import db as store_db
from mcptrials.store.db import Store
from mcptrials.store.engine import StoreError

FORK = multiprocessing.get_context("fork")
SPEC = TaskSpec(checkpoints=[ValueCheckpoint(id="v", contains=["x"])])


def episode(n: int, *, attempt: int = 0, infra: bool = False, run_id: str = "run-1") -> Episode:
    return Episode(id=f"ep-{n}-{attempt}", run_id=run_id, task_id=f"t{n}", agent="react", model="m",
                   attempt=attempt, config_hash="h", termination="infra_error" if infra else "done",
                   infra_error=InfraError(kind="server_start", message="no", server="s") if infra else None,
                   final_answer=f"answer {n}")


def scores(ep: Episode, passed: bool) -> list[Score]:
    return [Score(episode_id=ep.id, scorer=s, scorer_version="1", passed=passed, value=float(passed))
            for s in ("effects", "rules")]


def test_write_read_resume_and_rescore_are_the_same_on_both_backends(any_store_url: str) -> None:
    store = Store(any_store_url)
    store.save_run("run-1", "h", {"model": "m", "nested": {"x": [1, 2]}})
    store.save_tasks([Task(id="t1", prompt="first", servers=["s"], spec=SPEC)])
    store.save_tasks([Task(id="t1", prompt="fixed", servers=["s"], spec=SPEC),
                      Task(id="t2", prompt="b", servers=["s"], spec=SPEC)])
    assert {k: t.prompt for k, t in store.tasks().items()} == {("t1", "v0"): "fixed", ("t2", "v0"): "b"}

    first, infra = episode(1), episode(2, infra=True)
    assert store.save_episode(first, scores(first, True))
    assert not store.save_episode(first, scores(first, False))  # a stored result is never replaced
    assert store.save_episode(infra, scores(infra, False))
    assert store.completed_keys() == {first.key()}  # the infra episode runs again
    redo = episode(2)
    assert store.save_episode(redo, scores(redo, True))
    assert [e.id for e in store.episodes()] == [first.id, redo.id]

    assert store.replace_scores([(first, scores(first, False)), (redo, scores(redo, False))], chunk=1) == 2
    stored = store.scores()
    assert {eid: s["effects"].passed for eid, s in stored.items()} == {first.id: False, redo.id: False}
    with store.engine.connect() as conn:
        outcomes = dict(conn.execute(select(store_db.episodes.c.id, store_db.episodes.c.outcome)).all())
    assert outcomes == {first.id: "failed", redo.id: "failed"}
    store.put_judgment("j", "1", "p", {"verdict": True})
    store.put_judgment("j", "1", "p", {"verdict": False})  # first wins
    assert store.get_judgment("j", "1", "p") == {"verdict": True}
    assert store.runs()[0]["config"] == {"model": "m", "nested": {"x": [1, 2]}}
    store.close()


def _writer(url: str, worker: int, barrier: object) -> None:
    store = Store(url)
    barrier.wait()  # type: ignore[attr-defined]
    for n in range(20):  # 20 own episodes and 20 that every worker also writes
        own = episode(1000 + worker * 100 + n, run_id=f"run-{worker}")
        store.save_episode(own, scores(own, True))
        shared = episode(n, run_id=f"run-{worker}")
        store.save_episode(shared, scores(shared, n % 2 == 0))
        store.save_tasks([Task(id=f"t{n}", prompt=f"by {worker}", servers=["s"], spec=SPEC)])
    store.close()


def test_concurrent_writers_in_several_processes_lose_and_double_nothing(any_store_url: str) -> None:
    Store(any_store_url).close()
    barrier = FORK.Barrier(6)
    procs = [FORK.Process(target=_writer, args=(any_store_url, w, barrier)) for w in range(6)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
    assert [p.exitcode for p in procs] == [0] * 6
    store = Store(any_store_url)
    keys = [e.key() for e in store.episodes()]
    assert len(keys) == len(set(keys)) == 6 * 20 + 20
    assert all(len(s) == 2 for s in store.scores().values()) and len(store.scores()) == 140
    assert len(store.tasks()) == 20


def test_postgresql_password_is_never_stored_or_shown(postgres_url: str) -> None:
    from pg_cluster import PASSWORD

    store = Store(postgres_url)
    assert PASSWORD not in store.url and "***" in store.url
    store.save_run("r", "h", {"x": 1})
    with store.engine.connect() as conn:
        names = inspect(conn).get_table_names()
        dumped = " ".join(str(row) for name in names for row in conn.execute(text(f'SELECT * FROM "{name}"')))
    assert PASSWORD not in dumped
    bad = postgres_url.replace(PASSWORD, "not-the-password")
    with pytest.raises(StoreError) as caught:
        Store(bad)
    assert "password authentication failed" in str(caught.value)
    assert "not-the-password" not in str(caught.value) and "\n" not in str(caught.value)


def test_unreachable_or_malformed_urls_are_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot open the result store postgresql"):
        Store("postgresql://u:secret@127.0.0.1:1/db")
    with pytest.raises(StoreError, match="no SQLAlchemy dialect"):
        Store("nosuchdb://u:secret@h/db")
