"""Reading values out of text the way a careful reviewer would: numbers, dates, times, labels.

An answer says "EPS came in at $4.36 against 4.15 expected"; a spec says ``actual: 4.36,
expected: 4.15``. This module finds *mentions* of an expected value in a text after
normalisation (thousands separators, decimal commas, trailing zeros, scale words, currency
and unit words around numbers; ISO and written dates; 12- and 24-hour times; case, accents
and spacing), and binds values to labels clause by clause so that a swap is told apart from
the right statement.
"""

from __future__ import annotations

import contextlib
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

from mcptrials.model import Scalar
from mcptrials.scoring.memo import EpisodeMemo

# --------------------------------------------------------------------------- text


_PUNCT = str.maketrans({"_": " ", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                        "\u2014": "-", "\u2212": "-", "\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u2007": " "})


def normalise_text(text: str, *, fold: bool = True) -> str:
    """NFKC, plain quotes and dashes, underscores as spaces, no accents, single spaces, numbers written
    in words as digits ("nineteen" is 19, "the fourth" is "the 4th"); case-folded if ``fold``."""
    if text.isascii():  # fast path (re-scoring speed): ASCII is NFKC/NFKD-stable and has no accents
        text = text.translate(_PUNCT)
    else:
        text = unicodedata.normalize("NFKC", text).translate(_PUNCT)
        text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    if any(map(text.__contains__, ("  ", "\t", "\r", "\f", "\v"))):  # else there is nothing to collapse
        text = _BLANKS.sub(" ", text)
    if _NUMBER_WORD.search(text):
        text = _digits_for_words(text)
    return text.casefold() if fold else text


_BLANKS = re.compile(r"[ \t\r\f\v]+")
_NUMBER_WORD = re.compile(
    r"(?i)\b(?:one|cents?|o.clock|past|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|"
    r"eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|"
    r"fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|twentieth|thirtieth|hundredth)")
_SCALE_AFTER_DIGIT = re.compile(r"(?i)(?<=\d)(\s?)(thousand|million|billion|trillion)\b")
_SHORT_SCALE = {"thousand": "k", "million": "mn", "billion": "bn", "trillion": "tn"}


_WORDS = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
          r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|"
          r"million|billion|and)")
_WORD_COMMA = re.compile(r"(?i)\b(hundred|thousand|million|billion),\s+(?=" + _WORDS + r"\b)")
_LONE = re.compile(r"(?i)(?<![-\w])(?<!hundred )(?<!thousand )(?<!million )(?<!billion )"
                   r"(?:(first|second)\b(?![- ](?:hundred|thousand|million|billion|point)\b)(?!-)"
                   r"|(?<=no )(one)\b|(?<=the )(one)\b|(?<=any )(one)\b|(?<=every )(one)\b|(?<=this )(one)\b"
                   r"|(?<=that )(one)\b|(?<=which )(one)\b|(one)(?= of\b| another\b| by one\b| or\b)"
                   r"|(?<=[a-z] )(one)(?=[,.;:!?)]|\s*$| that\b| which\b| who\b| is\b| was\b))")
_KEPT = re.compile(r"qqz(\w+?)zqq")
_ONES = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
         r"seventeen|eighteen|nineteen)")
_TENS = r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
_FRACTION = r"(?:half|halves|third|quarter|fourth|fifth|sixth|seventh|eighth|ninth|tenth|hundredth)s?"
_BEFORE_NOUN = re.compile(r"(?i)\b(" + _TENS + r"(?:-" + _ONES + r")?|(?!one\b)" + _ONES + r"|hundred|thousand)-(?!(?:"
                          + _ONES + "|" + _TENS + "|" + _FRACTION + r")\b)(?=[a-z])")
"""A number in words joined to the noun it measures ("a fourteen-day horizon"), which the converter skips; not
"one-off" or "one-way", nor a fraction ("two-thirds")."""
_JOINED = " qqhyqq"
_CENTS = re.compile(r"(?i)\$?(\d+) dollars?,? and (\d{1,2}) cents?\b")
_CENTS_ONLY = re.compile(r"(?i)(?<![\d.,])(\d{1,2}) ((?:euro|us|usd|eur) )?cents?\b")
_HALF = re.compile(r"(?i)\b(\d+) and an? (half|quarter)\b")
_CLOCK_WORDS = re.compile(r"(?i)\b(\d{1,2}|quarter|half)(?: minutes?)? (past|after|to) (\d{1,2})(?![\d.,:])"
                          r"(?!\s?(?:%|(?:working |business |calendar |full )?(?:days?|weeks?|months?|years?|"
                          r"hours?|hrs?|minutes?|mins?|seconds?|nights?|times|people|persons|guests|items|percent|"
                          r"per cent)\b))"
                          r"(?: o'clock)?(?P<part> in the (?:morning|afternoon|evening)| at night| ?[ap]\.?m\.?)?")
"""A time said in words ("quarter past 7", "ten to six"), not a span of a count ("5 to 7 working days")."""
_O_CLOCK = re.compile(r"(?i)\b(\d{1,2}) o'clock(?P<part> in the (?:morning|afternoon|evening)| at night)?")


def _part_of_day(part: str | None) -> str:
    if not part:
        return ""
    part = part.strip().lower()
    return " am" if "morning" in part or part.startswith("a") else " pm"


def _clock(m: re.Match[str]) -> str:
    minutes = {"quarter": 15, "half": 30}.get(m.group(1).lower())
    minute = minutes if minutes is not None else int(m.group(1))
    hour = int(m.group(3))
    if m.group(2).lower() == "to":
        hour, minute = (hour - 1) % 12 or 12, 60 - minute
    return f"{hour}:{minute:02d}{_part_of_day(m.group('part'))}" if minute < 60 else m.group()


def _digits_for_words(text: str) -> str:
    """Numbers written in words as digits (``text2num``): "ninety-seven" is 97, "five past nine in the
    evening" 9:05 pm, "four dollars and thirty-six cents" $4.36. "one", "first" and "second" alone stay
    words ("no one", "wait a second"). A scale word after digits ("1.2 million") is kept as its short
    form, which the number reader knows, so the converter does not read it again."""
    from text_to_num import alpha2digit

    text = _SCALE_AFTER_DIGIT.sub(lambda m: m.group(1) + _SHORT_SCALE[m.group(2).lower()], text)
    text = _WORD_COMMA.sub(r"\1 ", text)
    text = _LONE.sub(lambda m: "qqz" + m.group() + "zqq", text)
    text = _BEFORE_NOUN.sub(lambda m: m.group(1) + _JOINED + " ", text)
    with contextlib.suppress(Exception):  # a converter failure never costs a verdict: the words stay words
        text = str(alpha2digit(text, "en", threshold=0))
    text = text.replace(_JOINED + " ", "-")
    text = _KEPT.sub(r"\1", text)
    text = _HALF.sub(lambda m: f"{m.group(1)}.{'5' if m.group(2).lower() == 'half' else '25'}", text)
    text = _CENTS.sub(lambda m: f"${m.group(1)}.{int(m.group(2)):02d}", text)
    text = _CENTS_ONLY.sub(lambda m: f"0.{int(m.group(1)):02d} {(m.group(2) or '').strip() or 'dollars'}", text)
    text = _CLOCK_WORDS.sub(_clock, text)
    return _O_CLOCK.sub(lambda m: f"{m.group(1)}:00{_part_of_day(m.group('part'))}", text)


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
@lru_cache(maxsize=16384)
def _needle(raw: str, fold: bool) -> str:
    """A task's label or value normalised for search, once per string (task strings repeat across episodes;
    answer texts are never cached here)."""
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
    out: list[NumberMention] = []
    scan = _commas_in_literals_split(text) if "[" in text or "{" in text else text
    for match in _NUMBER.finditer(scan):
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
    if _DURATION_HINT.search(text):
        out += duration_mentions(text)
    return out


_LITERAL = re.compile(r"[\[{][^\[\]{}]*(?:[\[{][^\[\]{}]*[\]}][^\[\]{}]*)*[\]}]")


_NUMERIC_LITERAL = re.compile(r"^[\[\]{}\d\s,.+-]+$")
_DECIMAL_COMMA = re.compile(r"(?<=\d),(?=\d{1,2}(?!\d)|\d{4,})")


def _commas_in_literals_split(text: str) -> str:
    """The text with commas inside a list, matrix or JSON literal read as separators: in ``[[4,9],[2,7]]``
    there are four numbers, never the decimals 4.9 and 2.7; inside a JSON object, "3,150.00" keeps its
    thousands separator (same length, same offsets)."""
    def split(m: re.Match[str]) -> str:
        literal = m.group()
        if _NUMERIC_LITERAL.match(literal):
            return literal.replace(",", ";")
        return _DECIMAL_COMMA.sub(";", literal)

    return _LITERAL.sub(split, text)


_DURATION_HINT = re.compile(r"\d\s?(?:h|hr|hrs|hours?)\b")
_DURATION = re.compile(
    r"(?<![\w.])(?P<h>\d+(?:\.\d+)?)\s?(?:h|hr|hrs|hours?)\b(?:,?\s?(?:and\s)?(?P<m>\d{1,2})\s?(?:m|min|mins|minutes?)\b)?"
    r"|(?<![\w.:])(?P<h2>\d{1,2})h(?P<m2>\d{2})(?!\d)")


def duration_mentions(text: str) -> list[NumberMention]:
    """Durations written in hours (and minutes), as a number of minutes: "1 h 35 min" is 95, "2 hours" 120."""
    out = []
    for m in _DURATION.finditer(text):
        hours, minutes = (m["h"], m["m"]) if m["h"] is not None else (m["h2"], m["m2"])
        value = float(hours) * 60 + (int(minutes) if minutes else 0)
        out.append(NumberMention(m.start(), m.end(), value, 0, 1.0))
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
_WRAPPED = re.compile(r"(?<=[a-z0-9,%)\]])\n(?=[a-z$€£¥(]|\*\*[a-z0-9$€£¥]|[-+]?\d(?!\d*[.)]\s))|(?<=:)\n(?=\s*\S)")
"""A line break inside a sentence: the next line goes on with a word, a number or a bolded one ("was\n**$25**")."""


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


_CLAUSE_BREAK = re.compile(r"[;:,\-]\s|\(|\b(?:but|however|although|though|whereas|while|yet|and)\b|\s-\s|[.!?]\s")
_NEGATOR = re.compile(
    r"\b(?:not|never|no|none|neither|nor|nothing|nobody|cannot|without|unable|isn't|wasn't|aren't|weren't|doesn't|"
    r"didn't|don't|won't|can't|couldn't|shouldn't|hasn't|haven't|fails? to|failed to|no longer|nowhere)\b|n't\b")
_NOT_NEGATING = re.compile(r"\b(?:not only|not just|no doubt|no problem|not sure whether|whether or not|"
                           r"no matter|nothing else|don't forget|do not forget|don't miss|never miss)\b")
_DENIED_AFTER = re.compile(r"[^.!?\n]{0,60}?\b(?:but not|does not|doesn't|is not|isn't|was not|wasn't|not in its|"
                           r"only in (?:its|the) (?:file ?)?name)\b")


def clause_start(norm: str, pos: int, floor: int = 0) -> int:
    """Where the clause holding ``pos`` starts: after the last clause break before it (not before ``floor``)."""
    start = max(floor, pos - 120)
    for m in _CLAUSE_BREAK.finditer(norm, start, pos):
        start = m.end()
    return start


def clause_end(norm: str, pos: int, ceiling: int) -> int:
    """Where the clause holding ``pos`` ends: at the next clause break after it (not after ``ceiling``)."""
    m = _CLAUSE_BREAK.search(norm, pos, ceiling)
    return m.start() if m else ceiling


def negated(words_before: str) -> bool:
    """Whether words leading up to a mention within its clause deny it ("not", "never", "didn't")."""
    return bool(_NEGATOR.search(words_before)) and not _NOT_NEGATING.search(words_before)


def absent_violations(text: str, values: Iterable[Scalar], *, fold: bool = True) -> list[Scalar]:
    """The values of ``values`` that ``text`` claims (and must not): a mention in a denial ("it did not
    miss", "X has the number only in its name, not in its content") is no claim."""
    norm = _normalised(text, fold)
    out = []
    for v in values:
        for m in find_in_normalised(norm, v, fold=fold):
            if negated(norm[clause_start(norm, m.start):m.start]):
                continue
            if isinstance(v, str) and re.search(r"[\d./@]", v) and _DENIED_AFTER.match(norm, m.end):
                continue
            out.append(v)
            break
    return out


def pattern_found(pattern: str, text: str, insensitive: bool) -> bool:
    """Whether a spec's regex (Python ``re``, validated when the task loaded) matches anywhere in ``text``."""
    return re.search(pattern, text, re.IGNORECASE if insensitive else 0) is not None
