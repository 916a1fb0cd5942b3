"""Counts over a task suite: per category, per chain length, cross-server, state-changing."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from mcptrials.model import ServerSpec, StateCheckpoint, Task, ValueCheckpoint, split_qualified

_WRITE = re.compile(r"^(write|create|add|update|edit|delete|remove|send|complete|book|cancel|move|publish|unpublish|"
                    r"archive|insert|set|append|reset|store|download|rename|import)(_|$)")


def is_write_tool(qualified: str) -> bool:
    """Whether a tool's name says it changes state (send, create, update, delete, book, ...)."""
    tool = qualified.split("__", 1)[-1]
    return bool(_WRITE.match(tool)) or tool == "write_query"


def servers_used(task: Task) -> set[str]:
    """The servers the reference plan actually calls (a task may list more, e.g. decoys)."""
    return {split_qualified(step.tool)[0] for step in task.reference}


def changes_state(task: Task, servers: Mapping[str, ServerSpec]) -> bool:
    """Whether the reference plan writes: a write-named tool (or a write query) on a stateful server."""
    for step in task.reference:
        server, tool = split_qualified(step.tool)
        if servers.get(server) is None or servers[server].dynamism != "stateful_write":
            continue
        if is_write_tool(tool):
            return True
    return False


def checks_answer(task: Task) -> bool:
    """Whether the spec checks the final answer (a value checkpoint on the final message)."""
    return any(isinstance(c, ValueCheckpoint) and c.source == "final_message" for c in task.spec.checkpoints)


def checks_state(task: Task) -> bool:
    """Whether the spec checks the resulting state of the sandbox."""
    return any(isinstance(c, StateCheckpoint) for c in task.spec.checkpoints)


def task_counts(tasks: list[Task], servers: Mapping[str, ServerSpec]) -> dict[str, Any]:
    """Summary counts of a suite, as printed by ``mcptrials tasks list``."""
    return {
        "tasks": len(tasks),
        "per_category": dict(sorted(Counter(t.category for t in tasks).items())),
        "per_chain_length": {k: sum(t.chain_length == k for t in tasks) for k in ("short", "medium", "long")},
        "cross_server": sum(len(servers_used(t)) >= 2 for t in tasks),
        "cross_server_declared": sum(len(set(t.servers)) >= 2 for t in tasks),
        "state_changing": sum(changes_state(t, servers) for t in tasks),
        "servers_used": len({s for t in tasks for s in servers_used(t)}),
        "answer_checked": sum(checks_answer(t) for t in tasks),
        "state_checked": sum(checks_state(t) for t in tasks),
        "with_reference_answer": sum(bool(t.reference_answer) for t in tasks),
        "neither_answer_nor_state": sum(not checks_answer(t) and not checks_state(t) for t in tasks),
        "neither_ids": sorted(t.id for t in tasks if not checks_answer(t) and not checks_state(t)),
    }
