"""Every command that reads a file refuses a corrupt, a deeply nested, a huge and a non-UTF-8 one with one line
naming the file and the problem, exit code 2, no traceback (one bounded loader: ``safety/loading.py``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from faults import nap_task, write_world
from typer.testing import CliRunner

from mcptrials.cli import app
from mcptrials.safety.loading import MAX_BYTES, MAX_DEPTH

Build = Callable[[Path, Path, Path, Path], list[str]]
"""(the bad file, tasks, servers, a folder) -> the command line that reads the bad file."""


def _run_with(*extra: str) -> Build:
    return lambda bad, tasks, servers, folder: ["run", "--model", "scripted:reference", "--tasks", str(tasks),
                                                "--servers", str(servers), "--db", str(folder / "r.db"), *extra]


def _lineage(bad: Path, tasks: Path, servers: Path, folder: Path) -> list[str]:
    plan = folder / "lineages" / "hostile" / "v1" / "plan.yaml"
    plan.parent.mkdir(parents=True)
    bad.rename(plan)
    return ["tasks", "check", "--tasks", str(tasks), "--servers", str(servers), "--stages", "v1", "--lineages",
            str(folder / "lineages")]


def _diff(bad: Path, tasks: Path, servers: Path, folder: Path) -> list[str]:
    good = folder / "tools.json"
    good.write_text(json.dumps({"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}))
    return ["diff", str(good), str(bad)]


COMMANDS: dict[str, tuple[str, Build]] = {
    # name: (suffix of the bad file, the command that reads it)
    "run --prices": (".json", lambda b, t, s, f: _run_with("--prices", str(b))(b, t, s, f)),
    "run --models": (".yaml", lambda b, t, s, f: ["run", "--models", str(b), "--tasks", str(t), "--servers",
                                                  str(s), "--db", str(f / "r.db")]),
    "run --model scripted:FILE": (".json", lambda b, t, s, f: ["run", "--model", f"scripted:{b}", "--tasks", str(t),
                                                               "--servers", str(s), "--db", str(f / "r.db")]),
    "run --tasks": (".jsonl", lambda b, t, s, f: _run_with()(b, b, s, f)),
    "run --servers": (".json", lambda b, t, s, f: _run_with()(b, t, b, f)),
    "agree --labels": (".jsonl", lambda b, t, s, f: ["agree", "--labels", str(b)]),
    "agree --episodes": (".jsonl", lambda b, t, s, f: ["agree", "--episodes", str(b)]),
    "tasks check --alternatives-from": (".yaml", lambda b, t, s, f: ["tasks", "check", "--tasks", str(t), "--servers",
                                                                     str(s), "--alternatives-from", str(b)]),
    "lineage plan.yaml": (".yaml", _lineage),
    "diff": (".json", _diff),
}

KINDS = {
    "corrupt": "invalid {fmt}",
    "deep": f"nested deeper than {MAX_DEPTH} levels",
    "huge": f"over the {MAX_BYTES}-byte limit",
    "not_utf8": "is not UTF-8 text (byte 0xe9 at line 1 column",
}


def _write(path: Path, kind: str) -> None:
    yaml = path.suffix == ".yaml"
    if kind == "corrupt":
        path.write_text("models: [unclosed\n" if yaml else '{"a": [1, 2,\n')
    elif kind == "deep":
        path.write_text("[" * 5000 + "]" * 5000 + "\n")  # a JSON flow sequence, valid YAML too
    elif kind == "huge":
        with path.open("wb") as handle:  # sparse: refused by its size, never read
            handle.truncate(MAX_BYTES + 1)
    else:
        path.write_bytes('{"caf\u00e9": 1}\n'.encode("latin-1"))


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_file_reader_refuses_a_bad_file_in_one_line(tmp_path: Path, command: str, kind: str) -> None:
    tasks, servers = write_world(tmp_path, [nap_task("t", 0.0)])
    suffix, build = COMMANDS[command]
    bad = tmp_path / f"bad{suffix}"
    _write(bad, kind)
    args = build(bad, tasks, servers, tmp_path)
    where = tmp_path / "lineages" / "hostile" / "v1" / "plan.yaml" if command == "lineage plan.yaml" else bad
    result = CliRunner().invoke(app, args)
    output = result.output
    assert "Traceback" not in output, output
    assert result.exception is None or isinstance(result.exception, SystemExit), output
    assert result.exit_code == 2, output
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output
    line = " ".join(output[output.index("error:"):].split())  # rich wraps long lines: rejoined
    expected = KINDS[kind].format(fmt="YAML" if where.suffix == ".yaml" else "JSON")
    assert str(where) in line and expected in line, line
    assert not (tmp_path / "r.db").exists()  # refused before anything was stored
