"""The copilot agent (LiveMCPBench): the model sees two meta-tools, ``route`` and ``execute``, not the pool.

``route`` retrieves the top-k servers and tools for a need; ``execute`` calls one of the tools
route returned. An executed call is recorded exactly like a direct call (real server, tool,
qualified name and arguments), so effect scoring reads it the same way; a route step is
recorded as a ``router`` turn holding what the agent was shown.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from mcptrials.agents.base import (
    Trajectory,
    execute_calls,
    load_prompt,
    over_budget,
    result_text,
    stuck,
    timed_generate,
    with_server_instructions,
)
from mcptrials.agents.retrieval import Hit, ToolRetriever
from mcptrials.model import ErrorKind, Task, ToolCallRecord, ToolCallRequest, ToolInfo, qualified_name, stable_hash
from mcptrials.models.base import ChatModel, Message, ModelResponse, ToolSchema
from mcptrials.servers.toolbox import Toolbox

SYSTEM_PROMPT = load_prompt("copilot_system")
ROUTE = ToolSchema(name="route", description=(
    "Find the servers and tools that can do something. Describe the need in plain words; returns the best "
    "matching tools with their descriptions and argument schemas."), parameters={
    "type": "object", "properties": {"query": {"type": "string", "description": "What you need a tool for."}},
    "required": ["query"]})
EXECUTE = ToolSchema(name="execute", description=(
    "Call one tool that route returned, by server and tool name, with arguments following its schema."),
    parameters={"type": "object", "properties": {
        "server": {"type": "string", "description": "The server name route gave."},
        "tool": {"type": "string", "description": "The tool name route gave."},
        "params": {"type": "object", "description": "The tool's arguments."}},
        "required": ["server", "tool"]})


def render_hits(hits: list[Hit]) -> str:
    """The retrieved tools as the agent reads them: server, tool, description, schema, score."""
    if not hits:
        return "No tools matched. Describe the need with other words."
    return json.dumps([{"server": h.tool.server, "tool": h.tool.name, "description": h.tool.description,
                        "parameters": h.tool.input_schema, "score": round(h.score, 4)} for h in hits],
                      ensure_ascii=False)


def execute_target(arguments: dict[str, Any] | None) -> tuple[str, dict[str, Any]]:
    """(qualified tool name, arguments) of an ``execute`` call; ValueError naming what is missing."""
    if not isinstance(arguments, dict):
        raise ValueError("execute needs a JSON object with server, tool and params")
    server, tool, params = arguments.get("server"), arguments.get("tool"), arguments.get("params", {})
    if isinstance(tool, str) and "__" in tool and (not server or tool.startswith(f"{server}__")):
        server, _, tool = tool.partition("__")  # the qualified name given as the tool
    if not isinstance(server, str) or not server or not isinstance(tool, str) or not tool:
        raise ValueError("execute needs 'server' and 'tool' (names route returned)")
    stray = sorted(set(arguments) - {"server", "tool", "params"})
    if stray and "params" not in arguments:  # never call the tool with no arguments in place of the ones meant
        raise ValueError(f"execute takes the tool's arguments inside 'params' (got {', '.join(map(repr, stray))} "
                         "beside server and tool)")
    if isinstance(params, str):
        try:
            params = json.loads(params) if params.strip() else {}
        except json.JSONDecodeError:
            raise ValueError("execute 'params' is not a JSON object") from None
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ValueError("execute 'params' must be an object of the tool's arguments")
    return qualified_name(server, tool), params


def refuse(trajectory: Trajectory, request: ToolCallRequest, turn: int, name: str, kind: ErrorKind,
           message: str, arguments: dict[str, Any] | None) -> ToolCallRecord:
    """Record a call the agent asked for that never reached a server."""
    record = ToolCallRecord(index=len(trajectory.steps), call_id=request.id, turn=turn, name=name,
                            arguments=arguments, is_error=True, error_kind=kind, content=message)
    trajectory.steps.append(record)
    return record


@dataclass
class CopilotAgent:
    """A ReAct loop over ``route`` and ``execute``: retrieval from the whole pool, top-k at a time."""

    retriever: ToolRetriever
    top_k: int = 5
    max_turns: int = 20
    max_episode_tokens: int | None = None
    max_repeats: int = 3
    system_prompt: str = SYSTEM_PROMPT
    name: str = "copilot"

    def settings(self) -> dict[str, Any]:
        return {"agent": self.name, "top_k": self.top_k, "retriever": self.retriever.settings(),
                "max_turns": self.max_turns, "max_episode_tokens": self.max_episode_tokens,
                "max_repeats": self.max_repeats, "system_prompt_hash": stable_hash(self.system_prompt)}

    async def _route(self, request: ToolCallRequest, pool: list[ToolInfo], trajectory: Trajectory,
                     routed: dict[str, ToolInfo]) -> str:
        query = (request.arguments or {}).get("query")
        t0 = time.perf_counter()
        if not isinstance(query, str) or not query.strip():  # recorded, so the transcript shows what it was told
            text = "ERROR (invalid_arguments): route needs a 'query' describing what you need"
            trajectory.add_turn(ModelResponse(text=text), time.perf_counter() - t0, role="router")
            return text
        hits, usage = await self.retriever.route(query, pool, self.top_k)
        text = render_hits(hits)
        trajectory.add_turn(ModelResponse(text=text, usage=usage), time.perf_counter() - t0, role="router")
        routed.update((h.tool.qualified_name, h.tool) for h in hits)
        return text

    async def run(self, task: Task, toolbox: Toolbox, model: ChatModel | None, trajectory: Trajectory) -> None:
        if model is None:
            raise ValueError("the copilot agent needs a model")
        pool = toolbox.tools
        routed: dict[str, ToolInfo] = {}
        messages = [Message(role="system", content=with_server_instructions(self.system_prompt, toolbox)),
                    Message(role="user", content=task.prompt)]
        for turn in range(self.max_turns):
            response, latency = await timed_generate(model, messages, [ROUTE, EXECUTE])
            trajectory.add_turn(response, latency)
            if not response.tool_calls:
                trajectory.final_answer, trajectory.termination = response.text, "done"
                return
            if over_budget(trajectory, self.max_episode_tokens):
                trajectory.termination = "budget"
                return
            messages.append(Message(role="assistant", content=response.text, tool_calls=response.tool_calls))
            replies: dict[str, str] = {}
            executions: list[ToolCallRequest] = []
            for call in response.tool_calls:
                if call.name == "route":
                    replies[call.id] = await self._route(call, pool, trajectory, routed)
                elif call.name == "execute":
                    try:
                        name, params = execute_target(call.arguments)
                    except ValueError as exc:
                        replies[call.id] = result_text(refuse(trajectory, call, turn, "execute", "invalid_arguments",
                                                              str(exc), call.arguments))
                        continue
                    if name not in routed:
                        message = f"{name!r} is not among the tools route returned; call route first"
                        replies[call.id] = result_text(refuse(trajectory, call, turn, name, "unknown_tool", message,
                                                              params))
                        continue
                    executions.append(ToolCallRequest(id=call.id, name=name, arguments=params))
                else:  # a tool called directly by name: recorded like any call of a tool that is not offered
                    message = f"there is no tool {call.name!r}; use route, then execute"
                    replies[call.id] = result_text(refuse(trajectory, call, turn, call.name, "unknown_tool", message,
                                                          call.arguments))
            for record in await execute_calls(toolbox, executions, turn, trajectory):
                replies[record.call_id] = result_text(record)
            if stuck(trajectory, self.max_repeats):
                return
            for call in response.tool_calls:
                messages.append(Message(role="tool", tool_call_id=call.id, name=call.name, content=replies[call.id]))
        trajectory.termination = "max_turns"
