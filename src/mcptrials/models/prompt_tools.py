"""Prompt-based tool calling for endpoints without native tools: tools in the prompt, calls parsed from text."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from mcptrials.model import ToolCallRequest
from mcptrials.models.base import ChatModel, EpisodeContext, Message, ModelResponse, ToolSchema
from mcptrials.models.toolcall_parse import parse_output

INSTRUCTIONS = resources.files("mcptrials.models").joinpath("prompts/prompt_tools.txt").read_text("utf-8")


def tools_block(tools: list[ToolSchema]) -> str:
    """The tool list as prompt text."""
    return "\n".join(json.dumps({"name": t.name, "description": t.description, "parameters": t.parameters})
                     for t in tools)


def render(messages: list[Message], tools: list[ToolSchema]) -> list[Message]:
    """Rewrite a native tool conversation as plain chat: calls as tagged JSON, results as user turns."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    if tools:
        system = f"{system}\n\n{INSTRUCTIONS}{tools_block(tools)}".strip()
    out = [Message(role="system", content=system)] if system else []
    for m in messages:
        if m.role == "system":
            continue
        if m.role == "assistant":
            calls = "".join(
                f"\n<tool_call>{json.dumps({'name': c.name, 'arguments': c.arguments if c.arguments is not None else c.raw_arguments})}</tool_call>"  # noqa: E501
                for c in m.tool_calls)
            out.append(Message(role="assistant", content=(m.content + calls).strip()))
        elif m.role == "tool":
            out.append(Message(role="user", content=f"Result of {m.name or 'the tool'} (call {m.tool_call_id}):\n"
                                                    f"{m.content}"))
        else:
            out.append(Message(role=m.role, content=m.content))
    return out


@dataclass
class PromptToolsModel:
    """Wraps any chat model so it calls tools through text instead of a native tools API."""

    inner: ChatModel
    _turn: int = 0

    @property
    def spec(self) -> str:
        return f"{self.inner.spec}#prompt-tools"

    def for_episode(self, context: EpisodeContext) -> PromptToolsModel:
        return PromptToolsModel(inner=self.inner.for_episode(context))

    def settings(self) -> dict[str, Any]:
        return {**self.inner.settings(), "tool_mode": "prompt"}

    async def generate(self, messages: list[Message], tools: list[ToolSchema]) -> ModelResponse:
        response = await self.inner.generate(render(messages, tools), [])
        parsed = parse_output(response.text, known_tools={t.name for t in tools})
        turn, self._turn = self._turn, self._turn + 1
        calls = [ToolCallRequest(id=f"call_{turn}_{i}", name=c.name, arguments=c.arguments,
                                 raw_arguments=c.raw_arguments) for i, c in enumerate(parsed.calls)]
        return ModelResponse(text=parsed.text, tool_calls=calls, usage=response.usage,
                             finish_reason="tool_calls" if calls else response.finish_reason)
