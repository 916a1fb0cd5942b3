"""Build an agent by name."""

from __future__ import annotations

from mcptrials.agents.base import Agent
from mcptrials.agents.react import ReactAgent
from mcptrials.agents.reference import ReferenceAgent

AGENTS = ("react", "reference")


def load_agent(name: str, *, max_turns: int = 20, max_episode_tokens: int | None = None) -> Agent:
    """The agent called ``name`` with its limits; ValueError for an unknown name."""
    if name == "react":
        return ReactAgent(max_turns=max_turns, max_episode_tokens=max_episode_tokens)
    if name == "reference":
        return ReferenceAgent()
    raise ValueError(f"unknown agent {name!r} (known: {', '.join(AGENTS)})")
