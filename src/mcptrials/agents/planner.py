"""The planner agent (MCP-Bench §3.1, Algorithm 1): rounds of parallel calls, compressed results, a final synthesis.

Each round the model asks for every call it can make now; they run concurrently. A result
longer than ``compress_chars`` is shortened by a separate model call (recorded as a
``compressor`` turn) before the model sees it; the full result stays in the call record, so
scoring reads what the tool really returned. The loop ends when the model asks for no more
calls, or at ``max_rounds``; then one more call writes the answer from the gathered evidence. An empty
synthesis keeps the last answer the model already wrote (a model that answered in its last round
has nothing more to say), so a written answer is never dropped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import anyio

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
from mcptrials.model import Task, ToolCallRecord, stable_hash
from mcptrials.models.base import ChatModel, Message, ModelResponse, ProviderError
from mcptrials.servers.toolbox import Toolbox

SYSTEM_PROMPT = load_prompt("planner_system")
COMPRESS_PROMPT = load_prompt("planner_compress")
FINAL_PROMPT = load_prompt("planner_final")


def _call_line(record: ToolCallRecord) -> str:
    args = json.dumps(record.arguments, ensure_ascii=False, sort_keys=True) if record.arguments is not None else "?"
    return f"{record.name}({args})"


@dataclass
class PlannerAgent:
    """Plan a round of independent calls, run them in parallel, compress long results, repeat, then answer."""

    max_rounds: int = 20
    compress_chars: int = 2000
    max_episode_tokens: int | None = None
    max_repeats: int = 3
    name: str = "planner"

    def settings(self) -> dict[str, Any]:
        return {"agent": self.name, "max_rounds": self.max_rounds, "compress_chars": self.compress_chars,
                "max_episode_tokens": self.max_episode_tokens, "max_repeats": self.max_repeats,
                "prompts_hash": stable_hash([SYSTEM_PROMPT, COMPRESS_PROMPT, FINAL_PROMPT])}

    async def _compress(self, model: ChatModel, task: Task, records: list[ToolCallRecord],
                        trajectory: Trajectory) -> dict[str, str]:
        """Shortened results of the long successful records (call id -> text), compressed concurrently."""
        long = [r for r in records if not r.is_error and len(r.content) > self.compress_chars]
        done: dict[str, tuple[ModelResponse, float]] = {}
        failed: list[ProviderError] = []

        async def one(record: ToolCallRecord) -> None:
            messages = [Message(role="system", content=COMPRESS_PROMPT),
                        Message(role="user", content=f"User request:\n{task.prompt}\n\nCall: {_call_line(record)}\n\n"
                                                     f"Result ({len(record.content)} characters):\n{record.content}")]
            try:
                done[record.call_id] = await timed_generate(model, messages, [])
            except ProviderError as exc:  # raised after the group, unwrapped, once the others are recorded
                failed.append(exc)

        async with anyio.create_task_group() as tg:
            for record in long:
                tg.start_soon(one, record)
        out: dict[str, str] = {}
        for record in long:  # recorded in call order, whatever order they finished in
            if record.call_id not in done:
                continue
            response, latency = done[record.call_id]
            trajectory.add_turn(response, latency, role="compressor")
            if response.text.strip():
                out[record.call_id] = (f"[result of {len(record.content)} characters, shortened]\n"
                                       f"{response.text.strip()}")
            else:  # an empty summary: the start of the result, so the context stays bounded
                out[record.call_id] = (f"[result of {len(record.content)} characters, cut to its first "
                                       f"{self.compress_chars} (shortening returned nothing)]\n"
                                       f"{record.content[:self.compress_chars]}")
        if failed:
            raise failed[0]
        return out

    async def _synthesise(self, model: ChatModel, task: Task, evidence: list[str], trajectory: Trajectory,
                          written: str) -> None:
        """Ask for the answer from the evidence; an empty reply keeps ``written``, the model's last non-empty text."""
        body = "\n\n".join(evidence) if evidence else "(no tool was called)"
        messages = [Message(role="system", content=FINAL_PROMPT),
                    Message(role="user", content=f"User request:\n{task.prompt}\n\nEvidence from tool calls:\n{body}")]
        response, latency = await timed_generate(model, messages, [])
        trajectory.add_turn(response, latency)
        trajectory.final_answer = response.text if response.text.strip() else written

    async def run(self, task: Task, toolbox: Toolbox, model: ChatModel | None, trajectory: Trajectory) -> None:
        if model is None:
            raise ValueError("the planner agent needs a model")
        tools = tool_schemas(toolbox)
        messages = [Message(role="system", content=with_server_instructions(SYSTEM_PROMPT, toolbox)),
                    Message(role="user", content=task.prompt)]
        evidence: list[str] = []
        written = ""
        trajectory.termination = "max_turns"
        for round_ in range(self.max_rounds):
            response, latency = await timed_generate(model, messages, tools)
            trajectory.add_turn(response, latency)
            written = response.text if response.text.strip() else written
            if not response.tool_calls:
                trajectory.termination = "done"
                break
            if over_budget(trajectory, self.max_episode_tokens):
                trajectory.termination = "budget"
                return
            messages.append(Message(role="assistant", content=response.text, tool_calls=response.tool_calls))
            records = await execute_calls(toolbox, response.tool_calls, round_, trajectory)
            if stuck(trajectory, self.max_repeats, unit="rounds"):
                break  # nothing new to gather: answer from the evidence, as at the round limit
            short = await self._compress(model, task, records, trajectory)
            for record in records:
                seen = short.get(record.call_id, result_text(record))
                messages.append(Message(role="tool", tool_call_id=record.call_id, name=record.name, content=seen))
                evidence.append(f"[round {round_ + 1}] {_call_line(record)}\n-> {seen}")
            if over_budget(trajectory, self.max_episode_tokens):
                trajectory.termination = "budget"
                return
        await self._synthesise(model, task, evidence, trajectory, written)
