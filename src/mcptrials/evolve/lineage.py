"""Deterministic multi-round evolution of a server's interface: versions v0..vN on disk.

Each round draws one operator (O1-O11) from the seed, among those that fit the current tool
list, picks a target tool, and writes a one-round plan for it; plans chain through ``parent``
so version k is served by the proxy with ``--plan vk/plan.yaml``. The layout is::

    out_dir/v0/tools.json  v0/manifest.json
    out_dir/v1/plan.yaml   v1/tools.json  v1/manifest.json
    ...
    out_dir/lineage.json

Every file is a function of the upstream tool list, the upstream spec and the seed, so the same
seed gives byte-identical output. Files hold no paths of their own (plans point to their parents
relatively) and no environment values or headers; ``version_server_spec`` builds the runnable
spec for a version, with absolute paths, when it is needed.
"""

from __future__ import annotations

import copy
import json
import random
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from pydantic import BaseModel, ConfigDict, Field

from mcptrials.evolve.diff import diff_tool_lists, strip_docs
from mcptrials.evolve.interface import VirtualTool, apply_operation, upstream_tools
from mcptrials.evolve.operators import OPERATORS, get_operator
from mcptrials.evolve.plan import EvolutionPlan, Operation, RenameTool, dump_plan, load_plan, parse_plan
from mcptrials.evolve.proxy import UPSTREAM_HEADERS_ENV, list_all_tools
from mcptrials.model import ServerSpec, stable_hash

VERB_SWAPS = {
    "get": "fetch", "fetch": "retrieve", "list": "enumerate", "create": "make", "add": "insert",
    "delete": "remove", "remove": "delete", "update": "modify", "set": "assign", "search": "find",
    "find": "search", "read": "load", "write": "save", "convert": "transform", "send": "dispatch",
    "run": "execute", "query": "lookup", "show": "display", "check": "verify",
}
"""Leading verbs a replacement tool swaps, so renamed tools read naturally."""

PARAM_SYNONYMS = ("setting", "choice", "value")
"""Suffixes for a new parameter that carries an existing one's value under another name."""


class VersionManifest(BaseModel):
    """What one version is and how it was made from its parent."""

    model_config = ConfigDict(extra="forbid")

    version: str
    parent: str | None = None
    server: str
    operator: str | None = None
    operator_name: str | None = None
    target_tool: str | None = None
    summary: str = ""
    tool_list_hash: str
    tool_count: int
    plan: str | None = None
    patterns: list[str] = Field(default_factory=list)
    operator_violations: list[str] = Field(default_factory=list)
    seed: int
    upstream: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class Round:
    """One generated round: the operator, the tool it targets, the plan operations, a summary."""

    operator: str
    target: str
    operations: list[dict[str, Any]]
    summary: str


# --------------------------------------------------------------------------- small helpers


def _optional(tool: VirtualTool) -> list[str]:
    return [p for p in tool.properties if p not in tool.required]


def _first_sentence(text: str) -> str:
    return text.strip().split(". ")[0].rstrip(".") or "do its job"


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _slug(value: Any) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(value).lower()).strip("_") or "value"


def _unique(name: str, taken: dict[str, VirtualTool]) -> str:
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}_{n}", n + 1
    return candidate


def _swapped_name(name: str, taken: dict[str, VirtualTool]) -> str:
    head, sep, rest = name.partition("_")
    if sep and head.lower() in VERB_SWAPS:
        return _unique(f"{VERB_SWAPS[head.lower()]}_{rest}", taken)
    return _unique(f"{name}_v2", taken)


def _fixable(tool: VirtualTool) -> tuple[str, Any] | None:
    """A parameter and a value an alias can pin: an enum member, a boolean, or a default."""
    for name, schema in tool.properties.items():
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return name, schema["enum"][0]
        if schema.get("type") == "boolean":
            return name, not schema.get("default", False)
        if "default" in schema and schema["default"] is not None:
            return name, schema["default"]
    return None


def _alias(tool: VirtualTool, tools: dict[str, VirtualTool], operator: str) -> dict[str, Any]:
    pinned = _fixable(tool)
    if pinned is None:
        name = _unique(f"quick_{tool.name}", tools)
        about = f"Shortcut to {tool.name}: {_lower_first(_first_sentence(tool.description))}."
        return {"op": "add_tool", "operator": operator, "name": name, "description": about,
                "alias_of": tool.name}
    param, value = pinned
    name = _unique(f"{tool.name}_{_slug(param)}_{_slug(value)}", tools)
    about = (f"Like {tool.name} with {param} fixed to {json.dumps(value)}: "
             f"{_lower_first(_first_sentence(tool.description))}.")
    return {"op": "add_tool", "operator": operator, "name": name, "description": about, "alias_of": tool.name,
            "fixed_args": {param: value}}


def _add_param_op(tool: VirtualTool, operator: str) -> dict[str, Any] | None:
    """A new optional parameter that forwards its value to an existing optional one (never a no-op).

    An added parameter must do something: this one is another way to give an existing optional
    parameter's value, validated against that parameter's schema and forwarded to it upstream.
    """
    for target in sorted(_optional(tool)):
        schema = {k: v for k, v in copy.deepcopy(tool.properties[target]).items()
                  if k not in ("description", "title", "default")}
        if not schema:
            continue
        name = next((f"{target}_{suffix}" for suffix in PARAM_SYNONYMS
                     if f"{target}_{suffix}" not in tool.properties), None)
        if name is None:
            continue
        about = tool.properties[target].get("description", "").strip().rstrip(".")
        text = f"Another way to give {target}: its value is passed on as {target}."
        if about:
            text = f"{text} ({about}.)"
        return {"op": "add_param", "operator": operator, "tool": tool.name, "param": name, "schema": schema,
                "description": text, "forward_to": target}
    return None


# --------------------------------------------------------------------------- one generator per operator

Generator = Callable[[VirtualTool, dict[str, VirtualTool], random.Random], Round | None]


def _o1(tool: VirtualTool, tools: dict[str, VirtualTool], rng: random.Random) -> Round:
    op = _alias(tool, tools, "O1")
    return Round("O1", tool.name, [op], f"new tool {op['name']} built on {tool.name}")


def _o2(tool: VirtualTool, tools: dict[str, VirtualTool], rng: random.Random) -> Round:
    new = _swapped_name(tool.name, tools)
    op = {"op": "rename_tool", "operator": "O2", "tool": tool.name, "new_name": new,
          "description": f"{tool.description.rstrip()} (Replaces the former {tool.name} tool.)".strip()}
    return Round("O2", tool.name, [op], f"{tool.name} replaced by {new}")


def _o3(tool: VirtualTool, tools: dict[str, VirtualTool], rng: random.Random) -> Round | None:
    survivors = sorted(n for n in tools if n != tool.name)
    if not survivors:
        return None
    survivor = tools[rng.choice(survivors)]
    selector = next((s for s in ("mode", "operation", "action_kind") if s not in survivor.properties
                     and s not in tool.properties), None)
    if selector is None:
        return None
    arg_map = {p: f"{_slug(tool.name)}_{p}" for p, schema in tool.properties.items()
               if p in survivor.properties and strip_docs(survivor.properties[p]) != strip_docs(schema)}
    value = _slug(tool.name)
    migrate: dict[str, Any] = {"tool": survivor.name, "selector": selector, "value": value, "default_value": "default"}
    if arg_map:
        migrate["arg_map"] = arg_map
    op = {"op": "remove_tool", "operator": "O3", "tool": tool.name, "migrate_to": migrate}
    return Round("O3", tool.name, [op], f"{tool.name} removed; {survivor.name} takes it over with "
                                        f"{selector}={value!r}")


def _o4(tool: VirtualTool, tools: dict[str, VirtualTool], rng: random.Random) -> Round:
    add = _alias(tool, tools, "O4")
    note = f"{tool.description.rstrip()} For the common case see also {add['name']}.".strip()
    describe = {"op": "describe_tool", "operator": "O4", "tool": tool.name, "description": note}
    return Round("O4", tool.name, [add, describe], f"new tool {add['name']}; {tool.name} points to it")


def _o5(tool: VirtualTool, tools: dict[str, VirtualTool], rng: random.Random) -> Round | None:
    op = _add_param_op(tool, "O5")
    if op is None:
        return None
    return Round("O5", tool.name, [op], f"{tool.name} gains optional parameter {op['param']}")


def _o6(tool: VirtualTool, tools: dict[str, VirtualTool], rng: random.Random) -> Round | None:
    promotable = [p for p in _optional(tool) if tool.properties[p].get("default") is not None]
    if promotable:
        param = rng.choice(sorted(promotable))
        op = {"op": "set_required", "operator": "O6", "tool": tool.name, "param": param, "required": True,
              "fill": tool.properties[param]["default"]}
        return Round("O6", tool.name, [op], f"{tool.name}.{param} is now required")
    strings = sorted(p for p, s in tool.properties.items() if s.get("type") == "string"
                     and not {"maxLength", "enum", "pattern", "format"} & set(s))
    if not strings:
        return None
    param = rng.choice(strings)
    old = tool.properties[param].get("description", "").rstrip()
    ops: list[dict[str, Any]] = [{"op": "constrain_param", "operator": "O6", "tool": tool.name, "param": param,
            "set": {"minLength": 1, "maxLength": 256}},
           {"op": "describe_param", "operator": "O6", "tool": tool.name, "param": param,
            "description": f"{old} Must be 1 to 256 characters long.".strip()}]
    return Round("O6", tool.name, ops, f"{tool.name}.{param} limited to 1-256 characters")


def _o7(tool: VirtualTool, tools: dict[str, VirtualTool], rng: random.Random) -> Round | None:
    optional = sorted(_optional(tool))
    if not optional:
        return None
    param = rng.choice(optional)
    op: dict[str, Any] = {"op": "remove_param", "operator": "O7", "tool": tool.name, "param": param}
    if tool.properties[param].get("default") is not None:
        op["fill"] = tool.properties[param]["default"]
    return Round("O7", tool.name, [op], f"{tool.name} loses optional parameter {param}")


def _o8(tool: VirtualTool, tools: dict[str, VirtualTool], rng: random.Random) -> Round | None:
    op = _add_param_op(tool, "O8")
    if op is None:
        return None
    text = (f"{tool.description.rstrip()} It also accepts an optional {op['param']} argument, passed on as "
            f"{op['forward_to']}.").strip()
    describe = {"op": "describe_tool", "operator": "O8", "tool": tool.name, "description": text}
    return Round("O8", tool.name, [op, describe], f"{tool.name} reshaped around new parameter {op['param']}")


def _tool_text(tool: VirtualTool, rng: random.Random) -> str:
    core = _first_sentence(tool.description)
    params = ", ".join(tool.properties) or "no arguments"
    options = [f"Use this tool to {_lower_first(core)}.",
               f"{core}. Takes: {params}.",
               f"{core}. Returns the result as reported by the server."]
    return rng.choice(options)


def _param_ops(tool: VirtualTool, rng: random.Random, operator: str) -> list[dict[str, Any]]:
    chosen = sorted(rng.sample(sorted(tool.properties), k=min(2, len(tool.properties))))
    ops = []
    for param in chosen:
        schema = tool.properties[param]
        kind = schema.get("type", "value")
        need = "required" if param in tool.required else "optional"
        old = schema.get("description", "").strip().rstrip(".")
        text = f"{old or param.replace('_', ' ').capitalize()} ({need} {kind})."
        ops.append({"op": "describe_param", "operator": operator, "tool": tool.name, "param": param,
                    "description": text})
    return ops


def _o9(tool: VirtualTool, tools: dict[str, VirtualTool], rng: random.Random) -> Round:
    op = {"op": "describe_tool", "operator": "O9", "tool": tool.name, "description": _tool_text(tool, rng)}
    return Round("O9", tool.name, [op], f"{tool.name} description rewritten")


def _o10(tool: VirtualTool, tools: dict[str, VirtualTool], rng: random.Random) -> Round | None:
    if not tool.properties:
        return None
    ops = _param_ops(tool, rng, "O10")
    return Round("O10", tool.name, ops, f"{tool.name} parameter descriptions rewritten")


def _o11(tool: VirtualTool, tools: dict[str, VirtualTool], rng: random.Random) -> Round | None:
    if not tool.properties:
        return None
    first = {"op": "describe_tool", "operator": "O11", "tool": tool.name, "description": _tool_text(tool, rng)}
    return Round("O11", tool.name, [first, *_param_ops(tool, rng, "O11")],
                 f"{tool.name} tool and parameter descriptions rewritten")


GENERATORS: dict[str, Generator] = {
    "O1": _o1, "O2": _o2, "O3": _o3, "O4": _o4, "O5": _o5, "O6": _o6, "O7": _o7, "O8": _o8, "O9": _o9,
    "O10": _o10, "O11": _o11,
}


def plan_round(tools: dict[str, VirtualTool], rng: random.Random,
               operators: list[str] | None = None) -> Round:
    """Draw an operator and a target tool that fit, and generate the round's operations."""
    candidates = list(operators or OPERATORS)
    rng.shuffle(candidates)
    for operator in candidates:
        names = sorted(tools)
        rng.shuffle(names)
        for name in names:
            made = GENERATORS[operator](tools[name], tools, rng)
            if made is not None:
                return made
    raise ValueError(f"no operator of {sorted(candidates)} fits any of the tools {sorted(tools)}")


# --------------------------------------------------------------------------- whole lineages


def _wire(tools: dict[str, VirtualTool]) -> list[dict[str, Any]]:
    return [t.wire() for t in tools.values()]


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


def evolve_tools(tool_list: Any, rounds: int, seed: int, server: str,
                 operators: list[str] | None = None) -> list[tuple[EvolutionPlan | None, list[dict[str, Any]]]]:
    """Evolve a tool list for ``rounds`` rounds: [(None, v0 tools), (plan_v1, v1 tools), ...]."""
    tools = upstream_tools(tool_list)
    out: list[tuple[EvolutionPlan | None, list[dict[str, Any]]]] = [(None, _wire(tools))]
    for k in range(1, rounds + 1):
        rng = random.Random(f"mcptrials-evolve:{server}:{seed}:{k}")  # each server draws its own operators
        made = plan_round(tools, rng, operators)
        plan = parse_plan({"version": f"v{k}", "parent": f"../v{k - 1}/plan.yaml" if k > 1 else None,
                           "server": server, "summary": made.summary, "operations": made.operations},
                          f"generated plan v{k}")
        for op in plan.operations:
            tools = apply_operation(tools, op)
        out.append((plan, _wire(tools)))
    return out


def _target(plan: EvolutionPlan) -> str | None:
    first: Operation = plan.operations[0]
    return getattr(first, "tool", None) or getattr(first, "alias_of", None)


def write_lineage(versions: list[tuple[EvolutionPlan | None, list[dict[str, Any]]]], out_dir: Path,
                  server: str, seed: int, upstream: dict[str, Any] | None = None) -> list[VersionManifest]:
    """Write every version's plan, tool list and manifest, plus ``lineage.json``."""
    manifests: list[VersionManifest] = []
    previous: list[dict[str, Any]] | None = None
    for k, (plan, tools) in enumerate(versions):
        folder = out_dir / f"v{k}"
        folder.mkdir(parents=True, exist_ok=True)
        _write_json(folder / "tools.json", {"tools": tools})
        manifest = VersionManifest(version=f"v{k}", server=server, tool_list_hash=stable_hash(tools),
                                   tool_count=len(tools), seed=seed, upstream=upstream or {})
        if plan is not None and previous is not None:
            (folder / "plan.yaml").write_text(dump_plan(plan), encoding="utf-8")
            operator = get_operator(plan.operators[0])
            renamed = {op.tool: op.new_name for op in plan.operations if isinstance(op, RenameTool)}
            report = diff_tool_lists(previous, tools, replacements=renamed)
            manifest = manifest.model_copy(update={
                "parent": f"v{k - 1}", "operator": operator.id, "operator_name": operator.name,
                "target_tool": _target(plan), "summary": plan.summary, "plan": f"v{k}/plan.yaml",
                "patterns": report.patterns, "operator_violations": operator.check(report)})
        _write_json(folder / "manifest.json", manifest.model_dump(mode="json"))
        manifests.append(manifest)
        previous = tools
    _write_json(out_dir / "lineage.json", {"server": server, "seed": seed,
                                            "versions": [m.model_dump(mode="json") for m in manifests]})
    return manifests


def _upstream_summary(spec: ServerSpec) -> dict[str, Any]:
    public = spec.public_view()  # masked: URL userinfo and query, secret flags, ``${VAR}`` expansions
    return {key: public[key] for key in ("name", "transport", "command", "args", "url")}


async def fetch_tool_list(spec: ServerSpec) -> list[dict[str, Any]]:
    """Start a server exactly as a run would (fresh sandbox, our interpreter for ``python``, headers, guard)
    and return its whole tool list in MCP wire form."""
    from mcptrials.servers.sandbox import episode_sandbox
    from mcptrials.servers.toolbox import open_toolbox

    with episode_sandbox() as sandbox:
        async with open_toolbox([spec], sandbox) as box:
            if spec.name in box.failures:
                raise ValueError(str(box.failures[spec.name]))
            client = box.connections[spec.name].client
            if client is None:
                raise ValueError(f"server {spec.name!r} closed before its tools were listed")
            return await list_all_tools(client)


def evolve(server_spec: ServerSpec, rounds: int, seed: int, out_dir: Path | str,
           operators: list[str] | None = None) -> list[VersionManifest]:
    """Evolve a live server's interface for ``rounds`` rounds and write versions v0..vN to ``out_dir``."""
    tools = anyio.run(fetch_tool_list, server_spec)
    versions = evolve_tools(tools, rounds, seed, server_spec.name, operators)
    return write_lineage(versions, Path(out_dir), server_spec.name, seed, _upstream_summary(server_spec))


def version_server_spec(upstream: ServerSpec, lineage_dir: Path | str, version: str,
                        python: str | None = None) -> ServerSpec:
    """The spec that serves ``version`` of a lineage: the proxy in front of ``upstream``, or, for a plan
    ``served_by: source``, the version's rewritten source tree."""
    if version == "v0":
        return upstream.model_copy(update={"version": "v0"})
    plan = (Path(lineage_dir) / version / "plan.yaml").resolve()
    if not plan.is_file():
        raise ValueError(f"{lineage_dir} has no plan for version {version!r}")
    if load_plan(plan).served_by == "source":  # written by `evolve --mode source`: the version's own code
        from mcptrials.evolve.source.mutate import version_spec

        return version_spec(upstream, lineage_dir, version)
    args = ["-m", "mcptrials.evolve.proxy", "--plan", str(plan)]
    env = dict(upstream.env)
    if upstream.transport != "stdio":
        if upstream.url is None:
            raise ValueError(f"server {upstream.name!r} uses {upstream.transport} but has no url")
        args += ["--upstream-url", upstream.url]
        if upstream.headers:  # through the environment, which stored records mask
            env[UPSTREAM_HEADERS_ENV] = json.dumps(upstream.headers)
    else:
        if upstream.cwd:
            args += ["--upstream-cwd", upstream.cwd]
        command = sys.executable if upstream.command in {"python", "python3"} else upstream.command or ""
        args += ["--upstream-command", command, *upstream.args]
    return upstream.model_copy(update={"transport": "stdio", "command": python or sys.executable, "env": env,
                                       "args": args, "url": None, "cwd": None, "headers": {}, "version": version})
