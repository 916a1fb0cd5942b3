"""The three model steps of a round: select an operator, apply it as hunks, write test cases.

Each step renders its prompt files, asks a ``ChatModel`` (no tools offered), parses the JSON
reply and checks it. A reply that cannot be used raises ``StepRejected`` with the step's name
and a reason the next attempt can be shown.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcptrials.evolve.operators import OPERATORS, Operator
from mcptrials.evolve.source.anchor import ServerAnchors, render_registries, render_tool
from mcptrials.evolve.source.hunks import Hunk, HunkError, hunks_from_value
from mcptrials.evolve.source.prompts import prompt_hash, render
from mcptrials.evolve.source.replies import ReplyError, extract_object
from mcptrials.evolve.source.tree import SourceServer
from mcptrials.models.base import ChatModel, Message

Step = Literal["select", "apply", "patch", "compile", "start", "classify", "test"]
"""The steps of a round, in order; a rejection names the one that failed."""

TARGETED = frozenset({"O2", "O3", "O5", "O6", "O7", "O8", "O9", "O10", "O11"})
"""Operators that act on exactly one existing tool."""
NEED_PARAMS = frozenset({"O6", "O7", "O10", "O11"})
"""Operators whose target must already have parameters."""
ANCHOR_BUDGET_LINES = 400
"""Above this many lines of anchors, only the target tools are shown in full."""


class StepRejected(Exception):
    """A step whose outcome cannot be used; the round attempt stops there."""

    def __init__(self, step: Step, reason: str) -> None:
        super().__init__(f"{step}: {reason}")
        self.step: Step = step
        self.reason = reason


class Selection(BaseModel):
    """The operator the model chose, the tools it targets and why."""

    model_config = ConfigDict(extra="forbid")

    operator: str
    target_tools: list[str] = Field(default_factory=list)
    rationale: str = ""


class Application(BaseModel):
    """The model's edit: a summary, the operator-specific record, and the hunks."""

    model_config = ConfigDict(extra="forbid")

    summary: str = ""
    details: dict[str, Any] = Field(default_factory=dict)
    hunks: list[Hunk]


class TestCase(BaseModel):
    """One call to send to the mutated server, and whether it must succeed or be refused."""

    __test__ = False  # not a pytest test class, despite the name

    model_config = ConfigDict(extra="ignore")

    name: str = ""
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    expect: Literal["ok", "validation_error"]
    objective: str = ""


# --------------------------------------------------------------------------- rendering inputs


def _param_line(name: str, schema: dict[str, Any], required: bool) -> str:
    kind = schema.get("type")
    if kind is None and isinstance(schema.get("anyOf"), list):
        kind = "|".join(str(s.get("type", "?")) for s in schema["anyOf"] if isinstance(s, dict))
    facts = [str(kind or "any"), "required" if required else "optional"]
    if "enum" in schema:
        facts.append("one of: " + ", ".join(map(str, schema["enum"])))
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
                "minItems", "maxItems", "pattern", "default"):
        if key in schema:
            facts.append(f"{key}={json.dumps(schema[key])}")
    text = f"    - {name} ({', '.join(facts)})"
    description = " ".join(str(schema.get("description", "")).split())
    return f"{text}: {description}" if description else text


def summarize_tools(tools: list[dict[str, Any]]) -> str:
    """A tool list as compact text: name, description, and one line per parameter."""
    if not tools:
        return "(no tools)\n"
    lines: list[str] = []
    for tool in tools:
        description = " ".join(str(tool.get("description", "")).split())
        lines.append(f"- {tool['name']}: {description}")
        schema = tool.get("inputSchema") or {}
        required = set(schema.get("required", []))
        for name, param in (schema.get("properties") or {}).items():
            lines.append(_param_line(name, param if isinstance(param, dict) else {}, name in required))
    return "\n".join(lines) + "\n"


def operator_catalogue(allowed: list[str] | None = None) -> str:
    """The operators a round may use, one block each, for the selection prompt."""
    blocks = []
    for op in OPERATORS.values():
        if allowed is not None and op.id not in allowed:
            continue
        blocks.append(f"- {op.id} {op.name} [{op.level.value}]: {op.summary}\n"
                      f"    may change: {'; '.join(op.may_change)}\n"
                      f"    must not change: {'; '.join(op.may_not_change)}")
    return "\n".join(blocks) + "\n"


def feedback_text(rejections: list[str]) -> str:
    """Earlier rejections of this round, for the next attempt's prompts (empty when none)."""
    if not rejections:
        return ""
    lines = "\n".join(f"- {r}" for r in rejections)
    return f"\n## Earlier attempts at this release were rejected\n{lines}\n"


def render_anchors(anchors: ServerAnchors, targets: list[str]) -> str:
    """Anchors for the apply prompt: every tool in full when small enough, else the targets in full."""
    lines = sum(len(s.text.splitlines()) for t in anchors.tools
                for s in [t.definition, *([t.implementation] if t.implementation else []), *t.helpers])
    small = lines <= ANCHOR_BUDGET_LINES
    # Without targets (a new tool), the first tool is shown whole as an example of the house style.
    shown: set[tuple[str, int]] = set()
    parts = [render_tool(t, full=small or t.tool in targets or (not targets and i == 0), shown=shown)
             for i, t in enumerate(anchors.tools)]
    if anchors.problems:
        parts.append("Notes from the code scan: " + "; ".join(anchors.problems) + "\n")
    return "\n".join(parts) if parts else "(no tool definitions were found in the source)\n"


# --------------------------------------------------------------------------- the model


async def ask(model: ChatModel, system: str, user: str) -> str:
    """One model call with a system and a user message and no tools; returns the reply text."""
    response = await model.generate([Message(role="system", content=system), Message(role="user", content=user)], [])
    return response.text


def _operator_id(value: Any) -> str:
    text = str(value or "").strip()
    if text.upper() in OPERATORS:
        return text.upper()
    if text.isdigit() and f"O{int(text)}" in OPERATORS:
        return f"O{int(text)}"
    by_name = {op.name.lower(): op.id for op in OPERATORS.values()}
    if text.lower() in by_name:
        return by_name[text.lower()]
    head = text.split()[0].upper() if text.split() else ""
    if head in OPERATORS:
        return head
    raise ValueError(f"unknown operator {text!r} (expected one of {', '.join(OPERATORS)})")


def _targets(data: dict[str, Any]) -> list[str]:
    raw = data.get("target_tools", data.get("target_tool", data.get("targets")))
    if raw is None:
        return []
    if isinstance(raw, str):
        return [raw] if raw.strip() else []
    if isinstance(raw, list) and all(isinstance(t, str) for t in raw):
        return [t for t in raw if t.strip()]
    raise ValueError("target_tools must be a list of tool names")


def selection_problems(op: Operator, targets: list[str], tools: list[dict[str, Any]]) -> list[str]:
    """Why this operator cannot be applied to these targets on this tool list (empty = it can)."""
    by_name = {t["name"]: t for t in tools}
    problems = [f"target tool {t!r} does not exist" for t in targets if t not in by_name]
    if problems:
        return problems
    if op.id in TARGETED and len(targets) != 1:
        problems.append(f"{op.label} needs exactly one target tool, got {len(targets)}")
    if op.id == "O4" and not targets:
        problems.append(f"{op.label} needs the related tools whose descriptions it retunes")
    if op.id == "O3" and len(tools) < 2:
        problems.append(f"{op.label} needs at least two tools, so one can absorb the removed one")
    if op.id in NEED_PARAMS and len(targets) == 1:
        params = (by_name[targets[0]].get("inputSchema") or {}).get("properties") or {}
        if not params:
            problems.append(f"{op.label} needs a target with parameters; {targets[0]!r} has none")
    return problems


async def select_operator(model: ChatModel, server: SourceServer, tools: list[dict[str, Any]],
                          allowed: list[str] | None, feedback: list[str]) -> Selection:
    """Step 1: ask the model which operator to apply, to which tools, and check the answer."""
    user = render("select_user", server_name=server.name, server_description=server.description or "(none)",
                  tool_list=summarize_tools(tools), catalogue=operator_catalogue(allowed),
                  feedback=feedback_text(feedback))
    reply = await ask(model, render("select_system"), user)
    try:
        data = extract_object(reply)
        operator = _operator_id(data.get("operator", data.get("operator_id")))
        targets = _targets(data)
    except (ReplyError, ValueError) as exc:
        raise StepRejected("select", str(exc)) from None
    if allowed is not None and operator not in allowed:
        raise StepRejected("select", f"operator {operator} is not among the allowed ones ({', '.join(allowed)})")
    op = OPERATORS[operator]
    if op.id == "O1":
        targets = []
    problems = selection_problems(op, targets, tools)
    if problems:
        raise StepRejected("select", "; ".join(problems))
    return Selection(operator=operator, target_tools=targets, rationale=str(data.get("rationale", "")))


async def apply_operator(model: ChatModel, server: SourceServer, tools: list[dict[str, Any]], anchors: ServerAnchors,
                         selection: Selection, feedback: list[str]) -> Application:
    """Step 2: ask the model for the hunks that carry out the chosen operator."""
    op = OPERATORS[selection.operator]
    language = "JavaScript (or TypeScript)" if server.runtime == "node" else "Python"
    system = render("apply_system", operator_instructions=render(f"operators/{op.id}"),
                    hunk_format=render("hunk_format"), language=language)
    user = render("apply_user", server_name=server.name, server_description=server.description or "(none)",
                  operator_label=f"{op.label} [{op.level.value}]",
                  target_tools=", ".join(selection.target_tools) or "(none: the operator adds a tool)",
                  rationale=selection.rationale or "(not given)", tool_list=summarize_tools(tools),
                  anchors=render_anchors(anchors, selection.target_tools), registries=render_registries(anchors),
                  feedback=feedback_text(feedback))
    reply = await ask(model, system, user)
    try:
        data = extract_object(reply, list_key="hunks")
        hunks = hunks_from_value(data)
    except (ReplyError, HunkError) as exc:
        raise StepRejected("apply", str(exc)) from None
    details = data.get("details")
    if not isinstance(details, dict):
        skipped = {"summary", "details", "hunks", "diff_hunks", "changes", "edits"}
        details = {k: v for k, v in data.items() if k not in skipped}
    return Application(summary=str(data.get("summary", "")), details=details, hunks=hunks)


async def write_test_cases(model: ChatModel, server: SourceServer, selection: Selection, summary: str,
                           changes: str, new_tools: list[dict[str, Any]], old_tools: list[dict[str, Any]],
                           limit: int) -> list[TestCase]:
    """Step 3: ask the model for test calls against the changed tools."""
    user = render("tests_user", server_name=server.name, server_description=server.description or "(none)",
                  operator_label=OPERATORS[selection.operator].label, summary=summary or "(none)",
                  changes=changes, tools_to_test=json.dumps(new_tools, indent=2, ensure_ascii=False),
                  old_tools=json.dumps(old_tools, indent=2, ensure_ascii=False) if old_tools else "(none)")
    reply = await ask(model, render("tests_system"), user)
    try:
        data = extract_object(reply, list_key="test_cases")
    except ReplyError as exc:
        raise StepRejected("test", f"test cases: {exc}") from None
    raw = data.get("test_cases", data.get("tests"))
    if not isinstance(raw, list) or not raw:
        raise StepRejected("test", "the reply holds no list of test cases")
    cases: list[TestCase] = []
    for index, item in enumerate(raw[:limit]):
        if isinstance(item, dict):
            item = _normalize_case(item, server.name)
        try:
            cases.append(TestCase.model_validate(item))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "case"
            raise StepRejected("test", f"test case {index + 1}: {where}: {first['msg']}") from None
    return cases


def _normalize_case(item: dict[str, Any], server: str) -> dict[str, Any]:
    """Accept the paper's key names and qualified tool names in a test case."""
    out = dict(item)
    if "tool" not in out and "tool_name" in out:
        out["tool"] = out["tool_name"]
    if "arguments" not in out and "input_arguments" in out:
        out["arguments"] = out["input_arguments"]
    if "expect" not in out and "expected_status" in out:
        out["expect"] = out["expected_status"]
    if "name" not in out and "test_name" in out:
        out["name"] = out["test_name"]
    expect = str(out.get("expect", "")).strip().lower().replace(" ", "_").replace("-", "_")
    out["expect"] = {"success": "ok", "validation_error": "validation_error", "error": "validation_error"}.get(
        expect, expect)
    tool = str(out.get("tool", ""))
    if tool.startswith(f"{server}__"):
        out["tool"] = tool[len(server) + 2:]
    return out


def prompt_hashes(operator: str) -> dict[str, str]:
    """Hashes of every prompt file a round with this operator uses, for the manifest."""
    names = ["select_system", "select_user", "apply_system", "apply_user", "hunk_format",
             f"operators/{operator}", "tests_system", "tests_user"]
    return {name: prompt_hash(name) for name in names}
