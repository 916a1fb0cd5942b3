"""Label-value binding for the figures of a table a text copies from results: whose figure, and which one.

A written message or page that reports figures of two or more result records (the stock of two
products, the EPS of two companies) must keep each figure with its record: the record's name as
the text gives it is the label of the figures it owns. Where the request names the quantities
themselves ("actual vs estimate"), each figure is also bound to the word for its field, so that
the two figures of one record cannot trade places. A figure two named records share binds nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mcptrials.generate.values import parse_json, values_in, word_in
from mcptrials.model import Fact
from mcptrials.scoring.answers import normalise_text
from mcptrials.scoring.claims import check_facts
from mcptrials.scoring.matchers import values_equal

_SYNONYMS = {"actual": ["actual", "reported"], "estimate": ["estim", "expect", "consensus", "forecast"],
             "estimated": ["estim", "expect", "consensus", "forecast"], "expected": ["estim", "expect", "consensus"],
             "high": ["high", "max"], "low": ["low", "min"], "min": ["min", "low"], "max": ["max", "high"],
             "open": ["open"], "close": ["clos"]}
_NOT_A_NAME = re.compile(r"[\d:/]{4}|@|://")
"""A date, a time, an address or a link: a field value that is no record's name."""
_CODE = re.compile(r"[A-Z][A-Z0-9.\-]{1,9}")
"""A symbol or code (AAPL): a text may name its record otherwise, by a name no result gives."""
_KEY_STOP = {"eps", "value", "pct", "usd", "eur", "num", "the", "of", "per", "id"}


@dataclass
class _Row:
    """A result record a text names, with the figures of the text that only it holds (by field key)."""

    labels: list[str]
    cells: dict[float | int, str] = field(default_factory=dict)


def _stem(word: str) -> str:
    return word if len(word) <= 5 else word[:max(5, len(word) - 3)]


def _name_labels(name: str, text: str, norm_text: str) -> list[str]:
    """How a text names a record by one of its short text fields: whole, by its leading words
    ("Beacon 400" for "Beacon 400 Headlamp"), and a code also by the name written before it ("Apple (AAPL)")."""
    norm = normalise_text(name)
    out: list[str] = []
    if word_in(norm, norm_text):
        out.append(name)
        if _CODE.fullmatch(name):
            before = re.search(r"([A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,2})\s*\(\s*" + re.escape(name) + r"\s*\)", text)
            if before:
                out.append(before.group(1))
    else:
        words = name.split()
        for n in range(len(words) - 1, 1, -1):
            lead = " ".join(words[:n])
            if word_in(normalise_text(lead), norm_text):
                out.append(lead)
                break
    return out


def _walk(doc: Any, names: list[str], out: list[tuple[list[str], dict[str, Any]]]) -> None:
    """Every record of a document with the short text fields of it and of the records around it (nearest first)."""
    if isinstance(doc, list):
        for item in doc:
            _walk(item, names, out)
    elif isinstance(doc, dict):
        own = [v for v in doc.values() if isinstance(v, str) and 2 <= len(v) <= 40 and not _NOT_A_NAME.search(v)]
        mine = [*own, *names]
        out.append((mine, doc))
        for value in doc.values():
            if isinstance(value, dict | list):
                _walk(value, mine, out)


def _rows(text: str, docs: list[Any], year: int | None) -> list[_Row]:
    """The records a text names whose figures it states, each figure held by that one named record."""
    norm_text = normalise_text(text)
    numbers = [v.value for v in values_in(text, year=year) if v.kind == "number"]
    records: list[tuple[list[str], dict[str, Any]]] = []
    for doc in docs:
        _walk(doc, [], records)
    owners: dict[Any, list[tuple[str, str]]] = {}  # figure -> (row label key, field key)
    labels_of: dict[str, list[str]] = {}
    for names, record in records:
        label: list[str] = []
        for name in names:
            label = _name_labels(name, text, norm_text)
            if label:
                break
        if not label:
            continue
        key = normalise_text(label[0])
        labels_of.setdefault(key, [])
        labels_of[key] += [x for x in label if x not in labels_of[key]]
        for fkey, leaf in record.items():
            if isinstance(leaf, bool) or not isinstance(leaf, int | float):
                continue
            for n in numbers:
                if values_equal(leaf, n) and (key, fkey) not in owners.setdefault(n, []):
                    owners[n].append((key, fkey))
    rows: dict[str, _Row] = {}
    for n, held in owners.items():
        if len(held) == 1:
            key, fkey = held[0]
            rows.setdefault(key, _Row(labels=labels_of[key])).cells[n] = fkey
    # a name shared by records (a currency, a unit) holds one field twice: it names no one record
    return [r for r in rows.values() if len(set(r.cells.values())) == len(r.cells)]


def _distinct(rows: list[_Row]) -> bool:
    names = [normalise_text(x) for row in rows for x in row.labels[:1]]
    return len(set(names)) == len(names) and not any(a != b and a in b for a in names for b in names)


def _field_words(key: str, asked: str) -> list[str]:
    """The words for a result field the request itself uses ("eps_estimate": estimate, when asked for it)."""
    asked_norm = asked.lower()
    words = [w for w in re.split(r"[^a-z]+", key.lower()) if len(w) >= 3 and w not in _KEY_STOP]
    out: list[str] = []
    for w in words:
        options = _SYNONYMS.get(w, [_stem(w)])
        if any(re.search(r"(?<![a-z])" + re.escape(o), asked_norm) for o in options):
            out += [o for o in options if o not in out]
    return out


def cell_facts(text: str, read_results: list[str], asked: str, year: int | None) -> list[list[Fact]]:
    """Facts binding each figure a text copies from a result record to the record's name (when the text
    names two or more records) and, apart, to the word for its field (when the request names the fields):
    two readings, each checked on its own (a row's name and a field's word compete for the same figure).
    A reading is kept only when the text itself states all its facts."""
    docs = [d for d in (parse_json(r) for r in read_results) if isinstance(d, dict | list)]
    if not docs or not text:
        return []
    rows = [r for r in _rows(text, docs, year) if r.cells]
    readings: list[list[Fact]] = []
    named = [r for r in rows if not all(_CODE.fullmatch(x) for x in r.labels)]
    if len(rows) >= 2 and len(named) == len(rows) and _distinct(rows):  # a ticker alone: "Apple" may name it too
        readings.append([Fact(label=row.labels, value=sorted(row.cells)) for row in rows])
    keys = {k for row in rows for k in row.cells.values()}
    words = {k: _field_words(k, asked) for k in keys}
    column: list[Fact] = []
    for row in rows:
        mine = [(n, k) for n, k in row.cells.items() if words[k]]
        if len({k for _n, k in mine}) < 2:
            continue  # one figure of a record: nothing in it to trade places with
        for n, k in mine:
            others = {w for o in keys if o != k for w in words[o]}
            own = [w for w in words[k] if not any(w in o or o in w for o in others)]
            if own:
                column.append(Fact(label=own, value=n))
    readings.append(column)
    return [r for r in readings if r and all(v.stated for v in check_facts(text, r))]
