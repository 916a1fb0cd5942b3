"""Spec lint: parts of a task's spec that can never be met, or that guard nothing.

Static rules need only the task; the others need the tools the task's servers offer (as a
``tasks check`` run lists them): an equivalence-set member naming a tool nobody offers or a
parameter its tool does not have can never match, and a minefield on a server the task does
not offer can never go off.
"""

from __future__ import annotations

from collections.abc import Mapping

from mcptrials.jsonpath import argument_names
from mcptrials.model import (
    Minefield,
    Task,
    ToolEffectCheckpoint,
    ToolInfo,
    ValueCheckpoint,
    split_qualified,
)


def _server(name: str) -> str | None:
    try:
        return split_qualified(name)[0]
    except ValueError:
        return None


def static_problems(task: Task) -> list[str]:
    """Problems visible without starting any server."""
    problems = []
    offered = set(task.servers)
    for i, mine in enumerate(task.spec.minefields):
        for tool in mine.tools:
            if _server(tool) not in offered:
                problems.append(f"minefield {i} names {tool!r}, on a server the task does not offer")
    for cp in task.spec.checkpoints:
        names = cp.tool_names if isinstance(cp, ToolEffectCheckpoint) else \
            (cp.tools if isinstance(cp, ValueCheckpoint) else [])
        for tool in names:
            if _server(tool) not in offered:
                problems.append(f"checkpoint {cp.id!r} names {tool!r}, on a server the task does not offer")
    return problems


def _accepts(info: ToolInfo, params: set[str]) -> list[str]:
    schema = info.input_schema or {}
    props = schema.get("properties")
    if not isinstance(props, dict) or schema.get("additionalProperties") not in (None, False):
        return []
    if not props and schema.get("additionalProperties") is None:
        return []
    return sorted(p for p in params if p not in props)


def tool_problems(task: Task, tools: Mapping[str, ToolInfo]) -> list[str]:
    """Problems that need the offered tools: members and minefields that can never match."""
    problems = []
    for cp in task.spec.checkpoints:
        if isinstance(cp, ToolEffectCheckpoint):
            for member in cp.all_members():
                info = tools.get(member.tool)
                if info is None:
                    problems.append(f"checkpoint {cp.id!r}: member {member.tool!r} is not offered")
                    continue
                unknown = _accepts(info, argument_names([*member.must_include, *member.must_match]))
                if unknown:
                    problems.append(f"checkpoint {cp.id!r}: member {member.tool!r} can never match: it has no"
                                    f" parameter {', '.join(map(repr, unknown))}")
        elif isinstance(cp, ValueCheckpoint):
            gone = [t for t in cp.tools if t not in tools]
            if gone:
                problems.append(f"checkpoint {cp.id!r} reads results of {gone}, which are not offered")
    for i, mine in enumerate(task.spec.minefields):
        problems += _mine_problems(i, mine, tools)
    return problems


def _mine_problems(index: int, mine: Minefield, tools: Mapping[str, ToolInfo]) -> list[str]:
    out = []
    for tool in mine.tools:
        info = tools.get(tool)
        if info is None:
            out.append(f"minefield {index}: {tool!r} is not offered")
            continue
        unknown = _accepts(info, argument_names([*mine.must_include, *mine.must_match]))
        if unknown:
            out.append(f"minefield {index}: {tool!r} can never match: it has no parameter {', '.join(unknown)}")
    return out
