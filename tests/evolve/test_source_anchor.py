"""AST anchoring finds each tool's definition and implementation in every registration style."""

from __future__ import annotations

from pathlib import Path

from mcptrials.evolve.source.anchor import anchor_tree, render_registries, render_tool
from mcptrials.evolve.source.steps import render_anchors
from mcptrials.evolve.source.tree import bundled_source

FIXTURES = Path(__file__).parent / "fixtures_source"


def _read_lines(root: Path, rel: str, start: int, end: int) -> str:
    lines = (root / rel).read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(lines[start - 1:end])


def test_decorator_style_on_a_bundled_server(tmp_path: Path) -> None:
    server = bundled_source("units", tmp_path / "units")
    anchors = anchor_tree(server.root)
    assert anchors.names == ["convert", "convert_many", "convert_temperature", "list_units"]
    assert anchors.problems == []
    convert = anchors.tool("convert")
    assert convert is not None and convert.registration == "decorator" and convert.dispatch == "function"
    assert convert.definition.text.startswith("@mcp.tool()\ndef convert(\n")
    assert convert.definition.text.rstrip().endswith('"""')
    assert convert.implementation is not None
    assert convert.implementation.text.lstrip().startswith("source, target = _lookup(")
    assert convert.implementation.start == convert.definition.end + 1
    assert {h.symbol for h in convert.helpers} >= {"Category", "_lookup", "_convert", "_fmt"}
    assert "mcp" not in {h.symbol for h in convert.helpers}
    listing = anchors.tool("list_units")
    assert listing is not None and any(o.startswith("UNITS ") for o in listing.omitted)
    for tool in anchors.tools:  # every span's text is the file's exact lines
        for span in [tool.definition, tool.implementation, *tool.helpers]:
            assert span is not None
            assert span.text == _read_lines(server.root, span.file, span.start, span.end)
    assert [r.role for r in anchors.registries] == ["server_object"]


def test_decorators_in_another_file_than_the_server_object() -> None:
    anchors = anchor_tree(FIXTURES / "decorated_split")
    assert anchors.names == ["word_count", "title_case"]
    named = anchors.tool("word_count")
    assert named is not None and named.definition.symbol == "count_words"
    assert named.definition.file == "notes_app/text_tools.py"
    assert [h.symbol for h in named.helpers] == ["_words"]
    title = anchors.tool("title_case")
    assert title is not None and title.implementation is not None
    assert "capitalize" in title.implementation.text
    assert [(r.role, r.file) for r in anchors.registries] == [("server_object", "notes_app/app.py")]


def test_low_level_server_with_if_elif_dispatch() -> None:
    anchors = anchor_tree(FIXTURES / "lowlevel_if")
    assert anchors.names == ["add", "shout"]
    add, shout = anchors.tools
    assert add.registration == "tool_object" and add.dispatch == "if"
    assert add.definition.text.strip().startswith("Tool(") and 'name="add"' in add.definition.text
    assert add.implementation is not None and add.implementation.text.strip().startswith('if name == "add":')
    assert shout.implementation is not None and shout.implementation.text.strip().startswith('elif name == "shout":')
    assert "upper()" in shout.implementation.text
    assert not add.cross_file
    roles = {r.role for r in anchors.registries}
    assert roles == {"tool_list", "list_tools_handler", "call_tool_handler", "server_object"}


def test_low_level_server_with_match_dispatch() -> None:
    anchors = anchor_tree(FIXTURES / "lowlevel_match")
    reverse = anchors.tool("reverse")
    assert reverse is not None and reverse.dispatch == "match"
    assert reverse.implementation is not None
    assert reverse.implementation.text.strip().startswith('case "reverse":')
    assert "[::-1]" in reverse.implementation.text
    length = anchors.tool("length")
    assert length is not None and length.implementation is not None and "len(" in length.implementation.text


def test_definitions_and_handlers_split_across_files() -> None:
    anchors = anchor_tree(FIXTURES / "cross_file")
    find = anchors.tool("find_book")
    assert find is not None
    assert find.registration == "schema_dict" and find.dispatch == "handler_map"
    assert find.definition.file == "shelf/schemas.py" and '"name": FIND_BOOK' in find.definition.text
    assert find.implementation is not None and find.implementation.file == "shelf/handlers.py"
    assert find.implementation.text.startswith("def find_book(")
    assert find.cross_file and find.files == ["shelf/handlers.py", "shelf/schemas.py"]
    assert {h.symbol for h in find.helpers} == {"BOOKS", "FIND_BOOK"}
    roles = {(r.role, r.file) for r in anchors.registries}
    assert ("handler_map", "shelf/handlers.py") in roles and ("tool_list", "shelf/schemas.py") in roles


def test_unparsable_files_and_undispatched_tools_are_reported(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def oops(:\n", encoding="utf-8")
    (tmp_path / "tools.py").write_text('from mcp.types import Tool\nT = Tool(name="lonely", input_schema={})\n',
                                       encoding="utf-8")
    anchors = anchor_tree(tmp_path)
    assert anchors.names == ["lonely"]
    assert any(p.startswith("broken.py: not parsed") for p in anchors.problems)
    assert any("'lonely'" in p and "no dispatch" in p for p in anchors.problems)


def test_rendering_for_prompts() -> None:
    anchors = anchor_tree(FIXTURES / "cross_file")
    find = anchors.tool("find_book")
    assert find is not None
    text = render_tool(find)
    assert "### Tool `find_book` (schema_dict, dispatch by handler_map)" in text
    assert "Definition — shelf/schemas.py, lines 10-18:\n```python\n" in text
    assert "Implementation — shelf/handlers.py" in text
    short = render_tool(find, full=False)
    assert "Implementation" not in short and "Helper" not in short
    assert "Handler map — shelf/handlers.py" in render_registries(anchors)
    assert render_anchors(anchors, ["find_book"]).count("### Tool") == 2


def test_shared_helpers_are_shown_once(tmp_path: Path) -> None:
    anchors = anchor_tree(bundled_source("units", tmp_path / "units").root)
    text = render_anchors(anchors, ["convert"])
    assert text.count("Helper `Category`") == 1 and text.count("Helper `_fmt`") == 1
    assert "Also uses helpers shown above: `Category`" in text
