"""Measure how often the embedded default model writes a correct tool call, with and without a grammar.

Each case is a short conversation with a known right next move (a given tool with given
arguments, or a plain answer). The script runs every case with constrained decoding off and
on, and prints per case whether the call was read, named the right tool, had arguments that
validate against the tool's schema, and matched the expected values; raw completions go to a
JSON file for inspection (``--raw-out``).

    python bench/local_toolcalls.py [--model local:default] [--threads 2] [--raw-out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from mcptrials.models.base import Message, ToolCallRequest, ToolSchema
from mcptrials.models.local import LocalModel
from mcptrials.models.toolcall_parse import parse_output

SYSTEM = "You are a helpful assistant. Use the tools when they help answer the user."

CLOCK = ToolSchema(name="clock__now", description="Return the current date and time in ISO 8601.",
                   parameters={"type": "object", "properties": {}})
TICKETS = ToolSchema(
    name="rail__get_tickets",
    description="List train tickets between two stations on one travel date.",
    parameters={
        "type": "object",
        "properties": {
            "from_station": {"type": "string", "description": "departure station name"},
            "to_station": {"type": "string", "description": "arrival station name"},
            "date": {"type": "string", "description": "travel date as YYYY-MM-DD"},
        },
        "required": ["from_station", "to_station", "date"],
    },
)
DISTRACTORS = [
    ToolSchema(name="weather__forecast", description="Weather forecast for a city and date.",
               parameters={"type": "object", "properties": {"city": {"type": "string"},
                                                            "date": {"type": "string"}},
                           "required": ["city"]}),
    ToolSchema(name="notes__create", description="Create a note with a title and body.",
               parameters={"type": "object", "properties": {"title": {"type": "string"},
                                                            "body": {"type": "string"}},
                           "required": ["title", "body"]}),
    ToolSchema(name="notes__search", description="Search notes by keyword.",
               parameters={"type": "object", "properties": {"query": {"type": "string"},
                                                            "limit": {"type": "integer"}},
                           "required": ["query"]}),
    ToolSchema(name="rail__get_stations", description="List the stations of a city.",
               parameters={"type": "object", "properties": {"city": {"type": "string"}},
                           "required": ["city"]}),
    ToolSchema(name="rail__book_ticket", description="Book one ticket by its id for a passenger.",
               parameters={"type": "object", "properties": {"ticket_id": {"type": "string"},
                                                            "passenger": {"type": "string"}},
                           "required": ["ticket_id", "passenger"]}),
    ToolSchema(name="mail__send", description="Send an email.",
               parameters={"type": "object", "properties": {"to": {"type": "string"},
                                                            "subject": {"type": "string"},
                                                            "body": {"type": "string"}},
                           "required": ["to", "subject", "body"]}),
]

TICKET_RESULT = json.dumps({"tickets": [
    {"id": "G101", "depart": "08:00", "arrive": "12:30", "price": 553.0},
    {"id": "G105", "depart": "09:00", "arrive": "13:28", "price": 553.0},
]})


@dataclass
class Case:
    """One conversation and the next move a correct model makes."""

    name: str
    messages: list[Message]
    tools: list[ToolSchema]
    expect_tool: str | None  # None: a plain answer is right
    expect_args: dict[str, Any] = field(default_factory=dict)


def _user(text: str) -> list[Message]:
    return [Message(role="system", content=SYSTEM), Message(role="user", content=text)]


def _after_call(text: str, call: ToolCallRequest, result: str) -> list[Message]:
    return [*_user(text), Message(role="assistant", tool_calls=[call]),
            Message(role="tool", content=result, tool_call_id=call.id, name=call.name)]


def cases() -> list[Case]:
    """The fixed case list: first calls, calls among distractors, and answers after a result."""
    simple = [CLOCK, TICKETS]
    many = [CLOCK, TICKETS, *DISTRACTORS]
    trip = {"from_station": "Beijing", "to_station": "Shanghai", "date": "2026-05-02"}
    trip_text = "Find train tickets from Beijing to Shanghai on 2026-05-02."
    time_call = ToolCallRequest(id="call_0", name="clock__now", arguments={})
    trip_call = ToolCallRequest(id="call_1", name="rail__get_tickets", arguments=trip)
    return [
        Case("time/2 tools", _user("What time is it now?"), simple, "clock__now"),
        Case("tickets/2 tools", _user(trip_text), simple, "rail__get_tickets", trip),
        Case("tickets-tomorrow/2 tools", _user("Find train tickets from Beijing to Shanghai for tomorrow."),
             simple, "clock__now"),
        Case("time/8 tools", _user("What time is it now?"), many, "clock__now"),
        Case("tickets/8 tools", _user(trip_text), many, "rail__get_tickets", trip),
        Case("answer-after-time", _after_call("What time is it now?", time_call, "2026-05-01T09:00:00+08:00"),
             simple, None),
        Case("answer-after-tickets", _after_call(trip_text, trip_call, TICKET_RESULT), simple, None),
        Case("tickets-after-time",
             _after_call("Find train tickets from Beijing to Shanghai for tomorrow.", time_call,
                         "2026-05-01T09:00:00+08:00"),
             simple, "rail__get_tickets", trip),
        Case("no-tool-needed", _user("Say hello in French, one word."), simple, None),
    ]


def judge(case: Case, text: str, calls: list[ToolCallRequest]) -> dict[str, bool]:
    """Grade one response: was a call read, right tool, schema-valid and expected arguments."""
    if case.expect_tool is None:
        return {"ok": not calls and bool(text.strip()), "parsed": True, "tool": not calls,
                "valid": True, "values": True}
    if not calls:
        return {"ok": False, "parsed": False, "tool": False, "valid": False, "values": False}
    call = calls[0]
    tool = next((t for t in case.tools if t.name == call.name), None)
    parsed = call.arguments is not None
    right_tool = call.name == case.expect_tool
    valid = False
    if parsed and tool is not None:
        try:
            jsonschema.validate(call.arguments, {**tool.parameters, "additionalProperties": False})
            valid = True
        except jsonschema.ValidationError:
            valid = False
    values = parsed and all((call.arguments or {}).get(k) == v for k, v in case.expect_args.items())
    return {"ok": right_tool and valid and values, "parsed": parsed, "tool": right_tool,
            "valid": valid, "values": values}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local:default")
    parser.add_argument("--raw-out", default=None)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    print("command:", " ".join([sys.executable, *sys.argv]))
    rest = args.model.partition(":")[2]
    records: list[dict[str, Any]] = []
    for constrained in (False, True):
        model = LocalModel(rest, constrained=constrained, n_threads=args.threads)
        model.load()
        totals = {"ok": 0, "parsed": 0, "tool": 0, "valid": 0, "values": 0}
        for case in cases():
            start = time.perf_counter()
            raw = model.complete(case.messages, case.tools)
            elapsed = time.perf_counter() - start
            parsed = parse_output(raw.text, known_tools={t.name for t in case.tools})
            calls = [ToolCallRequest(id=f"c{i}", name=c.name, arguments=c.arguments,
                                     raw_arguments=c.raw_arguments) for i, c in enumerate(parsed.calls)]
            grade = judge(case, parsed.text, calls)
            for key in totals:
                totals[key] += grade[key]
            first = calls[0] if calls else None
            got = f"{first.name}({json.dumps(first.arguments)})" if first else f"text={parsed.text[:60]!r}"
            print(f"constrained={constrained!s:5} {case.name:26} ok={grade['ok']!s:5} {elapsed:5.1f}s "
                  f"p={raw.prompt_tokens} c={raw.completion_tokens} {raw.decoding:7} -> {got}")
            records.append({"constrained": constrained, "case": case.name, "raw": raw.text,
                            "grade": grade, "prompt_tokens": raw.prompt_tokens,
                            "completion_tokens": raw.completion_tokens, "seconds": round(elapsed, 2),
                            "decoding": raw.decoding, "stopped_on_repeat": raw.stopped_on_repeat})
        n = len(cases())
        print(f"constrained={constrained}: " + ", ".join(f"{k} {v}/{n}" for k, v in totals.items()))
    if args.raw_out:
        with open(args.raw_out, "w", encoding="utf-8") as handle:
            json.dump(records, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
