"""Which tasks each interface change touches, and which changes break a client written for the old release."""

from __future__ import annotations

from mcptrials.evolve.changes import Change, ChangeKind, ToolDiff
from mcptrials.model import Task, qualified_name
from mcptrials.run.offer import needed_tools

BREAKING_KINDS = frozenset({
    ChangeKind.TOOL_REMOVED, ChangeKind.TOOL_REPLACED, ChangeKind.PARAM_ADDED_REQUIRED,
    ChangeKind.PARAM_REMOVED_REQUIRED, ChangeKind.PARAM_PROMOTED,
})
"""Changes after which a call written for the old release can fail: the tool or a required argument is gone,
or a call without the new required argument is refused."""

_NARROWING = frozenset({ChangeKind.PARAM_TYPE_CHANGED, ChangeKind.PARAM_CONSTRAINT_CHANGED})


def breaking(change: Change) -> bool:
    """Whether ``change`` can make a call that the old release accepted fail on the new one."""
    if change.kind in BREAKING_KINDS:
        return True
    return change.kind in _NARROWING and change.direction in ("tightened", "changed")


def tools_of(task: Task) -> set[str]:
    """Qualified names of every tool a task relies on or forbids: reference plan, checkpoints, minefields."""
    return set(needed_tools(task)) | {tool for mine in task.spec.minefields for tool in mine.tools}


def touched_tasks(diff: ToolDiff, server: str, tasks: list[Task]) -> list[str]:
    """Ids of the tasks that use the old version of the tool ``diff`` describes (none for an added tool)."""
    if diff.old_name is None:
        return []
    name = qualified_name(server, diff.old_name)
    return [task.id for task in tasks if name in tools_of(task)]


def tasks_of_server(tasks: list[Task], server: str) -> list[Task]:
    """The tasks that use ``server``."""
    return [task for task in tasks if server in task.servers]
