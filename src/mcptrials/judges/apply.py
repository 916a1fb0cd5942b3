"""Run judges after Tier-1: on one fresh episode (``run --judge``) or on stored ones (``score --judge``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import anyio

from mcptrials.judges.base import JUDGE_ERROR, Judge, JudgeModel, build_judges
from mcptrials.model import Episode, Score, Task, ToolInfo


async def judge_episode(judges: Sequence[Judge], task: Task, episode: Episode, tier1: Score,
                        tools: Mapping[str, ToolInfo] | None = None) -> list[Score]:
    """Every judge's score on one episode (judges that do not apply give none)."""
    out = []
    for judge in judges:
        score = await judge.judge(task, episode, tier1, tools)
        if score is not None:
            out.append(score)
    return out


@dataclass
class JudgeRunResult:
    """What one judging pass did."""

    episodes: int = 0
    scores: int = 0
    judge_errors: int = 0
    requests: int = 0
    cost_usd: float = 0.0
    missing_tasks: list[str] = field(default_factory=list)


def judges_from_spec(spec: str, store: object | None, names: str | None = None, rubric_repeats: int = 5,
                     base_url: str | None = None, prices: str | None = None) -> tuple[JudgeModel, list[Judge]]:
    """A judge model from a model spec (cached in ``store``) and the named judges on it."""
    from mcptrials.models.base import SamplingSettings
    from mcptrials.models.pricing import load_prices
    from mcptrials.models.registry import load_model

    chat = load_model(spec, base_url=base_url, sampling=SamplingSettings(temperature=0.0, max_tokens=1500),
                      prices=load_prices(prices))
    model = JudgeModel(chat=chat, cache=store)  # type: ignore[arg-type]
    return model, build_judges(model, names, rubric_repeats)


async def judge_stored(store: object, judges: Sequence[Judge], model: JudgeModel,
                       tasks: Mapping[tuple[str, str], Task] | None = None, concurrency: int = 4) -> JudgeRunResult:
    """Judge every stored, scored episode and store the judged scores beside its Tier-1 score."""
    from mcptrials.scoring.rescore import offered_tools
    from mcptrials.store.db import Store, is_judged, outcome_of, task_for

    assert isinstance(store, Store)
    known = store.tasks()
    known.update(tasks or {})
    catalog = store.tool_catalog()
    all_scores = store.scores()
    result = JudgeRunResult()
    limiter = anyio.Semaphore(max(1, concurrency))
    before = model.requests
    missing: set[str] = set()

    async def one(episode: Episode, task: Task, tier1: Score) -> None:
        async with limiter:
            found = await judge_episode(judges, task, episode, tier1, offered_tools(episode, catalog))
        store.put_scores(found)
        if is_judged(tier1):  # a judge-only task: its outcome is its judges' verdict
            store.write_score_rows([], {episode.id: outcome_of(episode, tier1, found)})
        result.episodes += 1
        result.scores += len(found)
        result.judge_errors += sum(JUDGE_ERROR in s.failure_codes for s in found)
        result.cost_usd += sum(s.values.get("judge_cost_usd", 0.0) for s in found
                               if not s.detail.get("cached"))

    async with anyio.create_task_group() as tg:
        for episode in store.episodes():
            tier1 = all_scores.get(episode.id, {}).get("effects")
            task = task_for(known, episode.task_id, episode.version)
            if task is None:
                missing.add(episode.task_id)
                continue
            if tier1 is None or episode.infra_error is not None:
                continue
            tg.start_soon(one, episode, task, tier1)
    result.requests = model.requests - before
    result.missing_tasks = sorted(missing)
    return result
