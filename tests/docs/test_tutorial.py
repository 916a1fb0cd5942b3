"""The tutorial runs as written: its files are written, its commands run in order and print what it says."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from markdown_blocks import Block, blocks, command_env, expected_line_found, page

TUTORIAL = "getting-started/tutorial.md"


def _commands_and_expectations(found: list[Block]) -> list[tuple[Block, Block | None]]:
    steps: list[tuple[Block, Block | None]] = []
    for i, block in enumerate(found):
        if block.lang == "bash":
            following = found[i + 1] if i + 1 < len(found) else None
            steps.append((block, following if following is not None and following.lang == "text" else None))
    return steps


def test_tutorial_blocks_are_well_formed() -> None:
    found = blocks(page(TUTORIAL))
    titled = {b.title for b in found if b.title}
    assert {"pantry_server.py", "servers.json", "tasks.yaml", "alternatives.yaml"} <= titled
    not_run = [b for b in found if b.lang == "sh"]
    assert "pip install" in not_run[0].text, "the first shown-but-not-run block is the install"
    for block in not_run:  # only the install and real-model commands are left out of the test
        assert "pip install" in block.text or "--model" in block.text, f"line {block.line}: an sh block that is not run"
    assert all(b.lang in {"bash", "sh", "text", "python", "json", "yaml"} for b in found)


@pytest.mark.slow
def test_tutorial_runs(tmp_path: Path) -> None:
    found = blocks(page(TUTORIAL))
    env = command_env()
    ran = 0
    steps = dict((id(c), e) for c, e in _commands_and_expectations(found))
    for block in found:
        if block.title:
            (tmp_path / block.title).write_text(block.text, encoding="utf-8")
        if block.lang != "bash":
            continue
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.text], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600, check=False)
        output = done.stdout + done.stderr
        assert done.returncode == 0, f"tutorial line {block.line}: exit {done.returncode}\n{block.text}\n{output}"
        expected = steps[id(block)]
        if expected is not None:
            for line in expected.text.splitlines():
                if line.strip():
                    assert expected_line_found(line, output), (
                        f"tutorial line {block.line}: output lacks {line!r}\n{block.text}\n{output}")
        ran += 1
    assert ran >= 6
    assert (tmp_path / "results.db").is_file()
    assert (tmp_path / "report.html").stat().st_size > 0
