"""Dependency discovery, chain picking and the category samplers, on tool surfaces nobody here wrote."""

from __future__ import annotations

import random

import pytest

from mcptrials.generate.categories import BY_NAME, CATEGORIES, CategoryError, parse_categories
from mcptrials.generate.dependencies import discover, is_destructive, pick_chain
from mcptrials.generate.draft import Rejected
from mcptrials.generate.sampler import Sampler
from mcptrials.model import ServerSpec, ToolInfo


def tool(server: str, name: str, description: str, params: dict, output: dict | None = None) -> ToolInfo:
    return ToolInfo(server=server, name=name, description=description,
                    input_schema={"type": "object", "properties": params, "required": list(params)},
                    output_schema=output)


S = {"type": "string"}
GEO = tool("geo", "locate", "Find a place and its coordinates.", {"place": S},
           {"type": "object", "properties": {"hits": {"type": "array", "items": {"type": "object", "properties": {
               "lat": {"type": "number"}, "lon": {"type": "number"}, "place_id": {"type": "string"}}}}}})
SKY = tool("sky", "conditions_at", "Weather at a point.", {"lat": {"type": "number"}, "lon": {"type": "number"},
                                                             "units": {"type": "string", "enum": ["si", "us"]}})
TICKETS = tool("crm", "list_tickets", "List open support tickets with their ticket ids.", {"status": S})
TICKET = tool("crm", "get_ticket", "One ticket in full.", {"ticket_id": S, "verbose": {"type": "boolean"}})
CLOSE = tool("crm", "close_ticket", "Close a ticket; it is permanently archived.", {"ticket_id": S})
DELETE = tool("crm", "delete_ticket", "Delete a ticket.", {"ticket_id": S})
NAMED = tool("crm", "assign", "Assign a ticket.", {"agent": {"type": "string",
                                                              "description": "an agent handle from `list_agents`"}})
AGENTS = tool("staff", "list_agents", "Everyone on the support rota.", {})
PRICES = tool("mkt", "price_history", "Daily closing prices of a stock.", {"symbol": S})
MEAN = tool("stats", "mean", "Arithmetic mean.", {"values": {"type": "array", "items": {"type": "number"}}})
SUM = tool("stats", "total", "Sum of values.", {"values": {"type": "array", "items": {"type": "number"}}})


def edges_of(tools: list[ToolInfo]) -> set[tuple[str, str, str]]:
    return {(e.source, e.target, e.param) for e in discover(tools)}


def test_outputs_feed_inputs_within_and_across_servers() -> None:
    found = edges_of([GEO, SKY, TICKETS, TICKET, CLOSE, DELETE, NAMED, AGENTS, PRICES, MEAN, SUM])
    assert ("geo__locate", "sky__conditions_at", "lat") in found  # an output-schema field, across servers
    assert ("crm__list_tickets", "crm__get_ticket", "ticket_id") in found  # a lister of the thing the id names
    assert ("staff__list_agents", "crm__assign", "agent") in found  # the parameter's description names the tool
    assert ("mkt__price_history", "stats__mean", "values") in found  # a numeric series into a list of numbers
    # not edges: enums, flags and knobs; a tool that needs the value itself; a destructive tool as a source
    assert not any(param in {"units", "verbose", "status"} for _, _, param in found)
    assert ("crm__get_ticket", "crm__close_ticket", "ticket_id") not in found
    assert not any(src in {"crm__delete_ticket", "crm__close_ticket"} for src, _, _ in found)
    assert ("stats__total", "stats__mean", "values") not in found  # a peer taking numbers is no source of them


def test_destructive_tools_are_told_by_name_or_warning() -> None:
    assert is_destructive(DELETE) and is_destructive(CLOSE) and not is_destructive(TICKETS)


def test_chains_walk_edges_and_depend_only_on_the_seed() -> None:
    edges = discover([GEO, SKY, TICKETS, TICKET, NAMED, AGENTS, PRICES, MEAN])
    first = [pick_chain(edges, random.Random(f"7:{i}"), 3) for i in range(10)]
    again = [pick_chain(edges, random.Random(f"7:{i}"), 3) for i in range(10)]
    assert first == again
    for chain in first:
        assert chain is not None and len(chain.tools) >= 2
        assert all(e.source == a and e.target == b for e, a, b in zip(chain.edges, chain.tools, chain.tools[1:],
                                                                       strict=False))
    assert pick_chain([], random.Random(0), 3) is None
    crossing = [pick_chain(edges, random.Random(i), 2, prefer_cross=True) for i in range(40)]
    assert sum(c is not None and c.edges[0].cross_server for c in crossing) > 20


def specs(*names: str, category: dict[str, str] | None = None) -> dict[str, ServerSpec]:
    return {n: ServerSpec(name=n, command="x", category=(category or {}).get(n)) for n in names}


def test_samplers_follow_the_category_relation() -> None:
    search_a = tool("wiki", "search", "Search articles by text.", {"query": S})
    search_b = tool("papers", "search", "Search papers by text.", {"query": S})
    tools = [search_a, search_b, TICKETS, TICKET, DELETE, GEO, SKY]
    sampler = Sampler(tools, specs("wiki", "papers", "crm", "geo", "sky",
                                   category={"wiki": "knowledge", "papers": "knowledge", "crm": "support"}),
                      discover(tools))
    same = sampler.sample(BY_NAME["same-name"], 2, random.Random(1))
    assert same.anchor.name == same.tools[1].name == "search" and same.tools[1].server != same.anchor.server
    risky = sampler.sample(BY_NAME["destructive-adjacent"], 3, random.Random(2))
    assert risky.anchor.server == "crm" and not is_destructive(risky.anchor) and DELETE in risky.tools
    sibling = sampler.sample(BY_NAME["sibling"], 3, random.Random(3))
    assert {t.server for t in sibling.tools} == {sibling.anchor.server}
    dep = sampler.sample(BY_NAME["complementary"], 2, random.Random(4))
    assert any(e.source == dep.anchor.qualified_name for e in sampler.edges)
    other = sampler.sample(BY_NAME["cross-domain"], 3, random.Random(5))
    assert all(t.server != other.anchor.server for t in other.tools[1:])
    assert sampler.sample(BY_NAME["random"], 4, random.Random(6)) == sampler.sample(BY_NAME["random"], 4,
                                                                                      random.Random(6))


def test_samplers_reject_what_the_servers_cannot_give() -> None:
    sampler = Sampler([TICKETS, TICKET], specs("crm"), [])
    with pytest.raises(Rejected, match="no tool name is offered by two servers") as caught:
        sampler.sample(BY_NAME["homonym-trap"], 2, random.Random(0))
    assert caught.value.stage == "sample"
    with pytest.raises(Rejected, match="no server offers both read and destructive tools"):
        sampler.sample(BY_NAME["destructive-adjacent"], 2, random.Random(0))
    with pytest.raises(Rejected, match="no dependency"):
        sampler.sample(BY_NAME["prerequisite-strict"], 2, random.Random(0))


def test_the_fifteen_categories() -> None:
    assert len(CATEGORIES) == 15 and len(set(CATEGORIES)) == 15
    assert parse_categories(None) == list(CATEGORIES)
    assert parse_categories(["decoy,random", "decoy"]) == ["decoy", "random"]
    with pytest.raises(CategoryError, match="unknown category trick"):
        parse_categories(["random,trick"])


def test_reply_fields_are_read_leniently_but_checked() -> None:
    from mcptrials.generate.prompting import need_names, need_text, prompt_versions
    from mcptrials.judges.base import MalformedReply

    servers = ["weather", "maps"]
    assert need_names({"s": ["weather (live_read; travel)", "- maps", "maps"]}, "s", servers) == ["weather", "maps"]
    assert need_names({"s": ["maps__geocode", "weather__get_alerts"]}, "s", servers) == ["maps", "weather"]
    assert need_names({"s": "maps"}, "s", servers) == ["maps"] and need_names({}, "s", servers) == []
    for bad in ({"s": ["nowhere"]}, {"s": [3]}, {"s": {"a": 1}}):
        with pytest.raises(MalformedReply):
            need_names(bad, "s", servers)
    assert need_text({"t": "  Find the park  "}, "t", min_words=2) == "Find the park"
    for bad_text in ({"t": ""}, {"t": 42}, {}, {"t": "one"}):
        with pytest.raises(MalformedReply):
            need_text(bad_text, "t", min_words=2)
    versions = prompt_versions("goal_system.txt", "fuzz_system.txt")
    assert set(versions) == {"goal_system.txt", "fuzz_system.txt"} and all(len(v) == 12 for v in versions.values())
