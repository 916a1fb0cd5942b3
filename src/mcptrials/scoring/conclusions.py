"""Conclusion checkpoints: which option the answer picks for a role, or whether it says yes or no.

An answer may state every figure right and still conclude wrongly ("so AMD is the smallest"
when the numbers show another company; "the grill is closed on Sundays" when the tool said
open). A conclusion checkpoint names the role ("smallest", "open on Sundays"), its opposite
("largest" is not an opposite of "smallest": "closed" is one of "open"), and the options the task
knows. The answer is read sentence by sentence: each mention of the role or its opposite is a
claim, positive or denied ("not", "none of them", "neither"), about the option it is said of
(the nearest one named in its sentence, a run "X and Y", "the former"/"the latter", "it" for
the option named just before, or every option for "all"/"none of them"). The answer must claim
the role of every option it holds for, and of no other; a yes/no answer must say one of the two.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mcptrials.model import CheckpointResult, ConclusionCheckpoint
from mcptrials.scoring.answers import (
    _normalised,
    clause_end,
    clause_start,
    find_in_normalised,
    negated,
    sentence_bounds,
    tables_as_sentences,
)

_UNIVERSAL_NO = re.compile(r"\b(?:none|neither|no one|not one|nothing|no option|no train|no park|no trail|no)\b")
_ALL_OF_THEM = re.compile(r"\b(?:all|every|each|both of them|both are|both were|both have|both had)\b")
_UNIVERSAL_YES = re.compile(r"\b(?:all|both|every|each)\b")
_OPTION_NEGATOR = re.compile(r"(?:\bnot|\bthan|\binstead of|\bexcept|\bother than|\bunlike|\bbesides|"
                             r"\bapart from|\bbut not|\bnor)\s+(?:the\s+|for\s+|at\s+|on\s+|in\s+)?$")
_ANSWER_WORD = re.compile(r"^\W*(?:so\W+)?(yes|yep|yeah|correct|indeed|no|nope)\b")  # "So yes, take one"
_NONE_OF = re.compile(r"(?:\b0|\bzero)\s+(?:\w+\s+)?$")  # "0 free sites", "zero seats left"
_PRONOUN = re.compile(r"\b(?:it|it's|its|this|that|they|these|those|this one|that one|which|he|she)\b")
_CELL_VALUE = re.compile(r"\s*[:=]?\s*(yes|no|true|false|open|closed|available|unavailable)\b")


@dataclass
class _Claim:
    option: int | None  # an option index; None: the yes/no question itself; -1: every option
    positive: bool
    where: str


def _mentions(norm: str, phrases: list[str]) -> list[tuple[int, int]]:
    found = sorted({(m.start, m.end) for p in phrases for m in find_in_normalised(norm, p)})
    return [(s, e) for s, e in found if not any(a <= s and e <= b and (a, b) != (s, e) for a, b in found)]


def _option_mentions(norm: str, cp: ConclusionCheckpoint) -> list[tuple[int, int, int]]:
    """(start, end, option index) of every option named, "the former"/"the latter" resolved."""
    found = []
    for i, names in enumerate(cp.option_names):
        found += [(m.start, m.end, i) for name in names for m in find_in_normalised(norm, name)]
    found.sort(key=lambda x: (x[0], -(x[1] - x[0])))
    kept: list[tuple[int, int, int]] = []
    for s, e, i in found:
        if not any(a <= s < b for a, b, _ in kept):
            kept.append((s, e, i))
    named = list(kept)
    anchor = -1_000
    for m in re.finditer(r"\bthe (former|latter)\b", norm):
        if m.start() - anchor > 200:  # "the former ..., the latter ...": both point back past the first
            anchor = m.start()
        before: list[int] = []
        for _s, _e, i in reversed([k for k in named if k[0] < anchor]):
            if i not in before:
                before.append(i)
            if len(before) == 2:
                break
        if len(before) == 2:
            kept.append((m.start(), m.end(), before[1] if m.group(1) == "former" else before[0]))
    return sorted(kept)


def _subjects(norm: str, options: list[tuple[int, int, int]], start: int, end: int, at: tuple[int, int],
              previous: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The options a role mention at ``at`` is said of: the nearest one named in its sentence and the
    run it stands in ("X and Y"); without one, the option named last before it for "it"/"this"."""
    inside = [o for o in options if start <= o[0] < end and not (at[0] <= o[0] < at[1])]
    first, last = clause_start(norm, at[0], start), clause_end(norm, at[1], end)
    own_clause = [o for o in inside if first <= o[0] < last]
    if own_clause:  # "the former lagged, while the latter rallied": the option of the role's own clause
        inside = own_clause
    if not inside:
        if previous and _PRONOUN.search(norm[start:end]):
            return [previous[-1]]
        return []

    def distance(o: tuple[int, int, int]) -> tuple[int, int]:
        gap = at[0] - o[1] if o[1] <= at[0] else o[0] - at[1]
        return (max(gap, 0), 0 if o[1] <= at[0] else 1)

    nearest = min(inside, key=distance)
    run = [nearest]
    ordered = sorted(inside)
    k = ordered.index(nearest)
    for step in (-1, 1):  # the coordinated run: "X, Y and Z", "both X and Y"
        j = k
        while 0 <= j + step < len(ordered):
            a, b = (ordered[j + step], ordered[j]) if step < 0 else (ordered[j], ordered[j + step])
            if not re.fullmatch(r"\s*(?:,|,?\s*and|,?\s*or|&|/|\+)\s*(?:both\s+)?", norm[a[1]:b[0]]):
                break
            j += step
            run.append(ordered[j])
    return run


def read_claims(cp: ConclusionCheckpoint, text: str) -> list[_Claim]:
    """Every claim of the answer about the role: of which option (or the question), positive or denied."""
    norm = _normalised(tables_as_sentences(text))
    roles = [(s, e, True) for s, e in _mentions(norm, cp.role)]
    roles += [(s, e, False) for s, e in _mentions(norm, cp.opposite)
              if not any(a <= s < b for a, b, _ in roles)]
    roles.sort()
    options = _option_mentions(norm, cp) if cp.options else []
    claims: list[_Claim] = []
    for start, end in sentence_bounds(norm):
        sentence = norm[start:end]
        if sentence.rstrip().endswith("?"):
            continue  # a question restated is no claim
        answer_word = _ANSWER_WORD.match(sentence)
        if answer_word and not cp.options:
            claims.append(_Claim(None, answer_word.group(1) in {"yes", "yep", "yeah", "correct", "indeed"},
                                 answer_word.group(0).strip()))
        previous = [o for o in options if o[0] < start]
        for s, e, positive in (r for r in roles if start <= r[0] < end):
            clause = clause_start(norm, s, start)
            before = norm[max(clause, s - 80):s]
            polarity = positive != (negated(before) or bool(_NONE_OF.search(before)))
            cell = _CELL_VALUE.match(norm, e)
            if cell:  # "open: no" in a table row or a list
                polarity = positive == (cell.group(1) in {"yes", "true", "open", "available"})
            where = norm[max(start, s - 40):min(end, e + 40)].strip()
            if not cp.options:
                claims.append(_Claim(None, polarity, where))
                continue
            said_of = _subjects(norm, options, start, end, (s, e), previous)
            if said_of and _ALL_OF_THEM.search(norm[clause:s]) and not negated(before):
                claims.append(_Claim(-1, polarity, where))  # "all three ended higher, led by Apple"
            if not said_of:
                scope = norm[clause:s] + norm[e:min(end, e + 30)]
                if _UNIVERSAL_NO.search(norm[clause:s]):
                    claims.append(_Claim(-1, not positive, where))
                elif _UNIVERSAL_YES.search(scope):
                    claims.append(_Claim(-1, polarity, where))
                elif len(cp.options) == 1:
                    claims.append(_Claim(0, polarity, where))
                continue
            for o_start, o_end, index in said_of:
                lead = norm[max(start, o_start - 20):o_start]
                flip = bool(_OPTION_NEGATOR.search(lead))
                claims.append(_Claim(index, polarity != flip, where))
                if flip:  # "not X but Y": Y is said instead
                    instead = re.match(r"\s*,?\s*but\s+(?:rather\s+)?(?:the\s+)?", norm[o_end:end])
                    other = next((o for o in options if instead and o[0] == o_end + instead.end()), None)
                    if other is not None:
                        claims.append(_Claim(other[2], polarity, where))
    return claims


def check_conclusion(cp: ConclusionCheckpoint, text: str) -> CheckpointResult:
    """The verdict on one conclusion checkpoint from the final answer."""

    def verdict(passed: bool, detail: str) -> CheckpointResult:
        return CheckpointResult(id=cp.id, passed=passed, failure=None if passed else "wrong_conclusion",
                                detail=detail)

    claims = read_claims(cp, text)
    role = cp.role[0]
    if not cp.options:
        yes = [c for c in claims if c.positive]
        no = [c for c in claims if not c.positive]
        wanted, unwanted = (yes, no) if cp.holds is True else (no, yes)
        if not cp.required and not claims:
            return verdict(True, f"draws no conclusion on {role!r} (none required)")
        if wanted and not unwanted:
            return verdict(True, f"concludes {'yes' if cp.holds else 'no'} ({wanted[0].where!r})")
        if wanted and unwanted:
            return verdict(False, f"says both: {wanted[0].where!r} and {unwanted[0].where!r}")
        if unwanted:
            return verdict(False, f"concludes {'no' if cp.holds else 'yes'} ({unwanted[0].where!r}) on {role!r}")
        return verdict(False, f"draws no conclusion on {role!r}")
    names = [n[0] for n in cp.option_names]
    holds = {next(i for i, n in enumerate(cp.option_names) if h.casefold() in {x.casefold() for x in n})
             for h in (cp.holds if isinstance(cp.holds, list) else [])}
    positive: dict[int, _Claim] = {}
    negative: dict[int, _Claim] = {}
    for claim in claims:
        indices = range(len(names)) if claim.option == -1 else [claim.option] if claim.option is not None else []
        for i in indices:
            (positive if claim.positive else negative).setdefault(i, claim)
    if not cp.required and not positive and not negative:
        return verdict(True, f"draws no conclusion on {role!r} (none required)")
    wrong = [i for i in positive if i not in holds]
    if wrong:
        return verdict(False, f"says {role!r} of {names[wrong[0]]} ({positive[wrong[0]].where!r})")
    denied = [i for i in holds if i in negative]
    if denied:
        return verdict(False, f"denies {role!r} of {names[denied[0]]} ({negative[denied[0]].where!r})")
    if not cp.required:  # optional: only a conclusion drawn must be right, none is demanded
        return verdict(True, f"no wrong conclusion on {role!r}")
    missing = [i for i in sorted(holds) if i not in positive]
    if missing:
        return verdict(False, f"does not say {role!r} of {names[missing[0]]}")
    if not holds and not negative:
        return verdict(False, f"does not say that {role!r} holds of none of the options")
    return verdict(True, f"says {role!r} of {', '.join(names[i] for i in sorted(holds)) or 'none of the options'}")
