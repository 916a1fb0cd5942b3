"""Each plan operation changes the served tool list as planned and calls still reach the upstream.

These run the proxy's MCP server in-process in front of the in-process toy server, so they are
fast; ``test_proxy.py`` runs the same machinery as real stdio subprocesses.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from mcptrials.evolve.interface import build_interface
from mcptrials.evolve.plan import PlanError, parse_plan
from mcptrials.evolve.proxy import build_server, list_all_tools, upstream_caller


@asynccontextmanager
async def evolved(upstream_server: Any, *ops: dict[str, Any], **plan: Any) -> AsyncIterator[Client]:
    """A client of the proxy serving the toy server evolved by one plan made of ``ops``."""
    chain = [parse_plan({"version": "v1", "operations": list(ops), **plan})] if ops else []
    async with Client(upstream_server, cache=None) as upstream:
        tools = await list_all_tools(upstream)
    interface = build_interface(tools, chain)
    async with (Client(upstream_server, cache=None) as upstream,
                Client(build_server(interface, upstream_caller(upstream)), cache=None) as client):
        yield client


async def tools_of(client: Client) -> dict[str, types.Tool]:
    return {t.name: t for t in (await client.list_tools()).tools}


def text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def ok(client: Client, name: str, args: dict[str, Any]) -> str:
    result = await client.call_tool(name, args)
    assert not result.is_error, text(result)
    return text(result)


async def error(client: Client, name: str, args: dict[str, Any]) -> str:
    result = await client.call_tool(name, args)
    assert result.is_error, text(result)
    return text(result)


async def test_no_plan_is_transparent(toy_server: Any) -> None:
    async with Client(toy_server, cache=None) as direct:
        upstream = [t.model_dump() for t in (await direct.list_tools()).tools]
    async with evolved(toy_server) as client:
        assert [t.model_dump() for t in (await client.list_tools()).tools] == upstream
        assert await ok(client, "add", {"a": 2, "b": 3}) == "5"
        result = await client.call_tool("add", {"a": 2})
        assert result.structured_content == {"result": 2}


async def test_rename_tool_with_param_renames(toy_server: Any) -> None:
    op = {"op": "rename_tool", "operator": "O2", "tool": "greet", "new_name": "salute",
          "param_renames": {"name": "person"}, "description": "Salute a person."}
    async with evolved(toy_server, op) as client:
        tools = await tools_of(client)
        assert list(tools) == ["add", "salute", "echo", "count_chars"]
        assert tools["salute"].description == "Salute a person."
        assert list(tools["salute"].input_schema["properties"]) == ["person", "greeting", "punctuation"]
        assert tools["salute"].input_schema["required"] == ["person"]
        assert await ok(client, "salute", {"person": "Ada"}) == "Hello, Ada!"
        assert await error(client, "greet", {"name": "Ada"}) == "Unknown tool: greet"
        message = await error(client, "salute", {"name": "Ada"})
        assert message == "Invalid arguments for tool 'salute': unexpected parameter(s) name"


async def test_remove_tool_without_migration(toy_server: Any) -> None:
    op = {"op": "remove_tool", "operator": "O3", "tool": "count_chars"}
    async with evolved(toy_server, op) as client:
        assert "count_chars" not in await tools_of(client)
        assert await error(client, "count_chars", {"text": "x"}) == "Unknown tool: count_chars"


async def test_remove_tool_migrates_behaviour_into_a_survivor(toy_server: Any) -> None:
    op = {"op": "remove_tool", "operator": "O3", "tool": "count_chars",
          "migrate_to": {"tool": "echo", "selector": "mode", "value": "count", "default_value": "echo"}}
    async with evolved(toy_server, op) as client:
        tools = await tools_of(client)
        echo = tools["echo"].input_schema
        assert "count_chars" not in tools
        assert echo["properties"]["mode"]["enum"] == ["echo", "count"]
        assert echo["properties"]["mode"]["default"] == "echo"
        assert echo["required"] == ["text"]
        assert "count_chars used to do" in (tools["echo"].description or "")
        assert await ok(client, "echo", {"text": "abc", "mode": "count"}) == "3"
        assert await ok(client, "echo", {"text": "abc", "upper": True}) == "ABC"
        assert "'shout' is not one of ['echo', 'count']" in await error(client, "echo",
                                                                         {"text": "a", "mode": "shout"})


async def test_merge_tools_dispatches_by_selector(toy_server: Any) -> None:
    op = {"op": "merge_tools", "operator": "O2", "tools": ["echo", "count_chars"], "new_name": "text_tool",
          "description": "Echo or count a text.", "values": {"echo": "echo", "count": "count_chars"}}
    async with evolved(toy_server, op) as client:
        tools = await tools_of(client)
        assert list(tools) == ["add", "greet", "text_tool"]
        schema = tools["text_tool"].input_schema
        assert schema["required"] == ["action", "text"]
        assert schema["properties"]["action"]["enum"] == ["echo", "count"]
        assert await ok(client, "text_tool", {"action": "count", "text": "four"}) == "4"
        assert await ok(client, "text_tool", {"action": "echo", "text": "hi", "upper": True}) == "HI"
        assert "missing required parameter(s) action" in await error(client, "text_tool", {"text": "x"})


async def test_add_tool_alias_with_fixed_args(toy_server: Any) -> None:
    op = {"op": "add_tool", "operator": "O1", "name": "shout", "description": "Echo in capitals.",
          "alias_of": "echo", "fixed_args": {"upper": True}}
    async with evolved(toy_server, op) as client:
        tools = await tools_of(client)
        assert list(tools["shout"].input_schema["properties"]) == ["text"]
        assert await ok(client, "shout", {"text": "hey"}) == "HEY"
        assert await ok(client, "echo", {"text": "hey"}) == "hey"


async def test_add_tool_composed_of_steps(toy_server: Any) -> None:
    op = {"op": "add_tool", "operator": "O1", "name": "greet_and_count", "description": "Greet, then count.",
          "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
          "steps": [{"tool": "greet", "args": {"name": "{name}", "punctuation": "."}},
                    {"tool": "count_chars", "args": {"text": "{name}"}}]}
    async with evolved(toy_server, op) as client:
        result = await client.call_tool("greet_and_count", {"name": "Ada"})
        assert text(result) == "Hello, Ada.\n3"
        assert result.structured_content == {"steps": [{"tool": "greet", "result": {"result": "Hello, Ada."}},
                                                       {"tool": "count_chars", "result": {"result": 3}}]}
        assert "missing required parameter(s) name" in await error(client, "greet_and_count", {})


async def test_added_param_forwards_its_value_with_behaviour(toy_server: Any) -> None:
    style = {"op": "add_param", "operator": "O5", "tool": "greet", "param": "style",
             "schema": {"type": "string", "enum": ["formal", "casual"]}, "description": "Tone of the greeting.",
             "forward_to": "greeting", "value_map": {"formal": "Good day", "casual": "Hi"}}
    shout = {"op": "add_param", "operator": "O5", "tool": "echo", "param": "loud", "schema": {"type": "boolean"},
             "forward_to": "upper", "value_map": {"true": True, "false": False}}
    async with evolved(toy_server, style, shout) as client:
        schema = (await tools_of(client))["greet"].input_schema
        assert schema["properties"]["style"] == {"type": "string", "enum": ["formal", "casual"],
                                                 "description": "Tone of the greeting."}
        assert schema["required"] == ["name"]
        assert await ok(client, "greet", {"name": "Bo"}) == "Hello, Bo!"
        assert await ok(client, "greet", {"name": "Bo", "style": "casual"}) == "Hi, Bo!"
        assert await ok(client, "greet", {"name": "Bo", "style": "formal", "greeting": "Good day"}) == "Good day, Bo!"
        assert await ok(client, "greet", {"name": "Bo", "greeting": "Yo"}) == "Yo, Bo!"
        clash = await error(client, "greet", {"name": "Bo", "style": "casual", "greeting": "Yo"})
        assert "'style' and 'greeting' disagree" in clash
        message = await error(client, "greet", {"name": "Bo", "style": "rude"})
        assert message == ("Invalid arguments for tool 'greet': parameter 'style': 'rude' is not one of "
                           "['formal', 'casual']")
        assert await ok(client, "echo", {"text": "hey", "loud": True}) == "HEY"
        assert await ok(client, "echo", {"text": "hey", "loud": False}) == "hey"


@pytest.mark.parametrize("extra", [{}, {"value_map": {"en": "Hello"}}])
def test_added_param_without_behaviour_is_rejected_by_the_plan_loader(extra: dict[str, Any]) -> None:
    op = {"op": "add_param", "operator": "O5", "tool": "greet", "param": "locale",
          "schema": {"type": "string", "enum": ["en", "fr"]}, "default": "en", **extra}
    with pytest.raises(PlanError, match=r"operations\[0\].*add_param 'locale' on 'greet' has no behaviour: "
                                        r"give 'forward_to'"):
        parse_plan({"version": "v1", "operations": [op]})


def test_added_param_forwarding_to_a_missing_parameter_is_rejected() -> None:
    op = {"op": "add_param", "operator": "O5", "tool": "greet", "param": "tone",
          "schema": {"type": "string"}, "forward_to": "mood"}
    tools = [{"name": "greet", "description": "Greet.", "inputSchema": {
        "type": "object", "properties": {"name": {"type": "string"}, "greeting": {"type": "string"}}}}]
    with pytest.raises(PlanError, match="has no parameter 'mood'"):
        build_interface(tools, [parse_plan({"version": "v1", "operations": [op]})])


async def test_add_required_param(toy_server: Any) -> None:
    op = {"op": "add_param", "operator": "O8", "tool": "add", "param": "addend",
          "schema": {"type": "integer"}, "required": True, "default": 0, "forward_to": "b"}
    async with evolved(toy_server, op) as client:
        assert (await tools_of(client))["add"].input_schema["required"] == ["a", "addend"]
        assert "missing required parameter(s) addend" in await error(client, "add", {"a": 1})
        assert await ok(client, "add", {"a": 1, "addend": 2}) == "3"


async def test_remove_param_fills_it_and_rejects_or_ignores_stale_use(toy_server: Any) -> None:
    op = {"op": "remove_param", "operator": "O7", "tool": "greet", "param": "punctuation", "fill": "?"}
    async with evolved(toy_server, op) as client:
        assert "punctuation" not in (await tools_of(client))["greet"].input_schema["properties"]
        assert await ok(client, "greet", {"name": "Bo"}) == "Hello, Bo?"
        assert "unexpected parameter(s) punctuation" in await error(client, "greet",
                                                                   {"name": "Bo", "punctuation": "!"})
    async with evolved(toy_server, op, unknown_args="ignore") as client:
        assert await ok(client, "greet", {"name": "Bo", "punctuation": "!"}) == "Hello, Bo?"


async def test_rename_param(toy_server: Any) -> None:
    op = {"op": "rename_param", "operator": "O8", "tool": "echo", "param": "text", "new_name": "message",
          "description": "What to send back."}
    async with evolved(toy_server, op) as client:
        schema = (await tools_of(client))["echo"].input_schema
        assert schema["required"] == ["message"]
        assert schema["properties"]["message"]["description"] == "What to send back."
        assert await ok(client, "echo", {"message": "ok"}) == "ok"


async def test_set_required_promotes_and_demotes(toy_server: Any) -> None:
    promote = {"op": "set_required", "operator": "O6", "tool": "greet", "param": "greeting", "required": True,
               "fill": "Hello"}
    demote = {"op": "set_required", "operator": "O6", "tool": "add", "param": "a", "required": False, "fill": 10}
    async with evolved(toy_server, promote, demote) as client:
        tools = await tools_of(client)
        assert tools["greet"].input_schema["required"] == ["name", "greeting"]
        assert tools["add"].input_schema["required"] == []
        assert tools["add"].input_schema["properties"]["a"]["default"] == 10
        assert "missing required parameter(s) greeting" in await error(client, "greet", {"name": "Bo"})
        assert await ok(client, "add", {"b": 1}) == "11"


async def test_constrain_param_enforces_and_coerces(toy_server: Any) -> None:
    tighten = {"op": "constrain_param", "operator": "O6", "tool": "add", "param": "a",
               "set": {"minimum": 0, "maximum": 10}}
    retype = {"op": "constrain_param", "operator": "O6", "tool": "add", "param": "b",
              "set": {"type": "string", "pattern": "^[0-9]+$"}}
    length = {"op": "constrain_param", "operator": "O6", "tool": "echo", "param": "text",
              "set": {"maxLength": 5}}
    async with evolved(toy_server, tighten, retype, length) as client:
        props = (await tools_of(client))["add"].input_schema["properties"]
        assert props["a"]["maximum"] == 10 and props["b"]["type"] == "string"
        assert await ok(client, "add", {"a": 3, "b": "4"}) == "7"
        assert await error(client, "add", {"a": 11}) == (
            "Invalid arguments for tool 'add': parameter 'a': 11 is greater than the maximum of 10")
        assert "parameter 'b': 4 is not of type 'string'" in await error(client, "add", {"a": 1, "b": 4})
        assert "does not match '^[0-9]+$'" in await error(client, "add", {"a": 1, "b": "x"})
        assert "is too long" in await error(client, "echo", {"text": "too long"})


async def test_descriptions_are_rewritten(toy_server: Any) -> None:
    ops = [{"op": "describe_tool", "operator": "O11", "tool": "add", "description": "Sum of a and b."},
           {"op": "describe_param", "operator": "O11", "tool": "add", "param": "b", "description": "Addend."}]
    async with evolved(toy_server, *ops) as client:
        add = (await tools_of(client))["add"]
        assert add.description == "Sum of a and b."
        assert add.input_schema["properties"]["b"]["description"] == "Addend."


async def test_operations_chain_on_each_others_results(toy_server: Any) -> None:
    ops = [{"op": "rename_tool", "operator": "O2", "tool": "add", "new_name": "plus"},
           {"op": "rename_param", "operator": "O8", "tool": "plus", "param": "a", "new_name": "x"},
           {"op": "constrain_param", "operator": "O6", "tool": "plus", "param": "x", "set": {"maximum": 5}},
           {"op": "add_tool", "operator": "O1", "name": "plus_one", "description": "x + 1.", "alias_of": "plus",
            "fixed_args": {"b": 1}}]
    async with evolved(toy_server, *ops) as client:
        assert await ok(client, "plus", {"x": 2, "b": 2}) == "4"
        assert await ok(client, "plus_one", {"x": 4}) == "5"
        assert "maximum of 5" in await error(client, "plus_one", {"x": 9})


@pytest.mark.parametrize(("op", "message"), [
    ({"op": "describe_tool", "operator": "O9", "tool": "nope", "description": "x"},
     "plan v1, operation 1 (describe_tool, O9): no tool named 'nope' (tools: add, greet, echo, count_chars)"),
    ({"op": "describe_param", "operator": "O10", "tool": "add", "param": "c", "description": "x"},
     "tool 'add' has no parameter 'c' (parameters: a, b)"),
    ({"op": "remove_param", "operator": "O7", "tool": "add", "param": "a"},
     "is required upstream; give 'fill'"),
    ({"op": "rename_tool", "operator": "O2", "tool": "add", "new_name": "echo"}, "a tool named 'echo' already"),
    ({"op": "set_required", "operator": "O6", "tool": "add", "param": "a", "required": True}, "already required"),
    ({"op": "set_required", "operator": "O6", "tool": "add", "param": "a", "required": False}, "needs 'fill'"),
    ({"op": "constrain_param", "operator": "O6", "tool": "add", "param": "a", "remove": ["pattern"]},
     "has no 'pattern' to remove"),
    ({"op": "merge_tools", "operator": "O2", "tools": ["add", "echo"], "new_name": "both", "description": "x",
      "arg_maps": {"greet": {"name": "n"}}}, "arg_maps names 'greet', which is not merged"),
])
async def test_plans_that_do_not_fit_the_tools_fail_clearly(toy_server: Any, op: dict[str, Any],
                                                            message: str) -> None:
    with pytest.raises(PlanError) as info:
        async with evolved(toy_server, op):
            pass
    assert message in str(info.value)


async def test_merge_with_conflicting_parameters_asks_for_an_arg_map(toy_server: Any) -> None:
    op = {"op": "merge_tools", "operator": "O2", "tools": ["add", "echo"], "new_name": "both",
          "description": "x", "values": {"sum": "add", "say": "echo"}}
    async with evolved(toy_server, op) as client:  # a, b, text, upper: no clash
        assert await ok(client, "both", {"action": "sum", "a": 1, "b": 2}) == "3"
    clash = {"op": "merge_tools", "operator": "O2", "tools": ["echo", "add"], "new_name": "both",
             "description": "x", "arg_maps": {"add": {"a": "text"}}}
    with pytest.raises(PlanError, match="parameter 'text' differs between 'echo' and 'add'"):
        async with evolved(toy_server, clash):
            pass
