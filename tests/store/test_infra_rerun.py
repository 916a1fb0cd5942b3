"""Infra-error episodes are not results: the next invocation of the same run re-runs and replaces them."""

from __future__ import annotations

import sys
from pathlib import Path

from mcptrials.agents.reference import ReferenceAgent
from mcptrials.model import Episode, InfraError, PlannedCall, Score, ServerSpec, Task, TaskSpec, ToolEffectCheckpoint
from mcptrials.report.summary import report_from_store
from mcptrials.run.runner import RunPlan, execute
from mcptrials.servers.toolbox import Limits
from mcptrials.store.db import Store

FAULTY = Path(__file__).parents[1] / "support" / "faulty_server.py"
KEY = {"task_id": "t1", "version": "v0", "agent": "react", "model": "m", "attempt": 0, "config_hash": "h"}


def _episode(run_id: str, infra: bool) -> Episode:
    return Episode(id="ep-1", run_id=run_id, **KEY, termination="infra_error" if infra else "done",
                   infra_error=InfraError(kind="server_start", message="no start", server="s") if infra else None,
                   final_answer="" if infra else "done it")


def _scores(passed: bool, *scorers: str) -> list[Score]:
    return [Score(episode_id="ep-1", scorer=s, scorer_version="1", passed=passed, value=1.0 if passed else 0.0)
            for s in scorers]


def test_infra_episode_is_not_completed_and_is_replaced_with_its_scores(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    store = Store(path)
    assert store.save_episode(_episode("run-1", infra=True), _scores(False, "effects", "rules"))
    assert store.completed_keys() == set()
    assert store.save_episode(_episode("run-2", infra=False), _scores(True, "effects"))
    store.close()

    reopened = Store(path)
    stored = list(reopened.episodes())
    assert [(e.id, e.run_id, e.termination) for e in stored] == [("ep-1", "run-2", "done")]
    assert set(reopened.scores()["ep-1"]) == {"effects"}  # the infra episode's rules score went with it
    assert reopened.scores()["ep-1"]["effects"].passed is True
    assert reopened.completed_keys() == {tuple(KEY.values())}
    # a result is never replaced, not even by a later infra failure
    assert not reopened.save_episode(_episode("run-3", infra=True), _scores(False, "effects"))
    assert [e.run_id for e in reopened.episodes()] == ["run-2"]


def _plan(switch: Path) -> RunPlan:
    spec = ServerSpec(name="faulty", command=sys.executable, args=[str(FAULTY)],
                      env={"FAULTY_FAIL_START_IF_EXISTS": str(switch)})
    task = Task(id="echo-task", prompt="Say hello through the echo tool.", servers=["faulty"],
                spec=TaskSpec(checkpoints=[ToolEffectCheckpoint(id="c1", tools=["faulty__echo"],
                                                                must_include={"text": "hello"})]),
                reference=[PlannedCall(tool="faulty__echo", args={"text": "hello"})], reference_answer="hello")
    return RunPlan(servers={"faulty": spec}, tasks=[task], agent=ReferenceAgent(), model=None, attempts=2,
                   concurrency=1, limits=Limits(start_timeout=20))


async def test_run_whose_server_never_starts_is_rerun_listed_then_replaced(tmp_path: Path) -> None:
    switch = tmp_path / "server-is-broken"
    switch.touch()
    store = Store(tmp_path / "results.db")

    first = await execute(_plan(switch), store)
    assert first.counts["infra_error"] == 2 and first.skipped == 0
    report = report_from_store(store)
    summary = report["summary"][0]
    assert (summary["n_tasks"], summary["infra_errors"], summary["tasks_short_of_k"]) == (0, 2, 1)
    unit = {"task_id": "echo-task", "version": "v0", "scored_attempts": 0, "infra_errors": 2}
    assert summary["short_of_k"] == [unit] and summary["infra_by_task"] == [unit]
    assert report["infra_unresolved"] == [{"model": "none", "agent": "reference", **unit}]
    assert report["per_version"][0]["tasks_short_of_k"] == 1

    second = await execute(_plan(switch), store)  # the same command again: infra episodes run again
    assert second.skipped == 0 and second.counts["infra_error"] == 2
    stored = list(store.episodes())
    assert len(stored) == 2 and {e.run_id for e in stored} == {second.run_id}
    assert all(e.infra_error is not None and e.infra_error.kind == "server_start" for e in stored)

    switch.unlink()  # the server starts now
    third = await execute(_plan(switch), store)
    assert third.skipped == 0 and third.counts == {"passed": 2, "failed": 0, "infra_error": 0}
    stored = list(store.episodes())
    assert len(stored) == 2 and all(e.infra_error is None and e.run_id == third.run_id for e in stored)
    report = report_from_store(store)
    assert report["infra_unresolved"] == []
    assert report["summary"][0]["pass_hat_k"] == 1.0 and report["summary"][0]["n_tasks"] == 1

    fourth = await execute(_plan(switch), store)  # results are kept
    assert fourth.skipped == 2 and fourth.completed == 0
