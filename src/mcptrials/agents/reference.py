"""The reference agent: executes a task's reference plan in order, with no model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcptrials.agents.base import Trajectory, execute_calls
from mcptrials.model import PlannedCall, Task, ToolCallRequest
from mcptrials.models.base import ChatModel
from mcptrials.servers.toolbox import Toolbox


@dataclass
class ReferenceAgent:
    """Plays the reference calls one by one, then gives the reference answer; shows a task is solvable.

    With ``stale=True`` it plays the plan written for the original (v0) servers even on an
    evolved version: an agent that learnt the old interface and never re-reads the new one.
    """

    stale: bool = False

    @property
    def name(self) -> str:
        return "stale" if self.stale else "reference"

    def settings(self) -> dict[str, Any]:
        return {"agent": self.name}

    def plan(self, task: Task) -> list[PlannedCall]:
        original = task.provenance.get("original_reference") if self.stale else None
        return [PlannedCall.model_validate(step) for step in original] if original else list(task.reference)

    async def run(self, task: Task, toolbox: Toolbox, model: ChatModel | None, trajectory: Trajectory) -> None:
        for turn, step in enumerate(self.plan(task)):
            request = ToolCallRequest(id=f"ref_{turn}", name=step.tool, arguments=dict(step.args))
            await execute_calls(toolbox, [request], turn, trajectory)
        trajectory.final_answer = task.reference_answer or ""
