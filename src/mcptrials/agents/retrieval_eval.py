"""How well the copilot's retriever finds the tools each task's reference plan uses (recall@k, MRR, time).

The query is the task's prompt, the pool every tool of every configured server (``--pool all``),
and the relevant tools the distinct tools of the task's reference plan.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcptrials.agents.retrieval import ToolRetriever
from mcptrials.model import Task, ToolInfo


@dataclass
class RetrievalScores:
    """Mean recall@k, the share of tasks with every needed tool in the top k, MRR over the tasks, and the
    seconds spent indexing the pool and ranking it for one query (mean)."""

    retriever: str
    pool: int
    tasks: int
    skipped: list[str]
    recall: dict[int, float] = field(default_factory=dict)
    complete: dict[int, float] = field(default_factory=dict)
    mrr: float = 0.0
    index_seconds: float = 0.0
    query_seconds: float = 0.0
    settings: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"retriever": self.retriever, "pool_tools": self.pool, "tasks": self.tasks,
                "skipped_tasks": self.skipped, "recall_at_k": {str(k): v for k, v in self.recall.items()},
                "all_needed_at_k": {str(k): v for k, v in self.complete.items()}, "mrr": self.mrr,
                "index_seconds": self.index_seconds, "query_seconds": self.query_seconds, "settings": self.settings}


def parse_ks(text: str) -> list[int]:
    """``1,3,5,10`` as sorted distinct positive integers; ValueError otherwise."""
    try:
        ks = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise ValueError(f"--k takes comma-separated whole numbers, e.g. 1,3,5,10 (got {text!r})") from None
    if not ks or ks[0] < 1:
        raise ValueError(f"--k values must be at least 1 (got {text!r})")
    return ks


async def evaluate(retriever: ToolRetriever, tasks: Sequence[Task], pool: Sequence[ToolInfo], ks: Sequence[int],
                   on_task: Callable[[], None] | None = None) -> RetrievalScores:
    """Index the pool (timed), then rank all of it for each task's prompt and score the ranks of its
    reference tools."""
    available = {t.qualified_name for t in pool}
    scores = RetrievalScores(retriever=retriever.spec, pool=len(pool), tasks=0, skipped=[],
                             settings=retriever.settings())
    started = time.perf_counter()
    await retriever.index(pool)
    scores.index_seconds = time.perf_counter() - started
    querying = 0.0
    recall_sum = dict.fromkeys(ks, 0.0)
    complete_sum = dict.fromkeys(ks, 0.0)
    reciprocal = 0.0
    for task in tasks:
        needed = {step.tool for step in task.reference} & available
        if not needed:
            scores.skipped.append(task.id)
        else:
            started = time.perf_counter()
            hits, _ = await retriever.route(task.prompt, pool, len(pool))
            querying += time.perf_counter() - started
            ranked = [h.tool.qualified_name for h in hits]
            for k in ks:
                found = len(needed & set(ranked[:k]))
                recall_sum[k] += found / len(needed)
                complete_sum[k] += found == len(needed)
            first = next((i for i, name in enumerate(ranked) if name in needed), None)
            reciprocal += 1 / (first + 1) if first is not None else 0.0
            scores.tasks += 1
        if on_task:
            on_task()
    if scores.tasks:
        scores.recall = {k: recall_sum[k] / scores.tasks for k in ks}
        scores.complete = {k: complete_sum[k] / scores.tasks for k in ks}
        scores.mrr = reciprocal / scores.tasks
        scores.query_seconds = querying / scores.tasks
    return scores
