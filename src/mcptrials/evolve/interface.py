"""Turn an upstream tool list plus a plan chain into an evolved interface that can serve calls.

Each evolved tool is a ``VirtualTool``: the schema the agent sees and a handler that turns the
agent's arguments into one or more upstream calls. Every plan operation rewrites schemas and
wraps handlers, so operations compose: a later round acts on what earlier rounds produced.
Nothing here does I/O; ``proxy.py`` supplies the upstream caller and serves the result.

Argument checks the plan introduces (new parameters, tightened constraints, promoted
parameters, merged-tool selectors) are enforced here and reported as ``ArgumentError``, which
the interface turns into an ``is_error`` tool result. Parameter names the plan retired
(renamed or removed) are rejected, or silently dropped when the plan says ``unknown_args:
ignore``; any other argument passes through to the upstream server unchanged.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import mcp_types as types
from jsonschema import Draft202012Validator

from mcptrials.evolve.diff import normalize_tool_list, strip_docs
from mcptrials.evolve.plan import (
    TEMPLATE,
    AddParam,
    AddTool,
    ConstrainParam,
    DescribeParam,
    DescribeTool,
    EvolutionPlan,
    MergeTools,
    Operation,
    PlanChain,
    PlanError,
    RemoveParam,
    RemoveTool,
    RenameParam,
    RenameTool,
    SetRequired,
)

UpstreamCall = Callable[[str, dict[str, Any]], Awaitable[types.CallToolResult]]
"""Calls one upstream tool by its original name."""

Handler = Callable[[dict[str, Any], UpstreamCall], Awaitable[types.CallToolResult]]
"""Serves one evolved tool: the agent's arguments in, a tool result out."""


class ArgumentError(Exception):
    """The agent's arguments do not fit the evolved interface."""


def error_result(text: str) -> types.CallToolResult:
    """A tool result that reports an error to the agent."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


@dataclass
class VirtualTool:
    """One tool of the evolved interface: what the agent sees and how calls reach upstream."""

    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Handler
    output_schema: dict[str, Any] | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    retired: set[str] = field(default_factory=set)

    @property
    def properties(self) -> dict[str, Any]:
        """The parameter schemas, by name (created empty when missing)."""
        props: dict[str, Any] = self.input_schema.setdefault("properties", {})
        return props

    @property
    def required(self) -> list[str]:
        """The required parameter names (created empty when missing)."""
        req: list[str] = self.input_schema.setdefault("required", [])
        return req

    def param(self, name: str) -> dict[str, Any]:
        """The schema of one parameter; a PlanError lists the real ones when it is missing."""
        if name not in self.properties:
            known = ", ".join(self.properties) or "none"
            raise PlanError(f"tool {self.name!r} has no parameter {name!r} (parameters: {known})")
        schema: dict[str, Any] = self.properties[name]
        return schema

    def wire(self) -> dict[str, Any]:
        """The tool in MCP wire form (``inputSchema`` spelling)."""
        out: dict[str, Any] = {"name": self.name, "description": self.description, **self.extras,
                               "inputSchema": self.input_schema}
        if self.output_schema is not None:
            out["outputSchema"] = self.output_schema
        return out

    def evolved(self, **changes: Any) -> VirtualTool:
        """A copy with a deep-copied schema and the given fields replaced."""
        fresh: dict[str, Any] = {"input_schema": copy.deepcopy(self.input_schema),
                                 "extras": dict(self.extras), "retired": set(self.retired)}
        return dataclasses.replace(self, **{**fresh, **changes})


class EvolvedInterface:
    """The evolved tool list of one server version, able to serve calls through an upstream."""

    def __init__(self, tools: dict[str, VirtualTool], unknown_args: Literal["reject", "ignore"] = "reject"):
        self.tools = tools
        self.unknown_args = unknown_args

    def tool_list(self) -> list[dict[str, Any]]:
        """The evolved tools in MCP wire form, in listing order."""
        return [t.wire() for t in self.tools.values()]

    async def call(self, name: str, args: dict[str, Any] | None,
                   upstream: UpstreamCall) -> types.CallToolResult:
        """Serve one call; unknown tools and bad arguments come back as ``is_error`` results."""
        tool = self.tools.get(name)
        if tool is None:
            return error_result(f"Unknown tool: {name}")
        args = dict(args or {})
        stale = sorted(k for k in args if k in tool.retired and k not in tool.properties)
        if stale and self.unknown_args == "reject":
            return error_result(f"Invalid arguments for tool '{name}': unexpected parameter(s) "
                                f"{', '.join(stale)}")
        for key in stale:
            del args[key]
        try:
            return await tool.handler(args, upstream)
        except ArgumentError as exc:
            return error_result(f"Invalid arguments for tool '{name}': {exc}")


# --------------------------------------------------------------------------- handler building blocks


def _forward(upstream_name: str) -> Handler:
    async def handler(args: dict[str, Any], upstream: UpstreamCall) -> types.CallToolResult:
        return await upstream(upstream_name, args)
    return handler


def _mapped(inner: Handler, transform: Callable[[dict[str, Any]], dict[str, Any]]) -> Handler:
    async def handler(args: dict[str, Any], upstream: UpstreamCall) -> types.CallToolResult:
        return await inner(transform(dict(args)), upstream)
    return handler


def _rename_keys(renames: dict[str, str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Rename argument keys new -> old, leaving the others alone."""
    def transform(args: dict[str, Any]) -> dict[str, Any]:
        return {renames.get(k, k): v for k, v in args.items()}
    return transform


def _check_value(name: str, value: Any, schema: dict[str, Any]) -> None:
    error = next(iter(Draft202012Validator(schema).iter_errors(value)), None)
    if error is not None:
        raise ArgumentError(f"parameter '{name}': {error.message}")


def _require(args: dict[str, Any], names: Sequence[str], when: str = "") -> None:
    missing = [n for n in names if n not in args]
    if missing:
        raise ArgumentError(f"missing required parameter(s) {', '.join(missing)}{when}")


def _coerce(name: str, value: Any, target: str) -> Any:
    """Convert a value the evolved type accepts back to the type upstream expects."""
    try:
        if target == "string":
            return value if isinstance(value, str) else json.dumps(value)
        if target == "integer":
            number = float(value)
            if not number.is_integer():
                raise ValueError("not a whole number")
            return int(number)
        if target == "number":
            return float(value)
        if target == "boolean" and isinstance(value, str):
            if value.lower() in ("true", "false"):
                return value.lower() == "true"
            raise ValueError("not true or false")
    except (TypeError, ValueError) as exc:
        raise ArgumentError(f"parameter '{name}': cannot use {value!r} as {target} ({exc})") from None
    return value


def _free(tools: dict[str, VirtualTool], name: str) -> None:
    if name in tools:
        raise PlanError(f"a tool named {name!r} already exists")


def _get(tools: dict[str, VirtualTool], name: str) -> VirtualTool:
    if name not in tools:
        raise PlanError(f"no tool named {name!r} (tools: {', '.join(tools) or 'none'})")
    return tools[name]


def _put(tools: dict[str, VirtualTool], old_name: str, tool: VirtualTool) -> dict[str, VirtualTool]:
    """Replace ``old_name`` by ``tool`` at the same position in the listing."""
    return {(tool.name if k == old_name else k): (tool if k == old_name else v) for k, v in tools.items()}


def _renamed_schema(tool: VirtualTool, renames: dict[str, str]) -> dict[str, Any]:
    for old, new in renames.items():
        tool.param(old)
        if new in tool.properties and new not in renames:
            raise PlanError(f"tool {tool.name!r} already has a parameter {new!r}")
    schema = copy.deepcopy(tool.input_schema)
    schema["properties"] = {renames.get(k, k): v for k, v in tool.properties.items()}
    if "required" in schema:
        schema["required"] = [renames.get(r, r) for r in schema["required"]]
    return schema


# --------------------------------------------------------------------------- one function per operation


def _add_tool(tools: dict[str, VirtualTool], op: AddTool) -> dict[str, VirtualTool]:
    _free(tools, op.name)
    if op.alias_of is not None:
        target = _get(tools, op.alias_of)
        for key in op.fixed_args:
            target.param(key)
        alias = target.evolved(name=op.name, description=op.description)
        fixed = dict(op.fixed_args)
        for key in fixed:
            del alias.properties[key]
            if key in alias.required:
                alias.required.remove(key)
        if op.input_schema is not None:
            alias.input_schema = copy.deepcopy(op.input_schema)
        alias.handler = _mapped(target.handler, lambda args: {**args, **fixed})
        return {**tools, op.name: alias}
    schema = copy.deepcopy(op.input_schema or {})
    props = schema.get("properties", {})
    steps = []
    for step in op.steps:
        handler = _get(tools, step.tool).handler
        for value in step.args.values():
            match = TEMPLATE.fullmatch(value) if isinstance(value, str) else None
            if match and match.group(1) not in props:
                raise PlanError(f"step on {step.tool!r} uses {{{match.group(1)}}}, "
                                "which the input_schema lacks")
        steps.append((step.tool, dict(step.args), handler))
    required = list(schema.get("required", []))

    async def composed(args: dict[str, Any], upstream: UpstreamCall) -> types.CallToolResult:
        _require(args, required)
        content: list[Any] = []
        structured: list[Any] = []
        for tool_name, template, handler in steps:
            call_args = {}
            for key, value in template.items():
                match = TEMPLATE.fullmatch(value) if isinstance(value, str) else None
                if match is None:
                    call_args[key] = value
                elif match.group(1) in args:
                    call_args[key] = args[match.group(1)]
            result = await handler(call_args, upstream)
            if result.is_error:
                return result
            content.extend(result.content)
            structured.append({"tool": tool_name, "result": result.structured_content})
        has_structure = any(s["result"] is not None for s in structured)
        return types.CallToolResult(content=content, structured_content={"steps": structured} if has_structure
                                    else None)

    return {**tools, op.name: VirtualTool(op.name, op.description, schema, composed)}


def _rename_tool(tools: dict[str, VirtualTool], op: RenameTool) -> dict[str, VirtualTool]:
    old = _get(tools, op.tool)
    _free(tools, op.new_name)
    schema = _renamed_schema(old, op.param_renames)
    back = {new: old_name for old_name, new in op.param_renames.items()}
    retired = (old.retired | set(op.param_renames)) - set(op.param_renames.values())
    new = old.evolved(name=op.new_name, input_schema=schema, handler=_mapped(old.handler, _rename_keys(back)),
                      retired=retired)
    if op.description is not None:
        new.description = op.description
    return _put(tools, op.tool, new)


def _selector_schema(values: list[str], description: str, default: str | None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "enum": values, "description": description}
    if default is not None:
        schema["default"] = default
    return schema


@dataclass
class _Branch:
    value: str
    tool: VirtualTool
    renames: dict[str, str]  # branch parameter -> parameter of the dispatching tool

    def to_branch(self) -> dict[str, str]:
        return {new: old for old, new in self.renames.items()}

    def own(self) -> set[str]:
        return {self.renames.get(p, p) for p in self.tool.properties}

    def needs(self) -> list[str]:
        return [self.renames.get(r, r) for r in self.tool.required]


def _dispatching(name: str, description: str, selector: str, selector_schema: dict[str, Any],
                 branches: list[_Branch], default: str | None) -> VirtualTool:
    """A tool that picks a branch by ``selector`` and forwards the branch's own arguments."""
    props: dict[str, Any] = {selector: selector_schema}
    owner: dict[str, str] = {}
    for branch in branches:
        for param, schema in branch.tool.properties.items():
            key = branch.renames.get(param, param)
            if key == selector:
                raise PlanError(f"parameter {key!r} of {branch.tool.name!r} collides with the selector")
            if key in props and strip_docs(props[key]) != strip_docs(schema):
                raise PlanError(f"parameter {key!r} differs between {owner[key]!r} and {branch.tool.name!r}; "
                                "rename one of them with an argument map")
            props.setdefault(key, copy.deepcopy(schema))
            owner.setdefault(key, branch.tool.name)
    shared = set.intersection(*(set(b.needs()) for b in branches))
    required = ([selector] if default is None else []) + [p for p in props if p in shared]
    by_value = {b.value: b for b in branches}
    known = set(props)

    async def handler(args: dict[str, Any], upstream: UpstreamCall) -> types.CallToolResult:
        value = args.pop(selector, default)
        if value is None:
            raise ArgumentError(f"missing required parameter(s) {selector}")
        branch = by_value.get(value)
        if branch is None:
            raise ArgumentError(f"parameter '{selector}': {value!r} is not one of {list(by_value)}")
        own = branch.own()
        _require(args, branch.needs(), f" (needed when {selector}={value!r})")
        forwarded = {k: v for k, v in args.items() if k in own or k not in known}
        return await branch.tool.handler(_rename_keys(branch.to_branch())(forwarded), upstream)

    merged: dict[str, Any] = {"type": "object", "properties": props, "required": required}
    defs: dict[str, Any] = {}
    for branch in branches:  # keep the definitions that the branches' parameters refer to
        for key, value in (branch.tool.input_schema.get("$defs") or {}).items():
            if key in defs and defs[key] != value:
                raise PlanError(f"schema definition {key!r} differs between the merged tools")
            defs[key] = copy.deepcopy(value)
    if defs:
        merged["$defs"] = defs
    return VirtualTool(name, description, merged, handler)


def _remove_tool(tools: dict[str, VirtualTool], op: RemoveTool) -> dict[str, VirtualTool]:
    gone = _get(tools, op.tool)
    rest = {k: v for k, v in tools.items() if k != op.tool}
    move = op.migrate_to
    if move is None:
        return rest
    survivor = _get(rest, move.tool)
    for param in move.arg_map:
        gone.param(param)
    if move.value is None:
        raise PlanError("migrate_to needs a 'value': the selector value that reaches the removed tool's behaviour")
    if move.value == move.default_value:
        raise PlanError("migrate_to.value must differ from migrate_to.default_value")
    about = move.selector_description or (
        f"What to do: '{move.default_value}' (the default) keeps this tool's usual behaviour; "
        f"'{move.value}' does the job of the former {gone.name} tool.")
    selector = _selector_schema([move.default_value, move.value], about, move.default_value)
    description = move.description or _absorbed(survivor, gone, move.selector, move.value)
    branches = [_Branch(move.default_value, survivor, {}), _Branch(move.value, gone, dict(move.arg_map))]
    merged = _dispatching(survivor.name, description, move.selector, selector, branches, move.default_value)
    merged.output_schema = None
    merged.extras = dict(survivor.extras)
    merged.retired = set(survivor.retired)
    return _put(rest, survivor.name, merged)


def _absorbed(survivor: VirtualTool, gone: VirtualTool, selector: str, value: str) -> str:
    first = gone.description.strip().split(". ")[0].rstrip(".") or gone.name
    return (f"{survivor.description.rstrip()} It also covers what {gone.name} used to do: with "
            f"{selector}='{value}' it will {first[:1].lower()}{first[1:]}.")


def _merge_tools(tools: dict[str, VirtualTool], op: MergeTools) -> dict[str, VirtualTool]:
    members = [_get(tools, t) for t in op.tools]
    remaining = tools if op.keep_originals else {k: v for k, v in tools.items() if k not in op.tools}
    _free(remaining, op.new_name)
    values = op.value_of()
    for tool_name, renames in op.arg_maps.items():
        if tool_name not in op.tools:
            raise PlanError(f"arg_maps names {tool_name!r}, which is not merged")
        for param in renames:
            tools[tool_name].param(param)
    about = op.selector_description or "Which operation to run: " + "; ".join(
        f"'{values[m.name]}' = {m.description.strip().split('. ')[0].rstrip('.') or m.name}" for m in members)
    selector = _selector_schema([values[m.name] for m in members], about, None)
    branches = [_Branch(values[m.name], m, dict(op.arg_maps.get(m.name, {}))) for m in members]
    merged = _dispatching(op.new_name, op.description, op.selector, selector, branches, None)
    if op.keep_originals:
        return {**tools, op.new_name: merged}
    first = op.tools[0]
    out: dict[str, VirtualTool] = {}
    for key, tool in tools.items():
        if key == first:
            out[op.new_name] = merged
        elif key not in op.tools:
            out[key] = tool
    return out


def _add_param(tools: dict[str, VirtualTool], op: AddParam) -> dict[str, VirtualTool]:
    base = _get(tools, op.tool)
    if op.param in base.properties:
        raise PlanError(f"tool {op.tool!r} already has a parameter {op.param!r}")
    if op.forward_to is None:  # the plan model refuses this; kept for operations built in code
        raise PlanError(f"add_param {op.param!r} on {op.tool!r} has no behaviour (no forward_to)")
    base.param(op.forward_to)
    tool = base.evolved()
    schema = copy.deepcopy(op.param_schema)
    if op.description is not None:
        schema["description"] = op.description
    if not op.required and op.given("default"):
        schema["default"] = op.default
    tool.properties[op.param] = schema
    if op.required:
        tool.required.append(op.param)
    tool.retired.discard(op.param)
    check = {k: v for k, v in op.param_schema.items() if k not in ("description", "title", "default")}
    param, required, given_default, default = op.param, op.required, op.given("default"), op.default
    target = op.forward_to

    def transform(args: dict[str, Any]) -> dict[str, Any]:
        if required:
            _require(args, [param])
        if param in args:
            _check_value(param, args[param], check)
        present = param in args
        value = args.pop(param, default)
        if not (present or given_default):
            return args
        forwarded = op.forwarded(value)
        if target in args:
            if present and args[target] != forwarded:
                raise ArgumentError(f"'{param}' and '{target}' disagree ({json.dumps(value)} means "
                                    f"{target}={json.dumps(forwarded)}); give one of them")
            return args
        args[target] = forwarded
        return args

    tool.handler = _mapped(base.handler, transform)
    return _put(tools, op.tool, tool)


def _remove_param(tools: dict[str, VirtualTool], op: RemoveParam) -> dict[str, VirtualTool]:
    base = _get(tools, op.tool)
    schema = base.param(op.param)
    was_required = op.param in base.required
    if was_required and not op.given("fill") and "default" not in schema:
        raise PlanError(f"parameter {op.param!r} of {op.tool!r} is required upstream; give 'fill', the value "
                        "the proxy sends in its place")
    tool = base.evolved()
    del tool.properties[op.param]
    if op.param in tool.required:
        tool.required.remove(op.param)
    tool.retired.add(op.param)
    param = op.param
    fill_given, fill = op.given("fill"), op.fill
    if not fill_given and was_required:
        fill_given, fill = True, schema["default"]

    def transform(args: dict[str, Any]) -> dict[str, Any]:
        args.pop(param, None)
        if fill_given:
            args[param] = fill
        return args

    tool.handler = _mapped(base.handler, transform)
    return _put(tools, op.tool, tool)


def _rename_param(tools: dict[str, VirtualTool], op: RenameParam) -> dict[str, VirtualTool]:
    base = _get(tools, op.tool)
    schema = _renamed_schema(base, {op.param: op.new_name})
    handler = _mapped(base.handler, _rename_keys({op.new_name: op.param}))
    tool = base.evolved(input_schema=schema, handler=handler)
    tool.retired = (tool.retired | {op.param}) - {op.new_name}
    if op.description is not None:
        tool.properties[op.new_name]["description"] = op.description
    return _put(tools, op.tool, tool)


def _set_required(tools: dict[str, VirtualTool], op: SetRequired) -> dict[str, VirtualTool]:
    base = _get(tools, op.tool)
    schema = base.param(op.param)
    is_required = op.param in base.required
    if is_required == op.required:
        state = "required" if is_required else "optional"
        raise PlanError(f"parameter {op.param!r} of {op.tool!r} is already {state}")
    tool = base.evolved()
    param = op.param
    if op.required:
        tool.required.append(param)

        def promote(args: dict[str, Any]) -> dict[str, Any]:
            _require(args, [param])
            return args

        tool.handler = _mapped(base.handler, promote)
        return _put(tools, op.tool, tool)
    if not op.given("fill") and "default" not in schema:
        raise PlanError(f"making {op.param!r} of {op.tool!r} optional needs 'fill', the value sent upstream "
                        "when it is left out")
    fill = op.fill if op.given("fill") else schema["default"]
    tool.required.remove(param)
    tool.properties[param]["default"] = fill

    def demote(args: dict[str, Any]) -> dict[str, Any]:
        args.setdefault(param, fill)
        return args

    tool.handler = _mapped(base.handler, demote)
    return _put(tools, op.tool, tool)


def _constrain_param(tools: dict[str, VirtualTool], op: ConstrainParam) -> dict[str, VirtualTool]:
    base = _get(tools, op.tool)
    old_schema = base.param(op.param)
    for key in op.remove:
        if key not in old_schema:
            raise PlanError(f"parameter {op.param!r} of {op.tool!r} has no {key!r} to remove")
    tool = base.evolved()
    schema = tool.properties[op.param]
    for key in op.remove:
        del schema[key]
    schema.update(copy.deepcopy(op.set))
    old_type = old_schema.get("type")
    new_type = op.set.get("type")
    coerce_to = old_type if isinstance(old_type, str) and new_type not in (None, old_type) else None
    if "type" in op.set and "anyOf" in schema:
        del schema["anyOf"]
    check = dict(op.set)
    param = op.param

    def transform(args: dict[str, Any]) -> dict[str, Any]:
        if param in args:
            _check_value(param, args[param], check)
            if coerce_to is not None:
                args[param] = _coerce(param, args[param], coerce_to)
        return args

    tool.handler = _mapped(base.handler, transform)
    return _put(tools, op.tool, tool)


def _describe_tool(tools: dict[str, VirtualTool], op: DescribeTool) -> dict[str, VirtualTool]:
    return _put(tools, op.tool, _get(tools, op.tool).evolved(description=op.description))


def _describe_param(tools: dict[str, VirtualTool], op: DescribeParam) -> dict[str, VirtualTool]:
    tool = _get(tools, op.tool).evolved()
    tool.param(op.param)["description"] = op.description
    return _put(tools, op.tool, tool)


_APPLY: dict[str, Callable[[dict[str, VirtualTool], Any], dict[str, VirtualTool]]] = {
    "add_tool": _add_tool, "rename_tool": _rename_tool, "remove_tool": _remove_tool,
    "merge_tools": _merge_tools, "add_param": _add_param, "remove_param": _remove_param,
    "rename_param": _rename_param, "set_required": _set_required, "constrain_param": _constrain_param,
    "describe_tool": _describe_tool, "describe_param": _describe_param,
}


def apply_operation(tools: dict[str, VirtualTool], op: Operation) -> dict[str, VirtualTool]:
    """Apply one plan operation to a tool table and return the new table (the input is untouched)."""
    return _APPLY[op.op](tools, op)


def upstream_tools(tool_list: Any) -> dict[str, VirtualTool]:
    """The unevolved interface: every upstream tool forwarded as it is."""
    tools: dict[str, VirtualTool] = {}
    for wire in normalize_tool_list(tool_list, "upstream tool list"):
        extras: dict[str, Any] = {k: wire[k] for k in ("title", "annotations") if k in wire}
        schema = copy.deepcopy(wire["inputSchema"])
        tools[wire["name"]] = VirtualTool(wire["name"], wire["description"], schema, _forward(wire["name"]),
                                          wire.get("outputSchema"), extras)
    return tools


def build_interface(tool_list: Any, plans: PlanChain | Sequence[EvolutionPlan]) -> EvolvedInterface:
    """Apply a plan chain to an upstream tool list; errors name the plan, operation and problem."""
    chain = plans if isinstance(plans, PlanChain) else PlanChain(list(plans))
    recorded = [p.version for p in chain.plans if p.served_by == "source"]
    if recorded:
        raise PlanError(f"plan {recorded[0]} records a source-evolved version (served_by: source): it runs from "
                        "its own source tree, not through the proxy")
    tools = upstream_tools(tool_list)
    for plan, index, op in chain.operations():
        try:
            tools = apply_operation(tools, op)
        except PlanError as exc:
            where = f"plan {plan.version}, operation {index + 1} ({op.op}, {op.operator})"
            raise PlanError(f"{where}: {exc}") from None
    return EvolvedInterface(tools, chain.unknown_args)
