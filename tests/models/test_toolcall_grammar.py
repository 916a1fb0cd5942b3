"""The schema behind constrained decoding: one alternative per tool plus a final answer."""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest

from mcptrials.models.base import ToolSchema
from mcptrials.models.toolcall_grammar import ANY_OBJECT, call_schema, without_patterns

CLOCK = ToolSchema(name="clock__now", description="now")
TICKETS = ToolSchema(name="rail__get_tickets", parameters={
    "type": "object",
    "properties": {"date": {"type": "string", "pattern": r"\d{4}-\d{2}-\d{2}"}},
    "required": ["date"],
})


def test_one_alternative_per_tool_and_a_final_answer() -> None:
    schema = call_schema([CLOCK, TICKETS])
    names = [alt["properties"].get("name", {}).get("const") for alt in schema["oneOf"]]
    assert names == ["clock__now", "rail__get_tickets", None]
    assert schema["oneOf"][2]["required"] == ["final_answer"]
    assert schema["oneOf"][1]["properties"]["arguments"] == TICKETS.parameters
    assert all(alt["additionalProperties"] is False for alt in schema["oneOf"])


def test_unsupported_schemas_lose_patterns_then_fall_back_to_any_object() -> None:
    def no_patterns(schema: dict[str, Any]) -> bool:
        return "pattern" not in json.dumps(schema)

    arguments = call_schema([TICKETS], supported=no_patterns)["oneOf"][0]["properties"]["arguments"]
    assert arguments["properties"]["date"] == {"type": "string"}
    assert TICKETS.parameters["properties"]["date"]["pattern"]  # the tool's own schema is untouched

    fallback = call_schema([TICKETS], supported=lambda _s: False)["oneOf"][0]["properties"]["arguments"]
    assert fallback == ANY_OBJECT
    not_an_object = ToolSchema(name="x__y", parameters={"type": "string"})
    assert call_schema([not_an_object])["oneOf"][0]["properties"]["arguments"] == ANY_OBJECT


def test_without_patterns_keeps_a_property_named_pattern() -> None:
    schema = {"type": "object", "properties": {"pattern": {"type": "string", "pattern": "^a$"}}}
    assert without_patterns(schema) == {"type": "object", "properties": {"pattern": {"type": "string"}}}


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                    reason="llama-cpp-python (the 'local' extra) is not installed")
def test_the_schema_compiles_to_a_llama_grammar() -> None:
    from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf

    def supported(schema: dict[str, Any]) -> bool:
        try:
            json_schema_to_gbnf(json.dumps(schema))
        except Exception:
            return False
        return True

    unanchored = call_schema([CLOCK, TICKETS], supported=supported)
    assert "pattern" not in json.dumps(unanchored)  # the converter rejects unanchored patterns
    gbnf = json_schema_to_gbnf(json.dumps(unanchored))
    assert '\\"clock__now\\"' in gbnf and "final_answer" in gbnf
    assert LlamaGrammar.from_json_schema(json.dumps(unanchored), verbose=False) is not None
