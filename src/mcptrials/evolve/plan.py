"""Declarative evolution plans: what one round of interface-level evolution does to a server.

A plan is a YAML or JSON file with a version label and a list of operations; each operation
names the mutation operator (O1-O11) it carries out. Plans chain: a plan's ``parent`` points
to the plan of the previous round (a path relative to the plan file), and a chain is applied
oldest first, each plan acting on the interface the previous ones produced. Example::

    version: v1
    parent: null
    server: time
    summary: current time and conversion merged into one tool
    operations:
      - op: remove_tool
        operator: O3
        tool: convert_time
        migrate_to: {tool: get_current_time, selector: mode, value: convert}

Every operation must change something an agent can observe: in particular an ``add_param``
must say where its value goes (``forward_to`` an existing parameter, through ``value_map`` when
the vocabularies differ); the loader rejects one that would be validated and then dropped.

The plan is only data; ``interface.py`` turns a chain into a served interface, and
``mapping.py`` rewrites old calls and tool names into the new interface.

A plan with ``served_by: source`` records a version whose own code was rewritten (``evolve --mode
source``): the version runs from its source tree beside the plan, and the plan says what changed
in the same vocabulary, so tasks are remapped by the same code. Such a plan describes behaviour
the code implements, so an ``add_param`` needs no ``forward_to``, an ``add_tool`` need be no alias,
and a migration need not name a selector.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, model_validator

from mcptrials.evolve.operators import OPERATORS
from mcptrials.safety.loading import bounded, load_document

if TYPE_CHECKING:
    from mcptrials.evolve.mapping import ToolMapping

CONSTRAINT_KEYWORDS = frozenset({
    "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems",
})
"""JSON Schema keywords a ``constrain_param`` operation may set or remove."""

TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_\-]*)\}")
"""A compose-step argument written ``"{name}"`` takes the caller's argument ``name``."""


class PlanError(ValueError):
    """A plan that cannot be read, or that does not fit the tools it is applied to."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


ServedBy = Literal["proxy", "source"]
"""How a plan's version is served: by the mutation proxy, or by its own rewritten source tree."""


def _recorded(info: ValidationInfo) -> bool:
    """True while validating a plan that records a source-evolved version (``served_by: source``)."""
    return isinstance(info.context, dict) and info.context.get("served_by") == "source"


class _Operation(_Model):
    operator: str = Field(description="the mutation operator this operation carries out, O1-O11")
    note: str = ""

    @model_validator(mode="after")
    def _operator_fits(self) -> _Operation:
        kind = getattr(self, "op", "")
        operator = OPERATORS.get(self.operator)
        if operator is None:
            raise ValueError(f"unknown operator {self.operator!r} (expected one of {', '.join(OPERATORS)})")
        if kind not in operator.plan_ops:
            allowed = sorted(o.id for o in OPERATORS.values() if kind in o.plan_ops)
            fits = ", ".join(allowed)
            raise ValueError(f"a {kind} operation cannot carry {operator.label}; it fits {fits}")
        return self

    def given(self, field: str) -> bool:
        """True when the plan file set ``field`` explicitly (so ``None`` can be a real value)."""
        return field in self.model_fields_set


class ComposeStep(_Model):
    """One call of a composed tool: an existing tool and its arguments (``"{name}"`` = caller's)."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class AddTool(_Operation):
    """A new tool: an alias of an existing one with some arguments fixed, or a sequence of calls."""

    op: Literal["add_tool"] = "add_tool"
    name: str
    description: str
    alias_of: str | None = None
    fixed_args: dict[str, Any] = Field(default_factory=dict)
    input_schema: dict[str, Any] | None = None
    steps: list[ComposeStep] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_way(self, info: ValidationInfo) -> AddTool:
        if _recorded(info) and self.alias_of is None and not self.steps:
            return self  # a tool the rewritten source implements itself
        if (self.alias_of is None) == (not self.steps):
            raise ValueError("an add_tool operation needs exactly one of alias_of or steps")
        if self.steps and self.input_schema is None:
            raise ValueError("a composed tool (steps) needs an input_schema")
        if self.fixed_args and self.alias_of is None:
            raise ValueError("fixed_args only applies to an alias (alias_of)")
        return self


class RenameTool(_Operation):
    """The tool lives on under a new name, optionally with renamed parameters and a new description."""

    op: Literal["rename_tool"] = "rename_tool"
    tool: str
    new_name: str
    description: str | None = None
    param_renames: dict[str, str] = Field(default_factory=dict)


class Migration(_Model):
    """Where a removed tool's behaviour goes: a surviving tool, selected by one argument value."""

    tool: str
    selector: str = "mode"
    value: str | None = None
    """The selector value that routes to the removed tool's behaviour (None: the survivor needs none)."""
    default_value: str = "default"
    arg_map: dict[str, str] = Field(default_factory=dict)
    description: str | None = None
    selector_description: str | None = None


class RemoveTool(_Operation):
    """The tool disappears; with ``migrate_to`` a surviving tool takes over its behaviour."""

    op: Literal["remove_tool"] = "remove_tool"
    tool: str
    migrate_to: Migration | None = None


class MergeTools(_Operation):
    """Several tools become one new tool that dispatches to them by a selector argument."""

    op: Literal["merge_tools"] = "merge_tools"
    tools: list[str] = Field(min_length=2)
    new_name: str
    description: str
    selector: str = "action"
    values: dict[str, str] | None = None
    arg_maps: dict[str, dict[str, str]] = Field(default_factory=dict)
    keep_originals: bool = False
    selector_description: str | None = None

    def value_of(self) -> dict[str, str]:
        """Map each merged tool to the selector value that reaches it."""
        if self.values is None:
            return {t: t for t in self.tools}
        return {tool: value for value, tool in self.values.items()}

    @model_validator(mode="after")
    def _values_cover_tools(self) -> MergeTools:
        if len(set(self.tools)) != len(self.tools):
            raise ValueError("merge_tools lists a tool twice")
        if self.values is not None and sorted(self.values.values()) != sorted(self.tools):
            raise ValueError("values must map one selector value to each merged tool")
        return self


class AddParam(_Operation):
    """A new parameter with behaviour: its value is forwarded to an existing parameter of the tool.

    ``forward_to`` names the parameter of the tool (as it is at this point of the chain) that
    receives the value, translated through ``value_map`` when the new parameter speaks another
    vocabulary (keys are the new values as text: ``"true"``, ``"3"``, ``"fast"``). A parameter
    that would be validated and then dropped changes nothing an agent can observe, so a plan
    cannot add one.
    """

    op: Literal["add_param"] = "add_param"
    tool: str
    param: str
    param_schema: dict[str, Any] = Field(alias="schema")
    required: bool = False
    default: Any = None
    description: str | None = None
    forward_to: str | None = None
    value_map: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _has_behaviour(self, info: ValidationInfo) -> AddParam:
        if self.forward_to is None and not _recorded(info):
            raise ValueError(
                f"add_param {self.param!r} on {self.tool!r} has no behaviour: give 'forward_to' (the existing "
                "parameter of the tool that receives its value, with 'value_map' when the values differ), or do "
                "not add it; a parameter the proxy validates and then drops does nothing")
        if self.forward_to == self.param:
            raise ValueError(f"add_param {self.param!r} cannot forward to itself")
        return self

    @model_validator(mode="after")
    def _required_needs_default(self, info: ValidationInfo) -> AddParam:
        if self.required and not self.given("default") and not _recorded(info):
            raise ValueError("a required new parameter needs a 'default': the value that stands in for it "
                             "when old calls are rewritten")
        return self

    def forwarded(self, value: Any) -> Any:
        """The value the ``forward_to`` parameter receives for ``value`` of the new parameter."""
        return self.value_map.get(value if isinstance(value, str) else json.dumps(value), value)


class RemoveParam(_Operation):
    """The parameter disappears; ``fill`` is what the proxy sends upstream in its place."""

    op: Literal["remove_param"] = "remove_param"
    tool: str
    param: str
    fill: Any = None


class RenameParam(_Operation):
    """The parameter keeps its meaning under a new name."""

    op: Literal["rename_param"] = "rename_param"
    tool: str
    param: str
    new_name: str
    description: str | None = None


class SetRequired(_Operation):
    """The parameter becomes required or optional; ``fill`` stands in when it is absent."""

    op: Literal["set_required"] = "set_required"
    tool: str
    param: str
    required: bool
    fill: Any = None


class ConstrainParam(_Operation):
    """The parameter accepts other values: keywords are set (enforced by the proxy) or removed."""

    op: Literal["constrain_param"] = "constrain_param"
    tool: str
    param: str
    set: dict[str, Any] = Field(default_factory=dict)
    remove: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _known_keywords(self) -> ConstrainParam:
        if not self.set and not self.remove:
            raise ValueError("constrain_param needs keywords to 'set' or to 'remove'")
        unknown = sorted((set(self.set) | set(self.remove)) - CONSTRAINT_KEYWORDS)
        if unknown:
            raise ValueError(f"unsupported keyword(s) {unknown}; use some of {sorted(CONSTRAINT_KEYWORDS)}")
        return self


class DescribeTool(_Operation):
    """The tool's description is rewritten."""

    op: Literal["describe_tool"] = "describe_tool"
    tool: str
    description: str


class DescribeParam(_Operation):
    """One parameter's description is rewritten."""

    op: Literal["describe_param"] = "describe_param"
    tool: str
    param: str
    description: str


Operation = Annotated[
    AddTool | RenameTool | RemoveTool | MergeTools | AddParam | RemoveParam | RenameParam | SetRequired
    | ConstrainParam | DescribeTool | DescribeParam,
    Field(discriminator="op"),
]


class EvolutionPlan(_Model):
    """One round of evolution: the version it produces and the operations that produce it."""

    schema_version: int = 1
    version: str = Field(min_length=1)
    parent: str | None = None
    server: str | None = None
    summary: str = ""
    served_by: ServedBy = "proxy"
    unknown_args: Literal["reject", "ignore"] = "reject"
    operations: list[Operation] = Field(min_length=1)

    @property
    def operators(self) -> list[str]:
        """The distinct operators this plan applies, in first-use order."""
        return list(dict.fromkeys(op.operator for op in self.operations))


def operation_tools(op: Operation) -> set[str]:
    """The existing tools an operation acts on or builds from (by their names at that point)."""
    names: set[str] = set()
    if isinstance(op, AddTool):
        names.update(n for n in [op.alias_of, *(step.tool for step in op.steps)] if n)
    elif isinstance(op, MergeTools):
        names.update(op.tools)
    else:
        names.add(op.tool)
        if isinstance(op, RemoveTool) and op.migrate_to is not None:
            names.add(op.migrate_to.tool)
    return names


def created_tools(op: Operation) -> set[str]:
    """The tools through which the behaviour an operation touched is reached afterwards."""
    if isinstance(op, AddTool):
        return {op.name}
    if isinstance(op, RenameTool | MergeTools):
        return {op.new_name}
    if isinstance(op, RemoveTool) and op.migrate_to is not None:
        return {op.migrate_to.tool}
    return set()


# --------------------------------------------------------------------------- loading


def _where(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def format_validation_error(source: str, error: ValidationError) -> str:
    """Turn a pydantic error into one readable line per problem, each naming where it is."""
    lines = [f"{source}: invalid evolution plan"]
    for item in error.errors():
        message = str(item["msg"]).removeprefix("Value error, ")
        lines.append(f"  {_where(tuple(item['loc']))}: {message}")
    return "\n".join(lines)


def parse_plan(data: Any, source: str = "plan") -> EvolutionPlan:
    """Validate already-parsed plan data; errors name the source and each bad field."""
    if not isinstance(data, dict):
        raise PlanError(f"{source}: a plan must be a mapping with 'version' and 'operations'")
    try:
        return EvolutionPlan.model_validate(data, context={"served_by": data.get("served_by", "proxy")})
    except ValidationError as exc:
        raise PlanError(format_validation_error(source, exc)) from None


def load_plan(path: Path | str) -> EvolutionPlan:
    """Read one plan file (YAML or JSON)."""
    path = Path(path)
    if not path.exists():
        raise PlanError(f"{path}: no such plan file")
    return parse_plan(bounded(load_document, PlanError, path, "plan file", yaml=True), str(path))


def dump_plan(plan: EvolutionPlan) -> str:
    """Serialise a plan as YAML, leaving out fields still at their defaults."""
    data = plan.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    data = {"version": plan.version, **data}
    data["operations"] = [{"op": op.op, "operator": op.operator, **raw}
                          for op, raw in zip(plan.operations, data["operations"], strict=True)]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


class PlanChain:
    """Plans applied in order, oldest first; version k of the server is the first k plans."""

    def __init__(self, plans: Sequence[EvolutionPlan]) -> None:
        versions = [p.version for p in plans]
        if len(set(versions)) != len(versions):
            raise PlanError(f"a plan chain needs distinct version labels, got {versions}")
        servers = {p.server for p in plans if p.server is not None}
        if len(servers) > 1:
            raise PlanError(f"a plan chain evolves one server, got plans for {sorted(servers)}")
        self.plans: list[EvolutionPlan] = list(plans)

    @property
    def versions(self) -> list[str]:
        """Version labels in application order."""
        return [p.version for p in self.plans]

    @property
    def server(self) -> str | None:
        """The server the chain evolves, when the plans name it."""
        return next((p.server for p in self.plans if p.server is not None), None)

    @property
    def unknown_args(self) -> Literal["reject", "ignore"]:
        """How the newest plan wants stale argument names handled."""
        return self.plans[-1].unknown_args if self.plans else "reject"

    def upto(self, version: str) -> PlanChain:
        """The chain that produces ``version`` (its plan and every earlier one)."""
        if version not in self.versions:
            raise PlanError(f"no plan produces version {version!r} (versions: {self.versions})")
        return PlanChain(self.plans[: self.versions.index(version) + 1])

    def operators_applied(self) -> dict[str, list[str]]:
        """For each version, the operators its plan applied (for operator-impact scoring)."""
        return {p.version: p.operators for p in self.plans}

    def operators_touching(self, tools: Iterable[str]) -> dict[str, list[str]]:
        """For each version, the operators its plan applied to ``tools`` (original plain names).

        The tools are followed through the chain: a tool renamed, merged into another, migrated
        into a survivor or copied by an alias is followed under its new name too, so a later
        round acting on the new tool is counted. Versions whose plan touched none are left out.
        """
        current = set(tools)
        out: dict[str, list[str]] = {}
        for plan in self.plans:
            hit: list[str] = []
            for op in plan.operations:
                if operation_tools(op) & current:
                    hit.append(op.operator)
                    current |= created_tools(op)
            if hit:
                out[plan.version] = list(dict.fromkeys(hit))
        return out

    def operations(self) -> Iterable[tuple[EvolutionPlan, int, Operation]]:
        """Every operation with its plan and index, in application order."""
        for plan in self.plans:
            for index, op in enumerate(plan.operations):
                yield plan, index, op

    # ----------------------------------------------------------------- mapping (see mapping.py)

    def tool_mapping(self, tools: Iterable[str] | None = None) -> dict[str, ToolMapping]:
        """Old tool -> where its calls go now (``mapping.ToolMapping``), for the given or named tools."""
        from mcptrials.evolve.mapping import tool_mapping

        return dict(tool_mapping(self, tools))

    def rewrite_call(self, tool: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Rewrite one old call (plain or ``server__tool`` name) into the newest interface."""
        from mcptrials.evolve.mapping import rewrite_call

        return rewrite_call(self, tool, args)

    def rewrite_tool_names(self, names: Sequence[str]) -> list[str]:
        """Rewrite an equivalence set of old tool names into the names that do the same now."""
        from mcptrials.evolve.mapping import rewrite_tool_names

        return rewrite_tool_names(self, names)

    def replacements(self) -> dict[str, str]:
        """Old -> new names of tools renamed by the chain (hints for ``diff_tool_lists``)."""
        from mcptrials.evolve.mapping import replacements

        return replacements(self)


def load_plan_chain(paths: Sequence[Path | str]) -> PlanChain:
    """Load plans and, before each, the ``parent`` plans it names; duplicates load once."""
    seen: dict[Path, EvolutionPlan] = {}

    def visit(path: Path, trail: tuple[Path, ...]) -> None:
        path = path.resolve()
        if path in trail:
            cycle = " -> ".join(str(p) for p in (*trail, path))
            raise PlanError(f"plan parents form a cycle: {cycle}")
        if path in seen:
            return
        plan = load_plan(path)
        if plan.parent:
            visit(path.parent / plan.parent, (*trail, path))
        seen[path] = plan

    for raw in paths:
        visit(Path(raw), ())
    return PlanChain(list(seen.values()))
