"""The reference agent: executes a task's reference plan in order, with no model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcptrials.agents.base import Trajectory, execute_calls
from mcptrials.model import Task, ToolCallRequest
from mcptrials.models.base import ChatModel
from mcptrials.servers.toolbox import Toolbox


@dataclass
class ReferenceAgent:
    """Plays the reference calls one by one; shows that a task is solvable as written."""

    name: str = "reference"

    def settings(self) -> dict[str, Any]:
        return {"agent": self.name}

    async def run(self, task: Task, toolbox: Toolbox, model: ChatModel | None, trajectory: Trajectory) -> None:
        for turn, step in enumerate(task.reference):
            request = ToolCallRequest(id=f"ref_{turn}", name=step.tool, arguments=dict(step.args))
            await execute_calls(toolbox, [request], turn, trajectory)
