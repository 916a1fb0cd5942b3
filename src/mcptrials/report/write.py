"""Render a report dict in a file format and write it to a file or stdout."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from mcptrials.console_text import plain


class OutputError(ValueError):
    """A report or export that cannot be written where asked."""


def rendered(report: dict[str, Any], fmt: str, source: str = "") -> str:
    """``report`` as json, csv or html text (every format from the same dict); ``source`` (the store's path or
    URL, shown in the html header) is masked here, so no caller can print a password."""
    from mcptrials.report.render import render_csv, render_json

    if fmt == "json":
        return render_json(report) + "\n"
    if fmt == "csv":
        return render_csv(report)
    if fmt == "html":
        from mcptrials.report.html import render_html
        from mcptrials.safety.urls import masked_url

        return render_html(report, source=f"from {masked_url(source)}" if source else "")
    raise OutputError(f"unknown format {fmt!r} (table, json, csv, html)")


def write_output(text: str, path: Path | None, console: Console) -> None:
    """Write ``text`` to ``path`` (parents created), or to stdout without one; say where it went."""
    if path is None:
        sys.stdout.write(text)
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    console.print(plain(f"wrote {path} ({len(text.encode()) / 1e6:.1f} MB)" if len(text) > 1e6 else f"wrote {path}"))
