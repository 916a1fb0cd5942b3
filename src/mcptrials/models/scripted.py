"""Deterministic model outputs from a file or a callable, for tests and reference runs.

Never a model result: a scripted run measures the harness and the tasks, not a model.

Script file (JSON or YAML)::

    {"default": [turn, ...],
     "tasks": {"task-id": [turn, ...] | {"attempts": [[turn, ...], ...]}}}

where a turn is ``{"text": "...", "tool_calls": [{"name": "server__tool", "arguments": {...}}]}``.
The spec ``scripted:reference`` plays each task's reference plan, one call per turn, then writes the
reference answer. A request that offers no tools (a planner's result compression or final synthesis)
is not a turn of the plan: it is answered with the reference answer once every call was made, and
with nothing before, so the plan is never cut short.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcptrials.model import ToolCallRequest, stable_hash
from mcptrials.models.base import EpisodeContext, Message, ModelResponse, ToolSchema
from mcptrials.models.openai_provider import parse_arguments
from mcptrials.safety.loading import bounded, load_document

ScriptFn = Callable[[list[Message], list[ToolSchema], EpisodeContext], ModelResponse]


class ScriptError(ValueError):
    """A script file that cannot be used."""


class _Call(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    arguments: Any = Field(default_factory=dict)


class _Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = ""
    tool_calls: list[_Call] = Field(default_factory=list)


class _Attempts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    attempts: list[list[_Turn]] = Field(min_length=1)


class Script(BaseModel):
    """A parsed script file."""

    model_config = ConfigDict(extra="forbid")
    default: list[_Turn] = Field(default_factory=list)
    tasks: dict[str, list[_Turn] | _Attempts] = Field(default_factory=dict)

    def turns(self, task_id: str, attempt: int) -> list[_Turn]:
        entry = self.tasks.get(task_id)
        if entry is None:
            return self.default
        if isinstance(entry, _Attempts):
            return entry.attempts[attempt % len(entry.attempts)]
        return entry


def load_script(path: str | Path) -> Script:
    """Read and validate a script file, naming the file and field on error."""
    path = Path(path)
    data = bounded(load_document, ScriptError, path, "script")
    if isinstance(data, list):
        data = {"default": data}
    try:
        return Script.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ScriptError(f"{path}: {'.'.join(map(str, err['loc']))}: {err['msg']}") from None


def _response(turn: _Turn, turn_index: int) -> ModelResponse:
    calls = []
    for i, call in enumerate(turn.tool_calls):
        args, raw = parse_arguments(call.arguments)
        calls.append(ToolCallRequest(id=f"call_{turn_index}_{i}", name=call.name, arguments=args,
                                     raw_arguments=raw))
    return ModelResponse(text=turn.text, tool_calls=calls, finish_reason="tool_calls" if calls else "stop")


@dataclass
class ScriptedModel:
    """Replays scripted turns: from a script file, the task's reference plan, or a callable."""

    source: str
    script: Script | None = None
    fn: ScriptFn | None = None
    context: EpisodeContext | None = None
    _turn: int = 0
    _turns: list[_Turn] = field(default_factory=list)

    @property
    def spec(self) -> str:
        return f"scripted:{self.source}"

    def settings(self) -> dict[str, Any]:
        return {"provider": "scripted", "source": self.source,
                "script_hash": stable_hash(self.script.model_dump()) if self.script else None}

    def for_episode(self, context: EpisodeContext) -> ScriptedModel:
        bound = ScriptedModel(source=self.source, script=self.script, fn=self.fn, context=context)
        if self.source == "reference":
            bound._turns = [_Turn(tool_calls=[_Call(name=step["tool"], arguments=step.get("args", {}))])
                            for step in context.reference]
            bound._turns.append(_Turn(text=context.reference_answer
                                      or "Done: every step of the plan has been carried out."))
        elif self.script is not None:
            bound._turns = self.script.turns(context.task_id, context.attempt)
        return bound

    async def generate(self, messages: list[Message], tools: list[ToolSchema]) -> ModelResponse:
        if self.fn is not None:
            return self.fn(messages, tools, self.context or EpisodeContext(task_id=""))
        if self.source == "reference" and not tools:
            played = self._turn >= len(self._turns) - 1  # every planned call made: the answer is due
            return ModelResponse(text=self._turns[-1].text if played and self._turns else "", finish_reason="stop")
        index = self._turn
        self._turn += 1
        if index >= len(self._turns):
            return ModelResponse(text="", finish_reason="stop")
        return _response(self._turns[index], index)
