"""How well distilled specs judge trajectories nobody wrote for them: the bundled alternatives corpus.

Each bundled task's reference plan and reference answer are played as if an explorer had made
them (a scripted model through ``pursue``, real servers); the trace is distilled; then the
task's hand-written alternatives (correct ones must pass, wrong ones fail) are played against
the distilled spec. Prints the agreement per task and per class, and every miss with --misses.

    python bench/distill_agreement.py [--tasks fin-001,cal-006] [--concurrency 2] [--misses] [--json FILE]
                                      [--validate]

With ``--validate`` each distilled task also goes through ``generate.validate`` (reference replay,
discrimination, lint, generated alternatives): the yield of the last stage on these traces.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter, defaultdict

from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.generate.distill import distill
from mcptrials.generate.draft import Rejected, TaskDraft
from mcptrials.generate.trace import pursue
from mcptrials.model import Task
from mcptrials.models.scripted import Script, ScriptedModel
from mcptrials.tasks.alternatives import bundled_alternatives, play


def draft_of(task: Task) -> TaskDraft:
    return TaskDraft(id=task.id, goal=task.concrete_prompt or task.prompt, servers=list(task.servers),
                     category=task.category, method="explore", prompt=task.prompt, now=task.now,
                     fixtures=task.fixtures)


def explorer_of(task: Task) -> ScriptedModel:
    turns = [{"tool_calls": [{"name": s.tool, "arguments": s.args}]} for s in task.reference]
    return ScriptedModel(source=f"reference-as-explorer:{task.id}",
                         script=Script.model_validate({"default": [*turns, {"text": task.reference_answer or ""}]}))


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", default="")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--misses", action="store_true")
    ap.add_argument("--json", default="")
    ap.add_argument("--validate", action="store_true")
    args = ap.parse_args()
    servers = bundled_servers()
    tasks = [t for t in bundled_tasks() if not args.tasks or t.id in args.tasks.split(",")]
    alts = bundled_alternatives()
    t0 = time.perf_counter()
    limiter = asyncio.Semaphore(args.concurrency)
    distilled: dict[str, Task] = {}
    rejected: dict[str, str] = {}

    async def one(task: Task) -> None:
        async with limiter:
            try:
                trace = await pursue(servers, draft_of(task), explorer_of(task))
                distilled[task.id] = distill(draft_of(task), trace)
            except Rejected as exc:
                rejected[task.id] = f"{exc.stage}: {exc.reason}"

    await asyncio.gather(*(one(t) for t in tasks))
    mine = [a for a in alts if a.task in distilled]
    results = await play(servers, list(distilled.values()), mine, concurrency=args.concurrency)
    by_task: dict[str, list] = defaultdict(list)
    for r in results:
        by_task[r.task_id].append(r)
    all_right = sorted(t for t, rs in by_task.items() if all(r.right for r in rs))
    per_class: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        for c in r.classes:
            per_class[c]["total"] += 1
            per_class[c]["right"] += r.right
    acc = [r for r in results if r.expect == "accept"]
    rej = [r for r in results if r.expect == "reject"]
    summary = {
        "tasks": len(tasks), "distilled": len(distilled), "rejected": rejected,
        "tasks_all_right": len(all_right),
        "trajectories": len(results), "right": sum(r.right for r in results),
        "accept": {"total": len(acc), "accepted": sum(bool(r.accepted) for r in acc)},
        "reject": {"total": len(rej), "rejected": sum(r.accepted is False for r in rej)},
        "infra": sum(r.accepted is None for r in results),
        "per_class": {k: dict(v) for k, v in sorted(per_class.items())},
        "seconds": round(time.perf_counter() - t0, 1),
    }
    if args.validate:
        from mcptrials.generate.validate import validate

        sem = asyncio.Semaphore(max(1, args.concurrency // 2))
        dropped: dict[str, list[str]] = {}
        made: Counter = Counter()

        async def check(task: Task) -> None:
            async with sem:
                verdict = await validate(task, servers, concurrency=2)
                made.update(c for a in verdict.alternatives for c in a.classes)
                if not verdict.passed:
                    dropped[task.id] = verdict.reasons

        await asyncio.gather(*(check(t) for t in distilled.values()))
        summary["validate"] = {"kept": len(distilled) - len(dropped), "dropped": len(dropped),
                               "generated_classes": dict(sorted(made.items())), "reasons": dropped}
        summary["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(summary, indent=1))
    if args.misses:
        for r in results:
            if not r.right:
                print(f"MISS {r.task_id}/{r.alt_id} expect={r.expect} {r.classes}: {r.detail[:300]}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"summary": summary, "specs": {k: v.model_dump(mode="json") for k, v in distilled.items()},
                       "misses": [r.__dict__ for r in results if not r.right]}, fh, indent=1)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
