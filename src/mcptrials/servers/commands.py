"""The logic behind ``servers list``, ``servers check --isolation`` and the ``--input`` option."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console

from mcptrials.console_text import PlainTable, plain
from mcptrials.model import ServerSpec, Task
from mcptrials.servers.config import ConfigError
from mcptrials.servers.health import Survey
from mcptrials.servers.toolbox import Limits


def parse_inputs(values: list[str] | None) -> dict[str, str]:
    """``--input NAME=VALUE`` options as a mapping; one clear error for a malformed one."""
    inputs: dict[str, str] = {}
    for item in values or []:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise ConfigError(f"--input {item!r}: expected NAME=VALUE (the id of a VS Code ${{input:NAME}})")
        inputs[name.strip()] = value
    return inputs


def print_listing(specs: dict[str, ServerSpec], listing: dict[str, Survey], fmt: str, out: Console,
                  err: Console) -> int:
    """Print ``servers list``; return the exit code (1 when a server failed to start).

    A server that needs an episode's sandbox to start is listed as such and is not a failure.
    """
    failed = {name: s.error for name, s in listing.items() if s.error is not None}
    waiting = {name: s.needs_sandbox for name, s in listing.items() if s.needs_sandbox is not None}
    payload: dict[str, Any] = {
        "servers": len(specs), "tools": sum(len(s.tools) for s in listing.values()), "failed": sorted(failed),
        "needs_episode_sandbox": sorted(waiting),
        "per_server": {name: {"status": "failed" if s.error else "needs_episode_sandbox" if s.needs_sandbox
                              else "ok", "error": s.error, "missing": s.needs_sandbox, "tools": len(s.tools),
                              "dynamism": specs[name].dynamism, "category": specs[name].category,
                              "tool_names": [t.name for t in s.tools],
                              "resources": [r["uri"] for r in s.extras.get("resources", [])],
                              "resource_templates": [r["uri_template"] for r in s.extras.get("resource_templates", [])],
                              "prompts": [p["name"] for p in s.extras.get("prompts", [])],
                              "not_offered": s.extras.get("not_offered", {})}
                       for name, s in listing.items()},
    }
    if fmt == "json":
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
    else:
        title = f"{payload['servers']} servers, {payload['tools']} tools"
        title += f", {len(failed)} failed" if failed else ""
        title += f", {len(waiting)} need an episode sandbox" if waiting else ""
        table = PlainTable(title=title, title_justify="left")
        for col in ("server", "status", "category", "dynamism", "tools", "resources", "prompts"):
            table.add_column(col)
        for name, info in payload["per_server"].items():
            status = {"failed": plain("FAILED", "red"), "ok": plain("ok", "green"),
                      "needs_episode_sandbox": plain("needs episode sandbox", "yellow")}[info["status"]]
            counts = ([str(info["tools"]), str(len(info["resources"]) + len(info["resource_templates"])),
                       str(len(info["prompts"]))] if info["status"] == "ok" else ["-", "-", "-"])
            table.add_row(name, status, str(info["category"] or "-"), info["dynamism"], *counts)
        out.print(table)
        for name, info in payload["per_server"].items():
            for tool, why in info["not_offered"].items():
                err.print(plain(name, "yellow") + plain(f": tool {tool!r} not offered: {why}"))
    for name, path in waiting.items():
        err.print(plain(name, "yellow") + plain(f": needs an episode sandbox: {path} does not exist outside "
                                                "an episode (a task's fixtures create it); not a failure"))
    for name, reason in failed.items():
        err.print(plain(name, "red") + plain(f": failed to start: {reason}"))
    return 1 if failed else 0


def run_isolation(specs: dict[str, ServerSpec], tasks: list[Task], limits: Limits, fmt: str, out: Console,
                  err: Console) -> int:
    """``servers check --isolation``: probe, print, return the exit code (1 when any server leaks state)."""
    import anyio
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from mcptrials.servers.isolation import probe

    progress = Progress(TextColumn("isolation probe"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.description}", markup=False), console=err, transient=True)
    bar = progress.add_task("", total=len(tasks))

    def on_task(task: Task) -> None:
        progress.update(bar, advance=1, description=task.id)

    with progress:
        leaks, problems, probed = anyio.run(probe, tasks, specs, limits, on_task)
    if fmt == "json":
        sys.stdout.write(json.dumps({"probed_tasks": probed, "leaks": [leak.as_dict() for leak in leaks],
                                     "problems": problems}, indent=2) + "\n")
    else:
        for leak in leaks:
            out.print(plain("LEAK", "red") + plain(f" {leak.line()}"))
        for problem in problems:
            err.print(plain("not probed", "yellow") + plain(f" {problem}"))
        servers = sorted({leak.server for leak in leaks})
        out.print(plain(f"isolation: {probed} stateful task(s) played twice in fresh episodes; "
                        + (f"state kept outside the sandbox by: {', '.join(servers)}" if servers
                           else "no server kept state")))
    return 1 if leaks or problems else 0
