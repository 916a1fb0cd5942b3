"""Rubric judge (MCP-Bench §5.2): six dimensions on 1-10, asked N times in shuffled orders.

Three axes with two dimensions each: task completion (task fulfilment, information grounding),
tool usage (tool appropriateness, parameter accuracy) and planning effectiveness (dependency
awareness, parallelism and efficiency). Every repeat shows the axes, the dimensions within
each axis and the offered tools in another order (a seeded RNG per episode, so a re-run asks
the very same prompts and hits the cache); no two repeats share an ordering while distinct
orderings remain. Per repeat, an axis scores the mean of its dimensions scaled to [0, 1];
the episode's value is the mean over repeats of the mean axis score. Each dimension's mean
and sample spread over repeats are kept, ``task_fulfillment`` on the paper's 1-10 scale (the
MCPEvol-Bench TF that ECS is computed on).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcptrials.judges.base import (
    SCORER_PREFIX,
    Answer,
    JudgeModel,
    MalformedReply,
    as_score,
    error_score,
    judge_usage_detail,
    prompt_text,
    register,
    render,
)
from mcptrials.judges.render import final_answer_text, tool_names, tools_text, trajectory_text
from mcptrials.model import Episode, Score, Task, ToolInfo, stable_hash

NAME = "rubric"
VERSION = "1"


@dataclass(frozen=True)
class Axis:
    key: str
    text: str
    dimensions: tuple[tuple[str, str], ...]


def rubric_axes() -> list[Axis]:
    """The rubric's axes and dimensions, read from ``prompts/rubric_sections.txt``."""
    axes: list[Axis] = []
    current: tuple[str, str] | None = None
    dims: list[tuple[str, str]] = []
    for line in prompt_text("rubric_sections.txt").splitlines():
        if line.startswith("[axis "):
            if current:
                axes.append(Axis(current[0], current[1], tuple(dims)))
            key, _, text = line[len("[axis "):].partition("] ")
            current, dims = (key, text), []
        elif line.startswith("[dim "):
            key, _, text = line[len("[dim "):].partition("] ")
            dims.append((key, text))
    if current:
        axes.append(Axis(current[0], current[1], tuple(dims)))
    return axes


DIMENSIONS = tuple(d for axis in rubric_axes() for d, _ in axis.dimensions)


@dataclass(frozen=True)
class Ordering:
    """One repeat's order of axes, dimensions within each axis, and tools."""

    axes: tuple[Axis, ...]
    tools: tuple[str, ...]

    @property
    def key(self) -> tuple[Any, ...]:
        return (tuple((a.key, tuple(d for d, _ in a.dimensions)) for a in self.axes), self.tools)

    def rubric_text(self) -> str:
        blocks = []
        for axis in self.axes:
            blocks.append(f"### {axis.text}\n" + "\n".join(f"- {key}: {text}" for key, text in axis.dimensions))
        return "\n\n".join(blocks)

    def keys(self) -> list[str]:
        return [d for axis in self.axes for d, _ in axis.dimensions]


def orderings(episode_id: str, tools: list[str], repeats: int, seed: int = 0) -> list[Ordering]:
    """``repeats`` shuffled orderings from an RNG seeded by the episode; distinct while possible."""
    rng = random.Random(stable_hash([NAME, episode_id, seed]))
    base = rubric_axes()
    out: list[Ordering] = []
    seen: set[tuple[Any, ...]] = set()
    for _ in range(repeats):
        for _attempt in range(50):
            axes = [Axis(a.key, a.text, tuple(rng.sample(a.dimensions, len(a.dimensions)))) for a in base]
            rng.shuffle(axes)
            candidate = Ordering(tuple(axes), tuple(rng.sample(tools, len(tools))))
            if candidate.key not in seen:
                break
        seen.add(candidate.key)
        out.append(candidate)
    return out


def _validate(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in DIMENSIONS:
        entry = data.get(key)
        if isinstance(entry, dict):
            score, reason = entry.get("score"), entry.get("reason", "")
        elif isinstance(entry, int | float | str):
            score, reason = entry, ""
        else:
            raise MalformedReply(f"the dimension {key!r} is missing")
        out[key] = {"score": as_score(score, key), "reason": str(reason)[:500]}
    return out


def _spread(values: list[float]) -> float:
    return statistics.stdev(values) if len(values) > 1 else 0.0


class RubricJudge:
    """Scores six rubric dimensions, ``repeats`` times in shuffled orders, and averages."""

    name = NAME

    def __init__(self, model: JudgeModel, repeats: int = 5, seed: int = 0) -> None:
        self.model = model
        self.repeats = repeats
        self.seed = seed
        self.version = f"{VERSION}-r{repeats}"

    def prompts(self, task: Task, episode: Episode,
                tools: Mapping[str, ToolInfo] | None = None) -> list[tuple[Ordering, str, str]]:
        """(ordering, system, user) for every repeat."""
        hidden = ""
        if task.concrete_prompt:
            hidden += f"\n## The concrete task behind the request (not shown to the agent)\n{task.concrete_prompt}\n"
        if task.dependency_analysis:
            hidden += f"\n## How the steps depend on each other (not shown to the agent)\n{task.dependency_analysis}\n"
        trajectory = trajectory_text(episode)
        out = []
        for order in orderings(episode.id, tool_names(episode, tools), self.repeats, self.seed):
            system = render("rubric_system.txt", rubric=order.rubric_text(), keys=", ".join(order.keys()))
            user = render("rubric_user.txt", prompt=task.prompt, hidden=hidden,
                          tools=tools_text(order.tools, tools), turns=len(episode.model_turns),
                          trajectory=trajectory, answer=final_answer_text(episode))
            out.append((order, system, user))
        return out

    async def judge(self, task: Task, episode: Episode, tier1: Score,
                    tools: Mapping[str, ToolInfo] | None = None) -> Score | None:
        if episode.infra_error is not None:
            return None
        answers: list[Answer] = []
        for _order, system, user in self.prompts(task, episode, tools):
            answers.append(await self.model.ask(self.name, self.version, system, user, _validate))
        good = [a.data for a in answers if a.ok and a.data]
        if not good:
            return error_score(self.name, self.version, episode, self.model, answers,
                               "; ".join(sorted({a.error or "" for a in answers})))
        axes = rubric_axes()
        per_dim = {d: [g[d]["score"] for g in good] for d in DIMENSIONS}
        axis_runs = {a.key: [statistics.fmean(g[d]["score"] for d, _ in a.dimensions) / 10 for g in good]
                     for a in axes}
        overall_runs = [statistics.fmean(axis_runs[a.key][i] for a in axes) for i in range(len(good))]
        values, detail = judge_usage_detail(self.model, answers)
        for d, scores in per_dim.items():
            values[d] = statistics.fmean(scores)
            values[f"{d}_spread"] = _spread(scores)
        for key, runs in axis_runs.items():
            values[key] = statistics.fmean(runs)
        values["overall_spread"] = _spread(overall_runs)
        values["repeats"] = float(len(good))
        errors = [a.error for a in answers if not a.ok]
        return Score(episode_id=episode.id, scorer=SCORER_PREFIX + self.name, scorer_version=self.version,
                     passed=None, value=statistics.fmean(overall_runs), values=values,
                     detail={**detail, "runs": good, "failed_repeats": errors})


@register(NAME)
def rubric_judge(model: JudgeModel, repeats: int = 5, seed: int = 0) -> RubricJudge:
    """The rubric judge on ``model``, asked ``repeats`` times in shuffled orders."""
    return RubricJudge(model, repeats=repeats, seed=seed)
