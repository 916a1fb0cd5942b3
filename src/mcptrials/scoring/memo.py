"""Memos scoped to the episode being graded: work that several checks of one episode share is done
once, and nothing carries over to the next episode (so re-scoring copies of one episode gains
nothing from their sameness)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
_MISSING: Any = object()


class EpisodeMemo(Generic[K, V]):
    """Values by key, computed once while one episode is graded; at most ``limit`` kept."""

    def __init__(self, limit: int = 64) -> None:
        self._values: dict[K, V] = {}
        self._limit = limit
        _MEMOS.append(self)

    def get(self, key: K, compute: Callable[[], V]) -> V:
        found = self._values.get(key, _MISSING)  # one lookup: another grader may clear the memo meanwhile
        if found is _MISSING:
            if len(self._values) >= self._limit:
                self._values.clear()
            found = self._values[key] = compute()
        return found

    def clear(self) -> None:
        self._values.clear()


_MEMOS: list[EpisodeMemo[Any, Any]] = []


def forget_episode() -> None:
    """Drop every memo (called before grading each episode)."""
    for memo in _MEMOS:
        memo.clear()
