"""What every agent shares: the Agent protocol, the trajectory it records, tool execution."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import anyio

from mcptrials.model import (
    ModelTurn,
    Step,
    Task,
    Termination,
    ToolCallRecord,
    ToolCallRequest,
    Usage,
    stable_hash,
)
from mcptrials.models.base import ChatModel, Message, ModelResponse, ToolSchema
from mcptrials.servers.toolbox import Toolbox


@dataclass
class Trajectory:
    """Everything an agent did in one episode, in order."""

    steps: list[Step] = field(default_factory=list)
    final_answer: str = ""
    termination: Termination = "done"
    agent_error: str | None = None
    t0: float = field(default_factory=time.perf_counter)
    """When the trajectory began (``perf_counter``): call start times are measured from it."""

    @property
    def usage(self) -> Usage:
        total = Usage()
        for step in self.steps:
            if isinstance(step, ModelTurn):
                total = total + step.usage
        return total

    def add_turn(self, response: ModelResponse, latency_s: float, role: str = "agent") -> ModelTurn:
        turn = ModelTurn(index=len(self.steps), text=response.text, tool_calls=response.tool_calls,
                         usage=response.usage, latency_s=latency_s, finish_reason=response.finish_reason,
                         role=role)  # type: ignore[arg-type]
        self.steps.append(turn)
        return turn


def load_prompt(name: str) -> str:
    """The text of ``agents/prompts/<name>.txt``."""
    from importlib import resources

    return resources.files("mcptrials.agents").joinpath(f"prompts/{name}.txt").read_text("utf-8")


SERVER_INSTRUCTIONS_HEADER = load_prompt("server_instructions").strip()


def with_server_instructions(system: str, toolbox: Toolbox) -> str:
    """The agent's system prompt followed by each server's instructions the run passes on (``Toolbox.instructions``)."""
    if not toolbox.instructions:
        return system
    blocks = "\n\n".join(f"Server {name}:\n{text}" for name, text in sorted(toolbox.instructions.items()))
    return f"{system.rstrip()}\n\n{SERVER_INSTRUCTIONS_HEADER}\n\n{blocks}"


def result_text(record: ToolCallRecord) -> str:
    """A call's result as the model reads it: the content, or the error kind and message."""
    return f"ERROR ({record.error_kind}): {record.content}" if record.is_error else record.content


def over_budget(trajectory: Trajectory, max_tokens: int | None) -> bool:
    """Whether the episode has used up its token budget (prompt plus completion tokens)."""
    if max_tokens is None:
        return False
    usage = trajectory.usage
    return usage.prompt_tokens + usage.completion_tokens >= max_tokens


def repeated_turns(trajectory: Trajectory) -> int:
    """How many of the latest model turns asked for exactly the same tool calls and got the same results.

    Repeating a call whose result changes (editing the first occurrence of a word, paging) is
    progress, not a loop.
    """
    turns: list[tuple[ModelTurn, list[ToolCallRecord]]] = []
    for step in trajectory.steps:
        if isinstance(step, ModelTurn) and step.role == "agent":
            turns.append((step, []))
        elif isinstance(step, ToolCallRecord) and turns:
            turns[-1][1].append(step)
    if not turns or not turns[-1][0].tool_calls:
        return 0

    def key(turn: ModelTurn, records: list[ToolCallRecord]) -> str:
        return stable_hash([[(c.name, c.arguments, c.raw_arguments) for c in turn.tool_calls],
                            [(r.content, r.is_error) for r in records]])

    last, count = key(*turns[-1]), 0
    for turn, records in reversed(turns):
        if key(turn, records) != last:
            break
        count += 1
    return count


def stuck(trajectory: Trajectory, max_repeats: int, unit: str = "turns") -> bool:
    """Whether the latest ``max_repeats`` model turns repeated themselves; if so the episode is marked stuck."""
    repeats = repeated_turns(trajectory)
    if not max_repeats or repeats < max_repeats:
        return False
    trajectory.termination = "agent_error"
    trajectory.agent_error = f"stuck: the same tool calls with the same results {repeats} {unit} in a row"
    return True


def tool_schemas(toolbox: Toolbox) -> list[ToolSchema]:
    """The toolbox's tools as the model sees them: qualified name, description, input schema."""
    return [ToolSchema(name=t.qualified_name, description=t.description, parameters=t.input_schema)
            for t in toolbox.tools]


async def execute_calls(toolbox: Toolbox, requests: list[ToolCallRequest], turn: int,
                        trajectory: Trajectory) -> list[ToolCallRecord]:
    """Run one turn's tool calls concurrently; record them in request order; return the records."""
    records: list[ToolCallRecord] = []
    for request in requests:
        record = ToolCallRecord(index=len(trajectory.steps), call_id=request.id, turn=turn, name=request.name,
                                arguments=request.arguments)
        trajectory.steps.append(record)
        records.append(record)

    async def run(record: ToolCallRecord, request: ToolCallRequest) -> None:
        if request.arguments is None:
            record.is_error, record.error_kind = True, "invalid_arguments"
            record.content = f"the arguments were not a JSON object: {(request.raw_arguments or '')[:200]!r}"
            return
        t0 = time.perf_counter()
        record.started_s = round(t0 - trajectory.t0, 6)
        server, tool, outcome = await toolbox.call(request.name, request.arguments)
        record.server, record.tool = server, tool
        for key, value in asdict(outcome).items():  # the outcome's fields are a subset of the record's
            setattr(record, key, value)
        record.latency_s = outcome.latency_s or (time.perf_counter() - t0)

    async with anyio.create_task_group() as tg:
        for record, request in zip(records, requests, strict=True):
            tg.start_soon(run, record, request)
    return records


def distinct_call_ids(calls: list[ToolCallRequest]) -> None:
    """Give every call of one turn its own id (some endpoints repeat one), so each result answers its own call."""
    seen: set[str] = set()
    for call in calls:
        base, n = call.id or "call", 1
        while call.id in seen or not call.id:
            n += 1
            call.id = f"{base}_{n}"
        seen.add(call.id)


async def timed_generate(model: ChatModel, messages: list[Message],
                         tools: list[ToolSchema]) -> tuple[ModelResponse, float]:
    """Call the model and measure its latency; the reply's tool calls get distinct ids."""
    t0 = time.perf_counter()
    response = await model.generate(messages, tools)
    distinct_call_ids(response.tool_calls)
    return response, time.perf_counter() - t0


class Agent(Protocol):
    """An agent design: given a task, tools and a model, it produces a trajectory."""

    @property
    def name(self) -> str:
        """The agent's name, recorded with every episode."""
        ...

    def settings(self) -> dict[str, Any]:
        """Every setting of this agent that can change a score."""
        ...

    async def run(self, task: Task, toolbox: Toolbox, model: ChatModel | None, trajectory: Trajectory) -> None:
        """Attempt the task, recording into ``trajectory`` as it goes (so a failure keeps what was done).

        Raises ``ProviderError`` only for infrastructure failures.
        """
        ...
