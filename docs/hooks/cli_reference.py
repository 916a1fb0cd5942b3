"""MkDocs hook: render the CLI reference from the commands themselves.

The page ``reference/cli.md`` holds the marker ``<!-- cli-reference -->``; at build time it is
replaced by the plain ``--help`` text of every ``mcptrials`` command and sub-command, so the
reference cannot drift from the code. The help is produced in a child interpreter with
``TYPER_USE_RICH=0`` (typer then prints click's plain layout instead of rich panels).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

MARKER = "<!-- cli-reference -->"
PAGE = "reference/cli.md"

# Runs in a child interpreter: walks the command tree and prints [[path, short help, full help], ...] as JSON.
_WALK = r"""
import json, sys
import typer
from typer.testing import CliRunner
from mcptrials.cli import app

root = typer.main.get_command(app)
runner = CliRunner()
plain = {"TYPER_USE_RICH": "0", "COLUMNS": "100"}
found = []

def walk(command, path):
    for name in getattr(command, "commands", {}):  # the order they were registered in, as --help lists them
        sub = command.commands[name]
        if getattr(sub, "hidden", False):
            continue
        here = path + [name]
        result = runner.invoke(app, here + ["--help"], env=plain, prog_name="mcptrials")
        if result.exit_code != 0:
            sys.exit(f"mcptrials {' '.join(here)} --help exited {result.exit_code}: {result.output}")
        found.append([here, sub.get_short_help_str(120), result.output])
        walk(sub, here)

top = runner.invoke(app, ["--help"], env=plain, prog_name="mcptrials")
found.insert(0, [[], root.help or "", top.output])
walk(root, [])
print(json.dumps(found))
"""


def command_help() -> list[tuple[list[str], str, str]]:
    """Every command's path, one-line summary and full plain ``--help`` text, in tree order."""
    env = {**os.environ, "TYPER_USE_RICH": "0", "COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}
    done = subprocess.run([sys.executable, "-c", _WALK], env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"cannot render the CLI reference: {done.stderr.strip()[-2000:]}")
    return [(path, short, text) for path, short, text in json.loads(done.stdout)]


def anchor(path: list[str]) -> str:
    return "mcptrials" + "".join(f"-{part}" for part in path)


def render(entries: list[tuple[list[str], str, str]]) -> str:
    """Markdown: a table of every command, then one section per command with its ``--help``."""
    lines = ["| command | what it does |", "| --- | --- |"]
    for path, short, _ in entries[1:]:
        name = " ".join(["mcptrials", *path])
        lines.append(f"| [`{name}`](#{anchor(path)}) | {short.replace('|', '/')} |")
    lines.append("")
    for path, _, text in entries:
        name = " ".join(["mcptrials", *path])
        level = "##" if len(path) <= 1 else "###"
        lines += [f"{level} `{name}` {{#{anchor(path)}}}", "", "```text", text.rstrip(), "```", ""]
    return "\n".join(lines)


_cache: dict[str, str] = {}


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if page.file.src_uri != PAGE or MARKER not in markdown:
        return markdown
    if "text" not in _cache:
        _cache["text"] = render(command_help())
    return markdown.replace(MARKER, _cache["text"])
