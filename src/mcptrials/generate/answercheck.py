"""The answer check of a distilled task: which values of the explorer's answer a correct answer must state.

A value counts when a read result grounds it, the goal did not already give it, and the goal
asks about it (a word naming it, its JSON key or the word beside it in the answer, is a content
word of the goal). Values of one kind that sit side by side in a result (actual and estimated
EPS, the AQI of each city) are bound to distinct labels so that a swap fails.
"""

from __future__ import annotations

import re
from typing import Any

from mcptrials.generate.values import Value, grounded_in, leaves, parse_json, precise_number, values_in
from mcptrials.model import Fact, ValueCheckpoint
from mcptrials.scoring.answers import find_in_normalised, normalise_text
from mcptrials.scoring.claims import check_facts
from mcptrials.scoring.matchers import values_equal
from mcptrials.scoring.units import quantity_names, unit_after

_LABEL_STOP = {"the", "a", "an", "of", "is", "was", "are", "were", "at", "on", "in", "to", "for", "and", "or", "with",
               "its", "it", "their", "his", "her", "by", "from", "be", "as", "that", "this", "which", "has", "had",
               "have", "about", "around", "against", "vs", "than", "per", "each", "usd", "eur", "gbp", "jpy", "cny"}

_INSTRUCTION_WORDS = {"report", "tell", "give", "show", "list", "find", "get", "look", "check", "let", "know", "send",
                      "email", "mail", "search", "open", "read", "answer", "please", "want", "need", "like", "would",
                      "could", "also", "then", "first", "next", "what", "which", "who", "when", "where", "how", "why",
                      "whether", "there", "does", "did", "can", "you", "your", "our", "my", "me", "and", "the", "for"}
_SYNONYMS = {"actual": ["actual", "reported", "came in", "delivered"],
             "estimated": ["estimat", "expect", "consensus", "forecast", "analyst"],
             "expected": ["estimat", "expect", "consensus", "forecast", "analyst"],
             "high": ["high", "max", "warmest"], "low": ["low", "min", "coolest", "coldest"],
             "arrival": ["arriv", "gets in", "reach"], "arrive": ["arriv", "gets in", "reach"],
             "departure": ["depart", "leav"], "depart": ["depart", "leav"],
             "open": ["open"], "close": ["clos"], "previous": ["previous", "prior", "last"],
             "min": ["min", "low"], "max": ["max", "high"], "mean": ["mean", "average", "avg"],
             "average": ["average", "mean", "avg"], "total": ["total", "sum", "overall"]}


_RELATED = [{"price", "fare", "cost", "costs", "fee", "charge", "amount", "pay", "paid", "much"},
            {"arrive", "arrival", "arrives", "get", "reach"}, {"depart", "departure", "departs", "leave", "leaves"},
            {"weather", "forecast", "temperature", "temp", "high", "low", "max", "min", "rain", "precipitation",
             "precip", "condition", "conditions"}, {"sender", "from", "author", "authors", "sent"},
            {"count", "number", "many", "total", "quantity", "stock", "units", "left"},
            {"when", "time", "hour", "date", "day"}, {"company", "organisation", "organization", "org", "employer"},
            {"title", "name", "called"}, {"where", "location", "place", "city", "address", "venue"}]


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


def goal_words(*texts: str) -> set[str]:
    """The content words of the goal (instruction words such as report / tell / list left out)."""
    return {_root(w) for text in texts for w in re.findall(r"[A-Za-z]+", text)
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
    words = [w for w in re.findall(r"[a-z]+", before) if w not in _LABEL_STOP and len(w) >= 3]
    first = re.findall(r"[a-z%]+", after)[:1]  # only a word right after the value names it ("4.15 expected")
    nxt = [w for w in first if w not in _LABEL_STOP and len(w) >= 3]
    return set(words[-1:]) | set(nxt)


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
                    text = normalise_text(f)
                    if re.search(r"(?<![\w])" + re.escape(text) + r"(?![\w])", norm_answer):
                        out.add(text)
    return out


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


def _bound_facts(group: list[Value], answer: str, docs: list[Any]) -> list[Fact] | None:
    """Label-bound facts for values that could be swapped; None when they have no distinct labels."""
    labels = []
    for v in group:
        words = _keys_of(v, docs)[0] | _context(v, answer)
        words = {w for w in words if len(w) >= 3 and w not in _LABEL_STOP}
        labels.append({x for w in words for x in [_stem(w), *_SYNONYMS.get(w, [])]} | _record_words(v, answer, docs))
    distinct = []
    for i, mine in enumerate(labels):
        others = set().union(*(labels[j] for j in range(len(labels)) if j != i))
        own = sorted(w for w in mine if not any(w in o or o in w for o in others))
        if not own:
            return None
        distinct.append(own)
    facts = [Fact(label=own, value=v.value) for own, v in zip(distinct, group, strict=True)]
    return facts if all(f.stated for f in check_facts(answer, facts)) else None


def _name_options(value: Value, names_elsewhere: set[str]) -> list[Any] | Any:
    """A name, or also its first or last word where that alone still picks it out (Priya, Hongqiao)."""
    words = str(value.value).split()
    if len(words) == 1:
        return value.value
    options: list[Any] = [value.value]
    for word in (words[0], words[-1]):
        if len(word) >= 4 and not any(word.casefold() in {w.casefold() for w in n.split()}
                                      and n.casefold() != str(value.value).casefold() for n in names_elsewhere):
            options.append(word)
    return options if len(options) > 1 else value.value


def answer_values(answer: str, goal: str, prompt: str, read_results: list[str], year: int | None,
                  fallback: bool = True) -> list[Value]:
    """The answer's values a careful reviewer would insist on.

    A value counts when a read result grounds it, the goal did not already give it, and it is
    what the goal asks about: a word naming it (its field in the results, or the words around
    it in the answer) is a content word of the goal; or it is a path (where something is).
    When no value is named so and ``fallback``, the values of the first sentence that states any
    are taken.
    """
    docs = [d for d in (parse_json(r) for r in read_results) if d is not None]
    wanted = goal_words(goal, prompt)
    grounded: list[Value] = []
    for value in values_in(answer, year=year, small=True):
        if not any(grounded_in(value, r) for r in read_results) or grounded_in(value, goal) or \
                grounded_in(value, prompt):
            continue
        if value.kind == "number":
            value = Value(value.kind, precise_number(value, read_results), value.start, value.end, value.text)
        if value.key not in {v.key for v in grounded}:
            grounded.append(value)
    named = []
    for v in grounded:
        keys, structured = _keys_of(v, docs)
        if v.kind == "name" and not whole_field(v, docs):
            continue  # a capitalised phrase inside running text (a title, a heading) is not an item
        if v.kind == "number" and v.value in range(-9, 10) and not (structured and _names_goal(keys, wanted)):
            continue  # a small count only when its own field is what the goal asks
        if v.kind == "path" or _names_goal(keys | _context(v, answer) | ({"day"} if v.kind == "weekday" else set()),
                                           wanted):
            named.append(v)
    if named or not grounded or not fallback:
        return named
    grounded = [v for v in grounded if not (v.kind == "number" and v.value in range(-9, 10))] or grounded
    norm = normalise_text(answer, fold=False)
    first_end = next((m.start() for m in re.finditer(r"[.!?](?:\s|$)|\n", norm) if m.start() >= grounded[0].end),
                     len(norm))
    return [v for v in grounded if v.start <= first_end]


def _unit_in(answer: str, value: Any) -> str | None:
    """The unit the explorer's answer names right after ``value`` ("311 km"), if it names one."""
    norm = normalise_text(answer)
    for m in find_in_normalised(norm, value):
        unit = unit_after(norm, m.end)
        if unit is not None and quantity_names(unit):
            return unit
    return None


def answer_checkpoint(answer: str, goal: str, prompt: str, read_results: list[str],
                      year: int | None, fallback: bool = True) -> ValueCheckpoint | None:
    """The answer check: the values it must state, those that could be swapped bound to their labels."""
    found = answer_values(answer, goal, prompt, read_results, year, fallback)
    if not found:
        return None
    docs = [d for d in (parse_json(r) for r in read_results) if d is not None]
    names_elsewhere = {str(v.value) for r in read_results for v in values_in(r, year=year) if v.kind == "name"}
    contains: list[Any] = []
    facts: list[Fact] = []
    for kind in ("number", "time", "date"):  # dates are checked unbound: their labels (weekdays) vary too much
        group = [v for v in found if v.kind == kind]
        swappable = _swappable(group, docs) if len(group) >= 2 else []
        bound = _bound_facts(swappable, answer, docs) if len(swappable) >= 2 and kind != "date" else None
        if bound:
            facts += bound
        for v in group:
            if bound and v in swappable:
                continue
            unit = _unit_in(answer, v.value) if kind == "number" else None
            if unit is not None:  # "21.3 °C": stated in any unit of its quantity, the unit named
                facts.append(Fact(label=quantity_names(unit), value=v.value, unit=unit))
            else:
                contains.append(v.value)
    for v in found:
        if v.kind in {"email", "code", "path", "weekday"}:
            contains.append(v.value)
        elif v.kind == "name":
            contains.append(_name_options(v, names_elsewhere))
    return ValueCheckpoint(id="answer", source="final_message", contains=contains, facts=facts,
                           description="the answer states the values the tool results gave")
