"""Build an agent by name."""

from __future__ import annotations

from mcptrials.agents.base import Agent
from mcptrials.agents.react import ReactAgent
from mcptrials.agents.reference import ReferenceAgent

AGENTS = ("react", "reference", "stale")
MODEL_FREE = frozenset({"reference", "stale"})
"""Agents that play a fixed plan and need no model."""


def load_agent(name: str, *, max_turns: int = 20, max_episode_tokens: int | None = None,
               max_repeats: int = 3) -> Agent:
    """The agent called ``name`` with its limits; ValueError for an unknown name."""
    if name == "react":
        return ReactAgent(max_turns=max_turns, max_episode_tokens=max_episode_tokens, max_repeats=max_repeats)
    if name in {"reference", "stale"}:
        return ReferenceAgent(stale=name == "stale")
    raise ValueError(f"unknown agent {name!r} (known: {', '.join(AGENTS)})")
