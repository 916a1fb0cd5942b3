"""Where old calls go after evolution: rewrite reference calls and tool-name equivalence sets.

For every old (v0) tool the chain keeps a list of ``CallTarget``s, first the primary one: the
tool that now does the job and how to turn an old call's arguments into a new call's (renamed
arguments, dropped arguments, fixed selector values, fills, type coercions). Each plan
operation updates those targets, so a chain of plans composes. This only reads the plans; it
needs no tool list and no server.

Names may be qualified (``server__tool``): when the chain names its server, only that
server's tools are mapped and the rest pass through untouched; a chain that names no server
maps every name.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mcptrials.evolve.plan import (
    AddParam,
    AddTool,
    ConstrainParam,
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
from mcptrials.model import SEPARATOR, qualified_name


class ToolRemovedError(PlanError):
    """An old tool that the chain removed without migrating its behaviour anywhere."""


def _move(table: dict[str, Any], before: str, after: str | None) -> None:
    """Rename a key (or drop it when ``after`` is None)."""
    if before in table:
        value = table.pop(before)
        if after is not None:
            table[after] = value


class CallTarget(BaseModel):
    """How an old call of one tool becomes a call in the evolved interface."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    arg_renames: dict[str, str] = Field(default_factory=dict)
    dropped_args: list[str] = Field(default_factory=list)
    fixed_args: dict[str, Any] = Field(default_factory=dict)
    fill_args: dict[str, Any] = Field(default_factory=dict)
    coerce: dict[str, str] = Field(default_factory=dict)
    implied_args: dict[str, Any] = Field(default_factory=dict)
    """Old arguments the target tool fixes itself (an alias's fixed values): a call cannot set them."""

    def current(self, old_arg: str) -> str:
        """The name an old argument has now."""
        return self.arg_renames.get(old_arg, old_arg)

    def rename(self, before: str, after: str) -> None:
        """Record that the current parameter ``before`` is now called ``after``."""
        hits = [k for k, v in self.arg_renames.items() if v == before]
        for key in hits:
            self.arg_renames[key] = after
        if not hits and before not in self.arg_renames and before not in self.dropped_args:
            self.arg_renames[before] = after
        for table in (self.fixed_args, self.fill_args, self.coerce):
            _move(table, before, after)

    def drop(self, param: str) -> None:
        """Record that the current parameter ``param`` no longer exists."""
        for key in [k for k, v in self.arg_renames.items() if v == param]:
            del self.arg_renames[key]
            self.dropped_args.append(key)
        if param not in self.arg_renames and param not in self.dropped_args:
            self.dropped_args.append(param)
        for table in (self.fixed_args, self.fill_args, self.coerce):
            _move(table, param, None)

    def apply(self, args: dict[str, Any]) -> dict[str, Any]:
        """Turn an old call's arguments into the new call's."""
        out = {self.current(k): copy.deepcopy(v) for k, v in args.items() if k not in self.dropped_args}
        for key, kind in self.coerce.items():
            if key in out:
                out[key] = _convert(out[key], kind)
        for key, value in self.fill_args.items():
            out.setdefault(key, copy.deepcopy(value))
        out.update(copy.deepcopy(self.fixed_args))
        return out


class ToolMapping(BaseModel):
    """Every place an old tool's calls can go now; empty targets mean the tool is gone."""

    model_config = ConfigDict(extra="forbid")

    old_tool: str
    targets: list[CallTarget] = Field(default_factory=list)

    @property
    def removed(self) -> bool:
        """True when nothing in the evolved interface does the old tool's job."""
        return not self.targets


def _convert(value: Any, kind: str) -> Any:
    if kind == "string" and not isinstance(value, str):
        return str(value).lower() if isinstance(value, bool) else str(value)
    if kind in ("integer", "number") and isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        return int(number) if kind == "integer" and number.is_integer() else number
    return value


def _on(targets: list[CallTarget], tool: str) -> list[CallTarget]:
    return [t for t in targets if t.tool == tool]


def _step(targets: list[CallTarget], op: Operation) -> list[CallTarget]:
    """Update one tool's targets for one operation."""
    if isinstance(op, RenameTool):
        for t in _on(targets, op.tool):
            t.tool = op.new_name
            for before, after in op.param_renames.items():
                t.rename(before, after)
    elif isinstance(op, RemoveTool):
        hit = _on(targets, op.tool)
        if op.migrate_to is None:
            return [t for t in targets if t.tool != op.tool]
        for t in hit:
            t.tool = op.migrate_to.tool
            for before, after in op.migrate_to.arg_map.items():
                t.rename(before, after)
            if op.migrate_to.value is not None:
                t.fixed_args[op.migrate_to.selector] = op.migrate_to.value
    elif isinstance(op, MergeTools):
        values = op.value_of()
        out: list[CallTarget] = []
        for t in targets:
            if t.tool not in op.tools:
                out.append(t)
                continue
            merged = t.model_copy(deep=True)
            for before, after in op.arg_maps.get(t.tool, {}).items():
                merged.rename(before, after)
            merged.fixed_args[op.selector] = values[t.tool]
            merged.tool = op.new_name
            out += [t, merged] if op.keep_originals else [merged]
        return out
    elif isinstance(op, AddTool):
        if op.alias_of is not None and op.input_schema is None:
            aliases = [t.model_copy(update={"tool": op.name}, deep=True) for t in _on(targets, op.alias_of)]
            for alias in aliases:
                for param, value in op.fixed_args.items():
                    old = next((k for k, v in alias.arg_renames.items() if v == param), param)
                    alias.implied_args[old] = copy.deepcopy(value)
                    alias.drop(param)
            return targets + aliases
    elif isinstance(op, RenameParam):
        for t in _on(targets, op.tool):
            t.rename(op.param, op.new_name)
    elif isinstance(op, RemoveParam):
        for t in _on(targets, op.tool):
            if op.fill is not None:  # the tool now always behaves as if the parameter had this value
                old = next((k for k, v in t.arg_renames.items() if v == op.param), op.param)
                t.implied_args[old] = copy.deepcopy(op.fill)
            t.drop(op.param)
    elif isinstance(op, AddParam):
        if op.required and op.given("default"):
            for t in _on(targets, op.tool):
                t.fill_args[op.param] = op.default
    elif isinstance(op, SetRequired):
        if op.required and op.given("fill"):
            for t in _on(targets, op.tool):
                t.fill_args.setdefault(op.param, op.fill)
    elif isinstance(op, ConstrainParam):
        new_type = op.set.get("type")
        if isinstance(new_type, str):
            for t in _on(targets, op.tool):
                t.coerce[op.param] = new_type
    return targets


def _map_plain(chain: PlanChain, tool: str) -> ToolMapping:
    targets = [CallTarget(tool=tool)]
    for _plan, _index, op in chain.operations():
        targets = _step(targets, op)
    return ToolMapping(old_tool=tool, targets=targets)


def _unchanged(tool: str) -> ToolMapping:
    return ToolMapping(old_tool=tool, targets=[CallTarget(tool=tool)])


def _split(chain: PlanChain, name: str) -> tuple[str | None, str, bool]:
    """(server, tool, whether the chain applies to this name)."""
    server, sep, tool = name.partition(SEPARATOR)
    if not sep:
        return None, name, True
    return server, tool, chain.server is None or chain.server == server


def _join(server: str | None, tool: str) -> str:
    return qualified_name(server, tool) if server is not None else tool


def original_tools_named(chain: PlanChain) -> list[str]:
    """Tools the plans act on that existed before the chain (not created by one of its operations)."""
    named: dict[str, None] = {}
    created: set[str] = set()
    for _plan, _index, op in chain.operations():
        refs = [getattr(op, "tool", None), getattr(op, "alias_of", None), *(getattr(op, "tools", None) or [])]
        if isinstance(op, RemoveTool) and op.migrate_to is not None:
            refs.append(op.migrate_to.tool)
        for ref in refs:
            if isinstance(ref, str) and ref not in created:
                named[ref] = None
        for made in (getattr(op, "new_name", None), op.name if isinstance(op, AddTool) else None):
            if isinstance(made, str) and not isinstance(op, RenameParam):
                created.add(made)
    return list(named)


def tool_mapping(chain: PlanChain, tools: Iterable[str] | None = None) -> dict[str, ToolMapping]:
    """Mapping for each given old tool name, or for every tool the plans mention."""
    if tools is None:
        tools = original_tools_named(chain)
    out: dict[str, ToolMapping] = {}
    for name in tools:
        server, tool, applies = _split(chain, name)
        mapping = _map_plain(chain, tool) if applies else _unchanged(tool)
        for target in mapping.targets:
            target.tool = _join(server, target.tool)
        mapping.old_tool = name
        out[name] = mapping
    return out


class UnfaithfulRewrite(ToolRemovedError):
    """An old call that no tool of the evolved interface can make as it was meant."""


def rewrite_call(chain: PlanChain, tool: str, args: dict[str, Any], *,
                 faithful: bool = False) -> tuple[str, dict[str, Any]]:
    """Rewrite one old call into the newest interface; a removed tool raises ToolRemovedError.

    With ``faithful``, a call whose given choice every target contradicts (``format=json`` once the
    tool always writes CSV) raises ``UnfaithfulRewrite`` instead of becoming another call; a number
    the tool now fixes (``limit=10`` once it always returns 20) is only a matter of degree and is dropped.
    """
    mapping = tool_mapping(chain, [tool])[tool]
    if mapping.removed:
        version = chain.versions[-1] if chain.versions else "?"
        raise ToolRemovedError(f"tool {tool!r} is gone in version {version} and nothing took over its job")
    target = faithful_target(mapping.targets, args)
    if faithful and any(k in args and args[k] != v and isinstance(v, str | bool)
                        for k, v in target.implied_args.items()):
        raise UnfaithfulRewrite(f"{tool}({args}) cannot be made in version {chain.versions[-1]}")
    return target.tool, target.apply(args)


def faithful_target(targets: Sequence[CallTarget], args: dict[str, Any]) -> CallTarget:
    """The target that does what the old call asked: one whose fixed values equal the call's, else one
    whose fixed values the call does not contradict, else the primary target.

    E.g. ``export_graph(format=json)`` goes to ``export_graph_json`` once ``export_graph`` always
    writes markdown.
    """
    def agrees(target: CallTarget, *, exact: bool) -> bool:
        return all((k in args if exact else True) and (k not in args or args[k] == v)
                   for k, v in target.implied_args.items())

    exact = [t for t in targets if t.implied_args and agrees(t, exact=True)]
    if exact:
        return exact[0]
    return next((t for t in targets if agrees(t, exact=False)), targets[0])


def rewrite_tool_names(chain: PlanChain, names: Sequence[str]) -> list[str]:
    """Map an equivalence set of old names to every new name that does the job (order kept)."""
    out: dict[str, None] = {}
    for mapping in tool_mapping(chain, names).values():
        for target in mapping.targets:
            out[target.tool] = None
    return list(out)


def replacements(chain: PlanChain) -> dict[str, str]:
    """Old -> new names for tools the chain renamed (and did not later remove)."""
    renamed = [op.tool for _p, _i, op in chain.operations() if isinstance(op, RenameTool)]
    out: dict[str, str] = {}
    for mapping in tool_mapping(chain, renamed).values():
        if mapping.targets and mapping.targets[0].tool != mapping.old_tool:
            out[mapping.old_tool] = mapping.targets[0].tool
    return out
