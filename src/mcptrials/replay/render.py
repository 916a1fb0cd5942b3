"""Show refreshes, the decay curve and replayed runs: terminal tables, JSON, and refreshed task files."""

from __future__ import annotations

import difflib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console

from mcptrials.console_text import PlainTable, plain
from mcptrials.model import Task
from mcptrials.replay.recording import ReplayError
from mcptrials.replay.refresh import CLASSES, TaskRefresh
from mcptrials.store.db import Store


def refresh_summary(items: list[TaskRefresh], refresh_id: str | None) -> dict[str, Any]:
    """Counts and per-task reasons (``refresh --format json``)."""
    counts = {c: sum(i.verdict == c for i in items) for c in CLASSES}
    return {"refresh_id": refresh_id, "tasks": len(items), "counts": counts,
            "no_baseline": sum(i.baseline == "none" for i in items),
            "per_task": [i.as_dict() for i in items]}


def _task_text(task: Task) -> list[str]:
    return json.dumps(task.model_dump(mode="json", exclude_none=True), indent=2, sort_keys=True,
                      ensure_ascii=False).splitlines(keepends=True)


def task_diff(old: Task, new: Task) -> str:
    """A unified diff of a task's values before and after a refresh (its baseline block left out)."""
    def clean(task: Task) -> Task:
        return task.model_copy(update={"provenance": {k: v for k, v in task.provenance.items() if k != "refresh"}})

    return "".join(difflib.unified_diff(_task_text(clean(old)), _task_text(clean(new)),
                                        fromfile=f"{old.id} (before)", tofile=f"{new.id} (refreshed)"))


def write_tasks(path: Path, originals: list[Task], items: list[TaskRefresh]) -> None:
    """Write the refreshed suite as JSONL: each task with its new baseline and values; broken ones as they were."""
    by_id = {i.task_id: i for i in items}
    lines = []
    for task in originals:
        found = by_id.get(task.id)
        chosen = found.task if found is not None and found.task is not None else task
        lines.append(chosen.model_dump_json(exclude_none=True) + "\n")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(lines), encoding="utf-8")
    except OSError as exc:
        raise ReplayError(f"--out {path}: cannot write the refreshed tasks ({exc.strerror})") from None


def print_refresh(items: list[TaskRefresh], originals: list[Task], console: Console) -> None:
    """The per-task table, the diffs of drifted tasks, and the counts."""
    table = PlainTable(title="Refresh: each task's reference plan on today's servers", title_justify="left")
    for column in ("task", "class", "baseline", "patterns", "reason"):
        table.add_column(column, overflow="fold")
    for item in items:
        colour = {"identical": "green", "drifted": "yellow", "broken": "red"}[item.verdict]
        table.add_row(item.task_id, plain(item.verdict, colour), item.baseline,
                      ",".join(item.patterns) or "-", "; ".join(item.reasons)[:300] or "-")
    console.print(table)
    old = {t.id: t for t in originals}
    for item in items:
        if item.verdict == "drifted" and item.task is not None and item.updates:
            console.print(task_diff(old[item.task_id], item.task), highlight=False, markup=False)
    changed = {c["tool"]: c for i in items for c in i.interface}
    if changed:
        console.print(plain("interface changes since the baseline: " + "; ".join(
            f"{name} {c['status']} ({','.join(c['patterns']) or 'no pattern'})"
            for name, c in sorted(changed.items()))))
    counts = Counter(i.verdict for i in items)
    console.print(" ".join(f"{c} {counts.get(c, 0)}" for c in CLASSES) + f" of {len(items)} task(s)")


def print_decay(rows: list[dict[str, Any]], console: Console) -> None:
    """The decay curve as a table: one row per stored refresh."""
    if not rows:
        console.print("No refreshes stored yet (run `mcptrials refresh --db ...`).")
        return
    table = PlainTable(title="Benchmark decay: tasks still identical, drifted, broken per refresh",
                       title_justify="left")
    for column in ("refresh", "when", "label", "tasks", "identical", "drifted", "broken"):
        table.add_column(column, justify="right" if column in {"tasks", *CLASSES} else "left")
    for row in rows:
        f = row["fractions"]
        table.add_row(row["id"], row["created_at"], row["label"], str(row["tasks"]),
                      *(f"{100 * f[c]:.0f}% ({row['counts'].get(c, 0)})" for c in CLASSES))
    console.print(table)


def replayed_runs(store: Store) -> list[dict[str, Any]]:
    """Runs made under replay, with what they replayed and how their calls were answered."""
    out = []
    for run in store.runs():
        replay = run["config"].get("replay")
        if not isinstance(replay, dict):
            continue
        answered: Counter[str] = Counter()
        episodes = 0
        for episode in store.episodes(run["id"]):
            episodes += 1
            answered.update(c.replay or "none" for c in episode.tool_calls)
        out.append({"run_id": run["id"], "source_runs": replay.get("source_runs"), "on_miss": replay.get("on_miss"),
                    "episodes": episodes, "calls": dict(answered)})
    return out


def print_replayed(rows: list[dict[str, Any]], console: Console) -> None:
    """One line per replayed run."""
    for row in rows:
        calls = ", ".join(f"{k} {v}" for k, v in sorted(row["calls"].items())) or "no calls"
        console.print(plain(f"run {row['run_id']} is a REPLAY of {', '.join(row['source_runs'] or [])} "
                            f"(--on-miss {row['on_miss']}): {row['episodes']} episode(s); calls answered: {calls}"))
