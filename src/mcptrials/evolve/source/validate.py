"""Functional validation of a mutated tree: compile, start, classify the change, run test calls.

Each check raises ``StepRejected`` naming its step, so a round can report exactly where a
candidate version failed.
"""

from __future__ import annotations

import ast
import py_compile
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from mcptrials.evolve.changes import PARAM_CONTRACT_KINDS, ChangeKind, DiffReport
from mcptrials.evolve.diff import diff_tool_lists
from mcptrials.evolve.operators import Operator
from mcptrials.evolve.source.anchor_js import code_shape, syntax_errors
from mcptrials.evolve.source.steps import StepRejected, TestCase
from mcptrials.evolve.source.tree import JS_SUFFIXES, SourceServer
from mcptrials.model import ToolInfo, qualified_name
from mcptrials.safety.tempdirs import temp_prefix
from mcptrials.servers.toolbox import Limits, Toolbox, open_toolbox


class TestResult(BaseModel):
    """One test call as sent, what the server answered, and whether that was what was expected."""

    __test__ = False  # not a pytest test class, despite the name

    model_config = ConfigDict(extra="forbid")

    case: TestCase
    outcome: Literal["ok", "error"]
    passed: bool
    detail: str = ""


def compile_files(root: Path, files: list[str]) -> None:
    """Byte-compile every changed ``.py`` file (into a scratch folder) and parse every changed JavaScript or
    TypeScript file with tree-sitter; reject on the first error."""
    if any(Path(f).suffix in JS_SUFFIXES for f in files):
        problems = syntax_errors(root, files)
        if problems:
            raise StepRejected("compile", "; ".join(problems))
    with tempfile.TemporaryDirectory(prefix=temp_prefix("compile")) as scratch:
        for index, rel in enumerate(f for f in files if f.endswith(".py")):
            try:
                py_compile.compile(str(root / rel), cfile=str(Path(scratch) / f"{index}.pyc"), doraise=True)
            except py_compile.PyCompileError as exc:
                error = exc.exc_value
                line = getattr(error, "lineno", None)
                message = getattr(error, "msg", None) or str(error)
                where = f"{rel}:{line}" if line else rel
                raise StepRejected("compile", f"{where}: {type(error).__name__}: {message}") from None


def wire_tools(tools: list[ToolInfo]) -> list[dict[str, Any]]:
    """Tools in the ``tools/list`` wire shape the diff engine reads."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        item: dict[str, Any] = {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}
        if tool.output_schema is not None:
            item["outputSchema"] = tool.output_schema
        out.append(item)
    return out


@asynccontextmanager
async def started(server: SourceServer, sandbox: Path, limits: Limits,
                  check_origin: bool = True) -> AsyncIterator[tuple[Toolbox, list[dict[str, Any]]]]:
    """Start the tree's server over stdio; yield its toolbox and tool list; stop it afterwards."""
    if check_origin:
        origin = server.module_origin()
        root = server.root.resolve()
        if origin is None:
            raise StepRejected("start", f"module {server.module!r} cannot be found from {root}")
        if root not in origin.parents:
            raise StepRejected("start", f"module {server.module!r} resolves to {origin}, outside the version's "
                                        f"tree {root}; the copy would not be the code that runs")
    spec = server.spec()
    try:
        async with open_toolbox([spec], sandbox, limits=limits) as toolbox:
            failure = toolbox.failures.get(spec.name)
            if failure is not None:
                tail = f" (stderr: {' | '.join(failure.stderr_tail.splitlines()[-4:])})" if failure.stderr_tail else ""
                raise StepRejected("start", f"the server did not start: {failure.reason}{tail}")
            yield toolbox, wire_tools(toolbox.tools)
    except BaseExceptionGroup as group:
        leaves = _leaves(group)
        if len(leaves) == 1:
            raise leaves[0] from None
        raise


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    """The plain exceptions inside a (possibly nested) exception group."""
    out: list[BaseException] = []
    for exc in group.exceptions:
        out.extend(_leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return out


async def list_tools(server: SourceServer, limits: Limits | None = None) -> list[dict[str, Any]]:
    """Start the tree's server once and return its tool list."""
    with tempfile.TemporaryDirectory(prefix=temp_prefix("list")) as sandbox:
        async with started(server, Path(sandbox), limits or Limits()) as (_toolbox, tools):
            return tools


def target_problems(op: Operator, diff: DiffReport, targets: list[str]) -> list[str]:
    """Whether the change hit the tools the selection named (the operator checks the rest)."""
    if not targets or op.id in ("O1", "O4"):
        if op.id == "O4":
            described = {t.tool for t in diff.by_status("changed")}
            return [f"{op.label} retuned {', '.join(sorted(described - set(targets)))}, which were not among the "
                    f"target tools ({', '.join(targets)})"] if described - set(targets) else []
        return []
    target = targets[0]
    if op.id in ("O2", "O3"):
        gone = {t.old_name for t in diff.by_status("replaced")} | {t.tool for t in diff.by_status("removed")}
        return [] if target in gone else [f"{op.label} should take away {target!r}, but it is still there"]
    touched = {t.tool for t in diff.tools if t.status == "changed"}
    return [f"{op.label} changed {', '.join(sorted(touched))} instead of the target {target!r}"] \
        if touched and target not in touched else []


def classify(op: Operator, old: list[dict[str, Any]], new: list[dict[str, Any]],
             targets: list[str], extra: list[str] | None = None) -> DiffReport:
    """Diff old and new tool lists; reject when nothing changed or the operator forbids the change.

    ``extra`` holds problems found in the source itself, reported together with the diff's.
    """
    diff = diff_tool_lists(old, new)
    if not diff.changed:
        raise StepRejected("classify", "; ".join(["the tool list the server publishes did not change",
                                                  *(extra or [])]))
    problems = op.check(diff) + target_problems(op, diff, targets) + list(extra or [])
    if problems:
        raise StepRejected("classify", "; ".join(problems))
    return diff


def tightened_tools(diff: DiffReport) -> set[str]:
    """Tools whose contract now refuses some calls the old one accepted."""
    out: set[str] = set()
    for tool in diff.tools:
        if tool.status not in ("changed", "replaced"):
            continue
        for change in tool.changes:
            if change.kind is ChangeKind.PARAM_ADDED_REQUIRED or (
                    change.kind in PARAM_CONTRACT_KINDS and change.kind is not ChangeKind.PARAM_DEFAULT_CHANGED
                    and change.direction in ("tightened", "changed")):
                out.add(tool.tool)
    return out


def describe_changes(diff: DiffReport) -> str:
    """The diff as short lines for the test-writing prompt."""
    lines = []
    for tool in diff.tools:
        head = f"- {tool.tool}: {tool.status}" + (f" (was {tool.old_name})" if tool.old_name not in (None, tool.tool)
                                                  else "")
        lines.append(head + (f" [{', '.join(tool.patterns)}]" if tool.patterns else ""))
        for change in tool.changes:
            where = f"{change.param}: " if change.param else ""
            direction = f" ({change.direction})" if change.direction else ""
            detail = f" [{change.detail}]" if change.detail and change.detail != "description" else ""
            lines.append(f"    {where}{change.kind.value}{direction}{detail}")
    return "\n".join(lines) + "\n"


def coverage_problems(cases: list[TestCase], diff: DiffReport, new_tools: list[dict[str, Any]]) -> list[str]:
    """What the test cases fail to cover: an "ok" call per new or changed tool, refusals when tightened."""
    names = {t["name"] for t in new_tools}
    gone = {t.tool for t in diff.by_status("removed")} | {t.old_name for t in diff.by_status("replaced") if t.old_name}
    problems = []
    for case in cases:
        if case.tool not in names and not (case.tool in gone and case.expect == "validation_error"):
            problems.append(f"test case {case.name or case.tool!r} calls {case.tool!r}, which the new version "
                            "does not offer")
    for tool in diff.tools:
        if tool.status != "removed" and not any(c.tool == tool.tool and c.expect == "ok" for c in cases):
            problems.append(f"no test case expects a successful call of the {tool.status} tool {tool.tool!r}")
    for tool_name in sorted(tightened_tools(diff)):
        if not any(c.tool == tool_name and c.expect == "validation_error" for c in cases):
            problems.append(f"the release tightened {tool_name!r}, but no test case expects it to refuse a call")
    return problems


async def run_cases(toolbox: Toolbox, server: str, cases: list[TestCase]) -> list[TestResult]:
    """Send every test call to the running server and compare the outcome with the expectation."""
    results = []
    for case in cases:
        _server, _tool, outcome = await toolbox.call(qualified_name(server, case.tool), case.arguments)
        got: Literal["ok", "error"] = "error" if outcome.is_error else "ok"
        passed = (got == "ok") == (case.expect == "ok")
        detail = " ".join(outcome.content.split())[:300]
        results.append(TestResult(case=case, outcome=got, passed=passed, detail=detail))
    return results


# --------------------------------------------------------------------------- documentation-only edits


class _DocsStripper(ast.NodeTransformer):
    """Blank out what only documents code: docstrings, description texts, type annotations."""

    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:] or [ast.Pass()]
        return body

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            node.body = self._body(node.body)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            node.returns = None
        if isinstance(node, ast.arg):
            node.annotation = None
        if isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(value=None)
        if isinstance(node, ast.Call):
            node.keywords = [k for k in node.keywords if k.arg != "description"]
        if isinstance(node, ast.Dict):
            pairs = [(k, v) for k, v in zip(node.keys, node.values, strict=True)
                     if not (isinstance(k, ast.Constant) and k.value == "description")]
            node.keys, node.values = [k for k, _ in pairs], [v for _, v in pairs]
        return super().generic_visit(node)


def _code_shape(text: str) -> list[tuple[int, str]]:
    """Each top-level statement's first line and its dump with documentation removed."""
    tree = _DocsStripper().visit(ast.parse(text))
    return [(getattr(stmt, "lineno", 0), ast.dump(stmt)) for stmt in tree.body
            if not isinstance(stmt, ast.Import | ast.ImportFrom)]


def docs_only_problems(old_root: Path, new_root: Path, files: list[str]) -> list[str]:
    """Where changed files differ in more than documentation (docstrings, descriptions, annotations, comments).

    Imports are set aside (a description may need ``Field``), and so are annotations, because a
    parameter description can be added by wrapping a type in ``Annotated[..., Field(...)]``;
    what the annotations publish is checked on the tool list instead.
    """
    problems = []
    for rel in files:
        script = Path(rel).suffix in JS_SUFFIXES
        if not rel.endswith(".py") and not script:
            problems.append(f"{rel} is not Python, JavaScript or TypeScript source")
            continue
        old_path = old_root / rel
        if not old_path.exists():
            problems.append(f"{rel} is a new file")
            continue
        if script:  # token by token, documentation left out
            old, new = code_shape(old_path.read_bytes(), rel), code_shape((new_root / rel).read_bytes(), rel)
        else:
            old = _code_shape(old_path.read_text(encoding="utf-8"))
            new = _code_shape((new_root / rel).read_text(encoding="utf-8"))
        if [d for _, d in old] == [d for _, d in new]:
            continue
        line = next((n_line for (_, o), (n_line, n) in zip(old, new, strict=False) if o != n),
                    new[len(old)][0] if len(new) > len(old) else (new[-1][0] if new else 0))
        problems.append(f"the code of {rel} changed outside docstrings and descriptions (near line {line})")
    return problems
