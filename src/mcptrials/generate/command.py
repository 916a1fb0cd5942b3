"""``mcptrials generate``: load the world, run the pipeline under a progress bar, write tasks and the yield report."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from mcptrials.console_text import PlainTable, plain
from mcptrials.generate.ledger import Ledger, LedgerError
from mcptrials.generate.pipeline import (
    Distiller,
    GenerateConfig,
    Generator,
    World,
    alternatives_path,
    ledger_path,
    write_outputs,
    yield_report,
)
from mcptrials.model import ServerSpec
from mcptrials.models.base import ChatModel
from mcptrials.safety.loading import bounded, read_text
from mcptrials.safety.lockfile import LockHeldError, hold_lock_file

MAX_FIXTURE_BYTES = 256_000


class GenerateError(ValueError):
    """A generate setting that cannot be used (printed as one line)."""


def read_fixtures(folder: Path | None) -> dict[str, str]:
    """Every text file under ``folder`` (relative path -> text), to put in each candidate's workspace."""
    if folder is None:
        return {}
    if not folder.is_dir():
        raise GenerateError(f"--fixtures {folder}: not a folder")
    files: dict[str, str] = {}
    total = 0
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        text = bounded(read_text, GenerateError, path, "--fixtures file")
        total += len(text.encode())
        if total > MAX_FIXTURE_BYTES:
            raise GenerateError(f"--fixtures {folder}: more than {MAX_FIXTURE_BYTES} bytes of files")
        files[rel] = text
    return files


@dataclass
class _View:
    """The progress bar: candidates made, kept so far, the last drop."""

    progress: Progress
    target: int
    kept: int = 0
    made: int = 0
    bar: Any = None

    def __call__(self, kind: str, record: dict[str, Any] | None) -> None:
        if kind == "start":
            self.bar = self.progress.add_task("generating", total=self.target, note="")
            return
        if record is None:
            return
        self.made += 1
        if record["outcome"] == "kept":
            self.kept += 1
            self.progress.advance(self.bar)
        note = "" if record["outcome"] == "kept" else f"last drop: {record['stage']}: {(record['reason'] or '')[:60]}"
        replayed = " (resumed)" if kind == "replayed" else ""
        self.progress.update(self.bar, description=f"kept {self.kept}, candidates {self.made}{replayed}", note=note)


async def generate_command(specs: Mapping[str, ServerSpec], config: GenerateConfig, chat: ChatModel, out: Path,
                           console: Console, distiller: Distiller | None = None) -> dict[str, Any]:
    """Run generation for ``config`` and write ``out``, its alternatives and ``<out>.yield.json``; the report.

    One generation at a time per ``out`` (a second is refused: it would pay for every request again).
    """
    try:
        with hold_lock_file(lock_path(out), f"a generation into {out}"):
            return await _generate(specs, config, chat, out, console, distiller)
    except (LockHeldError, LedgerError) as exc:
        raise GenerateError(str(exc)) from None


def lock_path(out: Path) -> Path:
    """The run lock beside the output: ``tasks.jsonl`` -> ``tasks.gen.lock``."""
    return out.with_name(f"{out.stem}.gen.lock")


async def _generate(specs: Mapping[str, ServerSpec], config: GenerateConfig, chat: ChatModel, out: Path,
                    console: Console, distiller: Distiller | None) -> dict[str, Any]:
    ledger = Ledger(ledger_path(out))
    try:
        world = await World.load(specs)
        if not world.tools:
            raise GenerateError("none of the configured servers listed any tool (check `mcptrials servers check`)")
        progress = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), TextColumn("{task.fields[note]}", markup=False), console=console,
                            transient=False)
        view = _View(progress, config.n)
        generator = Generator(world, config, chat, ledger, distiller, view)
        with progress:
            records = await generator.run()
        tasks, alternatives = write_outputs(records, out)
        report = {"method": config.method, "model": chat.spec, "seed": config.seed, "requested": config.n,
                  "candidate_budget": config.budget, "servers": sorted(specs), "tools": len(world.tools),
                  "dependency_edges": len(world.edges),
                  "cross_server_edges": sum(e.cross_server for e in world.edges),
                  **yield_report(config.method, records), "usage": generator.chat.spend.as_dict(ledger),
                  "out": str(out), "alternatives": str(alternatives_path(out)), "tasks_written": tasks,
                  "alternatives_written": alternatives, "ledger": str(ledger.path)}
        out.with_name(f"{out.stem}.yield.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        return report
    finally:
        ledger.close()


def print_report(report: dict[str, Any], console: Console) -> None:
    """The yield report as a table per stage, then usage and where things went."""
    table = PlainTable(title=f"{report['method']} with {report['model']}: kept {report['kept']}/{report['requested']} "
                        f"from {report['candidates']} candidate(s)", title_justify="left")
    for col in ("stage", "entered", "passed", "dropped (reason: count)"):
        table.add_column(col, justify="right" if col in {"entered", "passed"} else "left")
    for row in report["stages"]:
        reasons = "; ".join(f"{why}: {n}" for why, n in row["dropped"].items())
        table.add_row(row["stage"], str(row["entered"]), str(row["passed"]), reasons or "-")
    console.print(table)
    usage = report["usage"]
    console.print(f"this run: {usage['model_requests']} model request(s), {usage['replayed_from_ledger']} answered "
                  f"from the ledger, cost ${usage['new_cost_usd']:.4f}; all runs of this output: "
                  f"{usage['ledger_requests']} request(s), {usage['prompt_tokens']} tokens in / "
                  f"{usage['completion_tokens']} out, cost ${usage['cost_usd']:.4f}")
    console.print(f"tools {report['tools']}, dependency edges {report['dependency_edges']} "
                  f"({report['cross_server_edges']} cross-server)")
    console.print(plain(f"{report['tasks_written']} task(s) -> {report['out']}; {report['alternatives_written']} "
                        f"alternative(s) -> {report['alternatives']}; ledger {report['ledger']}"))
