"""The unit a rate is per: "0.42 EUR per kilometre" is not "0.42 EUR per mile".

A figure a text gives per a unit of measure (per km, /h, a kilogram) is only right with that
unit: the same figure per another unit of the quantity is another rate. The check is a pattern:
the figure, then (within a currency or a word) "per" or "/" and any name of the same unit.
"""

from __future__ import annotations

import re
from typing import Any

from mcptrials.scoring.units import quantity_names, quantity_of, unit_key

_PER = r"(?:per|/|a|an|each)"
_GAP = r"[^\d\n.;!?]{0,14}?"
"""Between the figure and "per": a currency or a word ("0.42 EUR per km", "$3 an hour"), no other figure."""
_OTHER_WORDS = {"duration", "temperature"}
"""Per day, per hour: also said in one word (daily, hourly), so the pattern would miss a right answer."""
_RATE = re.compile(r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?)" + _GAP + r"(?:\b" + _PER + r"\b\s*|/\s*)([a-z]{2,})\b",
                   re.IGNORECASE)


def _figure(text: str) -> str:
    """A pattern for a figure as a text may write it: thousands separators optional, trailing zeros optional."""
    whole, _, frac = text.replace(",", "").partition(".")
    groups = re.sub(r"(?<=\d)(?=(\d{3})+$)", ",", whole).split(",")
    pattern = r"[,\s]?".join(re.escape(g) for g in groups)
    frac = frac.rstrip("0")
    return pattern + (r"\." + re.escape(frac) + r"0*" if frac else r"(?:\.0+)?")


def _in_cents(figure: str, number: float) -> str:
    """A pattern for an amount under one unit of money, also as whole cents ("42 euro cents" for 0.42 EUR)."""
    cents = round(number * 100, 6)
    if not 0 < number < 1 or cents != int(cents):
        return _figure(figure)
    return r"(?:" + _figure(figure) + r"|" + str(int(cents)) + r"(?=\s*(?:[a-z]+\s+)?cents?\b))"


def rate_patterns(text: str, wanted: list[Any]) -> list[str]:
    """For each figure of ``wanted`` the text gives per a unit of measure, a pattern that finds it per that
    same unit (any of its names) and no other: the unit a rate is per is part of its value."""
    out: list[str] = []
    for m in _RATE.finditer(text):
        figure = m.group(1).replace(",", "")
        try:
            number = float(figure)
        except ValueError:
            continue
        if not any(isinstance(w, int | float) and not isinstance(w, bool) and abs(float(w) - number) < 1e-9
                   for w in wanted):
            continue
        key = unit_key(m.group(2).lower())
        names = sorted({n for n in quantity_names(m.group(2).lower()) if unit_key(n) == key} | {key or ""},
                       key=len, reverse=True)
        if key is None or not names or quantity_of(key) in _OTHER_WORDS:
            continue
        pattern = (r"(?i)(?<![\d.])" + _in_cents(m.group(1), number) + r"(?![\d])" + _GAP + r"(?:\b" + _PER
                   + r"\b\s*|/\s*)(?:" + "|".join(re.escape(n) for n in names) + r")(?![a-z])")
        if pattern not in out:
            out.append(pattern)
    return out
