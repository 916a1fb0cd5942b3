"""State checkpoints from what a trace's writes left in the sandbox: files, JSON records, SQLite rows.

A change is checked only when a write call of the trace explains it: the record, row or file
carries values of that call's arguments (an id, a path, an address, a title) or echoes of its
result. Side effects of reads (a read flag) and records a server merely seeded on its first
write are therefore not checked. Each checkpoint says what must be true at the field where the
fact belongs: identifying fields in ``where``, values the agent chose from the goal or from
results in ``match``; free text is checked for its grounded values, never for its wording.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any

from mcptrials.generate.cells import cell_facts
from mcptrials.generate.rates import rate_patterns
from mcptrials.generate.values import (
    Value,
    argument_leaves,
    day_options,
    parse_json,
    quoted,
    scale_word,
    values_in,
    word_in,
)
from mcptrials.model import Fact, Matcher, StateCheckpoint
from mcptrials.scoring.answers import normalise_text
from mcptrials.scoring.claims import check_facts
from mcptrials.scoring.matchers import is_path_parameter, normalise_path, values_equal

MAX_CONTAINS = 12


@dataclass
class WriteCall:
    """One successful state-changing call of the trace, with its effective arguments and result."""

    position: int
    name: str
    args: dict[str, Any]
    result: str


Grounded = Callable[[Value], bool]
GroundedRaw = Callable[[Any], bool]
Grounding = Callable[[int | None], tuple[Grounded, GroundedRaw]]
"""Given a write's position (None: the whole trace), whether a value (read out of text; raw) is backed by
the goal or by a result the trace had read by then: what a write says must come from somewhere before it."""


Reads = Callable[[int], list[str]]
"""The results a trace had read before a write's position."""


@dataclass
class StateDistillation:
    """The state checkpoints and which write calls (by position) they account for."""

    checkpoints: list[StateCheckpoint]
    covered: set[int]


def _short(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)) or \
        (isinstance(value, str) and 0 < len(value) <= 80 and not any(ch.isspace() for ch in value.strip()))


_REFERENCE = re.compile(r"(^|_)(in_reply_to|reply_to|thread|parent|ref|reference|link)(_|$)", re.IGNORECASE)


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and any(ch.isspace() for ch in value.strip())


_IDENTIFIER = re.compile(r"[A-Za-z]+(?:[_-][A-Za-z]+)+")


def _chosen_equal(value: Any) -> Matcher:
    """The matcher for a short value the agent wrote: a word identifier (works_on, follow-up) in any of its
    spellings (works on, Works-On), since a relation type or tag the agent named is a choice of words, not
    of separators; any other value as it is."""
    if isinstance(value, bool):
        return Matcher(equals=value)
    if isinstance(value, str) and _IDENTIFIER.fullmatch(value.strip()):
        words = re.split(r"[_-]", value.strip())
        gap = _PHRASE_GAP if len(words) >= 3 else r"[\s_-]*"
        return Matcher(regex=r"^\s*" + gap.join(re.escape(w) for w in words) + r"\s*$", case="insensitive")
    return Matcher(equals=value, case="insensitive")


_PHRASE_GAP = r"(?:[\s_-]+(?!(?:not|no|non|never|without)(?:[\s_-]|$))[a-z]+){0,2}[\s_-]*"
"""Between the words of a coined phrase of three or more (owns_dashboard_of): up to two more words that only
specify it ("owns dashboard design of"), never a negation; the phrase's own words stay, in their order."""


def _id_argument(name: str) -> bool:
    low = name.lower()
    return low == "id" or low.endswith(("_id", "id", "_key", "uuid")) or low in {"key", "sku", "slug"}


def record_lists(document: Any, path: str = "$") -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Every list of records (JSON objects) in a document, with the json_path that selects its items."""
    if isinstance(document, list):
        if document and all(isinstance(item, dict) for item in document):
            yield f"{path}[*]", document
    elif isinstance(document, dict):
        for key, value in document.items():
            if isinstance(value, list | dict):
                step = f".{key}" if key.isidentifier() else f"['{key}']"
                yield from record_lists(value, path + step)


_LITERAL = re.compile(r"'((?:[^']|'')*)'|\"([^\"]*)\"")
_BARE_NUMBER = re.compile(r"(?<![\w.'\"/:-])-?\d+(?:\.\d+)?(?![\w.'\"/:-])")


def call_values(arguments: dict[str, Any]) -> list[Any]:
    """The values a call's arguments carry: each scalar, and inside a statement (SQL, code) its literals."""
    out: list[Any] = []
    for leaf in argument_leaves(arguments):
        if isinstance(leaf, str) and len(leaf) < 2:
            continue
        out.append(leaf)
        if isinstance(leaf, str) and any(ch.isspace() for ch in leaf.strip()):
            out += [(a or b).replace("''", "'") for a, b in _LITERAL.findall(leaf) if len(a or b) >= 2]
            out += [float(n) if "." in n else int(n) for n in _BARE_NUMBER.findall(leaf)]
    return out


def _carries(record: dict[str, Any], leaves: list[Any]) -> int:
    """How many of a call's argument values the record holds in some field."""
    count = 0
    for leaf in leaves:
        for value in record.values():
            items = value if isinstance(value, list) else [value]
            if any(values_equal(item, leaf, insensitive=True) or (
                    isinstance(leaf, str) and len(leaf) >= 4 and isinstance(item, str)
                    and normalise_text(leaf) in normalise_text(item)) for item in items):
                count += 1
                break
    return count


def _proper_name(value: str) -> bool:
    """A name of several capitalised words ("Dana Whitfield", "Project Atlas"), not a phrase ("Parking permit")."""
    words = value.split()
    return 2 <= len(words) <= 6 and len(value) <= 80 and all(w[:1].isupper() or w[:1].isdigit() for w in words)


_ISO_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ]\d{2}:\d{2}")


def _timed_with(key: str, record: dict[str, Any], leaves: list[Any]) -> bool:
    """Whether a field of a created record is a date-time on the day of another date-time the call gave
    (an event's end beside its start): the call's other arguments (a duration) fixed it, so it is checked."""
    mine = _ISO_TIME.match(str(record.get(key))) if isinstance(record.get(key), str) else None
    if mine is None:
        return False
    for other, value in record.items():
        theirs = _ISO_TIME.match(value) if other != key and isinstance(value, str) else None
        if theirs and theirs.group(1) == mine.group(1) and _carries({other: value}, leaves):
            return True
    return False


def _made_of(record: dict[str, Any], leaves: list[Any]) -> bool:
    """Whether every field of a record (two at least; each item of a list) is a value of the call: what it created."""
    fields = [item for v in record.values() for item in (v if isinstance(v, list) else [v])]
    if len(record) < 2 or not all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in fields):
        return False
    return all(any(values_equal(v, leaf, insensitive=True) for leaf in leaves) for v in fields)


def _echoed(record: dict[str, Any], result: str) -> bool:
    """Whether the call's result names one of the record's identifying values (the created id)."""
    norm = normalise_text(result)
    return any(_id_argument(k) and _short(v) and normalise_text(str(v)) in norm for k, v in record.items())


def _written(value: Any, before: str, after: str) -> bool:
    """Whether a call's argument shows up in a file's new text: a long text, or a name new to the file."""
    if not isinstance(value, str):
        return False
    norm_after = normalise_text(after)
    if len(value) >= 12 and normalise_text(value)[:60] in norm_after:
        return True
    if len(value) < 4 or any(ch.isspace() for ch in value.strip()):
        return False
    word = re.compile(r"(?<![\w.-])" + re.escape(normalise_text(value)) + r"(?![\w-])")
    return bool(word.search(norm_after)) and not word.search(normalise_text(before))


def _at_the_edges(text: str, value: Value) -> bool:
    """Whether a value sits among the first or last three words of a text (where greetings and names go)."""
    norm = normalise_text(text, fold=False)
    return len(norm[:value.start].split()) < 3 or len(norm[value.end:].split()) < 3


def _salient(text: str, grounded: Grounded, asked: str, year: int | None, titles: bool = False,
             names: bool = True) -> list[Any]:
    """Values in a written text that the goal or a read result grounds, plus strings the request quotes.

    A quoted string is required only of a title-like text (one not much longer than it): a body
    may well say "the handover" for the "Laptop handover" the user named.
    """
    out: list[Any] = []
    for value in values_in(text, year=year):
        if value.kind == "weekday":
            continue  # "Monday" beside the date it names adds nothing a date check does not
        if scale_word(value, text):
            continue  # "units per thousand spent": a scale, not a figure the message must carry
        if value.kind == "name" and not names and _at_the_edges(text, value):
            continue  # "Hi Ravi," / "... Alex": a greeting or a signature, not content
        if grounded(value) and value.value not in out:
            out.append(value.value)
    norm = normalise_text(text)
    out += [q for q in quoted(asked) if normalise_text(q) in norm and q not in out
            and (titles or len(text) <= 2 * len(q) + 12)]
    return out[:MAX_CONTAINS]


_WORD = re.compile(r"[a-z][a-z'-]{3,}")
_SPAN = re.compile(r"(?<![\d.,:/-])(\d{1,2})\s*(?:-|\u2013|to)\s*(\d{1,2})(?![\d.,:/])")


def copied_spans(text: str, reads: list[str]) -> list[int]:
    """The ends of a span of small figures a written text copies from a result ("refunds take 5 to 7 working
    days" from the policy page): too small to check one by one, but a span another source gives ("within 14
    days") is a wrong message."""
    out: list[int] = []
    read = [normalise_text(r) for r in reads]
    for m in _SPAN.finditer(normalise_text(text)):
        low, high = int(m.group(1)), int(m.group(2))
        same = re.compile(rf"(?<![\d.,:/-]){low}\s*(?:-|\u2013|to)\s*{high}(?![\d.,:/])")
        if low < high and any(same.search(r) for r in read):
            out += [v for v in (low, high) if v not in out]
    return out


def _line_facts(before: str, after: str, new: list[Any], goal: str, year: int | None) -> list[Fact]:
    """In a list the write added (a checklist, a table), each line's one date or figure bound to the goal's words
    for that line's item: "venue ... 2026-04-17" must not become "invites ... 2026-04-17"."""
    old_lines = set(before.splitlines())
    goal_words = set(_WORD.findall(goal.lower()))
    items: list[tuple[set[str], Value]] = []
    for line in after.splitlines():
        if line in old_lines:
            continue
        found = [v for v in values_in(line, year=year) if v.kind in {"date", "time", "number"} and v.value in new]
        if len(found) == 1:
            items.append((set(_WORD.findall(line.lower())) & goal_words, found[0]))
    if len(items) < 2 or len({v.kind for _, v in items}) != 1:
        return []
    facts = []
    for i, (words, value) in enumerate(items):
        others = set().union(*(w for j, (w, _) in enumerate(items) if j != i))
        own = sorted(words - others)
        if own:
            facts.append(Fact(label=own[:4], value=value.value))
    return facts


_FLAG = re.compile(r"[A-Za-z]{2,12}")


def _flag_facts(before: str, after: str, writes: list[WriteCall], grounded: GroundedRaw) -> list[Fact]:
    """In a list the writes added to, line by line, a one-word setting a call gave its item ("priority": "high"
    for "Prepare the demo") bound to the words that name that item: the same word on another item's line
    does not make up for it missing on its own."""
    old_lines = set(before.splitlines())
    new_lines = [line for line in after.splitlines() if line not in old_lines]
    found: list[tuple[str, str]] = []
    for write in writes:
        texts = [v for v in write.args.values() if isinstance(v, str) and " " in v.strip()]
        item = max(texts, key=len) if texts else ""
        lines = [line for line in new_lines if item and normalise_text(item) in normalise_text(line)]
        if len(lines) != 1:
            continue
        for key, value in write.args.items():
            if isinstance(value, str) and _FLAG.fullmatch(value) and not _id_argument(key) and grounded(value) and \
                    word_in(value, lines[0], re.IGNORECASE):
                found.append((item, value))
    facts = []
    for item, value in found:
        others = {w for other, _v in found if other != item for w in _WORD.findall(other.lower())}
        own = sorted(set(_WORD.findall(item.lower())) - others)
        if own:
            facts.append(Fact(label=own[:4], value=value))
    return facts if len({item for item, _v in found}) >= 2 else []


_TABLE_FILE = re.compile(r"(?i)\.(csv|tsv)$")


def _row_count(path: str, before: str | None, after: str) -> list[str]:
    """For a table file (CSV) a write created, its number of rows after the header: an export with a wrong
    filter lists rows too many or too few, whatever columns or order it chose."""
    if before is not None or not _TABLE_FILE.search(path):
        return []
    rows = [line for line in after.splitlines() if line.strip()]
    if len(rows) < 2:
        return []
    line = r"[^\n]*\S[^\n]*"
    return [rf"\A\s*{line}(?:\n[ \t]*(?:\n[ \t]*)*{line}){{{len(rows) - 1}}}\s*\Z"]


_MARKER = re.compile(r"[A-Za-z][^\s\d]{2,40}")
"""A line that opens or closes a record of an export ("BEGIN:VEVENT"): one word, no figure."""


def _record_count(path: str, before: str | None, after: str) -> list[str]:
    """For an export a tool rendered (no text of the call in it) that is no table (an .ics calendar), how many
    records it holds: the line that opens each record ("BEGIN:VEVENT"), as often as in the explorer's file.
    An export over the wrong range, or made before the records it should hold were written, fails it."""
    if before is not None or _TABLE_FILE.search(path):
        return []
    counts: dict[str, int] = {}
    for line in after.splitlines():
        text = line.strip()
        if _MARKER.fullmatch(text):
            counts[text] = counts.get(text, 0) + 1
    repeated = [(n, line) for line, n in counts.items() if n >= 2]
    if not repeated:
        return []
    n, line = max(repeated, key=lambda x: x[0])  # the first of the most frequent lines: a record's own marker
    marker = r"^[ \t]*" + re.escape(line) + r"[ \t]*\r?$"
    return [rf"(?ms)\A(?:.*?{marker}){{{n}}}(?!.*{marker})"]


def _counterpart(line: str, gone: list[str]) -> str | None:
    """The old line an edited line replaced: the removed line sharing most of its words (half at least)."""
    words = set(_WORD.findall(line.lower()))
    best, score = None, 0.5
    for old in gone:
        theirs = set(_WORD.findall(old.lower()))
        overlap = len(words & theirs) / max(1, len(words | theirs))
        if overlap >= score:
            best, score = old, overlap
    return best


def _line_edit(before: str, after: str) -> tuple[list[str], list[int], list[str]] | None:
    """An edit of an existing list as lines: the new text's lines, the indexes of those the write added or
    changed, and the old lines it removed; None for a new text, no change, or more than a few lines changed."""
    if not before.strip():
        return None
    old_lines = set(before.splitlines())
    lines = after.splitlines()
    changed = [i for i, line in enumerate(lines) if line not in old_lines and line.strip()]
    if not changed or len(changed) > KEPT_LINES:
        return None
    kept = set(lines)
    return lines, changed, [line for line in before.splitlines() if line not in kept]


def _edited_line_facts(before: str, after: str, grounded: list[Any], goal: str, year: int | None) -> list[Fact]:
    """In an edit of an existing list (a task file), the date or figure a changed line holds bound to the goal's
    words for that line's item: the new due date on the NDA task must not land on the invoice task. Words that
    other lines holding a value of that kind share are no label."""
    edit = _line_edit(before, after)
    if edit is None:
        return []
    lines, changed, gone = edit
    goal_words = set(_WORD.findall(goal.lower())) - _CALENDAR_WORDS
    found = [[v for v in values_in(line, year=year) if v.kind in {"date", "time", "number"}] for line in lines]
    facts: list[Fact] = []
    for i in changed:
        was = _counterpart(lines[i], gone)
        kept = {v.value for v in values_in(was, year=year)} if was else set()
        for kind in ("date", "time", "number"):
            mine = [v for v in found[i] if v.kind == kind]
            if len(mine) != 1 or mine[0].value not in grounded or mine[0].value in kept:
                continue  # a value the line held before the edit (a ticked task's due date) is not what it changed
            others = set().union(*(set(_WORD.findall(line.lower())) for j, line in enumerate(lines)
                                   if j != i and any(v.kind == kind for v in found[j])))
            own = sorted(set(_WORD.findall(lines[i].lower())) & goal_words - others)
            if own:
                facts.append(Fact(label=own[:4], value=mine[0].value))
    return facts


def _new_item_facts(before: str, after: str, grounded: list[Any], goal: str, year: int | None) -> list[Fact]:
    """For a line a write added to an existing list (a new task, no old line it replaced), its one grounded date
    bound to the goal's words for its item that no other line holding that same date shares: "Pay Ledgerly ...
    due 2026-04-17" beside an older "Pay Ledgerly ... due 2026-04-13" still binds "ledgerly" to the new date,
    since the older line states another. Only where the edit rule found no label; each fact is a reading of
    its own (the line's other facts use the same words). Kept only where the text itself reads so."""
    edit = _line_edit(before, after)
    if edit is None:
        return []
    lines, changed, gone = edit
    goal_words = set(_WORD.findall(goal.lower())) - _CALENDAR_WORDS
    found = [[v for v in values_in(line, year=year) if v.kind in {"date", "time"}] for line in lines]
    out: list[Fact] = []
    for i in changed:
        if _counterpart(lines[i], gone) is not None:
            continue
        for kind in ("date", "time"):
            mine = [v for v in found[i] if v.kind == kind]
            if len(mine) != 1 or mine[0].value not in grounded:
                continue
            kinds = set().union(*(set(_WORD.findall(line.lower())) for j, line in enumerate(lines)
                                  if j != i and any(v.kind == kind for v in found[j])))
            same = set().union(*(set(_WORD.findall(line.lower())) for j, line in enumerate(lines)
                                 if j != i and any(v.kind == kind and v.value == mine[0].value for v in found[j])))
            words = set(_WORD.findall(lines[i].lower())) & goal_words
            own = sorted(w for w in words - same if not w.endswith("-"))  # "inv-" of INV-2291: a code's piece
            if not own or words - kinds:
                continue  # no label, or the edit rule's own label already binds it
            fact = Fact(label=own[:4], value=mine[0].value)
            if all(v.stated for v in check_facts(after, [fact])):
                out.append(fact)
    return out


_SAYING = re.compile(r"(?i)\b(tell|ask|say|saying|explain|explaining|confirm|inform|remind|let \w+ know)\b"
                     r"((?:[^.!?;\n]|[.!?](?=\S))*)")
"""Where a request says what a message is to say: "tell her the deposit is approved"."""

_ASKING = {"email", "mail", "message", "reply", "send", "tell", "that", "this", "with", "from", "what", "please",
           "back", "them", "they", "their", "there", "about", "have", "know", "also", "then", "want", "need", "show",
           "into", "your", "will", "would", "could", "should", "just", "make", "sure", "when", "where", "which",
           "while", "here", "some", "more", "most", "very", "much", "only", "each", "both", "done", "after",
           "before", "again", "write", "note", "notes", "let", "like", "ask", "asking", "give", "let's", "we're",
           "i'm", "don't", "it's", "check", "find", "look", "him", "her", "his", "hers", "our", "ours"}
"""Words of asking, not of what a message must say."""

_CALENDAR_WORDS = {m.lower() for m in [*calendar.month_name, *calendar.month_abbr, *calendar.day_name] if m}
"""Words that are part of a date itself ("15 July"), not a label for it."""

_MARKUP = re.compile(r"^[\s>#*+\-|]*(?:\[[ xX]\]\s*)?(?:\d+[.)]\s+)?")
KEPT_LINES = 3


def _kept_lines(before: str, after: str) -> list[str]:
    """A few lines of the old text the write left as they were (the first, a middle and the last of
    them, their list markers dropped): an edit that should add or change one line must keep the rest,
    and a rewrite of the whole file from memory fails it."""
    survivors = set(after.splitlines())
    kept = []
    for line in before.splitlines():
        text = _MARKUP.sub("", line).strip()
        heading = line.lstrip().startswith("#") and len(text) >= 4  # "## Versions": a section the edit kept
        if line in survivors and (heading or (len(text.split()) >= 2 and len(text) >= 8)):
            kept.append(text if len(text) <= 60 else text[:60].rsplit(" ", 1)[0])
    if len(kept) <= KEPT_LINES:
        return kept
    return [kept[0], kept[len(kept) // 2], kept[-1]]


class _Builder:
    def __init__(self, writes: list[WriteCall], grounding: Grounding, goal: str, year: int | None,
                 asked: str, today: date | None = None, reads: Reads | None = None) -> None:
        self.writes = writes
        self.reads = reads
        self.today = today
        self.grounding = grounding
        self.asked = asked
        self.asked_numbers = [v.value for v in values_in(asked, year=year, small=True) if v.kind == "number"]
        self.grounded, self.grounded_raw = grounding(None)
        self.goal = goal
        self.year = year
        self.covered: set[int] = set()
        self.out: list[StateCheckpoint] = []
        self.quotes_used: set[str] = set()
        self.touched: list[tuple[int, StateCheckpoint]] = []
        """Changes to records a write only referred to (a replied flag), kept unless the write also created one."""
        self.created: set[int] = set()
        self.primary: set[str] = set()
        self.figures: list[dict[str, Matcher]] = []
        """For the record last matched: its text fields' figures bound to whose and which they are."""

    def _id(self, stem: str) -> str:
        base = "state_" + "".join(ch if ch.isalnum() else "_" for ch in stem.lower()).strip("_")[:40]
        taken = {cp.id for cp in self.out}
        name, n = base, 2
        while name in taken:
            name, n = f"{base}_{n}", n + 1
        return name

    def _field_matchers(self, record: dict[str, Any], old: dict[str, Any] | None, leaves: list[Any],
                        position: int | None = None) -> tuple[dict[str, Matcher], dict[str, Matcher]]:
        where: dict[str, Matcher] = {}
        match: dict[str, Matcher] = {}
        self.figures = []
        for key, value in record.items():
            changed = old is not None and not values_equal(old.get(key), value)
            derived = _carries({key: value}, leaves) > 0 or (isinstance(value, list) and any(
                isinstance(item, dict) and _carries(item, leaves) for item in value))
            if old is None and not derived and _timed_with(key, record, leaves):
                match[key] = Matcher(equals=value, case="insensitive")  # an end the start and a duration fix
                continue
            if not (derived or changed):
                continue
            if old is not None and not changed:
                if _id_argument(key) and _short(value) and derived:
                    where[key] = Matcher(equals=value, case="insensitive")
                continue
            if old is None and (key.lower() in {"id", "uuid", "key"} or key in self.primary or _REFERENCE.search(key)):
                continue  # a new record's own id, or its link to a thread: not what it says (a new mail may answer)
            if isinstance(value, list):
                wanted = [v for v in value if _short(v) and self.grounded_raw(v) and any(
                    values_equal(v, leaf, insensitive=True) for leaf in leaves)] or \
                         ([v for v in value if _short(v)] if changed else [])
                if wanted:
                    match[key] = Matcher(contains_all=wanted[:MAX_CONTAINS], case="insensitive") \
                        if len(wanted) > 1 else Matcher(contains=wanted[0], case="insensitive")
                elif (facts := self._item_facts(value, old.get(key) if old else None, leaves)):
                    match[key] = Matcher(facts=facts)
                match.update(self._item_fields(key, value, leaves))
            elif isinstance(value, str) and _proper_name(value) and old is None and \
                    self.grounded_raw(value) and any(values_equal(value, leaf, insensitive=True) for leaf in leaves):
                match[key] = Matcher(equals=value, case="insensitive")  # a name the call gave ("Dana Whitfield")
            elif (isinstance(value, bool) or _short(value)) and (changed or self.grounded_raw(value)):
                match[key] = _chosen_equal(value)
            elif _is_text(value):
                salient = [v for v in _salient(value, self.grounded, self.asked, self.year, names=False)
                           if v not in self.quotes_used and not self._echoes_request(v)]
                self.quotes_used |= {v for v in salient if isinstance(v, str) and v in quoted(self.asked)}
                wanted = [self._options(v) for v in salient]
                if self.reads is not None and position is not None:
                    wanted += [n for n in copied_spans(value, self.reads(position)) if n not in salient]
                if value == max((v for v in record.values() if _is_text(v)), key=len):
                    wanted += self._request_words(value, position)
                if wanted:
                    match[key] = Matcher(contains=wanted[0], case="insensitive") \
                        if len(wanted) == 1 and not isinstance(wanted[0], list) \
                        else Matcher(contains_all=wanted, case="insensitive")
                if old is None:
                    self.figures += [{key: Matcher(facts=facts)} for facts in self._cell_facts(value, position)]
        return where, match

    def _cell_facts(self, text: str, position: int | None) -> list[list[Fact]]:
        """The figures a written text copies from a result table, bound to their record and field."""
        if self.reads is None or position is None:
            return []
        return cell_facts(text, self.reads(position), self.asked, self.year)

    def _item_facts(self, items: list[Any], old_items: Any, leaves: list[Any]) -> list[Fact]:
        """For texts a write added to a list (a note on an entity), each grounded date or figure bound to the
        goal's words in that text: "Deadline moved to 15 June", or the note on another entity, fails it."""
        old_list = old_items if isinstance(old_items, list) else []
        goal_words = set(_WORD.findall(self.goal.lower()))
        facts: list[Fact] = []
        for item in items:
            if not _is_text(item) or item in old_list or not _carries({"item": item}, leaves):
                continue
            words = sorted(set(_WORD.findall(item.lower())) & goal_words - _CALENDAR_WORDS)
            found = [v for v in values_in(item, year=self.year) if v.kind in {"date", "time", "number"}
                     and self.grounded(v)]  # a note keeps the figure the request gave, unlike a message
            if words and found:
                facts += [Fact(label=words[:4], value=v.value) for v in found]
        return facts[:MAX_CONTAINS]

    def _item_fields(self, key: str, items: list[Any], leaves: list[Any]) -> dict[str, Matcher]:
        """For a list of objects a write set (attachments), each field whose values the call named and the
        goal or a result grounds (an attachment's path): the object must be there, not only its mention."""
        out: dict[str, Matcher] = {}
        subs = dict.fromkeys(k for item in items if isinstance(item, dict) for k in item)
        for sub in subs:
            wanted = [item[sub] for item in items if isinstance(item, dict) and _short(item.get(sub))
                      and self.grounded_raw(item[sub]) and any(values_equal(item[sub], leaf, insensitive=True)
                                                               for leaf in leaves)]
            if wanted and str(sub).isidentifier():
                out[f"{key}[*].{sub}"] = Matcher(one_of=wanted, case="insensitive")
        return out

    def _request_words(self, text: str, position: int | None) -> list[str]:
        """The words of the user's request a message carries that no result read before it gave ("approved",
        "next month"): what the user asked to be said, so a message that says otherwise fails. Stems, so
        "approval" counts for "approved"; names and the words of asking ("email", "tell") are not required, nor
        the words of a clause that gives a value (a day, a figure): the value is checked instead."""
        if self.reads is None or position is None:
            return []
        read = normalise_text(" ".join(self.reads(position)))
        clauses = [re.sub(r"\S+[@/]\S+", " ", m.group(2)) for m in _SAYING.finditer(self.asked)]
        said = " ".join(c for c in clauses if not any(  # "moves to Thursday": the day is what it says, checked
            v.kind in {"date", "time", "number", "weekday"} for v in values_in(c, year=self.year, small=True)))
        asked = {w for w in re.findall(r"[A-Za-z][a-z'-]{3,}", said) if w.islower()}  # a capital names someone
        asked -= _CALENDAR_WORDS
        out: list[str] = []
        for word in dict.fromkeys(_WORD.findall(text.lower())):
            stem = word if len(word) <= 5 else word[:max(5, len(word) - 3)]
            if word in asked and word not in _ASKING and len(word) >= 4 and not re.search(
                    r"(?<![\w])" + re.escape(stem), read):
                out.append(stem)
        return out[:4]

    def _options(self, value: Any) -> Any:
        """A value as a written text may state it: a date near today also by its weekday ("by Friday")."""
        return day_options(value, self.today, self.asked) if isinstance(value, str) else value

    def _echoes_request(self, value: Any) -> bool:
        """Whether a figure in a message is one the request itself gave ("fewer than 10", "45 minutes"):
        a correct message may refer to it in other words, so its digits are not required."""
        return isinstance(value, int | float) and not isinstance(value, bool) and any(
            values_equal(value, n) for n in self.asked_numbers)

    def records(self, path: str, query: str | None, json_path: str | None, after: list[dict[str, Any]],
                before: list[dict[str, Any]] | None, key_fields: list[str]) -> None:
        """Checkpoints for the records of one list (or table) that a write created, changed or deleted."""
        def key_of(rec: dict[str, Any]) -> tuple[Any, ...] | None:
            keys = key_fields or [k for k in rec if _id_argument(k)][:1]
            return tuple(rec.get(k) for k in keys) if keys else None

        old_by_key = {key_of(r): r for r in before or [] if key_of(r) is not None}
        self.primary = set(key_fields) if len(key_fields) == 1 else set()  # a composite key holds the links
        for write in self.writes:
            leaves = call_values(write.args)
            self.grounded, self.grounded_raw = self.grounding(write.position)
            best: tuple[int, dict[str, Any], dict[str, Any] | None] | None = None
            for record in after:
                old = old_by_key.get(key_of(record))
                if before is not None and old is not None and old == record:
                    continue  # unchanged
                if before is not None and old is None and record in before:
                    continue
                score = _carries(record, leaves) * 2 + _echoed(record, write.result)
                if before is None and not _echoed(record, write.result) and not _made_of(record, leaves):
                    continue  # the server wrote its whole state at once: only what the call names is its effect
                if score >= 2 and (best is None or score > best[0]):
                    best = (score, record, old)
            made = [(0, r, None) for r in after if r is not (best[1] if best else None) and _made_of(r, leaves)
                    and (before is None or (key_of(r) not in old_by_key and r not in before))]
            for _score, record, old in ([best] if best is not None else []) + made[:8]:
                where, match = self._field_matchers(record, old, leaves, write.position)
                # created: new since before, or (state first written by this call) with an id the call did not name
                created = old is None if before is not None else not any(
                    _id_argument(k) and any(values_equal(v, leaf, insensitive=True) for leaf in leaves)
                    for k, v in record.items())
                if match:
                    cp = StateCheckpoint(id=self._id(f"{path}_{write.name.split('__')[-1]}"), path=path,
                                         json_path=json_path, query=query, where=where, match=match,
                                         description=f"left by {write.name}")
                    if created:
                        self.out.append(cp)
                        for figures in self.figures:  # the same record, its figures each with its item and field
                            self.out.append(cp.model_copy(update={
                                "id": self._id(f"{path}_{write.name.split('__')[-1]}_figures"),
                                "match": {**match, **figures},
                                "description": f"left by {write.name}: each figure with its item"}))
                        self.created.add(write.position)
                        self.covered.add(write.position)
                    else:
                        self.touched.append((write.position, cp))
                        self.touched += [(write.position, spread) for spread in self._spread(
                            path, query, json_path, record, old, after, write.name)]
            # deleted records: in before, gone after, named by the call
            if before is not None:
                after_keys = {key_of(r) for r in after}
                for old in before:
                    k = key_of(old)
                    if k is None or k in after_keys or not _carries(old, leaves):
                        continue
                    ids = {f: v for f, v in old.items() if _id_argument(f) and _short(v)
                           and any(values_equal(v, leaf, insensitive=True) for leaf in leaves)}
                    if ids:
                        self.out.append(StateCheckpoint(
                            id=self._id(f"{path}_gone"), path=path, json_path=json_path, query=query,
                            where={f: Matcher(equals=v, case="insensitive") for f, v in ids.items()}, count=0,
                            description=f"removed by {write.name}"))
                        self.covered.add(write.position)

    def _spread(self, path: str, query: str | None, json_path: str | None, record: dict[str, Any],
                old: dict[str, Any] | None, after: list[dict[str, Any]], tool: str) -> list[StateCheckpoint]:
        """For a field an update changed on one record ("status" to "returned"), how many records hold
        the new value afterwards: an update that reached other records too (no WHERE) fails it."""
        if old is None:
            return []
        out = []
        for field, value in record.items():
            if _id_argument(field) or old.get(field) == value or not (isinstance(value, bool) or _short(value)):
                continue
            holding = sum(1 for r in after if r.get(field) == value)
            if holding < len(after):
                out.append(StateCheckpoint(
                    id=self._id(f"{path}_{field}_count"), path=path, json_path=json_path, query=query,
                    match={field: Matcher(equals=value)}, count=holding,
                    description=f"{tool} changed {field} on these records only"))
        return out

    def text_file(self, path: str, before: str | None, after: str | None, fmt: str) -> None:
        names = [w for w in self.writes if self._names_path(w, path)]
        if after is None:
            if names:
                self.out.append(StateCheckpoint(id=self._id(f"{path}_gone"), path=path, exists=False,
                                                description=f"removed by {names[0].name}"))
                self.covered.update(w.position for w in names)
            return
        content_writes = [w for w in self.writes if any(_written(v, before or "", after)
                                                        for v in argument_leaves(w.args))]
        if not names and not content_writes:
            return
        if not names and self._folder_chosen(content_writes, path):
            return  # a folder the call chose and the goal did not: the call's effect is checked instead
        last = max(w.position for w in names + content_writes)
        self.grounded, self.grounded_raw = self.grounding(last)
        old_values = {v for v in _salient(before or "", self.grounded, self.asked, self.year)} if before else set()
        new = [v for v in _salient(after, self.grounded, self.asked, self.year) if v not in old_values]
        gone = [v for v in old_values if v not in set(_salient(after, self.grounded, self.asked, self.year))
                and isinstance(v, str | int | float) and normalise_text(str(v)) not in normalise_text(after)]
        kept = _kept_lines(before or "", after)
        cp = StateCheckpoint(id=self._id(path), path=path, format="text" if fmt == "text" else fmt,  # type: ignore[arg-type]
                             contains=new + [k for k in kept if k not in new],
                             absent=gone[:MAX_CONTAINS] if before else [],
                             facts=_line_facts(before or "", after, new, self.goal, self.year) or _edited_line_facts(
                                 before or "", after, _salient(after, self.grounded, self.asked, self.year),
                                 self.goal, self.year),
                             regex=_row_count(path, before, after) + rate_patterns(after, new)
                             + ([] if content_writes else _record_count(path, before, after)),
                             description=f"written by {(names or content_writes)[0].name}")
        if before is not None and not new and not cp.absent and not cp.facts:
            return  # an edit whose change holds no checkable value
        self.out.append(cp)
        flags = _flag_facts(before or "", after, list({w.position: w for w in names + content_writes}.values()),
                            self.grounded_raw)
        if flags:  # apart from the lines' dates: a setting word must not read as a date's label
            self.out.append(StateCheckpoint(id=self._id(f"{path}_settings"), path=path, format=cp.format, facts=flags,
                                            description=f"{cp.description}: each item's own settings"))
        if before is not None:  # a new item's date, bound to its item apart from the line's other facts
            self.out += [StateCheckpoint(id=self._id(f"{path}_item"), path=path, format=cp.format, facts=[fact],
                                         description=f"{cp.description}: the new item's own date")
                         for fact in _new_item_facts(before, after, _salient(after, self.grounded, self.asked,
                                                                             self.year), self.goal, self.year)]
        if before is None:  # a new page or file: each figure it copies from a result table with its item and field
            self.out += [StateCheckpoint(id=self._id(f"{path}_figures"), path=path, format=cp.format, facts=facts,
                                         description=f"{cp.description}: each figure with its item")
                         for facts in self._cell_facts(after, last)]
        self.covered.update(w.position for w in names + content_writes)

    def _folder_chosen(self, writes: list[WriteCall], path: str) -> bool:
        """Whether a write put the file in a folder one of its parameters picks, and the goal names neither."""
        goal = normalise_text(self.goal)
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        if not folder or any(normalise_text(p) in goal for p in (path, folder + "/")):
            return False
        return any(isinstance(v, str) and normalise_path(v) == folder and (is_path_parameter(k) or re.search(
            r"(?i)dir|folder|dest|output", k)) for w in writes for k, v in w.args.items())

    @staticmethod
    def _names_path(write: WriteCall, path: str) -> bool:
        """Whether a write names a file: as a path argument, or as the tail of its path (a git branch ref)."""
        for key, value in write.args.items():
            if isinstance(value, str) and len(value) >= 3 and not any(ch.isspace() for ch in value) and \
                    path.endswith("/" + value.strip("/")):
                return True
            if isinstance(value, str) and is_path_parameter(key) and normalise_path(value) == path:
                return True
            if isinstance(value, list) and is_path_parameter(key) and any(
                    isinstance(v, str) and normalise_path(v) == path for v in value):
                return True
        return False


def distil_state(before: dict[str, Any], after: dict[str, Any], writes: list[WriteCall], grounding: Grounding,
                 goal: str, year: int | None, asked: str | None = None,
                 today: date | None = None, reads: Reads | None = None) -> StateDistillation:
    """State checkpoints for every change of the sandbox that a write of the trace explains.

    ``grounding`` says whether a value a write put there is backed by the goal or by a result read
    before that write (read out of written text, or a raw field value: an address, a start time, an id).
    A string is required word for word only where ``asked`` (the request the agent reads; default the
    goal) quotes it: the wording a concrete goal chose for the explorer is not the user's. ``reads`` gives
    the results read before a write: a message must carry the request's own words that no result gave.
    """
    builder = _Builder(writes, grounding, goal, year, asked if asked is not None else goal, today, reads)
    if not writes:
        return StateDistillation([], set())
    files_before, files_after = before.get("files", {}), after.get("files", {})
    for path in sorted(set(files_before) | set(files_after)):
        old, new = files_before.get(path), files_after.get(path)
        if old is not None and new is not None and old.get("sha256") == new.get("sha256"):
            continue
        if path in after.get("sqlite", {}):
            for table, data in after["sqlite"][path].items():
                if "rows" not in data:
                    continue
                rows = [dict(zip(data["columns"], r, strict=False)) for r in data["rows"]]
                old_data = before.get("sqlite", {}).get(path, {}).get(table)
                old_rows = [dict(zip(old_data["columns"], r, strict=False)) for r in old_data.get("rows", [])] \
                    if old_data and "rows" in old_data else ([] if path in files_before else None)
                quoted_table = '"' + table.replace('"', '""') + '"'
                builder.records(path, f"SELECT * FROM {quoted_table}", None, rows, old_rows, list(data.get("pk", [])))
            continue
        text_new = new.get("text") if new else None
        text_old = old.get("text") if old else None
        if new is not None and text_new is None:  # binary: only its existence can be checked
            if any(builder._names_path(w, path) for w in writes):
                builder.out.append(StateCheckpoint(id=builder._id(path), path=path, format="text"))
                builder.covered.update(w.position for w in writes if builder._names_path(w, path))
            continue
        doc_new = parse_json(text_new) if text_new is not None and path.endswith(".json") else None
        if doc_new is not None:
            doc_old = parse_json(text_old) if text_old is not None else None
            old_lists = dict(record_lists(doc_old)) if doc_old is not None else {}
            seen, touched = len(builder.out), len(builder.touched)
            for json_path, records in record_lists(doc_new):
                builder.records(path, None, json_path, records,
                                old_lists.get(json_path, [] if doc_old is not None else None) if doc_old is not None
                                else None, [])
            if len(builder.out) > seen or len(builder.touched) > touched:
                continue
            if doc_old is None and any(True for _ in record_lists(doc_new)):
                continue  # a store written whole on first use: its text says nothing about this call
        builder.text_file(path, text_old, text_new, "text")
    for position, cp in builder.touched:
        if position not in builder.created:
            builder.out.append(cp)
            builder.covered.add(position)
    return StateDistillation(builder.out, builder.covered)
