"""`mcptrials evolve --mode source` end to end: a model whose replies are unusable gets every round rejected."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from typer.testing import CliRunner

from mcptrials.cli import app
from mcptrials.evolve.source.tree import source_server_for
from mcptrials.model import ServerSpec


def test_source_mode_rejects_unusable_replies_cleanly(tmp_path: Path) -> None:
    out = tmp_path / "units-src"
    result = CliRunner().invoke(app, ["evolve", "--server", "units", "--mode", "source", "--rounds", "1",
                                      "--model", "scripted:reference", "--out", str(out)])
    assert result.exit_code == 0, result.output
    lineage = json.loads((out / "lineage.json").read_text())
    assert lineage["rounds"][0]["version"] is None and lineage["rounds"][0]["rejections"]
    assert (out / "v0" / "manifest.json").is_file() and not (out / "v1").exists()
    assert "skipped" in result.output


def test_source_mode_needs_a_model_and_a_python_server(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["evolve", "--server", "units", "--mode", "source", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "needs --model" in result.output
    script = tmp_path / "srv" / "server.py"
    script.parent.mkdir()
    script.write_text("print('hi')\n")
    found = source_server_for(ServerSpec(name="s", command=sys.executable, args=[str(script), "--flag"]), tmp_path)
    assert (found.root, found.script, found.args) == (script.parent.resolve(), "server.py", ["--flag"])
