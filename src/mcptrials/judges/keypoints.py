"""Key-point judge (LiveMCPBench's LiveMCPEval): a binary verdict against the task's key points.

Key points come from the task (``key_points``). A task without them is not judged; generate
them once per task with ``mcptrials tasks keypoints`` (``generate_key_points`` below), which
writes them into the task file so every later judgment reads the same list.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcptrials.judges.base import (
    SCORER_PREFIX,
    JudgeModel,
    MalformedReply,
    as_bool,
    error_score,
    judge_usage_detail,
    register,
    render,
)
from mcptrials.judges.render import final_answer_text, tool_names, tools_text, trajectory_text
from mcptrials.model import Episode, Score, Task, ToolInfo

NAME = "keypoints"
VERSION = "1"


def _validator(n_points: int) -> Any:
    def validate(data: dict[str, Any]) -> dict[str, Any]:
        if "success" not in data:
            raise MalformedReply("the key 'success' is missing")
        points = data.get("key_points")
        if not isinstance(points, list) or len(points) != n_points:
            raise MalformedReply(f"'key_points' must list all {n_points} key points")
        met = []
        for i, item in enumerate(points, 1):
            if not isinstance(item, dict) or "met" not in item:
                raise MalformedReply(f"key point {i} needs a 'met' field")
            met.append({"index": i, "met": as_bool(item["met"], f"key_points[{i}].met"),
                        "reason": str(item.get("reason", ""))[:500]})
        success = as_bool(data["success"], "success")
        return {"key_points": met, "success": success and all(p["met"] for p in met),
                "stated_success": success, "reason": str(data.get("reason", ""))[:1000]}
    return validate


@dataclass
class KeyPointJudge:
    """Passes an episode when the judge finds every key point met."""

    model: JudgeModel
    name: str = field(default=NAME, init=False)
    version: str = field(default=VERSION, init=False)

    async def judge(self, task: Task, episode: Episode, tier1: Score,
                    tools: Mapping[str, ToolInfo] | None = None) -> Score | None:
        if not task.key_points or episode.infra_error is not None:
            return None
        points = "\n".join(f"{i}. {p}" for i, p in enumerate(task.key_points, 1))
        user = render("keypoints_user.txt", prompt=task.prompt, key_points=points,
                      tools=tools_text(tool_names(episode, tools), tools), trajectory=trajectory_text(episode),
                      answer=final_answer_text(episode))
        answer = await self.model.ask(self.name, self.version, render("keypoints_system.txt"), user,
                                      _validator(len(task.key_points)))
        if not answer.ok:
            return error_score(self.name, self.version, episode, self.model, [answer], answer.error or "")
        data = answer.data or {}
        met = sum(p["met"] for p in data["key_points"])
        values, detail = judge_usage_detail(self.model, [answer])
        return Score(episode_id=episode.id, scorer=SCORER_PREFIX + self.name, scorer_version=self.version,
                     passed=bool(data["success"]), value=met / len(task.key_points),
                     values={**values, "key_points_met": float(met), "key_points": float(len(task.key_points))},
                     detail={**detail, "key_points": data["key_points"], "reason": data["reason"]})


@register(NAME)
def keypoint_judge(model: JudgeModel) -> KeyPointJudge:
    """The key-point judge on ``model``."""
    return KeyPointJudge(model)


def _validate_generated(data: dict[str, Any]) -> dict[str, Any]:
    points = data.get("key_points")
    if not isinstance(points, list) or not points or not all(isinstance(p, str) and p.strip() for p in points):
        raise MalformedReply("'key_points' must be a non-empty list of strings")
    return {"key_points": [p.strip() for p in points[:8]]}


async def generate_key_points(model: JudgeModel, task: Task) -> list[str] | None:
    """Key points for one task, written by ``model`` (cached like any judgment); None on a bad reply."""
    reference = "\n".join(f"- {step.tool} {json.dumps(step.args, sort_keys=True)}" for step in task.reference)
    if task.reference_answer:
        reference += f"\nAnswer: {task.reference_answer}"
    answer = await model.ask("keypoints-generate", VERSION, "You write grading key points for agent benchmarks.",
                             render("keypoints_generate.txt", prompt=task.prompt,
                                    reference=reference or "(none given)"),
                             _validate_generated)
    return list(answer.data["key_points"]) if answer.ok and answer.data else None
