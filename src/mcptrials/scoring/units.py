"""Quantities stated in another unit than the spec's: 12 °C as "54 °F", 13 km as "8.1 miles".

A fact with a ``unit`` may be stated in any other unit of the same quantity, when the number is
followed by that unit's name or symbol and converts back to the fact's value (within the rounding
the text used, widened by the conversion factor).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from mcptrials.scoring.answers import Mention, NumberMention, _scanned, number_mentions

_Convert = tuple[str, Callable[[float], float]]  # quantity, to the quantity's base unit

_LINEAR: dict[str, tuple[str, float]] = {
    "km": ("length", 1000.0), "m": ("length", 1.0), "cm": ("length", 0.01), "mm": ("length", 0.001),
    "mi": ("length", 1609.344), "ft": ("length", 0.3048), "in": ("length", 0.0254), "yd": ("length", 0.9144),
    "nmi": ("length", 1852.0),
    "kg": ("mass", 1.0), "g": ("mass", 0.001), "lb": ("mass", 0.45359237), "oz": ("mass", 0.028349523125),
    "t": ("mass", 1000.0),
    "l": ("volume", 1.0), "ml": ("volume", 0.001), "gal": ("volume", 3.785411784),
    "km/h": ("speed", 1 / 3.6), "mph": ("speed", 0.44704), "m/s": ("speed", 1.0), "kn": ("speed", 1852 / 3600),
    "ms": ("duration", 0.001), "s": ("duration", 1.0),
    "min": ("duration", 60.0), "h": ("duration", 3600.0), "d": ("duration", 86400.0),
    "byte": ("data", 1.0), "kb": ("data", 1000.0), "kib": ("data", 1024.0), "mb": ("data", 1e6),
    "mib": ("data", 1048576.0), "gb": ("data", 1e9), "gib": ("data", 1073741824.0),
    "ha": ("area", 10_000.0), "km2": ("area", 1_000_000.0), "acre": ("area", 4046.8564224),
    "mi2": ("area", 2_589_988.110336),
}
_TEMPERATURE = {"c": (1.0, 0.0), "f": (5 / 9, -32.0 * 5 / 9), "k": (1.0, -273.15)}  # to Celsius: x * a + b

_NAMES: dict[str, tuple[str, ...]] = {
    "km": ("km", "kms", "kilometres", "kilometers", "kilometre", "kilometer"),
    "m": ("m", "metres", "meters", "metre", "meter"), "cm": ("cm", "centimetres", "centimeters"),
    "mm": ("mm", "millimetres", "millimeters"), "mi": ("mi", "miles", "mile"), "ft": ("ft", "feet", "foot"),
    "in": ("inches", "inch"), "yd": ("yd", "yards", "yard"), "nmi": ("nmi", "nautical miles"),
    "kg": ("kg", "kgs", "kilograms", "kilogram", "kilos", "kilo"), "g": ("g", "grams", "gram"),
    "lb": ("lb", "lbs", "pounds", "pound"), "oz": ("oz", "ounces", "ounce"), "t": ("tonnes", "tons", "tonne"),
    "l": ("l", "litres", "liters", "litre", "liter"), "ml": ("ml", "millilitres", "milliliters"),
    "gal": ("gal", "gallons", "gallon"),
    "km/h": ("km/h", "kmh", "kph", "kilometres per hour", "kilometers per hour"),
    "mph": ("mph", "miles per hour"), "m/s": ("m/s", "metres per second", "meters per second"),
    "kn": ("kn", "knots", "knot"),
    "ms": ("ms", "milliseconds", "millisecond", "msec"),
    "s": ("s", "sec", "secs", "seconds"), "min": ("min", "mins", "minutes", "minute"),
    "h": ("h", "hr", "hrs", "hours", "hour"), "d": ("days", "day"),
    "byte": ("bytes", "byte"), "kb": ("kb", "kilobytes", "kilobyte"), "kib": ("kib", "kibibytes"),
    "mb": ("mb", "megabytes", "megabyte"), "mib": ("mib", "mebibytes"), "gb": ("gb", "gigabytes", "gigabyte"),
    "gib": ("gib", "gibibytes"),
    "ha": ("ha", "hectares", "hectare"), "km2": ("km2", "km²", "square kilometres", "square kilometers", "sq km"),
    "acre": ("acres", "acre"), "mi2": ("mi2", "mi²", "square miles", "sq mi"),
    "c": ("°c", "° c", "c", "degrees c", "degrees celsius", "celsius", "deg c", "ºc"),
    "f": ("°f", "° f", "f", "degrees f", "degrees fahrenheit", "fahrenheit", "deg f", "ºf"),
    "k": ("kelvin",),
}
_ALIASES = {name: unit for unit, names in _NAMES.items() for name in names}
_ANY_UNIT = re.compile(r"\s?(" + "|".join(re.escape(n) for n in sorted(_ALIASES, key=len, reverse=True))
                       + r")(?![a-z])")


def unit_after(norm: str, end: int) -> str | None:
    """The unit named right after a number ending at ``end`` of a normalised text ("21.3 °c": c), or None."""
    m = _ANY_UNIT.match(norm, end)
    return unit_key(m.group(1)) if m else None


_UNIT_PHRASE_END = re.compile(r"[.,;:!?()\n]|\d")


def units_named_after(norm: str, end: int, reach: int = 30) -> set[str]:
    """The units named in the words right after a number ending at ``end`` ("0.42 eur per kilometre":
    km), up to the next punctuation or number."""
    stop = _UNIT_PHRASE_END.search(norm, end, end + reach)
    phrase = norm[end:stop.start() if stop else end + reach]
    return {key for m in _ANY_UNIT.finditer(phrase) if (m.start(1) == 0 or not phrase[m.start(1) - 1].isalpha())
            for key in [unit_key(m.group(1))] if key}


def quantity_names(unit: str) -> list[str]:
    """Every name of every unit of ``unit``'s quantity (for °C: the names of °C, °F and kelvin)."""
    key = unit_key(unit)
    base = _to_base(key) if key else None
    if key is None or base is None:
        return []
    return [name for other, names in _NAMES.items() if (_to_base(other) or ("",))[0] == base[0] for name in names
            if len(name) > 1 or name in {"c", "f"}]


def quantity_of(unit: str | None) -> str | None:
    """The quantity a unit measures ("°F": temperature, "mi": length), or None for no known unit."""
    key = unit_key(unit) if unit else None
    base = _to_base(key) if key else None
    return base[0] if base else None


def convert(value: float, unit: str, to: str) -> float | None:
    """``value`` in ``unit`` expressed in ``to`` (both of one quantity), or None when they are not."""
    a, b = unit_key(unit), unit_key(to)
    source, target = (_to_base(a) if a else None), (_to_base(b) if b else None)
    if source is None or target is None or source[0] != target[0]:
        return None
    return (value * source[1] + source[2] - target[2]) / target[1]


def unit_key(unit: str) -> str | None:
    """The unit a spec's or a text's unit name stands for ("Kilometres" is km, "°F" is f), or None."""
    text = unit.strip().casefold().replace("º", "°")
    if text in _NAMES:
        return text
    return _ALIASES.get(text)


def _to_base(unit: str) -> tuple[str, float, float] | None:
    """Quantity, factor and offset to the quantity's base unit."""
    if unit in _TEMPERATURE:
        a, b = _TEMPERATURE[unit]
        return "temperature", a, b
    if unit in _LINEAR:
        quantity, factor = _LINEAR[unit]
        return quantity, factor, 0.0
    return None


@lru_cache(maxsize=512)
def _siblings(unit: str) -> tuple[tuple[str, float, float], ...]:
    """Every other unit of ``unit``'s quantity, with the factor and offset from ``unit`` to it."""
    base = _to_base(unit)
    if base is None:
        return ()
    quantity, a, b = base
    out = []
    for other in [*_LINEAR, *_TEMPERATURE]:
        theirs = _to_base(other)
        if other == unit or theirs is None or theirs[0] != quantity:
            continue
        _q, c, d = theirs
        out.append((other, a / c, (b - d) / c))  # x_unit * a + b = y_other * c + d
    return tuple(out)


@lru_cache(maxsize=256)
def _unit_after(names: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(r"\s?(?:" + alternatives + r")(?![a-z])")


def _half_step(number: float) -> float:
    """Half the last written digit of a spec's value: the rounding the source may already carry."""
    text = repr(float(number))
    decimals = 0 if "e" in text else len(text.split(".")[1].rstrip("0"))
    return 0.5 * 10.0 ** (-decimals)


def converted_mentions(norm: str, value: float | int | str, unit: str, tol: float | None = None) -> list[Mention]:
    """Numbers of ``norm`` that state ``value`` (in ``unit``) in another unit of its quantity, that unit named."""
    key = unit_key(unit)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return []
    if key is None:
        return []
    found: list[Mention] = []
    mentions: tuple[NumberMention, ...] = _scanned("number", norm, number_mentions)
    for other, factor, offset in _siblings(key):
        expected = number * factor + offset
        slack = abs(factor) * (tol if tol is not None else _half_step(number))
        names = _NAMES[other]
        pattern = _unit_after(names)
        for m in mentions:
            if m.scale != 1.0 or not pattern.match(norm, m.end):
                continue
            step = 10.0 ** (-m.decimals)
            if abs(m.value - expected) <= step / 2 + slack + 1e-9 * max(1.0, abs(expected)):
                found.append(m)
    return found


_BINARY_READING = {"kb": "kib", "mb": "mib", "gb": "gib"}
"""Data units whose everyday use is either decimal or binary: a number in one may be read in its twin."""


def sibling_factors(unit: str) -> tuple[tuple[float, float], ...]:
    """How a number in ``unit`` reads in each unit of its quantity, itself included: (factor, offset) pairs
    with ``x_unit * factor + offset = y_other`` ("°C": itself, °F and kelvin); () for no known unit."""
    key = unit_key(unit)
    if key is None or _to_base(key) is None:
        return ()
    pairs = ((1.0, 0.0), *((a, b) for _other, a, b in _siblings(key)))
    twin = _BINARY_READING.get(key)  # "2.6 KB" for 2,705 bytes: KB read as 1,024 bytes, as file managers do
    return pairs if twin is None else (*pairs, *((a, b) for other, a, b in _siblings(twin) if other != key))


def in_unit(value: float, unit: str, other: str) -> float | None:
    """``value`` in ``unit`` expressed in ``other`` ("2.5 mi" in km: 4.02), or None across quantities."""
    key, target = unit_key(unit), unit_key(other)
    if key is None or target is None:
        return None
    if key == target:
        return value
    return next((value * a + b for name, a, b in _siblings(key) if name == target), None)
