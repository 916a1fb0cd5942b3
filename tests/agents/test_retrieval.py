"""The copilot's retriever: the combined server-and-tool score, same-name tools told apart, reply checks."""

from __future__ import annotations

import anyio
import pytest

from mcptrials.agents.retrieval import combined_score, load_retriever, parse_embeddings, tool_document
from mcptrials.agents.retrieval_eval import evaluate
from mcptrials.bundled.world import bundled_servers
from mcptrials.model import PlannedCall, Task, ToolInfo
from mcptrials.models.base import ProviderError
from mcptrials.run.options import catalogue


@pytest.fixture(scope="module")
def pool() -> list[ToolInfo]:
    return anyio.run(catalogue, bundled_servers())


@pytest.mark.parametrize(("need", "wanted"), [
    ("convert 250 euros into US dollars at today's exchange rate", "finance__convert"),
    ("convert 12 miles to kilometres", "units__convert"),
    ("what time is it now in Tokyo", "worldclock__now"),
])
async def test_same_name_tools_are_told_apart_by_their_server(pool, need: str, wanted: str) -> None:
    hits, _ = await load_retriever("bm25").route(need, pool, len(pool))
    bare = wanted.partition("__")[2]
    same_name = [h.tool.qualified_name for h in hits if h.tool.name == bare]
    assert len(same_name) >= 2 and same_name[0] == wanted  # the right server's tool ranks above its namesake
    assert hits[0].tool.server == wanted.partition("__")[0]
    top = hits[0]
    assert top.score == pytest.approx(top.server_score * top.tool_score * max(top.server_score, top.tool_score))
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_described_tool_documents_carry_each_parameters_description(pool) -> None:
    tool = next(t for t in pool if t.qualified_name == "rail__get_station_codes_by_city")
    plain, described = tool_document(tool), tool_document(tool, described=True)
    about = tool.input_schema["properties"]["cities"]["description"]
    assert "cities" in plain and about not in plain
    assert described.startswith("rail get_station_codes_by_city: ")
    assert f"cities: {' '.join(about.split())}" in described
    odd = ToolInfo(server="s", name="t", description="  Does\n  a thing. ",
                   input_schema={"type": "object", "properties": {"a": {"description": "  "}, "b": True, "c": {}}})
    assert tool_document(odd, described=True) == "s t: Does a thing. a; b; c"  # odd schemas never crash
    listed = odd.model_copy(update={"input_schema": {"properties": ["x"]}})
    assert tool_document(listed, described=True) == "s t: Does a thing."


@pytest.mark.parametrize(("server", "tool", "weight", "expected"), [
    (0.5, 0.8, None, 0.5 * 0.8 * 0.8),
    (0.5, 0.8, 0.5, 0.25 + 0.8),
    (0.9, 0.0, 0.5, 0.0),  # nothing of the need in the tool itself: never carried by its server alone
    (0.0, 0.7, 0.5, 0.7),
    (0.0, 0.7, None, 0.0),
])
def test_combined_score(server: float, tool: float, weight: float | None, expected: float) -> None:
    assert combined_score(server, tool, weight) == pytest.approx(expected)


async def test_a_need_no_word_of_which_matches_returns_nothing(pool) -> None:
    hits, _ = await load_retriever("bm25").route("zzzz qqqq", pool, 5)
    assert hits == []  # zero-score tools are not padded in (the agent is told nothing matched)


async def test_recall_and_mrr_from_ranks() -> None:
    tools = [ToolInfo(server="units", name="convert", description="convert a quantity between units of length"),
             ToolInfo(server="clock", name="now", description="the current date and time"),
             ToolInfo(server="mail", name="send_message", description="send an email message")]
    spec = {"checkpoints": [{"id": "a", "kind": "value_produced", "contains": ["x"]}]}
    task = Task(id="t", prompt="send an email saying the time now", servers=["mail", "clock"], spec=spec,
                reference=[PlannedCall(tool="clock__now"), PlannedCall(tool="mail__send_message")])
    lonely = Task(id="u", prompt="p", servers=["units"], spec=spec)  # no reference: left out, and said so
    scores = await evaluate(load_retriever("bm25"), [task, lonely], tools, [1, 2, 3])
    assert scores.tasks == 1 and scores.skipped == ["u"]
    assert scores.recall == {1: 0.5, 2: 1.0, 3: 1.0} and scores.complete == {1: 0.0, 2: 1.0, 3: 1.0}
    assert scores.mrr == 1.0


@pytest.mark.parametrize(("body", "why"), [
    ('{"data": [{"index": 0, "embedding": [1, 2]}, {"index": 1, "embedding": [1]}]}', "different lengths"),
    ('{"data": [{"index": 5, "embedding": [1]}, {"index": 0, "embedding": [1]}]}', "index 5"),
    ('{"data": [{"embedding": [1, 0]}, {"embedding": [0, 1]}], "usage": {"prompt_tokens": 4}}', None),
])
def test_embedding_replies(body: str, why: str | None) -> None:
    if why is None:
        vectors, usage = parse_embeddings(body, 2)
        assert vectors == [[1.0, 0.0], [0.0, 1.0]] and usage.prompt_tokens == 4
    else:
        with pytest.raises(ProviderError, match=why) as caught:
            parse_embeddings(body, 2)
        assert caught.value.kind == "malformed_response"
