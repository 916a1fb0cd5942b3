"""Pursue a draft's goal live: an explorer agent on the real servers, the sandbox snapshotted before and after."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from mcptrials.agents.base import Trajectory
from mcptrials.agents.react import ReactAgent
from mcptrials.generate.distill import is_write
from mcptrials.generate.draft import Rejected, TaskDraft, Trace
from mcptrials.generate.prompting import prompt_text
from mcptrials.model import ServerSpec, Task, TaskSpec, ValueCheckpoint
from mcptrials.models.base import ChatModel
from mcptrials.run.runner import RunPlan, run_episode
from mcptrials.scoring.state import capture_files, capture_tables
from mcptrials.servers.toolbox import Toolbox
from mcptrials.store.db import is_sqlite

EXPLORER_PROMPT = prompt_text("explore_system.txt")
GIVE_UP = re.compile(r"^\s*give\s*up\b|\b(i (?:was|am) unable to|i could not|i couldn't|i cannot|i can't|"
                     r"unable to (?:complete|find|do)|not possible (?:to|with))\b", re.IGNORECASE)


def snapshot(sandbox: Path) -> dict[str, Any]:
    """The sandbox as the distiller reads it: files (text whole, others by digest) and SQLite tables as rows."""
    files = capture_files(sandbox)
    sqlite = {rel: capture_tables(sandbox / rel) for rel in files
              if "text" not in files[rel] and is_sqlite(sandbox / rel)}
    return {"files": files, "sqlite": sqlite}


class _BeforeFirstWrite:
    """A toolbox seen through a watcher that snapshots the sandbox right before the first write-named call.

    Servers often create their store on first use (a database on the first query): a snapshot
    taken then, rather than at start, shows what the writes changed and not the store appearing.
    """

    def __init__(self, box: Toolbox, sandbox: Path | None, taken: dict[str, Any]) -> None:
        self._box = box
        self._sandbox = sandbox
        self._taken = taken

    def __getattr__(self, name: str) -> Any:
        return getattr(self._box, name)

    async def call(self, qualified: str, arguments: dict[str, Any]) -> Any:
        if "first_write" not in self._taken and self._sandbox is not None and is_write(qualified):
            self._taken["first_write"] = snapshot(self._sandbox)
        return await self._box.call(qualified, arguments)


@dataclass
class _SnapshotFirst:
    """Wraps an agent: snapshots the sandbox before the first write (or, with none, once the servers are up)."""

    inner: ReactAgent
    taken: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return "explorer"

    @property
    def before(self) -> dict[str, Any]:
        return self.taken.get("first_write") or self.taken.get("start") or {"files": {}, "sqlite": {}}

    def settings(self) -> dict[str, Any]:
        return {**self.inner.settings(), "agent": self.name}

    async def run(self, task: Task, toolbox: Toolbox, model: ChatModel | None, trajectory: Trajectory) -> None:
        sandbox = next((conn.sandbox for conn in toolbox.connections.values()), None)
        if sandbox is not None:
            self.taken["start"] = snapshot(sandbox)
        watched = cast(Toolbox, _BeforeFirstWrite(toolbox, sandbox, self.taken))
        await self.inner.run(task, watched, model, trajectory)


def draft_task(draft: TaskDraft) -> Task:
    """The draft as a runnable task (its spec is a placeholder no one scores)."""
    placeholder = ValueCheckpoint(id="explore", source="final_message", absent=["\x00"])
    return Task(id=draft.id, prompt=draft.goal, servers=list(draft.servers), category=draft.category, now=draft.now,
                fixtures=draft.fixtures, spec=TaskSpec(checkpoints=[placeholder]))


async def pursue(specs: Mapping[str, ServerSpec], draft: TaskDraft, model: ChatModel, *,
                 max_turns: int = 20) -> Trace:
    """Run the explorer on ``draft.goal`` in a fresh sandbox; the recorded trace, or Rejected("explore", why).

    A bad provider configuration (``FatalRunError``) is not the candidate's fault and propagates.
    """
    missing = [name for name in draft.servers if name not in specs]
    if missing:
        raise Rejected("explore", f"the draft names servers that are not configured: {', '.join(missing)}")
    agent = _SnapshotFirst(ReactAgent(max_turns=max_turns, system_prompt=EXPLORER_PROMPT, name="explorer"))
    plan = RunPlan(servers=dict(specs), tasks=[], agent=agent, model=model,
                   capture=lambda sandbox, _task: snapshot(sandbox))
    task = draft_task(draft)
    episode, offered = await run_episode(plan, task, 0, "explore", "explore")
    if episode.infra_error is not None:
        raise Rejected("explore", f"infra error ({episode.infra_error.kind}): {episode.infra_error.message[:200]}")
    if episode.termination != "done":
        why = episode.agent_error or episode.termination
        raise Rejected("explore", f"the explorer did not finish: {why}")
    if not any(not c.is_error and c.tool is not None for c in episode.tool_calls):
        raise Rejected("explore", "the explorer made no successful tool call")
    answer = episode.final_answer.strip()
    if not answer:
        raise Rejected("explore", "the explorer gave no final answer")
    if GIVE_UP.search(answer[:400]):
        raise Rejected("explore", f"the explorer gave up: {answer[:160]}")
    return Trace(episode=episode, tools=offered, before=agent.before, after=episode.state)
