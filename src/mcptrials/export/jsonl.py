"""Stored episodes as JSONL: one line per episode, the whole episode with its scores and report row."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from mcptrials.model import Episode, Score


def episode_record(episode: Episode, scores: Mapping[str, Score], row: Mapping[str, Any]) -> dict[str, Any]:
    """An episode, every score of it, and its flat report row (outcome, failure codes, ...)."""
    return {"episode": episode.model_dump(mode="json"),
            "scores": {name: s.model_dump(mode="json") for name, s in sorted(scores.items())},
            "row": dict(row)}


def write_jsonl(episodes: Iterable[Episode], scores: Mapping[str, Mapping[str, Score]],
                rows: Mapping[str, Mapping[str, Any]], sink: IO[str]) -> int:
    """Write one JSON line per episode to ``sink``; return how many."""
    count = 0
    for episode in episodes:
        sink.write(json.dumps(episode_record(episode, scores.get(episode.id, {}), rows.get(episode.id, {})),
                              default=str) + "\n")
        count += 1
    return count


def export_jsonl(episodes: Iterable[Episode], scores: Mapping[str, Mapping[str, Score]],
                 rows: Mapping[str, Mapping[str, Any]], out: Path) -> int:
    """Write ``out`` (a file, or ``episodes.jsonl`` in a folder); return the episode count."""
    path = out / "episodes.jsonl" if out.is_dir() else out
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as sink:
        return write_jsonl(episodes, scores, rows, sink)
