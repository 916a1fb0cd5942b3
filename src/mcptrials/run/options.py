"""Turn ``run``'s agent-design and pool options into an agent and the tasks to run (checked before any episode)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import anyio

from mcptrials.agents.base import Agent
from mcptrials.agents.registry import load_agent
from mcptrials.model import ServerSpec, Task, ToolInfo
from mcptrials.run.offer import POOLS, OfferError, apply_distractors
from mcptrials.safety.tempdirs import temp_prefix


@dataclass
class DesignOptions:
    """The agent-design options of ``run``."""

    modules: str | None = None
    max_rounds: int = 20
    top_k: int = 5
    retriever: str = "bm25"
    retriever_base_url: str | None = None


def build_agent(name: str, options: DesignOptions, *, max_turns: int, max_episode_tokens: int | None,
                max_repeats: int) -> Agent:
    """The agent, with a copilot's retriever loaded and, for an embeddings endpoint, probed once.

    Raises AgentOptionError, ModuleError, RetrieverError, or ProviderError when the endpoint
    does not answer usably.
    """
    retriever = None
    if name == "copilot":
        from mcptrials.agents.retrieval import load_retriever, probe

        retriever = load_retriever(options.retriever, options.retriever_base_url)
        if options.retriever.startswith("openai:"):  # the offline retrievers have no endpoint to probe
            anyio.run(probe, retriever)
    return load_agent(name, max_turns=max_turns, max_episode_tokens=max_episode_tokens, max_repeats=max_repeats,
                      modules=options.modules, max_rounds=options.max_rounds, top_k=options.top_k,
                      retriever=retriever)


async def catalogue(specs: Mapping[str, ServerSpec]) -> list[ToolInfo]:
    """Every tool of every configured server (started once in a scratch sandbox).

    A server that does not start is an OfferError naming it: a catalogue without it would give
    other distractors (and another resume key) once it starts again.
    """
    import tempfile
    from pathlib import Path

    from mcptrials.servers.toolbox import open_toolbox

    with tempfile.TemporaryDirectory(prefix=temp_prefix("catalogue")) as tmp:
        sandbox = Path(tmp) / "sandbox"
        sandbox.mkdir()
        async with open_toolbox(list(specs.values()), sandbox) as box:
            failures = dict(box.failures)
            tools = [tool for conn in box.connections.values() for tool in conn.tools]
    if failures:  # raised outside the servers' task group, so it reaches the caller unwrapped
        raise OfferError(f"cannot list every tool for distractors or retrieval: {next(iter(failures.values()))}")
    return tools


def prepare_offer(specs: Mapping[str, ServerSpec], tasks: Sequence[Task], pool: str, distractors: int | None,
                  seed: int) -> tuple[list[Task], dict[str, int] | None, dict[str, str]]:
    """(tasks with run-time distractors, the distractor setting to record, per-task notes).

    Distractors are chosen on the original servers, before ``--stages`` rewrites the tasks, so
    every version offers the same distractors (as far as evolution kept them).
    """
    if pool not in POOLS:
        raise OfferError(f"unknown pool {pool!r} (known: {', '.join(POOLS)})")
    if not distractors:
        return list(tasks), None, {}
    if pool == "all":
        raise OfferError("--distractors adds tools to a task's own offer; --pool all already offers every tool")
    found = anyio.run(catalogue, specs)
    chosen, notes = apply_distractors(tasks, found, distractors, seed)
    return chosen, {"k": distractors, "seed": seed}, notes
