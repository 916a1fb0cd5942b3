"""Checkable values in free text (numbers, dates, times, codes, addresses, names) and where else they occur.

The distiller builds every value check from these: a value is worth checking when a text the
agent wrote (its answer, a mail body, a file) states it and a tool result or the goal it was
given grounds it; a value only the agent itself made up cannot be checked against anything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any

from mcptrials.model import Scalar
from mcptrials.scoring.answers import (
    date_mentions,
    find_in_normalised,
    normalise_text,
    number_mentions,
    states,
    time_mentions,
)
from mcptrials.scoring.grounding import PHONE

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_CODE = re.compile(r"(?<![\w@.-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z0-9][\w-]*[A-Za-z0-9](?![\w@-])")
_PATH = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)+[\w.-]*\w|(?<![\w/.-])[\w-]+\.(?:md|txt|json|csv|tsv|py|js|ts|"
                   r"yaml|yml|toml|html|xml|pdf|log|ini|cfg|db|sqlite|png|jpg|ics|eml)(?![\w.])")
_URL = re.compile(r"\bhttps?://[^\s<>\"'()\[\]]*[^\s<>\"'()\[\].,;:!?]")
_NAME = re.compile(r"(?<![\w'])[A-Z][a-zA-Z&-]+(?:'[a-z]+)?(?:[ \t]+[A-Z][a-zA-Z&-]+(?:'[a-z]+)?)*")
_QUOTED = re.compile(r"(?:[\"“]|(?<!\w)[‘'])([^\"”’'\n]{3,80})(?:[\"”]|[’'](?!\w))")
"""A phrase in double or single quotes; an apostrophe inside a word (the mirror's, don't) opens and closes none."""
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n]\s*|[-*•]\s+)$")
_OPENER = re.compile(r"[\"“‘(>]\s*$")  # a quote, a bracket or a tag opens a phrase that may be a sentence
_STOP_NAMES = {"i", "the", "a", "an", "it", "this", "that", "these", "there", "here", "yes", "no", "done", "ok",
               "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today", "tomorrow",
               "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
               "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
               "nov", "dec", "note", "total", "hi", "hello", "dear", "thanks", "regards", "best", "summary"}


@dataclass(frozen=True)
class Value:
    """One checkable value found in a text: its kind, the value a spec names, and where it was read."""

    kind: str  # number | date | time | email | phone | path | code | weekday | name
    value: Scalar
    start: int
    end: int
    text: str

    @property
    def key(self) -> tuple[str, str]:
        return self.kind, str(self.value).casefold()


_WEEKDAY = re.compile(r"(?<![\w])(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)(?![\w])")
_UNIT_CODE = re.compile(r"^\d+(?:\.\d+)?-?[a-z]{1,7}$")


def values_in(text: str, *, year: int | None = None, small: bool = False) -> list[Value]:
    """Every checkable value stated in ``text``, in order (overlapping readings keep the most specific).

    Bare integers below ten are left out unless ``small`` (grounding one proves little).
    """
    norm = normalise_text(text, fold=False)
    folded = norm.casefold() if len(norm.casefold()) == len(norm) else norm.lower()
    found: list[Value] = []
    for m in _EMAIL.finditer(norm):
        found.append(Value("email", m.group().casefold(), m.start(), m.end(), m.group()))
    for m in _WEEKDAY.finditer(norm):
        found.append(Value("weekday", m.group(), m.start(), m.end(), m.group()))
    for m in PHONE.finditer(norm):
        found.append(Value("phone", m.group(), m.start(), m.end(), m.group()))
    for m in _PATH.finditer(norm):
        found.append(Value("path", m.group(), m.start(), m.end(), m.group()))
    for m in _URL.finditer(norm):  # a link is where something is, as a path is
        found.append(Value("path", m.group(), m.start(), m.end(), m.group()))
    for m in _CODE.finditer(norm):
        if _UNIT_CODE.match(m.group()):
            continue  # "72-hour", "6h": a number with its unit
        found.append(Value("code", m.group(), m.start(), m.end(), m.group()))
    for d in date_mentions(folded):
        y = d.year or year
        if y is not None:
            found.append(Value("date", f"{y:04d}-{d.month:02d}-{d.day:02d}", d.start, d.end, norm[d.start:d.end]))
    for t in time_mentions(folded):
        if t.explicit:
            found.append(Value("time", f"{t.hour:02d}:{t.minute:02d}", t.start, t.end, norm[t.start:t.end]))
    for n in number_mentions(folded):
        if n.scale != 1.0 and any(f.kind == "number" and f.start == n.start for f in found):
            continue
        if n.decimals == 0 and abs(n.value) < 10 and n.scale == 1.0 and not small:
            continue  # a bare small count is everywhere: grounding it proves nothing
        value: Scalar = int(n.value) if n.decimals == 0 and float(n.value).is_integer() else n.value
        found.append(Value("number", value, n.start, n.end, norm[n.start:n.end]))
    for m in _NAME.finditer(norm):
        words = [re.sub(r"'s$", "", w) for w in m.group().split()]
        if len(words) == 1 and (_SENTENCE_START.search(norm[:m.start()]) or norm[m.end():m.end() + 1] == ":" or (
                _OPENER.search(norm[:m.start()]) and re.match(r"\s+[a-z]", norm[m.end():]))):
            continue  # a capitalised first word of a sentence ("Can we meet?") or a field label ("Goal:") is no name
        while words and words[0].casefold() in _STOP_NAMES:
            words = words[1:]
        while words and words[-1].casefold() in _STOP_NAMES:
            words = words[:-1]
        if len(words) == 1 and words[0].isupper() and len(words[0]) <= 4:
            continue  # an acronym or a currency code (EPS, EUR) is a unit, not an item
        if words and len(" ".join(words)) >= 3:
            phrase = " ".join(words)
            start = m.start() + m.group().find(words[0])
            found.append(Value("name", phrase, start, start + len(phrase), phrase))
    return _most_specific(found)


_RANK = {"email": 0, "phone": 0, "path": 1, "date": 2, "time": 3, "code": 4, "number": 5, "weekday": 6, "name": 7}


def _most_specific(found: list[Value]) -> list[Value]:
    kept: list[Value] = []
    for v in sorted(found, key=lambda v: (_RANK[v.kind], -(v.end - v.start), v.start)):
        if any(k.start < v.end and v.start < k.end for k in kept):
            continue
        kept.append(v)
    return sorted(kept, key=lambda v: v.start)


def scale_word(value: Value, text: str) -> bool:
    """Whether a number is only a magnitude word of ``text`` ("per thousand", "USD millions"): a manner of
    speaking, not a figure a result gave."""
    if value.kind != "number" or value.value not in {100, 1000, 10**6, 10**9, 10**12}:
        return False
    return f"{int(value.value):,}" not in text and str(int(value.value)) not in text


def quoted_spans(text: str) -> list[Value]:
    """The phrases a text puts in quotes, as name values with where they are (a title, a subject line)."""
    norm = normalise_text(text, fold=False)
    return [Value("name", m.group(1).strip(), m.start(1), m.end(1), m.group(1)) for m in _QUOTED.finditer(norm)
            if m.group(1).strip()]


def quoted(text: str) -> list[str]:
    """Strings the user put in quotes: they must be reproduced as given."""
    return [m.group(1).strip() for m in _QUOTED.finditer(text) if m.group(1).strip()]


def word_matches(needle: str, text: str, flags: int = 0) -> Iterator[re.Match[str]]:
    """Where ``needle`` occurs in ``text`` as whole words: no word character just before or after it."""
    return re.finditer(r"(?<![\w])" + re.escape(needle) + r"(?![\w])", text, flags)


def word_in(needle: str, text: str, flags: int = 0) -> bool:
    """Whether ``needle`` occurs in ``text`` as whole words (see :func:`word_matches`)."""
    return next(word_matches(needle, text, flags), None) is not None


def grounded_in(value: Value, text: str) -> bool:
    """Whether ``text`` (a tool result, the goal) states ``value``."""
    if not text:
        return False
    if value.kind == "phone":
        return phone_digits(str(value.value))[-7:] in phone_digits(text)
    if value.kind in {"email", "code", "name", "path", "weekday"}:
        norm = normalise_text(text)
        needle = normalise_text(str(value.value))
        return word_in(needle, norm)
    return states(text, value.value)


def phone_digits(text: str) -> str:
    """The digits of a phone number (or of every phone number a text holds), for comparing however it is written."""
    return "".join(ch for m in PHONE.finditer(normalise_text(text)) for ch in m.group() if ch.isdigit())


def phone_options(phone: str) -> list[str]:
    """A phone number written the ways an answer may write it: with or without the country code, grouped."""
    groups = re.findall(r"\d+", phone)
    national = groups[1:] if phone.strip().startswith("+") and len(groups) > 2 else groups
    if len(national) < 2:
        return [phone]
    head, rest = national[0], national[1:]
    return list(dict.fromkeys([phone, "-".join(national), " ".join(national), f"({head}) {'-'.join(rest)}",
                               f"({head}) {' '.join(rest)}", ".".join(national), "".join(national)]))


def precise_number(value: Value, texts: Iterable[str]) -> Scalar:
    """The number as the results state it when the text rounds it (4.36 written for 4.3612 is 4.3612)."""
    if value.kind != "number":
        return value.value
    written = normalise_text(value.text)
    if isinstance(value.value, int | float) and value.value < 0 and not written.lstrip().startswith("-"):
        written = "-" + written.lstrip()  # the sign is read before the digits the mention spans
    texts = list(texts)
    mentions = [n for text in texts for n in number_mentions(normalise_text(text))]
    if _decimals(written) and any(isinstance(leaf, int | float) and not isinstance(leaf, bool) and leaf == value.value
                                  for doc in (parse_json(t) for t in texts) for _path, leaf in leaves(doc)):
        return value.value  # a result field holds it as written (1.9), whatever else rounds to it (1.95)
    for n in mentions:
        if n.decimals > _decimals(written) and find_in_normalised(written, n.value):
            return int(n.value) if float(n.value).is_integer() else n.value
    return value.value


def _decimals(written: str) -> int:
    digits = re.search(r"\d+(?:[.,](\d+))?", written)
    return len(digits.group(1)) if digits and digits.group(1) else 0


def leaves(document: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every scalar of a JSON document with the keys that lead to it."""
    if isinstance(document, dict):
        for key, value in document.items():
            yield from leaves(value, (*path, str(key)))
    elif isinstance(document, list):
        for item in document:
            yield from leaves(item, path)
    elif document is not None:
        yield path, document


def parse_json(text: str) -> Any:
    """The JSON a tool result holds, or None."""
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        return None


def argument_leaves(arguments: Any) -> list[Any]:
    """Every scalar in a call's arguments (strings, numbers), lists and dicts opened."""
    return [v for _path, v in leaves(arguments) if isinstance(v, str | int | float) and not isinstance(v, bool)]


_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def day_options(value: Any, today: date | None, asked: str) -> Any:
    """An ISO date, or also its weekday where that names it alone: within the six days after today, or in
    next week when the request speaks of next week ("by Friday" for 2026-04-17 on Monday 13 April)."""
    try:
        day = date.fromisoformat(str(value))
    except ValueError:
        return value
    if today is None:
        return value
    ahead = (day - today).days
    monday = 7 - today.weekday()
    if not (0 <= ahead <= 6 or (re.search(r"(?i)\bnext week\b", asked) and monday <= ahead < monday + 7)):
        return value
    return [value, _DAY_NAMES[day.weekday()]]
