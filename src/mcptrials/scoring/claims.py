"""Reading a text as claims: which value each labelled fact is given, and whether that claim stands.

A spec's fact says "label L has value V". A careful reviewer reads every statement of L in the
text: the value bound to it in its sentence (the nearest on one side: "L: V", "V for L"); whether
that binding is denied ("L is not V"); whether the value is hedged with another value of the same
kind ("V, or possibly W"; "V to W" where the fact is no range); and whether the text later
withdraws it ("... actually, it is W"). A fact holds when some statement binds a right value and
none is hedged, withdrawn or denied: "is this value somewhere in the text" is not the question,
"what does the text claim" is. A text value a check requires (a name, a file name, a phrase) is read
the same way: offered beside an alternative, withdrawn by a correction, or left out by an "only"
that names another required value, it is not claimed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, NamedTuple

from mcptrials.model import Fact, Scalar, StateCheckpoint, ValueCheckpoint
from mcptrials.scoring.answers import (
    _NORMS,
    Mention,
    NumberMention,
    _bounded,
    _literal,
    _normalised,
    _reading,
    _scanned,
    absent_violations,
    clause_end,
    clause_start,
    date_mentions,
    find_in_normalised,
    negated,
    normalise_text,
    number_mentions,
    pattern_found,
    sentence_bounds,
    states,
    tables_as_sentences,
    time_mentions,
)
from mcptrials.scoring.memo import EpisodeMemo
from mcptrials.scoring.units import convert, converted_mentions, quantity_of, unit_after, units_named_after


@dataclass
class FactVerdict:
    """Whether one fact is stated, and if not, what was wrong (``code``: stated, missing, ambiguous, denied)."""

    fact: Fact
    stated: bool
    detail: str
    code: str = "stated"


class Problem(NamedTuple):
    """One reason a text fails a check: a failure code and a sentence saying why."""

    code: str
    detail: str


# --------------------------------------------------------------------------- tokens: labels and values

_Token = tuple[int, int, str, frozenset[int]]  # start, end, "L" (label) or "V" (value), fact indices

_BACK_REFERENCE = re.compile(r"\bthe (former|latter)\b")


def _label_mentions(norm: str, facts: Sequence[Fact], fold: bool) -> list[tuple[int, int, int]]:
    """(start, end, fact index) of every label mention; a mention inside a longer one is dropped."""
    found = []
    for i, fact in enumerate(facts):
        for label in fact.labels:
            found += [(m.start, m.end, i) for m in find_in_normalised(norm, label, fold=fold)]
    found.sort(key=lambda x: (x[0], -(x[1] - x[0])))
    kept: list[tuple[int, int, int]] = []
    for start, end, i in found:
        if any(s <= start and end <= e and (s, e) != (start, end) for s, e, j in kept):
            continue  # inside a longer mention; one span naming several facts stays, once per fact
        kept.append((start, end, i))
    return kept


def _back_references(norm: str, tokens: list[_Token]) -> list[_Token]:
    """"the former" and "the latter" as mentions of what they point back to: the earlier and the later
    of the last two things named before them (labels or values); with only one named, the one that
    stands first or second in an "X and Y"."""
    out = []
    anchor = -1_000
    for m in _BACK_REFERENCE.finditer(norm):
        if m.start() - anchor > 200:  # "the former ..., the latter ...": both point back past the first
            anchor = m.start()
        distinct: list[_Token] = []
        for token in reversed([t for t in tokens if t[0] < anchor]):
            if (token[2], token[3]) not in {(t[2], t[3]) for t in distinct}:
                distinct.append(token)
            if len(distinct) == 2:
                break
        chosen = None
        if len(distinct) == 2:
            chosen = distinct[1 if m.group(1) == "former" else 0]
        elif len(distinct) == 1:
            start, end = distinct[0][0], distinct[0][1]
            if m.group(1) == "latter" and re.search(r"\b(?:and|or)\s+(?:the\s+)?$", norm[max(0, start - 12):start]):
                chosen = distinct[0]
            if m.group(1) == "former" and re.match(r"\s+(?:and|or)\b", norm[end:end + 6]):
                chosen = distinct[0]
        if chosen is not None:
            out.append((m.start(), m.end(), chosen[2], chosen[3]))
    return out


def _value_mentions(norm: str, fact: Fact, fold: bool) -> list[Mention]:
    """Where one of a fact's values is stated: as written, or converted to another unit of its quantity."""
    found: list[Mention] = []
    for value in fact.values:
        found += find_in_normalised(norm, value, tol=fact.tol, fold=fold)
        if fact.unit and isinstance(value, int | float | str):
            found += converted_mentions(norm, value, fact.unit, fact.tol)
    return found


def _tokens(norm: str, facts: Sequence[Fact], fold: bool) -> list[_Token]:
    labels = _label_mentions(norm, facts, fold)
    values: dict[int, tuple[int, set[int]]] = {}
    for i, fact in enumerate(facts):
        for m in _value_mentions(norm, fact, fold):
            if not any(s < m.end and m.start < e for s, e, _ in labels):
                end, ids = values.get(m.start, (m.end, set()))
                ids.add(i)
                values[m.start] = (max(end, m.end), ids)
    spans: dict[tuple[int, int], set[int]] = {}
    for s, e, i in labels:
        spans.setdefault((s, e), set()).add(i)
    tokens: list[_Token] = [(s, e, "L", frozenset(ids)) for (s, e), ids in spans.items()]
    tokens += [(pos, end, "V", frozenset(ids)) for pos, (end, ids) in values.items()]
    tokens.sort(key=lambda t: (t[0], t[2]))
    if "the former" in norm or "the latter" in norm:
        tokens = sorted(tokens + _back_references(norm, tokens), key=lambda t: (t[0], t[2]))
    return tokens


_LOW_WORDS = frozenset({"low", "lowest", "min", "minimum", "coldest", "coolest"})
_HIGH_WORDS = frozenset({"high", "highest", "max", "maximum", "warmest", "hottest"})
_RANGE_JOIN = re.compile(r"\s*(?:°\s?[cf]\b|%)?\s*(?:-|\u2013|\bto\b|\band\b)\s*$")


def _range_ends(norm: str, tokens: list[_Token], facts: Sequence[Fact]) -> list[tuple[frozenset[int], _Token]]:
    """A range of two stated values ("between 18.9 and 23.5 °C", "5.7-16.5") names its low and its high:
    where the text never names a low fact's or a high fact's label, the range's first value is read as
    the lows' and its second as the highs' (so "23.5 to 18.9" states neither)."""
    named = {i for _s, _e, kind, ids in tokens if kind == "L" for i in ids}
    lows = frozenset(i for i, f in enumerate(facts)
                     if i not in named and {x.casefold() for x in f.labels} & _LOW_WORDS)
    highs = frozenset(i for i, f in enumerate(facts)
                      if i not in named and {x.casefold() for x in f.labels} & _HIGH_WORDS)
    if not lows or not highs:
        return []
    out: list[tuple[frozenset[int], _Token]] = []
    for a, b in pairwise(tokens):
        if a[2] == "V" and b[2] == "V" and (a[3] | b[3]) & lows and (a[3] | b[3]) & highs and \
                _RANGE_JOIN.match(norm[a[1]:b[0]] + " "):
            out += [(lows, a), (highs, b)]
    return out


def _merge_labels(tokens: list[_Token]) -> list[_Token]:
    """Within one sentence, adjacent labels of one fact are one mention ("reported EPS")."""
    merged: list[_Token] = []
    for token in tokens:
        if merged and token[2] == "L" and merged[-1][2] == "L" and merged[-1][3] == token[3]:
            merged[-1] = (merged[-1][0], token[1], "L", token[3])
            continue
        merged.append(token)
    return merged


# --------------------------------------------------------------------------- binding labels to values

_NEGATION = re.compile(
    r"\b(?:not|never|no longer|rather than|instead of|nor|isn't|wasn't|aren't|weren't|doesn't|didn't|don't|"
    r"won't|cannot|can't|neither)\b|n't\b")
_NOT_A_DENIAL = re.compile(r"\b(?:not only|not just|no more than|not more than|no less than|not less than|"
                           r"not quite|not counting|not including|nothing but)\b")


_CONTRAST = re.compile(r"\b(?:but|rather|instead|it's|it is|in fact|actually)\b|;")


def _denies(gap: str) -> bool:
    """Whether the words between a label and its value deny the binding ("L is not V", "V is not the L");
    a contrast after the denial ends it ("L is not 5 but 7" claims 7)."""
    denials = list(_NEGATION.finditer(gap))
    if not denials or _NOT_A_DENIAL.search(gap):
        return False
    return not _CONTRAST.search(gap, denials[-1].end())


@dataclass
class _Binding:
    label: _Token
    value: _Token
    denied: bool

    @property
    def right(self) -> frozenset[int]:
        return self.label[3] & self.value[3]


def _fits(label: _Token, value: _Token, norm: str, facts: Sequence[Fact]) -> bool | None:
    """Whether a value can be a label's: for a fact of a quantity (°C, km), one stated in it, or with no
    unit where a fact of that quantity has the value. None when the label's facts have no quantity."""
    wanted = {quantity_of(facts[i].unit) for i in label[3]} - {None}
    if not wanted:
        return None
    named = quantity_of(unit_after(norm, value[1]))
    if named is not None:
        return named in wanted
    return any(quantity_of(facts[i].unit) in wanted for i in value[3])


def _fitting(label: _Token, values: list[_Token], norm: str, facts: Sequence[Fact]) -> list[_Token]:
    """The values a label can take ("Zion: 0 free sites, 30.4 °C" gives Zion 30.4 °C): those that fit
    it, or all when none does."""
    return [v for v in values if _fits(label, v, norm, facts) is not False] or values


def _bind(tokens: list[_Token], direction: str, norm: str,
          facts: Sequence[Fact]) -> tuple[list[_Binding], int]:
    """Label-value bindings when labels take the nearest value on one side, and how many are wrong.

    ``after``: a label takes the first value before the next label ("A: 12, B: 40"); a run of
    labels followed by a run of as many values binds in order ("A and B: 12 and 40", "... 12 and
    40, respectively"); before a single value, the last label takes it and earlier ones may share
    it ("A and B tied at 58"). A value the text denies is passed over for the next one ("A is not
    40 but 12"). ``before``: a label takes the last value since the previous label ("12 for A").
    A wrong binding is a label taking another fact's value.
    """
    out: list[_Binding] = []
    wrong = 0
    k = 0
    while k < len(tokens):
        if tokens[k][2] != "L":
            k += 1
            continue
        run_end = k
        while run_end < len(tokens) and tokens[run_end][2] == "L":
            run_end += 1
        labels = tokens[k:run_end]
        pairs: list[tuple[_Token, _Token]] = []
        if direction == "after":
            vals_end = run_end
            while vals_end < len(tokens) and tokens[vals_end][2] == "V":
                vals_end += 1
            vals = tokens[run_end:vals_end]
            if len(labels) > 1 and len(vals) >= len(labels) and all(
                    _fits(lb, v, norm, facts) is not False for lb, v in zip(labels, vals, strict=False)):
                pairs = list(zip(labels, vals[:len(labels)], strict=True))
            elif vals:
                label = labels[-1]
                vals = _fitting(label, vals, norm, facts)
                chosen = vals[0]
                for value in vals:  # "L is not 40 but 12": the denied value is passed over
                    if not _denies(norm[label[1]:value[0]]) or value is vals[-1]:
                        chosen = value
                        break
                    out.append(_Binding(label, value, True))
                pairs = [(label, chosen)]
                if len(vals) == 1:  # "A and B are tied at 58": earlier labels may share the value
                    pairs += [(other, chosen) for other in labels[:-1] if other[3] & chosen[3]]
                for other in labels[:-1]:  # "Zion: full, 0 sites, 30.4 °C": Zion's quantity is further on
                    rest = [v for v in vals if v is not chosen and _fits(other, v, norm, facts)]
                    if len(vals) > 1 and rest:
                        pairs.append((other, rest[0]))
        else:
            prev = k - 1
            while prev >= 0 and tokens[prev][2] == "V":
                prev -= 1
            vals = _fitting(labels[0], tokens[prev + 1:k], norm, facts)
            pairs = [(labels[0], vals[-1])] if vals else []
        for label, value in pairs:
            gap = norm[label[1]:value[0]] if label[0] < value[0] else norm[value[1]:label[0]]
            binding = _Binding(label, value, _denies(gap))
            out.append(binding)
            wrong += not binding.right and not binding.denied
        k = run_end
    return out, wrong


# --------------------------------------------------------------------------- hedges and corrections

_HEDGE_WORDS = re.compile(r"\b(?:or|maybe|possibly|perhaps|probably|might|could|either|otherwise)\b|\?")
_RANGE_GAP = re.compile(r"^\s*(?:-|to|until|till)\s*$")
_MARKER = re.compile(r"(?:[$€£¥%°]|\b(?:usd|eur|gbp|jpy|cny|rmb|yuan|yen|euros?|dollars?|pounds?|chf|cad|aud|hkd|"
                     r"km|mi|miles?|kilomet\w*|m|ft|feet|kg|lbs?|c|f|celsius|fahrenheit|ms|s|sec\w*|min\w*|h|hours?|"
                     r"days?|weeks?|months?|years?|nights?|people|persons?|sites?|seats?)\b)")
_GAP_WORDS = re.compile(r"[a-z]+")
_GAP_FILLER = {"or", "maybe", "possibly", "perhaps", "probably", "might", "could", "be", "even", "either", "about",
               "around", "roughly", "approximately", "it", "its", "is", "was", "the", "a", "an", "so", "to", "and",
               "otherwise", "else", "also", "some", "say", "up", "depending", "on", "nearer", "closer", "more",
               "like", "s"}
_CORRECTION = re.compile(
    r"\b(?:actually|correction|sorry|i mean|i meant|wait|scratch that|on second thought|my mistake|my apologies|"
    r"let me correct|to correct|i misread|i misspoke|or rather|strike that|update|that was wrong|that's wrong|"
    r"that is wrong|not right|not the right|i was wrong|(?:is|was|it's|its) really|correct figure|correct value|"
    r"correct answer|should be|should read|ignore that|disregard|second look|turns out|was off|is off|"
    r"was wrong|is wrong|mistake|misread|double-check(?:ing)?|re-?check(?:ing)?|on reflection|"
    r"(?:is|was) not the (?:figure|number|value|amount|answer|result|one)|"
    r"(?:isn't|wasn't) the (?:right |correct )?(?:figure|number|value|amount|answer|result|one))\b")
"""A word that withdraws what was said before it, or denies that a value said is the one asked for
("V is not the figure you want - it was W")."""


_WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY_MENTION = re.compile(r"\b(" + "|".join(_WEEKDAY_NAMES) + r")\b")


@dataclass(frozen=True)
class _WeekdayMention(Mention):
    day: int


def _weekday_mentions(norm: str) -> list[_WeekdayMention]:
    return [_WeekdayMention(m.start(), m.end(), _WEEKDAY_NAMES.index(m.group(1)))
            for m in _WEEKDAY_MENTION.finditer(norm)]


def _kind(value: Scalar) -> str:
    if isinstance(value, bool):
        return "text"
    if isinstance(value, int | float):
        return "number"
    kind = _reading(value)[0]
    if kind == "text" and value.strip().casefold() in _WEEKDAY_NAMES:
        return "weekday"
    return "date" if kind in {"date", "datetime"} else kind


def _same_kind(norm: str, kind: str) -> tuple[Any, ...]:
    if kind == "number":
        return _scanned("number", norm, number_mentions)
    if kind == "date":
        return _scanned("date", norm, date_mentions)
    if kind == "clock":
        return _scanned("time", norm, time_mentions)
    if kind == "weekday":
        return _scanned("weekday", norm, _weekday_mentions)
    return ()


def _overlaps(a: Mention, start: int, end: int) -> bool:
    return a.start < end and start < a.end


_CODE_DIGITS = re.compile(r"[A-Za-z]-$")


def _hedged(norm: str, value: _Token, others: Sequence[Mention], fact: Fact, kind: str,
            every: Sequence[Mention] = ()) -> Mention | None:
    """Another value of the fact's kind offered beside ``value`` as an alternative ("V, or possibly W")."""
    start, end = value[0], value[1]
    for other in others:
        if _overlaps(other, start, end) or _CODE_DIGITS.search(norm, max(0, other.start - 2), other.start):
            continue  # "INV-2291 - 3715.03 EUR": a code's digits are no rival figure
        if other.start >= end:
            gap, lead = norm[end:other.start], norm[max(0, start - 12):start]
        elif other.end <= start:
            gap, lead = norm[other.end:start], norm[max(0, other.start - 12):other.start]
        else:
            continue
        if re.search(r"[.!;?]\s|\n", gap):
            continue
        lead_in = norm[max(0, other.start - 16):other.start]
        if other.start > end and _CLAUSE_OR.search(lead_in) and _CONDITIONAL_AFTER.match(norm, other.end) \
                and not _units_differ(norm, start, end, other):
            return other  # "03:00 on Monday (CEST) - or 02:00 if Berlin is on standard time"
        if len(gap) > 40:  # far off in the sentence: a hedge only when marked as one ("..., possibly 18")
            if other.start > end and _FAR_HEDGE.search(lead_in) and not _units_differ(norm, start, end, other):
                return other
            continue
        if _units_differ(norm, value[0], value[1], other):
            continue  # "JPY 2953.71, or $19.14": one value in two units, not two values
        words = _GAP_WORDS.findall(gap)
        unknown = [w for w in words if w not in _GAP_FILLER]
        if len(unknown) > 2:
            continue
        if _HEDGE_WORDS.search(gap) and not _range_end(norm, other, every or others, value):
            return other
        if kind == "number" and not fact.range and "from" not in lead and (_RANGE_GAP.match(gap) or (
                re.match(r"^\s*and\s*$", gap) and "between" in lead)):
            if _RANGE_GAP.match(gap) and gap.strip() == "-" and isinstance(other, NumberMention) and other.signed:
                continue
            return other
    return None


def _range_end(norm: str, other: Mention, others: Sequence[Mention], value: _Token) -> bool:
    """Whether ``other`` ends a range with a third value ("between 1:30pm and 3:30pm, or between 4:30pm
    and 6pm"): one of two options listed, not a rival for ``value``."""
    for third in others:
        if third is other or _overlaps(third, value[0], value[1]):
            continue
        a, b = (third, other) if third.end <= other.start else (other, third)
        gap = norm[a.end:b.start]
        lead = norm[max(0, a.start - 12):a.start]
        if len(gap) <= 12 and (_RANGE_GAP.match(gap) or ("between" in lead and re.fullmatch(r"\s*and\s*", gap))
                               or ("from" in lead and re.fullmatch(r"\s*(?:to|until|till)\s*", gap))):
            return True
    return False


_RANGE_HINT = re.compile(r"\d\s*(?:-|to\b|until\b|till\b)|\bbetween\b")
_MAY_BE_AMBIGUOUS: EpisodeMemo[str, bool] = EpisodeMemo(limit=64)


def _may_be_ambiguous(norm: str) -> bool:
    """Whether a text holds any word that could hedge or withdraw a value (a hedge word, a correction,
    a range), decided once per text: without one, no statement of it is ambiguous."""
    return _MAY_BE_AMBIGUOUS.get(norm, lambda: bool(_HEDGE_WORDS.search(norm) or _CORRECTION.search(norm)
                                                     or _RANGE_HINT.search(norm)))


def _marker(norm: str, start: int, end: int) -> str:
    """The currency or unit written right before or after a number ("$", "jpy", "km"), or ''."""
    before = _MARKER.search(norm[max(0, start - 5):start].rstrip() + "\x00")
    if before and before.end() == len(norm[max(0, start - 5):start].rstrip()):
        return before.group()
    after = _MARKER.match(norm, end) or _MARKER.match(norm, end + 1) if end < len(norm) else None
    return after.group() if after else ""


def _units_differ(norm: str, start: int, end: int, other: Mention) -> bool:
    mine, theirs = _marker(norm, start, end), _marker(norm, other.start, other.end)
    return bool(mine and theirs and mine != theirs)


_CONCLUDING = re.compile(r"\b(?:so|therefore|hence|thus|which means|meaning)\b")


def _conclusion_end(norm: str, end: int, sentences: list[tuple[int, int]]) -> int:
    """Where a statement ending at ``end`` ends when the clauses after its ";" draw its conclusion
    ("Correction: V is the US figure; imperial ones are smaller, so it is W"); ``end`` when they do not."""
    k = next((k for k, (_s, e) in enumerate(sentences) if e == end), None)
    while k is not None and k + 1 < len(sentences) and norm[:end].rstrip().endswith(";") \
            and _CONCLUDING.search(norm, *sentences[k + 1]):
        k += 1
        end = sentences[k][1]
    return end


def _withdrawn(norm: str, value: _Token, others: Sequence[Mention], sentences: list[tuple[int, int]],
               foreign_labels: Sequence[tuple[int, int]], restated: Sequence[Mention],
               own_labels: Sequence[tuple[int, int]] = ()) -> Mention | None:
    """A correction after ``value`` that gives the fact another value of its kind ("... actually, it is W").

    When the correction names the fact's label, the value after that label is the corrected one
    ("x = 1, y = -2, z = 2"); when it names only other facts, it is about them. A conclusion the
    correction draws after a ";" gives the value with the fact's label ("...; so it is about W litres"),
    unless it restates the right one.
    """
    for marker in _CORRECTION.finditer(norm, value[1]):
        sentence_end = next((e for s, e in sentences if s <= marker.start() < e), len(norm))
        mine = [e for s, e in own_labels if marker.end() <= s < sentence_end]
        if not mine and any(marker.end() <= s < sentence_end for s, _e in foreign_labels):
            continue  # the correction is about another fact
        start = mine[0] if mine else marker.end()
        again = [m.start for m in restated if start <= m.start < sentence_end]
        if again:
            start = max(again)  # it restates the right value: only another value after that withdraws it
        for other in others:
            if start <= other.start < sentence_end and not _overlaps(other, value[0], value[1]):
                return other
        statement_end = _conclusion_end(norm, sentence_end, sentences)
        if any(sentence_end <= m.start < statement_end for m in restated):
            continue  # the conclusion restates the right value: what follows it is about something else
        for other in others:
            if sentence_end <= other.start < statement_end and any(
                    0 <= s - other.end <= 3 for s, _e in own_labels):
                return other
    return None


def _reunited(norm: str, value: _Token, restated: Sequence[Mention], sentences: list[tuple[int, int]]) -> str:
    """A correction after ``value`` that gives the same number in another unit of the quantity it was
    given in ("0.42 EUR per kilometre. Correction: ... 0.42 EUR per mile"), or '': the figure stays,
    the claim does not. A restatement in the same unit, or in none, is no correction."""
    first = units_named_after(norm, value[1]) if restated else set()
    if not first:
        return ""
    for marker in _CORRECTION.finditer(norm, value[1]):
        sentence_end = next((e for s, e in sentences if s <= marker.start() < e), len(norm))
        for again in restated:
            if not marker.end() <= again.start < sentence_end:
                continue
            later = units_named_after(norm, again.end)
            if any(quantity_of(a) == quantity_of(b) and a != b for a in first for b in later) and not first & later:
                return norm[again.start:_unit_phrase_end(norm, again.end)].rstrip("* ")
    return ""


_PHRASE_STOP = re.compile(r"[.,;:!?()\n]")


def _unit_phrase_end(norm: str, end: int) -> int:
    """Where the words naming a number's unit end: the next punctuation, or 30 characters on."""
    stop = _PHRASE_STOP.search(norm, end, end + 30)
    return stop.start() if stop else min(len(norm), end + 30)


# --------------------------------------------------------------------------- judging facts


def _facts_text(text: str, fold: bool) -> str:
    """The normalised text facts are read in: table rows rewritten as sentences (once per episode)."""
    return _NORMS.get((text, fold, True), lambda: normalise_text(tables_as_sentences(text), fold=fold))


def facts_stated(text: str, facts: Sequence[Fact], *, fold: bool = True) -> bool:
    """Whether every fact is stated (``check_facts`` all stated), rejecting early a text that lacks a
    fact's every label or every value where these are plain words (no scan of numbers is needed)."""
    norm = _facts_text(text, fold)
    for fact in facts:
        ends_a_range = bool({x.casefold() for x in fact.labels} & (_LOW_WORDS | _HIGH_WORDS))
        for options in ((fact.values,) if ends_a_range else (fact.labels, fact.values)):
            needles = [_literal(option, fold) for option in options]
            if all(needle is not None for needle in needles) and not any(
                    needle and needle in norm for needle in needles):
                return False
    return all(v.stated for v in check_facts(text, facts, fold=fold))


def check_facts(text: str, facts: Sequence[Fact], *, fold: bool = True) -> list[FactVerdict]:
    """Judge each fact: a right value bound to its label in some sentence, and no statement of the fact
    hedged with, withdrawn for, or denied in favour of another value.

    Within a sentence (or line), labels and the facts' values are read in order, and each label
    takes its nearest value on one side. A reading in which no label takes another fact's value
    counts; where both readings bind some label wrongly, the better one does. So "A: 12, B: 40"
    and "12 for A, 40 for B" state both facts, and the swaps "A: 40, B: 12" and "40 for A, 12 for
    B" state neither. Markdown table rows are read with their column headers.
    """
    norm = _facts_text(text, fold)
    tokens = _tokens(norm, facts, fold)
    sentences = sentence_bounds(norm)
    bound: dict[int, list[_Token]] = {}
    denied: set[int] = set()
    for start, end in sentences:
        sentence = _merge_labels([t for t in tokens if start <= t[0] < end])
        if not sentence:
            continue
        readings = [_bind(sentence, "after", norm, facts), _bind(sentence, "before", norm, facts)]
        reach = [len({b.label for b in bindings if not b.denied}) for bindings, _wrong in readings]
        if not any(n == max(reach) and not wrong for n, (_b, wrong) in zip(reach, readings, strict=True)):
            # "high 18.9, low 23.5": the reading that gives every label a value, wrongly, is what it says
            readings = [r for r, n in zip(readings, reach, strict=True) if n == max(reach)]
        clean = [bindings for bindings, wrong in readings if not wrong]
        chosen = clean if clean else [max(readings, key=lambda r: sum(
            bool(b.right) and not b.denied for b in r[0]) - r[1])[0]]
        for bindings in chosen:
            for b in bindings:
                for i in b.right:
                    if b.denied:
                        denied.add(i)
                    else:
                        bound.setdefault(i, []).append(b.value)
    mentioned = {i for _s, _e, kind, ids in tokens if kind == "L" for i in ids}
    for ids, value in _range_ends(norm, tokens, facts):
        mentioned |= ids
        for i in ids & value[3]:
            bound.setdefault(i, []).append(value)
    label_spans = [(s, e, i) for s, e, kind, ids in tokens if kind == "L" for i in ids]
    value_spans = {i: [Mention(s, e) for s, e, kind, ids in tokens if kind == "V" and i in ids]
                   for i in range(len(facts))}
    verdicts = []
    for i, fact in enumerate(facts):
        if i not in bound:
            if i in denied:
                verdicts.append(FactVerdict(fact, False, f"the text denies that {fact.labels[0]!r} is "
                                                         f"{fact.values[0]!r}", "denied"))
            elif i not in mentioned:
                verdicts.append(FactVerdict(fact, False, f"label {fact.labels[0]!r} not mentioned", "missing"))
            else:
                verdicts.append(FactVerdict(fact, False, f"{fact.labels[0]!r} is not stated as {fact.values[0]!r}",
                                            "missing"))
            continue
        problem = _ambiguity(norm, fact, i, bound[i], facts, value_spans, label_spans, sentences)
        if problem:
            verdicts.append(FactVerdict(fact, False, problem, "ambiguous"))
        elif i in denied:
            verdicts.append(FactVerdict(fact, False, f"the text both states and denies that {fact.labels[0]!r} is "
                                                     f"{fact.values[0]!r}", "ambiguous"))
        else:
            verdicts.append(FactVerdict(fact, True, "stated"))
    return verdicts


def _ambiguity(norm: str, fact: Fact, index: int, values: list[_Token], facts: Sequence[Fact],
               value_spans: dict[int, list[Mention]], label_spans: list[tuple[int, int, int]],
               sentences: list[tuple[int, int]]) -> str:
    """Why a fact bound to a right value is still not claimed (hedged or withdrawn), or ''."""
    foreign_values = [m for j, spans in value_spans.items() if j != index for m in spans]
    foreign = [(s, e) for s, e, j in label_spans if j != index]
    mine = [(s, e) for s, e, j in label_spans if j == index]
    return value_ambiguity(norm, fact, [(v[0], v[1]) for v in values], foreign_values, foreign, sentences,
                           [Mention(v[0], v[1]) for v in values], mine) \
        or _misconverted(norm, fact, values, value_spans[index], sentences)


_RESTATEMENT = re.compile(r"\b(?:that's|that is|i\.e\.|which is|which comes to|comes to|works out to|in other words|"
                          r"convert\w*|equals?|equivalent to)(?!\w)|=")
_COMPARED = re.compile(r"\W{0,3}(?:\w+\s){0,2}?(?:more|less|longer|shorter|faster|slower|extra|than|per|each|"
                       r"apart|later|earlier|ago|left|remaining)\b")


def _misconverted(norm: str, fact: Fact, values: list[_Token], right: Sequence[Mention],
                  sentences: list[tuple[int, int]]) -> str:
    """Why a fact of a quantity is not claimed although stated: the text restates its value as another
    amount of that quantity ("215 minutes - that's 2 hours 15 minutes", "311 km, i.e. 150 miles"), which
    is two values for one fact. A restatement that converts right ("215 minutes, that's 3 h 35") and a
    comparison ("215 minutes, that's 40 minutes longer") are no rival."""
    quantity = quantity_of(fact.unit)
    if quantity is None or not _RESTATEMENT.search(norm):
        return ""
    mentions: tuple[NumberMention, ...] = _scanned("number", norm, number_mentions)
    numbers = [float(v) for v in fact.values if isinstance(v, int | float) and not isinstance(v, bool)]
    for value in values:
        here = next((k for k, (s, e) in enumerate(sentences) if s <= value[0] < e), None)
        if here is None:
            continue
        limit = min(value[1] + 120, sentences[min(here + 1, len(sentences) - 1)][1])
        after = sorted((m for m in mentions if value[1] < m.start < limit), key=lambda m: (m.start, -m.end))
        units = [unit_after(norm, m.end) for m in after if m.start == after[0].start] if after else []
        if not any(quantity_of(u) == quantity for u in units):
            continue  # only the very next number can restate it ("215 minutes; with a 30-minute break, 245")
        other = after[0]  # the widest reading: "4 hours 15 minutes" (in minutes), not "4 hours"
        written = unit_after(norm, other.end) or "min"
        amount = convert(other.value, written, str(fact.unit))
        if amount is None or any(abs(amount - v) <= max(fact.tol or 0.0, 0.05 * abs(v)) for v in numbers) or \
                any(m.start <= other.start and other.end <= m.end for m in right) or \
                _COMPARED.match(norm, _unit_end(norm, other)):
            continue  # "215 minutes, i.e. about 3.5 hours": a rounding, no rival
        if _RESTATEMENT.search(norm, value[1], other.start):
            return (f"{fact.labels[0]!r} is given as {norm[value[0]:value[1]]!r}, then restated as "
                    f"{norm[other.start:_unit_end(norm, other)]!r}")
    return ""


def _unit_end(norm: str, number: Mention) -> int:
    """Where the unit named after a number ends (the number's end when none is named)."""
    m = _UNIT_WORD.match(norm, number.end)
    return m.end() if m else number.end


_UNIT_WORD = re.compile(r"\s?[a-z°/²]+")


def _key(m: Mention) -> Any:
    """What a mention says, to tell a restatement of a value from another value of its kind."""
    if isinstance(m, NumberMention):
        return round(m.value, 9)
    return tuple(getattr(m, name) for name in ("month", "day", "hour", "minute") if hasattr(m, name))


_CLAUSE_OR = re.compile(r"(?:[,;(]|\s-)\s*or\s+(?:else\s+|at\s+|about\s+|around\s+)?[$€£¥]?\s*$")
"""An alternative that opens its own clause after an aside ("03:00 on Monday (CEST) - or 02:00 if ...")."""
_CONDITIONAL_AFTER = re.compile(r"\s*(?:[a-z]+\s)?(?:if|when|unless|depending|in case|should)\b|\s*(?:[.;!?)]|$)")
"""What follows such an alternative when it is one: a condition, or the end of the statement (not "01:00 UTC",
the same instant in another zone)."""
_FAR_HEDGE = re.compile(r"(?:possibly|maybe|perhaps|or possibly|or maybe|or perhaps|could be|might be|or even)\s*"
                        r"[$€£¥]?\s*$")


_WIDENING_LEAD = re.compile(r"\b(?:somewhere|anywhere|roughly|about|around|approximately|likely|probably)\b"
                            r"[^.;!?\n\d]{0,20}$")
_WIDENING_GAP = re.compile(r"\s*(?:[a-z%°]{1,4}\s*)?(?:-|to|and)\s*(?:roughly\s+|about\s+|around\s+)?"
                           r"(?:[a-z]{1,4}\s*|[$€£¥]\s*)?")


def _widened(norm: str, fact: Fact, numbers: Sequence[Mention]) -> str:
    """An approximate range the answer offers for a number, one end near the fact's value and the other
    away from it ("CHF 2,330.85 ... so somewhere between roughly CHF 2,330 and CHF 2,680"), or '':
    the answer leaves open which amount holds. Ranges of other figures ("between the 2,300 and 2,400
    you expected"), and facts that may be ranges or are ends of one (a low, a high), are no widening."""
    value = fact.values[0]
    if fact.range or not isinstance(value, int | float) or isinstance(value, bool) \
            or {x.casefold() for x in fact.labels} & (_LOW_WORDS | _HIGH_WORDS):
        return ""
    near = max(fact.tol or 0.0, 0.002 * abs(value))
    ends = [m for m in numbers if isinstance(m, NumberMention)]
    for a, b in pairwise(ends):
        gap = _WIDENING_GAP.fullmatch(norm, a.end, b.start)
        if gap is None or not _WIDENING_LEAD.search(norm, max(0, a.start - 40), a.start):
            continue
        if "and" in norm[a.end:b.start] and "between" not in norm[max(0, a.start - 40):a.start]:
            continue
        close = [abs(m.value - value) <= near for m in (a, b)]
        if any(close) and not all(close):
            return norm[a.start:b.end]
    return ""


def value_ambiguity(norm: str, fact: Fact, stated: Sequence[tuple[int, int]], foreign_values: Sequence[Mention],
                    foreign_labels: Sequence[tuple[int, int]], sentences: list[tuple[int, int]],
                    own: Sequence[Mention], own_labels: Sequence[tuple[int, int]] = ()) -> str:
    """Why a value stated at ``stated`` is still not claimed, or '': it is hedged with another value of
    its kind ("5, or possibly 7"; "5 to 7" where the fact is no range), or a correction after it gives
    another ("... actually, 7"). Values of other facts (``foreign_values``) are never the alternative;
    another right value of the same fact is ("21:05 or 21:06")."""
    if not _may_be_ambiguous(norm):
        return ""
    kinds = {_kind(v) for v in fact.values}
    if len(kinds) != 1:
        return ""
    kind = kinds.pop()
    scanned = _same_kind(norm, kind)
    widened = _widened(norm, fact, [m for m in scanned if not any(_overlaps(m, f.start, f.end)
                                                                 for f in foreign_values)]) if kind == "number" else ""
    if widened and stated:
        return f"{fact.labels[0]!r} is given as {norm[stated[0][0]:stated[0][1]]!r}, then as the range {widened!r}"
    for start, end in stated:
        said = {_key(m) for m in scanned if _overlaps(m, start, end)}
        others = [m for m in scanned if not _overlaps(m, start, end) and _key(m) not in said
                  and not any(_overlaps(m, f.start, f.end) for f in foreign_values)]
        token: _Token = (start, end, "V", frozenset())
        restated = [m for m in own if m.start > end and {_key(x) for x in scanned if _overlaps(x, m.start, m.end)}
                    & said]
        unit_changed = _reunited(norm, token, restated, sentences)
        if unit_changed:
            return f"{fact.labels[0]!r} is given as {norm[start:end]!r}, then corrected to {unit_changed!r}"
        if not others:
            continue
        alternative = _hedged(norm, token, others, fact, kind, scanned)
        if alternative is not None:
            return (f"{fact.labels[0]!r} is given as {norm[start:end]!r} beside the alternative "
                    f"{norm[alternative.start:alternative.end]!r}")
        later = _withdrawn(norm, token, others, sentences, foreign_labels, restated, own_labels)
        if later is not None:
            return (f"{fact.labels[0]!r} is given as {norm[start:end]!r}, then corrected to "
                    f"{norm[later.start:later.end]!r}")
    return ""


# --------------------------------------------------------------------------- checkpoints' text checks


def _has(checks: ValueCheckpoint | StateCheckpoint, text: str, value: Scalar | list[Scalar], verbatim: bool) -> bool:
    """Whether ``text`` holds one ``contains`` item (a list item: any of its values)."""
    fold = checks.case == "insensitive"
    return states(text, value, fold=fold) or (verbatim and any(
        normalise_text(str(x), fold=fold) in _normalised(text, fold) for x in (value if isinstance(value, list)
                                                                               else [value])))


def _contained_ambiguity(checks: ValueCheckpoint | StateCheckpoint, text: str) -> str:
    """Why a ``contains`` value (a number, date or time) the text states is still not claimed: hedged
    with, or corrected to, another value of its kind; '' when none is."""
    fold = checks.case == "insensitive"
    norm = _normalised(text, fold)
    values = [v for item in checks.contains for v in (item if isinstance(item, list) else [item])
              if _kind(v) in {"number", "date", "clock", "weekday"}]
    if not values or not _may_be_ambiguous(norm):
        return ""
    spans = {id(v): find_in_normalised(norm, v, fold=fold) for v in values}
    spans.update({id(f): [m for v in f.values for m in find_in_normalised(norm, v, tol=f.tol, fold=fold)]
                  for f in checks.facts})
    sentences = sentence_bounds(norm)
    for v in values:
        found = spans[id(v)]
        if not found:
            continue
        foreign = [m for key, ms in spans.items() if key != id(v) for m in ms
                   if not any(_overlaps(m, x.start, x.end) for x in found)]
        problem = value_ambiguity(norm, Fact(label=str(v), value=v), [(m.start, m.end) for m in found], foreign,
                                  [], sentences, found)
        if problem:
            return problem
    return ""


_EITHER = re.compile(r"\beither\b(?!\s+(?:way|of|one of|is fine|works|will do)\b)")
_OR_WORD = re.compile(r"\bor\b")
_OR_MAYBE_WORDS = r",?\s*\bor (?:possibly|maybe|perhaps|else|it (?:could|might|may) be)\b"
_OR_MAYBE = re.compile(_OR_MAYBE_WORDS)  # "V, or maybe W"
_MAYBE_BEFORE = re.compile(_OR_MAYBE_WORDS + r"[^,;:]*$")  # "W, or possibly V"
_REPLACING = re.compile(r"\b(?:correction|i mean|i meant|scratch that|or rather|strike that|should be|should read|"
                        r"i misread|i misspoke|my mistake|that was wrong|that's wrong|ignore that|disregard)\b")
_FRAME_WORD = re.compile(r"[a-z0-9]+")
_NAMED_THING = re.compile(r"[./@\\]")  # a path, file name, address or URL is a value, never the frame
_FRAME_FILLER = frozenset({"the", "a", "an", "your", "my", "our", "their", "is", "are", "was", "were", "to", "of",
                           "for", "on", "in", "at", "it", "its", "and", "or", "be", "you", "i", "we", "they", "she",
                           "he", "this", "that", "from", "with", "by", "as", "so", "s", "do", "does", "did", "has",
                           "have", "had", "will", "would", "can", "then", "there", "here", "now", "just"})
_COMPOUND = re.compile(r"[a-z0-9][\w./@-]*[a-z0-9]")
_STEM_WORDS = re.compile(r"[a-z]{5,}")
_COMMON_STEMS = frozenset({"about", "after", "again", "alrea", "becau", "befor", "being", "could", "doesn", "every",
                           "first", "other", "their", "there", "these", "thing", "those", "which", "while", "would",
                           "shoul", "still", "think", "actua", "corre", "sorry", "reall", "looki", "readi"})
_ONLY = re.compile(r"(?<!\bnot )(?<!\bif )\bonly\b")
_STATEMENT_END = re.compile(r"[.!?](?:\s|$)|\n")


def _stems(words: str) -> set[str]:
    """The stems (first five letters) of the longer words of a text, common words left out."""
    return {w[:5] for w in _STEM_WORDS.findall(words)} - _COMMON_STEMS


def _frame(words: str) -> set[str]:
    """The words that say what a statement is about ("step 1 collect"), little words left out."""
    return set(_FRAME_WORD.findall(words)) - _FRAME_FILLER


def _covers(span: str, needles: Sequence[str]) -> bool:
    return any(n and n in span for n in needles)


def _text_hedged(norm: str, at: Mention, sentence: tuple[int, int], required: Sequence[str]) -> str:
    """The alternative a text value is offered beside ("either V or W", "V, or maybe W"), or '' when
    there is none; an alternative that is itself a required value ("either V or U", both asked for)
    is a list, no hedge."""
    start, end = sentence
    either = [m for m in _EITHER.finditer(norm, max(start, at.start - 100), at.start)]
    if either:
        first_or = _OR_WORD.search(norm, either[-1].end(), end)
        if first_or and first_or.start() >= at.end:
            alternative = norm[first_or.end():clause_end(norm, first_or.end() + 1, end)]
        elif first_or and 0 <= at.start - first_or.end() <= 40:
            alternative = norm[either[-1].end():first_or.start()]
        else:
            alternative = ""
        if alternative.strip() and not _covers(alternative, required):
            return alternative.strip()
    maybe = _OR_MAYBE.search(norm, at.end, min(end, at.end + 60))
    if maybe:
        alternative = norm[maybe.end():clause_end(norm, maybe.end() + 1, end)]
        if alternative.strip() and not _covers(alternative, required):
            return alternative.strip()
    lead = max(start, at.start - 40)
    maybe = _MAYBE_BEFORE.search(norm[lead:at.start])  # "W, or possibly V"
    if maybe:
        alternative = norm[clause_start(norm, lead + maybe.start(), start):lead + maybe.start()]
        if alternative.strip() and not _covers(alternative, required):
            return alternative.strip()
    return ""


_DIGIT = re.compile(r"\d")
_OR_JOIN = re.compile(r",?\s+or\s+")
_OR_JOIN_BEFORE = re.compile(r",?\s+or\s+$")


def _shape(text: str) -> str:
    """A code's shape: its digits and letters masked ("+1 676-808-2587" -> "+9 999-999-9999")."""
    return re.sub(r"[a-z]", "a", _DIGIT.sub("9", text))


def _code_rival(norm: str, at: Mention, needle: str, required: Sequence[str]) -> str:
    """Another code of the same shape a required code (a phone number, an ID: three digits or more) is
    offered beside with a plain "or" ("call +1 676-808-2587 or +1 400-978-2052"), or '': the user cannot
    tell which one holds. A rival that is itself required ("A or B", both asked for) is no hedge."""
    if len(_DIGIT.findall(needle)) < 3:
        return ""
    shape, size = _shape(needle), len(needle)
    after = _OR_JOIN.match(norm, at.end)
    before = _OR_JOIN_BEFORE.search(norm, max(0, at.start - size - 6), at.start)
    spans = ([(after.end(), after.end() + size)] if after else []) + \
            ([(before.start() - size, before.start())] if before else [])
    for a, b in spans:
        rival = norm[max(0, a):b]
        bounded = not (norm[b:b + 1].isalnum() or (a > 0 and norm[a - 1:a].isalnum()))
        if a >= 0 and rival != needle and _shape(rival) == shape and bounded and not _covers(rival, required):
            return rival
    return ""


_DROPS = re.compile(r"(?:\b(?:she|he|it|they|this one|that one)\s+)?\b(?:drops? (?:out|off)|dropped (?:out|off)|"
                    r"falls? (?:out|off)|(?:is|was|gets?) (?:removed|excluded|struck)|"
                    r"(?:shouldn't|should not|doesn't|does not) (?:be on|belong|count|qualify))\b")


_WORD_BEFORE = re.compile(r"\b([a-z]+) $")


def _dropped(norm: str, needle: str, start: int, end: int) -> str:
    """A correction's statement that the value it names drops out of the answer ("Correction: V's total
    includes a returned order, so she drops out"), or '': the drop must follow the value in its clause
    or its sentence with only a pronoun for it, and name it whole (not "Petrov" in "Ben Petrov")."""
    at = norm.find(needle, start, end)
    while at >= 0:
        word_before = _WORD_BEFORE.search(norm, max(start, at - 20), at)
        drop = _DROPS.search(norm, at + len(needle), end)
        if word_before and word_before.group(1) not in _FRAME_FILLER:
            drop = None  # "Ben Petrov" is not "Petrov": another name comes first
        if drop and (drop.group().split()[0] in {"she", "he", "it", "they", "this", "that"}
                     or clause_end(norm, at + len(needle), end) >= drop.end()):
            return norm[at:drop.end()]
        at = norm.find(needle, at + len(needle), end)
    return ""


def _text_withdrawn(norm: str, at: Mention, needle: str, sentences: list[tuple[int, int]]) -> str:
    """What a correction after a text value says instead ('' when none withdraws it): a variant of
    the value ("2026-04-13-meeting.txt ... Correction: meeting-2026-04-13.txt") or a denial of what
    was said with it ("publish it on the internal site ... Actually, she isn't asking for it to be
    published"). A correction that restates the value, or is about something else, withdraws nothing."""
    own = next(((s, e) for s, e in sentences if s <= at.start < e), (at.start, at.end))
    context = _stems(norm[max(own[0], at.start - 80):at.start] + " " + norm[at.end:min(own[1], at.end + 80)])
    pieces = set(_FRAME_WORD.findall(needle))
    lead_words = norm[own[0]:at.start].split()[-5:]
    frame = _frame(" ".join(w for w in lead_words if not _NAMED_THING.search(w.strip(".,:;"))))
    for marker in _CORRECTION.finditer(norm, at.end):
        s, e = next(((s, e) for s, e in sentences if s <= marker.start() < e), (marker.start(), len(norm)))
        if needle in norm[marker.start():e]:
            dropped = _dropped(norm, needle, marker.end(), e)
            if dropped:
                return dropped
            continue  # the correction restates the value
        if len(pieces) >= 2:
            for token in _COMPOUND.finditer(norm, marker.end(), e):
                shared = pieces & set(_FRAME_WORD.findall(token.group()))
                if token.group() != needle and needle not in token.group() and \
                        len(shared) >= max(2, (len(pieces) + 1) // 2):
                    return token.group()
        if frame and _REPLACING.match(norm, marker.start()) and \
                len(frame & _frame(norm[marker.end():e])) >= min(2, len(frame)):
            return norm[marker.end():e].strip(" :,-")  # "Step 1: V. Correction: step 1 is W"
        for denial in _NEGATION.finditer(norm, max(s, marker.start()), e):
            denied = norm[denial.end():clause_end(norm, denial.end() + 1, e)]
            if _NOT_A_DENIAL.search(norm, max(s, denial.start() - 4), denial.end() + 12):
                continue
            if _stems(denied) & context:
                return norm[denial.start():denial.end() + len(denied)].strip()
    return ""


def _text_excluded(norm: str, at: Mention, others: Sequence[Mention]) -> str:
    """The restriction that leaves a required text value out ("only A is due this week; V doesn't fall
    due until later"): "only" before another required value, and a denial of this one in the same
    statement; '' when there is none."""
    for only in _ONLY.finditer(norm, max(0, at.start - 300), at.start):
        stop = _STATEMENT_END.search(norm, only.end())
        if stop and stop.start() < at.start:
            continue  # "only" restricts another statement
        if not any(0 <= m.start - only.end() <= 25 for m in others):
            continue
        clause = clause_start(norm, at.start, only.end())
        after = norm[at.end:clause_end(norm, at.end + 1, stop.start() if stop else len(norm))]
        denial = _NEGATION.search(after)
        if negated(norm[clause:at.start]) or (denial and not _NOT_A_DENIAL.search(after)
                                              and not _CONTRAST.search(after, denial.end())):
            return norm[only.start():at.end + len(after)].strip()
    return ""


def _contained_text_ambiguity(checks: ValueCheckpoint | StateCheckpoint, text: str) -> str:
    """Why a ``contains`` text value the text states is still not claimed: offered beside an alternative
    ("either V or W"), withdrawn by a later correction, or left out by an "only" that names another
    required value while denying it; '' when none is."""
    fold = checks.case == "insensitive"
    items = [item if isinstance(item, list) else [item] for item in checks.contains]
    needles = [[n for v in item if _kind(v) == "text" for n in [_literal(v, fold)] if n] for item in items]
    if not any(needles):
        return ""
    norm = _normalised(text, fold)
    found = [[m for v in item for m in find_in_normalised(norm, v, fold=fold)] for item in items]
    sentences = sentence_bounds(norm)
    every = [n for item in needles for n in item]
    for k, item in enumerate(needles):
        others = [m for j, ms in enumerate(found) if j != k for m in ms]
        for needle in item:
            for at in _bounded(norm, needle):
                sentence = next(((s, e) for s, e in sentences if s <= at.start < e), (at.start, at.end))
                alternative = _text_hedged(norm, at, sentence, every) or _code_rival(norm, at, needle, every)
                if alternative:
                    return f"{needle!r} is offered beside the alternative {alternative!r}"
                instead = _text_withdrawn(norm, at, needle, sentences)
                if instead:
                    return f"{needle!r} is stated, then withdrawn: {instead!r}"
                excluded = _text_excluded(norm, at, others) if checks.mode == "all" else ""
                if excluded:
                    return f"{needle!r} is left out: {excluded!r}"
    return ""


def text_holds(checks: ValueCheckpoint | StateCheckpoint, text: str, *, verbatim: bool = False,
               absent: bool = True) -> bool:
    """Whether :func:`text_problems` is empty, deciding at the first problem (re-scoring speed)."""
    if checks.contains:
        test = all if checks.mode == "all" else any
        if not test(_has(checks, text, v, verbatim) for v in checks.contains):
            return False
        if not verbatim and (_contained_ambiguity(checks, text) or _contained_text_ambiguity(checks, text)):
            return False
    if checks.facts and not facts_stated(text, checks.facts):
        return False
    if checks.regex and _unmatched_patterns(checks, text):
        return False
    return not (absent and checks.absent and absent_violations(text, checks.absent))


def _unmatched_patterns(checks: ValueCheckpoint | StateCheckpoint, text: str) -> list[str]:
    """The checkpoint's ``regex`` patterns that match nowhere in ``text``."""
    insensitive = checks.case == "insensitive"
    return [p for p in checks.regex if not pattern_found(p, text, insensitive)]


def text_problems(checks: ValueCheckpoint | StateCheckpoint, text: str, *, verbatim: bool = False,
                  absent: bool = True) -> list[Problem]:
    """What ``text`` fails of a checkpoint's ``contains``/``facts``/``regex``/``absent`` (empty when it holds).

    ``contains`` values are found normalised and at word starts ("G3" is not in "G31"); in a tool
    result (``verbatim``), a value copied out of it is also found as a plain substring. A fact
    hedged, withdrawn or both stated and denied is an ``ambiguous_claim``.
    ``absent``: False leaves the checkpoint's ``absent`` claims unchecked.
    """
    found = [v for v in checks.contains if _has(checks, text, v, verbatim)]
    problems = []
    if checks.contains and (len(found) < len(checks.contains) if checks.mode == "all" else not found):
        problems.append(Problem("missing_value", f"missing {[v for v in checks.contains if v not in found]}"))
    elif checks.contains and not verbatim:
        ambiguity = _contained_ambiguity(checks, text) or _contained_text_ambiguity(checks, text)
        if ambiguity:
            problems.append(Problem("ambiguous_claim", ambiguity))
    for verdict in check_facts(text, checks.facts):
        if not verdict.stated:
            code = "ambiguous_claim" if verdict.code == "ambiguous" else "missing_value"
            problems.append(Problem(code, verdict.detail))
    unmatched = _unmatched_patterns(checks, text)
    if unmatched:
        problems.append(Problem("missing_value", f"no match for {unmatched}"))
    claimed = absent_violations(text, checks.absent) if absent else []
    if claimed:
        problems.append(Problem("missing_value", f"states {claimed}, which must not be claimed"))
    return problems
