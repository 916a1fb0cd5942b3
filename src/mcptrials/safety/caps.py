"""Bound every text an episode stores, so a runaway server or model cannot fill the database.

Tool results, structured content, model completions, error messages and client events are cut to the
run's ``--output-cap``; the final answer and tool-call arguments, which scoring reads whole, to the larger
of that and ``SCORED_CAP`` (1 MiB). The runner caps an episode before scoring it: what is stored is what
was scored.
"""

from __future__ import annotations

import json
from typing import Any

from mcptrials.model import Episode, ModelTurn, ToolCallRecord

SCORED_CAP = 1 << 20
MARKER_ROOM = 64
"""Bytes over the cap a text may keep: room for the truncation marker a connection already added, so a
result cut there is not cut again here (a replay of it would then differ from the recording)."""


def cap_text(text: str, cap: int) -> str:
    """``text`` cut to ``cap`` UTF-8 bytes with a marker saying how much there was (``MARKER_ROOM`` spare)."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= cap + MARKER_ROOM:
        return text
    kept = data[:cap].decode("utf-8", errors="ignore")
    return f"{kept}\n...[truncated: showing {cap} of {len(data)} bytes]"


def cap_json(value: Any, cap: int) -> Any:
    """``value`` unchanged when its JSON fits in ``cap`` bytes, else a marker holding a cut preview."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, dict) and value.get("_truncated") is True and set(value) == {"_truncated", "bytes", "preview"}:
        return value  # already cut (e.g. a recorded result served again by a replay): never cut twice
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= cap:
        return value
    return {"_truncated": True, "bytes": size, "preview": cap_text(text, cap)}


def cap_episode(episode: Episode, cap: int) -> Episode:
    """A copy of ``episode`` whose every stored text fits the caps (the same object when nothing is over)."""
    scored = max(cap, SCORED_CAP)
    steps: list[Any] = []
    for step in episode.steps:
        if isinstance(step, ModelTurn):
            calls = [c.model_copy(update={"raw_arguments": None if c.raw_arguments is None
                                          else cap_text(c.raw_arguments, scored),
                                          "arguments": cap_json(c.arguments, scored)})
                     for c in step.tool_calls]
            steps.append(step.model_copy(update={"text": cap_text(step.text, cap), "tool_calls": calls}))
        elif isinstance(step, ToolCallRecord):
            structured = cap_json(step.structured_content, cap)
            steps.append(step.model_copy(update={
                "content": cap_text(step.content, cap), "structured_content": structured,
                "arguments": cap_json(step.arguments, scored), "events": [cap_json(e, cap) for e in step.events],
                "truncated": step.truncated or structured is not step.structured_content,
            }))
        else:
            steps.append(step)
    infra = episode.infra_error
    return episode.model_copy(update={
        "steps": steps,
        "final_answer": cap_text(episode.final_answer, scored),
        "agent_error": None if episode.agent_error is None else cap_text(episode.agent_error, cap),
        "infra_error": None if infra is None else infra.model_copy(update={"message": cap_text(infra.message, cap)}),
    })
