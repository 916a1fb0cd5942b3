"""The objects handed between generation stages: a draft task, the trace that pursued it, a rejection."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from mcptrials.model import Episode, Fixtures, ToolInfo

Method = Literal["chains", "explore"]


@dataclass
class TaskDraft:
    """A task before distillation: the precise goal, the servers it uses and the world it runs in."""

    id: str
    goal: str
    """The precise request the explorer pursues; it becomes the task's ``concrete_prompt``."""
    servers: list[str]
    category: str
    method: Method
    prompt: str | None = None
    """The natural, less explicit request agents see; ``None`` until fuzzed (then ``goal`` is used)."""
    seed_tools: list[str] = field(default_factory=list)
    """Qualified tools the goal was built around (for chains: the dependency chain, in order)."""
    dependency_analysis: str | None = None
    now: datetime | None = None
    fixtures: Fixtures = field(default_factory=Fixtures)
    provenance: dict[str, Any] = field(default_factory=dict)


@dataclass
class Trace:
    """One recorded pursuit of a draft: the episode, the tools offered, the sandbox before and after."""

    episode: Episode
    tools: dict[str, ToolInfo]
    before: dict[str, Any]
    """Snapshot of the sandbox before the first call that writes (or at start when none does):
    ``{"files": {path: {size, sha256, text?}}, "sqlite": {path: {table: {columns, rows, pk}}}}``
    (``trace.snapshot``; text for small text files, a digest for the rest)."""
    after: dict[str, Any]
    """Snapshot after the servers stopped (same shape)."""


class Rejected(Exception):
    """A candidate dropped at ``stage`` for ``reason``; the yield report counts these per stage."""

    def __init__(self, stage: str, reason: str) -> None:
        super().__init__(f"{stage}: {reason}")
        self.stage = stage
        self.reason = reason
