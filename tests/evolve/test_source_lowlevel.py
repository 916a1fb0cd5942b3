"""Source rounds on low-level servers: if/elif and match dispatch, and tools split across files.

The fixture servers are copied to a temporary folder and run from there (one as a script, two
as modules); each round edits the schema and the dispatch code the anchors point at.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcptrials.evolve.source.mutate import RoundOutcome, RoundSettings, evolve_round
from mcptrials.evolve.source.script import scripted_round_model
from mcptrials.evolve.source.tree import SourceServer
from mcptrials.evolve.source.validate import list_tools

FIXTURES = Path(__file__).parent / "fixtures_source"
SETTINGS = RoundSettings(max_attempts=1, start_timeout=90.0, call_timeout=30.0)


def _hunk(file_name: str, old: str = "", new: str = "", anchor: str = "") -> dict[str, str]:
    return {"file_name": file_name, "old_code": old, "new_code": new, "anchor_code": anchor}


def _case(tool: str, expect: str = "ok", **arguments: Any) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments, "expect": expect}


ROUNDS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    # name: (fixture folder, SourceServer fields, scripted replies)
    "if_dispatch_o5": ("lowlevel_if", {"name": "calc", "script": "server.py"}, {
        "select": {"operator": "O5", "target_tools": ["add"], "rationale": "a third addend"},
        "apply": {"summary": "add takes an optional third addend", "hunks": [
            _hunk("server.py", '                "b": {"type": "integer", "description": "Second addend."},\n',
                  '                "b": {"type": "integer", "description": "Second addend."},\n'
                  '                "c": {"type": "integer", "description": "Optional third addend.", "default": 0},\n'),
            _hunk("server.py", '        return _reply({"sum": arguments["a"] + arguments["b"]})\n',
                  '        return _reply({"sum": arguments["a"] + arguments["b"] + arguments.get("c", 0)})\n'),
        ]},
        "tests": {"test_cases": [_case("add", a=1, b=2, c=3), _case("add", a=1, b=2),
                                 _case("add", "validation_error", a=1, b=2, c="three")]},
    }),
    "match_dispatch_o11": ("lowlevel_match", {"name": "strings", "script": "server.py"}, {
        "select": {"operator": "O11", "target_tools": ["reverse"], "rationale": "clearer docs"},
        "apply": {"summary": "document reverse", "hunks": [
            _hunk("server.py", 'description="Reverse a string."',
                  'description="Return the characters of a text in reverse order."'),
            # The schema text occurs twice (both tools): the anchor picks reverse's.
            _hunk("server.py", '"properties": {"text": {"type": "string"}},',
                  '"properties": {"text": {"type": "string", "description": "Text to reverse."}},',
                  anchor='types.Tool(name="reverse"'),
        ]},
        "tests": {"test_cases": [_case("reverse", text="stressed")]},
    }),
    "cross_file_o1": ("cross_file", {"name": "shelf", "module": "shelf.main"}, {
        "select": {"operator": "O1", "target_tools": [], "rationale": "find the longest title"},
        "apply": {"summary": "new tool longest_title", "hunks": [
            _hunk("shelf/schemas.py", '        "inputSchema": {"type": "object", "properties": {}},\n    },\n]\n',
                  '        "inputSchema": {"type": "object", "properties": {}},\n    },\n    {\n'
                  '        "name": "longest_title",\n'
                  '        "description": "Return the longest title on the shelf.",\n'
                  '        "inputSchema": {"type": "object", "properties": {}},\n    },\n]\n'),
            _hunk("shelf/handlers.py", new="\n\ndef longest_title(arguments: dict[str, Any]) -> Any:\n"
                                           "    return max(BOOKS, key=len)\n",
                  anchor="def count_books(arguments: dict[str, Any]) -> Any:\n    return len(BOOKS)\n"),
            _hunk("shelf/handlers.py", '    "count_books": count_books,\n',
                  '    "count_books": count_books,\n    "longest_title": longest_title,\n'),
        ]},
        "tests": {"test_cases": [_case("longest_title")]},
    }),
}


async def _run(root: Path) -> dict[str, RoundOutcome]:
    outcomes: dict[str, RoundOutcome] = {}

    async def one(name: str) -> None:
        folder, fields, replies = ROUNDS[name]
        copy = root / name / "original"
        shutil.copytree(FIXTURES / folder, copy)
        server = SourceServer(root=copy, **fields)
        tools = await list_tools(server, SETTINGS.limits())
        outcomes[name] = await evolve_round(server, root / name / "versions", "v1", scripted_round_model(replies),
                                            parent_version="v0", parent_tools=tools, settings=SETTINGS)

    async with anyio.create_task_group() as group:
        for name in ROUNDS:
            group.start_soon(one, name)
    return outcomes


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RoundOutcome]:
    return anyio.run(_run, tmp_path_factory.mktemp("lowlevel-rounds"))


@pytest.mark.parametrize(("name", "pattern"), [("if_dispatch_o5", "P4"), ("match_dispatch_o11", "P7"),
                                               ("cross_file_o1", "P2")])
def test_low_level_rounds_are_accepted(outcomes: dict[str, RoundOutcome], name: str, pattern: str) -> None:
    outcome = outcomes[name]
    assert outcome.accepted, [r.feedback() for r in outcome.rejections]
    assert outcome.manifest is not None
    assert outcome.manifest.patterns == [pattern]
    assert all(t.passed for t in outcome.manifest.tests)


def test_new_parameter_reaches_the_if_branch(outcomes: dict[str, RoundOutcome]) -> None:
    manifest = outcomes["if_dispatch_o5"].manifest
    assert manifest is not None
    assert json.loads(manifest.tests[0].detail) == {"sum": 6}
    assert manifest.tests[2].outcome == "error" and "invalid arguments" in manifest.tests[2].detail


def test_anchor_code_picked_the_right_duplicate(outcomes: dict[str, RoundOutcome]) -> None:
    tools = {t["name"]: t for t in outcomes["match_dispatch_o11"].tools}
    assert tools["reverse"]["inputSchema"]["properties"]["text"]["description"] == "Text to reverse."
    assert "description" not in tools["length"]["inputSchema"]["properties"]["text"]


def test_a_tool_added_across_three_files(outcomes: dict[str, RoundOutcome]) -> None:
    manifest = outcomes["cross_file_o1"].manifest
    assert manifest is not None
    assert manifest.changed_files == ["shelf/handlers.py", "shelf/schemas.py"]
    assert json.loads(manifest.tests[0].detail) == "Middlemarch"
