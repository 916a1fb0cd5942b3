"""Find where each tool of a JavaScript or TypeScript MCP server is defined and implemented, with tree-sitter.

The same anchors as ``anchor.py`` gives Python servers, for the handler styles MCPEvol-Bench
lists for TypeScript servers (and their built JavaScript):

- register calls: ``server.registerTool("x", {...}, handler)`` and ``server.tool("x", ...,
  handler)``; the definition is the call up to the handler, the implementation the handler;
- ``switch (request.params.name) { case "x": ... }`` in a call handler, with the tool's schema
  object (``{name: "x", inputSchema: ...}``) as its definition;
- ``if (name === "x") { ... }`` blocks, the same way;
- handlers defined in other files: a handler passed by name, or a function a case or block
  calls, is followed through ``import {h} from "./handlers.js"`` (a ``.ts`` file answers for
  the ``.js`` name TypeScript imports use) and shown where it is defined.

Spans are whole lines, so an anchor's text can be copied verbatim into a hunk's ``old_code``.
``syntax_errors`` is the syntax check a mutated file must pass: a tree-sitter parse with no
error or missing node; ``code_shape`` is a file's code with its documentation left out, so a
description-only operator can be held to changing nothing else.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from mcptrials.evolve.source.anchor import CodeSpan, Dispatch, Registration, ServerAnchors, ToolAnchor
from mcptrials.evolve.source.tree import JS_SUFFIXES, script_files

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

REGISTER_METHODS = frozenset({"registerTool", "tool"})
"""Methods of a server object whose first argument names the tool they register."""
SERVER_CLASSES = frozenset({"McpServer", "Server"})
DOC_KEYS = frozenset({"description", "title"})
"""Object keys whose values only document (a tool's or a parameter's description)."""
FUNCTION_TYPES = frozenset({"arrow_function", "function_expression", "function", "function_declaration",
                            "generator_function_declaration", "method_definition"})


class MissingGrammar(ValueError):
    """tree-sitter or its JavaScript/TypeScript grammars are not installed."""


@cache
def _parser(kind: str) -> Parser:
    try:
        import tree_sitter_javascript
        import tree_sitter_typescript
        from tree_sitter import Language, Parser
    except ImportError as exc:
        raise MissingGrammar(f"JavaScript/TypeScript source needs tree-sitter ({exc}); install it with: "
                             "pip install 'mcptrials[js]'") from None
    grammar = {"javascript": tree_sitter_javascript.language(),
               "typescript": tree_sitter_typescript.language_typescript(),
               "tsx": tree_sitter_typescript.language_tsx()}[kind]
    return Parser(Language(grammar))


def require_grammars() -> None:
    """Raise ``MissingGrammar`` (with the install command) unless JavaScript and TypeScript can be parsed."""
    for kind in ("javascript", "typescript", "tsx"):
        _parser(kind)


def parser_for(path: Path | str) -> Parser:
    """The parser for a file, by its suffix (TypeScript, TSX, else JavaScript)."""
    suffix = Path(path).suffix
    return _parser("tsx" if suffix == ".tsx" else "typescript" if suffix in {".ts", ".mts", ".cts"} else "javascript")


def _walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def syntax_errors(root: Path, files: list[str]) -> list[str]:
    """``file:line: ...`` for each JavaScript/TypeScript file among ``files`` that does not parse cleanly."""
    problems = []
    for rel in (f for f in files if Path(f).suffix in JS_SUFFIXES):
        source = (root / rel).read_bytes()
        tree = parser_for(rel).parse(source)
        if not tree.root_node.has_error:
            continue
        bad = next(n for n in _walk(tree.root_node) if n.type == "ERROR" or n.is_missing)
        what = f"missing {bad.type!r}" if bad.is_missing else f"unexpected {_text(bad)[:40]!r}"
        problems.append(f"{rel}:{bad.start_point.row + 1}: syntax error ({what})")
    return problems


def code_shape(source: bytes, rel: str) -> list[tuple[int, str]]:
    """Every token of a file with its line, leaving out what only documents code.

    Set aside: comments, type annotations, ``description``/``title`` object entries, zod's
    ``.describe("...")`` calls, and commas (an entry taken out of an object takes its comma along).
    """
    out: list[tuple[int, str]] = []
    stack = [parser_for(rel).parse(source).root_node]
    while stack:
        node = stack.pop()
        if node.type in {"comment", "type_annotation", ","}:
            continue
        if node.type == "pair" and (_string(key := node.child_by_field_name("key")) or _text(key)) in DOC_KEYS:
            continue
        callee = node.child_by_field_name("function") if node.type == "call_expression" else None
        if callee is not None and callee.type == "member_expression" and _text(
                callee.child_by_field_name("property")) == "describe":
            stack.extend(c for c in [callee.child_by_field_name("object")] if c is not None)
            continue
        if node.child_count == 0:
            out.append((node.start_point.row + 1, f"{node.type}:{_text(node)}"))
            continue
        stack.extend(reversed(node.children))
    return out


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", errors="replace") if node is not None and node.text is not None else ""


def _string(node: Node | None) -> str | None:
    """The value of a string literal (or a template string without substitutions)."""
    if node is None or node.type not in {"string", "template_string"}:
        return None
    if any(c.type == "template_substitution" for c in node.children):
        return None
    return "".join(_text(c) for c in node.children if c.type in {"string_fragment", "escape_sequence"})


@dataclass
class _Script:
    """One parsed file: its lines, top-level functions and string constants, and what it imports."""

    rel: str
    lines: list[str]
    root: Node
    functions: dict[str, Node] = field(default_factory=dict)
    constants: dict[str, str] = field(default_factory=dict)
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)

    def span(self, node: Node, role: str, symbol: str = "", start: Node | None = None) -> CodeSpan:
        first, last = (start or node).start_point.row + 1, node.end_point.row + 1
        return CodeSpan(file=self.rel, start=first, end=last, role=role, text="".join(self.lines[first - 1:last]),
                        symbol=symbol)

    def rows(self, first: int, last: int, role: str, symbol: str = "") -> CodeSpan:
        return CodeSpan(file=self.rel, start=first, end=last, role=role, text="".join(self.lines[first - 1:last]),
                        symbol=symbol)


def _statement(node: Node) -> Node:
    """The statement (or exported declaration) a node is the whole expression of."""
    while node.parent is not None and node.parent.type in {"expression_statement", "lexical_declaration",
                                                           "variable_declaration", "variable_declarator",
                                                           "export_statement", "await_expression"}:
        node = node.parent
    return node


def _index(script: _Script) -> None:
    for node in _walk(script.root):
        if node.type in {"function_declaration", "generator_function_declaration"}:
            name = node.child_by_field_name("name")
            if name is not None:
                script.functions[_text(name)] = node
        elif node.type == "variable_declarator":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if name is None or value is None:
                continue
            if value.type in FUNCTION_TYPES:
                script.functions[_text(name)] = value
            elif (text := _string(value)) is not None:
                script.constants[_text(name)] = text
        elif node.type == "import_statement":
            source = _string(node.child_by_field_name("source"))
            if source is None or not source.startswith("."):
                continue
            for spec in (n for n in _walk(node) if n.type == "import_specifier"):
                imported, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                script.imports[_text(alias or imported)] = (source, _text(imported))


def _parse(root: Path) -> tuple[dict[str, _Script], list[str]]:
    scripts: dict[str, _Script] = {}
    problems: list[str] = []
    for path in script_files(root):
        rel = path.relative_to(root).as_posix()
        source = path.read_bytes()
        tree = parser_for(path).parse(source)
        if tree.root_node.has_error:
            problems.append(f"{rel}: parsed with syntax errors; anchors there may be incomplete")
        script = _Script(rel=rel, lines=source.decode("utf-8", errors="replace").splitlines(keepends=True),
                         root=tree.root_node)
        _index(script)
        scripts[rel] = script
    return scripts, problems


def _module_file(scripts: dict[str, _Script], importer: str, source: str) -> _Script | None:
    """The file a relative import names (``./h.js`` may be ``h.ts`` in TypeScript source, or ``h/index.js``)."""
    base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), source))
    stem = base.rsplit(".", 1)[0] if posixpath.splitext(base)[1] in JS_SUFFIXES else base
    suffixes = sorted(JS_SUFFIXES)
    for candidate in [base, *(stem + s for s in suffixes), *(f"{base}/index{s}" for s in suffixes)]:
        if candidate in scripts:
            return scripts[candidate]
    return None


def _function(scripts: dict[str, _Script], script: _Script, name: str) -> tuple[_Script, Node] | None:
    """The function ``name`` names in ``script``, following relative imports (a few hops)."""
    for _ in range(5):
        if name in script.functions:
            return script, script.functions[name]
        if name not in script.imports:
            return None
        source, original = script.imports[name]
        target = _module_file(scripts, script.rel, source)
        if target is None:
            return None
        script, name = target, original
    return None


def _name_value(scripts: dict[str, _Script], script: _Script, node: Node | None) -> str | None:
    """A tool name: a string literal, or a string constant of the file it names."""
    value = _string(node)
    if value is None and node is not None and node.type == "identifier":
        value = script.constants.get(_text(node))
    return value


def _function_span(script: _Script, node: Node, role: str, symbol: str) -> CodeSpan:
    holder = _statement(node) if node.type in {"arrow_function", "function_expression", "function"} else node
    if holder.parent is not None and holder.parent.type == "export_statement":
        holder = holder.parent
    return script.span(holder, role, symbol)


@dataclass
class _Found:
    tool: str
    registration: Registration
    definition: CodeSpan
    dispatch: Dispatch | None = None
    implementation: CodeSpan | None = None
    helpers: list[CodeSpan] = field(default_factory=list)


def _called_functions(scripts: dict[str, _Script], script: _Script, body: Node) -> list[CodeSpan]:
    """Functions a case or block calls by name, where they are defined (this file or an imported one)."""
    spans: list[CodeSpan] = []
    for call in (n for n in _walk(body) if n.type == "call_expression"):
        callee = call.child_by_field_name("function")
        if callee is None or callee.type != "identifier":
            continue
        found = _function(scripts, script, _text(callee))
        if found is not None:
            where, func = found
            span = _function_span(where, func, "helper", _text(callee))
            if all((s.file, s.start) != (span.file, span.start) for s in spans):
                spans.append(span)
    return spans


def _register_calls(scripts: dict[str, _Script]) -> list[_Found]:
    found: list[_Found] = []
    for script in scripts.values():
        for call in (n for n in _walk(script.root) if n.type == "call_expression"):
            callee, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
            if callee is None or args is None or callee.type != "member_expression":
                continue
            if _text(callee.child_by_field_name("property")) not in REGISTER_METHODS or not args.named_children:
                continue
            name = _name_value(scripts, script, args.named_children[0])
            if name is None:
                continue
            statement = _statement(call)
            handler = args.named_children[-1]
            if handler.type in FUNCTION_TYPES - {"function_declaration"}:
                first, last = statement.start_point.row + 1, statement.end_point.row + 1
                cut = handler.start_point.row + 1
                if cut == first and last > first:  # the handler opens on the call's line: that line defines
                    cut += 1
                if cut > first:
                    definition = script.rows(first, cut - 1, "definition", name)
                    implementation = script.rows(cut, last, "implementation", name)
                else:
                    definition, implementation = script.span(statement, "definition", name), None
                found.append(_Found(name, "register_call", definition, "function", implementation))
                continue
            definition = script.span(statement, "definition", name)
            resolved = _function(scripts, script, _text(handler)) if handler.type == "identifier" else None
            impl = _function_span(resolved[0], resolved[1], "implementation", _text(handler)) if resolved else None
            found.append(_Found(name, "register_call", definition, "function", impl))
    return found


def _tool_objects(scripts: dict[str, _Script]) -> list[_Found]:
    """``{name: "x", inputSchema: ...}`` objects anywhere in the tree (the tool lists of a low-level server)."""
    found: list[_Found] = []
    for script in scripts.values():
        for obj in (n for n in _walk(script.root) if n.type == "object"):
            pairs = {_string(k) or _text(k): p.child_by_field_name("value") for p in obj.named_children
                     if p.type == "pair" and (k := p.child_by_field_name("key")) is not None}
            if "name" not in pairs or not {"inputSchema", "input_schema"} & set(pairs):
                continue
            name = _name_value(scripts, script, pairs["name"])
            if name:
                holder = _statement(obj) if obj.parent is not None and obj.parent.type == "variable_declarator" else obj
                found.append(_Found(name, "tool_object", script.span(holder, "definition", name)))
    return found


def _names_tool(node: Node | None) -> bool:
    """Whether an expression reads a tool name: ``name``, ``toolName``, ``request.params.name``."""
    text = _text(node).strip("() \n")
    return bool(text) and text.split(".")[-1].lower().endswith("name")


def _branches(scripts: dict[str, _Script], names: set[str]) -> dict[str, _Found]:
    """Case clauses and if-blocks that dispatch on a tool name, with the functions they call."""
    out: dict[str, _Found] = {}
    for script in scripts.values():
        for node in _walk(script.root):
            if node.type == "switch_statement" and _names_tool(node.child_by_field_name("value")):
                body = node.child_by_field_name("body")
                cases = [c for c in (body.named_children if body else []) if c.type == "switch_case"]
                for index, case in enumerate(cases):
                    name = _name_value(scripts, script, case.child_by_field_name("value"))
                    if name not in names or name in out:
                        continue
                    end = next((c for c in cases[index:] if len(c.named_children) > 1), case)  # fall-through
                    span = script.rows(case.start_point.row + 1, end.end_point.row + 1, "implementation", name)
                    out[name] = _Found(name, "tool_object", span, "switch", span, _called_functions(scripts, script,
                                                                                                    end))
            elif node.type == "if_statement":
                condition = node.child_by_field_name("condition")
                test = condition.named_children[0] if condition is not None and condition.named_children else None
                if test is None or test.type != "binary_expression" or _text(
                        test.child_by_field_name("operator")) not in {"===", "=="}:
                    continue
                left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
                name = _name_value(scripts, script, right) if _names_tool(left) else (
                    _name_value(scripts, script, left) if _names_tool(right) else None)
                consequence = node.child_by_field_name("consequence")
                if name not in names or name in out or consequence is None:
                    continue
                span = script.rows(node.start_point.row + 1, consequence.end_point.row + 1, "implementation", name)
                out[name] = _Found(name, "tool_object", span, "if", span, _called_functions(scripts, script,
                                                                                            consequence))
    return out


def _registries(scripts: dict[str, _Script]) -> list[CodeSpan]:
    """The server object and the list/call request handlers of a low-level server."""
    spans: list[CodeSpan] = []
    for script in scripts.values():
        for node in _walk(script.root):
            if node.type == "new_expression" and _text(node.child_by_field_name("constructor")) in SERVER_CLASSES:
                spans.append(script.span(_statement(node), "server_object"))
            elif node.type == "call_expression":
                callee, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
                if callee is None or args is None or not _text(callee).endswith("setRequestHandler"):
                    continue
                kind = _text(args.named_children[0]) if args.named_children else ""
                role = "list_tools_handler" if "ListTools" in kind else "call_tool_handler" if "CallTool" in kind \
                    else None
                if role == "list_tools_handler":
                    spans.append(script.span(_statement(node), role))
    return spans


def anchor_scripts(root: Path | str) -> ServerAnchors:
    """Anchor every tool registered anywhere in the JavaScript/TypeScript files of the tree at ``root``."""
    scripts, problems = _parse(Path(root))
    if not scripts:
        return ServerAnchors()
    registered = _register_calls(scripts)
    objects = _tool_objects(scripts)
    branches = _branches(scripts, {f.tool for f in objects})
    for item in objects:
        branch = branches.get(item.tool)
        if branch is not None:
            item.dispatch, item.implementation, item.helpers = branch.dispatch, branch.implementation, branch.helpers
    seen: dict[str, _Found] = {}
    for item in [*registered, *objects]:
        previous = seen.get(item.tool)
        if previous is None or (previous.implementation is None and item.implementation is not None):
            seen[item.tool] = item
    tools = [ToolAnchor(tool=f.tool, registration=f.registration, dispatch=f.dispatch,
                        definition=f.definition, implementation=f.implementation, helpers=f.helpers)
             for f in seen.values()]
    unanchored = sorted(set(branches) - set(seen))
    if unanchored:
        problems.append(f"dispatch on {', '.join(unanchored)} found without a tool definition")
    return ServerAnchors(tools=tools, registries=_registries(scripts), problems=problems)
