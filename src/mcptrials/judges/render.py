"""Episodes, tools and checkpoints as plain text a judge model can read."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

from mcptrials.model import (
    CheckpointResult,
    Episode,
    ModelTurn,
    StateCheckpoint,
    Task,
    ToolCallRecord,
    ToolEffectCheckpoint,
    ToolInfo,
    ValueCheckpoint,
)

RESULT_CHARS = 1200
"""Each tool result is cut to this many characters in a judge prompt."""


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + f" ...[{len(text) - limit} more characters]"


def _args(call: ToolCallRecord) -> str:
    return json.dumps(call.arguments, sort_keys=True, ensure_ascii=False) if call.arguments is not None \
        else "(arguments were not a JSON object)"


def trajectory_text(episode: Episode, result_chars: int = RESULT_CHARS) -> str:
    """Every agent turn and tool call in order, numbered by step, results clipped."""
    lines: list[str] = []
    for step in episode.steps:
        if isinstance(step, ModelTurn):
            if step.role != "agent":
                continue
            if step.text.strip():
                lines.append(f"[step {step.index}] agent says: {_clip(step.text, 600)}")
            for call in step.tool_calls:
                lines.append(f"[step {step.index}] agent requests {call.name}")
        elif isinstance(step, ToolCallRecord):
            status = f"ERROR ({step.error_kind or 'tool_error'})" if step.is_error else "ok"
            lines.append(f"[step {step.index}] CALL {step.name} {_args(step)}")
            lines.append(f"    -> {status}: {_clip(step.content, result_chars)}")
    ending = {"done": "the agent stopped and answered", "max_turns": "the agent ran out of turns",
              "budget": "the token budget ran out", "agent_error": f"the agent was stopped ({episode.agent_error})",
              "infra_error": "infrastructure failed"}.get(episode.termination, episode.termination)
    lines.append(f"[end] {ending}; {len(episode.tool_calls)} tool call(s) in {len(episode.model_turns)} turn(s)")
    return "\n".join(lines) if lines else "(the agent did nothing)"


def final_answer_text(episode: Episode) -> str:
    return episode.final_answer.strip() or "(no final answer)"


def tool_names(episode: Episode, tools: Mapping[str, ToolInfo] | None) -> list[str]:
    """The qualified names of the tools the episode was offered."""
    return sorted(set(episode.tool_hashes) | set(tools or {}))


def tools_text(names: Sequence[str], tools: Mapping[str, ToolInfo] | None) -> str:
    """One line per tool: name, parameters and the first line of its description."""
    lines = []
    for name in names:
        info = (tools or {}).get(name)
        if info is None:
            lines.append(f"- {name}")
            continue
        params = ", ".join(info.input_schema.get("properties", {}) or {})
        description = (info.description or "").strip().splitlines()
        lines.append(f"- {name}({params}): {description[0] if description else ''}".rstrip(": "))
    return "\n".join(lines) if lines else "(no tools listed)"


def shuffled(items: Sequence[Any], rng: random.Random) -> list[Any]:
    out = list(items)
    rng.shuffle(out)
    return out


def checkpoint_text(task: Task, checkpoint_id: str, result: CheckpointResult | None) -> str:
    """What a checkpoint requires, in words plus its machine form, and why Tier-1 said it failed."""
    cp = next(c for c in task.spec.checkpoints if c.id == checkpoint_id)
    spec = cp.model_dump(mode="json", exclude_defaults=True)
    if isinstance(cp, ToolEffectCheckpoint):
        what = f"a successful call of one of {', '.join(cp.tool_names)} with arguments meeting the predicates"
    elif isinstance(cp, ValueCheckpoint):
        where = {"tool_result": "a tool result", "final_message": "the final answer",
                 "any": "a tool result or the final answer"}[cp.source]
        what = f"the required values stated in {where}"
    elif isinstance(cp, StateCheckpoint):
        what = f"the sandbox file {cp.path} left in the required state after the agent stopped"
    else:  # pragma: no cover - the union is closed
        what = "see the specification"
    lines = [f"Checkpoint {cp.id} ({cp.kind}): {what}."]
    if getattr(cp, "description", ""):
        lines.append(f"Its purpose: {cp.description}")
    lines.append(f"Specification: {json.dumps(spec, ensure_ascii=False)}")
    if result is not None:
        lines.append(f"Why the rule-based check failed it: {result.detail or result.failure}")
    return "\n".join(lines)


def state_text(episode: Episode, limit: int = 3000) -> str:
    """The sandbox snapshot stored with the episode (files the checkpoints read)."""
    if not episode.state:
        return "(no sandbox snapshot was stored)"
    return _clip(json.dumps(episode.state, ensure_ascii=False, indent=1, default=str), limit)
