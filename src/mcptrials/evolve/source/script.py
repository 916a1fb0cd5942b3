"""A scripted model for source rounds: canned replies per step, for tests and dry runs.

Never a model result. It recognises which step is asking by the system prompt and returns the
next reply queued for that step; a step whose queue is exhausted repeats its last reply.
``evolve --mode source --model scripted:FILE`` reads the replies from a JSON or YAML file whose
keys are the steps (``select``, ``apply``, ``tests``), each a reply or a list of them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcptrials.evolve.source.prompts import load_prompt
from mcptrials.models.base import EpisodeContext, Message, ModelResponse, ToolSchema
from mcptrials.models.scripted import ScriptedModel, ScriptError
from mcptrials.safety.loading import bounded, load_document

ROUND_STEPS = ("select", "apply", "tests")
"""The model steps of a round, by the name used for their replies."""


def step_of(messages: list[Message]) -> str:
    """Which round step a conversation belongs to, read from its system prompt's heading."""
    system = messages[0].content if messages and messages[0].role == "system" else ""
    for step in ROUND_STEPS:
        heading = load_prompt(f"{step}_system").splitlines()[0]
        if system.startswith(heading):
            return step
    raise ValueError("not a source-evolution prompt: the system message has no known step heading")


def as_reply(value: Any) -> str:
    """A reply text: strings are kept as they are, anything else is written as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def scripted_round_model(replies: Mapping[str, Sequence[Any] | Any], source: str = "source-round") -> ScriptedModel:
    """A ``ScriptedModel`` answering each step with its queued replies (a list plays one per attempt).

    ``replies`` maps ``select`` / ``apply`` / ``tests`` to a reply or a list of replies; each
    reply is a string (sent verbatim, so broken JSON can be scripted) or a JSON-able value.
    """
    queues: dict[str, list[str]] = {}
    for step, value in replies.items():
        if step not in ROUND_STEPS:
            raise ValueError(f"unknown step {step!r} (expected one of {', '.join(ROUND_STEPS)})")
        items = list(value) if isinstance(value, list | tuple) else [value]
        queues[step] = [as_reply(v) for v in items]
    asked: dict[str, int] = dict.fromkeys(ROUND_STEPS, 0)

    def answer(messages: list[Message], tools: list[ToolSchema], context: EpisodeContext) -> ModelResponse:
        step = step_of(messages)
        queue = queues.get(step)
        if not queue:
            return ModelResponse(text="", finish_reason="stop")
        index = min(asked[step], len(queue) - 1)
        asked[step] += 1
        return ModelResponse(text=queue[index], finish_reason="stop")

    return ScriptedModel(source=source, fn=answer)


def round_script_model(spec: str) -> ScriptedModel | None:
    """The scripted round model a ``scripted:FILE`` spec names when FILE holds round replies, else None.

    A file whose top level is a mapping of round steps is a round script; any other file is left
    to the ordinary scripted model (episode turns). A bad round script raises ``ScriptError``.
    """
    provider, _, name = spec.partition(":")
    if provider != "scripted" or not name or name == "reference" or not Path(name).is_file():
        return None
    data = bounded(load_document, ScriptError, Path(name), "script", yaml=True)
    if not isinstance(data, dict) or not data or not set(data) <= set(ROUND_STEPS):
        return None
    return scripted_round_model(data, source=name)
