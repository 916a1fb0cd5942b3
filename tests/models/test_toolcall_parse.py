"""Tolerant tool-call parsing, on completions that Qwen2.5-Coder-0.5B really wrote.

The samples marked "recorded" are verbatim completions of the default model (greedy,
seed 0) for the prompts in bench/local_toolcalls.py; the others reproduce the Qwen2.5 chat
template's own ``<tool_call>`` format and the damaged variants small models produce.
"""

from __future__ import annotations

import pytest

from mcptrials.models.toolcall_parse import (
    ParsedCall,
    call_from_object,
    distinct_calls,
    parse_output,
    repeats_call,
    starts_call,
)

TOOLS = {"clock__now", "rail__get_tickets"}
TRIP = {"from_station": "Beijing", "to_station": "Shanghai", "date": "2026-05-02"}

# recorded: unconstrained, two tools, "Find train tickets from Beijing to Shanghai on 2026-05-02."
FENCED = (
    '```json\n{\n  "name": "rail__get_tickets",\n  "arguments": {\n    "from_station": "Beijing",\n'
    '    "to_station": "Shanghai",\n    "date": "2026-05-02"\n  }\n}\n```'
)
# recorded: unconstrained, "What time is it now?" -- the model copies a schema into the arguments
BARE_SCHEMA_ARGS = (
    '{"name": "clock__now", "arguments": {"type": "object", "properties": {"type": "object", "properties": {}}}}'
)
# recorded: unconstrained, after the clock result came back -- the model loops until the token limit
LOOPING = (
    '{"name": "clock__now", "arguments": {"type": "object", "properties": {"type": "string", '
    '"description": "ISO 8601 date and time"}}}\n'
    '{"name": "clock__now", "arguments": {"type": "object", "properties": {"type": "string", '
    '"description": "ISO 8601 date and time"}}}\n'
    '{"name": "clock__now", "arguments": {"type": '
)
# recorded: constrained decoding (grammar from the tools' schemas)
CONSTRAINED = '{"name": "rail__get_tickets", "arguments": {"from_station": "Beijing", "to_station": "Shanghai", ' \
    '"date": "2026-05-02"}}'
# recorded: a grammar that forbade a leading "{" made the model write prose before a fence
PROSE_THEN_FENCE = (
    'Mark the start and end of the date range:\n```json\n{"name": "rail__get_tickets", "arguments": '
    '{"from_station": "Beijing", "to_station": "Shanghai", "date": "2026-05-02"}}\n```'
)
# the chat template's own format, with two calls in one message
TAGGED_TWO = (
    '<tool_call>\n{"name": "clock__now", "arguments": {}}\n</tool_call>\n'
    '<tool_call>\n{"name": "rail__get_tickets", "arguments": {"from_station": "Beijing", '
    '"to_station": "Shanghai", "date": "2026-05-02"}}\n</tool_call>'
)


def test_fenced_json_is_a_call() -> None:
    out = parse_output(FENCED, TOOLS)
    assert out.calls == [ParsedCall("rail__get_tickets", TRIP)]
    assert out.text == ""


def test_bare_json_is_a_call_even_with_wrong_arguments() -> None:
    out = parse_output(BARE_SCHEMA_ARGS, TOOLS)
    assert [c.name for c in out.calls] == ["clock__now"]
    assert out.calls[0].arguments == {"type": "object", "properties": {"type": "object", "properties": {}}}


def test_looping_output_gives_repeated_calls_and_the_truncated_tail_is_ignored() -> None:
    out = parse_output(LOOPING, TOOLS)
    assert len(out.calls) == 2
    assert len(distinct_calls(out.calls)) == 1
    assert repeats_call(LOOPING)


def test_constrained_output() -> None:
    assert parse_output(CONSTRAINED, TOOLS).calls == [ParsedCall("rail__get_tickets", TRIP)]


def test_prose_before_a_fence_stays_as_text() -> None:
    out = parse_output(PROSE_THEN_FENCE, TOOLS)
    assert out.calls == [ParsedCall("rail__get_tickets", TRIP)]
    assert out.text == "Mark the start and end of the date range:"


def test_several_tagged_calls() -> None:
    out = parse_output(TAGGED_TWO, TOOLS)
    assert [c.name for c in out.calls] == ["clock__now", "rail__get_tickets"]
    assert out.calls[1].arguments == TRIP
    assert out.text == ""


def test_several_calls_in_one_tag_and_text_around_tags() -> None:
    raw = ('Let me check.\n<tool_call>\n{"name": "clock__now", "arguments": {}}\n'
           '{"name": "rail__get_tickets", "arguments": {"from_station": "A", "to_station": "B", "date": "x"}}'
           '\n</tool_call>')
    out = parse_output(raw, TOOLS)
    assert [c.name for c in out.calls] == ["clock__now", "rail__get_tickets"]
    assert out.text == "Let me check."


def test_tag_without_closing_tag() -> None:
    out = parse_output('<tool_call>\n{"name": "clock__now", "arguments": {}}', TOOLS)
    assert out.calls == [ParsedCall("clock__now", {})]


def test_truncated_json_in_a_tag_is_a_malformed_call() -> None:
    raw = '<tool_call>\n{"name": "rail__get_tickets", "arguments": {"from_station": "Beij'
    (call,) = parse_output(raw, TOOLS).calls
    assert call.name == "rail__get_tickets"
    assert call.arguments is None
    assert call.raw_arguments is not None and call.raw_arguments.startswith('{"name": "rail__get_tickets"')


def test_junk_in_a_tag_is_a_malformed_call_without_a_name() -> None:
    (call,) = parse_output("<tool_call>\ncall the clock please\n</tool_call>", TOOLS).calls
    assert call == ParsedCall("", None, "call the clock please")


@pytest.mark.parametrize("raw", [
    "Bonjour",  # recorded: "Say hello in French, one word."
    "The tickets are G101 at 08:00 and G105 at 09:00.",
    "I would use {the clock} here, [maybe].",
    '{"tickets": [{"id": "G101"}]}',
])
def test_plain_answers_have_no_calls(raw: str) -> None:
    out = parse_output(raw, TOOLS)
    assert out.calls == []
    assert out.text == raw


def test_untagged_json_is_a_call_only_when_it_looks_like_one() -> None:
    misspelt = '{"name": "clock_now", "arguments": {}}'
    assert parse_output(misspelt, TOOLS).calls == [ParsedCall("clock_now", {})]  # reported, not swallowed
    person = '{"name": "Ada Lovelace", "born": 1815}'
    assert parse_output(person, TOOLS).calls == []
    assert parse_output(person, TOOLS).text == person
    assert parse_output('{"name": "clock__now"}', TOOLS).calls == [ParsedCall("clock__now", {})]


def test_final_answer_object_becomes_text() -> None:
    out = parse_output('{"final_answer": "It is 09:00."}', TOOLS)
    assert out.calls == []
    assert out.text == "It is 09:00."


@pytest.mark.parametrize(("obj", "expected"), [
    ({"name": "clock__now", "arguments": "{}"}, ParsedCall("clock__now", {})),
    ({"name": "clock__now", "arguments": '{"tz": "UTC"}'}, ParsedCall("clock__now", {"tz": "UTC"})),
    ({"name": "clock__now", "arguments": '{"tz": '}, ParsedCall("clock__now", None, '{"tz": ')),
    ({"name": "clock__now", "arguments": "[1]"}, ParsedCall("clock__now", None, "[1]")),
    ({"name": "clock__now", "arguments": [1]}, ParsedCall("clock__now", None, "[1]")),
    ({"name": "clock__now"}, ParsedCall("clock__now", {})),
    ({"name": "clock__now", "parameters": {"tz": "UTC"}}, ParsedCall("clock__now", {"tz": "UTC"})),
    ({"function": "clock__now", "arguments": {}}, ParsedCall("clock__now", {})),
    ({"type": "function", "function": {"name": "clock__now", "arguments": '{"tz": "UTC"}'}},
     ParsedCall("clock__now", {"tz": "UTC"})),
    ({"arguments": {}}, None),
    ({"name": ""}, None),
    ("clock__now", None),
])
def test_call_shapes(obj: object, expected: ParsedCall | None) -> None:
    assert call_from_object(obj) == expected


def test_list_of_calls_and_tool_calls_wrapper() -> None:
    listed = '[{"name": "clock__now", "arguments": {}}, {"function": "rail__get_tickets", "arguments": {}}]'
    assert [c.name for c in parse_output(listed, TOOLS).calls] == ["clock__now", "rail__get_tickets"]
    wrapped = '```json\n{"tool_calls": [{"name": "clock__now", "arguments": {}}]}\n```'
    assert [c.name for c in parse_output(wrapped, TOOLS).calls] == ["clock__now"]


@pytest.mark.parametrize(("prefix", "expected"), [
    ('{"name"', True), ("```json", True), ("  \n[", True), ("<tool_call>", True),
    ("<tool", None), ("", None), ("\n ", None), ("Bonjour", False), ("The", False),
])
def test_starts_call(prefix: str, expected: bool | None) -> None:
    assert starts_call(prefix) is expected


def test_distinct_calls_keeps_different_arguments() -> None:
    calls = [ParsedCall("a", {"x": 1}), ParsedCall("a", {"x": 2}), ParsedCall("a", {"x": 1})]
    assert distinct_calls(calls) == calls[:2]
    assert not repeats_call(TAGGED_TWO)
