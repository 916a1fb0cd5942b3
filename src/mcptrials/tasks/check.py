"""Solvability check: every task's reference plan must pass its own spec."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import anyio

from mcptrials.agents.reference import ReferenceAgent
from mcptrials.model import ServerSpec, Task
from mcptrials.run.runner import RunPlan, run_episode
from mcptrials.scoring.effects import score_effects


@dataclass
class CheckResult:
    """Whether one task's reference plan passed, and why not."""

    task_id: str
    passed: bool
    reason: str = ""


async def check_references(servers: Mapping[str, ServerSpec], tasks: list[Task],
                           concurrency: int = 4) -> list[CheckResult]:
    """Run each reference plan in a fresh sandbox and score it with Tier-1 effects."""
    plan = RunPlan(servers=dict(servers), tasks=tasks, agent=ReferenceAgent(), model=None)
    results: dict[str, CheckResult] = {}
    limiter = anyio.Semaphore(concurrency)

    async def one(task: Task) -> None:
        async with limiter:
            if not task.reference:
                results[task.id] = CheckResult(task.id, False, "the task has no reference plan")
                return
            episode, _ = await run_episode(plan, task, 0, "check", "check")
            if episode.infra_error is not None:
                results[task.id] = CheckResult(task.id, False, f"infra error: {episode.infra_error.message}")
                return
            errors = [f"step {c.index} {c.name}: {c.content[:160]}" for c in episode.tool_calls if c.is_error]
            score = score_effects(task, episode)
            reason = "; ".join([*(f"{r.id}: {r.detail}" for r in score.checkpoints if not r.passed),
                                *score.detail.get("minefield_hits", []), *score.detail.get("order_violations", []),
                                *errors[:2]])
            results[task.id] = CheckResult(task.id, bool(score.passed) and not errors, reason)

    async with anyio.create_task_group() as tg:
        for task in tasks:
            tg.start_soon(one, task)
    return [results[t.id] for t in tasks]
