"""Counts over a task suite: per category, per chain length, cross-server, stateful."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from mcptrials.model import ServerSpec, Task


def task_counts(tasks: list[Task], servers: Mapping[str, ServerSpec]) -> dict[str, Any]:
    """Summary counts of a suite, as printed by ``mcptrials tasks list``."""
    stateful = [t for t in tasks if any(servers[s].dynamism == "stateful_write" for s in t.servers if s in servers)]
    return {
        "tasks": len(tasks),
        "per_category": dict(sorted(Counter(t.category for t in tasks).items())),
        "per_chain_length": {k: sum(t.chain_length == k for t in tasks) for k in ("short", "medium", "long")},
        "cross_server": sum(len(set(t.servers)) >= 2 for t in tasks),
        "stateful": len(stateful),
        "servers_used": len({s for t in tasks for s in t.servers}),
    }
