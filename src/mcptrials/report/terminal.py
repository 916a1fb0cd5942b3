"""Per-episode rows for the terminal (``report --episodes``), one table per model x agent."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from mcptrials.console_tables import fitted_table
from mcptrials.console_text import plain
from mcptrials.model import Task

EPISODE_COLUMNS = ("task", "version", "attempt", "outcome", "failure codes", "calls", "turns")


def episode_rows(episodes: list[dict[str, Any]]) -> list[list[str | Text]]:
    """One table row per episode: task, version, attempt, outcome, failure codes (or infra error), calls, turns.

    An infra-error episode shows its infra error kind: the scorer's codes on it (the sandbox was never
    touched) are not the agent's failures.
    """
    def why(e: dict[str, Any]) -> str:
        if e["outcome"] == "infra_error":
            return str(e["infra_error"] or "infra_error")
        return ", ".join(e["failure_codes"]) or "-"

    def outcome(e: dict[str, Any]) -> str:
        judged = e.get("verdict") == "judged" and e["outcome"] in {"passed", "failed"}
        return f"{e['outcome']} (judged)" if judged else e["outcome"]

    return [[e["task_id"], e["version"], str(e["attempt"]), outcome(e), why(e), str(e["tool_calls"]),
             str(e["turns"])] for e in episodes]


def print_episodes(episodes: list[dict[str, Any]], console: Console) -> None:
    """Every episode as one row, one table per model x agent (``mcptrials explain CODE`` says what a code means)."""
    colour = {"passed": "green", "failed": "red", "infra_error": "yellow", "unjudged": "yellow"}
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for e in episodes:
        groups.setdefault((e["model"], e["agent"]), []).append(e)
    for (model, agent), mine in sorted(groups.items()):
        rows = episode_rows(mine)
        for row in rows:
            row[3] = plain(row[3], colour.get(str(row[3]).split(" ")[0], "white"))
        console.print(fitted_table(f"Episodes of {model} / {agent} ({len(rows)})", EPISODE_COLUMNS, rows,
                                   ids=("task", "outcome", "version"), right=("attempt", "calls", "turns"),
                                   width=console.width))
    if any(e["failure_codes"] for e in episodes):
        console.print("`mcptrials explain CODE` says what a failure code means.")


def task_id_rows(tasks: list[Task]) -> list[dict[str, Any]]:
    """Each task's id, category, chain length (stratum and reference steps) and servers."""
    return [{"id": t.id, "category": t.category, "chain_length": t.chain_length, "steps": len(t.reference),
             "servers": t.servers} for t in tasks]


def print_task_ids(tasks: list[Task], console: Console) -> None:
    """The tasks as a table, one row each."""
    rows = [[r["id"], r["category"], f"{r['chain_length']} ({r['steps']})", ", ".join(r["servers"])]
            for r in task_id_rows(tasks)]
    console.print(fitted_table(f"{len(rows)} tasks", ("id", "category", "chain length (steps)", "servers"), rows,
                               ids=("id", "category"), width=console.width))


def print_codes(console: Console) -> None:
    """Every code, one table per family (failure codes, error kinds, operators, patterns): code | name: meaning.

    The name goes in front of its meaning (not a column of its own) so the meaning keeps most of an
    80-column terminal instead of wrapping two words a line.
    """
    from mcptrials.report.codes import all_codes

    families: dict[str, list[list[str | Text]]] = {}
    for c in all_codes():
        family = "operators" if c.family.startswith("operator") else c.family + "s"
        level = f" ({c.family[c.family.index('(') + 1:-1]})" if c.family.startswith("operator (") else ""
        families.setdefault(family, []).append([c.code, Text.assemble((c.name, "bold"), f"{level}: {c.meaning}")])
    for family, rows in families.items():
        console.print(fitted_table(f"{family.capitalize()} ({len(rows)})", ("code", "meaning"), rows,
                                   ids=("code",), width=console.width))
