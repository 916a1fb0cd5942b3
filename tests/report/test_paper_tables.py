"""The papers' tables in ``report --format json``, on a store written through the Store API with known counts."""

from __future__ import annotations

import json
from pathlib import Path

from report_world import cli

from mcptrials.model import Episode, ModelTurn, Score, Task, ToolCallRecord
from mcptrials.scoring.effects import score_effects
from mcptrials.store.db import Store

TASKS = [
    Task(id="t1", prompt="one", servers=["s1"], spec={"checkpoints": [
        {"id": "v", "kind": "value_produced", "contains": ["x"]}]}),
    Task(id="t2", prompt="two", servers=["s1", "s2"], provenance={"dynamism": "live_read"},
         spec={"checkpoints": [{"id": "v", "kind": "value_produced", "contains": ["x"]}]}),
    Task(id="t3", prompt="three", servers=["s1"], spec={"checkpoints": [
        {"id": "f", "kind": "state", "path": "out.txt", "contains": ["x"]}]}),
]


def _episode(model: str, task: str, calls: list[str | None], routes: int = 0) -> Episode:
    steps: list[ModelTurn | ToolCallRecord] = [ModelTurn(index=i, role="router") for i in range(routes)]
    for kind in calls:
        steps.append(ModelTurn(index=len(steps)))
        steps.append(ToolCallRecord(index=len(steps), call_id=f"c{len(steps)}", turn=0, name="s1__tool", server="s1",
                                    tool="tool", arguments={}, is_error=kind is not None, error_kind=kind))
    steps.append(ModelTurn(index=len(steps), text="done"))
    return Episode(id=f"{model}-{task}", run_id="r", task_id=task, agent="react", model=model, attempt=1,
                   config_hash="h", steps=steps)


def _effects(episode: Episode, passed: bool) -> Score:
    return Score(episode_id=episode.id, scorer="effects", scorer_version="1", passed=passed, value=float(passed))


def test_paper_tables_with_known_counts(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    store = Store(db)
    store.save_run("r", "h", {})
    store.save_tasks(TASKS)
    plan = [("A", "t1", [None], 2, True), ("A", "t2", [None, "unknown_tool"], 0, False), ("A", "t3", [None], 0, True),
            ("B", "t1", [None], 0, True), ("B", "t2", ["tool_error"], 0, False), ("B", "t3", [], 0, False)]
    for model, task, calls, routes, passed in plan:
        episode = _episode(model, task, calls, routes)
        scores = [_effects(episode, passed)]
        if (model, task) == ("B", "t3"):
            scores.append(Score(episode_id=episode.id, scorer="judge:errors", scorer_version="1", passed=None,
                                detail={"error_class": "planning_logic_error", "taxonomy": "tool_blindness"}))
        store.save_episode(episode, scores)
    store.close()
    papers = json.loads(cli("report", "--db", str(db), "--format", "json").stdout)["papers"]
    effort = {r["model"]: r for r in papers["effort"]}
    assert effort["A"]["avg_tool_calls"] == 4 / 3 and effort["A"]["avg_rounds"] == 7 / 3
    assert effort["A"]["tool_hallucination_rate"] == 0.25 and effort["A"]["retrievals_per_episode"] == 2 / 3
    assert effort["B"]["avg_tool_calls"] == 2 / 3 and effort["B"]["tool_hallucination_rate"] == 0.0
    scope = {(r["model"], r["value"]): (r["episodes"], r["pass_rate"]) for r in papers["server_scope"]}
    assert scope == {("A", "single"): (2, 1.0), ("A", "multi"): (1, 0.0), ("B", "single"): (2, 0.5),
                     ("B", "multi"): (1, 0.0)}
    dyn = {(r["model"], r["value"]): r["pass_rate"] for r in papers["dynamism"]}
    assert dyn == {("A", "static"): 1.0, ("A", "live_read"): 0.0, ("A", "stateful_write"): 1.0,
                   ("B", "static"): 1.0, ("B", "live_read"): 0.0, ("B", "stateful_write"): 0.0}
    cross = {(r["model"], r["value"]): r["episodes"] for r in papers["cross_server"]}
    assert cross == {("A", "cross_server"): 1, ("A", "one_server"): 2, ("B", "cross_server"): 1,
                     ("B", "one_server"): 2}
    assert papers["solved_share"] == {"models": 2, "units": 3, "none_solved": 1 / 3, "all_solved": 1 / 3}
    classes = {r["model"]: {k: r[k] for k in ("query", "retrieve", "tool", "other")} for r in papers["error_classes"]}
    assert classes == {"A": {"query": 0, "retrieve": 0, "tool": 1, "other": 0},
                       "B": {"query": 0, "retrieve": 1, "tool": 1, "other": 0}}


def test_judge_only_tasks_count_by_their_judge_verdict(tmp_path: Path) -> None:
    """A judge-only task passes by its key-point judge; without a judgment it is unjudged and out of the rates."""
    db = tmp_path / "r.db"
    store = Store(db)
    store.save_run("r", "h", {})
    task = Task(id="j", prompt="judge me", servers=["s1"], key_points=["k"],
                spec={"checkpoints": [], "judges": ["keypoints"]})
    store.save_tasks([task])
    for model, judged in (("A", True), ("B", None)):
        episode = _episode(model, "j", [None])
        scores = [score_effects(task, episode, {})]  # Tier-1 of a judge-only task: no verdict
        if judged is not None:
            scores.append(Score(episode_id=episode.id, scorer="judge:keypoints", scorer_version="1", passed=judged))
        store.save_episode(episode, scores)
    store.close()
    papers = json.loads(cli("report", "--db", str(db), "--format", "json").stdout)["papers"]
    scope = {r["model"]: (r["unjudged"], r["pass_rate"]) for r in papers["server_scope"]}
    assert scope == {"A": (0, 1.0), "B": (1, None)}
    assert papers["solved_share"]["models"] == 1  # B's unjudged episode is no verdict
