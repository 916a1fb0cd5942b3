"""The JSON Schema that constrains a small model's tool call to a valid one.

Once the local model has started a tool call under constrained decoding, it may only write
a JSON object matching this schema: a call of one offered tool,
``{"name": <tool>, "arguments": {...}}`` whose arguments follow that tool's input schema, or
``{"final_answer": "<text>"}`` for a model that decides to answer in JSON after all. The
provider turns the schema into a llama.cpp grammar; this module stays free of llama imports.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from mcptrials.models.base import ToolSchema
from mcptrials.models.toolcall_parse import FINAL_ANSWER_KEY

ANY_OBJECT: dict[str, Any] = {"type": "object"}
"""Fallback arguments schema when a tool's own schema cannot become a grammar."""


def call_schema(
    tools: Sequence[ToolSchema],
    *,
    supported: Callable[[dict[str, Any]], bool] = lambda _schema: True,
) -> dict[str, Any]:
    """Return a schema whose ``oneOf`` holds one alternative per tool plus a final answer.

    ``supported`` tells whether a schema can be compiled to a grammar; a tool whose input
    schema fails is retried without regex patterns, then falls back to any JSON object,
    so one exotic schema never disables constrained decoding for the other tools.
    """
    alternatives = [
        _call_alternative(tool.name, _arguments_schema(tool.parameters, supported)) for tool in tools
    ]
    alternatives.append({
        "type": "object",
        "properties": {FINAL_ANSWER_KEY: {"type": "string"}},
        "required": [FINAL_ANSWER_KEY],
        "additionalProperties": False,
    })
    return {"oneOf": alternatives}


def _call_alternative(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One tool's alternative: its name as a constant and its arguments schema."""
    return {
        "type": "object",
        "properties": {"name": {"const": name}, "arguments": arguments},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }


def _arguments_schema(
    parameters: dict[str, Any], supported: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """Pick the strictest usable form of a tool's input schema."""
    for candidate in (parameters, without_patterns(parameters)):
        if _is_object_schema(candidate) and supported(candidate):
            return candidate
    return ANY_OBJECT


def _is_object_schema(schema: dict[str, Any]) -> bool:
    """Arguments must be a JSON object; anything else is replaced by the fallback."""
    kind = schema.get("type")
    return kind == "object" or (kind is None and "properties" in schema)


def without_patterns(schema: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of a schema with every string ``pattern`` removed (grammars reject many)."""
    clone = copy.deepcopy(schema)
    _drop_patterns(clone)
    return clone


def _drop_patterns(node: Any) -> None:
    """Remove ``pattern`` keys in place, walking the whole schema tree."""
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            del node["pattern"]
        for value in node.values():
            _drop_patterns(value)
    elif isinstance(node, list):
        for item in node:
            _drop_patterns(item)
