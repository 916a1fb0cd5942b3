"""Progress-bar columns for `mcptrials run`: time left, and what running episodes are doing now."""

from __future__ import annotations

from rich.progress import ProgressColumn, Task, TimeRemainingColumn
from rich.text import Text

from mcptrials import activity


class EtaColumn(TimeRemainingColumn):
    """Time left from the episodes finished so far ("ETA -:--:--" until the first one ends)."""

    def render(self, task: Task) -> Text:
        left = super().render(task)
        return Text(f"ETA {left.plain}", style="progress.remaining")


class ActivityColumn(ProgressColumn):
    """Running episodes' current turn and tool call, and notes such as the weights being joined and checked."""

    max_refresh = 0.5

    def render(self, task: Task) -> Text:
        return Text(activity.describe() if not task.finished else "", style="cyan", overflow="ellipsis",
                    no_wrap=True)
