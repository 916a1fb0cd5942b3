"""Grounding: every figure, date, time and code an answer asserts comes from somewhere the agent saw.

An answer can state every required fact right and add one it made up ("about 160 refunded",
"the 09:12 connection", "platform 7"). No per-task rule can list every wrong figure, so this
check asks of each assertion whether it is traceable: to the task's prompt, to a tool result
the agent saw in this episode, to the task's clock, or to simple arithmetic over them (sum,
difference, product with a small count, ratio, percentage and percentage change, mean, unit
conversions, rounding).

A figure is traced by its kind, read from what is written beside it: a period ("48 hours") by a
period or the span between two stated times, never by converting any bare number; a figure with a
unit by a number in a unit of the same quantity a source wrote (no statistic converted, no °C read
as °F); a distance also by two coordinates; a percentage also by a fraction; a price or percentage
not by a source number every copy of which is of another kind (by its unit, its JSON key, or as a
date's part: "$10" is not "open_months": [5, 10]). Arithmetic is of figures of one kind (a sum with
a unit has an operand with that unit; a product keeps an operand's kind), and a figure lost in the
rounding of its operand derives nothing.

What it cannot see: a wrong relation between grounded values ("the cheaper one" naming the dearer),
facts stated in words only (names, places, "Metro Line 1", adjectives), a grounded value reused for
an invented fact (a lunch "at 12:30", when a meeting ends then), an invented number that equals a
source number of no kind of its own (no unit, a key outside the few English words read), a
percentage change within the 1 % rounding allowed for its operands ("rose 4.2%" for 5.06%), and a
percentage change between unrelated bare numbers ("87%" as 1,000 fallen to 133).

It also checks that a weekday written beside a date (or beside "today"/"tomorrow") is that
date's weekday.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from mcptrials.model import CheckpointResult, Episode, Grounding, Scalar, Task
from mcptrials.scoring.answers import (
    DateMention,
    NumberMention,
    _normalised,
    _scanned,
    date_mentions,
    duration_mentions,
    find_in_normalised,
    normalise_text,
    number_mentions,
    time_mentions,
)
from mcptrials.scoring.units import in_unit, quantity_of, sibling_factors, unit_after

CHECK_ID = "_grounding"
"""The id of the implicit checkpoint this check adds to every graded answer."""

_APPROX = re.compile(r"(?:about|around|roughly|approximately|approx\.?|nearly|almost|~|≈|some|over|under|more than|"
                     r"less than|up to|at least|at most|close to|just over|just under|circa|ca\.|upwards of|"
                     r"north of|below|above|within)\s*[$€£¥]?\s*$")
_COUNTED = re.compile(r"(?:platform|gate|seat|car|coach|room|floor|terminal|track|level|row|#|no\.|number|exit|"
                      r"stand|berth|pier|door|bay|hall|booth|lane|apartment|suite|unit)\s*$")
_CODE = re.compile(r"(?<![\w-])[a-z]{1,4}-?\d+[a-z0-9]{0,3}(?:-\d+)?(?![\w-])")
"""Identifiers an agent could invent: a short prefix and digits (G7, D3131, INV-2291, SKU-1042)."""
_NOT_A_CODE = re.compile(r"^(?:\d+(?:st|nd|rd|th|am|pm|h|hr|hrs|min|mins|km|mi|m|kg|g|lb|ms|s|x|k|mn|bn|tn|d|"
                         r"gb|mb|kb|tb|px|pt|c|f|mph|kmh|kph|l|ml|cm|mm|ft|yr|yrs|mo|wk|wks|v|y|q)|"
                         r"q[1-4]|h[12]|fy\d{2,4}|mp[34]|r2|[ap]m-\d+|[a-z]{1,2}[23]|(?:utc|gmt)-?\d{1,2}|covid-19|co2|h2o|pm\d+|p\d\d?|"
                         r"[a-z]+-\d{4}|\d+-[a-z]+)$")
_ASSERTS = re.compile(r"\d|day\b|mon\b|tue|wed\b|thu|fri\b|sat\b|sun\b")
PHONE = re.compile(  # a phone number as written: +1 676-808-2587, (676) 808-2587
    r"(?<![\w.])(?:\+\d{1,3}[ .-]?)?\(?\d{2,4}\)?[ .-]\d{3}[ .-]\d{3,4}(?![\w]|\.\d)")
_SCALE_SHIFTS = (1.0, 1e3, 1e6, 1e9, 1e-3, 1e-6, 1e-9)

@dataclass
class _Evidence:
    """What the agent could know: numbers (sorted), dates, clock times, texts."""

    numbers: list[float]
    stated: list[float]
    """The numbers the texts write (sorted), without the statistics worked out over them."""
    dates: set[date]
    month_days: set[tuple[int, int]]
    times: set[tuple[int, int]]
    text: str
    periods: list[float]
    shifts_hours: bool
    today: date | None
    spans: list[float]
    """Minutes from one stated clock time to another, modulo a day (sorted; 0 left out)."""
    distances: list[float]
    """Great-circle kilometres between any two places whose coordinates a result gave (sorted)."""
    kinds: dict[float, set[Kind]]
    """The kinds each stated number is written as (its unit, its JSON key, a date's part)."""


_EVIDENCE: dict[tuple[str, ...], _Evidence] = {}
"""Evidence gathered from a prompt, clock and results, by those texts (a re-scored store repeats them)."""
_EVIDENCE_LIMIT = 256


_QUERY_TOOL = re.compile(r"^(?:get|list|find|search|read|query|lookup|look_up|show|describe|fetch|check|convert|"
                         r"calculate|compute|count|summari[sz]e|forecast|history|current|geocode|directions|route|"
                         r"evaluate|estimate|browse|view|stat|info|resolve|time|now)(?:_|$)")


def _evidence_texts(task: Task, episode: Episode) -> list[str]:
    """The prompt, every tool result, and the arguments of the agent's queries ("free after 13:00")."""
    texts = [task.prompt]
    for call in episode.tool_calls:
        texts.append(call.content)
        if call.arguments and _QUERY_TOOL.match((call.tool or "").lower()):
            texts.append(json.dumps(call.arguments, ensure_ascii=False, default=str))
    return texts


def _evidence(task: Task, episode: Episode) -> _Evidence:
    """What the agent could know in this episode, gathered once for the same texts."""
    raw = _evidence_texts(task, episode)
    key = (task.now.isoformat() if task.now else "", *raw)
    found = _EVIDENCE.get(key)
    if found is None:
        if len(_EVIDENCE) >= _EVIDENCE_LIMIT:
            _EVIDENCE.clear()
        found = _EVIDENCE[key] = _gather(task, raw)
    return found


def _gather(task: Task, raw: list[str]) -> _Evidence:
    texts = [normalise_text(t) for t in raw if t]
    numbers: list[float] = []
    statistics: list[float] = []
    kinds: dict[float, set[Kind]] = {}
    dates: set[date] = set()
    month_days: set[tuple[int, int]] = set()
    times: set[tuple[int, int]] = set()
    for text in texts:
        mentions = _scanned("number", text, number_mentions)
        found = [m.value for m in mentions]
        for m in mentions:
            kinds.setdefault(m.value, set()).add(_source_kind(text, m))
        numbers += found + [-n for n in found if n < 0]  # "capex -3,141" is stated as "capex of 3.14 bn"
        statistics += _statistics(found)
        for d in _scanned("date", text, date_mentions):
            month_days.add((d.month, d.day))
            if d.value is not None:
                dates.add(d.value)
                numbers += [float(d.value.year), float(d.value.day), float(d.value.month)]
                for part in (d.value.year, d.value.day, d.value.month):
                    kinds.setdefault(float(part), set()).add("date")
        times |= {(t.hour, t.minute) for t in _scanned("time", text, time_mentions)}
    today = task.now.date() if task.now else None
    if task.now is not None:
        dates.add(today)  # type: ignore[arg-type]
        times.add((task.now.hour, task.now.minute))
        numbers += [float(task.now.year), float(task.now.day), float(task.now.month)]
        for part in (task.now.year, task.now.day, task.now.month):
            kinds.setdefault(float(part), set()).add("date")
    joined = "\n".join(texts)
    offsets = set(re.findall(r"(?<=\d\d:\d\d)[+-]\d{2}:?\d{2}\b", joined))
    shifts = len(offsets) > 1 or bool(re.search(r"\butc\b|\bgmt\b|time ?zone", joined))  # several zones in play
    periods = sorted({v for text in texts for v in _periods(text) if v > 0})
    spans = sorted({float((a[0] * 60 + a[1] - b[0] * 60 - b[1]) % 1440) for a in times for b in times} - {0.0})
    return _Evidence(sorted(numbers + statistics), sorted(numbers), dates, month_days, times, joined, periods, shifts,
                     today, spans, _distances(joined), kinds)


_KEY_BEFORE = re.compile(r"\"([a-z][a-z _]*)\":\s*\[?\s*(?:[-\d.,]+,\s*)*$")
_KEY_KINDS = (("percent", re.compile(r"pct|percent|chance|humidity|probability|yield|ratio")),
              ("money", re.compile(r"price|fare|fee|cost|usd|eur|cny|gbp|amount|revenue|income|eps|close|budget|"
                                   r"salary|balance|cap\b|paid|refund|total")),
              ("duration", re.compile(r"month|days?\b|hours?\b|minutes?\b|weeks?\b|duration|\bmin\b")),
              ("temperature", re.compile(r"(?:^|\s)(?:c|f)$|temp")),
              ("count", re.compile(r"\bid\b|count|number|sites|seats|rating|index|rank|population|employees|"
                                   r"citations|observations|year")))


def _source_kind(text: str, m: NumberMention) -> Kind:
    """What a number of a source is written as: its unit, else the kind its JSON key names, else None."""
    written = _kind(text, m, _period(text, m.end))
    if written is not None:
        return written
    key = _KEY_BEFORE.search(text[max(0, m.start - 80):m.start])
    if key is None:
        return None
    return next((kind for kind, words in _KEY_KINDS if words.search(key.group(1))), None)


_COORDINATES = re.compile(r"\"(?:lat|latitude)\":\s?(-?\d{1,2}(?:\.\d+)?),\s*\"(?:lon|lng|long|longitude)\":\s?"
                          r"(-?\d{1,3}(?:\.\d+)?)")


def _distances(text: str) -> list[float]:
    """Great-circle distances (km) between the places a text gives coordinates for (at most 40 places)."""
    points = list(dict.fromkeys((float(a), float(b)) for a, b in _COORDINATES.findall(text)))[:40]
    out = set()
    for i, (lat1, lon1) in enumerate(points):
        for lat2, lon2 in points[i + 1:]:
            p1, p2, dl = math.radians(lat1), math.radians(lat2), math.radians(lon2 - lon1)
            h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
            out.add(2 * 6371.0088 * math.asin(min(1.0, math.sqrt(h))))
    return sorted(out)


def _statistics(values: list[float]) -> list[float]:
    """Simple statistics of the numbers one text states (a list the user gave, a column of a result):
    total, mean, median, spread and standard deviation, which an agent may work out itself."""
    n = len(values)
    if not 2 <= n <= 500:
        return []
    total = math.fsum(values)
    mean = total / n
    squares = math.fsum((v - mean) ** 2 for v in values)
    ordered = sorted(values)
    median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    out = [total, mean, median, ordered[-1] - ordered[0], squares / (n - 1), squares / n,
           math.sqrt(squares / (n - 1)), math.sqrt(squares / n), float(n)]
    return [v for v in out if math.isfinite(v)]


def _near(sorted_values: Sequence[float], target: float, tol: float) -> bool:
    i = bisect.bisect_left(sorted_values, target - tol)
    return i < len(sorted_values) and sorted_values[i] <= target + tol


def _tolerance(norm: str, m: NumberMention) -> float:
    """How far a written number may be from its source: its rounding, wider after "about", "over"."""
    step = 10.0 ** (-m.decimals) * m.scale
    slack = step / 2 + 1e-9 * max(1.0, abs(m.value))
    if _APPROX.search(norm[max(0, m.start - 16):m.start]):  # "about 40": rounded to tens; "about 4.5": twice
        slack *= 2
        if m.decimals == 0:
            digits = f"{abs(m.value / m.scale):.0f}"
            zeros = len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0
            slack = max(slack, 0.5 * 10.0 ** zeros * m.scale)
    return max(slack, 0.002 * abs(m.value))


_PERIOD = re.compile(r"\s?(?:(?P<min>min|mins|minutes?)|(?P<h>h|hrs?|hours?)|(?P<d>days?)|(?P<w>weeks?)|"
                     r"(?P<mo>months?)|(?P<y>years?|yrs?))(?![a-z])")
_KEYED_PERIOD = re.compile(r"\"[a-z_ ]*?(?:(?P<min>\bmin|\bminutes)|(?P<h>\bhours|[_ ]h))\":\s?(?P<v>\d+(?:\.\d+)?)")
"""A period whose key ends with its unit: "duration_min": 95 (normalised, the underscore is a space)."""
_IN_MINUTES = {"min": 1.0, "h": 60.0, "d": 1440.0, "w": 10080.0, "mo": 43200.0, "y": 525600.0}


def _unit_minutes(m: re.Match[str]) -> float:
    return _IN_MINUTES[next(k for k in _IN_MINUTES if m.groupdict().get(k))]


def _period(norm: str, end: int) -> float | None:
    """How many minutes one of the period named right after a number is ("2 hours": 60), or None."""
    m = _PERIOD.match(norm, end)
    return _unit_minutes(m) if m else None


def _periods(text: str) -> list[float]:
    """The periods a text states, in minutes: "2 hours", "3 days", "2 h 15 min", "duration_min": 95."""
    out = [m.value for m in duration_mentions(text)]
    for m in _scanned("number", text, number_mentions):
        minutes = _period(text, m.end)
        if minutes is not None:
            out.append(m.value * minutes)
    return out + [float(m["v"]) * _unit_minutes(m) for m in _KEYED_PERIOD.finditer(text)]


def _direct(value: float, tol: float, ev: _Evidence, norm: str = "", end: int = 0, scaled: bool = False,
            minutes: float | None = None, kind: Kind = None) -> bool:
    """Whether ``value`` is an evidence number; at another scale when written with one ("9.96 billion");
    in another unit of the same quantity when a unit follows it ("8.1 mi" for 13 km, "54 °F" for 12 °C).

    A period ("48 hours", "2 h 15 min": ``minutes`` per unit) is grounded by a period the sources state
    in any unit of time ("2 days") or by the span between two times they state, never by converting an
    unrelated number ("1", "2" are in every result). A distance may be the one between two places whose
    coordinates a result gave."""
    nums = ev.numbers
    if minutes is None and norm:
        minutes = _period(norm, end)
    if minutes is not None:
        total, slack = value * minutes, tol * minutes
        return (_near(ev.periods, total, slack) or _near(nums, value, tol)
                or (total < 15 * 1440 and total % 1440 > slack and _near(ev.spans, total % 1440, slack)))
    if _near(nums, value, tol) and (kind not in ("money", "percent") or _written_as(ev, value, tol, kind)):
        return True
    if norm and _PERCENT_AFTER.match(norm, end) and _near(ev.stated, value / 100.0, tol / 100.0):
        return True  # "0.72%" of a result's "dividend yield": 0.0072
    unit = unit_after(norm, end) if norm else None  # "8.1 mi", "54 °F": a unit name, not any word
    stated = ev.stated  # a conversion is the step: of a number a source wrote, not of a total worked out here
    if scaled and any(_near(stated, value * shift, tol * shift) for shift in _SCALE_SHIFTS):
        return True
    if unit is None:
        return False
    if any(_near(stated, value * a + b, tol * abs(a)) for a, b in sibling_factors(unit)):
        return True
    km = in_unit(value, unit, "km")  # "about 8.5 km" from the station: worked out from two coordinates
    return km is not None and value != 0 and _near(ev.distances, km, max(tol, 0.05 * abs(value)) * abs(km / value))


Kind = str | None
"""What a figure of an answer measures, from what is written beside it: "money", "percent", "duration",
a quantity of units.py ("length", "mass", "temperature"...), or None (a bare number: a count, an id)."""

_CURRENCY_BEFORE = re.compile(r"(?:[$€£¥]|\b(?:usd|eur|cny|rmb|gbp|jpy|chf|cad|aud)\s?)$")
_CURRENCY_AFTER = re.compile(r"\s?(?:usd|eur|cny|rmb|gbp|jpy|chf|cad|aud|yuan|yen|dollars?|euros?)\b")
_PERCENT_AFTER = re.compile(r"\s?(?:%|percent\b|per ?cent\b)")


def _kind(norm: str, m: NumberMention, minutes: float | None) -> Kind:
    """The kind of one written figure ("$30": money, "6 months": duration, "32 °c": temperature)."""
    if _CURRENCY_BEFORE.search(norm[max(0, m.start - 5):m.start]) or _CURRENCY_AFTER.match(norm, m.end):
        return "money"
    if _PERCENT_AFTER.match(norm, m.end):
        return "percent"
    if minutes is not None:
        return "duration"
    return quantity_of(unit_after(norm, m.end))


def _alike(*kinds: Kind) -> bool:
    """Whether figures of these kinds can be added or compared: the same kind, or bare numbers."""
    return len({k for k in kinds if k is not None}) <= 1


def _written_as(ev: _Evidence, value: float, tol: float, kind: Kind) -> bool:
    """Whether a source number near ``value`` may be of ``kind``: written so, or with no kind of its own (a
    total worked out over a column counts as the column's)."""
    i = bisect.bisect_left(ev.stated, value - tol)
    if i >= len(ev.stated) or ev.stated[i] > value + tol:
        return True  # only a statistic is near: its kind is its column's, which is not known
    while i < len(ev.stated) and ev.stated[i] <= value + tol:
        if ev.kinds.get(ev.stated[i], {None}) & {kind, None}:
            return True
        i += 1
    return False


def _derived(value: float, kind: Kind, tol: float, anchors: Sequence[tuple[float, Kind]]) -> bool:
    """Whether ``value`` is one step of arithmetic over figures the answer itself states and grounds
    (``anchors``, counts among them): a sum or difference, a ratio or product, a percentage or
    percentage change, a figure times or shared by a count. Operands the answer does not state do
    not count: with a large result, almost any small number is some difference of two of its figures.

    The step must make sense and must matter: sums, differences and percentage changes are of figures
    of one kind (no fare is a distance plus a duration; "48 hours" is no customer number 42 plus 7
    days: a sum with a unit has an operand with that unit), a product or ratio keeps the kind of one
    of its operands (a price times a count is a price), and a figure lost in the rounding of its
    operand (40 as 48,000 minus 40) derives nothing."""
    pool = sorted(anchors, key=lambda x: x[0])
    values = [v for v, _k in pool]

    def near(target: float, slack: float, step: str, ka: Kind, floor: float | None = None) -> bool:
        slack = max(slack, 0.01 * abs(target))  # the operands were rounded too: 1 % of the target
        if floor is not None and floor <= slack:
            return False  # the step changes its operand by less than its rounding: it derives nothing
        i = bisect.bisect_left(values, target - slack)
        while i < len(pool) and values[i] <= target + slack:
            if _fits(step, kind, ka, pool[i][1]):
                return True
            i += 1
        return False

    ratio = kind in (None, "percent")
    for a, ka in anchors:
        if a == 0:
            continue
        size = abs(a)
        if any(near(t, tol, "sum", ka, abs(value)) for t in (value - a, a - value, value + a)):
            return True  # b ± a
        if near(value * a, tol * size, "product", ka) or near(value / a, tol / size, "product", ka):
            return True  # b / a, b * a
        if ratio and near(value * a / 100.0, tol * size / 100.0, "share", ka):
            return True  # value % of a
        if ratio and any(near(a * (1 + sign * value / 100.0), tol * size / 100.0, "share", ka, abs(a * value / 100.0))
                         for sign in (1, -1)):
            return True  # a grew or fell by value %
    return (len(anchors) > 2 and _alike(kind, *(k for _a, k in anchors))
            and abs(sum(a for a, _k in anchors) - value) <= tol * len(anchors))


def _fits(step: str, kind: Kind, ka: Kind, kb: Kind) -> bool:
    """Whether a figure of ``kind`` can come of operands of kinds ``ka`` and ``kb`` by ``step``: a "sum" (or
    difference) of one kind, with the figure's unit among its operands'; a "product" (or ratio) that keeps
    an operand's kind or makes a rate of them; a "share" (a percentage of, a percentage change) of one kind."""
    if step == "sum":
        return _alike(kind, ka, kb) and kind in (None, ka, kb)
    if step == "product":
        return kind in (None, ka, kb) or _rate(kind, ka, kb)
    return _alike(ka, kb)


def _rate(kind: Kind, *operands: Kind) -> bool:
    """Whether a figure of ``kind`` is a rate of its operands' kinds (a speed from a distance and a time)."""
    return kind == "speed" and {"length", "duration"} <= set(operands)


_FIGURE_AFTER = re.compile(r"\s?(?:%|percent|per ?cent|[a-z]{1,3}\b|°|degrees|hours?|minutes?|days?|weeks?|"
                           r"months?|years?|kilo\w*|met\w*|miles?|grams?|pounds?|dollars?|euros?|yuan|yen)")


def _is_count(norm: str, start: int, options: Sequence[NumberMention]) -> bool:
    """Whether a small whole number is a count, an ordinal or a list number ("3 trains", "the 2nd"), which
    needs no source; "3%", "$5", "7 km", "platform 7" are figures."""
    first = options[0]
    if len(options) != 1 or first.decimals != 0 or abs(first.value) > 10:
        return False
    before = norm[max(0, start - 14):start]
    if _COUNTED.search(before) or re.search(r"[$€£¥]\s?$", before):
        return False
    after = _FIGURE_AFTER.match(norm, first.end)
    return after is None or after.group().strip() in {"st", "nd", "rd", "th", "of", "in", "to", "or", "and", "at",
                                                      "on", "is", "are", "new", "the", "a", "x"}


_DECLARED_SCALE = re.compile(r"\b(?:in|usd|eur|gbp|cny|\$|€|£)\s?"
                             r"(?:thousands|millions|billions|1000|1000000|1000000000)(?![\d,.]| of)")
_PART_OF_DAY = re.compile(r"\b(?:morning|afternoon|evening|tonight|night|working day|workday)\b")


def _parts_of_totals(values: list[float], anchors: Sequence[float]) -> set[float]:
    """Figures that together make up a grounded figure: two parts of a stated total ("5616 EUR: room
    3600 plus catering 2016"), or two factors of a stated product."""
    out: set[float] = set()
    for i, x in enumerate(values):
        for y in values[i + 1:]:
            if any(abs(x + y - a) <= 0.005 * max(1.0, abs(a)) or abs(x * y - a) <= 0.005 * max(1.0, abs(a))
                   for a in anchors):
                out |= {x, y}
    return out


def _date_grounded(d: date | None, month: int, day: int, ev: _Evidence) -> bool:
    if d is None:
        return (month, day) in ev.month_days or any(
            (x.month, x.day) == (month, day) for x in _around(ev))
    if d in ev.dates or any(abs((d - x).days) <= 1 for x in ev.dates):
        return True
    if (month, day) in ev.month_days and _near(ev.numbers, float(d.year), 0.5):
        return True  # "4 October" in a result that names 1582 elsewhere
    return d in _around(ev)


def _around(ev: _Evidence) -> Iterable[date]:
    """Dates an agent may name from the clock alone: the week before today to a fortnight after."""
    if ev.today is None:
        return ()
    return (ev.today + timedelta(days=k) for k in range(-7, 15))


def _time_grounded(hour: int, minute: int, ev: _Evidence) -> bool:
    if hour < 12 and _time_grounded(hour + 12, minute, ev):
        return True  # "3:30-4:30pm": the 12-hour clock leaves the first time's half of the day to the reader
    if (hour, minute) in ev.times:
        return True
    total = hour * 60 + minute
    for h, m in ev.times:
        base = h * 60 + m
        diff = abs(total - base) % (24 * 60)
        diff = min(diff, 24 * 60 - diff)
        if _near(ev.periods, float(diff), 0.5):
            return True
        if ev.shifts_hours and diff % 30 == 0:
            return True
    return False


def ungrounded(task: Task, episode: Episode, text: str, allow: Sequence[Scalar] = ()) -> list[str]:
    """The assertions of ``text`` no source supports (each as the text wrote it, with what it is)."""
    norm = _normalised(text)
    if not _ASSERTS.search(norm):
        return []  # no digit, no weekday: nothing to trace
    ev = _evidence(task, episode)
    allowed = list(allow)
    problems: list[str] = []
    phones = [(m.start(), m.end()) for m in PHONE.finditer(norm)]
    digits = re.sub(r"\D", "", ev.text) if phones else ""  # (the sources' digits: only a phone needs them)
    for start, end in phones:
        if re.sub(r"\D", "", norm[start:end]) not in digits:
            problems.append(f"the number {norm[start:end]!r}")
    readings: dict[int, list[NumberMention]] = {}
    for m in _scanned("number", norm, number_mentions):
        if any(s <= m.start < e for s, e in phones):
            continue
        readings.setdefault(m.start, []).append(m)  # "150 m": 150 metres or 150 million, whichever has a source
    anchors: list[tuple[float, Kind]] = [(2.0, None)] if re.search(r"\bboth\b", norm) else []  # a count of two
    open_: list[tuple[str, list[tuple[NumberMention, Kind]]]] = []
    scaled = bool(_DECLARED_SCALE.search(norm))  # "USD billions" over a table: its figures are at that scale
    durations = {(m.start, m.end) for m in duration_mentions(norm)}  # "46 h 35 min": 2795 minutes
    covered = 0  # the end of the last grounded duration: its "35" is part of it, not a figure of its own
    for start, options in sorted(readings.items()):
        if start < covered:
            continue
        written = norm[start:max(m.end for m in options)]
        minutes = {id(m): 1.0 if (m.start, m.end) in durations else _period(norm, m.end) for m in options}
        kinds = [(m, _kind(norm, m, minutes[id(m)])) for m in options]
        if _is_count(norm, start, options) or any(find_in_normalised(written, a) for a in allowed):
            anchors.append((options[0].value, kinds[0][1]))
            continue
        direct = [(m, k) for m, k in kinds
                  if _direct(m.value, _tolerance(norm, m), ev, norm, m.end, scaled=scaled or len(options) > 1,
                             minutes=minutes[id(m)], kind=k)]
        if direct:
            anchors += [(m.value, k) for m, k in direct]
            covered = max([covered] + [m.end for m, _k in direct if (m.start, m.end) in durations])
        else:
            open_.append((written, kinds))
    while True:  # a derived figure grounds the next step ("3,600 for the room, so 2,016 for catering")
        derived = [(written, kinds) for written, kinds in open_
                   if any(_derived(m.value, k, _tolerance(norm, m), anchors) for m, k in kinds)]
        if not derived:
            break
        for found in derived:
            open_.remove(found)
            anchors += [(m.value, k) for m, k in found[1]]
    still = [(written, [m for m, _k in kinds]) for written, kinds in open_]
    parts = _parts_of_totals([options[0].value for _w, options in still], [a for a, _k in anchors])
    problems += [f"the figure {written!r}" for written, options in still if options[0].value not in parts]
    for d in _scanned("date", norm, date_mentions):
        if not _date_grounded(d.value, d.month, d.day, ev) and not any(find_in_normalised(norm[d.start:d.end], a)
                                                                       for a in allowed):
            problems.append(f"the date {norm[d.start:d.end]!r}")
    times = _scanned("time", norm, time_mentions)
    day_parts = bool(times) and bool(_PART_OF_DAY.search(ev.text))
    for t in times:
        if day_parts and t.minute == 0 and 6 <= t.hour <= 22:
            continue  # "this afternoon, until 6pm": the bounds of a part of the day the user named
        if t.explicit and not _time_grounded(t.hour, t.minute, ev):
            problems.append(f"the time {norm[t.start:t.end]!r}")
    for code in _CODE.finditer(norm):
        token = code.group()
        if _NOT_A_CODE.match(token) or token in ev.text or token.replace("-", "") in ev.text.replace("-", ""):
            continue
        problems.append(f"the code {token!r}")
    return list(dict.fromkeys(problems))


# --------------------------------------------------------------------------- weekdays beside dates

_WEEKDAYS = {name: i for i, names in enumerate([
    ("monday", "mon"), ("tuesday", "tue", "tues"), ("wednesday", "wed"), ("thursday", "thu", "thur", "thurs"),
    ("friday", "fri"), ("saturday", "sat"), ("sunday", "sun")]) for name in names}
_WEEKDAY = re.compile(r"\b(" + "|".join(sorted(_WEEKDAYS, key=len, reverse=True)) + r")\b\.?")
_BESIDE = re.compile(r"^[\s,.(\[-]*(?:the\s+)?$|^[\s,]*(?:on\s+)?$")
_RELATIVE = re.compile(r"\b(today|tomorrow|yesterday)\b")


def weekday_mismatches(text: str, today: date | None) -> list[str]:
    """Weekdays written beside a date (or "today"/"tomorrow") that are not that date's weekday."""
    norm = _normalised(text)
    if not _WEEKDAY.search(norm):
        return []
    out = []
    dates: tuple[DateMention, ...] = _scanned("date", norm, date_mentions)
    for w in _WEEKDAY.finditer(norm):
        weekday, ws, we = _WEEKDAYS[w.group(1)], w.start(), w.end()
        short = len(w.group(1)) <= 4
        beside = []
        for d in dates:
            if short and d.start < we:
                continue  # "16 April, Sun Mei": an abbreviation counts only before its date ("Sun 19 April")
            gap = norm[we:d.start] if d.start >= we else norm[d.end:ws]
            if len(gap) <= 6 and _BESIDE.match(gap.replace(")", "").replace("(", "")):
                beside.append((len(gap) + (0 if d.start >= we else 3), d))  # "Sun 19 April" before "16 April, Sun"
        if beside:
            d = min(beside, key=lambda x: x[0])[1]
            when = d.value
            if when is None:  # "Friday the 15th of October": the year named just before, else the nearest
                years = re.findall(r"(?<![\d.,])(1[5-9]\d\d|2[01]\d\d)(?![\d.,])", norm[max(0, d.start - 200):d.start])
                if years:
                    with contextlib.suppress(ValueError):
                        when = date(int(years[-1]), d.month, d.day)
                elif today is not None:
                    when = _nearest(today, d.month, d.day)
            if when is not None and _weekday(when) != weekday:
                out.append(f"{norm[min(ws, d.start):max(we, d.end)]!r}: {when.isoformat()} is a "
                           f"{_WEEKDAY_NAMES[_weekday(when)]}")
        if today is not None:
            for rel in _RELATIVE.finditer(norm, max(0, ws - 14), min(len(norm), we + 14)):
                gap = norm[we:rel.start()] if rel.start() >= we else norm[rel.end():ws]
                if len(gap) > 5 or not re.fullmatch(r"[\s,()-]*(?:is\s+)?", gap):
                    continue
                shift = {"today": 0, "tomorrow": 1, "yesterday": -1}[rel.group(1)]
                when = today + timedelta(days=shift)
                if when.weekday() != weekday:
                    out.append(f"{rel.group(1)} is a {when.strftime('%A')}, not {w.group(1)}")
    return list(dict.fromkeys(out))


_WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_GREGORIAN = date(1582, 10, 15)


def _weekday(when: date) -> int:
    """Monday 0 to Sunday 6, in the Julian calendar before the Gregorian reform (4 October 1582 was a Thursday)."""
    if when >= _GREGORIAN:
        return when.weekday()
    y, m = (when.year, when.month) if when.month > 2 else (when.year - 1, when.month + 12)
    jdn = int(365.25 * (y + 4716)) + int(30.6001 * (m + 1)) + when.day - 1524  # Julian day number
    return jdn % 7


def _nearest(today: date, month: int, day: int) -> date | None:
    """The date with this month and day nearest to ``today`` (the year an answer leaves out)."""
    options = []
    for year in (today.year - 1, today.year, today.year + 1):
        try:
            options.append(date(year, month, day))
        except ValueError:
            continue
    return min(options, key=lambda d: abs((d - today).days)) if options else None


def check_claims(task: Task, episode: Episode) -> CheckpointResult | None:
    """The implicit checkpoint on an answer's own assertions: weekdays agree with their dates, and every
    figure, date, time and code is grounded (unless the spec turns grounding off). None: no answer."""
    text = episode.final_answer
    if not text.strip():
        return None
    today = task.now.date() if task.now else None
    wrong_days = weekday_mismatches(text, today)
    if wrong_days:
        return CheckpointResult(id=CHECK_ID, passed=False, failure="wrong_value",
                                detail="weekday does not match its date: " + "; ".join(wrong_days[:3]))
    spec = task.spec.grounding
    if spec is False:
        return CheckpointResult(id=CHECK_ID, passed=True, detail="weekdays agree with their dates (grounding off)")
    allow = spec.allow if isinstance(spec, Grounding) else []
    missing = ungrounded(task, episode, text, allow)
    if missing:
        return CheckpointResult(id=CHECK_ID, passed=False, failure="ungrounded_claim",
                                detail="asserted with no source in the prompt or the tool results: "
                                       + ", ".join(missing[:5]))
    return CheckpointResult(id=CHECK_ID, passed=True, detail="every figure, date, time and code has a source")
