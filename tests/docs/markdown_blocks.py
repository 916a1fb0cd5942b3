"""Fenced code blocks of a Markdown page, and the helpers the docs tests share."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

_OPEN = re.compile(r"^(?P<indent>[ ]*)```(?P<lang>[\w+-]*)(?P<attrs>[^`]*)$")
_TITLE = re.compile(r'title="(?P<title>[^"]+)"')
_COMMENT = re.compile(r"<!--.*?-->", re.S)


@dataclass
class Block:
    """One fenced block: its language, its ``title="..."`` (a file name) if any, its text and first line."""

    lang: str
    title: str | None
    text: str
    line: int


def blocks(markdown: str) -> list[Block]:
    """Every fenced block in document order (HTML comments are ignored; indented fences are dedented)."""
    markdown = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), markdown)
    found: list[Block] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        opened = _OPEN.match(lines[i])
        if not opened:
            i += 1
            continue
        indent = len(opened["indent"])
        title = _TITLE.search(opened["attrs"])
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        if j == len(lines):
            raise AssertionError(f"unclosed code block opened at line {i + 1}")
        found.append(Block(opened["lang"], title["title"] if title else None, "\n".join(body) + "\n", i + 1))
        i = j + 1
    return found


def page(relative: str) -> str:
    return (DOCS / relative).read_text(encoding="utf-8")


def command_env() -> dict[str, str]:
    """The environment commands of the docs run in: this interpreter's scripts first on PATH, plain wide output."""
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""), "COLUMNS": "200",
           "NO_COLOR": "1", "TERM": "dumb"}
    env.pop("VIRTUAL_ENV", None)
    return env


def expected_line_found(expected: str, output: str) -> bool:
    """Does some output line hold ``expected``? Runs of blanks compare equal; ``...`` matches anything."""
    pattern = ".*?".join(re.escape(" ".join(part.split())) for part in expected.split("..."))
    return any(re.search(pattern, " ".join(line.split())) for line in output.splitlines())
