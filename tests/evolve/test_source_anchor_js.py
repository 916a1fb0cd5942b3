"""Anchors of JavaScript/TypeScript servers in the four handler styles MCPEvol-Bench lists, and the syntax check.

Small TypeScript and JavaScript servers under ``fixtures_source_js`` use register calls
(``registerTool`` / ``tool``), a ``switch`` on the tool name with schemas and handlers in other
files, and ``if (name === ...)`` blocks; the built JavaScript of the real npm
``@modelcontextprotocol/server-memory`` is anchored too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mcptrials.evolve.source.anchor import anchor_tree, render_tool
from mcptrials.evolve.source.anchor_js import syntax_errors
from mcptrials.evolve.source.hunks import Hunk, apply_hunks
from mcptrials.evolve.source.steps import StepRejected
from mcptrials.evolve.source.validate import compile_files

FIXTURES = Path(__file__).parent / "fixtures_source_js"


def _where(root: str, tool: str) -> tuple[str, str | None, str | None, str, str | None, list[str]]:
    anchor = anchor_tree(FIXTURES / root).tool(tool)
    assert anchor is not None, tool
    impl = anchor.implementation
    return (anchor.registration, anchor.dispatch, impl.file if impl else None, anchor.definition.where,
            impl.where if impl else None, [h.where for h in anchor.helpers])


def test_register_calls_inline_and_imported_handlers() -> None:
    anchors = anchor_tree(FIXTURES / "register")
    assert anchors.names == ["greet", "add", "shout"] and not anchors.problems
    assert _where("register", "greet") == ("register_call", "function", "server.ts", "server.ts:7-9",
                                           "server.ts:10-13", [])
    greet = anchors.tool("greet")
    assert greet is not None and greet.definition.text.startswith('server.registerTool("greet", {')
    assert greet.implementation is not None and "Hello, ${who}!" in greet.implementation.text
    # server.tool(...) whose handler opens on the call's line: that line is the definition
    assert _where("register", "add")[3:5] == ("server.ts:15-15", "server.ts:16-17")
    # a handler passed by name is followed through `import ... from "./handlers.js"` to handlers.ts
    shout = anchors.tool("shout")
    assert shout is not None and shout.cross_file
    assert _where("register", "shout")[2:5] == ("handlers.ts", "server.ts:19-22", "handlers.ts:1-3")
    assert "```typescript" in render_tool(shout)


def test_switch_on_the_name_with_schemas_and_handlers_in_other_files() -> None:
    anchors = anchor_tree(FIXTURES / "switch_split")
    assert anchors.names == ["echo", "reverse"]
    assert _where("switch_split", "echo") == ("tool_object", "switch", "index.ts", "tools.ts:1-5",
                                              "index.ts:13-15", [])
    assert _where("switch_split", "reverse") == ("tool_object", "switch", "index.ts", "tools.ts:7-11",
                                                 "index.ts:16-17", ["handlers.ts:1-3"])
    assert {r.role for r in anchors.registries} == {"server_object", "list_tools_handler"}


def test_if_blocks_on_the_name_either_way_round() -> None:
    anchors = anchor_tree(FIXTURES / "if_blocks")
    assert anchors.names == ["double", "negate"]
    assert _where("if_blocks", "double")[:2] == ("tool_object", "if")
    negate = anchors.tool("negate")
    assert negate is not None and negate.implementation is not None
    assert "String(-args.n)" in negate.implementation.text and negate.definition.where == "index.js:9-10"


def test_anchor_text_is_a_hunk_old_code(tmp_path: Path) -> None:
    anchor = anchor_tree(FIXTURES / "switch_split").tool("reverse")
    assert anchor is not None and anchor.implementation is not None
    old = anchor.implementation.text
    hunk = Hunk(file_name="index.ts", old_code=old, new_code=old.replace('case "reverse"', 'case "flip"'))
    changed = apply_hunks(FIXTURES / "switch_split", [hunk], tmp_path / "out")
    assert changed == ["index.ts"] and 'case "flip"' in (tmp_path / "out" / "index.ts").read_text()
    compile_files(tmp_path / "out", changed)  # still valid TypeScript


def test_syntax_check_rejects_broken_javascript_with_its_line(tmp_path: Path) -> None:
    tree = tmp_path / "t"
    shutil.copytree(FIXTURES / "if_blocks", tree)
    assert syntax_errors(tree, ["index.js"]) == []
    text = (tree / "index.js").read_text().replace('if (name === "double") {', 'if (name === "double" {')
    (tree / "index.js").write_text(text)
    problems = syntax_errors(tree, ["index.js"])
    assert len(problems) == 1 and problems[0].startswith("index.js:16: syntax error")
    with pytest.raises(StepRejected, match=r"index\.js:16: syntax error") as caught:
        compile_files(tree, ["index.js"])
    assert caught.value.step == "compile"


def test_the_built_javascript_of_server_memory(npm_bin: Path) -> None:
    package = (npm_bin / "mcp-server-memory").resolve().parent.parent
    anchors = anchor_tree(package)
    assert len(anchors.names) == 9 and "read_graph" in anchors.names and not anchors.problems
    read = anchors.tool("read_graph")
    assert read is not None and read.registration == "register_call" and read.implementation is not None
    assert read.definition.text.startswith('server.registerTool("read_graph", {')
    assert "readGraph()" in read.implementation.text


@pytest.mark.parametrize(("old", "new", "docs_only"), [
    ("Say hello to someone", "Greet someone warmly by name", True),  # a description entry
    ('.describe("Who to greet")', '.describe("The person to greet")', True),  # zod's describe()
    ("const server", "// the server object\nconst server", True),  # a comment
    ('inputSchema: { word: z.string() }', 'inputSchema: { word: z.string().describe("The word") }', True),
    ("Hello, ${who}!", "Hi, ${who}!", False),  # behaviour
    ('"Add two numbers", { a: z.number(), b', '"Add two numbers", { a: z.number(), c', False),  # a parameter
])
def test_description_operators_may_change_only_documentation_in_typescript(tmp_path: Path, old: str, new: str,
                                                                           docs_only: bool) -> None:
    from mcptrials.evolve.source.validate import docs_only_problems

    tree = tmp_path / "t"
    shutil.copytree(FIXTURES / "register", tree)
    text = (tree / "server.ts").read_text()
    assert old in text
    (tree / "server.ts").write_text(text.replace(old, new))
    problems = docs_only_problems(FIXTURES / "register", tree, ["server.ts"])
    assert (problems == []) is docs_only, problems


def test_without_the_grammars_evolve_says_what_to_install(npm_bin: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import json
    import sys

    from typer.testing import CliRunner

    from mcptrials.cli import app
    from mcptrials.evolve.source.anchor_js import _parser

    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"mem": {"command": str(npm_bin / "mcp-server-memory")}}}))
    monkeypatch.setitem(sys.modules, "tree_sitter_javascript", None)  # as if the js extra were not installed
    _parser.cache_clear()
    try:
        result = CliRunner().invoke(app, ["evolve", "--server", "mem", "--servers", str(config), "--mode", "source",
                                          "--model", "scripted:reference", "--out", str(tmp_path / "out")])
    finally:
        _parser.cache_clear()
    assert result.exit_code == 2, result.output
    assert "pip install 'mcptrials[js]'" in result.output and "Traceback" not in result.output
