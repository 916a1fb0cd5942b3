"""Rule metrics of MCP-Bench §5.1: valid tool names, schema compliance, execution success, dependency compliance."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing.exceptions import Unresolvable

from mcptrials.model import Episode, Score, Task, ToolCallRecord, ToolInfo, stable_hash

SCORER = "rules"
VERSION = "2"


Check = Callable[[Any], bool]


@lru_cache(maxsize=4096)
def _validator(schema_json: str) -> Check | None:
    """An ``is_valid`` for one schema (JSON Schema 2020-12), or None for an unusable schema.

    The Rust validator of ``jsonschema-rs`` is used where it must agree with the reference
    ``jsonschema`` package: not for schemas with regular expressions (the two read regex syntax
    differently) or with references outside the schema (``jsonschema`` does not fetch them), nor
    for arguments holding NaN or infinity.
    """
    schema = json.loads(schema_json)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return None
    validator = Draft202012Validator(schema)

    def reference(instance: Any) -> bool:
        try:
            return validator.is_valid(instance)
        except Unresolvable:  # a $ref it cannot resolve (it fetches nothing): unusable, so met
            return True

    if not _rust_agrees(schema):
        return reference
    try:
        fast = jsonschema_rs.Draft202012Validator(schema)
    except Exception:  # a schema the Rust validator will not take: the reference one judges it
        return reference
    return lambda instance: fast.is_valid(instance) if _finite(instance) else reference(instance)


_NAMED = {"properties", "$defs", "definitions", "dependentSchemas"}
"""Keywords whose object maps names (a parameter may be called ``pattern``) to schemas."""


def _rust_agrees(schema: Any, named: bool = False) -> bool:
    """Whether no part of ``schema`` reads a regex or refers outside the schema (``named``: its keys
    are names, not keywords)."""
    if isinstance(schema, list):
        return all(_rust_agrees(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    for key, value in schema.items():
        if not named and key in {"pattern", "patternProperties", "$dynamicRef", "$recursiveRef"}:
            return False
        if not named and key == "$ref" and not (isinstance(value, str) and value.startswith("#")):
            return False
        if not _rust_agrees(value, named=not named and key in _NAMED):
            return False
    return True


def _finite(value: Any) -> bool:
    """No NaN or infinity anywhere in ``value`` (Python's JSON reads them; the two validators differ on them)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


def schema_compliant(arguments: dict[str, Any] | None, schema: Mapping[str, Any]) -> bool:
    """Whether arguments validate against a tool's input schema (an unusable schema counts as met)."""
    if arguments is None:
        return False
    held = _BY_SCHEMA.get(id(schema))
    if held is None or held[0] is not schema:
        if len(_BY_SCHEMA) > 4096:
            _BY_SCHEMA.clear()
        held = _BY_SCHEMA[id(schema)] = (schema, _validator(json.dumps(schema, sort_keys=True)))
    validator = held[1]
    return True if validator is None else validator(arguments)


_BY_SCHEMA: dict[int, tuple[Mapping[str, Any], Check | None]] = {}
"""Validators by schema object (kept alive here, so an id is never reused while cached): re-scoring
checks every call against the same few catalog schemas without serialising them each time."""


def _rate(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def dependency_compliance(calls: list[ToolCallRecord], dependencies: list[tuple[str, str]]) -> tuple[int, int]:
    """(edges kept, edges the agent reached): an edge (producer, consumer) is reached when the consumer was
    called, and kept when a successful producer call came before the consumer's first call."""
    first_call: dict[str, int] = {}
    first_success: dict[str, int] = {}
    for position, call in enumerate(calls):
        first_call.setdefault(call.name, position)
        if not call.is_error:
            first_success.setdefault(call.name, position)
    reached = [(a, b) for a, b in dict.fromkeys(dependencies) if b in first_call]
    kept = [(a, b) for a, b in reached if first_success.get(a, len(calls)) < first_call[b]]
    return len(kept), len(reached)


def score_rules(episode: Episode, tools: Mapping[str, ToolInfo], task: Task | None = None) -> Score:
    """Compute the rule metrics over every tool call of ``episode``.

    ``tools`` maps qualified names to the tools the agent was offered; the dependency compliance rate
    is computed when ``task`` names dependencies (MCP-Bench's "dependency order" check).
    """
    calls = episode.tool_calls
    valid = [c for c in calls if c.name in tools]
    compliant = [c for c in valid if schema_compliant(c.arguments, tools[c.name].input_schema)]
    succeeded = [c for c in calls if not c.is_error]
    values = {
        "valid_tool_name_rate": _rate(len(valid), len(calls)),
        "schema_compliance_rate": _rate(len(compliant), len(valid)),
        "execution_success_rate": _rate(len(succeeded), len(calls)),
        "dependency_compliance_rate": _rate(*dependency_compliance(calls, task.dependencies)) if task else None,
    }
    return Score(
        episode_id=episode.id, scorer=SCORER, scorer_version=VERSION, passed=None,
        values={k: v for k, v in values.items() if v is not None},
        detail={"tool_calls": len(calls), "catalog_hash": stable_hash(sorted(tools))},
    )
