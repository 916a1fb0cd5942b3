"""The conclusions a distilled task checks: the yes or no the goal asks for, and which item is the -est.

The explorer's answer is read by the same checker that judges agents (``read_claims``): a
conclusion is distilled only when that reading finds one, consistently. Both kinds are optional
(``required: false``): an answer may leave the question implicit, but a conclusion it draws
must be the explorer's ("Yes, Willow has space" when the explorer found it full fails).
"""

from __future__ import annotations

import re
from typing import Any

from mcptrials.generate.answercheck import whole_field
from mcptrials.generate.values import Value, grounded_in, values_in
from mcptrials.model import ConclusionCheckpoint
from mcptrials.scoring.conclusions import read_claims

_YES_NO = re.compile(r"(?i)(?:^|[.!?:;]\s+|,\s*|\band\s+|\bbut\s+)((?:is|are|was|were|do|does|did|can|could|will|"
                     r"would|should|has|have|am)\s[^?.!]*)\?")
_SUBJECT = re.compile(r"(?i)^(?:is|are|was|were|do|does|did|can|could|will|would|should|has|have|am)\s+"
                      r"(?:it|there|they|i|we|you|he|she|this|that|the\s+\w+|\w+)\s+(?:be\s+|still\s+|any\s+|a\s+|an\s+)*")
_STOP = {"the", "a", "an", "any", "some", "right", "now", "today", "tomorrow", "still", "currently", "going", "to",
         "be", "get", "got", "it", "there", "at", "in", "on", "for", "of", "me", "my", "our", "us", "again"}
_OPPOSITES = {"open": ["closed", "shut"], "available": ["unavailable", "sold out", "fully booked", "not available"],
              "space": ["full", "fully booked", "no space", "sold out"], "free": ["busy", "taken", "booked"],
              "rain": ["dry", "no rain"], "raining": ["dry", "no rain"], "seats": ["sold out", "no seats", "full"],
              "late": ["on time"], "delayed": ["on time"], "cancelled": ["running", "on time"]}
_SUPERLATIVE = re.compile(r"(?i)\bwhich\b[^?.!]*?\b(best|worst|most\s+\w+|least\s+\w+|fewest|\w{3,}est)\b")
_NOT_SUPERLATIVE = {"interest", "request", "forest", "test", "latest", "rest", "honest", "suggest", "guest", "west",
                    "nest", "chest", "contest", "digest", "invest", "protest", "quest", "manifest", "harvest"}


def _predicate(question: str) -> str | None:
    """The word a yes/no question asks about: "is it open right now" asks "open"."""
    rest = _SUBJECT.sub("", question.strip())
    words = [w for w in re.findall(r"[a-z][a-z'-]*", rest.lower()) if w not in _STOP]
    return words[0] if words else None


def _consistent(cp: ConclusionCheckpoint, answer: str) -> ConclusionCheckpoint | None:
    """The checkpoint with what the explorer's answer concludes, or None when it concludes nothing clear."""
    claims = read_claims(cp, answer)
    if not cp.options:
        said = {c.positive for c in claims}
        return cp.model_copy(update={"holds": said.pop()}) if len(said) == 1 else None
    names = [n[0] for n in cp.option_names]
    positive = {c.option for c in claims if c.positive and c.option is not None and c.option >= 0}
    denied = {c.option for c in claims if not c.positive}
    if len(positive) != 1 or positive & denied:
        return None
    return cp.model_copy(update={"holds": [names[positive.pop()]]})


def yes_no(goal: str, answer: str) -> ConclusionCheckpoint | None:
    """The yes or no the explorer gave to a yes/no question of the goal."""
    m = _YES_NO.search(goal)
    predicate = _predicate(m.group(1)) if m else None
    if m is None or predicate is None:
        return None
    cp = ConclusionCheckpoint(id="conclusion_yes_no", role=[predicate], opposite=_OPPOSITES.get(predicate, []),
                              required=False, description=f"the answer to: {m.group(1).strip()}?")
    return _consistent(cp, answer)


def superlative(goal: str, answer: str, read_results: list[str], docs: list[Any],
                year: int | None) -> ConclusionCheckpoint | None:
    """Which of the items the answer names the goal's superlative holds for ("which is worst": Cairo)."""
    m = _SUPERLATIVE.search(goal)
    if m is None or m.group(1).lower() in _NOT_SUPERLATIVE:
        return None
    options: list[Value] = []
    for v in [*values_in(answer, year=year), *values_in(goal, year=year)]:
        if v.kind in {"name", "code"} and any(grounded_in(v, r) for r in read_results) and \
                (v.kind == "code" or whole_field(v, docs)) and v.key not in {o.key for o in options}:
            options.append(v)
    if len(options) < 2:
        return None
    cp = ConclusionCheckpoint(id="conclusion_superlative", role=[m.group(1).lower()],
                              options=[str(o.value) for o in options], holds=[], required=False,
                              description=f"which item is the {m.group(1).lower()}")
    return _consistent(cp, answer)


def conclusions(goal: str, answer: str, read_results: list[str], docs: list[Any],
                year: int | None) -> list[ConclusionCheckpoint]:
    """Every conclusion the goal asks for and the explorer's answer draws clearly."""
    found = [yes_no(goal, answer), superlative(goal, answer, read_results, docs, year)]
    return [cp for cp in found if cp is not None]
