"""A deterministic stand-in for a capable model, for the agent-design tests.

It answers from provider-neutral messages and tools, so the same decisions drive the openai
and anthropic fake endpoints (through their wire formats) and the scripted provider (as a
callable): the agent code is shown to depend on the ``ChatModel`` protocol only.

Decisions: a planner/react agent gets every call of the plan in one turn, then answers; a
copilot routes to each planned tool (all routes in one turn), executes the plan, then answers;
the planner's compressor and final-answer steps and the react modules get a fitting reply.
``mistake_first`` makes the first acting turn call a tool that does not exist.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import Any

from fake_openai import Reply, anthropic_message, completion

from mcptrials.model import PlannedCall, ToolCallRequest
from mcptrials.models.base import Message, ModelResponse, ToolSchema

MODULE_REPLIES = {"A tool call you just made failed": "REFLECTION: I called a tool that does not exist; "
                                                      "next I use the listed tools.",
                  "Before acting, write a short numbered plan": "PLAN: 1. look up the facts. 2. answer.",
                  "Revise your plan": "REVISED PLAN: 1. done: lookups. 2. left: answer.",
                  "Summarise the work on this request": "MEMORY: tried a missing tool; looked up the facts."}


@dataclass
class Brain:
    """Replies for one task: its plan (reference calls) and its answer."""

    plan: list[PlannedCall]
    answer: str
    mistake_first: bool = False
    skip_route: bool = False
    """A copilot that executes planned tools without routing to them first."""
    seen: list[list[Message]] = field(default_factory=list)
    """Every conversation it was asked about, in order."""

    def reply(self, messages: list[Message], tools: list[ToolSchema]) -> ModelResponse:
        self.seen.append(messages)
        system = messages[0].content if messages and messages[0].role == "system" else ""
        last = messages[-1]
        if system.startswith("You shorten one tool result"):
            return ModelResponse(text="SHORT: " + last.content.split("Result", 1)[-1][:120])
        if system.startswith("You write the final answer"):
            return ModelResponse(text=self.answer)
        if last.role == "user":
            for opening, text in MODULE_REPLIES.items():
                if last.content.startswith(opening):
                    return ModelResponse(text=text)
        done = [c for m in messages if m.role == "assistant" for c in m.tool_calls]
        summarised = any(m.role == "user" and m.content.startswith("Summary of your work so far") for m in messages)
        if {t.name for t in tools} == {"route", "execute"}:
            return self._copilot(done)
        if summarised:
            return ModelResponse(text=self.answer)
        if self.mistake_first and not done:
            return _calls([("nosuch__tool", {})])
        if not [c for c in done if c.name != "nosuch__tool"]:
            return _calls([(step.tool, step.args) for step in self.plan])
        return ModelResponse(text=self.answer)

    def _copilot(self, done: list[ToolCallRequest]) -> ModelResponse:
        if not self.skip_route and not any(c.name == "route" for c in done):
            return _calls([("route", {"query": f"{step.tool.partition('__')[2].replace('_', ' ')} "
                                               f"{step.tool.partition('__')[0]}"}) for step in self.plan])
        if not any(c.name == "execute" for c in done):
            return _calls([("execute", {"server": step.tool.partition("__")[0], "tool": step.tool.partition("__")[2],
                                        "params": step.args}) for step in self.plan])
        return ModelResponse(text=self.answer)

    # ----------------------------------------------------------------- wire formats

    def openai(self, body: dict[str, Any]) -> Reply:
        """A Chat Completions reply (or an embeddings reply) to a request body."""
        if "input" in body:
            return embeddings_reply(body)
        messages = []
        for m in body["messages"]:
            calls = [ToolCallRequest(id=c["id"], name=c["function"]["name"],
                                     arguments=json.loads(c["function"]["arguments"] or "{}"))
                     for c in m.get("tool_calls") or []]
            messages.append(Message(role=m["role"], content=m.get("content") or "", tool_calls=calls,
                                    tool_call_id=m.get("tool_call_id")))
        tools = [ToolSchema(name=t["function"]["name"], description=t["function"].get("description", ""),
                            parameters=t["function"].get("parameters") or {}) for t in body.get("tools") or []]
        response = self.reply(messages, tools)
        return completion(response.text, [(c.name, c.arguments or {}) for c in response.tool_calls])

    def anthropic(self, body: dict[str, Any]) -> Reply:
        """A Messages API reply to a request body."""
        messages = [Message(role="system", content=body["system"])] if body.get("system") else []
        for m in body["messages"]:
            content = m["content"]
            if isinstance(content, str):
                messages.append(Message(role=m["role"], content=content))
                continue
            for block in content:
                if block["type"] == "tool_result":
                    messages.append(Message(role="tool", tool_call_id=block["tool_use_id"],
                                            content=str(block.get("content", ""))))
            texts = "".join(b["text"] for b in content if b["type"] == "text")
            calls = [ToolCallRequest(id=b["id"], name=b["name"], arguments=b["input"])
                     for b in content if b["type"] == "tool_use"]
            if texts or calls or not any(b["type"] == "tool_result" for b in content):
                messages.append(Message(role=m["role"], content=texts, tool_calls=calls))
        tools = [ToolSchema(name=t["name"], description=t.get("description", ""), parameters=t["input_schema"])
                 for t in body.get("tools") or []]
        response = self.reply(messages, tools)
        return anthropic_message(response.text, [(c.name, c.arguments or {}) for c in response.tool_calls])

    def scripted(self, messages: list[Message], tools: list[ToolSchema], _context: Any) -> ModelResponse:
        """The scripted provider's callable form."""
        response = self.reply(messages, tools)
        for i, call in enumerate(response.tool_calls):
            call.id = f"call_{len(self.seen)}_{i}"
        return response


def _calls(calls: list[tuple[str, dict[str, Any]]]) -> ModelResponse:
    return ModelResponse(tool_calls=[ToolCallRequest(id=f"call_{i}", name=name, arguments=args)
                                     for i, (name, args) in enumerate(calls)], finish_reason="tool_calls")


def hashed_vector(text: str, dims: int = 64) -> list[float]:
    """A bag-of-words vector (words hashed into ``dims`` buckets): texts sharing words point alike."""
    vector = [0.0] * dims
    for word in text.lower().replace("_", " ").split():
        vector[zlib.crc32(word.strip(".,:;()[]{}\"'").encode()) % dims] += 1.0
    return vector


def embeddings_reply(body: dict[str, Any]) -> Reply:
    """An OpenAI embeddings reply for the request's inputs."""
    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
    return Reply(body={"object": "list", "model": body.get("model", "fake"),
                       "data": [{"object": "embedding", "index": i, "embedding": hashed_vector(text)}
                                for i, text in enumerate(inputs)],
                       "usage": {"prompt_tokens": 3 * len(inputs), "total_tokens": 3 * len(inputs)}})
