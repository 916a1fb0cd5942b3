"""Reading values out of text the way a careful reviewer would: numbers, dates, times, labels.

An answer says "EPS came in at $4.36 against 4.15 expected"; a spec says ``actual: 4.36,
expected: 4.15``. This module finds *mentions* of an expected value in a text after
normalisation (thousands separators, decimal commas, trailing zeros, scale words, currency
and unit words around numbers; ISO and written dates; 12- and 24-hour times; case, accents
and spacing), and binds values to labels clause by clause so that a swap is told apart from
the right statement.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

from mcptrials.model import Fact, Scalar, StateCheckpoint, ValueCheckpoint
from mcptrials.scoring.memo import EpisodeMemo

# --------------------------------------------------------------------------- text


_PUNCT = str.maketrans({"_": " ", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                        "\u2014": "-", "\u2212": "-", "\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u2007": " "})


def normalise_text(text: str, *, fold: bool = True) -> str:
    """NFKC, plain quotes and dashes, underscores as spaces, no accents, single spaces; case-folded if ``fold``."""
    if text.isascii():  # fast path (re-scoring speed): ASCII is NFKC/NFKD-stable and has no accents
        text = text.translate(_PUNCT)
    else:
        text = unicodedata.normalize("NFKC", text).translate(_PUNCT)
        text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    if any(map(text.__contains__, ("  ", "\t", "\r", "\f", "\v"))):  # else there is nothing to collapse
        text = _BLANKS.sub(" ", text)
    return text.casefold() if fold else text


_BLANKS = re.compile(r"[ \t\r\f\v]+")


_SCANS: EpisodeMemo[tuple[str, str], tuple[Any, ...]] = EpisodeMemo()
"""Mentions already found in a text, by (kind, text): a text is scanned once however many values
are looked for in it while one episode is graded."""

_NORMS: EpisodeMemo[tuple[str, bool, bool], str] = EpisodeMemo()
"""Answer and tool-result texts already normalised, by (text, fold, for facts)."""


def _normalised(text: str, fold: bool = True) -> str:
    """:func:`normalise_text` of a text read several times while grading one episode, done once."""
    return _NORMS.get((text, fold, False), lambda: normalise_text(text, fold=fold))


def _scanned(kind: str, text: str, scan: Any) -> tuple[Any, ...]:
    return _SCANS.get((kind, text), lambda: tuple(scan(text)))


@lru_cache(maxsize=4096)
def _needle(raw: str, fold: bool) -> str:
    """A task's label or value normalised for search (task strings repeat; answer texts are never cached here)."""
    return normalise_text(raw, fold=fold)


@lru_cache(maxsize=4096)
def _needle_pattern(needle: str) -> re.Pattern[str]:
    left = r"(?<![\w])" if needle[0].isalnum() else ""
    stem = needle[-1].isalpha() and len(needle) >= 3
    right = "" if stem or not needle[-1].isalnum() else r"(?![\w])"
    return re.compile(left + re.escape(needle) + right)


# --------------------------------------------------------------------------- numbers

_SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "mio": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9,
           "b": 1e9, "trillion": 1e12, "tn": 1e12, "trn": 1e12, "t": 1e12}
_NUMBER = re.compile(
    r"(?<![\w.,])(?P<sign>[-+])?(?:[$€£¥]\s?)?(?P<int>\d{1,3}(?:(?P<sep>[, '])\d{3})(?:(?P=sep)\d{3})*|\d+)"
    r"(?:(?P<dec>[.,])(?P<frac>\d+))?(?![\d])"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion|mio|mn|bn|trn|tn|k|m|b|t)\b)?",
)


@dataclass(frozen=True)
class Mention:
    """Where a value was found in a text, and what it was read as."""

    start: int
    end: int


@dataclass(frozen=True)
class NumberMention(Mention):
    value: float
    decimals: int
    scale: float
    signed: bool = False


def _parse_number(match: re.Match[str]) -> tuple[float, int] | None:
    int_part, sep, dec, frac = match["int"], match["sep"], match["dec"], match["frac"]
    if sep and dec == sep:  # "1,234,5" — not a number anyone writes
        return None
    if sep == "," and dec == ",":
        return None
    if not sep and dec == "," and frac is not None and len(frac) == 3 and int_part != "0":
        # "3,500" is three thousand five hundred, never three and a half
        int_part, frac, dec = int_part + frac, None, None
    digits = int_part.replace(",", "").replace(" ", "").replace("'", "")
    text = digits + ("." + frac if frac is not None else "")
    value = float(text)
    if match["sign"] == "-":
        value = -value
    return value, len(frac) if frac is not None else 0


def number_mentions(text: str) -> list[NumberMention]:
    """Every number written in ``text`` (already normalised), with its precision.

    Digits that belong to a date (``2026-04-13``) or a clock time (``09:30``) are not numbers.
    """
    dates, times = _scanned("date", text, date_mentions), _scanned("time", text, time_mentions)
    taken = [(m.start, m.end) for m in [*dates, *times]]
    out = []
    for match in _NUMBER.finditer(text):
        if any(s <= match.start("int") < e for s, e in taken):
            continue
        parsed = _parse_number(match)
        if parsed is None:
            continue
        value, decimals = parsed
        scale_word = (match["scale"] or "").lower()
        scale = _SCALES.get(scale_word, 1.0)
        signed = match["sign"] is not None
        start = match.start("int")  # a currency sign before the digits stays free to be a label ("$: 19.14")
        out.append(NumberMention(start, match.end(), value * scale, decimals, scale, signed))
        if scale != 1.0:  # "150 m" may be metres, and "32,397.1 million" matches a figure given in millions
            out.append(NumberMention(start, match.end(), value, decimals, 1.0, signed))
    return out


def _decimals_of(value: float) -> int:
    text = repr(float(value))
    if "e" in text or "E" in text:
        return 0
    frac = text.split(".")[1].rstrip("0")
    return len(frac)


def _stating(expected: float, tol: float | None) -> Callable[[NumberMention], bool]:
    """Whether a written number states ``expected`` (within ``tol``, or rounded correctly): a test
    prepared once for all the numbers of a text."""
    slack = 1e-9 * max(1.0, abs(expected))
    if tol is not None:
        bound = tol + slack
        return lambda found: abs(found.value - expected) <= bound
    least = min(_decimals_of(expected), 1)

    def test(found: NumberMention) -> bool:
        if found.decimals < least and found.scale == 1.0:
            return False  # "42" does not state 42.16
        step = 10.0 ** (-found.decimals) * found.scale
        return abs(found.value - expected) <= step / 2 + slack

    return test


# --------------------------------------------------------------------------- dates and times

_MONTHS = {name: i for i, names in enumerate(
    [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
     ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
     ("november", "nov"), ("december", "dec")], start=1) for name in names}
_MONTH = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_MONTH_STEMS = tuple(sorted({name[:3] for name in _MONTHS}))  # every month name starts with one of these
_DATE_PATTERNS = [  # (literals a text must hold one of for the pattern to match: a cheap test first, pattern)
    (("-",), re.compile(r"(?<!\d)(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?!\d)")),
    (("/",), re.compile(r"(?<!\d)(?P<y>\d{4})/(?P<m>\d{1,2})/(?P<d>\d{1,2})(?!\d)")),
    (_MONTH_STEMS, re.compile(r"(?<![\w])(?P<d>\d{1,2})(?:st|nd|rd|th)?(?: of)? " + _MONTH
                              + r"(?:,? (?P<y>\d{4}))?(?!\w)")),
    (_MONTH_STEMS, re.compile(r"(?<![\w])" + _MONTH + r" (?P<d>\d{1,2})(?:st|nd|rd|th)?(?:,? (?P<y>\d{4}))?(?![\w])")),
    (("/", "."), re.compile(r"(?<![\d/.])(?P<a>\d{1,2})[/.](?P<b>\d{1,2})[/.](?P<y>\d{4})(?!\d)")),
]
_TIME = re.compile(
    r"(?<![\d:.])(?P<h>\d{1,2})(?:(?P<sep>[:.h])(?P<mi>\d{2}))?(?::\d{2})?\s?(?P<ampm>a\.?m\.?|p\.?m\.?)?(?![\d\w])"
)


@dataclass(frozen=True)
class DateMention(Mention):
    value: date | None
    month: int
    day: int
    year: int | None


def date_mentions(text: str) -> list[DateMention]:
    """Every calendar date written in ``text``: ISO, '13 April 2026', 'April 13', '13/04/2026'."""
    out: list[DateMention] = []
    for needs, pattern in _DATE_PATTERNS:
        if not any(map(text.__contains__, needs)):
            continue
        for m in pattern.finditer(text):
            groups = m.groupdict()
            year = int(groups["y"]) if groups.get("y") else None
            if "a" in groups and groups.get("a"):
                a, b = int(groups["a"]), int(groups["b"])
                readings = {(b, a), (a, b)}  # day/month first, or month/day (US)
            elif groups.get("mon"):
                readings = {(_MONTHS[groups["mon"]], int(groups["d"]))}
            else:
                readings = {(int(groups["m"]), int(groups["d"]))}
            for month, day in readings:
                if not (1 <= month <= 12 and 1 <= day <= 31):
                    continue
                try:
                    value = date(year, month, day) if year else None
                except ValueError:
                    continue
                out.append(DateMention(m.start(), m.end(), value, month, day, year))
    return out


@dataclass(frozen=True)
class TimeMention(Mention):
    hour: int
    minute: int
    explicit: bool


_CLOCKLIKE = re.compile(r"[:h]\d\d|[ap]\.?m")
_TIME_RANGE = re.compile(
    r"(?<![\d:.])(?P<h>\d{1,2})(?::(?P<mi>\d{2}))?\s?(?:-|to|until|till)\s?(?P<h2>\d{1,2})(?::\d{2})?\s?"
    r"(?P<ampm>a\.?m\.?|p\.?m\.?)(?![\w])"
)


def time_mentions(text: str) -> list[TimeMention]:
    """Every clock time in ``text``: '09:00', '9:00', '9am', '9.30 p.m.', '21h30', and the start of
    a range whose am/pm comes at its end ('1:30-2:15pm', '4-5pm')."""
    if not _CLOCKLIKE.search(text):  # every time kept below has "[:h]" and two digits, or am/pm
        return []
    out = []
    for m in _TIME_RANGE.finditer(text):
        hour, minute = int(m["h"]), int(m["mi"] or 0)
        if 1 <= hour <= 12 and minute <= 59:
            pm = m["ampm"].startswith("p")
            end_hour = int(m["h2"])
            if pm and hour > end_hour and end_hour != 12:
                pm = False  # "11-1pm" starts in the morning
            out.append(TimeMention(m.start(), m.end("mi") if m["mi"] else m.end("h"), hour % 12 + (12 if pm else 0),
                                   minute, True))
    for m in _TIME.finditer(text):
        hour, minute, ampm = int(m["h"]), int(m["mi"] or 0), (m["ampm"] or "").replace(".", "")
        if (m["mi"] is None or m["sep"] == ".") and not ampm:
            continue  # a bare number, or "4.36", is not a time; "9.30 pm" is
        if ampm:
            if not 1 <= hour <= 12:
                continue
            hour = hour % 12 + (12 if ampm.startswith("p") else 0)
        if hour > 23 or minute > 59:
            continue
        out.append(TimeMention(m.start(), m.end(), hour, minute, bool(m["mi"]) or bool(ampm)))
    return out


_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ISO_DATETIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::\d{2})?(?:[+-]\d{2}:?\d{2}|Z)?$")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::\d{2})?$")
_NUMERIC = re.compile(r"^[-+]?\d+(?:\.\d+)?$")


# --------------------------------------------------------------------------- finding one value


def _bounded(text: str, needle: str) -> list[Mention]:
    """Occurrences of ``needle`` at the start of a word of ``text``.

    A needle of three or more letters may end inside a word, as a stem ("rain" finds "rainy",
    "reliab" finds "reliable"); one ending in a digit or shorter must end with the word ("G3" is
    not in "G31", "A" not in "Apple").
    """
    if not needle or needle not in text:  # (the pattern matches the needle literally: a cheap first test)
        return []
    return [Mention(m.start(), m.end()) for m in _needle_pattern(needle).finditer(text)]


def _valid_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


@lru_cache(maxsize=8192)
def _reading(expected: str) -> tuple[str, Any]:
    """How an expected text is looked for, decided once per text (task values repeat):
    ``date``, ``datetime`` (date, clock), ``clock`` (hour, minute), ``number`` (value, signed)
    or ``text`` (the stripped text)."""
    raw = expected.strip()
    if _ISO_DATE.match(raw) and _valid_date(raw):
        return "date", date.fromisoformat(raw)
    dt = _ISO_DATETIME.match(raw)
    if dt and _valid_date(dt.group(1)) and int(dt.group(2)) < 24 and int(dt.group(3)) < 60:
        return "datetime", (dt.group(1), f"{dt.group(2)}:{dt.group(3)}")
    clock = _CLOCK.match(raw)
    if clock and int(clock.group(1)) < 24 and int(clock.group(2)) < 60:
        return "clock", (int(clock.group(1)), int(clock.group(2)))
    if _NUMERIC.match(raw):
        return "number", (float(raw), raw.startswith("+"))
    return "text", raw


def find_in_normalised(norm: str, expected: Scalar, *, tol: float | None = None, fold: bool = True) -> list[Mention]:
    """Where ``expected`` is stated in a text already passed through :func:`normalise_text`; empty when it is not."""
    if isinstance(expected, bool):
        expected = str(expected).lower()
    if isinstance(expected, int | float):
        return list(filter(_stating(float(expected), tol), _scanned("number", norm, number_mentions)))
    kind, reading = _reading(expected)
    if kind == "text":
        return _bounded(norm, _needle(reading, fold))
    if kind == "number":
        found = find_in_normalised(norm, reading[0], tol=tol)
        if reading[1]:  # "+0.36" claims a rise: only an explicitly signed number states it
            found = [m for m in found if isinstance(m, NumberMention) and m.signed]
        return found
    if kind == "date":
        return [m for m in _scanned("date", norm, date_mentions)
                if (m.month, m.day) == (reading.month, reading.day) and m.year in (None, reading.year)]
    if kind == "clock":
        return [m for m in _scanned("time", norm, time_mentions) if (m.hour, m.minute) == reading]
    days = find_in_normalised(norm, reading[0])
    times = find_in_normalised(norm, reading[1])
    return sorted(days + times, key=lambda m: m.start) if days and times else []


def states(text: str, expected: Scalar | Sequence[Scalar], *, tol: float | None = None, fold: bool = True) -> bool:
    """Whether ``text`` states ``expected`` (or one of several expected values)."""
    options: list[Scalar] = list(expected) if isinstance(expected, list | tuple) else [expected]  # type: ignore[list-item]
    norm = _normalised(text, fold)
    return any(find_in_normalised(norm, option, tol=tol, fold=fold) for option in options)


def _literal(expected: Scalar, fold: bool) -> str | None:
    """The needle :func:`find_in_normalised` looks for as plain text, or None when it reads the value
    as a number, date or time (then only a scan of the text can tell whether it is stated)."""
    if isinstance(expected, bool | int | float):
        return None
    kind, reading = _reading(expected)
    return _needle(reading, fold) if kind == "text" else None


# --------------------------------------------------------------------------- facts bound to labels

_SENTENCE_BREAK = re.compile(r"\n|(?<=[.!?;])\s+")
_WRAPPED = re.compile(r"(?<=[a-z0-9,%])\n(?=[a-z$€£¥(]|[-+]?\d(?!\d*[.)]\s))|(?<=:)\n(?=\s*\S)")


def sentence_bounds(norm: str) -> list[tuple[int, int]]:
    """Sentences and lines of a normalised text; a line wrapped inside a sentence does not end it.

    A new line ends a sentence unless the line before ends in a word, number or comma and the
    next goes on with a word or a number (hard-wrapped prose; a list item starting with "-",
    "*", "|" or "1. " is a new line), or the line before ends in a colon ("Total:\n42,000").
    """
    wrapped = {m.start() for m in _WRAPPED.finditer(norm)}
    cuts = [m for m in _SENTENCE_BREAK.finditer(norm) if not (m.group() == "\n" and m.start() in wrapped)]
    out, start = [], 0
    for m in cuts:
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(norm)))
    return [(a, b) for a, b in out if b > a]


@dataclass
class FactVerdict:
    """Whether one fact is stated, and if not, what was wrong."""

    fact: Fact
    stated: bool
    detail: str


def _label_mentions(norm: str, facts: Sequence[Fact], fold: bool) -> list[tuple[int, int, int]]:
    """(start, end, fact index) of every label mention; a mention inside a longer one is dropped."""
    found = []
    for i, fact in enumerate(facts):
        for label in fact.labels:
            found += [(m.start, m.end, i) for m in find_in_normalised(norm, label, fold=fold)]
    found.sort(key=lambda x: (x[0], -(x[1] - x[0])))
    kept: list[tuple[int, int, int]] = []
    for start, end, i in found:
        if any(s <= start and end <= e and (s, e, j) != (start, end, i) for s, e, j in kept):
            continue
        kept.append((start, end, i))
    return kept


_Token = tuple[int, str, frozenset[int]]  # position, "L" (label) or "V" (value), fact indices


def _tokens(norm: str, facts: Sequence[Fact], fold: bool) -> list[_Token]:
    labels = _label_mentions(norm, facts, fold)
    values: dict[int, set[int]] = {}
    for i, fact in enumerate(facts):
        for value in fact.values:
            for m in find_in_normalised(norm, value, tol=fact.tol, fold=fold):
                if not any(s < m.end and m.start < e for s, e, _ in labels):
                    values.setdefault(m.start, set()).add(i)
    tokens: list[_Token] = [(s, "L", frozenset({i})) for s, _e, i in labels]
    tokens += [(pos, "V", frozenset(ids)) for pos, ids in values.items()]
    return sorted(tokens, key=lambda t: (t[0], t[1]))


def _merge_labels(tokens: list[_Token]) -> list[_Token]:
    """Within one sentence, adjacent labels of one fact are one mention ("reported EPS")."""
    merged: list[_Token] = []
    for token in tokens:
        if merged and token[1] == "L" and merged[-1][1] == "L" and merged[-1][2] == token[2]:
            continue
        merged.append(token)
    return merged


def _bind(tokens: list[_Token], direction: str) -> tuple[set[int], int]:
    """Facts whose label is bound to one of their values when labels take the nearest value on one side.

    ``after``: a label takes the first value before the next label ("A: 12, B: 40"); a run of
    labels followed by a run of as many values binds in order ("A and B: 12 and 40"); before a
    single value, the last label takes it and earlier ones may share it ("A and B tied at 58").
    ``before``: a label takes the last value since the previous label ("12 for A, 40 for B").
    Returns the facts bound right and how many labels took another fact's value.
    """
    stated: set[int] = set()
    wrong = 0
    k = 0
    while k < len(tokens):
        if tokens[k][1] != "L":
            k += 1
            continue
        run_end = k
        while run_end < len(tokens) and tokens[run_end][1] == "L":
            run_end += 1
        labels = tokens[k:run_end]
        if direction == "after":
            vals_end = run_end
            while vals_end < len(tokens) and tokens[vals_end][1] == "V":
                vals_end += 1
            vals = tokens[run_end:vals_end]
            if len(labels) > 1 and len(vals) >= len(labels):
                pairs = zip(labels, vals[:len(labels)], strict=True)
            else:
                pairs = zip(labels[-1:], vals[:1], strict=False)
                if len(vals) == 1:  # "A and B are tied at 58": earlier labels may share the value
                    stated |= {i for label in labels[:-1] for i in label[2] & vals[0][2]}
        else:
            prev = k - 1
            while prev >= 0 and tokens[prev][1] == "V":
                prev -= 1
            vals = tokens[prev + 1:k]
            pairs = zip(labels[:1], vals[-1:], strict=False)
        for label, value in pairs:
            right = label[2] & value[2]
            stated |= right
            wrong += not right
        k = run_end
    return stated, wrong


_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def tables_as_sentences(text: str) -> str:
    """Rewrite each markdown table row as one sentence naming its column headers.

    ``| Microsoft | 4.36 | 4.15 |`` under ``| Company | Actual | Estimate |`` becomes
    ``Company: Microsoft, Actual: 4.36, Estimate: 4.15``, so a value binds to its column's label.
    """
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if i + 1 < len(lines) and "|" in lines[i] and _TABLE_RULE.match(lines[i + 1]):
            header = _cells(lines[i])
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                row = _cells(lines[i])
                out.append(", ".join(f"{h}: {c}" if h else c for h, c in zip(header, row, strict=False)) + ".")
                i += 1
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def _facts_text(text: str, fold: bool) -> str:
    """The normalised text facts are read in: table rows rewritten as sentences (once per episode)."""
    return _NORMS.get((text, fold, True), lambda: normalise_text(tables_as_sentences(text), fold=fold))


def facts_stated(text: str, facts: Sequence[Fact], *, fold: bool = True) -> bool:
    """Whether every fact is stated (``check_facts`` all stated), rejecting early a text that lacks a
    fact's every label or every value where these are plain words (no scan of numbers is needed)."""
    norm = _facts_text(text, fold)
    for fact in facts:
        for options in (fact.labels, fact.values):
            needles = [_literal(option, fold) for option in options]
            if all(needle is not None for needle in needles) and not any(
                    needle and needle in norm for needle in needles):
                return False
    return all(v.stated for v in check_facts(text, facts, fold=fold))


def check_facts(text: str, facts: Sequence[Fact], *, fold: bool = True) -> list[FactVerdict]:
    """Judge each fact: its value must be bound to its label in some sentence.

    Within a sentence (or line), labels and the facts' values are read in order, and each
    label takes its nearest value on one side. A reading in which no label takes another
    fact's value counts; where both readings bind some label wrongly, the better one does.
    So "A: 12, B: 40" and "12 for A, 40 for B" state both facts, and the swaps
    "A: 40, B: 12" and "40 for A, 12 for B" state neither. Markdown table rows are read with
    their column headers (:func:`tables_as_sentences`).
    """
    norm = _facts_text(text, fold)
    tokens = _tokens(norm, facts, fold)
    stated: set[int] = set()
    for start, end in sentence_bounds(norm):
        sentence = _merge_labels([t for t in tokens if start <= t[0] < end])
        if sentence:
            readings = [_bind(sentence, "after"), _bind(sentence, "before")]
            clean = [facts_ for facts_, wrong in readings if not wrong]
            if clean:
                stated = stated.union(*clean)
            else:
                stated |= max(readings, key=lambda r: len(r[0]) - r[1])[0]
    mentioned = {i for _p, kind, ids in tokens if kind == "L" for i in ids}
    verdicts = []
    for i, fact in enumerate(facts):
        if i in stated:
            verdicts.append(FactVerdict(fact, True, "stated"))
        elif i not in mentioned:
            verdicts.append(FactVerdict(fact, False, f"label {fact.labels[0]!r} not mentioned"))
        else:
            verdicts.append(FactVerdict(fact, False, f"{fact.labels[0]!r} is not stated as {fact.values[0]!r}"))
    return verdicts


def absent_violations(text: str, values: Iterable[Scalar], *, fold: bool = True) -> list[Scalar]:
    """The values of ``values`` that ``text`` states (and must not)."""
    norm = _normalised(text, fold)
    return [v for v in values if find_in_normalised(norm, v, fold=fold)]


def _has(checks: ValueCheckpoint | StateCheckpoint, text: str, value: Scalar | list[Scalar], verbatim: bool) -> bool:
    """Whether ``text`` holds one ``contains`` item (a list item: any of its values)."""
    fold = checks.case == "insensitive"
    return states(text, value, fold=fold) or (verbatim and any(
        normalise_text(str(x), fold=fold) in _normalised(text, fold) for x in (value if isinstance(value, list)
                                                                               else [value])))


def text_holds(checks: ValueCheckpoint | StateCheckpoint, text: str, *, verbatim: bool = False,
               absent: bool = True) -> bool:
    """Whether :func:`text_problems` is empty, deciding at the first problem (re-scoring speed)."""
    if checks.contains:
        test = all if checks.mode == "all" else any
        if not test(_has(checks, text, v, verbatim) for v in checks.contains):
            return False
    if checks.facts and not facts_stated(text, checks.facts):
        return False
    return not (absent and checks.absent and absent_violations(text, checks.absent))


def text_problems(checks: ValueCheckpoint | StateCheckpoint, text: str, *, verbatim: bool = False,
                  absent: bool = True) -> list[str]:
    """What ``text`` fails of a checkpoint's ``contains``/``facts``/``absent`` (empty when it holds).

    ``contains`` values are found normalised and at word starts ("G3" is not in "G31"); in a tool
    result (``verbatim``), a value copied out of it is also found as a plain substring.
    ``absent``: False leaves the checkpoint's ``absent`` claims unchecked.
    """
    found = [v for v in checks.contains if _has(checks, text, v, verbatim)]
    problems = []
    if checks.contains and (len(found) < len(checks.contains) if checks.mode == "all" else not found):
        problems.append(f"missing {[v for v in checks.contains if v not in found]}")
    problems += [v.detail for v in check_facts(text, checks.facts) if not v.stated]
    claimed = absent_violations(text, checks.absent) if absent else []
    if claimed:
        problems.append(f"states {claimed}, which must not be claimed")
    return problems
