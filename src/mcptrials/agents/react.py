"""The ReAct agent (MCP-Bench Algorithm 1, native tool calls): call tools turn by turn, then answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcptrials.agents import modules
from mcptrials.agents.base import (
    Trajectory,
    execute_calls,
    load_prompt,
    over_budget,
    result_text,
    stuck,
    timed_generate,
    tool_schemas,
    with_server_instructions,
)
from mcptrials.model import Task, stable_hash
from mcptrials.models.base import ChatModel, Message
from mcptrials.servers.client import media_for_model
from mcptrials.servers.toolbox import Toolbox

SYSTEM_PROMPT = load_prompt("react_system")


@dataclass
class ReactAgent:
    """Multi-turn loop: the model sees the task and tools, calls tools, sees results, answers."""

    max_turns: int = 20
    max_episode_tokens: int | None = None
    max_repeats: int = 3
    system_prompt: str = SYSTEM_PROMPT
    name: str = "react"
    modules: tuple[str, ...] = ()
    """Add-on modules (``agents.modules``): any of reflect, plan, memory."""
    memory_chars: int = 12_000
    """With ``memory``: summarise earlier turns once the conversation is longer than this."""
    revise_every: int = 3
    """With ``plan``: revise the plan after this many turns (and after any failed call)."""

    def settings(self) -> dict[str, Any]:
        found = {"agent": self.name, "max_turns": self.max_turns, "max_episode_tokens": self.max_episode_tokens,
                 "max_repeats": self.max_repeats, "system_prompt_hash": stable_hash(self.system_prompt)}
        if self.modules:  # without modules the settings (and so the resume key) are exactly as before
            found["modules"] = {"names": list(self.modules), "prompts_hash": stable_hash(modules.PROMPTS),
                                **({"memory_chars": self.memory_chars} if "memory" in self.modules else {}),
                                **({"revise_every": self.revise_every} if "plan" in self.modules else {})}
        return found

    async def run(self, task: Task, toolbox: Toolbox, model: ChatModel | None, trajectory: Trajectory) -> None:
        if model is None:
            raise ValueError("the react agent needs a model")
        tools = tool_schemas(toolbox)
        messages = [Message(role="system", content=with_server_instructions(self.system_prompt, toolbox)),
                    Message(role="user", content=task.prompt)]
        if "plan" in self.modules:
            messages.append(await modules.write_plan(model, messages, tools, trajectory))
        for turn in range(self.max_turns):
            if "memory" in self.modules and modules.context_chars(messages) > self.memory_chars:
                messages = await modules.remember(model, messages, tools, trajectory)
            response, latency = await timed_generate(model, messages, tools)
            trajectory.add_turn(response, latency)
            if not response.tool_calls:
                trajectory.final_answer = response.text
                trajectory.termination = "done"
                return
            if over_budget(trajectory, self.max_episode_tokens):
                trajectory.termination = "budget"
                return
            messages.append(Message(role="assistant", content=response.text, tool_calls=response.tool_calls))
            records = await execute_calls(toolbox, response.tool_calls, turn, trajectory)
            if stuck(trajectory, self.max_repeats):
                return
            for record in records:
                messages.append(Message(role="tool", tool_call_id=record.call_id, name=record.name,
                                        content=result_text(record),
                                        media=media_for_model(model, record.attachments)))
            failed = any(record.is_error for record in records)
            if "reflect" in self.modules and failed:
                messages.append(await modules.reflect(model, messages, tools, trajectory))
            if "plan" in self.modules and (failed or (turn + 1) % self.revise_every == 0):
                messages.append(await modules.write_plan(model, messages, tools, trajectory, revise=True))
        trajectory.termination = "max_turns"
