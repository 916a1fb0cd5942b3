"""Help that matches the commands: every option says what it does, `run --help` groups its options by purpose,
and group help names only subcommands that exist."""

from __future__ import annotations

import re
from typing import Any

import typer.main
from typer.testing import CliRunner

from mcptrials.cli import app

RUN_PANELS = ("Model", "Agent", "Tasks and servers", "Limits and budget", "Store and resume", "Judges", "Scale-out")


# typer may carry its own copy of click, so commands and parameters are told apart by what they have


def _is_group(command: Any) -> bool:
    return isinstance(getattr(command, "commands", None), dict)


def _options(command: Any) -> list[Any]:
    return [p for p in command.params if p.param_type_name == "option"]


def _commands(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    found: list[tuple[tuple[str, ...], Any]] = []
    for name, command in group.commands.items():
        found.append(((*prefix, name), command))
        if _is_group(command):
            found += _commands(command, (*prefix, name))
    return found


def _root() -> Any:
    root = typer.main.get_command(app)
    assert _is_group(root)
    return root


def test_every_option_of_every_command_has_help() -> None:
    missing = [f"{' '.join(path)} {param.opts[0]}"
               for path, command in _commands(_root()) for param in _options(command)
               if not (param.help or "").strip()]
    assert missing == []


def test_every_argument_of_every_command_has_help() -> None:
    missing = [f"{' '.join(path)} {param.name}"
               for path, command in _commands(_root()) for param in command.params
               if param.param_type_name == "argument" and not (getattr(param, "help", None) or "").strip()]
    assert missing == []


def test_run_groups_its_options_in_panels() -> None:
    run = _root().commands["run"]
    panels = {getattr(param, "rich_help_panel", None) for param in _options(run)}
    assert None not in panels, "an option of run is outside every panel"
    assert panels == set(RUN_PANELS)
    shown = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "120", "TERM": "dumb"})
    assert shown.exit_code == 0
    titles = [title for title in RUN_PANELS if re.search(rf"╭─ {re.escape(title)} ─", shown.output)]
    assert titles == list(RUN_PANELS)  # in this order: what to run with first, where it goes last


def test_group_help_names_only_real_subcommands() -> None:
    root = _root()
    for path, command in _commands(root):
        if not _is_group(command):
            continue
        said = (command.help or "").lower()
        for verb in re.findall(r"[a-z]+", said.split(".")[0]):
            if verb in {"validate", "lint", "verify"}:
                assert verb in command.commands, f"`{' '.join(path)}` help mentions {verb!r}, not a subcommand"


def test_servers_option_names_the_bundled_default() -> None:
    run = _root().commands["run"]
    servers = next(p for p in _options(run) if "--servers" in p.opts)
    assert "bundled" in (servers.help or "")


def test_python_dash_m_runs_the_same_command_line() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "mcptrials", "bench", "retrieval", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "--retriever" in done.stdout
