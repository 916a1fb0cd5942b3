"""The answer check of a distilled task: which values of the explorer's answer a correct answer must state.

A value counts when a read result grounds it, the goal did not already give it, and the goal
asks about it (a word naming it, its JSON key or the word beside it in the answer, is a content
word of the goal). Values of one kind that sit side by side in a result (actual and estimated
EPS, the AQI of each city) are bound to distinct labels so that a swap fails.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any

from mcptrials.generate.rates import rate_patterns
from mcptrials.generate.values import (
    Value,
    day_options,
    grounded_in,
    leaves,
    parse_json,
    phone_options,
    precise_number,
    quoted_spans,
    scale_word,
    values_in,
    word_in,
    word_matches,
)
from mcptrials.model import Fact, Scalar, ValueCheckpoint
from mcptrials.scoring.answers import find_in_normalised, normalise_text, states
from mcptrials.scoring.claims import check_facts
from mcptrials.scoring.matchers import values_equal
from mcptrials.scoring.units import quantity_names, unit_after, unit_key

_LABEL_STOP = {"the", "a", "an", "of", "is", "was", "are", "were", "at", "on", "in", "to", "for", "and", "or", "with",
               "its", "it", "their", "his", "her", "by", "from", "be", "as", "that", "this", "which", "has", "had",
               "have", "about", "around", "against", "vs", "than", "per", "each", "usd", "eur", "gbp", "jpy", "cny"}

_INSTRUCTION_WORDS = {"report", "tell", "give", "show", "list", "find", "get", "look", "check", "let", "know", "send",
                      "email", "mail", "search", "open", "read", "answer", "please", "want", "need", "like", "would",
                      "could", "also", "then", "first", "next", "what", "which", "who", "when", "where", "how", "why",
                      "whether", "there", "does", "did", "can", "you", "your", "our", "my", "me", "and", "the", "for"}
_HIGH_WORDS = ["high", "max", "warmest", "peak", "top out", "tops out", "climb to", "climbs to"]
_LOW_WORDS = ["low", "min", "coolest", "coldest", "bottom", "down to", "drop to", "drops to", "dip to", "dips to",
              "fall to", "falls to"]
"""How an answer names the ends of a range of temperatures: "a low of -10 °C", "it gets down to 13 °F"."""
_SYNONYMS = {"actual": ["actual", "reported eps", "reported earnings", "came in", "delivered", "earned"],
             "estimated": ["estimat", "expect", "consensus", "forecast", "analyst"],
             "expected": ["estimat", "expect", "consensus", "forecast", "analyst"],
             "high": _HIGH_WORDS, "low": _LOW_WORDS,
             "arrival": ["arriv", "gets in", "reach"], "arrive": ["arriv", "gets in", "reach"],
             "departure": ["depart", "leav"], "depart": ["depart", "leav"],
             "open": ["open"], "close": ["clos"], "previous": ["previous", "prior", "last"],
             "min": _LOW_WORDS, "max": _HIGH_WORDS, "mean": ["mean", "average", "avg"],
             "average": ["average", "mean", "avg"], "total": ["total", "sum", "overall"],
             "squared": ["squar", "r²", "r2", "r^2", "determination"],
             "citation": ["citat", "cited", "cites"], "citations": ["citat", "cited", "cites"]}


_RELATED = [{"price", "fare", "cost", "costs", "fee", "charge", "amount", "pay", "paid"},
            {"arrive", "arrival", "arrives", "get", "reach"}, {"depart", "departure", "departs", "leave", "leaves"},
            {"weather", "forecast", "temperature", "temp", "high", "low", "max", "min", "rain", "precipitation",
             "precip", "condition", "conditions"}, {"sender", "from", "author", "authors", "sent"},
            {"count", "number", "many", "total", "quantity", "stock", "units", "left"},
            {"when", "time", "hour", "date", "day"}, {"company", "organisation", "organization", "org", "employer"},
            {"title", "name", "called"}, {"where", "location", "place", "city", "address", "venue"},
            {"long", "duration", "takes", "minutes", "minute", "mins", "hours"},
            {"accurate", "accuracy", "error", "errors", "precise", "precision", "mae", "rmse"}]


def _related(a: str, b: str) -> bool:
    """Whether two words name the same thing: one root, a shared stem (depart / departure), or synonyms."""
    ra, rb = _root(a), _root(b)
    if ra == rb:
        return True
    short, long_ = sorted((ra, rb), key=len)
    if len(short) >= 4 and long_.startswith(short):
        return True
    return any(({a, ra} & group or {_root(x) for x in group} & {ra}) and
               ({b, rb} & group or {_root(x) for x in group} & {rb}) for group in _RELATED)


def _names_goal(words: set[str], wanted: set[str]) -> bool:
    return any(_related(w, g) for w in words for g in wanted)


def _root(word: str) -> str:
    word = word.lower()
    for suffix in ("'s", "ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[:-len(suffix)]
    return word


_HOW_WHAT = {"big": ["size"], "large": ["size"], "far": ["distance"], "long": ["duration", "length"],
             "heavy": ["weight"], "old": ["age"], "tall": ["height"], "fast": ["speed"]}
_HOW = re.compile(r"(?i)\bhow\s+(" + "|".join(_HOW_WHAT) + r")\b")


def how_asks(*texts: str) -> set[str]:
    """The quantities a "how big / how far / how long" question asks for ("size", "distance", "duration")."""
    return {w for text in texts for m in _HOW.finditer(text) for w in _HOW_WHAT[m.group(1).lower()]}


def goal_words(*texts: str) -> set[str]:
    """The content words of the goal (instruction words such as report / tell / list left out), and the
    quantities its "how big / how far" questions ask for."""
    return {_root(w) for w in how_asks(*texts)} | {_root(w) for text in texts for w in re.findall(r"[A-Za-z]+", text)
                    if len(w) >= 3 and w.lower() not in _INSTRUCTION_WORDS and w.lower() not in _LABEL_STOP}


def _keys_of(value: Value, docs: list[Any]) -> tuple[set[str], bool]:
    """Words of the JSON keys a value sits under in results, and whether it is a field of its own there."""
    words: set[str] = set()
    structured = False
    for doc in docs:
        for path, leaf in leaves(doc):
            if not path or isinstance(leaf, bool) or not isinstance(leaf, int | float | str):
                continue
            if value.kind == "number":
                same = values_equal(leaf, value.value)
            else:
                same = isinstance(leaf, str) and len(leaf) <= 80 and grounded_in(value, leaf)
            if same:
                structured = True
                words |= {w for w in re.split(r"[^a-z]+", path[-1].lower()) if len(w) >= 2}
    return words, structured


def _context(value: Value, answer: str) -> set[str]:
    """The content word right before a value in its sentence of the answer, and the one right after it."""
    norm = normalise_text(answer, fold=False)
    before = re.split(r"[.;!?\n(]", norm[:value.start])[-1].lower()
    after = re.split(r"[.;!?\n,)]", norm[value.end:])[0].lower()
    words = [w for w in re.findall(r"[a-z]+(?:/[a-z]+)?", before) if w not in _LABEL_STOP and len(w) >= 3]
    first = re.findall(r"[a-z%]+", after)[:1]  # only a word right after the value names it ("4.15 expected")
    nxt = [w for w in first if w not in _LABEL_STOP and len(w) >= 3]
    lead = words[-2:] if words and "/" in words[-1] else words[-1:]  # "trailing P/E 33.57": P/E names it alone
    return set(lead) | set(nxt)


def _clause_words(value: Value, answer: str) -> set[str]:
    """The content words of the clause of the answer a value sits in."""
    norm = normalise_text(answer, fold=False)
    before = re.split(r"[.;!?\n]", norm[:value.start])[-1]
    after = re.split(r"[.;!?\n]", norm[value.end:])[0]
    return {w for w in re.findall(r"[a-z]+", f"{before} {after}".lower()) if len(w) >= 3 and w not in _LABEL_STOP}


def whole_field(value: Value, docs: list[Any]) -> bool:
    """Whether a name is (nearly) the whole of some result field: a person, a company, a station."""
    want = normalise_text(str(value.value))
    for doc in docs:
        for _path, leaf in leaves(doc):
            if isinstance(leaf, str):
                norm = normalise_text(leaf)
                if norm == want or (want in norm and len(norm) <= len(want) + 24 and grounded_in(value, leaf)
                                    and len(norm.split()) <= len(want.split()) + 3):
                    return True
    return False


def _record_words(value: Value, answer: str, docs: list[Any]) -> set[str]:
    """Short text fields of the result record holding a value that the answer also states (a row's name)."""
    out: set[str] = set()
    norm_answer = normalise_text(answer)
    for doc in docs:
        for record in _records(doc):
            fields = list(record.values())
            if not any(_same(f, value) for f in fields):
                continue
            for f in fields:
                if isinstance(f, str) and 3 <= len(f) <= 40 and not _same(f, value):
                    for text in (normalise_text(f), _short_name(f)):
                        if text and word_in(text, norm_answer):
                            out.add(text)
    return out


def _short_name(field: str) -> str | None:
    """The first word of a record's name as answers shorten it ("NVIDIA" for "NVIDIA Corporation"), where it is
    a capitalised word of its own; None otherwise."""
    words = field.split()
    if len(words) < 2 or not re.fullmatch(r"[A-Z][A-Za-z]{3,}", words[0]):
        return None
    return normalise_text(words[0])


def _same(field_value: Any, value: Value) -> bool:
    if isinstance(field_value, bool) or not isinstance(field_value, int | float | str):
        return False
    if value.kind == "number":
        return values_equal(field_value, value.value)
    return isinstance(field_value, str) and len(field_value) <= 80 and grounded_in(value, field_value)


def _swappable(group: list[Value], docs: list[Any]) -> list[Value]:
    """The values of a group that sit side by side as fields of one result record (and so can be swapped)."""
    out: list[Value] = []
    for doc in docs:
        for record in _records(doc):
            fields = [leaf for leaf in record.values() if isinstance(leaf, int | float | str)
                      and not isinstance(leaf, bool)]
            here = [v for v in group if any(
                values_equal(f, v.value) if v.kind == "number" else isinstance(f, str) and grounded_in(v, f)
                for f in fields)]
            if len(here) >= 2:
                out += [v for v in here if v not in out]
    by_key: dict[tuple[str, ...], list[Value]] = {}
    for v in group:
        for doc in docs:
            for path, leaf in leaves(doc):
                if path and _same(leaf, v):
                    by_key.setdefault(path, [])
                    if v not in by_key[path]:
                        by_key[path].append(v)
    for values in by_key.values():
        if len(values) >= 2:
            out += [v for v in values if v not in out]
    return out


def _records(doc: Any) -> list[dict[str, Any]]:
    if isinstance(doc, dict):
        return [doc, *(r for v in doc.values() for r in _records(v))]
    if isinstance(doc, list):
        return [r for v in doc for r in _records(v)]
    return []


def _stem(word: str) -> str:
    return word if len(word) <= 5 else word[:max(5, len(word) - 3)]


def _prose_swappable(group: list[Value], answer: str, read_results: list[str], docs: list[Any]) -> list[Value]:
    """The values of a group, each with a unit, that one passage of running text in a result states beside
    another of its quantity ("an error of 4.1 minutes ... 6.8 minutes for the rule"): a swap reads as well."""
    texts = [r for r in read_results if parse_json(r) is None]
    texts += [leaf for d in docs for _path, leaf in leaves(d) if isinstance(leaf, str) and len(leaf) > 80]
    units = {v: tuple(quantity_names(u)) for v in group if (u := _unit_in(answer, v.value)) is not None}
    out: list[Value] = []
    for text in texts:
        here = [v for v in group if v in units and grounded_in(v, text)]
        out += [v for v in here if v not in out and sum(units[w] == units[v] for w in here) >= 2]
    return out


_SENTENCE_CUT = re.compile(r"[.;!?](?=\s|$)|\n")


def _segment_words(value: Value, group: list[Value], answer: str) -> set[str]:
    """The content words that lead up to a value in its sentence, from the group's value before it (or the
    sentence's start); the group's last value in the sentence also takes the words after it to the end."""
    norm = normalise_text(answer, fold=False)
    start = max([m.end() for m in _SENTENCE_CUT.finditer(norm, 0, value.start)], default=0)
    start = max([start, *(v.end for v in group if v.end <= value.start)])
    end = next((m.start() for m in _SENTENCE_CUT.finditer(norm, value.end)), len(norm))
    later = [v.start for v in group if value.end <= v.start < end]
    text = norm[start:value.start] + (" " if later else " " + norm[value.end:end])
    return {w for w in re.findall(r"[a-z]+", text.lower())
            if len(w) >= 3 and w not in _LABEL_STOP and not quantity_names(w)}


_SOURCE_CODE = re.compile(r"[A-Z][A-Z0-9.\-]{1,9}")


def _source_codes(value: Value, docs: list[Any]) -> set[str]:
    """The symbol of the one result a value comes from ("AAPL" for a figure of AAPL's earnings): a correct
    answer may label the figure by it rather than by the name the explorer used ("Apple")."""
    sources = [doc for doc in docs if isinstance(doc, dict) and any(_same(leaf, value) for _p, leaf in leaves(doc))]
    if len(sources) != 1:
        return set()
    return {f.casefold() for f in sources[0].values() if isinstance(f, str) and _SOURCE_CODE.fullmatch(f)}


def _bound_facts(group: list[Value], answer: str, docs: list[Any], wide: bool = False) -> list[Fact] | None:
    """Label-bound facts for values that could be swapped; None when they have no distinct labels.

    ``wide``: a value's labels also take the words leading up to it in its sentence (values read in prose).
    """
    labels = []
    for v in group:
        words = _keys_of(v, docs)[0] | _context(v, answer) | (_segment_words(v, group, answer) if wide else set())
        words = {w for w in words if len(w) >= 3 and w not in _LABEL_STOP}
        labels.append({x for w in words for x in [_stem(w), *_SYNONYMS.get(w, [])]} | _record_words(v, answer, docs)
                      | _source_codes(v, docs))
    distinct = []
    for i, mine in enumerate(labels):
        others = set().union(*(labels[j] for j in range(len(labels)) if j != i))
        own = sorted(w for w in mine if not any(w in o or (o in w and not _phrase_around(o, w)) for o in others))
        if not own:
            return None
        distinct.append(own)
    facts = [_to_whole(Fact(label=own, value=v.value)) if _rounded_whole(v) else Fact(label=own, value=v.value)
             for own, v in zip(distinct, group, strict=True)]
    return facts if all(f.stated for f in check_facts(answer, facts)) else None


def _phrase_around(word: str, phrase: str) -> bool:
    """Whether a phrase holds a shared word as a whole word beside words of its own ("reported eps" around
    "eps"): the phrase still names one fact alone."""
    return " " in phrase and word in phrase.split()


def _name_options(value: Value, names_elsewhere: set[str]) -> list[Any] | Any:
    """A name, or also its first or last word where that alone still picks it out (Priya, Hongqiao)."""
    words = str(value.value).split()
    if len(words) == 1:
        return value.value
    options: list[Any] = [value.value]
    if len(words) >= 4:  # a title: also the names and codes inside it ("Helio Analytics", "INV-2291")
        options += [v.value for v in values_in(str(value.value)) if v.kind == "code"
                    or (v.kind == "name" and len(str(v.value).split()) >= 2 and v.value != value.value)]
    for word in (words[0], words[-1]) if len(words) < 4 else [w for w in words[:1] if re.search(r"\w-\w", w)]:
        if len(word) >= 4 and not any(word.casefold() in {w.casefold() for w in n.split()}
                                      and n.casefold() != str(value.value).casefold() for n in names_elsewhere):
            options.append(word)
    return list(dict.fromkeys(options)) if len(options) > 1 else value.value


MAX_ABSENT = 12
_COUNT_KEYS = {"n", "count", "num", "number", "observations", "obs", "size", "length", "samples", "points", "rows",
               "items", "results", "total"}
_ASKS_DAY = re.compile(r"(?i)\b(?:what|which) (?:day|date)\b|\bday of the week\b|\bweekday\b|"
                       r"\bwhat(?:'s| is) the date\b")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_RANGE_END = re.compile(r"\d[:.h]?\d*\s?(?:[-\u2013]|to|until|till)\s?$")


def _quote_around(value: Value, answer: str) -> Value:
    """The quoted title a name sits in ("Long Documents" in "Sparse Routing ... in Long Documents"), or the name."""
    return next((q for q in quoted_spans(answer) if q.start <= value.start and value.end <= q.end), value)


def _subject_of_request(value: Value, wanted: set[str]) -> bool:
    """Whether a name (a title) is what the request already describes: most of its content words are the
    request's ("the study that predicts geyser eruptions" for "Predicting Geyser Eruption Intervals")."""
    words = goal_words(str(value.value))
    return len(words) >= 3 and sum(_names_goal({w}, wanted) for w in words) * 2 >= len(words)


_ASKS_PLACE = re.compile(r"(?i)\b(?:station|stations|stop|terminal|airport|where|which)\b")


def _elaborates_given_place(value: Value, asked: str) -> bool:
    """Whether a name only specifies a place the goal already gave ("Shanghai Hongqiao" for "from Shanghai"):
    the goal named the place, so which station or quarter of it is a detail, unless the goal asks where."""
    words = str(value.value).split()
    if len(words) < 2 or _ASKS_PLACE.search(asked):
        return False
    norm = normalise_text(asked)

    def said(word: str) -> bool:
        return word_in(normalise_text(word), norm)

    return said(words[0]) and not any(said(w) for w in words[1:])


def _aside(value: Value, answer: str) -> bool:
    """Whether a value sits inside parentheses of the answer: a supporting detail, not what was asked."""
    norm = normalise_text(answer, fold=False)
    before = norm[:value.start]
    return before.count("(") > before.count(")") and ")" in norm[value.end:]


def _goal_dates(goal: str, today: date | None) -> set[str]:
    """The dates the goal itself names by a relative word: today, tomorrow, yesterday, a weekday near today."""
    if today is None:
        return set()
    words = set(re.findall(r"[a-z]+", goal.casefold()))
    out = {today.isoformat()}
    for word, shift in (("tomorrow", 1), ("yesterday", -1)):
        if word in words:
            out.add((today + timedelta(days=shift)).isoformat())
    for i, name in enumerate(_WEEKDAYS):
        if name in words:
            ahead = (i - today.weekday()) % 7
            out |= {(today + timedelta(days=d)).isoformat() for d in (ahead, ahead + 7, ahead - 7)}
    return out


_ISO = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?$")


def given_by_goal(value: Any, goal: str, today: date | None) -> bool:
    """Whether an ISO date or date-time is what the goal says in its own words ("Friday at 15:00")."""
    m = _ISO.match(value.strip()) if isinstance(value, str) else None
    if m is None or not (m.group(1) in _goal_dates(goal, today) or states(goal, m.group(1))):
        return False
    return m.group(2) is None or states(goal, m.group(2))


def _incidental(value: Value, answer: str, goal: str, today: date | None) -> bool:
    """A value a correct answer may leave out: a weekday or date the goal already fixed, a range's end time,
    or a number written only as a magnitude word ("USD millions")."""
    asks_day = bool(_ASKS_DAY.search(goal))
    if value.kind == "weekday":
        return not asks_day
    if value.kind == "date":
        return not asks_day and (value.value in _goal_dates(goal, today) or _as_of(value, answer, goal))
    if value.kind == "time":
        return bool(_RANGE_END.search(normalise_text(answer, fold=False)[max(0, value.start - 12):value.start]))
    if value.kind == "number":
        if isinstance(value.value, int | float) and value.value in {1000, 10**6, 10**9, 10**12}:
            return scale_word(value, answer)  # "per thousand"
        return not re.search(r"\d", value.text)
    return False


_NEAR_DIGIT = re.compile(r"\d")


def _weekday_of_text(value: Value, answer: str, read_results: list[str]) -> bool:
    """Whether a weekday is what a result says in words ("on Wednesday afternoon" in a message), not the name
    of a date the answer gives beside it ("Friday 17 April"): then which day is content, and another is wrong."""
    if value.kind != "weekday":
        return False
    norm = normalise_text(answer, fold=False)
    near = norm[max(0, value.start - 12):value.start] + " " + norm[value.end:value.end + 12]
    return not _NEAR_DIGIT.search(near) and any(parse_json(r) is None or not re.search(
        r'"\w*(?:day|date)\w*"\s*:\s*"' + re.escape(str(value.value)), r, re.IGNORECASE) for r in read_results
        if grounded_in(value, r))


_AS_OF = re.compile(r"(?i)\bas (?:of|at)\b[^.;:!?\n]{0,40}$")
_ASKS_WHEN = re.compile(r"(?i)\bwhen\b|\bdates?\b|\bas (?:of|at)\b|\bhow (?:old|recent)\b|\bupdated\b")


def _as_of(value: Value, answer: str, asked: str) -> bool:
    """Whether a date only says when a figure held ("79 citations, as of 2025-12-09"): a qualifier of the
    figure, not asked unless the request asks when."""
    norm = normalise_text(answer, fold=False)
    return bool(_AS_OF.search(norm[max(0, value.start - 60):value.start])) and not _ASKS_WHEN.search(asked)


def _the_clock(value: Value, asked: str, now: datetime | None) -> bool:
    """Whether a time is the task's own present ("it's 09:00 now"): where the counting starts, not a result,
    unless the goal asks what time it is."""
    return value.kind == "time" and now is not None and value.value == now.strftime("%H:%M") and \
        not re.search(r"(?i)\bwhat time\b|\btime is it\b", asked)


_ASSIGNED = re.compile(r"(?<![\w.])([A-Za-z][\w]{0,15})\s*(?:=|:)\s*[-\u2212]?$")


def assigned_label(value: Value, answer: str, goal: str) -> str | None:
    """The name a value is assigned to in the answer ("x = 1", "P_inv: 0.7") when the goal names it too."""
    m = _ASSIGNED.search(normalise_text(answer, fold=False)[max(0, value.start - 20):value.start])
    if m is None:
        return None
    name = m.group(1)
    if len(name) > 3 and "_" not in name and not any(ch.isdigit() for ch in name):
        return None  # a word ("Charger: 500 g") labels a value; only a symbol (x, P_inv) is assigned one
    if unit_key(name) is not None:
        return None  # "375 °F = 190.6 °C": a unit, not an unknown
    return name if word_in(name, goal) else None


def _listed_titles(answer: str, goal: str, docs: list[Any], named: list[Value]) -> list[Value]:
    """Items the answer lists by their titles in quotes, each the whole of a result field ("which tasks ...").

    Taken when the goal asks which items, or the answer quotes two or more: leaving one out is a wrong list.
    """
    titles = [v for v in quoted_spans(answer) if len(str(v.value)) >= 6 and whole_field(v, docs)
              and not grounded_in(v, goal) and not any(n.start <= v.start < n.end or v.start <= n.start < v.end
                                                       for n in named if n.kind != "name")]
    if len(titles) >= 2 or (titles and re.search(r"(?i)\bwhich\b", goal)):
        return [v for v in titles if v.key not in {n.key for n in named}]
    return []


def answer_values(answer: str, goal: str, prompt: str, read_results: list[str], year: int | None,
                  fallback: bool = True, today: date | None = None, now: datetime | None = None,
                  written: tuple[str, ...] = ()) -> list[Value]:
    """The answer's values a careful reviewer would insist on.

    A value counts when a read result grounds it, the goal did not already give it, and it is
    what the goal asks about: a word naming it (its field in the results, or the words around
    it in the answer) is a content word of the goal; or it is a path (where something is).
    Supporting details are left out: values in parentheses (unless every value named is one and no write is checked),
    weekdays and dates the goal fixed itself, the end of a time range, magnitude words.
    When no value is named so and ``fallback``, the values of the first sentence that states any
    are taken.
    """
    docs = [d for d in (parse_json(r) for r in read_results) if d is not None]
    wanted = goal_words(goal, prompt)
    grounded: list[Value] = []
    asked = f"{goal}\n{prompt}"
    for value in values_in(answer, year=year, small=True):
        given = (grounded_in(value, goal) or grounded_in(value, prompt)) and not (
            value.kind == "number" and assigned_label(value, answer, asked))  # x = 1 where the goal has "= 1"
        if given or _incidental(value, answer, asked, today) or _the_clock(value, asked, now):
            continue
        precise = precise_number(value, read_results) if value.kind == "number" else value.value
        if precise == value.value and value.kind == "number":
            precise = _whole_in_unit_asked(value, answer, asked, docs)
        if precise == value.value and not any(grounded_in(value, r) for r in read_results):
            continue  # neither stated by a result nor a rounding of one ("-2.286" for -2.2865)
        if value.kind == "number":
            value = Value(value.kind, precise, value.start, value.end, value.text)
        if value.key not in {v.key for v in grounded} or assigned_label(value, answer, asked):
            grounded.append(value)
    grounded = [v for v in grounded if not (v.kind == "path" and _named_file(str(v.value), asked))]  # "download
    named = []  # 2503.08812": where the tool put the file is a detail left free
    asks_who = bool(re.search(r"(?i)\bwho(?:m|se|'s)?\b", asked))
    asks_name = bool(re.search(r"(?i)\bwhich\b|\b(?:title|name|called)\b", asked))
    for v in grounded:
        if v.kind == "number" and assigned_label(v, answer, goal):
            named.append(v)  # "x = 1" for the x the goal asks about
            continue
        keys, structured = _keys_of(v, docs)
        if v.kind == "name" and not whole_field(v, docs):
            continue  # a capitalised phrase inside running text (a title, a heading) is not an item
        if v.kind == "name" and _elaborates_given_place(v, asked):
            continue  # "Shanghai Hongqiao" for the Shanghai the goal gave: which station, not asked
        if v.kind == "name" and not asks_name and _subject_of_request(_quote_around(v, answer), wanted):
            continue  # the paper the request describes in its own words: found, not asked for
        if v.kind == "name" and asks_who and len(str(v.value).split()) >= 2 and _names_goal(_clause_words(v, answer),
                                                                                          wanted):
            named.append(v)  # "who is reviewing it": the person the clause saying "reviewing" names
            continue
        if v.kind == "number" and v.value in range(-9, 10) and not (structured and _names_goal(keys, wanted)):
            continue  # a small count only when its own field is what the goal asks
        if v.kind == "number" and isinstance(v.value, int) and structured and keys <= _COUNT_KEYS and \
                not re.search(r"(?i)\bhow many\b|\bnumber of\b|\bcount\b", asked) and not keys & how_asks(asked):
            continue  # how many observations a statistic rests on ("13 weekly closes"): not what was asked
        if v.kind == "number" and (unit := _unit_of(answer, v)) is not None and _asks_in_unit(asked, unit):
            named.append(v)  # "convert 8 oz to g": every figure in grams is what was asked
            continue
        if v.kind == "number" and _another_weather_quantity(keys, asked):
            continue  # "will I need an umbrella?": the day's high beside the chance of rain is not asked
        if v.kind == "path" or _names_goal(keys | _context(v, answer) | ({"day"} if v.kind == "weekday" else set()),
                                           wanted):
            named.append(v)
    titles = [t for t in _listed_titles(answer, goal, docs, named) if not any(grounded_in(t, w) for w in written)]
    named = [n for n in named if not any(t.start <= n.start and n.end <= t.end for t in titles)] + titles
    main = [v for v in named if not _aside(v, answer)]
    if main:
        return main
    if not fallback:  # the writes are checked: what the confirmation adds in parentheses is a detail of it
        return []
    if not grounded:
        return named
    grounded = [v for v in grounded if not _aside(v, answer)] or grounded  # what the answer says outside asides
    grounded = [v for v in grounded if not (v.kind == "number" and v.value in range(-9, 10))] or grounded
    norm = normalise_text(answer, fold=False)
    first_end = next((m.start() for m in re.finditer(r"[.!?](?:\s|$)|\n", norm) if m.start() >= grounded[0].end),
                     len(norm))
    first = [v for v in grounded if v.start <= first_end]
    tied = [v for v in first if _names_goal(_context(v, answer), wanted)]
    if tied and _ASKS_ONE.search(asked):
        return tied  # "which chipmaker lagged?": the one the answer says lagged, not those it sets beside it
    items = _list_lines(norm)
    if any(s <= grounded[0].start < e for s, e in items):  # a list of items, each with its figure: every item's
        return [v for v in grounded if v.start <= first_end or
                (v.kind == "number" and any(s <= v.start < e for s, e in items))]
    return [v for v in first if v in tied or v.kind not in {"number", "time"} or _keys_of(v, docs)[0]] or first


_CONNECTORS = re.compile(r"\s+(?:[a-z]+\s+){1,3}")


def _title_parts(names: list[Value], answer: str, read_results: list[str]) -> list[list[Value]]:
    """Names that are parts of one longer title a result holds ("Sparse Routing" for "Efficient Attention"
    in "Long Documents"), joined only by small lower-case words in the answer: groups of two or more."""
    norm = normalise_text(answer, fold=False)
    groups: list[list[Value]] = []
    for v in sorted(names, key=lambda n: n.start):
        last = groups[-1][-1] if groups else None
        if last is not None and _CONNECTORS.fullmatch(norm[last.end:v.start]) and any(
                grounded_in(Value("name", norm[groups[-1][0].start:v.end], 0, 0, ""), r) for r in read_results):
            groups[-1].append(v)
        else:
            groups.append([v])
    return [g for g in groups if len(g) >= 2]


_SCALES = (10**3, 10**6, 10**9)


def _stated_scale(answer: str, year: int | None) -> int | None:
    """The scale an answer gives its figures in once, as a word of its own ("USD millions:", "in thousands")."""
    for v in values_in(answer, year=year, small=True):
        if v.value in _SCALES and scale_word(v, answer):
            return int(v.value)
    return None


def _in_scales(value: Any, scale: int) -> Any:
    """A figure given in a scale (9,959.2 in millions), also as written out in full or in the next scales up and
    down (9.96 billion, 9959200000): the same amount, however a correct answer scales it."""
    if isinstance(value, bool) or not isinstance(value, int | float) or abs(value) < 100:
        return value
    full = value * scale
    return [value, *(round(full / s, 6) for s in (1, *_SCALES) if s != scale)]


_PERIOD_START = re.compile(r"(?i)\b(?:week|month)\s+(?:of|beginning|starting|from)\s+(?:the\s+)?$")


def _date_options(value: Value, answer: str, today: date | None, asked: str) -> Any:
    """A date as a correct answer may state it; one that only opens a period ("the week of 13 April 2021", a
    weekly bar) also by its month ("April 2021"), which another bar size dates it by."""
    options = day_options(value.value, today, asked)
    if not _PERIOD_START.search(normalise_text(answer, fold=False)[max(0, value.start - 30):value.start]):
        return options
    day = date.fromisoformat(str(value.value))
    month = _MONTH_NAMES[day.month - 1]
    return list(dict.fromkeys([*_as_options(options), f"{month} {day.year}", f"{month[:3]} {day.year}"]))


_PERIOD = re.compile(r"^(?:fy\s?)?(\d{4})(?:[-\s]?q([1-4]))?$|^q([1-4])[-\s]?(\d{4})$")
_ASKS_LATEST = re.compile(r"(?i)\b(?:latest|most recent|last|current)\s+(?:fiscal\s+|financial\s+|reported\s+)?"
                          r"(?:year|quarter|period|fy)\b|\blast year\b")


def _period(labels: list[Any]) -> tuple[int, int] | None:
    """The period a fact's labels (or a code) name (fy2024, 2025-q3, q3 2025), as (year, quarter)."""
    for label in labels:
        if isinstance(label, str) and (m := _PERIOD.match(label.strip().lower())) is not None:
            return (int(m.group(1)), int(m.group(2) or 0)) if m.group(1) else (int(m.group(4)), int(m.group(3)))
    return None


def _latest_period(facts: list[Fact], contains: list[Any], asked: str) -> tuple[list[Fact], list[Any]]:
    """Where the request asks for the latest period ("net income last year") and the answer gives a figure for
    each of several periods, the latest period's figures and name: the earlier ones are context, not asked."""
    periods = [_period(f.labels) for f in facts]
    dated = [p for p in periods if p is not None]
    if len(dated) < 2 or not _ASKS_LATEST.search(asked):
        return facts, contains
    latest = max(dated)
    return ([f for f, p in zip(facts, periods, strict=True) if p is None or p == latest],
            [c for c in contains if (p := _period(_as_options(c))) is None or p == latest])


def _period_options(code: str) -> list[str] | None:
    """A code of a fiscal period as a correct answer may write it: FY2025 also as "2025" ("fiscal 2025"),
    2025-Q4 also as "Q4 2025"; None for a code that names no period."""
    period = _period([code])
    if period is None or not re.search(r"(?i)fy|q", code):
        return None
    year, quarter = period
    if not quarter:
        return [code, str(year)]
    return list(dict.fromkeys([code, f"{year}-Q{quarter}", f"Q{quarter} {year}", f"{year} Q{quarter}",
                               f"Q{quarter}-{year}", f"Q{quarter} of {year}"]))


_ASKS_WHERE = re.compile(r"(?i)\b(?:where|path|location|folder|directory|saved?|file\s*name)\b")


def _named_file(path: str, asked: str) -> bool:
    """Whether the request already names the file a path holds (its specific name or stem: "download 2503.08812")
    and does not ask where it went: the path is then where a tool chose to put it, a detail left free."""
    options = _as_options(_path_options(path))[1:]
    norm = normalise_text(asked)
    return not _ASKS_WHERE.search(asked) and any(
        re.search(r"(?<![\w.])" + re.escape(normalise_text(o)) + r"(?![\w])", norm) for o in options)


_NONE_OF = re.compile(r"^\s*(?:%\s*)?(?:chance|probability|risk|likelihood)\s+of\s+([a-z]+)|^\s+([a-z]+s)\b")


def _zero_options(value: Value, answer: str) -> Any:
    """A figure; a zero also as "no" and what it counts ("0% chance of rain": "no rain", "0 errors": "no
    errors"), the way a correct answer says there is none."""
    if value.kind != "number" or value.value != 0:
        return value.value
    m = _NONE_OF.match(normalise_text(answer, fold=False)[value.end:].lower())
    return [value.value, f"no {m.group(1) or m.group(2)}"] if m else value.value


def _as_options(options: Any) -> list[Any]:
    return options if isinstance(options, list) else [options]


_PREPOSITIONS = {"over", "under", "into", "onto", "after", "before", "between", "across", "within", "through", "via",
                 "upon", "toward", "towards", "during", "since", "until"}
_MONTH_WORD = (r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
               r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b")
_LIST_ITEM = re.compile(r"(?m)^[ \t]*(?:[-*\u2022]|\d{1,2}[.)])[ \t]+(.*)$")


def _list_lines(norm: str) -> list[tuple[int, int]]:
    """The spans of the answer's list items (a line after a bullet or a number), without their markers."""
    return [(m.start(1), m.end(1)) for m in _LIST_ITEM.finditer(norm)]


def _item_facts(found: list[Value], answer: str, docs: list[Any]) -> list[tuple[Value, Fact]]:
    """The figure of each item of a list the answer gives ("- Glacier Retreat Mapping ...: area fell by 38%"),
    bound to the words that name the item (its line's lead, up to a colon, bracket or dash), so that a figure
    moved to another item fails. The first figure of each line; none when two items share their words."""
    norm = normalise_text(answer, fold=False)
    lines = [(s, e, [v for v in found if v.kind == "number" and s <= v.start < e]) for s, e in _list_lines(norm)]
    if len(lines) < 2 or not all(vs for _s, _e, vs in lines):
        return []  # an item without a figure of its own (one the list repeats): not a figure per item
    leads = []
    for s, _e, vs in lines:
        lead = re.split(r"[(:\u2014\u2013]| - ", norm[s:vs[0].start])[0]
        if any(v.kind in {"date", "weekday"} for v in values_in(lead)) or re.search(_MONTH_WORD, lead.lower()):
            return []  # items named by their day: written too many ways to bind to (the day rules check them)
        leads.append({_stem(w) for w in re.findall(r"[a-z]+", lead.lower())
                      if len(w) >= 3 and w not in _LABEL_STOP and w not in _PREPOSITIONS})
    facts = []
    for i, (_s, _e, vs) in enumerate(lines):
        others = set().union(*(leads[j] for j in range(len(leads)) if j != i))
        own = sorted(w for w in leads[i] if not any(w in o or o in w for o in others))
        if not own:
            return []
        facts.append((vs[0], Fact(label=own, value=vs[0].value)))
    return facts if all(f.stated for f in check_facts(answer, [f for _v, f in facts])) else []


_ITEM_MARK = re.compile(r"^\s*(?:(?:[-*\u2022+]|\d{1,2}[.)])\s+(?:\[[ xX]?\]\s*)?|\[[ xX]?\]\s*)(?:#\d+\s+)?")


def _quoted_items(answer: str, asked: str, read_results: list[str], docs: list[Any]) -> list[str]:
    """The items of a list in a result's text (a to-do line, a bullet) that the answer quotes ('the first item is
    "Prepare board pack"'): quoting it says that is what the list holds, so another item in its place is wrong.
    An item holding a figure is left to the figure's check."""
    texts = [r for r in read_results if parse_json(r) is None]
    texts += [leaf for d in docs for _path, leaf in leaves(d) if isinstance(leaf, str) and "\n" in leaf]
    items = {normalise_text(line[mark.end():]).strip(" .") for t in texts for line in t.splitlines()
             if (mark := _ITEM_MARK.match(line)) is not None}
    out: list[str] = []
    for q in quoted_spans(answer):
        text = str(q.value).strip(" .")
        if re.search(r"\d", text):
            continue  # "Travel: 42,000 EUR": a line that holds a figure is checked by its figure, however written
        if len(text.split()) >= 2 and normalise_text(text) in items and not grounded_in(q, asked) and text not in out:
            out.append(text)
    return out


def _role_facts(names: list[Value], answer: str, docs: list[Any]) -> list[tuple[Value, Fact]]:
    """Names the answer gives, each with the role its result record gives it ("Dana Whitfield leads it, Tomas Kral
    works on it" for relations of type leads / works_on): when two or more records of one list differ only in that
    word and the answer says each one's word in the name's clause, each name is bound to its word, so that a swap
    of who does what fails. None when any of them is not said so."""
    for doc in docs:
        for _path, records in _record_lists(doc):
            for name_key in {k for r in records for k in r}:
                picked = [(v, r) for v in names for r in records if isinstance(r.get(name_key), str)
                          and normalise_text(str(r[name_key])) == normalise_text(str(v.value))]
                if len({id(r) for _v, r in picked}) < 2 or len({v.key for v, _r in picked}) < len(picked):
                    continue
                for role_key in {k for _v, r in picked for k in r if k != name_key}:
                    roles = [r.get(role_key) for _v, r in picked]
                    if not all(isinstance(x, str) and re.fullmatch(r"[a-z]+(?:[_ ][a-z]+){0,2}", x) for x in roles) \
                            or len(set(roles)) < len(roles):
                        continue
                    out = []
                    for (v, _r), role in zip(picked, roles, strict=True):
                        forms = list(dict.fromkeys([str(role).replace("_", " "), str(role)]))
                        norm = normalise_text(answer)
                        start = max((m.end() for m in _SENTENCE_CUT.finditer(norm, 0, v.start)), default=0)
                        end = next((m.start() for m in _SENTENCE_CUT.finditer(norm, v.end)), len(norm))
                        if not word_in(forms[0], norm[start:end]):
                            break
                        out.append((v, Fact(label=forms, value=v.value)))
                    else:
                        return out
    return []


_TITLE_TEXT = re.compile(r"[A-Za-z][A-Za-z'&-]*(?:[ :][ ]?[A-Za-z][A-Za-z'&-]*){1,5}")
_ASKS_SET = re.compile(r"(?i)\b(?:list|lists|listing|enumerate|all|every|each|how many|number of|which|"
                       r"top\s+(?:\d+|two|three|four|five|six|seven|eight|nine|ten))\b|"
                       r"\b(?:what|who)\b[^.?!\n]{0,40}?\b(?:are|were|have|remain)\b|"
                       r"\b(?:report|tell me|show|summari[sz]e)\s+(?:me\s+)?what\b|"
                       r"\b(?:get|give|show|find|fetch)\s+(?:me\s+)?(?:the|its|their)\s+(?:[a-z-]+\s+)?[a-z]+s\s+of\b")
"""A request after a set of items ("list the events", "which tasks", "what are the stations", "the top 3",
"report what needs attention", "get the stops of G1371"), not after one figure of one item ("what is my next
meeting?", "report the alerts' count")."""


def _listed_records(answer: str, asked: str, docs: list[Any], written: tuple[str, ...] = ()) -> list[list[str]]:
    """Records of one result list that the answer enumerates by a field of several words, written as the result
    writes it ("team standup, budget sync with Maya and ..." for today's events): two or more of one field's values
    named in one sentence or list say which records it reports, so each must be named (by the field, by it without
    the words every record's field has, or by a word of it no other record's field has). A value the request gives
    names no record; nor one said only in parentheses (an aside), or in a sentence of its own (a contrast: "Only
    Apgar is open all year. Logan Pass is seasonal"). A list that holds what the trace itself wrote is read back
    to confirm the write, which the state check covers: its other items are a detail. Only where the request
    asks for a set of items: else the other records the answer names are context (the origin of a train whose
    arrival was asked), not what it reports."""
    if not _ASKS_SET.search(asked):
        return []
    norm = normalise_text(answer)
    norm_asked = normalise_text(asked)
    mine = {normalise_text(w) for w in written}
    lines = _list_lines(norm)
    out: list[list[str]] = []

    def where(start: int) -> tuple[int, int]:
        """The sentence a mention sits in; all the answer's list lines count as one."""
        if any(s <= start < e for s, e in lines):
            return -1, -1
        return (max((m.end() for m in _SENTENCE_CUT.finditer(norm, 0, start)), default=0),
                next((m.start() for m in _SENTENCE_CUT.finditer(norm, start)), len(norm)))

    for doc in docs:
        for _path, records in _record_lists(doc):
            if any(isinstance(f, str) and normalise_text(f) in mine for r in records for f in r.values()):
                continue
            for key in dict.fromkeys(k for r in records for k in r):
                column: list[str] = list(dict.fromkeys(f for r in records if isinstance(f := r.get(key), str)))
                fields = [f for f in column if len(f) <= 60 and _TITLE_TEXT.fullmatch(f.strip())]
                spots = {f: [where(m.start()) for m in word_matches(normalise_text(f), norm)
                             if not _aside(Value("name", f, m.start(), m.end(), m.group()), answer)]
                    for f in fields if normalise_text(f) not in norm_asked}
                said = [f for f, at in spots.items() if any(
                    a in spots[g] for g in spots if g != f for a in at)]
                if len(said) < 2 or len(column) < 2:
                    continue
                common = set.intersection(*(set(re.findall(r"[a-z]+", g.lower())) for g in column))
                for f in said:
                    others = {w for g in column if g != f for w in re.findall(r"[a-z]+", g.lower())}
                    own = [w for w in re.findall(r"[a-z]+", f.lower()) if len(w) >= 5 and w not in others
                           and w not in _LABEL_STOP]
                    bare = " ".join(w for w in f.split() if w.lower() not in common)
                    item = list(dict.fromkeys([f, *([bare] if bare else []), *own]))
                    if item not in out:
                        out.append(item)
    return out


def _field_named(value: Any, asked: str, docs: list[Any]) -> bool:
    """Whether a whole number is the value of a result field the request names by its key ("report
    area_acres"): that exact figure is what was asked, and a rounding ("1.2 million") is not it."""
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    keys = {path[-1] for doc in docs for path, leaf in leaves(doc)
            if path and isinstance(path[-1], str) and "_" in path[-1] and not isinstance(leaf, bool)
            and isinstance(leaf, int | float) and values_equal(leaf, value)}
    return any(word_in(k, asked) for k in keys)


_WEATHER_QUANTITIES = ({"rain", "raining", "rainy", "precipitation", "precip", "umbrella", "shower", "showers", "wet",
                        "snow", "snowing"},
                       {"temperature", "temp", "high", "low", "max", "min", "warm", "cold", "hot", "cool", "degrees",
                        "highs", "lows", "warmest", "coldest", "coolest"},
                       {"wind", "windy", "gust", "gusts", "breeze"})


_PLAIN_WORDS = {"high", "low", "max", "min"}


def _another_weather_quantity(keys: set[str], asked: str) -> bool:
    """Whether a figure's own result field is one weather quantity (a high) while the request names another and
    not this one ("the chance of rain", "will I need an umbrella"): read beside it, not asked. A request for
    the forecast or the weather as such names none, and then every quantity is asked."""
    words = set(re.findall(r"[a-z]+", asked.lower()))
    named = [q for q in _WEATHER_QUANTITIES if words & q - _PLAIN_WORDS]  # "a high-speed train" names no weather
    mine = [q for q in _WEATHER_QUANTITIES if keys & q]
    return bool(named) and len(mine) == 1 and mine[0] not in named and not keys & words


_HIGH_END = {"high", "highest", "max", "maximum", "warmest", "hottest", "warm", "hot", "peak"}
_LOW_END = {"low", "lowest", "min", "minimum", "coldest", "coolest", "cold", "cool"}


def _other_extreme(value: Value, asked: str, docs: list[Any]) -> bool:
    """Whether a value's own result field is one end of a range (a high) while the request names only the
    other end ("report the low", "how cold will it get"): given beside what was asked, not asked itself."""
    keys = _keys_of(value, docs)[0]
    words = set(re.findall(r"[a-z]+", asked.lower()))
    return any(keys & mine and not keys & other and words & other and not words & mine
               for mine, other in ((_HIGH_END, _LOW_END), (_LOW_END, _HIGH_END)))


def _measured(fact: Fact, unit: str | None) -> Fact:
    """A fact with the unit the explorer gave it, which a measurement may be rounded to ("311 km" for 311.3 km)."""
    return _to_whole(fact.model_copy(update={"unit": unit})) if unit is not None else fact


def _whole_options(value: Any) -> Any:
    """A measurement of 10 or more, also as its whole rounding ("355" for 354.882 ml)."""
    if isinstance(value, float) and abs(value) >= 10 and not value.is_integer():
        return [value, round(value)]
    return value


def _to_whole(fact: Fact) -> Fact:
    """A measurement of 10 or more that a correct answer may round to a whole number ("68 kg" for 68.04 kg)."""
    value = fact.values[0]
    whole = isinstance(value, float) and abs(value) >= 10
    return fact.model_copy(update={"tol": 0.5 if whole else fact.tol})


def _hours_and_minutes(value: Any, unit: str) -> list[str]:
    """A fractional number of hours as a correct answer may write it in hours and whole minutes ("46 hours
    35 minutes" for 46.5833 h); none for whole hours or a fraction that is no whole number of minutes."""
    if unit_key(unit) != "h" or isinstance(value, bool) or not isinstance(value, float) or value < 1:
        return []
    hours, minutes = int(value), (value - int(value)) * 60
    if abs(minutes - round(minutes)) > 0.05 or round(minutes) in {0, 60}:
        return []
    h, m = hours, round(minutes)
    return [f"{h} hours {m} minutes", f"{h} hours and {m} minutes", f"{h} hours, {m} minutes", f"{h} h {m} min",
            f"{h}h {m}m", f"{h}h {m}min", f"{h} hrs {m} mins", f"{h} hours {m} mins", f"{h} hours and {m} mins"]


def _names_a_unit(text: str, names: list[str]) -> bool:
    """Whether a text (the goal) names one of these units as the one it wants ("what's that in kg?", "convert
    to km/h"): the task is then about that unit itself. A unit that follows a figure of the goal ("response
    times of 212 ... 190 ms") only says what the data is measured in, and the answer may use another unit."""
    norm = normalise_text(text)
    return any(not re.search(r"\d\s*$", norm[:m.start()])
               for n in names if len(n) >= 2
               for m in word_matches(n, norm))


def _whole_in_unit_asked(value: Value, answer: str, asked: str, docs: list[Any]) -> Scalar:
    """The result figure a whole number in a unit the request asks for rounds ("8 oz = 227 g" for 226.796 g),
    where one result figure alone does; else the number as written."""
    if isinstance(value.value, bool) or not isinstance(value.value, int):
        return value.value
    unit = _unit_in(answer, value.value)
    if unit is None or not _asks_in_unit(asked, unit):
        return value.value
    near = {leaf for doc in docs for _path, leaf in leaves(doc) if isinstance(leaf, float)
            and not leaf.is_integer() and abs(leaf - value.value) < 0.5}
    return near.pop() if len(near) == 1 else value.value


def _unit_of(answer: str, value: Value) -> str | None:
    """The unit the explorer's answer names after this value, found where it is written ("907 g" for the 907.185
    a result gave) or, failing that, wherever the answer states the value."""
    unit = unit_after(normalise_text(answer), value.end)
    return unit if unit is not None and quantity_names(unit) else _unit_in(answer, value.value)


def _rounded_whole(value: Value) -> bool:
    """Whether the answer writes a precise figure as a whole number ("227" for 226.796)."""
    return (isinstance(value.value, float) and not value.value.is_integer()
            and re.fullmatch(r"-?[\d,]+", value.text.strip()) is not None)


_TO_UNIT = r"(?<![\w])(?:to|in|into)\s+(?:degrees\s+)?°?\s*"


def _asks_in_unit(asked: str, unit: str) -> bool:
    """Whether the request asks for figures in this unit ("convert 8 oz to g", "what's that in km/h?")."""
    key = unit_key(unit)
    names = [n for n in {unit, *quantity_names(unit)} if unit_key(n) == key]
    norm = normalise_text(asked)
    return _names_a_unit(asked, names) or any(re.search(_TO_UNIT + re.escape(normalise_text(n)) + r"(?![\w])", norm)
                                              for n in names)


def _path_options(path: str) -> list[str] | str:
    """A file path, or also its file name and that name's stem where those are specific (2306.02251)."""
    name = path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    options = [path, *(x for x in (name, stem) if x != path and len(x) >= 5 and re.search(r"\d|[-_]", x))]
    return list(dict.fromkeys(options)) if len(options) > 1 else path


def _unit_in(answer: str, value: Any) -> str | None:
    """The unit the explorer's answer names right after ``value`` ("311 km"), if it names one."""
    norm = normalise_text(answer)
    for m in find_in_normalised(norm, value):
        unit = unit_after(norm, m.end)
        if unit is not None and quantity_names(unit):
            return unit
    return None


_ASKS_ONE = re.compile(r"(?i)\b(?:which|what)\s+(?:one\b|[a-z]+(?<!s)\s+(?:is|was|did|does|has|had|will|[a-z]+ed)\b)|"
                      r"\bwho\s+(?:is|was|did|has|[a-z]+ed)\b")
"""A question after one item ("which chipmaker lagged?", "who wrote it?"), not after a list ("which papers")."""
_SELECTION = re.compile(r"(?i)\b(?:which|who(?:m|se|'s)?)\b")


def _unlisted(named: list[Value], answer: str, asked: str, docs: list[Any]) -> list[Scalar]:
    """The items a selection left out ("which tasks are due"): where the answer names two or more items of
    one result list by one field, that field of the list's other items is a claim it must not make."""
    if not _SELECTION.search(asked):
        return []
    norm_answer, norm_asked = normalise_text(answer), normalise_text(asked)
    out: list[Scalar] = []
    for doc in docs:
        for _path, records in _record_lists(doc):
            keys = {k for r in records for k, f in r.items() if isinstance(f, str)}
            for key in keys:
                column = [r.get(key) for r in records]
                picked = [f for f in column if isinstance(f, str) and any(_same(f, v) for v in named)]
                if len(picked) < 2 or len(picked) == len(column):
                    continue
                out += [f for f in column if isinstance(f, str) and f not in picked and 4 <= len(f) <= 80
                        and normalise_text(f) not in norm_answer and normalise_text(f) not in norm_asked
                        and f not in out]
    return out[:MAX_ABSENT]


def _record_lists(doc: Any, path: str = "$") -> list[tuple[str, list[dict[str, Any]]]]:
    if isinstance(doc, list):
        mine = [(path, doc)] if len(doc) >= 2 and all(isinstance(r, dict) for r in doc) else []
        return mine + [x for i, v in enumerate(doc) for x in _record_lists(v, f"{path}[{i}]")]
    if isinstance(doc, dict):
        return [x for k, v in doc.items() for x in _record_lists(v, f"{path}.{k}")]
    return []


def _with_weekdays(labels: list[str], today: date | None, asked: str) -> list[str]:
    """A fact's labels, a date among them also by its weekday where that names it alone ("Monday: 559.5")."""
    out = []
    for label in labels:
        options = day_options(label, today, asked)
        out += options if isinstance(options, list) else [options]
    return list(dict.fromkeys(out))


def _with_periods(labels: list[str]) -> list[str]:
    """A fact's labels, a fiscal period among them also as a correct answer may write it ("2025" for fy2025)."""
    return list(dict.fromkeys(x for label in labels for x in (_period_options(label) or [label])))


_CITATION_FIELD = re.compile(r"(?im)^\s*(title|author|year)\s*=\s*[{\"](.+?)[}\"]\s*,?\s*$")


def _citation_fields(answer: str, read_results: list[str]) -> list[Any]:
    """What identifies each citation entry the answer gives (BibTeX ``title = {...}``): its title, its authors'
    surnames and its year (a fact bound to "year": a cite key holds it too), where a result states them.
    Another paper's entry, or a wrong year, is a wrong answer."""
    out: list[Any] = []
    for m in _CITATION_FIELD.finditer(answer):
        field, text = m.group(1).lower(), re.sub(r"[{}]", "", m.group(2)).strip()
        if field == "year":
            wanted: list[Any] = [Fact(label=["year"], value=int(text))] if re.fullmatch(r"\d{4}", text) else []
        elif field == "title":
            wanted = [text]
        else:
            wanted = [(n.split(",")[0] if "," in n else n.split()[-1]).strip()
                      for n in re.split(r"\s+and\s+", text) if n.strip()]
        out += [w for w in wanted if w not in out and (isinstance(w, Fact) or len(w) >= 3)
                and any(states(r, w.values[0] if isinstance(w, Fact) else w) for r in read_results)]
    return out


_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                "November", "December")


def _months(answer: str, asked: str, read_results: list[str], year: int | None) -> list[list[str]]:
    """The months the answer names on their own ("most frequent from July to October"), not in a date, where a
    result names them and the clause is about what the request asks: a season read from a source."""
    norm = normalise_text(answer, fold=False)
    dates = [v for v in values_in(answer, year=year) if v.kind in {"date", "time"}]
    wanted = goal_words(asked)
    out: list[list[str]] = []
    for name in _MONTH_NAMES:
        for m in re.finditer(r"\b(" + name + "|" + name[:3] + r")\b", norm):
            probe = Value("name", name, m.start(), m.end(), m.group())
            if any(d.start <= m.start() < d.end + 3 or m.start() - 4 <= d.end <= m.start() for d in dates) or \
                    re.search(r"\d\s*$", norm[:m.start()]) or re.match(r"\s*\d", norm[m.end():]):
                continue  # part of a date ("16 April", "April 16")
            if re.search(r"(?i)\b" + name + r"\b", asked) or not any(
                    re.search(r"(?i)\b" + name + r"\b", r) for r in read_results):
                continue
            if not _aside(probe, answer) and _names_goal(_clause_words(probe, answer), wanted):
                out.append([name, name[:3]])
                break
    return out


def _asked_fields(value: Value, docs: list[Any], asked: str) -> list[str]:
    """The result fields holding a figure that the request asks for by name ("size" for "how big is the file"):
    a label besides its unit, so that a later "correction" of that quantity is read as withdrawing it."""
    keys, structured = _keys_of(value, docs)
    wanted = goal_words(asked)
    return sorted(k for k in keys if structured and len(k) >= 3 and _names_goal({k}, wanted))


_SUPERLATIVE_BEFORE = re.compile(r"(?i)\b(?:[a-z]+est|most\s+[a-z]+|least\s+[a-z]+)\s+(?:[a-z-]+\s+){1,2}"
                                 r"(?:in|of|on)\s+(?:the\s+)?$")


def _superlative_scope(value: Value, answer: str) -> bool:
    """Whether a name only bounds a superlative the answer quotes ("the smallest planet in the Solar System"):
    the ground the ranking covers, not an item the answer reports."""
    if value.kind != "name":
        return False
    norm = normalise_text(answer)
    return bool(_SUPERLATIVE_BEFORE.search(norm[max(0, value.start - 50):value.start]))


def answer_checkpoint(answer: str, goal: str, prompt: str, read_results: list[str],
                      year: int | None, fallback: bool = True, today: date | None = None,
                      now: datetime | None = None, written: tuple[str, ...] = ()) -> ValueCheckpoint | None:
    """The answer check: the values it must state, those that could be swapped bound to their labels."""
    found = answer_values(answer, goal, prompt, read_results, year, fallback, today, now, written)
    found = [v for v in found if not _superlative_scope(v, answer)] or found
    cited = [c for c in _citation_fields(answer, read_results)
             if not states(f"{goal}\n{prompt}", c.values[0] if isinstance(c, Fact) else c)]
    months = _months(answer, f"{goal}\n{prompt}", read_results, year)
    docs = [d for d in (parse_json(r) for r in read_results) if d is not None]
    items_quoted = _quoted_items(answer, f"{goal}\n{prompt}", read_results, docs)
    days = list(dict.fromkeys(v.value for v in values_in(answer, year=year) if _weekday_of_text(v, answer, read_results)
                              and not grounded_in(v, f"{goal}\n{prompt}") and not _aside(v, answer)))
    if not found and not cited and not months and not items_quoted and not days:
        return None
    names_elsewhere = {str(v.value) for r in read_results for v in values_in(r, year=year) if v.kind == "name"}
    contains: list[Any] = []
    facts: list[Fact] = []
    assigned = {v: label for v in found if v.kind == "number" and (label := assigned_label(v, answer, goal))}
    facts += [Fact(label=label, value=v.value) for v, label in assigned.items()]
    items = [] if assigned else _item_facts(found, answer, docs)
    facts += [f for _v, f in items]
    assigned.update({v: "" for v, _f in items})
    for kind in ("number", "time", "date"):  # dates are checked unbound: their labels (weekdays) vary too much
        group = [v for v in found if v.kind == kind and v not in assigned]
        swappable = _swappable(group, docs) if len(group) >= 2 else []
        if kind == "number":  # a distance and a price cannot be swapped: only values of one quantity can
            quantity = {v: tuple(quantity_names(_unit_of(answer, v) or "")) for v in swappable}
            swappable = [v for v in swappable if sum(q == quantity[v] for q in quantity.values()) >= 2]
        bound = _bound_facts(swappable, answer, docs) if len(swappable) >= 2 and kind != "date" else None
        unasked = [v for v in swappable if bound and _other_extreme(v, f"{goal}\n{prompt}", docs)]
        if bound and len(unasked) < len(swappable):  # "report the low": the high beside it is the other end of
            bound = [f for f, v in zip(bound, swappable, strict=True) if v not in unasked]  # it, not asked
        else:
            unasked = []
        prose = _prose_swappable(group, answer, read_results, docs) if kind == "number" and not bound else []
        if len(prose) >= 2:  # values read in a paper's text: bound to the words that lead up to each
            swappable = list(dict.fromkeys([*swappable, *prose]))
            bound = _bound_facts(swappable, answer, docs, wide=True)
        if bound:  # a bound value keeps its unit: "a low of 27.9 °F" states a low of -2.3 °C
            facts += [_measured(f, _unit_of(answer, v)) if kind == "number" else f
                      for f, v in zip(bound, [v for v in swappable if v not in unasked], strict=True)]
        for v in group:
            if (bound and v in swappable) or v in unasked:
                continue
            unit = _unit_of(answer, v) if kind == "number" else None
            if unit is not None and (clock := _hours_and_minutes(v.value, unit)):
                contains.append([v.value, *clock])  # 46.5833 h: "46 hours and 35 minutes" is the same span
            elif unit is not None:  # "21.3 °C": stated in any unit of its quantity, the unit named
                names = quantity_names(unit)
                in_unit_asked = _asks_in_unit(f"{goal}\n{prompt}", unit)
                if in_unit_asked and bound:  # beside figures bound to the items' words, a unit that follows
                    contains.append(_whole_options(v.value))  # its figure is no label
                elif in_unit_asked:  # "what's that in km/h": in that unit, no other
                    names = [n for n in names if unit_key(n) == unit_key(unit)]
                    facts.append(_to_whole(Fact(label=list(dict.fromkeys([unit, *names])), value=v.value)))
                else:
                    own = [*_asked_fields(v, docs, f"{goal}\n{prompt}"), *names, *([] if unit in names else [unit])]
                    facts.append(_measured(Fact(label=list(dict.fromkeys(own)), value=v.value), unit))
            else:
                contains.append(_date_options(v, answer, today, f"{goal}\n{prompt}") if kind == "date"
                                else _zero_options(v, answer))
    titles = _title_parts([v for v in found if v.kind == "name"], answer, read_results)
    fragments = {v for group in titles for v in group}
    roles = _role_facts([v for v in values_in(answer, year=year) if v.kind == "name" and v not in fragments],
                        answer, docs)
    facts += [f for _v, f in roles]
    for v in found:
        if v.kind == "code" and (period := _period_options(str(v.value))):
            contains.append(period)  # FY2025: also "fiscal 2025", "2025"; 2025-Q4: also "Q4 2025"
        elif v.kind in {"email", "code", "weekday"}:
            contains.append(v.value)
        elif v.kind == "path":
            contains.append(_path_options(str(v.value)))
        elif v.kind == "phone":
            contains.append(phone_options(str(v.value)))
        elif v.kind == "name" and v not in fragments and v.key not in {r.key for r, _f in roles}:
            contains.append(_name_options(v, names_elsewhere))
    for group in titles:  # a title split into names: any of its parts, or a word of its head, names it
        head = _as_options(_name_options(group[0], names_elsewhere))  # "the attention-sinks paper"
        contains.append(list(dict.fromkeys([*head, *(v.value for v in group[1:])])))
    asked = f"{goal}\n{prompt}"
    facts = [f.model_copy(update={"label": _with_periods(_with_weekdays(f.labels, today, asked))}) for f in facts]
    facts = [f.model_copy(update={"tol": 0.0}) if _field_named(f.values[0], asked, docs) else f for f in facts]
    facts, contains = _latest_period(facts, contains, asked)
    scale = _stated_scale(answer, year)
    if scale is not None:  # "USD millions: ... 9,959.2": also "$9.96 billion", "9959.2 million"
        contains = [_in_scales(x, scale) for x in contains]
        facts = [f if f.unit is not None else f.model_copy(update={"value": _in_scales(f.value, scale)})
                 for f in facts]
    absent = _unlisted([v for v in found if v.kind in {"name", "path", "email", "code"}], answer,
                       f"{goal}\n{prompt}", docs)
    contains += [c for c in cited if not isinstance(c, Fact) and c not in contains] + months
    contains += [d for d in days if d not in contains]
    contains += [r for r in _listed_records(answer, f"{goal}\n{prompt}", docs, written)
                 if not any(states(r[0], str(c)) for c in contains if not isinstance(c, list | Fact))]
    contains += [q for q in items_quoted
                 if not any(states(str(c), q) for c in contains if not isinstance(c, list | Fact))]
    facts += [c for c in cited if isinstance(c, Fact)]
    rates = rate_patterns(answer, [v.value for v in found if v.kind == "number"])  # "0.42 EUR per km", not per mile
    if not (contains or facts or absent or rates):
        return None
    return ValueCheckpoint(id="answer", source="final_message", contains=contains, facts=facts, absent=absent,
                           regex=rates, description="the answer states the values the tool results gave")
