"""The travel/knowledge/time task suite: valid, well covered, solvable and discriminating.

Each reference plan is replayed through the in-memory MCP client (frozen clock, fresh sandbox
with the task's fixtures) and graded by the real Tier-1 scorer. Then every single step is dropped,
and every argument a checkpoint looks at is changed, and the task must fail each time.
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import json
import os
from collections import Counter
from contextlib import AsyncExitStack
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcptrials.bundled.world import TASKS_DIR
from mcptrials.model import Episode, Task, ToolCallRecord, ToolEffectCheckpoint, ValueCheckpoint, split_qualified
from mcptrials.scoring.effects import score_effects
from mcptrials.servers.sandbox import write_fixtures
from mcptrials.tasks.loader import load_tasks

TASK_FILE = TASKS_DIR / "travel_knowledge.jsonl"
CATEGORIES = {"random", "hard-negative", "cross-domain", "same-name", "sibling", "stratified", "long-similar-chain",
              "homonym-trap", "decoy", "prerequisite-strict", "recovery-required", "destructive-adjacent",
              "ambiguous-intent", "cross-server-alternative", "complementary"}
MY_SERVERS = {"rail", "maps", "parks", "weather", "encyclopedia", "papers", "papers_mirror", "clock", "worldclock"}


def _server(name: str) -> Any:
    return importlib.import_module(f"mcptrials.bundled.servers.{name}").mcp


@cache
def tasks() -> list[Task]:
    return [Task.model_validate(json.loads(line)) for line in TASK_FILE.read_text().splitlines() if line.strip()]


async def _replay(task: Task, sandbox: Path) -> list[ToolCallRecord]:
    """Run the reference plan and record each call as the runner would."""
    write_fixtures(sandbox, task.fixtures.files)
    assert task.now is not None
    os.environ["MCPTRIALS_NOW"] = task.now.isoformat()
    os.environ["MCPTRIALS_SANDBOX"] = str(sandbox)
    records: list[ToolCallRecord] = []
    async with AsyncExitStack() as stack:
        clients: dict[str, Any] = {}
        for i, step in enumerate(task.reference):
            server, tool = split_qualified(step.tool)
            if server not in clients:
                clients[server] = await stack.enter_async_context(Client(_server(server), cache=None))
            result = await clients[server].call_tool(tool, step.args)
            text = "\n".join(getattr(c, "text", "") for c in result.content)
            records.append(ToolCallRecord(index=i, call_id=f"call-{i}", turn=i, name=step.tool, server=server,
                                          tool=tool, arguments=copy.deepcopy(step.args), content=text,
                                          structured_content=result.structured_content, is_error=result.is_error))
    return records


def _episode(task: Task, calls: list[ToolCallRecord]) -> Episode:
    steps = [c.model_copy(update={"index": i}) for i, c in enumerate(calls)]
    return Episode(id=f"{task.id}-ep", run_id="test", task_id=task.id, agent="reference", model="none", attempt=0,
                   config_hash="test", steps=steps, final_answer="")


def _trace_checks(task: Task) -> set[str]:
    """The checkpoints a replay of calls alone can meet: tool effects and values in tool results (the
    answer, conclusions and the sandbox are checked by the world test, through the real runner)."""
    return {cp.id for cp in task.spec.checkpoints if isinstance(cp, ToolEffectCheckpoint)
            or (isinstance(cp, ValueCheckpoint) and cp.source == "tool_result")}


def _trace_score(task: Task, calls: list[ToolCallRecord]) -> tuple[bool, list[str]]:
    score = score_effects(task, _episode(task, calls))
    wanted = _trace_checks(task)
    failed = [r.detail for r in score.checkpoints if r.id in wanted and not r.passed]
    failed += score.detail["minefield_hits"] + score.detail["order_violations"]
    return not failed, failed


def _passes(task: Task, calls: list[ToolCallRecord]) -> bool:
    return _trace_score(task, calls)[0]


def _mutated(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1000
    if isinstance(value, str):
        return "zz-" + value[::-1] + "-zz"
    if isinstance(value, list):
        return []
    return {"changed": True}


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[ToolCallRecord]]:
    saved = {k: os.environ.get(k) for k in ("MCPTRIALS_NOW", "MCPTRIALS_SANDBOX")}
    try:
        out = {}
        for task in tasks():
            out[task.id] = asyncio.run(_replay(task, tmp_path_factory.mktemp(task.id)))
        return out
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


# --------------------------------------------------------------------------- validity and coverage


def test_every_line_is_a_valid_task_and_loads() -> None:
    raw = [json.loads(line) for line in TASK_FILE.read_text().splitlines()]
    assert len(raw) == len(tasks()) >= 75
    assert len({t.id for t in tasks()}) == len(tasks())
    assert [t.id for t in load_tasks(TASK_FILE)] == [t.id for t in tasks()]
    for task in tasks():
        assert task.now is not None and task.now.utcoffset() is not None, task.id
        assert task.concrete_prompt and task.key_points and task.reference, task.id
        assert set(task.servers) <= MY_SERVERS, task.id
        assert task.category in CATEGORIES, task.id
        assert task.reference_answer, task.id


def test_coverage_of_categories_lengths_and_servers() -> None:
    by_category = Counter(t.category for t in tasks())
    assert set(by_category) == CATEGORIES and min(by_category.values()) >= 3, by_category
    strata = Counter(t.chain_length for t in tasks())
    assert strata["short"] >= 18 and strata["medium"] >= 18 and strata["long"] >= 18, strata
    cross = [t for t in tasks() if 2 <= len({split_qualified(s.tool)[0] for s in t.reference}) <= 5]
    assert len(cross) >= 20


# --------------------------------------------------------------------------- solvable and discriminating


def test_reference_plans_pass_the_tier1_scorer(replays: dict[str, list[ToolCallRecord]]) -> None:
    failures = []
    for task in tasks():
        calls = replays[task.id]
        errors = [c.content[:120] for c in calls if c.is_error]
        passed, failed = _trace_score(task, calls)
        if errors or not passed:
            failures.append((task.id, errors, failed))
    assert not failures, failures


def test_changing_a_checked_argument_fails_the_task(replays: dict[str, list[ToolCallRecord]]) -> None:
    weak = []
    for task in tasks():
        calls = replays[task.id]
        for cp in task.spec.checkpoints:
            if not isinstance(cp, ToolEffectCheckpoint):
                continue
            keys = [*cp.must_include, *cp.must_match]
            for key in keys:  # the argument changed in every call that could meet the checkpoint
                changed = [c.model_copy(update={"arguments": c.arguments | {key: _mutated(c.arguments[key])}})
                           if c.name in cp.tools and c.arguments and key in c.arguments else c for c in calls]
                if changed != calls and _passes(task, changed):
                    weak.append((task.id, cp.id, key))
    assert not weak, weak


def test_value_checkpoints_need_the_real_results(replays: dict[str, list[ToolCallRecord]]) -> None:
    for task in tasks():
        calls = replays[task.id]
        blank = [c.model_copy(update={"content": "{}"}) for c in calls]
        if any(isinstance(cp, ValueCheckpoint) and cp.source == "tool_result" for cp in task.spec.checkpoints):
            assert not _passes(task, blank), task.id


def test_minefields_fail_the_task(replays: dict[str, list[ToolCallRecord]]) -> None:
    mined = [t for t in tasks() if t.spec.minefields]
    assert len([t for t in mined if t.category == "destructive-adjacent"]) >= 3
    for task in mined:
        calls = replays[task.id]
        for mine in task.spec.minefields:
            bad = ToolCallRecord(index=len(calls), call_id="mine", turn=len(calls), name=mine.tools[0],
                                 server=split_qualified(mine.tools[0])[0], tool=split_qualified(mine.tools[0])[1],
                                 arguments=dict(mine.must_include), content="{}")
            assert not _passes(task, [*calls, bad]), (task.id, mine.tools)


def test_partial_order_is_enforced(replays: dict[str, list[ToolCallRecord]]) -> None:
    ordered = [t for t in tasks() if t.spec.partial_order]
    for task in ordered:
        assert _passes(task, replays[task.id]), task.id
        assert not _passes(task, list(reversed(replays[task.id]))), task.id
