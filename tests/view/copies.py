"""Copy a stored run into a fresh store through the store's API, optionally under new ids (for tests that write)."""

from __future__ import annotations

from pathlib import Path

from mcptrials.model import Episode, Score
from mcptrials.store.db import Store


def copy_store(source: Path, target: Path | str) -> tuple[Store, list[Episode], dict[str, dict[str, Score]]]:
    """A new store at ``target`` holding every task, tool, run, episode and score of ``source``."""
    src = Store(source)
    episodes, scores, tasks, tools, runs = (list(src.episodes()), src.scores(), src.tasks(), src.tool_catalog(),
                                            src.runs())
    src.close()
    out = Store(target)
    out.save_tasks(tasks.values())
    out.save_tools(tools.values())
    for run in runs:
        out.save_run(run["id"], run["config_hash"], run["config"])
    for episode in episodes:
        out.save_episode(episode, list(scores.get(episode.id, {}).values()))
    return out, episodes, scores


def clone(episode: Episode, scores: dict[str, Score], new_id: str, attempt: int, **changes: object
          ) -> tuple[Episode, list[Score]]:
    """``episode`` (and its scores) under a new id and attempt number."""
    copy = episode.model_copy(update={"id": new_id, "attempt": attempt, **changes})
    return copy, [s.model_copy(update={"episode_id": new_id}) for s in scores.values()]
