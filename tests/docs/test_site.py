"""The docs site builds with ``mkdocs build --strict``: no broken link or anchor, every page in the nav."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_blocks import DOCS, ROOT, command_env


@pytest.mark.slow
def test_strict_build(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
                          cwd=ROOT, env={**command_env(), "NO_MKDOCS_2_WARNING": "1"}, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    pages = sorted(p.relative_to(DOCS).with_suffix("") for p in DOCS.rglob("*.md"))
    for name in pages:
        target = site / ("index.html" if name == Path("index") else name / "index.html")
        assert target.is_file(), f"{name}.md was not rendered"
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    for command in ("mcptrials run", "mcptrials tasks check", "mcptrials servers list", "mcptrials view"):
        assert f"Usage: {command} [OPTIONS]" in cli, f"the CLI reference lacks {command}"
    assert "--max-turns" in cli and "<!-- cli-reference -->" not in cli
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("load_servers", "load_tasks", "run_tasks", "build_report", "write_report", "export_results"):
        assert re.search(rf'id="mcptrials\.api\.{name}"', api), f"the API page lacks {name}"


def test_scoring_page_documents_claims_and_every_failure_code() -> None:
    from typing import get_args

    from mcptrials.model import FailureCode

    scoring = (DOCS / "guide" / "scoring.md").read_text(encoding="utf-8")
    assert "## Claims, conclusions and grounding" in scoring
    assert all(f"`{code}`" in scoring for code in get_args(FailureCode))
