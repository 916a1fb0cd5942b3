"""Build an agent by name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcptrials.agents.base import Agent
from mcptrials.agents.react import ReactAgent
from mcptrials.agents.reference import ReferenceAgent

if TYPE_CHECKING:
    from mcptrials.agents.retrieval import ToolRetriever

AGENTS = ("react", "planner", "copilot", "reference", "stale")
MODEL_FREE = frozenset({"reference", "stale"})
"""Agents that play a fixed plan and need no model."""


class AgentOptionError(ValueError):
    """An agent option that does not fit the agent (e.g. modules on the planner, top-k of 0)."""


def load_agent(name: str, *, max_turns: int = 20, max_episode_tokens: int | None = None,
               max_repeats: int = 3, modules: str | None = None, max_rounds: int = 20, top_k: int = 5,
               retriever: ToolRetriever | None = None) -> Agent:
    """The agent called ``name`` with its limits; ValueError for an unknown name or an option that does not fit."""
    from mcptrials.agents.modules import parse_modules

    chosen = parse_modules(modules)
    if chosen and name != "react":
        raise AgentOptionError(f"--modules are options of the react agent, not of {name!r}")
    if name == "react":
        return ReactAgent(max_turns=max_turns, max_episode_tokens=max_episode_tokens, max_repeats=max_repeats,
                          modules=chosen, name="+".join(["react", *chosen]))
    if name == "planner":
        from mcptrials.agents.planner import PlannerAgent

        if max_rounds < 1:
            raise AgentOptionError(f"--max-rounds must be at least 1 (got {max_rounds})")
        return PlannerAgent(max_rounds=max_rounds, max_episode_tokens=max_episode_tokens, max_repeats=max_repeats)
    if name == "copilot":
        from mcptrials.agents.copilot import CopilotAgent
        from mcptrials.agents.retrieval import load_retriever

        if top_k < 1:
            raise AgentOptionError(f"--top-k must be at least 1 (got {top_k})")
        return CopilotAgent(retriever=retriever or load_retriever("bm25"), top_k=top_k, max_turns=max_turns,
                            max_episode_tokens=max_episode_tokens, max_repeats=max_repeats)
    if name in {"reference", "stale"}:
        return ReferenceAgent(stale=name == "stale")
    raise ValueError(f"unknown agent {name!r} (known: {', '.join(AGENTS)})")
