"""Solvability, discrimination and determinism checks of a task suite via its reference plans."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

import anyio

from mcptrials.agents.reference import ReferenceAgent
from mcptrials.model import Episode, ServerSpec, Task, ToolInfo
from mcptrials.run.runner import RunPlan, run_episode
from mcptrials.scoring.effects import score_effects
from mcptrials.servers.pool import current_pool, idle_limit, server_pool, without_reuse
from mcptrials.tasks.discrimination import Discrimination, discrimination
from mcptrials.tasks.lint import static_problems, tool_problems


@dataclass
class CheckResult:
    """One task's reference plan: did it pass its own spec, does the spec discriminate, is it repeatable."""

    task_id: str
    passed: bool
    reason: str = ""
    discrimination: Discrimination | None = None
    deterministic: bool | None = None
    difference: str | None = None
    """With repeated runs: what the first run that disagreed differed in (None when all agreed)."""
    lint: list[str] | None = None


def tool_results(episode: Episode) -> list[str]:
    """Every tool result of an episode, serialised exactly, for byte-for-byte comparison."""
    return [json.dumps([c.name, c.content, c.structured_content, c.is_error], sort_keys=True)
            for c in episode.tool_calls]


def _verdict(task: Task, episode: Episode, tools: Mapping[str, ToolInfo]) -> tuple[bool, str]:
    if episode.infra_error is not None:
        return False, f"infra error: {episode.infra_error.message}"
    errors = [f"step {c.index} {c.name}: {c.content[:160]}" for c in episode.tool_calls if c.is_error]
    score = score_effects(task, episode, tools)
    reason = "; ".join([*(f"{r.id}: {r.detail}" for r in score.checkpoints if not r.passed),
                        *score.detail.get("minefield_hits", []), *score.detail.get("order_violations", []),
                        *errors[:2]])
    if task.spec.judge_only:  # its judges decide: the plan must only run cleanly and stay off the minefields
        return not errors and not score.failure_codes, reason
    return bool(score.passed) and not errors, reason


async def check_references(servers: Mapping[str, ServerSpec], tasks: list[Task], concurrency: int = 4,
                           runs: int = 1) -> list[CheckResult]:
    """Run each reference plan ``runs`` times in fresh sandboxes; score, mutate and compare the runs."""
    plan = RunPlan(servers=dict(servers), tasks=tasks, agent=ReferenceAgent(), model=None)
    results: dict[str, CheckResult] = {}
    limiter = anyio.Semaphore(concurrency)

    async def one(task: Task) -> None:
        async with limiter:
            if not task.reference:
                results[task.id] = CheckResult(task.id, False, "the task has no reference plan")
                return
            with without_reuse():  # the first run starts every server fresh; a repeat reuses pooled ones
                runs_of = [await run_episode(plan, task, 0, "check", "check")]
            if runs > 1 and _pools_any(task, plan):  # a process the pool has just started answers like a fresh
                runs_of.append(await run_episode(plan, task, runs, "check", "check"))  # one: a run more, compared too
            runs_of += [await run_episode(plan, task, i, "check", "check") for i in range(1, runs)]
            episodes = [episode for episode, _ in runs_of]
            tools = runs_of[0][1]

            async def rerun(mutated: Task) -> tuple[Episode, Mapping[str, ToolInfo]]:
                return await run_episode(plan, mutated, 0, "check", "check")

            passed, reason = _verdict(task, episodes[0], tools)
            lint = static_problems(task) + (tool_problems(task, tools) if episodes[0].infra_error is None else [])
            if lint:
                passed, reason = False, "; ".join(filter(None, [reason, *(f"lint: {p}" for p in lint)]))
            result = CheckResult(task.id, passed, reason, lint=lint)
            if passed and not task.spec.judge_only:  # (a judge-only spec has no rule to discriminate with)
                result.discrimination = await discrimination(task, episodes[0], rerun, tools)
        if runs > 1:
            first = _observed(task, episodes[0], tools)
            differing = next((e for e in episodes[1:] if _observed(task, e, tools) != first), None)
            result.deterministic = differing is None
            if differing is not None:
                result.difference = _difference(first, _observed(task, differing, tools))
        results[task.id] = result

    async with server_pool(max_idle=idle_limit(len(servers), concurrency)), anyio.create_task_group() as tg:
        for task in tasks:
            tg.start_soon(one, task)
    return [results[t.id] for t in tasks]


def _pools_any(task: Task, plan: RunPlan) -> bool:
    """Whether an episode of ``task`` takes any server from the current pool."""
    pool = current_pool()
    now = task.now.isoformat() if task.now else None
    return pool is not None and any(pool.pooled(plan.servers[name], now, plan.limits, task.fixtures.has_any())
                                    for name in task.servers if name in plan.servers)


_OBSERVED = ("tool results", "final state", "verdict", "infrastructure error")


def _difference(first: tuple[object, ...], other: tuple[object, ...]) -> str:
    """Which of ``_observed``'s parts two runs disagree on, with the first differing tool result."""
    parts = [name for name, a, b in zip(_OBSERVED, first, other, strict=True) if a != b]
    detail = ""
    if first[0] != other[0]:
        pairs = list(zip(first[0], other[0], strict=False))  # type: ignore[call-overload]
        step = next((i for i, (a, b) in enumerate(pairs) if a != b), len(pairs))
        a, b = (first[0][step:step + 1], other[0][step:step + 1])  # type: ignore[index]
        detail = f" (step {step + 1}: {str(a)[:160]} vs {str(b)[:160]})"
    return ", ".join(parts) + detail


def _observed(task: Task, episode: Episode, tools: Mapping[str, ToolInfo]) -> tuple[object, ...]:
    """What two runs of one plan must agree on: tool results byte for byte, final state, verdict."""
    return (tool_results(episode), json.dumps(episode.state, sort_keys=True, default=str),
            _verdict(task, episode, tools), episode.infra_error)
