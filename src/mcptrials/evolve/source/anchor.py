"""Find where each tool of a Python MCP server is defined and implemented, with ``ast``.

The model that mutates a server sees these anchors instead of the whole code base (MCPEvol-Bench
§3, Appendix F.2). Three ways of registering tools are recognised:

- decorator registration: ``@mcp.tool()`` / ``@server.tool(name="x")`` on a function, in any
  file of the tree (the server object may be imported from another module); ``add_tool(fn)``
  calls count too. The definition is the decorated signature with its docstring, the
  implementation is the rest of the body.
- a low-level server: ``Tool(name="x", ...)`` objects (or ``{"name": "x", "inputSchema": ...}``
  dicts) listed by a ``list_tools`` handler, and a ``call_tool`` handler that dispatches on the
  name with ``if name == "x":`` / ``elif``, ``match name: case "x":``, or a dict of handlers.
- definitions split across files: the same, with schemas in one module and the dispatch or
  handlers in another; every file of the tree is searched and names are resolved through
  ``from module import name``.

Spans are whole lines, so an anchor's text can be copied verbatim into a hunk's ``old_code``.
Module-level names the tool's code uses (helpers, constants, schema objects) are attached as
helper spans, one level deep, when they are short enough to show.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mcptrials.evolve.source.tree import python_files, script_files

Registration = Literal["decorator", "add_tool", "tool_object", "schema_dict", "register_call"]
Dispatch = Literal["function", "if", "match", "handler_map", "switch"]

SERVER_CLASSES = frozenset({"MCPServer", "FastMCP", "Server", "McpServer"})
"""Constructors whose result is taken to be the server object."""
HELPER_MAX_LINES = 60
"""Helpers longer than this are named in ``omitted`` rather than shown."""

TOOL_LIST_MAX_LINES = 200
"""A tool list read by the list handler is shown whole up to this many lines."""

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


class CodeSpan(BaseModel):
    """A run of whole source lines: where it is, what it is, and its exact text."""

    model_config = ConfigDict(extra="forbid")

    file: str
    start: int
    end: int
    role: str
    text: str
    symbol: str = ""

    @property
    def where(self) -> str:
        """``path:start-end``, for prompts and messages."""
        return f"{self.file}:{self.start}-{self.end}"


class ToolAnchor(BaseModel):
    """Everything the source says about one tool: its definition, implementation and helpers."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    registration: Registration
    dispatch: Dispatch | None = None
    definition: CodeSpan
    implementation: CodeSpan | None = None
    helpers: list[CodeSpan] = Field(default_factory=list)
    omitted: list[str] = Field(default_factory=list)

    @property
    def cross_file(self) -> bool:
        """True when the implementation lives in another file than the definition."""
        return self.implementation is not None and self.implementation.file != self.definition.file

    @property
    def files(self) -> list[str]:
        """Every file this tool's anchors touch."""
        spans = [self.definition, *([self.implementation] if self.implementation else []), *self.helpers]
        return sorted({s.file for s in spans})


class ServerAnchors(BaseModel):
    """The anchors of a whole tree: per-tool anchors, registration sites, and what went unread."""

    model_config = ConfigDict(extra="forbid")

    tools: list[ToolAnchor] = Field(default_factory=list)
    registries: list[CodeSpan] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)

    def tool(self, name: str) -> ToolAnchor | None:
        """The anchor of tool ``name``, if it was found."""
        return next((t for t in self.tools if t.tool == name), None)

    @property
    def names(self) -> list[str]:
        """Names of the anchored tools, in source order."""
        return [t.tool for t in self.tools]


# --------------------------------------------------------------------------- parsed files


@dataclass
class _File:
    """One parsed file of the tree, with its module name and top-level symbols."""

    rel: str
    module: str
    lines: list[str]
    tree: ast.Module
    symbols: dict[str, ast.stmt] = field(default_factory=dict)
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)

    def span(self, start: int, end: int, role: str, symbol: str = "") -> CodeSpan:
        text = "".join(self.lines[start - 1:end])
        return CodeSpan(file=self.rel, start=start, end=end, role=role, text=text, symbol=symbol)


def _module_name(rel: Path) -> str:
    parts = list(rel.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _start(node: ast.stmt) -> int:
    """First line of a statement, decorators included."""
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _end(node: ast.AST) -> int:
    end = getattr(node, "end_lineno", None)
    return int(end if end is not None else getattr(node, "lineno", 0))


def _index(file: _File) -> None:
    """Fill a file's top-level symbols and its ``from x import y`` table."""
    package = file.module if file.rel.endswith("__init__.py") else file.module.rpartition(".")[0]
    for node in file.tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            file.symbols[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    file.symbols[target.id] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            file.symbols[node.target.id] = node
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                file.imports[alias.asname or alias.name] = (base, alias.name)


def _parse_tree(root: Path) -> tuple[dict[str, _File], list[str]]:
    files: dict[str, _File] = {}
    problems: list[str] = []
    for path in python_files(root):
        rel = path.relative_to(root)
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(text, filename=str(rel))
        except SyntaxError as exc:
            problems.append(f"{rel.as_posix()}: not parsed ({exc.msg}, line {exc.lineno})")
            continue
        file = _File(rel=rel.as_posix(), module=_module_name(rel), lines=text.splitlines(keepends=True), tree=tree)
        _index(file)
        files[file.module] = file
    return files, problems


def _resolve(files: dict[str, _File], file: _File, name: str) -> tuple[_File, ast.stmt] | None:
    """The top-level statement ``name`` refers to in ``file``, following one ``from`` import chain."""
    for _ in range(5):
        if name in file.symbols:
            return file, file.symbols[name]
        if name not in file.imports:
            return None
        module, original = file.imports[name]
        target = files.get(module)
        if target is None:
            return None
        file, name = target, original
    return None


def _resolve_function(files: dict[str, _File], file: _File, name: str) -> tuple[_File, FunctionNode] | None:
    """The function ``name`` refers to in ``file``, if it names one."""
    resolved = _resolve(files, file, name)
    if resolved is None:
        return None
    where, stmt = resolved
    return (where, stmt) if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) else None


# --------------------------------------------------------------------------- helpers


def _str(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _attr_or_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _walk_with_parents(tree: ast.AST) -> Iterator[tuple[ast.AST, list[ast.AST]]]:
    stack: list[tuple[ast.AST, list[ast.AST]]] = [(tree, [])]
    while stack:
        node, parents = stack.pop()
        yield node, parents
        children = list(ast.iter_child_nodes(node))
        stack.extend((child, [*parents, node]) for child in reversed(children))


def _enum_value(files: dict[str, _File], file: _File, node: ast.Attribute) -> str | None:
    """The string of an enum member ``Names.X`` or ``Names.X.value`` (a class-level string constant)."""
    member = node.value if node.attr == "value" and isinstance(node.value, ast.Attribute) else node
    if not (isinstance(member, ast.Attribute) and isinstance(member.value, ast.Name)):
        return None
    found = _resolve(files, file, member.value.id)
    if found is None or not isinstance(found[1], ast.ClassDef):
        return None
    for stmt in found[1].body:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == member.attr for t in stmt.targets):
            return _str(stmt.value)
    return None


def _string_value(files: dict[str, _File], file: _File, node: ast.AST | None) -> str | None:
    """A string literal, a module-level string constant it names, or an enum member's string (``Tools.X.value``)."""
    value = _str(node)
    if value is None and isinstance(node, ast.Attribute):
        return _enum_value(files, file, node)
    if value is not None or not isinstance(node, ast.Name):
        return value
    found = _resolve(files, file, node.id)
    if found and isinstance(found[1], ast.Assign):
        return _str(found[1].value)
    return None


def _decorator_tool_name(files: dict[str, _File], file: _File, decorator: ast.expr,
                         func: FunctionNode) -> str | None:
    """The tool name a ``@x.tool(...)`` decorator registers, or None when it is no tool decorator."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if not (isinstance(target, ast.Attribute) and target.attr == "tool"):
        return None
    if isinstance(decorator, ast.Call):
        named = _string_value(files, file, _keyword(decorator, "name"))
        if named is None and decorator.args:
            named = _string_value(files, file, decorator.args[0])
        if named:
            return named
    return func.name


def _function_spans(file: _File, func: FunctionNode) -> tuple[CodeSpan, CodeSpan | None]:
    """Split a tool function into its definition (decorators, signature, docstring) and body."""
    body = func.body
    rest = body[1:] if body and isinstance(body[0], ast.Expr) and _str(body[0].value) is not None else body
    start = _start(func)
    if not rest:
        return file.span(start, _end(func), "definition", func.name), None
    first = rest[0]
    first_line = _start(first) if isinstance(first, ast.stmt) else first.lineno
    if first_line <= func.lineno:  # a one-line function: the body shares the def line
        return file.span(start, _end(func), "definition", func.name), None
    definition = file.span(start, first_line - 1, "definition", func.name)
    implementation = file.span(first_line, _end(func), "implementation", func.name)
    return definition, implementation


@dataclass
class _Found:
    """A tool found in the source before helpers are attached."""

    tool: str
    registration: Registration
    definition: CodeSpan
    nodes: list[tuple[_File, ast.AST]]
    dispatch: Dispatch | None = None
    implementation: CodeSpan | None = None
    skip_helpers: set[str] = field(default_factory=set)


# --------------------------------------------------------------------------- registrations


def _decorated(files: dict[str, _File]) -> list[_Found]:
    found: list[_Found] = []
    for file in files.values():
        for node in ast.walk(file.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for decorator in node.decorator_list:
                    name = _decorator_tool_name(files, file, decorator, node)
                    if name is not None:
                        definition, impl = _function_spans(file, node)
                        found.append(_Found(name, "decorator", definition, [(file, node)], "function", impl,
                                            {node.name}))
                        break
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr == "add_tool" and node.args and isinstance(node.args[0], ast.Name)):
                resolved = _resolve_function(files, file, node.args[0].id)
                if resolved is None:
                    continue
                where, func = resolved
                name = _str(_keyword(node, "name")) or func.name
                definition, impl = _function_spans(where, func)
                found.append(_Found(name, "add_tool", definition, [(where, func)], "function", impl, {func.name}))
    return found


def _tool_objects(files: dict[str, _File]) -> list[_Found]:
    """``Tool(name=...)`` calls and ``{"name": ..., "inputSchema": ...}`` dicts anywhere in the tree."""
    found: list[_Found] = []
    for file in files.values():
        for node in ast.walk(file.tree):
            if isinstance(node, ast.Call) and _attr_or_name(node.func) == "Tool":
                name = _string_value(files, file, _keyword(node, "name"))
                if name:
                    span = file.span(node.lineno, _end(node), "definition", name)
                    found.append(_Found(name, "tool_object", span, [(file, node)]))
            elif isinstance(node, ast.Dict):
                keys = {_str(k): v for k, v in zip(node.keys, node.values, strict=True) if k is not None}
                if "name" in keys and ({"inputSchema", "input_schema"} & set(keys)):
                    name = _string_value(files, file, keys["name"])
                    if name:
                        span = file.span(node.lineno, _end(node), "definition", name)
                        found.append(_Found(name, "schema_dict", span, [(file, node)]))
    return found


# --------------------------------------------------------------------------- handlers and dispatch


def _handler_functions(files: dict[str, _File]) -> dict[str, list[tuple[_File, FunctionNode]]]:
    """Functions registered as ``list_tools`` / ``call_tool`` handlers (decorator or ``on_*=``)."""
    out: dict[str, list[tuple[_File, FunctionNode]]] = {"list_tools": [], "call_tool": []}
    for file in files.values():
        for node in ast.walk(file.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for decorator in node.decorator_list:
                    target = decorator.func if isinstance(decorator, ast.Call) else decorator
                    if isinstance(target, ast.Attribute) and target.attr in out:
                        out[target.attr].append((file, node))
            elif isinstance(node, ast.Call):
                for kw in node.keywords:
                    role = {"on_list_tools": "list_tools", "on_call_tool": "call_tool"}.get(kw.arg or "")
                    if role and isinstance(kw.value, ast.Name):
                        resolved = _resolve_function(files, file, kw.value.id)
                        if resolved is not None:
                            out[role].append(resolved)
    return out


def _compared_string(test: ast.expr) -> str | None:
    """``"x"`` from ``<expr> == "x"`` or ``"x" == <expr>``."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        left, right = test.left, test.comparators[0]
        return _str(right) if _str(right) is not None else _str(left)
    return None


def _case_strings(pattern: ast.pattern) -> list[str]:
    if isinstance(pattern, ast.MatchValue):
        value = _str(pattern.value)
        return [value] if value is not None else []
    if isinstance(pattern, ast.MatchOr):
        return [s for p in pattern.patterns for s in _case_strings(p)]
    if isinstance(pattern, ast.MatchAs) and pattern.pattern is not None:
        return _case_strings(pattern.pattern)
    return []


@dataclass
class _Branch:
    """One dispatch site for one tool name."""

    file: _File
    node: ast.AST
    span: CodeSpan
    dispatch: Dispatch
    in_handler: bool


def _branches(files: dict[str, _File], names: set[str], handlers: set[int]) -> dict[str, list[_Branch]]:
    """Every ``if``/``elif``/``case``/handler-map entry that selects one of ``names``."""
    out: dict[str, list[_Branch]] = {}
    for file in files.values():
        for node, parents in _walk_with_parents(file.tree):
            in_handler = any(id(p) in handlers for p in parents)
            if isinstance(node, ast.If):
                name = _compared_string(node.test)
                if name in names and node.body:
                    span = file.span(node.lineno, _end(node.body[-1]), "implementation", name)
                    out.setdefault(name, []).append(_Branch(file, node, span, "if", in_handler))
            elif isinstance(node, ast.Match):
                for case in node.cases:
                    for name in _case_strings(case.pattern):
                        if name in names and case.body:
                            span = file.span(case.pattern.lineno, _end(case.body[-1]), "implementation", name)
                            out.setdefault(name, []).append(_Branch(file, case, span, "match", in_handler))
            elif isinstance(node, ast.Dict) and node.keys and all(_str(k) is not None for k in node.keys):
                for key, value in zip(node.keys, node.values, strict=True):
                    name = _str(key)
                    if name not in names or not isinstance(value, ast.Name):
                        continue
                    resolved = _resolve_function(files, file, value.id)
                    if resolved is not None:
                        where, func = resolved
                        span = where.span(_start(func), _end(func), "implementation", func.name)
                        out.setdefault(name, []).append(_Branch(where, func, span, "handler_map", in_handler))
    return out


def _handler_map_spans(files: dict[str, _File], names: set[str]) -> list[CodeSpan]:
    spans = []
    for file in files.values():
        for node in ast.walk(file.tree):
            if (isinstance(node, ast.Dict) and node.keys and all(_str(k) is not None for k in node.keys)
                    and {_str(k) for k in node.keys} & names
                    and all(isinstance(v, ast.Name | ast.Attribute) for v in node.values)):
                spans.append(file.span(node.lineno, _end(node), "handler_map"))
    return spans


def _tool_lists(files: dict[str, _File], list_handlers: list[tuple[_File, FunctionNode]]) -> list[CodeSpan]:
    """Module-level collections a ``list_tools`` handler reads (e.g. ``TOOLS = [Tool(...), ...]``)."""
    spans: dict[tuple[str, int], CodeSpan] = {}
    for file, func in list_handlers:
        for name in sorted(_used_names(func)):
            resolved = _resolve(files, file, name)
            if resolved is None:
                continue
            where, stmt = resolved
            if not isinstance(stmt, ast.Assign | ast.AnnAssign):
                continue
            short = _end(stmt) - _start(stmt) < TOOL_LIST_MAX_LINES
            if isinstance(stmt.value, ast.List | ast.Tuple | ast.Dict) and short:
                spans[(where.rel, _start(stmt))] = where.span(_start(stmt), _end(stmt), "tool_list", name)
    return list(spans.values())


def _server_objects(files: dict[str, _File]) -> tuple[list[CodeSpan], set[str]]:
    """Module-level ``x = MCPServer(...)`` (or ``Server``, ``FastMCP``) statements and the names bound."""
    spans, names = [], set()
    for file in files.values():
        for node in file.tree.body:
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and _attr_or_name(node.value.func) in SERVER_CLASSES):
                spans.append(file.span(node.lineno, _end(node), "server_object"))
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return spans, names


# --------------------------------------------------------------------------- helpers of a tool


def _used_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _attach_helpers(files: dict[str, _File], found: _Found, skip: set[str]) -> tuple[list[CodeSpan], list[str]]:
    helpers: dict[tuple[str, int], CodeSpan] = {}
    omitted: list[str] = []
    own = {(found.definition.file, found.definition.start)}
    if found.implementation is not None:
        own.add((found.implementation.file, found.implementation.start))
    for file, node in found.nodes:
        for name in sorted(_used_names(node) - skip - found.skip_helpers):
            resolved = _resolve(files, file, name)
            if resolved is None:
                continue
            where, stmt = resolved
            start, end = _start(stmt), _end(stmt)
            key = (where.rel, start)
            if key in helpers or key in own:
                continue
            if end - start + 1 > HELPER_MAX_LINES:
                omitted.append(f"{name} ({where.rel}:{start}-{end}, {end - start + 1} lines)")
                continue
            helpers[key] = where.span(start, end, "helper", name)
    return sorted(helpers.values(), key=lambda s: (s.file, s.start)), sorted(set(omitted))


# --------------------------------------------------------------------------- entry point


def anchor_tree(root: Path | str) -> ServerAnchors:
    """Anchor every tool registered anywhere in the source tree at ``root`` (Python, and JavaScript/TypeScript)."""
    root = Path(root)
    python = _anchor_python(root)
    if not script_files(root):
        return python
    from mcptrials.evolve.source.anchor_js import anchor_scripts

    scripts = anchor_scripts(root)
    return ServerAnchors(tools=[*python.tools, *scripts.tools], registries=[*python.registries, *scripts.registries],
                         problems=[*python.problems, *scripts.problems])


def _anchor_python(root: Path) -> ServerAnchors:
    files, problems = _parse_tree(root)
    decorated = _decorated(files)
    objects = _tool_objects(files)
    handlers = _handler_functions(files)
    handler_ids = {id(func) for _file, func in handlers["call_tool"]}
    names = {f.tool for f in objects}
    branches = _branches(files, names, handler_ids)
    for item in objects:
        options = branches.get(item.tool, [])
        if not options:
            continue
        best = sorted(options, key=lambda b: (not b.in_handler, b.dispatch == "handler_map"))[0]
        item.dispatch, item.implementation = best.dispatch, best.span
        item.nodes.append((best.file, best.node))
    seen: dict[str, _Found] = {}
    for item in [*decorated, *objects]:
        previous = seen.get(item.tool)
        if previous is None or (previous.implementation is None and item.implementation is not None):
            seen[item.tool] = item
    server_spans, server_names = _server_objects(files)
    registries = [*server_spans]
    for role, entries in handlers.items():
        for file, func in entries:
            registries.append(file.span(_start(func), _end(func), f"{role}_handler", func.name))
    registries += _handler_map_spans(files, names)
    registries += _tool_lists(files, handlers["list_tools"])
    skip = server_names | {f.name for role in handlers.values() for _f, f in role}
    tool_functions = {n.symbol for item in seen.values() for n in [item.definition] if item.registration
                      in ("decorator", "add_tool")}
    anchors: list[ToolAnchor] = []
    for item in sorted(seen.values(), key=lambda f: (f.definition.file, f.definition.start)):
        if item.implementation is None and item.registration in ("tool_object", "schema_dict"):
            problems.append(f"tool {item.tool!r}: definition at {item.definition.where} but no dispatch "
                            "branch or handler found")
        helpers, omitted = _attach_helpers(files, item, skip | (tool_functions - item.skip_helpers))
        anchors.append(ToolAnchor(tool=item.tool, registration=item.registration, dispatch=item.dispatch,
                                  definition=item.definition, implementation=item.implementation,
                                  helpers=helpers, omitted=omitted))
    registries.sort(key=lambda s: (s.file, s.start))
    return ServerAnchors(tools=anchors, registries=registries, problems=problems)


# --------------------------------------------------------------------------- rendering


FENCE_LANGUAGES = {".py": "python", ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
                   ".tsx": "tsx", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "jsx"}


def _fenced(span: CodeSpan, label: str) -> str:
    body = span.text if span.text.endswith("\n") else span.text + "\n"
    language = FENCE_LANGUAGES.get(Path(span.file).suffix, "")
    return f"{label} — {span.file}, lines {span.start}-{span.end}:\n```{language}\n{body}```\n"


def render_tool(anchor: ToolAnchor, full: bool = True, shown: set[tuple[str, int]] | None = None) -> str:
    """A tool's anchors as prompt text: definition, implementation, and (when ``full``) helpers.

    Helpers whose ``(file, start)`` is in ``shown`` are only named; the ones printed are added
    to it, so a sequence of tools shows each shared helper once.
    """
    how = anchor.registration + (f", dispatch by {anchor.dispatch}" if anchor.dispatch else "")
    parts = [f"### Tool `{anchor.tool}` ({how})\n", _fenced(anchor.definition, "Definition")]
    if anchor.implementation is not None and full:
        parts.append(_fenced(anchor.implementation, "Implementation"))
    if full:
        seen = shown if shown is not None else set()
        repeated = [h.symbol for h in anchor.helpers if (h.file, h.start) in seen]
        parts += [_fenced(h, f"Helper `{h.symbol}`") for h in anchor.helpers if (h.file, h.start) not in seen]
        seen.update((h.file, h.start) for h in anchor.helpers)
        if repeated:
            parts.append("Also uses helpers shown above: " + ", ".join(f"`{name}`" for name in repeated) + "\n")
        if anchor.omitted:
            parts.append("Helpers too long to show: " + "; ".join(anchor.omitted) + "\n")
    return "\n".join(parts)


def render_registries(anchors: ServerAnchors) -> str:
    """The server object, tool-list and call handlers, and handler maps, as prompt text."""
    if not anchors.registries:
        return "(no server object or handlers found outside the tools themselves)\n"
    return "\n".join(_fenced(s, s.role.replace("_", " ").capitalize()) for s in anchors.registries)
