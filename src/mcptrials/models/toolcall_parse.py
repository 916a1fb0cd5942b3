"""Read tool calls out of the free text a small local model writes.

Small models do not always follow their chat template's tool-call format: they wrap the
call in ``<tool_call>`` tags, in a markdown fence, or write bare JSON; they put several
calls in one message; they spell the arguments as an object or as a JSON string, and name
the tool under ``name`` or ``function``. Every such shape is accepted here. A call whose
JSON cannot be read is still returned, with ``arguments=None`` and the raw text, so the
agent layer records it as an invalid call instead of losing it. Pure functions only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

FINAL_ANSWER_KEY = "final_answer"
"""Key of the object a constrained model writes when it answers instead of calling a tool."""

_TAG_RE = re.compile(r"<tool_call>(.*?)(?:</tool_call>|(?=<tool_call>)|\Z)", re.DOTALL)
_FENCE_RE = re.compile(r"```[ \t]*(?:json|JSON|tool_call|javascript)?[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_NAME_RE = re.compile(r'"(?:name|function)"\s*:\s*"([^"\\]{1,200})"')
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class ParsedCall:
    """One tool call found in model text; ``arguments`` is None when they could not be read."""

    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str | None = None


@dataclass(frozen=True)
class ParsedOutput:
    """Model text split into the prose left over and the tool calls found in it."""

    text: str
    calls: list[ParsedCall] = field(default_factory=list)


def parse_output(raw: str, known_tools: Collection[str] | None = None) -> ParsedOutput:
    """Split a model's raw completion into prose and tool calls.

    Text inside ``<tool_call>`` tags is always read as calls (a span that is not valid
    JSON becomes one malformed call). Outside tags, JSON in markdown fences or bare JSON
    counts as a call only when it has a call's shape and, if ``known_tools`` is given,
    names one of them, so a final answer that merely contains JSON is left as text.
    """
    tagged = list(_TAG_RE.finditer(raw))
    if tagged:
        calls = [call for match in tagged for call in _calls_in_span(match.group(1))]
        rest = _TAG_RE.sub("", raw).replace("</tool_call>", "")
        return ParsedOutput(text=rest.strip(), calls=calls)

    final = _final_answer(raw)
    if final is not None:
        return ParsedOutput(text=final)

    calls, spans = _fenced_calls(raw, known_tools)
    if not calls:
        calls, spans = _bare_calls(raw, known_tools)
    if calls:
        text = raw
        for start, end in reversed(spans):
            text = text[:start] + text[end:]
        return ParsedOutput(text=text.strip(), calls=calls)
    return ParsedOutput(text=raw.strip())


CALL_OPENERS = ("{", "[", "`", "<tool_call>")
"""How a reply that is going to be a tool call begins (bare JSON, a fence or a tag)."""


def starts_call(prefix: str) -> bool | None:
    """Tell from the first characters of a reply whether it is a tool call.

    Returns None while the prefix holds only whitespace (or a partial tag), so the caller
    can look at a little more text before deciding.
    """
    head = prefix.lstrip()
    if not head:
        return None
    if head.startswith(CALL_OPENERS):
        return True
    if "<tool_call>".startswith(head):
        return None
    return False


def repeats_call(text: str) -> bool:
    """True when the text holds the same complete tool call twice: the model is looping."""
    seen: set[str] = set()
    for _, _, value in _json_values(text):
        for call in _calls_in_value(value):
            key = json.dumps([call.name, call.arguments, call.raw_arguments], sort_keys=True)
            if key in seen:
                return True
            seen.add(key)
    return False


def distinct_calls(calls: list[ParsedCall]) -> list[ParsedCall]:
    """Drop exact repeats of a call, keeping the first of each, in order."""
    seen: set[str] = set()
    kept: list[ParsedCall] = []
    for call in calls:
        key = json.dumps([call.name, call.arguments, call.raw_arguments], sort_keys=True)
        if key not in seen:
            seen.add(key)
            kept.append(call)
    return kept


def call_from_object(obj: Any) -> ParsedCall | None:
    """Read one call from a decoded JSON value, or return None when it is not shaped like one.

    Accepted shapes: ``{"name": ..., "arguments": ...}`` (also ``parameters``/``args``/
    ``input``), ``{"function": "name", ...}`` and the OpenAI form
    ``{"type": "function", "function": {"name": ..., "arguments": "<json string>"}}``.
    """
    if not isinstance(obj, dict):
        return None
    inner = obj.get("function")
    if isinstance(inner, dict) and isinstance(inner.get("name"), str):
        obj = inner
    name = obj.get("name")
    if not isinstance(name, str):
        name = obj.get("function")
    if not isinstance(name, str) or not name.strip():
        return None
    for key in _ARGUMENT_KEYS:
        if key in obj:
            return _with_arguments(name.strip(), obj[key])
    return ParsedCall(name=name.strip(), arguments={})


def _with_arguments(name: str, value: Any) -> ParsedCall:
    """Build a call from an arguments value that may be an object, a JSON string or junk."""
    if isinstance(value, dict):
        return ParsedCall(name=name, arguments=value)
    if value is None:
        return ParsedCall(name=name, arguments={})
    if isinstance(value, str):
        if not value.strip():
            return ParsedCall(name=name, arguments={})
        try:
            decoded = json.loads(value)
        except json.JSONDecodeError:
            return ParsedCall(name=name, arguments=None, raw_arguments=value)
        if isinstance(decoded, dict):
            return ParsedCall(name=name, arguments=decoded)
        return ParsedCall(name=name, arguments=None, raw_arguments=value)
    return ParsedCall(name=name, arguments=None, raw_arguments=json.dumps(value))


def _calls_in_span(span: str) -> list[ParsedCall]:
    """Read every call inside one tag span; an unreadable span yields one malformed call."""
    body = _strip_fence(span.strip())
    values = list(_json_values(body))
    calls: list[ParsedCall] = []
    for _, _, value in values:
        calls.extend(_calls_in_value(value))
    if calls:
        return calls
    if not body:
        return []
    name_match = _NAME_RE.search(body)
    return [ParsedCall(name=name_match.group(1) if name_match else "", arguments=None, raw_arguments=body)]


def _calls_in_value(value: Any) -> list[ParsedCall]:
    """Read calls from one decoded value: a call object, a list of them, or ``{"tool_calls": [...]}``."""
    if isinstance(value, list):
        return [call for item in value if (call := call_from_object(item)) is not None]
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
        return _calls_in_value(value["tool_calls"])
    call = call_from_object(value)
    return [call] if call is not None else []


def _untagged_calls(text: str, known_tools: Collection[str] | None) -> list[ParsedCall]:
    """Read calls from untagged JSON text, keeping only those that pass the known-tool filter."""
    calls: list[ParsedCall] = []
    for _, _, value in _json_values(text):
        calls.extend(_plausible_calls(value, known_tools))
    return calls


_Found = tuple[list[ParsedCall], list[tuple[int, int]]]


def _fenced_calls(raw: str, known_tools: Collection[str] | None) -> _Found:
    """Collect the calls from every markdown fence in ``raw``, with the spans of those fences."""
    calls: list[ParsedCall] = []
    spans: list[tuple[int, int]] = []
    for match in _FENCE_RE.finditer(raw):
        found = _untagged_calls(match.group(1), known_tools)
        if found:
            calls.extend(found)
            spans.append(match.span())
    return calls, spans


def _bare_calls(raw: str, known_tools: Collection[str] | None) -> _Found:
    """Find call-shaped JSON written straight into the text, with the spans it occupies."""
    calls: list[ParsedCall] = []
    spans: list[tuple[int, int]] = []
    for start, end, value in _json_values(raw):
        found = _plausible_calls(value, known_tools)
        if found:
            calls.extend(found)
            spans.append((start, end))
    return calls, spans


def _plausible_calls(value: Any, known_tools: Collection[str] | None) -> list[ParsedCall]:
    """Read calls from untagged JSON, keeping only objects that are really calls, not quoted data.

    An object counts when it names a known tool, or spells out a call's full shape (a name
    plus an arguments key, or a nested ``function`` object); so a call to a misspelt tool is
    still reported as a call, while ``{"name": "Ada"}`` in an answer is left alone.
    """
    if isinstance(value, list):
        return [call for item in value for call in _plausible_calls(item, known_tools)]
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
        return _plausible_calls(value["tool_calls"], known_tools)
    call = call_from_object(value)
    if call is None:
        return []
    explicit = isinstance(value.get("function"), dict) or any(k in value for k in _ARGUMENT_KEYS)
    known = known_tools is not None and call.name in known_tools
    return [call] if explicit or known else []


def _final_answer(raw: str) -> str | None:
    """Return the answer text when the whole output is a ``{"final_answer": ...}`` object."""
    stripped = _strip_fence(raw.strip())
    if not stripped.startswith("{"):
        return None
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError:
        return None
    if isinstance(value, dict) and set(value) == {FINAL_ANSWER_KEY}:
        answer = value[FINAL_ANSWER_KEY]
        return answer if isinstance(answer, str) else json.dumps(answer)
    return None


def _strip_fence(text: str) -> str:
    """Remove one surrounding markdown fence, if the text is wrapped in one."""
    match = _FENCE_RE.fullmatch(text.strip())
    return match.group(1).strip() if match and text.strip().startswith("```") else text


def _json_values(text: str) -> Iterator[tuple[int, int, Any]]:
    """Yield ``(start, end, value)`` for each top-level JSON object or array found in ``text``."""
    index = 0
    while index < len(text):
        start = _next_opening(text, index)
        if start < 0:
            return
        try:
            value, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            index = start + 1
            continue
        yield start, end, value
        index = end


def _next_opening(text: str, index: int) -> int:
    """Return the position of the next ``{`` or ``[`` at or after ``index``, or -1."""
    positions = [p for p in (text.find("{", index), text.find("[", index)) if p >= 0]
    return min(positions) if positions else -1
