"""The mapping table on the terminal: counts per kind, then every item that was not mapped whole."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mcptrials.imports.common import Imported


def print_mapping(imported: Imported, console: Console) -> None:
    """Counts per kind, the rows partly mapped or dropped (with why), and what servers need to run."""
    counts = Table(title=f"import {imported.fmt}: {escape(imported.source)}")
    for column in ("kind", "mapped", "partial", "dropped"):
        counts.add_column(column, justify="left" if column == "kind" else "right")
    for kind, c in imported.counts().items():
        counts.add_row(kind, str(c["mapped"]), str(c["partial"]), str(c["dropped"]))
    console.print(counts)
    rows = [r for r in imported.rows if r.status != "mapped" or r.needs or r.reason]
    if rows:
        detail = Table(title="what did not map whole, and what servers need")
        for column in ("kind", "name", "status", "why", "needs"):
            detail.add_column(column, overflow="fold")
        for r in rows:
            detail.add_row(r.kind, escape(r.name), r.status, escape(r.reason), escape(r.needs))
        console.print(detail)
    console.print(f"wrote {', '.join(imported.written)}", highlight=False)
