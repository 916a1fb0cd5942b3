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
from mcptrials.generate.values import Value, grounded_in, leaves, quoted_spans, values_in
from mcptrials.model import ConclusionCheckpoint
from mcptrials.scoring.answers import states
from mcptrials.scoring.conclusions import check_conclusion, read_claims

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
_THE_SUPERLATIVE = re.compile(r"(?i)\bthe\s+(best|worst|most\s+\w+|least\s+\w+|fewest|\w{3,}est)\b")
_NOT_SUPERLATIVE = {"interest", "request", "forest", "test", "latest", "rest", "honest", "suggest", "guest", "west",
                    "nest", "chest", "contest", "digest", "invest", "protest", "quest", "manifest", "harvest",
                    "midwest", "northwest", "southwest", "unrest", "arrest", "priest", "conquest", "inquest",
                    "behest", "modest", "earnest", "most recent", "most likely"}
_SAME_ROLE = [["fastest", "quickest"], ["largest", "biggest"], ["nearest", "closest"],
              ["cheapest", "least expensive"], ["most expensive", "dearest"], ["newest", "latest"]]


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


def _siblings(name: str, docs: list[Any]) -> list[str]:
    """The names the other records of a result list hold where this option is one record's name: the trains
    G905 and G903 beside G901 in one search result."""
    wanted = name.strip().lower()
    out: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            records = [r for r in node if isinstance(r, dict)]
            for key in {k for r in records for k, v in r.items()
                        if isinstance(v, str) and v.strip().lower() == wanted}:
                out.extend(r[key] for r in records if isinstance(r.get(key), str) and r[key] not in out)
            for child in node:
                walk(child)

    for doc in docs:
        walk(doc)
    return out


def _superlatives(goal: str) -> list[str]:
    """The superlatives the goal asks about, "which ... is worst" first, then "the fastest train"."""
    found = [m.group(1).lower() for pattern in (_SUPERLATIVE, _THE_SUPERLATIVE) for m in pattern.finditer(goal)]
    return [w for w in dict.fromkeys(" ".join(w.split()) for w in found) if w not in _NOT_SUPERLATIVE]


def superlative(goal: str, answer: str, read_results: list[str], docs: list[Any],
                year: int | None) -> ConclusionCheckpoint | None:
    """Which of the items the answer names the goal's superlative holds for ("which is worst": Cairo;
    "book the fastest train": G901), among them and the other records of the results they belong to."""
    options: list[Value] = []
    for v in [*values_in(answer, year=year), *values_in(goal, year=year)]:
        if v.kind in {"name", "code"} and any(grounded_in(v, r) for r in read_results) and \
                (v.kind == "code" or whole_field(v, docs)) and v.key not in {o.key for o in options}:
            options.append(v)
    options += [v for v in quoted_spans(answer) if whole_field(v, docs)]  # a title quoted whole
    names = [str(o.value) for o in options]
    records = [[str(o.value), *_siblings(str(o.value), docs)] for o in options]
    if any(len(r) > 1 for r in records):  # items the results list side by side: the ones a superlative ranks
        names = []
        for n in (n for r in records if len(r) > 1 for n in r):
            if n.lower() not in {x.lower() for x in names}:
                names.append(n)
    if len(names) < 2:
        return None
    for word in _superlatives(goal):
        role = next((group for group in _SAME_ROLE if word in group), [word])
        cp = ConclusionCheckpoint(id="conclusion_superlative", role=list(role), options=list[str | list[str]](names),
                                  holds=[], required=False, description=f"which item is the {word}")
        found = _consistent(cp, answer)
        if found is not None:
            return _ranked_with(found, docs)
    return None


def _ranked_with(cp: ConclusionCheckpoint, docs: list[Any]) -> ConclusionCheckpoint:
    """The checkpoint narrowed to the records ranked with the one the explorer picked (the other trains of its
    search, not the stations they stop at), when the results list it beside others."""
    picked = cp.holds[0] if isinstance(cp.holds, list) and cp.holds else None
    if picked is None:
        return cp
    family = [str(picked), *_siblings(str(picked), docs)]
    family = [n for i, n in enumerate(family) if n.lower() not in {x.lower() for x in family[:i]}]
    return cp.model_copy(update={"options": family}) if len(family) > 1 else cp


_CORRELATION_KEY = re.compile(r"corr|pearson|spearman|^r$")
_STRONG = ["strong correlation", "strongly correlated", "strong positive", "strong negative", "strong relationship",
           "strong link", "very strong", "highly correlated", "high correlation", "tightly correlated",
           "move in lockstep", "moves in lockstep", "almost in lockstep", "nearly in lockstep", "near-perfect",
           "nearly perfect", "almost perfect", "perfectly correlated"]
_WEAK = ["weak correlation", "weakly correlated", "weak positive", "weak negative", "weak relationship",
         "barely move", "barely moves", "barely correlated", "hardly move", "hardly moves", "hardly correlated",
         "uncorrelated", "no correlation", "little correlation", "essentially independent", "largely independent",
         "move independently", "no relationship", "no real relationship", "little relationship"]
_POSITIVE = ["positive correlation", "positively correlated", "positive relationship", "in the same direction"]
_NEGATIVE = ["negative correlation", "negatively correlated", "inverse correlation", "inversely correlated",
             "inverse relationship", "negative relationship", "opposite directions", "opposite direction"]
_DIRECTIONS = {  # a family of signed figures (by its result key): words that say it was positive / negative
    "surprise": (["beat", "beats", "topped", "exceeded", "above estimates", "above expectations",
                  "ahead of estimates", "ahead of expectations"],
                 ["missed", "a miss", "fell short", "below estimates", "below expectations"]),
    "change": (["rally", "rallied", "rallying", "surged", "surging", "soared", "soaring", "jumped", "up strongly",
                "up sharply", "sharply higher", "closed higher", "ended higher", "finished higher", "higher on the day",
                "up on the day", "new high", "all-time high", "record high", "slightly higher", "marginally higher",
                "a touch higher", "fractionally higher", "edged up", "edged higher", "ticked up", "ticked higher",
                "closing higher", "a slight gain", "a small gain"],
               ["plunged", "plunging", "tumbled", "slumped", "sank", "crashed", "sell-off", "selloff", "down sharply",
                "sharply lower", "closed lower", "ended lower", "finished lower", "lower on the day",
                "down on the day", "new low", "record low", "slightly lower", "marginally lower", "a touch lower",
                "fractionally lower", "edged down", "edged lower", "ticked down", "ticked lower", "closing lower",
                "a slight loss", "a small loss"]),
}
_FAMILY_KEY = {"surprise": re.compile(r"surprise"),
               "change": re.compile(r"(?:^|_)(?:change|chg|return|returns|delta)(?:_|$)")}
_ALL = ["all", "all of them", "each", "every one", "both"]
_COUNT_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def _stated_figures(docs: list[Any], key: re.Pattern[str], answer: str) -> list[float]:
    """The numbers under result keys ``key`` matches that the answer states (to its own precision)."""
    out: list[float] = []
    for doc in docs:
        for path, leaf in leaves(doc):
            if not path or isinstance(leaf, bool) or not isinstance(leaf, int | float) or leaf == 0:
                continue
            if key.search(path[-1].lower()) and leaf not in out and (
                    states(answer, leaf) or states(answer, abs(leaf)) or states(answer, round(leaf, 2))):
                out.append(float(leaf))
    return out


def _denial(cid: str, phrases: list[str], description: str, answer: str) -> ConclusionCheckpoint | None:
    """A check that the answer asserts none of ``phrases`` (a denial is fine); None when the explorer's does."""
    if not phrases:
        return None
    cp = ConclusionCheckpoint(id=cid, role=list(dict.fromkeys(phrases)), holds=False, required=False,
                              description=description)
    return cp if check_conclusion(cp, answer).passed else None


_R_SQUARED_KEY = re.compile(r"r_?sq|rsquared|^r2$|determination")
_GOOD_FIT = ["strong predictor", "good predictor", "predicts well", "predicts very well", "good fit", "great fit",
             "excellent fit", "tight fit", "explains most", "explains almost all", "explains nearly all"]
_POOR_FIT = ["weak predictor", "poor predictor", "only a weak", "bad predictor", "poor fit", "weak fit", "bad fit",
             "loose fit", "explains little", "explains very little", "barely predicts", "hardly predicts",
             "does not predict", "doesn't predict"]


def correlation_words(answer: str, docs: list[Any]) -> ConclusionCheckpoint | None:
    """What the one correlation coefficient (or the one R squared) the answer states rules out: a strength two
    bands away ("a strong correlation" for 0.38, "a weak predictor" for R squared 0.992) and the other sign."""
    stated = [r for r in _stated_figures(docs, _CORRELATION_KEY, answer) if -1 <= r <= 1]
    squared = [r2 for r2 in _stated_figures(docs, _R_SQUARED_KEY, answer) if 0 <= r2 <= 1]
    if len(stated) + len(squared) != 1:
        return None
    r = stated[0] if stated else squared[0] ** 0.5  # R squared gives the strength, not the sign
    phrases = (_STRONG + _GOOD_FIT if abs(r) < 0.5 else []) + (_WEAK + _POOR_FIT if abs(r) >= 0.6 else [])
    if stated:
        phrases += _NEGATIVE if r >= 0.2 else _POSITIVE if r <= -0.2 else []
    return _denial("conclusion_strength", phrases, f"what a correlation of {r} does not allow one to say", answer)


def direction_words(answer: str, docs: list[Any]) -> list[ConclusionCheckpoint]:
    """What the signed figures the answer states (a change, an earnings surprise) rule out: when all have one
    sign, a word of the other direction ("rallying" for -0.07 %); when their signs differ, saying that all of
    them went one way ("all four beat")."""
    out = []
    for family, (up, down) in _DIRECTIONS.items():
        stated = _stated_figures(docs, _FAMILY_KEY[family], answer)
        if not stated:
            continue
        if all(v < 0 for v in stated) or all(v > 0 for v in stated):
            phrases = up if stated[0] < 0 else down
            what = "negative" if stated[0] < 0 else "positive"
        elif len(stated) >= 2:
            count = _COUNT_WORDS[len(stated) - 2] if len(stated) <= 10 else str(len(stated))
            every = [*_ALL, f"all {count}", f"all {len(stated)}", f"all {count} of them"]
            moves = [*up[:4], *down[:2], "rose", "fell", "gained", "dropped", "climbed", "declined", "went up",
                     "went down", "were up", "were down", "ended higher", "ended lower", "finished higher",
                     "finished lower", "ended the month higher", "ended the month lower", "ended the week higher",
                     "ended the week lower", "moved up", "moved down"]
            phrases = [f"{a} {w}" for a in every for w in moves]
            what = "of both signs"
        else:
            continue
        cp = _denial(f"conclusion_{family}", phrases, f"the {family} figures stated are {what}", answer)
        if cp is not None:
            out.append(cp)
    return out


def figure_words(answer: str, docs: list[Any]) -> list[ConclusionCheckpoint]:
    """The qualitative words the figures an answer states rule out, asked for or not ("all three ended higher"
    beside -4.49 % on a page the goal only asked to publish)."""
    return [cp for cp in [correlation_words(answer, docs), *direction_words(answer, docs)] if cp is not None]


def conclusions(goal: str, answer: str, read_results: list[str], docs: list[Any],
                year: int | None) -> list[ConclusionCheckpoint]:
    """Every conclusion the goal asks for and the explorer's answer draws clearly (``figure_words`` adds what its
    figures rule out)."""
    found = [yes_no(goal, answer), superlative(goal, answer, read_results, docs, year)]
    return [cp for cp in found if cp is not None]
