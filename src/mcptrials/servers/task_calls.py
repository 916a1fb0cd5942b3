"""Task-augmented tool calls (MCP 2025-11-25 tasks): create the task, poll it, fetch its result.

A tool that declares ``execution.taskSupport: required`` refuses a plain ``tools/call``, so it is
called as a task: ``tools/call`` with a ``task`` field answers at once with a task id; ``tasks/get``
is polled at the server's suggested interval until the task leaves ``working``; ``tasks/result``
then gives the tool's result (for ``input_required``, the server asks its questions, elicitation or
sampling, while that request is open, and the client's callbacks answer them).

The SDK installed (``mcp`` 2.3) has the types of these methods but no client API for them, and its
typed request path checks a ``tools/call`` answer against ``CallToolResult``, which a task is not:
the creating request alone goes through the session's raw request path.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

TASK_TTL_MS = 300_000
"""How long the server is asked to keep a task (and its result) after creating it."""
POLL_DEFAULT_S = 0.5
"""Polling interval when the server suggests none."""
POLL_MAX_S = 2.0
"""Longest wait between two polls, whatever the server suggests."""
CANCEL_WAIT_S = 2.0
"""Longest wait for ``tasks/cancel`` when a call is abandoned."""


def can_call_tasks(client: Client) -> bool:
    """Whether ``client``'s session can send the task-creating request."""
    return callable(getattr(getattr(client.session, "_dispatcher", None), "send_raw_request", None))


async def call_as_task(client: Client, tool: str, arguments: dict[str, Any], *, meta: dict[str, Any] | None = None,
                       on_change: Callable[[], None] | None = None,
                       record: Callable[[dict[str, Any]], None] | None = None) -> types.CallToolResult:
    """Call ``tool`` as a task and return its result; ``on_change`` runs whenever the task reports news (the
    caller's timeout restarts, as for progress), ``record`` gets the task's course (id, statuses) at the end."""
    session = client.session
    dispatcher = session._dispatcher  # checked by can_call_tasks before such a tool is offered
    params: dict[str, Any] = {"name": tool, "arguments": arguments, "task": {"ttl": TASK_TTL_MS}}
    if meta:
        params["_meta"] = meta
    raw = await dispatcher.send_raw_request("tools/call", params, {})
    if "task" not in raw:  # the server ran it at once (allowed): an ordinary result
        return types.CallToolResult.model_validate(raw)
    task: types.Task = types.CreateTaskResult.model_validate(raw).task
    course = [_status(task)]
    finished = False
    try:
        while task.status == "working":
            await anyio.sleep(min(POLL_MAX_S, task.poll_interval / 1000 if task.poll_interval else POLL_DEFAULT_S))
            task = await session.send_request(
                types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task.task_id)), types.GetTaskResult)
            if _status(task) != course[-1]:
                course.append(_status(task))
                if on_change is not None:
                    on_change()
        if task.status == "cancelled":
            finished = True
            why = f": {task.status_message}" if task.status_message else ""
            text = types.TextContent(type="text", text=f"the server cancelled the task{why}")
            return types.CallToolResult(content=[text], is_error=True)
        result = await session.send_request(types.GetTaskPayloadRequest(
            params=types.GetTaskPayloadRequestParams(task_id=task.task_id)), types.CallToolResult)
        finished = True
        return result
    finally:
        if not finished:  # abandoned (timeout, cancel): ask the server to stop, without waiting long
            # the task may be gone already; the call's outcome says what happened
            with anyio.CancelScope(shield=True), anyio.move_on_after(CANCEL_WAIT_S), contextlib.suppress(Exception):
                await session.send_request(types.CancelTaskRequest(
                    params=types.CancelTaskRequestParams(task_id=task.task_id)), types.CancelTaskResult)
        if record is not None:
            record({"kind": "task", "task_id": task.task_id, "statuses": course})


def _status(task: types.Task) -> str:
    return f"{task.status}: {task.status_message}" if task.status_message else task.status
