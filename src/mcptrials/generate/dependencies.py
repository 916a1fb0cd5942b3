"""Tool dependencies from schemas and descriptions: which tool's output can feed which tool's input.

An edge ``A -> B (param)`` says a value ``A`` returns is a sensible input ``param`` of ``B``.
Evidence, strongest first: ``A``'s output schema has a field named like the parameter; the
parameter's (or ``B``'s) description names ``A``; ``A``'s description names the parameter; ``A``
is about the thing the parameter identifies (``park_code`` from a tool that searches parks)
without itself needing it; a list-of-numbers parameter fed by a tool that returns a numeric
series. Edges hold within and across servers; enums, flags and knobs (limit, format) are no
one's output. A chain is a walk along edges.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mcptrials.model import ToolInfo

_STOP = frozenset({
    "a", "an", "and", "the", "of", "to", "from", "in", "on", "at", "by", "for", "with", "or", "as", "is", "are", "be",
    "it", "its", "this", "that", "these", "those", "into", "one", "each", "all", "any", "per", "up", "than", "when",
    "which", "who", "what", "your", "you", "their"})
_KNOBS = frozenset({"limit", "format", "overwrite", "kind", "method", "units", "unit_system", "mode", "sort_by",
                    "sort", "order", "recursive", "show_hidden", "dry_run", "max_results", "max_chars", "confirm",
                    "case_sensitive", "include_past", "only_available", "reservable_only", "unread_only",
                    "replace_all", "all_day", "page", "offset", "max_count", "verbose", "direction"})
_KEYS = frozenset({"id", "code", "name", "path", "url", "symbol", "slug", "key", "number", "no", "hash",
                   "revision", "ref", "sha", "title"})
_SYNONYMS: dict[str, frozenset[str]] = {
    "lat": frozenset({"latitude", "coordinate"}), "lon": frozenset({"longitude", "coordinate"}),
    "lng": frozenset({"longitude", "coordinate"}), "latitude": frozenset({"coordinate", "lat"}),
    "longitude": frozenset({"coordinate", "lon"}), "symbol": frozenset({"ticker"}),
    "ticker": frozenset({"symbol"}), "timezone": frozenset({"zone"}), "url": frozenset({"link", "page"}),
    "path": frozenset({"file"}), "id": frozenset({"identifier"}), "revision": frozenset({"commit", "hash", "sha"}),
    "sha": frozenset({"commit", "hash"}),
}
_DISCOVERY = re.compile(r"(^|_)(search|list|find|lookup|log|history|query|browse|resolve|geocode|index)(_|$)|"
                        r"^get_.*_by_")
_NUMERIC_SERIES = frozenset({"price", "history", "series", "temperature", "reading", "measurement", "closing",
                             "ohlcv", "forecast"})
_GENERIC = frozenset({"type", "result", "start", "end", "new", "old", "find", "replace", "value", "day", "time",
                      "text", "query", "content", "body", "note", "description", "field", "data", "input", "output",
                      "item", "option", "filter", "keyword", "term", "label", "list", "line", "section", "status",
                      "target", "source", "message", "context"})


def words(text: str) -> list[str]:
    """Lower-case word tokens of a text or identifier (``fromStation``/``from_station`` -> from, station)."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return [_singular(w) for w in re.findall(r"[a-z0-9]+", text.lower().replace("_", " ")) if w not in _STOP]


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(frozen=True)
class Edge:
    """``source``'s output can feed ``target``'s ``param``; ``evidence`` says why, ``weight`` how surely."""

    source: str
    target: str
    param: str
    evidence: str
    weight: float

    @property
    def cross_server(self) -> bool:
        return self.source.split("__", 1)[0] != self.target.split("__", 1)[0]


def _properties(schema: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    props = (schema or {}).get("properties")
    return {k: v for k, v in props.items() if isinstance(v, dict)} if isinstance(props, dict) else {}


def _output_fields(schema: Any, depth: int = 0) -> set[str]:
    """Every property name anywhere in an output schema (nested objects and array items too)."""
    found: set[str] = set()
    if not isinstance(schema, dict) or depth > 6:
        return found
    for name, sub in _properties(schema).items():
        found.add(name)
        found |= _output_fields(sub, depth + 1)
    for key in ("items", "additionalProperties"):
        found |= _output_fields(schema.get(key), depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key) or []:
            found |= _output_fields(sub, depth + 1)
    for sub in (schema.get("$defs") or {}).values():
        found |= _output_fields(sub, depth + 1)
    return found


def _is_produced_value(name: str, prop: dict[str, Any]) -> bool:
    """A parameter some other tool's output could supply: not an enum, flag or knob."""
    if name.lower() in _KNOBS or "enum" in prop or "const" in prop:
        return False
    kinds = prop.get("type")
    kinds = set(kinds) if isinstance(kinds, list) else {kinds}
    return "boolean" not in kinds


def _numeric_list(prop: dict[str, Any]) -> bool:
    items = prop.get("items")
    return prop.get("type") == "array" and isinstance(items, dict) and items.get("type") in {"number", "integer"}


def _expand(tokens: Iterable[str]) -> set[str]:
    out = set(tokens)
    for t in list(out):
        out |= _SYNONYMS.get(t, frozenset())
    return out


_DESTRUCTIVE = re.compile(r"^(delete|remove|drop|reset|purge|wipe|destroy|cancel|unpublish|truncate|clear)"
                          r"|permanently|cannot be (undone|recovered)|no undo|irreversibl", re.IGNORECASE)


def is_destructive(tool: ToolInfo) -> bool:
    """Whether a tool destroys something (by its name or its own description's warning)."""
    return bool(_DESTRUCTIVE.search(tool.name) or _DESTRUCTIVE.search(tool.description))


def _names_tool(text: str, name: str) -> bool:
    """Whether a text names tool ``name``: as a multi-word identifier, in code quotes, or as a call."""
    if "_" in name:
        return re.search(rf"\b{re.escape(name)}\b", text) is not None
    return re.search(rf"`{re.escape(name)}`|\b{re.escape(name)}\(", text) is not None


def _evidence(source: ToolInfo, target: ToolInfo, param: str, prop: dict[str, Any]) -> tuple[str, float] | None:
    """Why ``source`` feeds ``target.param``, with a weight; None when nothing says so."""
    if param in _properties(source.input_schema) or source.name == target.name or is_destructive(source):
        return None  # a tool that needs the value itself (or a namesake) is a peer, not its producer
    p_words = words(param)
    fields = {f.lower() for f in _output_fields(source.output_schema)}
    if (param.lower() in fields and param.lower() not in _GENERIC) or (len(p_words) > 1 and p_words[-1] in fields
                                   and any(w in words(source.name) for w in p_words[:-1])):
        return f"{source.name} returns a field named like '{param}'", 3.0
    if _names_tool(f"{prop.get('description', '')} {target.description}", source.name):
        return f"{target.name} says '{param}' comes from {source.name}", 3.0
    if "_" in param and re.search(rf"\b{re.escape(param)}\b", source.description):
        return f"{source.name}'s description names '{param}'", 2.5
    name_words = _expand(words(source.name))
    text_words = _expand(words(f"{source.name} {source.description}"))
    keys = [w for w in p_words if w in _KEYS]
    entity = [w for w in p_words if w not in _KEYS and w not in _GENERIC]
    if entity and all(_expand([w]) & name_words for w in entity):
        if keys and _expand(keys) & text_words:
            return f"{source.name} gives {' '.join(entity)} {'/'.join(keys)}s", 2.0
        if _DISCOVERY.search(source.name):
            return f"{source.name} finds {' '.join(entity)}s", 1.5
        return f"{source.name} is about {' '.join(entity)}s", 1.0
    if entity and keys and _DISCOVERY.search(source.name) and all(_expand([w]) & text_words for w in entity):
        return f"{source.name} lists {' '.join(entity)}s", 1.5
    if keys and not entity and _DISCOVERY.search(source.name) and _expand(keys) & text_words:
        return f"{source.name} lists {'/'.join(keys)}s", 1.5
    if _numeric_list(prop) and text_words & _NUMERIC_SERIES and not any(
            _numeric_list(p) for p in _properties(source.input_schema).values()):
        return f"{source.name} returns a numeric series a list parameter '{param}' can take", 1.0
    return None


def discover(tools: Sequence[ToolInfo]) -> list[Edge]:
    """Every dependency edge between ``tools`` (within and across servers), strongest evidence per pair."""
    edges: dict[tuple[str, str, str], Edge] = {}
    for target in tools:
        for param, prop in _properties(target.input_schema).items():
            if not _is_produced_value(param, prop):
                continue
            for source in tools:
                if source.qualified_name == target.qualified_name:
                    continue
                found = _evidence(source, target, param, prop)
                if found is None:
                    continue
                key = (source.qualified_name, target.qualified_name, param)
                edge = Edge(source.qualified_name, target.qualified_name, param, found[0], found[1])
                if key not in edges or edges[key].weight < edge.weight:
                    edges[key] = edge
    return sorted(edges.values(), key=lambda e: (e.source, e.target, e.param))


@dataclass(frozen=True)
class Chain:
    """A walk along dependency edges: ``tools`` in call order and the edge between each pair."""

    tools: tuple[str, ...]
    edges: tuple[Edge, ...]

    @property
    def servers(self) -> list[str]:
        return list(dict.fromkeys(t.split("__", 1)[0] for t in self.tools))

    def describe(self) -> str:
        """The chain as lines a model (and a reviewer) can read."""
        return "\n".join(f"{i}. {e.source} -> {e.target} (input '{e.param}': {e.evidence})"
                         for i, e in enumerate(self.edges, 1))


def pick_chain(edges: Sequence[Edge], rng: random.Random, length: int, prefer_cross: bool = False) -> Chain | None:
    """A chain of up to ``length`` tools, its first edge drawn by weight (cross-server edges favoured on request)."""
    if not edges:
        return None
    weights = [e.weight * (3.0 if prefer_cross and e.cross_server else 1.0) for e in edges]
    first = rng.choices(list(edges), weights=weights, k=1)[0]
    chain_edges = [first]
    tools = [first.source, first.target]
    while len(tools) < length:
        onward = [e for e in edges if e.source == tools[-1] and e.target not in tools]
        if not onward:
            break
        step = rng.choices(onward, weights=[e.weight for e in onward], k=1)[0]
        chain_edges.append(step)
        tools.append(step.target)
    return Chain(tuple(tools), tuple(chain_edges))
