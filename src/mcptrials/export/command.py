"""`mcptrials export`: stored results written as inspect_ai logs or JSONL, from the same report dict."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mcptrials.report.summary import build_report
from mcptrials.report.write import OutputError

if TYPE_CHECKING:
    from mcptrials.store.db import Store

FORMATS = ("inspect", "jsonl")


def export(store: Store, fmt: str, out: Path | None) -> tuple[int, list[Path]]:
    """Export every stored episode; return (episodes exported, files written)."""
    if fmt not in FORMATS:
        raise OutputError(f"unknown export format {fmt!r} ({', '.join(FORMATS)})")
    episodes = list(store.episodes())
    scores = store.scores()
    tasks = store.tasks()
    report = build_report(episodes, scores, tasks)
    if fmt == "inspect":
        from mcptrials.export.inspect_logs import InspectMissing, export_inspect

        if out is None:
            raise OutputError("--format inspect needs --out DIR (a folder for the .eval logs)")
        if out.exists() and not out.is_dir():
            raise OutputError(f"--out {out}: is a file (give a folder for the .eval logs)")
        try:
            from mcptrials.servers.blobs import BlobStore

            return len(episodes), export_inspect(episodes, scores, tasks, report, out, BlobStore.beside(store.url))
        except InspectMissing as exc:
            raise OutputError(str(exc)) from None
    from mcptrials.export.jsonl import export_jsonl, write_jsonl

    rows = {r["episode_id"]: r for r in report["episodes"]}
    if out is None:
        return write_jsonl(episodes, scores, rows, sys.stdout), []
    try:
        count = export_jsonl(episodes, scores, rows, out)
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from None
    return count, [out / "episodes.jsonl" if out.is_dir() else out]
