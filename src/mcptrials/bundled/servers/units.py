"""Unit conversion for length, mass, temperature, volume, speed, area, time, data, energy and pressure.

Each unit is a factor to the category's base unit (temperatures use an offset too). Unit
names are matched case-insensitively against a list of aliases, so 'km', 'kilometre' and
'kilometers' are the same unit.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import serve

DYNAMISM = "static"
CATEGORY = "science"
DESCRIPTION = "Convert quantities between units of length, mass, temperature, volume, speed and more."

mcp = MCPServer("units", log_level="WARNING")

Category = Literal["length", "mass", "temperature", "volume", "speed", "area", "time", "data", "energy",
                   "pressure"]

# category -> unit symbol -> (factor to base unit, aliases)
UNITS: dict[str, dict[str, tuple[float, tuple[str, ...]]]] = {
    "length": {
        "m": (1.0, ("meter", "metre", "meters", "metres")),
        "mm": (0.001, ("millimeter", "millimetre", "millimeters", "millimetres")),
        "cm": (0.01, ("centimeter", "centimetre", "centimeters", "centimetres")),
        "km": (1000.0, ("kilometer", "kilometre", "kilometers", "kilometres")),
        "in": (0.0254, ("inch", "inches")),
        "ft": (0.3048, ("foot", "feet")),
        "yd": (0.9144, ("yard", "yards")),
        "mi": (1609.344, ("mile", "miles")),
        "nmi": (1852.0, ("nautical mile", "nautical miles")),
    },
    "mass": {
        "kg": (1.0, ("kilogram", "kilograms", "kilo", "kilos")),
        "g": (0.001, ("gram", "grams")),
        "mg": (1e-6, ("milligram", "milligrams")),
        "t": (1000.0, ("tonne", "tonnes", "metric ton", "metric tons")),
        "oz": (0.028349523125, ("ounce", "ounces")),
        "lb": (0.45359237, ("lbs", "pound", "pounds")),
        "st": (6.35029318, ("stone", "stones")),
    },
    "temperature": {
        "C": (1.0, ("celsius", "degc", "°c", "centigrade")),
        "F": (1.0, ("fahrenheit", "degf", "°f")),
        "K": (1.0, ("kelvin", "kelvins")),
    },
    "volume": {
        "l": (1.0, ("liter", "litre", "liters", "litres", "L")),
        "ml": (0.001, ("milliliter", "millilitre", "milliliters", "millilitres")),
        "cl": (0.01, ("centiliter", "centilitre")),
        "m3": (1000.0, ("cubic meter", "cubic metre", "cubic meters")),
        "tsp": (0.00492892159375, ("teaspoon", "teaspoons")),
        "tbsp": (0.01478676478125, ("tablespoon", "tablespoons")),
        "fl_oz": (0.0295735295625, ("fluid ounce", "fluid ounces", "floz")),
        "cup": (0.2365882365, ("cups", "us cup")),
        "pt": (0.473176473, ("pint", "pints", "us pint")),
        "qt": (0.946352946, ("quart", "quarts")),
        "gal": (3.785411784, ("gallon", "gallons", "us gallon", "us gallons")),
        "gal_uk": (4.54609, ("imperial gallon", "imperial gallons", "uk gallon")),
    },
    "speed": {
        "m/s": (1.0, ("mps", "meters per second", "metres per second")),
        "km/h": (1 / 3.6, ("kph", "kmh", "kilometers per hour", "kilometres per hour")),
        "mph": (0.44704, ("miles per hour", "mi/h")),
        "kn": (1852 / 3600, ("knot", "knots", "kt")),
        "ft/s": (0.3048, ("fps", "feet per second")),
    },
    "area": {
        "m2": (1.0, ("square meter", "square metre", "square meters", "sqm")),
        "km2": (1e6, ("square kilometer", "square kilometre", "square kilometers")),
        "cm2": (1e-4, ("square centimeter", "square centimetre")),
        "ha": (1e4, ("hectare", "hectares")),
        "acre": (4046.8564224, ("acres", "ac")),
        "ft2": (0.09290304, ("square foot", "square feet", "sqft")),
        "mi2": (2589988.110336, ("square mile", "square miles")),
    },
    "time": {
        "s": (1.0, ("sec", "second", "seconds")),
        "min": (60.0, ("minute", "minutes")),
        "h": (3600.0, ("hr", "hour", "hours")),
        "day": (86400.0, ("days", "d")),
        "week": (604800.0, ("weeks", "wk")),
    },
    "data": {
        "B": (1.0, ("byte", "bytes")),
        "KB": (1e3, ("kilobyte", "kilobytes", "kB")),
        "MB": (1e6, ("megabyte", "megabytes")),
        "GB": (1e9, ("gigabyte", "gigabytes")),
        "TB": (1e12, ("terabyte", "terabytes")),
        "KiB": (1024.0, ("kibibyte", "kibibytes")),
        "MiB": (1024.0**2, ("mebibyte", "mebibytes")),
        "GiB": (1024.0**3, ("gibibyte", "gibibytes")),
    },
    "energy": {
        "J": (1.0, ("joule", "joules")),
        "kJ": (1e3, ("kilojoule", "kilojoules")),
        "cal": (4.184, ("calorie", "calories")),
        "kcal": (4184.0, ("kilocalorie", "kilocalories")),
        "Wh": (3600.0, ("watt hour", "watt hours")),
        "kWh": (3.6e6, ("kilowatt hour", "kilowatt hours")),
    },
    "pressure": {
        "Pa": (1.0, ("pascal", "pascals")),
        "kPa": (1e3, ("kilopascal", "kilopascals")),
        "bar": (1e5, ("bars",)),
        "psi": (6894.757293168, ("pounds per square inch",)),
        "atm": (101325.0, ("atmosphere", "atmospheres")),
        "mmHg": (133.322387415, ("torr",)),
    },
}


def _lookup(category: str, name: str) -> str:
    """Return the unit symbol for ``name`` in ``category``, or raise a helpful ToolError."""
    wanted = name.strip()
    table = UNITS[category]
    if wanted in table:
        return wanted
    for symbol, (_factor, aliases) in table.items():
        if wanted.lower() == symbol.lower() or wanted.lower() in (a.lower() for a in aliases):
            return symbol
    for other, other_table in UNITS.items():
        for symbol, (_f, aliases) in other_table.items():
            if wanted.lower() == symbol.lower() or wanted.lower() in (a.lower() for a in aliases):
                raise ToolError(f"{name!r} is a {other} unit, not a {category} unit")
    raise ToolError(f"unknown {category} unit {name!r}; known: {', '.join(table)}")


def _to_celsius(value: float, scale: str) -> float:
    return value if scale == "C" else (value - 32) * 5 / 9 if scale == "F" else value - 273.15


def _from_celsius(value: float, scale: str) -> float:
    return value if scale == "C" else value * 9 / 5 + 32 if scale == "F" else value + 273.15


def _convert(value: float, source: str, target: str, category: str) -> float:
    if category == "temperature":
        celsius = _to_celsius(value, source)
        if celsius < -273.15 - 1e-9:
            raise ToolError(f"{value} {source} is below absolute zero")
        return _from_celsius(celsius, target)
    table = UNITS[category]
    return value * table[source][0] / table[target][0]


def _fmt(value: float) -> float:
    out = float(f"{value:.6g}") if abs(value) >= 1e-3 or value == 0 else float(f"{value:.4e}")
    return 0.0 if out == 0 else out


@mcp.tool()
def convert(
    value: float,
    from_unit: Annotated[str, Field(description="Unit symbol or name, e.g. 'mi', 'miles', 'lb'")],
    to_unit: Annotated[str, Field(description="Unit symbol or name, e.g. 'km'")],
    category: Annotated[Category, Field(description="Kind of quantity; both units must belong to it")],
) -> dict[str, Any]:
    """Convert a physical quantity from one unit to another.

    Both units must belong to the given category. The result is rounded to six significant
    digits. US customary volumes are used for cups, pints, quarts and gallons ('gal_uk' is the
    imperial gallon).
    """
    source, target = _lookup(category, from_unit), _lookup(category, to_unit)
    return {"value": value, "from_unit": source, "to_unit": target, "category": category,
            "result": _fmt(_convert(value, source, target, category))}


@mcp.tool()
def convert_many(
    values: Annotated[list[float], Field(min_length=1, max_length=200)],
    from_unit: str,
    to_unit: str,
    category: Category,
) -> dict[str, Any]:
    """Convert a list of values that share the same units."""
    source, target = _lookup(category, from_unit), _lookup(category, to_unit)
    return {"from_unit": source, "to_unit": target, "category": category,
            "results": [{"value": v, "result": _fmt(_convert(v, source, target, category))} for v in values]}


@mcp.tool()
def convert_temperature(
    value: float,
    from_scale: Literal["C", "F", "K"],
    to_scale: Literal["C", "F", "K"],
) -> dict[str, Any]:
    """Temperature between Celsius, Fahrenheit and Kelvin."""
    return {"value": value, "from_scale": from_scale, "to_scale": to_scale,
            "result": _fmt(_convert(value, from_scale, to_scale, "temperature"))}


@mcp.tool()
def list_units(category: Category | None = None) -> dict[str, Any]:
    """List the supported unit symbols and their aliases, for one category or all of them."""
    chosen = [category] if category else list(UNITS)
    return {"categories": {c: {s: list(a) for s, (_f, a) in UNITS[c].items()} for c in chosen}}


if __name__ == "__main__":
    serve(mcp)
