"""What a source round changed, written as an evolution plan (``served_by: source``) beside its tree.

The rewritten code serves the version; the plan records the interface change in the vocabulary
interface lineages use (rename_tool, remove_tool with its migration, add_param, ...), so tasks
are remapped to a source-evolved version by the same code (``mapping.py``) as to a proxied one.
The plan is read from the round's diff of the published tool lists, helped by what the model
said it did (``details``): a renamed parameter, or how a removed tool's calls reach the tool
that absorbed it, is not visible in the tool lists alone.
"""

from __future__ import annotations

from typing import Any

from mcptrials.evolve.changes import ChangeKind, DiffReport, ToolDiff
from mcptrials.evolve.diff import diff_tool_lists, strip_docs
from mcptrials.evolve.plan import CONSTRAINT_KEYWORDS, EvolutionPlan, parse_plan

K = ChangeKind
PLAN = "plan.yaml"
"""The file name of a version's plan, as in interface lineages."""


def _schema(tools: dict[str, dict[str, Any]], tool: str) -> dict[str, Any]:
    return dict(tools[tool].get("inputSchema") or {})


def _props(tools: dict[str, dict[str, Any]], tool: str) -> dict[str, Any]:
    return dict(_schema(tools, tool).get("properties") or {})


def _param_renames(diff: ToolDiff, details: dict[str, Any]) -> dict[str, str]:
    """Old -> new parameter names: as the model stated them, else a removed and an added parameter with one schema."""
    stated = details.get("param_renames")
    if isinstance(stated, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in stated.items()):
        return dict(stated)
    removed = [c for c in diff.changes if c.kind in (K.PARAM_REMOVED_OPTIONAL, K.PARAM_REMOVED_REQUIRED)]
    added = [c for c in diff.changes if c.kind in (K.PARAM_ADDED_OPTIONAL, K.PARAM_ADDED_REQUIRED)]
    out: dict[str, str] = {}
    for old in removed:
        same = [new for new in added if strip_docs(new.new) == strip_docs(old.old) and new.param not in out.values()]
        if len(same) == 1 and old.param and same[0].param:
            out[old.param] = same[0].param
    return out


def _constraint_op(tool: str, param: str, old: dict[str, Any], new: dict[str, Any],
                   operator: str) -> list[dict[str, Any]]:
    keys = {k for k in set(old) | set(new) if k in CONSTRAINT_KEYWORDS and old.get(k) != new.get(k)}
    put = {k: new[k] for k in sorted(keys) if k in new}
    gone = sorted(k for k in keys if k not in new)
    return [{"op": "constrain_param", "operator": operator, "tool": tool, "param": param, "set": put,
             "remove": gone}] if put or gone else []


def _param_ops(diff: ToolDiff, tool: str, old_tools: dict[str, dict[str, Any]], new_tools: dict[str, dict[str, Any]],
               renames: dict[str, str], operator: str) -> list[dict[str, Any]]:
    """Operations for one tool's parameter changes (``tool`` is its name after any rename)."""
    ops: list[dict[str, Any]] = []
    old_name = diff.old_name or diff.tool
    old_props, new_props = _props(old_tools, old_name), _props(new_tools, diff.tool)
    required = set(_schema(new_tools, diff.tool).get("required") or [])
    renamed_to = set(renames.values())
    for change in diff.changes:
        param = change.param or ""
        if change.kind in (K.PARAM_ADDED_OPTIONAL, K.PARAM_ADDED_REQUIRED) and param not in renamed_to:
            schema = new_props[param]
            op: dict[str, Any] = {"op": "add_param", "operator": operator, "tool": tool, "param": param,
                                  "schema": {k: v for k, v in schema.items() if k != "description"},
                                  "required": param in required}
            if "default" in schema:
                op["default"] = schema["default"]
            if schema.get("description"):
                op["description"] = schema["description"]
            ops.append(op)
        elif change.kind in (K.PARAM_REMOVED_OPTIONAL, K.PARAM_REMOVED_REQUIRED) and param not in renames:
            op = {"op": "remove_param", "operator": operator, "tool": tool, "param": param}
            if old_props.get(param, {}).get("default") is not None:
                op["fill"] = old_props[param]["default"]
            ops.append(op)
        elif change.kind in (K.PARAM_PROMOTED, K.PARAM_DEMOTED):
            op = {"op": "set_required", "operator": operator, "tool": tool, "param": param,
                  "required": change.kind is K.PARAM_PROMOTED}
            if old_props.get(param, {}).get("default") is not None:
                op["fill"] = old_props[param]["default"]
            ops.append(op)
        elif change.kind in (K.PARAM_TYPE_CHANGED, K.PARAM_CONSTRAINT_CHANGED):
            if not any(o["op"] == "constrain_param" and o["param"] == param for o in ops):
                ops += _constraint_op(tool, param, old_props.get(param, {}), new_props.get(param, {}), operator)
        elif change.kind is K.PARAM_DESC_CHANGED and new_props.get(param, {}).get("description"):
            ops.append({"op": "describe_param", "operator": operator, "tool": tool, "param": param,
                        "description": new_props[param]["description"]})
    return ops


def _migration(details: dict[str, Any], removed: str, survivors: list[str]) -> dict[str, Any] | None:
    """Where a removed tool's calls go, from the model's record: the absorbing tool, its selector, renamed args."""
    target = details.get("absorbing_tool")
    if not isinstance(target, str) or target not in survivors:
        target = survivors[0] if len(survivors) == 1 else None
    if target is None:
        return None
    move: dict[str, Any] = {"tool": target}
    selector = details.get("selector")
    if isinstance(selector, dict) and isinstance(selector.get("name"), str) and selector.get("value") is not None:
        move.update({"selector": selector["name"], "value": str(selector["value"])})
    arg_map = details.get("arg_map")
    if isinstance(arg_map, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in arg_map.items()):
        move["arg_map"] = dict(arg_map)
    return move


def round_plan(diff: DiffReport, old_tools: list[dict[str, Any]], new_tools: list[dict[str, Any]], operator: str,
               details: dict[str, Any], *, version: str, parent: str | None, server: str,
               summary: str) -> EvolutionPlan:
    """The plan that records one accepted source round (``served_by: source``), checked like any plan.

    For O2 a removed and an added tool are the replacement, however different (as the operator's
    check counts them), so the old tool's calls follow it.
    """
    removed, added = diff.by_status("removed"), diff.by_status("added")
    if operator == "O2" and len(removed) == 1 and len(added) == 1:
        diff = diff_tool_lists(old_tools, new_tools, replacements={removed[0].tool: added[0].tool})
    old = {t["name"]: t for t in old_tools}
    new = {t["name"]: t for t in new_tools}
    ops: list[dict[str, Any]] = []
    for tool in diff.by_status("replaced"):
        renames = _param_renames(tool, details)
        op: dict[str, Any] = {"op": "rename_tool", "operator": operator, "tool": tool.old_name, "new_name": tool.tool,
                              "description": new[tool.tool].get("description", "")}
        if renames:
            op["param_renames"] = renames
        ops += [op, *_param_ops(tool, tool.tool, old, new, renames, operator)]
    survivors = [t.tool for t in diff.by_status("changed")]
    for tool in diff.by_status("changed"):
        if tool.kinds() & {K.TOOL_DESC_CHANGED}:
            ops.append({"op": "describe_tool", "operator": operator, "tool": tool.tool,
                        "description": new[tool.tool].get("description", "")})
        renames = _param_renames(tool, details)
        ops += [{"op": "rename_param", "operator": operator, "tool": tool.tool, "param": a, "new_name": b}
                for a, b in renames.items()]
        ops += _param_ops(tool, tool.tool, old, new, renames, operator)
    for tool in diff.by_status("added"):
        ops.append({"op": "add_tool", "operator": operator, "name": tool.tool,
                    "description": new[tool.tool].get("description", ""),
                    "input_schema": new[tool.tool].get("inputSchema") or {"type": "object", "properties": {}}})
    for tool in diff.by_status("removed"):
        op = {"op": "remove_tool", "operator": operator, "tool": tool.tool}
        move = _migration(details, tool.tool, survivors)
        if move is not None:
            op["migrate_to"] = move
        ops.append(op)
    data = {"version": version, "parent": f"../{parent}/{PLAN}" if parent and parent != "v0" else None,
            "server": server, "summary": summary, "served_by": "source", "operations": ops}
    return parse_plan(data, f"source round {version}")
