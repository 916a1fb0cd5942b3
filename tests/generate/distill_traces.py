"""Traces for the distiller tests: a trajectory played through ``pursue`` by a scripted explorer, on real servers."""

from __future__ import annotations

import sys
from typing import Any

from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.generate.draft import TaskDraft, Trace
from mcptrials.generate.trace import pursue
from mcptrials.model import ServerSpec, Task
from mcptrials.models.scripted import Script, ScriptedModel
from mcptrials.tasks.alternatives import Alternative, AltResult, play

TIME = ServerSpec(name="time", command=sys.executable, args=["-m", "mcp_server_time", "--local-timezone", "UTC"])
_GIT_SETUP = ("git init -q -b main . && git add -A && git commit -q -m 'Initial commit' && "
              "exec mcp-server-git --repository .")
_GIT_ENV = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.org", "GIT_COMMITTER_NAME": "Dev",
            "GIT_COMMITTER_EMAIL": "dev@example.org", "GIT_AUTHOR_DATE": "2026-04-13T09:00:00+00:00",
            "GIT_COMMITTER_DATE": "2026-04-13T09:00:00+00:00", "HOME": "/tmp"}
GIT = ServerSpec(name="git", command="sh", args=["-c", _GIT_SETUP], env=_GIT_ENV)
"""mcp-server-git on a repository made from the sandbox's fixtures when the server starts."""


def bundled(task_id: str) -> Task:
    return next(t for t in bundled_tasks() if t.id == task_id)


def draft_of(task: Task) -> TaskDraft:
    return TaskDraft(id=task.id, goal=task.concrete_prompt or task.prompt, servers=list(task.servers),
                     category=task.category, method="explore", prompt=task.prompt, now=task.now,
                     fixtures=task.fixtures)


def explorer(turns: list[list[tuple[str, dict[str, Any]]]], answer: str) -> ScriptedModel:
    script = [{"tool_calls": [{"name": n, "arguments": a} for n, a in turn]} for turn in turns]
    return ScriptedModel(source="explorer", script=Script.model_validate({"default": [*script, {"text": answer}]}))


async def reference_trace(task: Task) -> Trace:
    """The task's reference plan and answer, recorded as if an explorer had made them."""
    model = explorer([[(s.tool, s.args)] for s in task.reference], task.reference_answer or "")
    return await pursue(bundled_servers(), draft_of(task), model)


def alt(task: Task, name: str, expect: str, turns: list[list[tuple[str, dict[str, Any]]]] | str,
        answer: str, classes: list[str] | None = None) -> Alternative:
    return Alternative.model_validate({
        "task": task.id, "id": name, "expect": expect, "answer": answer,
        "classes": classes or (["other_tool"] if expect == "accept" else ["wrong_item"]),
        "turns": turns if isinstance(turns, str) else [[{"tool": n, "args": a} for n, a in t] for t in turns]})


async def verdicts(task: Task, alternatives: list[Alternative],
                   servers: dict[str, ServerSpec] | None = None) -> dict[str, AltResult]:
    results = await play(servers or bundled_servers(), [task], alternatives, concurrency=2)
    return {r.alt_id: r for r in results}
