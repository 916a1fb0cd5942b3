"""Tier-2 effect-equivalence judge (DynamicMCPBench §3.4).

As the paper has it, a judge may upgrade only a failed ``tool_effect`` checkpoint: the effect
was brought about by another tool, or with other arguments to the same effect. It never reads
or overrides the answer: an episode that failed an answer, state, conclusion, grounding,
duplicate-write, minefield or order check stays failed whatever a judge thinks, so the judge
does not run on it. Each failed tool-effect checkpoint is shown to the judge on its own with the
trajectory; the episode passes Tier-1+2 when every one of them is upgraded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcptrials.judges.base import (
    SCORER_PREFIX,
    Answer,
    JudgeModel,
    MalformedReply,
    as_bool,
    error_score,
    judge_usage_detail,
    register,
    render,
)
from mcptrials.judges.render import (
    checkpoint_text,
    tool_names,
    tools_text,
    trajectory_text,
)
from mcptrials.model import CheckpointResult, Episode, Score, Task, ToolInfo

NAME = "tier2"
VERSION = "1"
JUDGEABLE = frozenset({"missing_effect", "wrong_arguments"})
"""Tier-1 checkpoint failures a judge may overturn: those of tool-effect checkpoints."""
NEVER = frozenset({"minefield", "order_violation"})


def _validate(data: dict[str, Any]) -> dict[str, Any]:
    if "achieved" not in data:
        raise MalformedReply("the key 'achieved' is missing")
    steps = data.get("evidence_steps") or []
    if not isinstance(steps, list):
        steps = [steps]
    return {"achieved": as_bool(data["achieved"], "achieved"), "evidence_steps": steps,
            "reason": str(data.get("reason", ""))[:1000]}


def applies(tier1: Score, episode: Episode) -> list[CheckpointResult]:
    """The failed checkpoints Tier-2 may judge (empty: the judge does not run)."""
    if tier1.passed or tier1.passed is None or episode.infra_error is not None:
        return []
    if NEVER.intersection(tier1.failure_codes):
        return []
    failed = [r for r in tier1.checkpoints if not r.passed]
    if any(r.failure not in JUDGEABLE for r in failed):
        return []  # an answer, state or other failure no judge may overturn: the episode stays failed
    return failed


@dataclass
class Tier2Judge:
    """Decides, per failed checkpoint, whether the effect was achieved another way."""

    model: JudgeModel
    name: str = field(default=NAME, init=False)
    version: str = field(default=VERSION, init=False)

    async def judge(self, task: Task, episode: Episode, tier1: Score,
                    tools: Mapping[str, ToolInfo] | None = None) -> Score | None:
        failed = applies(tier1, episode)
        if not failed:
            return None
        system = render("tier2_system.txt")
        trajectory = trajectory_text(episode)
        offered = tools_text(tool_names(episode, tools), tools)
        answers: list[Answer] = []
        results: list[CheckpointResult] = []
        for result in failed:
            cp = next(c for c in task.spec.checkpoints if c.id == result.id)
            user = render("tier2_user.txt", prompt=task.prompt, checkpoint=checkpoint_text(task, cp.id, result),
                          tools=offered, trajectory=trajectory, extra="")
            answer = await self.model.ask(self.name, self.version, system, user, _validate)
            answers.append(answer)
            if not answer.ok:
                return error_score(self.name, self.version, episode, self.model, answers,
                                   f"checkpoint {cp.id}: {answer.error}")
            data = answer.data or {}
            results.append(CheckpointResult(id=cp.id, passed=data["achieved"], failure=None if data["achieved"]
                                            else result.failure, detail=f"judge: {data['reason']}"))
        upgraded = sum(r.passed for r in results)
        passed = upgraded == len(results)
        values, detail = judge_usage_detail(self.model, answers)
        met = sum(r.passed for r in tier1.checkpoints) + upgraded
        return Score(
            episode_id=episode.id, scorer=SCORER_PREFIX + self.name, scorer_version=self.version, passed=passed,
            value=met / max(1, len(tier1.checkpoints)),
            values={**values, "checkpoints_judged": float(len(results)), "checkpoints_upgraded": float(upgraded),
                    "overturned": float(passed)},
            checkpoints=results, failure_codes=[] if passed else sorted({r.failure for r in results if r.failure}),
            detail={**detail, "tier1_passed": False, "judgments": [a.data for a in answers]},
        )


@register(NAME)
def tier2_judge(model: JudgeModel) -> Tier2Judge:
    """The Tier-2 effect-equivalence judge on ``model``."""
    return Tier2Judge(model)
