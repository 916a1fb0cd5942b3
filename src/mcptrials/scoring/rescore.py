"""Re-grade stored episodes: a benchmark fix means re-scoring, never re-running."""

from __future__ import annotations

from collections.abc import Mapping

from mcptrials.model import Episode, Score, Task, ToolInfo, split_qualified
from mcptrials.scoring.effects import score_effects
from mcptrials.scoring.rules import score_rules
from mcptrials.store.db import Store, task_for


def offered_tools(episode: Episode, catalog: Mapping[str, ToolInfo]) -> dict[str, ToolInfo]:
    """The tools an episode was offered, looked up in the store's catalog by schema hash."""
    tools = {}
    for qualified, digest in episode.tool_hashes.items():
        info = catalog.get(f"{digest}:{split_qualified(qualified)[0]}")
        if info is not None:
            tools[qualified] = info
    return tools


def rescore(store: Store, tasks: Mapping[tuple[str, str], Task] | None = None) -> tuple[int, list[str]]:
    """Score every stored episode again; ``tasks`` ((id, version) -> task) overrides stored definitions.

    Returns the number re-scored and the ids of tasks that could not be found.
    """
    known = store.tasks()
    if tasks:
        store.save_tasks(tasks.values())
        known.update(tasks)
    catalog = store.tool_catalog()
    missing: set[str] = set()
    batch: list[tuple[Episode, list[Score]]] = []
    for episode in store.episodes():
        task = task_for(known, episode.task_id, episode.version)
        if task is None:
            missing.add(episode.task_id)
            continue
        tools = offered_tools(episode, catalog)
        batch.append((episode, [score_effects(task, episode, tools), score_rules(episode, tools)]))
    return store.replace_scores(batch), sorted(missing)
