"""Rebuild the shipped reviewed episodes: play chosen trajectories on the bundled world and store them whole.

    python -m mcptrials.judges.labels.build_reviewed_set

Trajectories are alternatives of the bundled corpus (named ``task/id``), a few reference runs,
and scenarios written here for failure classes the corpus does not cover (an unknown tool, a
schema violation with and without recovery, a loop, running out of turns, no tool use, the
wrong order, no final answer, redundant calls, an incomplete answer). Each is played through
the real ReAct loop with a scripted model on the real bundled servers, so the episodes are
exactly what a run stores. Labels (``reviewed_labels.jsonl``) are written separately, by
reading each stored trajectory against its prompt; episode ids are stable, so rebuilding
keeps them matched.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).parent

ALTERNATIVES = [
    "fin-001/lowercase-symbol-limit-one", "fin-001/swapped-eps", "fin-001/oldest-quarter",
    "fin-002/search-then-cashflow", "fin-002/ocf-as-fcf",
    "fin-003/rate-then-amount", "fin-003/reversed-direction",
    "fin-004/info-then-convert", "fin-004/yen-as-dollars", "fin-004/converts-previous-close",
    "fin-005/swapped-symbols-default-period", "fin-005/strong-claim",
    "fin-006/one-by-one", "fin-006/swapped-headcounts",
    "fin-007/search-alphabet-evaluate", "fin-007/apple-beat-claim",
    "fin-008/unit-rate-first", "fin-008/reversed-direction",
    "fin-009/swapped-symbols", "fin-009/default-six-months",
    "fin-010/download-closes", "fin-010/day-before",
    "fin-011/search-download", "fin-011/claims-rise",
    "fin-012/weekly-bars", "fin-012/one-year-low",
    "fin-013/profile-and-month", "fin-013/wrong-price",
    "fin-014/quote-and-earnings", "fin-014/market-cap-off-by-ten",
    "fin-015/rate-check-first", "fin-015/nok-instead",
    "fin-016/default-period-billions", "fin-016/revenue-as-net-income",
    "math-001/summarize", "math-001/population-stdev",
    "math-002/both-methods", "math-002/pearson-reported",
    "math-003/percentile-50-explicit-method", "math-003/mean-as-median",
    "math-004/percentile-fifty", "math-004/typical-is-mean",
    "sci-001/get-tensor-check", "sci-001/cleans-up-k", "sci-001/wrong-determinant",
    "sci-002/inverse-times-b", "sci-002/swapped-x-y",
    "sci-003/eigen-first-named-product", "sci-003/cleans-up-inputs",
    "unit-001/names-and-convert-many", "unit-001/nautical-miles",
    "unit-003/convert-first-bullets", "unit-003/us-gallons",
    "unit-004/search-and-guide", "unit-004/swapped-tomato-feta",
    "x-004/graph-first-read-graph", "x-004/default-period-stored",
    "x-009/history-and-percent-change", "x-009/endpoint-slope",
    "x-020/edit-file-insert", "x-020/overwrites-notes", "x-020/typo-matrix",
    "x-024/read-graph-search-ticker", "x-024/due-thursday",
]

_GOOGL = [193.44, 199.76, 209.66, 212.89, 213.08, 215.14, 208.73, 203.46, 195.35, 188.46, 184.66, 179.47, 177.73]

SCENARIOS: list[dict[str, Any]] = [
    {"task": "fin-001", "id": "unknown-tool-then-guess",
     "turns": [[{"tool": "finance__get_eps", "args": {"symbol": "MSFT"}}]],
     "answer": "Yes, Microsoft beat expectations: actual EPS was $4.36 against an expected $4.15."},
    {"task": "fin-003", "id": "schema-violation-gives-up",
     "turns": [[{"tool": "finance__convert", "args": {"amount": 2500, "from": "EUR", "to": "CHF"}}]],
     "answer": "Sorry, I could not get a conversion rate right now."},
    {"task": "fin-003", "id": "schema-violation-recovers",
     "turns": [[{"tool": "finance__convert", "args": {"amount": 2500, "from": "EUR", "to": "CHF"}}],
               [{"tool": "finance__convert", "args": {"amount": 2500, "from_currency": "EUR",
                                                       "to_currency": "CHF"}}]],
     "answer": "2,500 euros get you about CHF 2,330.85 at today's rate of 0.932342."},
    {"task": "unit-001", "id": "stuck-repeating",
     "turns": [[{"tool": "units__convert", "args": {"value": 26.2, "from_unit": "mi", "to_unit": "km",
                                                     "category": "length"}}]] * 3,
     "answer": "A marathon is 42.16 km."},
    {"task": "fin-010", "id": "out-of-turns", "max_turns": 3,
     "turns": [[{"tool": "finance__get_quote", "args": {"symbol": "AAPL"}}],
               [{"tool": "finance__get_price_history", "args": {"symbol": "AAPL", "period": "5d"}}],
               [{"tool": "finance__get_company_profile", "args": {"symbol": "AAPL"}}]],
     "answer": ""},
    {"task": "math-001", "id": "mental-arithmetic", "turns": [],
     "answer": "The sample standard deviation of those seven response times is about 41.07 ms (mean 223 ms)."},
    {"task": "fin-004", "id": "converts-before-quote",
     "turns": [[{"tool": "finance__convert", "args": {"amount": 2953.71, "from_currency": "JPY",
                                                       "to_currency": "USD"}}],
               [{"tool": "finance__get_quote", "args": {"symbol": "7203.T"}}]],
     "answer": "Toyota (7203.T) last traded at ¥2,953.71, about US$19.14."},
    {"task": "x-009", "id": "no-final-answer",
     "turns": [[{"tool": "finance__get_price_history", "args": {"symbol": "GOOGL", "period": "3mo",
                                                                 "interval": "1wk"}}],
               [{"tool": "mathstats__linear_regression", "args": {"x": list(range(1, 14)), "y": _GOOGL}}]],
     "answer": ""},
    {"task": "fin-013", "id": "redundant-quotes",
     "turns": [[{"tool": "finance__get_quote", "args": {"symbol": "NVDA"}}],
               [{"tool": "finance__get_company_profile", "args": {"symbol": "NVDA"}}],
               [{"tool": "finance__get_quote", "args": {"symbol": "NVDA"}}]],
     "answer": "Nvidia (NVDA) last closed at $148.05, essentially flat on the day (-0.07%), below its 52-week "
               "high of $157.61, with a market cap of about $3.61 trillion."},
    {"task": "fin-001", "id": "answer-missing-estimate",
     "turns": [[{"tool": "finance__get_earnings", "args": {"symbol": "MSFT"}}]],
     "answer": "Microsoft reported EPS of $4.36 last quarter."},
    {"task": "fin-001", "id": "reference", "turns": "reference"},
    {"task": "x-024", "id": "reference", "turns": "reference"},
    {"task": "sci-003", "id": "reference", "turns": "reference"},
]


async def build() -> None:
    from mcptrials.agents.react import ReactAgent
    from mcptrials.bundled.world import bundled_servers, bundled_tasks
    from mcptrials.model import Episode, PlannedCall, ToolInfo
    from mcptrials.models.scripted import Script, ScriptedModel
    from mcptrials.run.runner import RunPlan, run_episode
    from mcptrials.tasks.alternatives import bundled_alternatives

    tasks = {t.id: t for t in bundled_tasks()}
    corpus = {a.key: a for a in bundled_alternatives()}
    servers = bundled_servers()
    plays: list[tuple[str, str, list[list[PlannedCall]], str, int | None]] = []
    for key in ALTERNATIVES:
        alt = corpus[key]
        plays.append((key, alt.task, alt.calls(tasks[alt.task]), alt.answer, None))
    for sc in SCENARIOS:
        task = tasks[sc["task"]]
        if sc["turns"] == "reference":
            turns = [[step] for step in task.reference]
            answer = task.reference_answer or ""
        else:
            turns = [[PlannedCall(tool=c["tool"], args=c["args"]) for c in turn] for turn in sc["turns"]]
            answer = sc["answer"]
        plays.append((f"{sc['task']}/{sc['id']}", sc["task"], turns, answer, sc.get("max_turns")))
    episodes: list[Episode] = []
    catalog: dict[str, Any] = {}
    limiter = anyio.Semaphore(3)

    async def one(key: str, task_id: str, turns: list[list[PlannedCall]], answer: str, max_turns: int | None) -> None:
        task = tasks[task_id]
        script = Script.model_validate({"default": [
            *({"tool_calls": [{"name": c.tool, "arguments": c.args} for c in turn]} for turn in turns),
            {"text": answer}]})
        model = ScriptedModel(source=f"reviewed:{key}", script=script)
        plan = RunPlan(servers=dict(servers), tasks=[task], model=model,
                       agent=ReactAgent(max_turns=max_turns or len(turns) + 2))
        async with limiter:
            episode, offered = await run_episode(plan, task, 0, "reviewed-set", "reviewed")
        if episode.infra_error is not None:
            raise RuntimeError(f"{key}: infra error {episode.infra_error}")
        episodes.append(episode.model_copy(update={"started_at": None, "duration_s": 0.0}))
        catalog.update({f"{t.schema_hash}:{t.server}": t.model_dump(mode="json") for t in offered.values()})

    async with anyio.create_task_group() as tg:
        for item in plays:
            tg.start_soon(one, *item)
    order = {f"scripted:reviewed:{key}": i for i, (key, *_rest) in enumerate(plays)}
    episodes.sort(key=lambda e: order[e.model])
    (HERE / "reviewed_episodes.jsonl").write_text(
        "".join(e.model_dump_json(exclude_none=True) + "\n" for e in episodes), encoding="utf-8")
    (HERE / "reviewed_tools.json").write_text(json.dumps(dict(sorted(catalog.items())), indent=0, sort_keys=True),
                                              encoding="utf-8")
    used = sorted({e.task_id for e in episodes})
    (HERE / "reviewed_tasks.jsonl").write_text(
        "".join(tasks[t].model_dump_json(exclude_none=True) + "\n" for t in used), encoding="utf-8")
    _ = ToolInfo  # the catalog holds ToolInfo dumps keyed like the store's
    print(f"{len(episodes)} episodes of {len(used)} tasks -> {HERE}")


if __name__ == "__main__":
    anyio.run(build)
