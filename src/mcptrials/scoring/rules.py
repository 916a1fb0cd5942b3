"""Rule metrics of MCP-Bench §5.1: valid tool names, schema compliance, execution success."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from mcptrials.model import Episode, Score, ToolInfo, stable_hash

SCORER = "rules"
VERSION = "1"


@lru_cache(maxsize=4096)
def _validator(schema_json: str) -> Draft202012Validator | None:
    import json

    schema = json.loads(schema_json)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return None
    return Draft202012Validator(schema)


def schema_compliant(arguments: dict[str, Any] | None, schema: Mapping[str, Any]) -> bool:
    """Whether arguments validate against a tool's input schema (an unusable schema counts as met)."""
    if arguments is None:
        return False
    held = _BY_SCHEMA.get(id(schema))
    if held is None or held[0] is not schema:
        import json

        if len(_BY_SCHEMA) > 4096:
            _BY_SCHEMA.clear()
        held = _BY_SCHEMA[id(schema)] = (schema, _validator(json.dumps(schema, sort_keys=True)))
    validator = held[1]
    return True if validator is None else validator.is_valid(arguments)


_BY_SCHEMA: dict[int, tuple[Mapping[str, Any], Draft202012Validator | None]] = {}
"""Validators by schema object (kept alive here, so an id is never reused while cached): re-scoring
checks every call against the same few catalog schemas without serialising them each time."""


def _rate(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def score_rules(episode: Episode, tools: Mapping[str, ToolInfo]) -> Score:
    """Compute the three rule metrics over every tool call of ``episode``.

    ``tools`` maps qualified names to the tools the agent was offered.
    """
    calls = episode.tool_calls
    valid = [c for c in calls if c.name in tools]
    compliant = [c for c in valid if schema_compliant(c.arguments, tools[c.name].input_schema)]
    succeeded = [c for c in calls if not c.is_error]
    values = {
        "valid_tool_name_rate": _rate(len(valid), len(calls)),
        "schema_compliance_rate": _rate(len(compliant), len(valid)),
        "execution_success_rate": _rate(len(succeeded), len(calls)),
    }
    return Score(
        episode_id=episode.id, scorer=SCORER, scorer_version=VERSION, passed=None,
        values={k: v for k, v in values.items() if v is not None},
        detail={"tool_calls": len(calls), "catalog_hash": stable_hash(sorted(tools))},
    )
