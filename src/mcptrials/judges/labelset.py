"""Label files and the agreement table of every scorer with them (``mcptrials agree``).

A label file is JSONL, one line per episode::

    {"episode_id": "...", "passed": true, "score": 8, "key_points_met": 3,
     "labeller": "...", "reason": "..."}

``score`` (1-10) and ``key_points_met`` are optional. The shipped set (``labels/``) holds
reviewed episodes of the bundled world with labels written by reading each whole trajectory
against its prompt; its labeller says who reviewed them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcptrials.judges.agreement import binary_agreement, score_agreement
from mcptrials.judges.base import JUDGE_ERROR, SCORER_PREFIX
from mcptrials.model import Episode, Score, Task, ToolInfo
from mcptrials.safety.loading import bounded, load_jsonl

LABELS_DIR = Path(__file__).parent / "labels"
SHIPPED_LABELS = LABELS_DIR / "reviewed_labels.jsonl"
SHIPPED_EPISODES = LABELS_DIR / "reviewed_episodes.jsonl"
SHIPPED_TOOLS = LABELS_DIR / "reviewed_tools.json"
SHIPPED_TASKS = LABELS_DIR / "reviewed_tasks.jsonl"


class LabelError(ValueError):
    """A label or episode file that cannot be used."""


class Label(BaseModel):
    """One labelled episode."""

    model_config = ConfigDict(extra="forbid")
    episode_id: str
    passed: bool
    score: float | None = Field(default=None, ge=1, le=10)
    key_points_met: int | None = Field(default=None, ge=0)
    labeller: str
    reason: str = ""


def _jsonl(path: Path) -> list[tuple[int, Any]]:
    return list(bounded(load_jsonl, LabelError, path, "JSONL file"))


def load_labels(path: str | Path) -> list[Label]:
    """Read a JSONL label file; the message names file, line and field on error."""
    labels = []
    for number, data in _jsonl(Path(path)):
        try:
            labels.append(Label.model_validate(data))
        except ValidationError as exc:
            first = exc.errors()[0]
            raise LabelError(f"{path}:{number}: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    return labels


def load_episodes(path: str | Path) -> dict[str, Episode]:
    """Episodes stored one JSON object per line, by id."""
    out = {}
    for number, data in _jsonl(Path(path)):
        try:
            episode = Episode.model_validate(data)
        except ValidationError as exc:
            raise LabelError(f"{path}:{number}: not an episode: {exc.errors()[0]['msg']}") from None
        out[episode.id] = episode
    return out


def shipped_world(current_tasks: bool = True) -> tuple[dict[str, Episode], dict[str, ToolInfo],
                                                       dict[tuple[str, str], Task]]:
    """The shipped episodes, the tools they were offered (catalog form) and their tasks.

    Tasks are the current bundled suite (so ``agree`` measures today's scorer), with the
    snapshot taken when the set was made as a fallback for a task that no longer exists;
    ``current_tasks=False`` gives the snapshot alone (fixed specs, for tests).
    """
    from mcptrials.bundled.world import bundled_tasks

    episodes = load_episodes(SHIPPED_EPISODES)
    catalog = {k: ToolInfo.model_validate(v) for k, v in json.loads(SHIPPED_TOOLS.read_text("utf-8")).items()}
    tasks: dict[tuple[str, str], Task] = {}
    for _, data in _jsonl(SHIPPED_TASKS):
        task = Task.model_validate(data)
        tasks[(task.id, "v0")] = task
    if not current_tasks:
        return episodes, catalog, tasks
    wanted = {e.task_id for e in episodes.values()}
    tasks.update({(t.id, "v0"): t for t in bundled_tasks() if t.id in wanted})
    return episodes, catalog, tasks


def _tier1_score(value: float | None) -> float | None:
    """A checkpoint fraction on the labels' 1-10 scale (for rank correlations only)."""
    return None if value is None else 1 + 9 * value


def predictions(scores: Mapping[str, Score]) -> dict[str, dict[str, Any]]:
    """Per scorer name: the binary verdict and 1-10 score it gives one episode (None: no opinion)."""
    out: dict[str, dict[str, Any]] = {}
    effects = scores.get("effects")
    if effects is not None:
        out["tier1 (deterministic)"] = {"passed": effects.passed, "score": _tier1_score(effects.value)}
    judged = {k[len(SCORER_PREFIX):]: s for k, s in scores.items() if k.startswith(SCORER_PREFIX)
              and JUDGE_ERROR not in s.failure_codes}
    if effects is not None and "tier2" in judged:
        out["tier1+2"] = {"passed": judged["tier2"].passed, "score": None}
    if "keypoints" in judged:
        kp = judged["keypoints"]
        out["keypoints"] = {"passed": kp.passed, "score": None, "key_points_met": kp.values.get("key_points_met")}
    if "rubric" in judged:
        rub = judged["rubric"]
        out["rubric (task fulfilment)"] = {"passed": None, "score": rub.values.get("task_fulfillment")}
        out["rubric (overall)"] = {"passed": None, "score": None if rub.value is None else 10 * rub.value}
    return out


def agreement_table(labels: Sequence[Label], scores: Mapping[str, Mapping[str, Score]],
                    judged_with_tier2: bool = False) -> dict[str, Any]:
    """Agreement of every scorer with the labels: binary stats and score correlations with intervals."""
    per: dict[str, dict[str, list[Any]]] = {}
    for label in labels:
        found = predictions(scores.get(label.episode_id, {}))
        effects = scores.get(label.episode_id, {}).get("effects")
        if judged_with_tier2 and effects is not None and "tier1+2" not in found:
            found["tier1+2"] = {"passed": effects.passed, "score": None}  # not judged: Tier-1 stands
        for scorer, pred in found.items():
            bucket = per.setdefault(scorer, {"bt": [], "bp": [], "st": [], "sp": [], "kt": [], "kp": []})
            if pred.get("passed") is not None:
                bucket["bt"].append(label.passed)
                bucket["bp"].append(bool(pred["passed"]))
            if pred.get("score") is not None and label.score is not None:
                bucket["st"].append(label.score)
                bucket["sp"].append(float(pred["score"]))
            if pred.get("key_points_met") is not None and label.key_points_met is not None:
                bucket["kt"].append(float(label.key_points_met))
                bucket["kp"].append(float(pred["key_points_met"]))
    table: dict[str, Any] = {}
    for scorer, b in per.items():
        row: dict[str, Any] = {}
        if b["bt"]:
            row["binary"] = binary_agreement(b["bt"], b["bp"])
        if b["st"]:
            row["scores"] = score_agreement(b["st"], b["sp"])
        if b["kt"]:
            row["key_points_met"] = score_agreement(b["kt"], b["kp"])
        table[scorer] = row
    labellers = sorted({label.labeller for label in labels})
    return {"labels": len(labels), "labellers": labellers,
            "label_passes": sum(label.passed for label in labels), "scorers": table}


async def measure(labels: Sequence[Label], episodes: Mapping[str, Episode], catalog: Mapping[str, ToolInfo],
                  tasks: Mapping[tuple[str, str], Task], judges: Sequence[Any] = (),
                  stored: Mapping[str, Mapping[str, Score]] | None = None) -> dict[str, Any]:
    """Score every labelled episode with Tier-1 now (and ``judges`` if given; else stored judged scores).

    Labels whose episode or task is not at hand are counted in ``unmatched`` and left out.
    """
    from mcptrials.judges.apply import judge_episode
    from mcptrials.scoring.effects import score_effects
    from mcptrials.scoring.rescore import offered_tools
    from mcptrials.store.db import task_for

    scores: dict[str, dict[str, Score]] = {}
    unmatched: list[str] = []
    used: list[Label] = []
    for label in labels:
        episode = episodes.get(label.episode_id)
        task = task_for(tasks, episode.task_id, episode.version) if episode is not None else None
        if episode is None or task is None:
            unmatched.append(label.episode_id)
            continue
        tools = offered_tools(episode, catalog)
        tier1 = score_effects(task, episode, tools)
        by: dict[str, Score] = {"effects": tier1}
        if judges:
            by.update({s.scorer: s for s in await judge_episode(judges, task, episode, tier1, tools)})
        elif stored:
            by.update({k: s for k, s in stored.get(episode.id, {}).items() if k.startswith(SCORER_PREFIX)})
        scores[episode.id] = by
        used.append(label)
    with_tier2 = any(getattr(j, "name", "") == "tier2" for j in judges) or any(
        "judge:tier2" in by for by in scores.values())
    table = agreement_table(used, scores, judged_with_tier2=with_tier2)
    table["unmatched"] = unmatched
    costs = [s.values.get("judge_cost_usd", 0.0) for by in scores.values() for k, s in by.items()
             if k.startswith(SCORER_PREFIX)]
    table["judge_cost_usd"] = round(sum(costs), 6)
    return table
