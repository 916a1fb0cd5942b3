"""`score --judge` on a stored run, then `report --format json`; `agree` on the shipped labels."""

from __future__ import annotations

import json

import pytest
from judge_endpoint import COMPLETION_TOKENS, PROMPT_TOKENS
from typer.testing import CliRunner

from mcptrials.cli import app
from mcptrials.judges.labelset import SHIPPED_LABELS, load_labels, shipped_world
from mcptrials.scoring.effects import score_effects
from mcptrials.scoring.rescore import offered_tools
from mcptrials.store.db import Store

KEYS = ["math-001/mental-arithmetic", "fin-003/reversed-direction", "sci-001/cleans-up-k", "fin-006/one-by-one"]
COST_PER_REQUEST = (PROMPT_TOKENS * 0.15 + COMPLETION_TOKENS * 0.60) / 1_000_000


def stored_run(path):
    episodes, catalog, tasks = shipped_world(current_tasks=False)
    by_key = {e.model.split("reviewed:")[1]: e for e in episodes.values()}
    store = Store(path)
    store.save_tools(catalog.values())
    chosen = [by_key[k].model_copy(update={"model": "scripted:agent"}) for k in KEYS]
    chosen.append(chosen[-1].model_copy(update={"id": "fin-006-v1", "version": "v1"}))  # a second version
    for episode in chosen:
        task = tasks[(episode.task_id, "v0")]
        store.save_tasks([task])
        store.save_episode(episode, [score_effects(task, episode, offered_tools(episode, catalog))])
    return store, chosen


def test_score_with_judge_then_report(tmp_path, judge_endpoint) -> None:
    db = tmp_path / "run.db"
    stored_run(db)
    runner = CliRunner()
    args = ["score", "--db", str(db), "--judge", "openai:gpt-4o-mini", "--judge-base-url", judge_endpoint.base_url,
            "--rubric-repeats", "2"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    # tier2 on the two Tier-1 failures without a minefield, rubric twice per episode, errors where no rule decides
    first = len(judge_endpoint.requests)
    assert first > 0
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and len(judge_endpoint.requests) == first  # all cached
    report = runner.invoke(app, ["report", "--db", str(db), "--format", "json"])
    assert report.exit_code == 0, report.output
    data = json.loads(report.output)
    rows = {r["episode_id"]: r for r in data["episodes"]}
    judged = data["judges"]
    tiers = judged["tier1_vs_tier1_2"][0]
    assert tiers["episodes"] == 5 and tiers["tier1_pass_rate"] == pytest.approx(2 / 5)
    assert tiers["tier2_overturned"] >= 1 and tiers["tier1_2_pass_rate"] > tiers["tier1_pass_rate"]
    mental = next(r for r in rows.values() if r["task_id"] == "math-001")
    assert mental["judges"]["tier2"]["overturned"] is True and mental["judges"]["rubric"]["repeats"] == 2
    assert mental["judges"]["rubric"]["judge_model"] == "openai:gpt-4o-mini"
    minefield = next(r for r in rows.values() if r["task_id"] == "sci-001")
    assert "tier2" not in minefield["judges"] and minefield["judges"]["errors"]["error_class"] == \
        "intent_tool_misalignment"
    assert judged["error_types"]["per_model"]["scripted:agent"]["intent_tool_misalignment"] == 1
    assert sum(judged["error_types"]["per_category"][c].get("semantic_parameter_error", 0)
               for c in judged["error_types"]["per_category"]) == 2
    assert set(judged["error_types"]["per_version"]) == {"v0"}
    total_tokens = sum(u["prompt_tokens"] + u["completion_tokens"] for u in judged["usage"])
    assert total_tokens == first * (PROMPT_TOKENS + COMPLETION_TOKENS) == judged["total_tokens"]
    assert judged["total_cost_usd"] == pytest.approx(first * COST_PER_REQUEST, abs=1e-6)
    ecs = judged["tf_ecs"][0]
    assert ecs["versions"] == ["v0", "v1"] and ecs["tasks"] == 1 and ecs["ecs_tf_1_10"] == pytest.approx(7.0)
    assert ecs["ecs_checkpoint_fraction"] == pytest.approx(1.0)
    # with labels, the report gives each scorer's agreement beside the judged scores
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"episode_id": e, "passed": r["task_id"] != "sci-001", "labeller": "t"})
                              + "\n" for e, r in rows.items()))
    with_labels = runner.invoke(app, ["report", "--db", str(db), "--labels", str(labels), "--format", "json"])
    assert with_labels.exit_code == 0, with_labels.output
    agreement = json.loads(with_labels.output)["agreement"]
    assert agreement["labels"] == 5 and {"tier1 (deterministic)", "tier1+2"} <= set(agreement["scorers"])
    shown = runner.invoke(app, ["report", "--db", str(db), "--labels", str(labels)])
    assert shown.exit_code == 0 and "Gwet's AC1" in shown.output


def test_agree_on_the_shipped_set() -> None:
    result = CliRunner().invoke(app, ["agree", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    labels = load_labels(SHIPPED_LABELS)
    assert data["labels"] == len(labels) >= 60 and data["unmatched"] == []
    assert data["labellers"] == ["reviewed by an AI engineer (not a human)"]
    tier1 = data["scorers"]["tier1 (deterministic)"]["binary"]
    t = tier1["table"]
    assert sum(t.values()) == len(labels)
    n = len(labels)
    p_o = (t["both_pass"] + t["both_fail"]) / n
    p_label = (t["both_pass"] + t["label_pass_scorer_fail"]) / n
    p_scorer = (t["both_pass"] + t["label_fail_scorer_pass"]) / n
    chance = p_label * p_scorer + (1 - p_label) * (1 - p_scorer)
    assert tier1["cohen_kappa"]["value"] == pytest.approx((p_o - chance) / (1 - chance), abs=1e-4)
    assert "spearman_rho" in data["scorers"]["tier1 (deterministic)"]["scores"]


def test_agree_with_a_judge(judge_endpoint) -> None:
    result = CliRunner().invoke(app, ["agree", "--format", "json", "--judge", "openai:gpt-4o-mini",
                                      "--judge-base-url", judge_endpoint.base_url, "--judges", "tier2"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["scorers"]["tier1+2"]["binary"]["n"] == data["labels"]
    assert data["judge_cost_usd"] == pytest.approx(len(judge_endpoint.requests) * COST_PER_REQUEST, abs=1e-6)


def test_tasks_keypoints_generates_missing_ones_once(tmp_path, judge_endpoint) -> None:
    _, _, tasks = shipped_world(current_tasks=False)
    bare = tasks[("fin-001", "v0")].model_copy(update={"key_points": []})
    kept = tasks[("fin-003", "v0")]
    source = tmp_path / "tasks.jsonl"
    source.write_text(bare.model_dump_json() + "\n" + kept.model_dump_json() + "\n")
    out = tmp_path / "with_points.jsonl"
    args = ["tasks", "keypoints", "--model", "openai:gpt-4o-mini", "--base-url", judge_endpoint.base_url,
            "--tasks", str(source), "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert len(judge_endpoint.requests) == 1  # the task that had key points is left alone
    from mcptrials.tasks.loader import load_tasks

    written = {t.id: t for t in load_tasks(out)}
    assert written["fin-001"].key_points == ["States the actual EPS", "States the expected EPS"]
    assert written["fin-003"].key_points == kept.key_points


def test_agree_refuses_labels_that_match_no_episode(tmp_path) -> None:
    labels = tmp_path / "mine.jsonl"
    labels.write_text(json.dumps({"episode_id": "nowhere", "passed": True, "labeller": "me"}) + "\n")
    result = CliRunner().invoke(app, ["agree", "--labels", str(labels)])
    assert result.exit_code == 2 and "none of the 1 labels matches" in result.output
