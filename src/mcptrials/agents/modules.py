"""Add-on modules of the ReAct agent (MCPEvol-Bench §5): reflection, planning and memory.

- ``reflect``: after a turn with a failed call, the model writes a short self-critique that the
  next turn sees.
- ``plan``: the model writes a plan before its first action and revises it after a failure and
  every few turns; the latest plan stays in view.
- ``memory``: when the conversation grows past a size, the earlier turns are replaced by a
  rolling summary the model writes (the latest exchange is kept whole).

Each writes a model turn with its own role (``reflection``, ``plan``, ``memory``) into the
trajectory, and a message into the conversation, so its effect is visible in the transcript.
"""

from __future__ import annotations

import json

from mcptrials.agents.base import Trajectory, load_prompt, timed_generate
from mcptrials.models.base import ChatModel, Message, ToolSchema

MODULES = ("reflect", "plan", "memory")
PROMPTS = {"reflect": load_prompt("module_reflect"), "plan": load_prompt("module_plan"),
           "revise": load_prompt("module_revise"), "memory": load_prompt("module_memory")}


PLAN_LABELS = ("Your plan (revise it as you learn more)", "Your revised plan")
"""How a plan message opens in the conversation (so the memory can keep the latest one)."""


class ModuleError(ValueError):
    """An unknown or repeated module name."""


def parse_modules(text: str | None) -> tuple[str, ...]:
    """``reflect,plan,memory`` (any order, any subset) in canonical order; ModuleError for anything else."""
    names = [n.strip() for n in (text or "").split(",") if n.strip()]
    unknown = [n for n in names if n not in MODULES]
    if unknown:
        raise ModuleError(f"unknown module(s) {', '.join(map(repr, unknown))} (known: {', '.join(MODULES)})")
    if len(set(names)) != len(names):
        raise ModuleError(f"a module is named twice in {text!r}")
    return tuple(m for m in MODULES if m in names)


def _text_of(response_text: str, calls: list[str]) -> str:
    """What a module turn said; a model that answered with tool calls anyway is quoted by them."""
    return response_text.strip() or ("(asked for " + ", ".join(calls) + ")" if calls else "(nothing)")


async def _side_turn(model: ChatModel, messages: list[Message], tools: list[ToolSchema], instruction: str,
                     trajectory: Trajectory, role: str) -> str:
    """One model call beside the agent's loop; its tool calls, if any, are not executed."""
    response, latency = await timed_generate(model, [*messages, Message(role="user", content=instruction)], tools)
    trajectory.add_turn(response, latency, role=role)
    return _text_of(response.text, [c.name for c in response.tool_calls])


async def write_plan(model: ChatModel, messages: list[Message], tools: list[ToolSchema],
                     trajectory: Trajectory, revise: bool = False) -> Message:
    """The plan (or its revision) as a message for the conversation."""
    text = await _side_turn(model, messages, tools, PROMPTS["revise" if revise else "plan"], trajectory, "plan")
    label = PLAN_LABELS[1] if revise else PLAN_LABELS[0]
    return Message(role="user", content=f"{label}:\n{text}")


async def reflect(model: ChatModel, messages: list[Message], tools: list[ToolSchema],
                  trajectory: Trajectory) -> Message:
    """A short self-critique of the failed call(s), as a message for the conversation."""
    text = await _side_turn(model, messages, tools, PROMPTS["reflect"], trajectory, "reflection")
    return Message(role="user", content=f"Your reflection on the failed call:\n{text}")


def context_chars(messages: list[Message]) -> int:
    """The conversation's size in characters: contents plus tool-call arguments."""
    return sum(len(m.content) + sum(len(json.dumps(c.arguments)) + len(c.name) for c in m.tool_calls)
               for m in messages)


def _last_exchange(messages: list[Message]) -> int:
    """Where the latest assistant turn with its tool results starts (kept whole by the memory)."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "assistant":
            return i
    return len(messages)


async def remember(model: ChatModel, messages: list[Message], tools: list[ToolSchema],
                   trajectory: Trajectory, head: int = 2) -> list[Message]:
    """The conversation with everything between its first ``head`` messages and the latest exchange summarised.

    Returned unchanged when no earlier turn is left to summarise.
    """
    cut = _last_exchange(messages)
    if not any(m.role == "assistant" for m in messages[head:cut]):
        return messages  # nothing but an earlier summary before the latest exchange
    text = await _side_turn(model, messages, tools, PROMPTS["memory"], trajectory, "memory")
    summary = Message(role="user", content=f"Summary of your work so far (earlier turns are replaced by it):\n{text}")
    plans = [m for m in messages[head:] if m.role == "user" and m.content.startswith(PLAN_LABELS)]
    kept = [plans[-1]] if plans and plans[-1] not in messages[cut:] else []  # the latest plan stays in view
    return [*messages[:head], summary, *kept, *messages[cut:]]
