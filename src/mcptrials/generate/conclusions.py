"""The conclusions a distilled task checks: the yes or no the goal asks for, and which item is the -est.

The explorer's answer is read by the same checker that judges agents (``read_claims``): a
conclusion is distilled only when that reading finds one, consistently. Both kinds are optional
(``required: false``): an answer may leave the question implicit, but a conclusion it draws
must be the explorer's ("Yes, Willow has space" when the explorer found it full fails).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcptrials.generate.answercheck import whole_field
from mcptrials.generate.values import Value, grounded_in, leaves, quoted_spans, values_in
from mcptrials.model import ConclusionCheckpoint
from mcptrials.scoring.answers import normalise_text, sentence_bounds, states
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


def _containers(docs: list[Any]) -> Iterator[dict[str, Any] | list[Any]]:
    """Every object and list of the results, each before what it holds (the order a reader meets them)."""
    stack: list[Any] = list(reversed(docs))
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            yield node
            stack.extend(reversed(node))


def _siblings(name: str, docs: list[Any]) -> list[str]:
    """The names the other records of a result list hold where this option is one record's name: the trains
    G905 and G903 beside G901 in one search result."""
    wanted = name.strip().lower()
    out: list[str] = []
    for node in _containers(docs):
        if isinstance(node, list):
            records = [r for r in node if isinstance(r, dict)]
            for key in {k for r in records for k, v in r.items()
                        if isinstance(v, str) and v.strip().lower() == wanted}:
                out.extend(r[key] for r in records if isinstance(r.get(key), str) and r[key] not in out)
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


def _denial_of(cid: str, phrases: list[str], subjects: list[str], description: str,
               answer: str) -> ConclusionCheckpoint | None:
    """``_denial`` said of its subjects (the agents, the forecast, the pharmacies found): a "Yes," answering
    another question of the goal is then no claim of the phrases; None when the explorer's answer asserts one."""
    cp = ConclusionCheckpoint(id=cid, role=list(dict.fromkeys(phrases)), options=list[str | list[str]](subjects),
                              holds=[],
                              required=False, description=description)
    return cp if phrases and check_conclusion(cp, answer).passed else None


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


_PART_OF = re.compile(r"\b(\d+)\s+(?:of|out of)\s+(?:the\s+|all\s+)?(\d+)\s+([a-z][a-z-]+)")
_FEW = ["minority of", "minority of the", "fewer than half of", "fewer than half of the", "fewer than half",
        "less than half of", "less than half of the", "less than half", "only a few", "only a handful of",
        "a handful of", "few"]
_MANY = ["majority of", "majority of the", "more than half of", "more than half of the", "more than half",
         "over half of", "over half of the", "over half", "most", "most of the"]


def proportion_words(answer: str, docs: list[Any]) -> list[ConclusionCheckpoint]:
    """What a count the answer states as a part of a whole ("seven of twelve agents", as a result says it)
    rules out: a minority, fewer than half or a few for more than half, a majority or most for less than half."""
    texts = [normalise_text(str(leaf)) for doc in docs for _path, leaf in leaves(doc) if isinstance(leaf, str)]
    out: list[ConclusionCheckpoint] = []
    for m in _PART_OF.finditer(normalise_text(answer)):
        part, whole, noun = int(m.group(1)), int(m.group(2)), m.group(3)
        if not 0 < part < whole or 2 * part == whole or not noun.endswith("s") or \
                not any(re.search(rf"\b{part}\s+(?:of|out of)\s+(?:the\s+|all\s+)?{whole}\s+{noun}\b", t)
                        for t in texts):
            continue  # only a share a tool result gives is one the answer must not misread
        words = _FEW if 2 * part > whole else _MANY
        phrases = [f"{w} {noun}" for w in words]
        cp = _denial_of(f"conclusion_share_{len(out) + 1}", phrases, [noun],
                        f"{part} of {whole} {noun} is {'more' if 2 * part > whole else 'less'} than half", answer)
        if cp is not None and cp.role[0] not in {c.role[0] for c in out}:
            out.append(cp)
    return out


_CONDITION_KEY = re.compile(r"condition|summary|weather|description|forecast")
_WET = re.compile(r"(?i)\b(?:rain|rainy|showers?|drizzle|thunderstorms?|storms?|sleet|snow)\b")
_DRY_CONDITION = re.compile(r"(?i)^(?:clear|sunny|mostly sunny|partly cloudy|cloudy|mostly cloudy|overcast|fair|"
                            r"dry|fog|foggy|haze|hazy|windy)$")
_DRY_WORDS = ["stay dry", "staying dry", "be dry", "a dry day", "dry day", "dry weather", "dry and", "will be dry",
              "should be dry", "no rain", "won't rain", "will not rain", "not going to rain", "not expected to rain",
              "rain-free", "no need for an umbrella", "no need for rain", "no need to pack rain", "leave the umbrella",
              "no precipitation"]
_WET_WORDS = ["will rain", "going to rain", "expect rain", "rain is expected", "rain expected", "rain is likely",
              "likely to rain", "rainy day", "a wet day", "be wet", "bring an umbrella", "take an umbrella",
              "pack an umbrella"]


def _stated_records(docs: list[Any], answer: str) -> list[dict[str, Any]]:
    """The records (result objects) at least two of whose own figures the answer states: the day it reports."""
    out: list[dict[str, Any]] = []
    for node in _containers(docs):
        if isinstance(node, dict):
            figures = [v for v in node.values() if isinstance(v, int | float) and not isinstance(v, bool)
                       and abs(v) not in {0, 1}]
            if sum(states(answer, v) for v in dict.fromkeys(figures)) >= 2:
                out.append(node)
    return out


def weather_words(answer: str, docs: list[Any]) -> ConclusionCheckpoint | None:
    """What the conditions of the forecast records the answer reports rule out: "it should stay dry" of a day
    the results forecast rain for, "take an umbrella" when every day it reports is dry."""
    conditions = [str(v) for r in _stated_records(docs, answer) for k, v in r.items()
                  if isinstance(v, str) and _CONDITION_KEY.search(k.lower())]
    if not conditions:
        return None
    if all(_WET.search(c) for c in conditions) and any(states(answer, c) for c in conditions):
        return _denial_of("conclusion_weather", _DRY_WORDS, ["the forecast"], f"the forecast it reports is"
                          f" {conditions[0]}", answer)
    if all(_DRY_CONDITION.match(c.strip()) for c in conditions):
        return _denial_of("conclusion_weather", _WET_WORDS, ["the forecast"], f"the forecast it reports is"
                          f" {conditions[0]}", answer)
    return None


_LEAST = ["smallest", "lowest", "least", "fewest"]
_MOST = ["largest", "biggest", "highest", "most", "greatest"]
_UNIT_TAIL = {"cny", "usd", "eur", "gbp", "jpy", "m", "km", "mi", "min", "mins", "s", "h", "hrs", "pct", "c", "f",
              "kph", "mph", "mm", "cm", "kg", "g", "count", "total", "num", "n"}
_COUNT_NAMES = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def _attribute(key: str) -> str:
    """The words a numeric result key names its quantity by: ``market_cap`` "market cap", ``price_cny`` "price"."""
    words = [w for w in re.split(r"[_\W]+", key.lower()) if w]
    while len(words) > 1 and words[-1] in _UNIT_TAIL:
        words.pop()
    return " ".join(words)


_CORPORATE = re.compile(r"(?i)[,\s]+(?:corporation|corp\.?|incorporated|inc\.?|ltd\.?|limited|plc|llc|co\.?|"
                        r"group|holdings|s\.?a\.?|ag|n\.?v\.?)$")


def _record_names(records: list[dict[str, Any]], answer: str) -> list[list[str]] | None:
    """Each record's names the answer uses (the string fields no other record shares that it states), or None
    when the answer names one of them by none."""
    out = []
    for record in records:
        names = [v for k, v in record.items() if isinstance(v, str) and len(v) <= 60 and states(answer, v)
                 and sum(r.get(k) == v for r in records) == 1]
        if not names:
            return None
        full = record.get("name")
        short = _CORPORATE.sub("", full).strip() if isinstance(full, str) else ""
        if short and short not in names and states(answer, short) and \
                not any(isinstance(r.get("name"), str) and short in r["name"] for r in records if r is not record):
            names.append(short)  # "Intel" for Intel Corporation
        out.append(names)
    return out


def ranked_words(answer: str, docs: list[Any]) -> list[ConclusionCheckpoint]:
    """Which record a superlative of a figure the answer reports for records listed side by side holds for, asked
    for or not: "AMD is the smallest by market cap" beside the three market caps it states, when Intel's is lower."""
    out: list[ConclusionCheckpoint] = []
    for records in (r for doc in docs for r in _all_record_lists(doc)):
        names = _record_names(records, answer)
        if names is None:
            continue
        keys = [k for k, v in records[0].items() if isinstance(v, int | float) and not isinstance(v, bool)]
        for key in keys:
            values = [r.get(key) for r in records]
            figures = [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
            if len(figures) != len(records) or sum(states(answer, v) for v in figures) < 2:
                continue
            attr, count = _attribute(key), _COUNT_NAMES[len(records) - 2] if len(records) <= 10 else "all"
            for words, pick in ((_LEAST, min(figures)), (_MOST, max(figures))):
                if figures.count(pick) != 1:
                    continue
                role = [p for w in words for p in (f"{w} {attr}", f"{w} by {attr}", f"{w} of the {count} by {attr}",
                                                   f"{w} of them by {attr}", f"{w} in {attr}")]
                cp = ConclusionCheckpoint(id=f"conclusion_ranked_{len(out) + 1}", role=role,
                                          options=list[str | list[str]](names),
                                          holds=[names[figures.index(pick)][0]], required=False,
                                          description=f"{names[figures.index(pick)][0]} has the {words[0]} {attr}")
                if check_conclusion(cp, answer).passed:
                    out.append(cp)
    return out


def _all_record_lists(doc: Any) -> list[list[dict[str, Any]]]:
    """Every list of two or more records (objects) in a result."""
    out: list[list[dict[str, Any]]] = []
    if isinstance(doc, dict):
        for child in doc.values():
            out += _all_record_lists(child)
    elif isinstance(doc, list):
        records = [r for r in doc if isinstance(r, dict)]
        if len(records) >= 2 and len(records) == len(doc):
            out.append(records)
        for child in doc:
            out += _all_record_lists(child)
    return out


_BASELINES = ["baseline", "baselines", "classic", "traditional", "operational", "conventional", "standard",
              "existing", "previous", "prior", "old", "simple", "simpler", "duration", "rule", "reference",
              "benchmark", "current", "human", "state-of-the-art", "heuristic"]
_BASELINE_NEAR = re.compile(r"\b(?:" + "|".join(re.escape(b) for b in _BASELINES) + r")\b")
_LOWER_BETTER = re.compile(r"\b(?:errors?|loss|rmse|mae|mse|latency|delay|miss rate|false positives?|"
                           r"deviation|bias|drift)\b")
_HIGHER_BETTER = re.compile(r"\b(?:accuracy|kappa|agreement|precision|recall|f1|auc|score|success rate|"
                            r"correlation|hit rate)\b")
_FIGURE = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)(?![\w-])(\s*(?:%|[a-z]+))?")  # not "72-hour"
_BETTER = ["more accurate than", "better than", "beat", "beats", "outperformed", "outperforms", "improved on",
           "improves on", "ahead of", "lower error than", "smaller error than", "more precise than"]
_WORSE = ["worse than", "less accurate than", "less precise than", "trailed", "trails", "trailing", "lagged",
          "lagged behind", "lags", "lagging", "lagging behind", "behind", "fell short of", "falls short of",
          "underperformed", "underperforms", "no better than"]


def _study_and_baseline(text: str) -> tuple[float, float, bool] | None:
    """The figure a result reports for the study and the one it reports for a baseline it compares with ("error
    4.1 minutes ... the classic rule had an error of 6.8 minutes"), and whether lower is better."""
    norm = normalise_text(text)
    bounds = sentence_bounds(norm)
    for k, (start, end) in enumerate(bounds):
        here = norm[start:end]
        after = norm[bounds[k + 1][0]:bounds[k + 1][1]] if k + 1 < len(bounds) else ""
        first = _FIGURE.search(here)
        if first is None or _BASELINE_NEAR.search(here[:first.start()]):
            continue
        lower = bool(_LOWER_BETTER.search(here))
        if lower == bool(_HIGHER_BETTER.search(here)):
            continue  # neither, or both: which way is better is not said
        unit = (first.group(2) or "").strip()
        rest = here[first.end():] + " " + after
        second = next((m for m in _FIGURE.finditer(rest) if (m.group(2) or "").strip() == unit), None)
        if second is None or not _BASELINE_NEAR.search(rest):
            continue
        a, b = float(first.group(1)), float(second.group(1))
        if a != b:
            return a, b, lower
    return None


def baseline_words(answer: str, docs: list[Any]) -> list[ConclusionCheckpoint]:
    """Whether the study a result reports beat the baseline it compares with, by the two figures the answer
    states: "it trailed the operational model" for 142 km of track error against 168 km fails."""
    out: list[ConclusionCheckpoint] = []
    texts = [str(leaf) for doc in docs for _path, leaf in leaves(doc) if isinstance(leaf, str) and len(leaf) > 40]
    for text in texts:
        pair = _study_and_baseline(text)
        if pair is None or not (states(answer, pair[0]) and states(answer, pair[1])):
            continue
        study, baseline, lower = pair
        better = study < baseline if lower else study > baseline
        role = [f"{w} the {b}" for w in _BETTER for b in _BASELINES]
        opposite = [f"{w} the {b}" for w in _WORSE for b in _BASELINES]
        cp = ConclusionCheckpoint(id=f"conclusion_baseline_{len(out) + 1}", role=role, opposite=opposite,
                                  options=["the study"], holds=["the study"] if better else [], required=False,
                                  description=f"{study:g} against {baseline:g} for the baseline: the study did "
                                              f"{'better' if better else 'worse'}")
        if check_conclusion(cp, answer).passed and cp.description not in {c.description for c in out}:
            out.append(cp)
    return out


def figure_words(answer: str, docs: list[Any]) -> list[ConclusionCheckpoint]:
    """The qualitative words the figures an answer states rule out, asked for or not ("all three ended higher"
    beside -4.49 % on a page the goal only asked to publish; "a minority" for seven of twelve)."""
    found = [correlation_words(answer, docs), *direction_words(answer, docs), *proportion_words(answer, docs),
             weather_words(answer, docs), *ranked_words(answer, docs), *baseline_words(answer, docs)]
    return [cp for cp in found if cp is not None]


_LIMIT = re.compile(r"(?i)\b(within|under|less than|no more than|at most|up to|below|no further than|"
                    r"no farther than)\s+(?:about\s+|around\s+|roughly\s+|approximately\s+|~\s*)?"
                    r"(\d+(?:\.\d+)?)\s*(km|kilometres?|kilometers?|m|metres?|meters?|mi|miles?|"
                    r"min|mins|minutes?|h|hrs?|hours?)\b")
_SCALE = {"km": ("length", 1000.0), "kilometre": ("length", 1000.0), "kilometer": ("length", 1000.0),
          "m": ("length", 1.0), "metre": ("length", 1.0), "meter": ("length", 1.0), "mi": ("length", 1609.344),
          "mile": ("length", 1609.344), "min": ("time", 1.0), "mins": ("time", 1.0), "minute": ("time", 1.0),
          "h": ("time", 60.0), "hr": ("time", 60.0), "hour": ("time", 60.0), "s": ("time", 1 / 60),
          "sec": ("time", 1 / 60), "seconds": ("time", 1 / 60), "minutes": ("time", 1.0), "hours": ("time", 60.0),
          "meters": ("length", 1.0), "metres": ("length", 1.0), "km_": ("length", 1000.0)}


def _unit_of_key(key: str) -> tuple[str, float] | None:
    """The dimension and scale a result key names by its unit suffix: ``distance_m`` metres, ``walk_min``
    minutes."""
    tail = key.lower().rsplit("_", 1)[-1] if "_" in key else ""
    return _SCALE.get(tail)


def limit_words(asked: str, answer: str, docs: list[Any]) -> ConclusionCheckpoint | None:
    """What a limit the request sets ("within about 10 km") rules out for the figures the answer reports of that
    kind (in the results' unit or the limit's): "beyond the 10 km" when all of them are inside it, "within 10 km"
    when all are outside. Only a limit the agent reads counts: one only the explorer's goal set is no promise."""
    m = _LIMIT.search(asked)
    if m is None:
        return None
    word, number, unit = m.group(1).lower(), m.group(2), m.group(3).lower()
    dimension, scale = _SCALE.get(unit) or _SCALE.get(unit.rstrip("s"), ("", 0.0))
    limit = float(number) * scale
    stated: list[float] = []
    names: list[str] = []

    for node in _containers(docs):
        if not isinstance(node, dict):
            continue
        for key, v in node.items():
            kind = _unit_of_key(str(key))
            if isinstance(v, int | float) and not isinstance(v, bool) and kind is not None and \
                    kind[0] == dimension and (states(answer, v) or states(answer, v * kind[1] / scale)):
                stated.append(float(v) * kind[1])
                name = node.get("name") or node.get("title")
                if isinstance(name, str) and name not in names:
                    names.append(name)
    if not stated:
        return None
    amount = [f"{number} {unit}", f"{number}{unit}"]
    inside = [f"{w} {a}" for w in ["within", "under", "less than", "below", "inside", "inside the", "within the",
                                  "inside your", "within your", "under the", "below the"] for a in amount]
    outside = [f"{w} {a}" for w in ["beyond", "beyond the", "outside", "outside the", "more than", "over",
                                   "over the", "further than", "farther than", "exceeds", "exceeds the",
                                   "exceeding", "exceeding the", "above", "above the"] for a in amount]
    outside += ["outside your range", "out of range", "outside the range", "beyond your range", "beyond the range",
                "outside your limit", "beyond your limit", "over your limit", "over the limit"]
    if all(v <= limit for v in stated):
        phrases, what = outside, f"{word} {number} {unit}"
    elif all(v > limit for v in stated):
        phrases, what = inside, f"beyond {number} {unit}"
    else:
        return None
    return _denial_of("conclusion_limit", phrases, names or [f"the {dimension}"],
                      f"every figure it reports is {what}", answer)


_WHICH = re.compile(r"(?i)\bwhich\b([^?.!]*)\?")


def _record_lists(docs: list[Any]) -> list[list[dict[str, Any]]]:
    """Every list of two or more named records in the results (the visitor centers of one park)."""
    out: list[list[dict[str, Any]]] = []
    for node in _containers(docs):
        if isinstance(node, list):
            records = [r for r in node if isinstance(r, dict) and isinstance(r.get("name"), str)]
            if len(records) >= 2:
                out.append(records)
    return out


def which_field(goal: str, answer: str, docs: list[Any]) -> list[ConclusionCheckpoint]:
    """Which of the records a result lists side by side a "which ...?" question of the goal picks, when it asks
    for a value of one of their fields ("which visitor centers stay open all year": season "year-round"): the
    records holding that value (by the results, as the explorer's answer reads them) and no other."""
    m = _WHICH.search(goal)
    if m is None:
        return []
    question = re.findall(r"[a-z][a-z'-]*", m.group(1).lower())
    out: list[ConclusionCheckpoint] = []
    for records in _record_lists(docs):
        names = [str(r["name"]) for r in records]
        if len({n.lower() for n in names}) != len(names):
            continue
        for key in dict.fromkeys(k for r in records for k, v in r.items() if isinstance(v, str) and k != "name"):
            values = [r.get(key) for r in records]
            for value in dict.fromkeys(v for v in values if isinstance(v, str)):
                overlap = [i for i, w in enumerate(question) if w in set(re.findall(r"[a-z]{3,}", value.lower()))]
                if not overlap or values.count(value) == len(values) or not states(answer, value):
                    continue
                tails = [" ".join(question[i:]) for i in range(max(0, overlap[0] - 3), len(question) - 1)]
                role = list(dict.fromkeys([value, value.replace("-", " "), *tails]))
                others = [v for v in dict.fromkeys(values) if isinstance(v, str) and v != value]
                holds = [n for n, v in zip(names, values, strict=True) if v == value]
                cp = ConclusionCheckpoint(id=f"conclusion_which_{len(out) + 1}", role=role, opposite=others,
                                          options=list[str | list[str]](names), holds=holds,
                                          required=False, description=f"which records have {key} {value!r}")
                claims = read_claims(cp, answer)
                said = {c.option for c in claims if c.positive and c.option is not None and c.option >= 0}
                if said and check_conclusion(cp, answer).passed:  # the explorer's answer picks them, as results do
                    out.append(cp)
    return out


def conclusions(goal: str, answer: str, read_results: list[str], docs: list[Any],
                year: int | None, asked: str | None = None) -> list[ConclusionCheckpoint]:
    """Every conclusion the goal asks for and the explorer's answer draws clearly, and what a limit the request
    (``asked``, the prompt the agent reads) sets rules out (``figure_words`` adds what its figures rule out)."""
    found = [yes_no(goal, answer), superlative(goal, answer, read_results, docs, year),
             limit_words(asked or goal, answer, docs)]
    if found[1] is None:  # a "which" question no superlative answers: perhaps one of the records' fields
        found += which_field(goal, answer, docs)
    return [cp for cp in found if cp is not None]
