"""The README is a short front door: under 250 lines, its docs links resolve, its example checks out."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from markdown_blocks import ROOT, blocks, command_env, expected_line_found, page

README = ROOT / "README.md"
QUICK_START = ('python3 -m venv .venv && . .venv/bin/activate && CMAKE_ARGS="-DGGML_NATIVE=OFF" '
               'pip install -e ".[local]" && mcptrials run')
TESTS = 'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install -e ".[dev,local]" && python -m pytest'


def test_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 250, f"README.md has {len(lines)} lines; move detail into docs/"


def test_readme_links_resolve() -> None:
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert any(link.startswith("docs/") for link in local)
    for link in local:
        path = link.split("#", 1)[0]
        assert (ROOT / path).is_file(), f"README links to {link}, which does not exist"
        if path.startswith("docs/"):
            assert path.endswith(".md"), f"README should link to a docs page, not {link}"


def test_readme_commands_are_the_agreed_ones() -> None:
    text = README.read_text(encoding="utf-8")
    commands = [b.text.strip() for b in blocks(text) if b.lang == "bash"]
    assert QUICK_START in commands
    assert TESTS in commands
    assert QUICK_START in page("getting-started/install.md") and TESTS in page("getting-started/install.md")


@pytest.mark.slow
def test_readme_example_checks_out(tmp_path: Path) -> None:
    found = blocks(README.read_text(encoding="utf-8"))
    config = next(b for b in found if b.lang == "json")
    tasks = next(b for b in found if b.lang == "yaml")
    server = next(b for b in blocks(page("getting-started/tutorial.md")) if b.title == "pantry_server.py")
    (tmp_path / "servers.json").write_text(config.text, encoding="utf-8")
    (tmp_path / "tasks.yaml").write_text(tasks.text, encoding="utf-8")
    (tmp_path / "pantry_server.py").write_text(server.text, encoding="utf-8")
    mcptrials = shutil.which("mcptrials", path=command_env()["PATH"])
    assert mcptrials is not None
    done = subprocess.run([mcptrials, "tasks", "check", "--servers", "servers.json", "--tasks", "tasks.yaml"],
                          cwd=tmp_path, env=command_env(), capture_output=True, text=True, timeout=300, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert expected_line_found("reference plans passing their own spec: 1/1", output), output
