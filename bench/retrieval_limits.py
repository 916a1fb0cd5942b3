"""What stands between the copilot's best offline retriever and recall@5 0.8 (issue 26), measured.

It ranks the whole pool for each task's prompt with one retriever (``hybrid:gemma`` unless told), the
way ``mcptrials bench retrieval`` does, and then measures four ways of recovering the needed tools
that ranking misses:

- clauses: the prompt cut into clauses (sentences, ``;``, `` - ``, ``then``), each ranked on its
  own: how many missed tools any clause ranks in its own top 3, and recall@5 when each clause's
  first tools are merged round-robin after the whole prompt's;
- lookups: the lookup tools (``get``/``read``/``list``/``search``/``fetch``/``open``/``find``) of
  the two best-ranked servers lifted by 0.2 (a task on a server usually needs to find or read
  something there);
- co-usage, learned from the *other* tasks' reference plans (leave-one-out): a tool often used
  with one of the three best-ranked tools lifted in proportion;
- examples, learned from the other tasks (leave-one-out, and 5 folds): the reference tools of the
  five most similar other prompts vote, weighted by similarity.

The last two learn from the very world they are measured on (never from the task itself): they bound
what such knowledge could add, they are not retrievers the project offers.

    python bench/retrieval_limits.py [--retriever hybrid:gemma] [--servers F --tasks F]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import anyio
import numpy as np

from mcptrials.agents.retrieval import ToolRetriever, load_retriever
from mcptrials.cli import load_world
from mcptrials.model import ToolInfo
from mcptrials.models.gemma import GemmaEmbedder
from mcptrials.run.options import catalogue

CLAUSES = re.compile(r"(?<=[.?!])\s+|;\s*|\s+-\s+|,?\s+(?:and\s+)?then\s+")
LOOKUP = re.compile(r"^(get|read|list|search|fetch|open|find|lookup|query|describe|show|view)(_|$)")
Ranking = list[tuple[str, float]]


def clauses(prompt: str) -> list[str]:
    """The prompt's clauses of two words or more (a prompt of one clause gives none)."""
    parts = [c.strip(" ,.") for c in CLAUSES.split(prompt)]
    parts = [c for c in parts if len(c.split()) >= 2]
    return parts if len(parts) > 1 else []


async def rank(retriever: ToolRetriever, query: str, pool: list[ToolInfo]) -> Ranking:
    hits, _ = await retriever.route(query, pool, len(pool))
    return [(h.tool.qualified_name, h.score) for h in hits]


def recall(rankings: list[list[str]], needs: list[set[str]], k: int) -> tuple[float, float]:
    """Mean recall@k and the share of tasks with every needed tool in the top k."""
    found = [len(need & set(r[:k])) / len(need) for r, need in zip(rankings, needs, strict=True)]
    return (round(sum(found) / len(found), 3), round(sum(f == 1 for f in found) / len(found), 3))


def lifted(ranking: Ranking, boost: dict[str, float]) -> list[str]:
    """The ranking re-sorted after adding ``boost`` (in units of the best score) to some tools' scores."""
    top = ranking[0][1] if ranking else 1.0
    scores = {name: score + top * boost.get(name, 0.0) for name, score in ranking}
    return sorted(scores, key=lambda name: (-scores[name], name))


def round_robin(lists: list[list[str]]) -> list[str]:
    merged: list[str] = []
    for position in range(max(map(len, lists), default=0)):
        for ranked in lists:
            if position < len(ranked) and ranked[position] not in merged:
                merged.append(ranked[position])
    return merged


def cousage_boost(needs: list[set[str]], held_out: int, ranking: Ranking) -> dict[str, float]:
    """Tools used with one of the three best-ranked tools in the other tasks' plans, by how often."""
    alone: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    for i, need in enumerate(needs):
        if i != held_out:
            alone.update(need)
            pairs.update((a, b) for a in need for b in need if a != b)
    boost: dict[str, float] = {}
    top = ranking[0][1]
    for name, score in ranking[:3]:
        if alone[name] >= 2:
            for (a, b), count in pairs.items():
                if a == name:
                    boost[b] = boost.get(b, 0.0) + 0.5 * (score / top) * count / alone[name]
    return boost


def example_boost(sims: np.ndarray, needs: list[set[str]], train: list[int]) -> dict[str, float]:
    """The reference tools of the five training prompts most like this one, weighted by similarity."""
    nearest = sorted(train, key=lambda j: -sims[j])[:5]
    total = sum(float(sims[j]) for j in nearest) or 1.0
    boost: dict[str, float] = {}
    for j in nearest:
        for name in needs[j]:
            boost[name] = boost.get(name, 0.0) + 0.6 * float(sims[j]) / total
    return boost


async def measure(spec: str, servers: Path | None, tasks_file: Path | None) -> dict[str, object]:
    specs, tasks = load_world(servers, [tasks_file] if tasks_file else None)
    pool = await catalogue(specs)
    names = {t.qualified_name for t in pool}
    kept = [(t, {s.tool for s in t.reference} & names) for t in tasks]
    kept = [(t, need) for t, need in kept if need]
    tasks, needs = [t for t, _ in kept], [need for _, need in kept]
    retriever = load_retriever(spec)
    await retriever.index(pool)
    whole = [await rank(retriever, t.prompt, pool) for t in tasks]
    by_clause = [[await rank(retriever, c, pool) for c in clauses(t.prompt)] for t in tasks]
    plain = [[name for name, _ in r] for r in whole]
    out: dict[str, object] = {"retriever": spec, "tasks": len(tasks), "pool_tools": len(pool)}
    for k in (5, 10, 20):
        out[f"recall@{k}, all@{k}"] = recall(plain, needs, k)
    missed = [(need - set(r[:5]), cl) for r, need, cl in zip(plain, needs, by_clause, strict=True)]
    out["needed tools missed at 5"] = sum(len(m) for m, _ in missed)
    out["... of them in some clause's own top 3"] = sum(
        any(name in [n for n, _ in c[:3]] for c in cl) for m, cl in missed for name in m)
    out["clauses: whole prompt, then each clause, round-robin"] = recall(
        [round_robin([p, *([n for n, _ in c] for c in cl)]) for p, cl in zip(plain, by_clause, strict=True)],
        needs, 5)
    server_of = {t.qualified_name: t.server for t in pool}
    lookups = {t.qualified_name for t in pool if LOOKUP.match(t.name)}

    def lookup_boost(ranking: Ranking) -> dict[str, float]:
        first: list[str] = []
        for name, _ in ranking:
            if server_of[name] not in first:
                first.append(server_of[name])
        return {name: 0.2 for name in lookups if server_of[name] in first[:2]}

    out["lookups of the two best servers lifted"] = recall([lifted(r, lookup_boost(r)) for r in whole], needs, 5)
    out["co-usage from the other tasks' plans"] = recall(
        [lifted(r, cousage_boost(needs, i, r)) for i, r in enumerate(whole)], needs, 5)
    vectors = GemmaEmbedder().embed_query([t.prompt for t in tasks])  # which requests are alike, by the stronger model
    similar = vectors @ vectors.T
    folds = np.random.default_rng(0).integers(0, 5, len(tasks))
    splits: dict[str, Callable[[int], list[int]]] = {
        "leave-one-out": lambda i: [j for j in range(len(tasks)) if j != i],
        "5 folds": lambda i: [j for j in range(len(tasks)) if folds[j] != folds[i]]}
    for label, train in splits.items():
        out[f"examples from the other tasks ({label})"] = recall(
            [lifted(r, example_boost(similar[i], needs, train(i))) for i, r in enumerate(whole)], needs, 5)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--retriever", default="hybrid:gemma")
    parser.add_argument("--servers", type=Path)
    parser.add_argument("--tasks", type=Path)
    args = parser.parse_args()
    result = anyio.run(measure, args.retriever, args.servers, args.tasks)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
