"""Simulated live weather: current conditions, forecasts, hourly outlook, alerts, air quality, history.

Each location carries climate normals; the weather of a given local day is drawn from a generator
seeded on (location, date), so a forecast for "tomorrow" is stable for any frozen clock and the
same day always has the same weather whether it is asked for as forecast or as history.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, timedelta
from functools import cache
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import load_data, now, rng, serve

DYNAMISM = "live_read"
CATEGORY = "travel"
DESCRIPTION = "Simulated live weather: current conditions, 7-day forecast, hourly, alerts, air quality, history."

mcp = MCPServer("weather", log_level="WARNING")

Units = Literal["metric", "imperial"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
HISTORY_DAYS = 30


# --------------------------------------------------------------------------- locations


@cache
def _locations() -> dict[str, dict[str, Any]]:
    return {loc["id"]: loc for loc in load_data("weather.json")["locations"]}


def _norm_tokens(text: str) -> set[str]:
    return set(re.sub(r"[^a-z0-9 ]+", " ", text.lower().replace("'", "")).split()) - {"the", "of", "in"}


def _label(loc: dict[str, Any]) -> str:
    return f"{loc['name']}, {loc['admin']}, {loc['country']}" if loc["admin"] != loc["name"] \
        else f"{loc['name']}, {loc['country']}"


def _matches(query: str) -> list[dict[str, Any]]:
    q = _norm_tokens(query)
    if not q:
        return []
    out = []
    for loc in _locations().values():
        name = _norm_tokens(loc["name"])
        every = name | _norm_tokens(loc["admin"]) | _norm_tokens(loc["country"])
        if q <= every and q & name:
            out.append(loc)
    return out


def _resolve(location: str) -> dict[str, Any]:
    key = location.strip()
    if key.lower() in _locations():
        return _locations()[key.lower()]
    found = _matches(key)
    if not found:
        raise ToolError(f"unknown location {location!r}; use search_locations to find a location id")
    if len(found) > 1:
        exact = [loc for loc in found if _norm_tokens(loc["name"]) == _norm_tokens(key)]
        if len(exact) != 1:
            options = "; ".join(f"{loc['id']} ({_label(loc)})" for loc in found[:6])
            raise ToolError(f"{location!r} is ambiguous, pass one of these location ids: {options}")
        return exact[0]
    return found[0]


def _haversine(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(a))


def _local_now(loc: dict[str, Any]) -> datetime:
    return now().astimezone(ZoneInfo(loc["tz"]))


# --------------------------------------------------------------------------- simulation


def _declination(day: date) -> float:
    return 23.44 * math.sin(math.radians(360 / 365 * (day.timetuple().tm_yday - 81)))


def _sun_times(lat: float, lon: float, day: date, tz: str) -> tuple[str, str]:
    gamma = 2 * math.pi / 365 * (day.timetuple().tm_yday - 1)
    eqtime = 229.18 * (0.000075 + 0.001868 * math.cos(gamma) - 0.032077 * math.sin(gamma)
                       - 0.014615 * math.cos(2 * gamma) - 0.040849 * math.sin(2 * gamma))
    decl = (0.006918 - 0.399912 * math.cos(gamma) + 0.070257 * math.sin(gamma) - 0.006758 * math.cos(2 * gamma)
            + 0.000907 * math.sin(2 * gamma) - 0.002697 * math.cos(3 * gamma) + 0.00148 * math.sin(3 * gamma))
    phi = math.radians(lat)
    cos_ha = math.cos(math.radians(90.833)) / (math.cos(phi) * math.cos(decl)) - math.tan(phi) * math.tan(decl)
    if cos_ha > 1:
        return "polar night", "polar night"
    if cos_ha < -1:
        return "midnight sun", "midnight sun"
    ha = math.degrees(math.acos(cos_ha))
    midnight = datetime(day.year, day.month, day.day, tzinfo=UTC)
    zone = ZoneInfo(tz)
    out = []
    for minutes in (720 - 4 * (lon + ha) - eqtime, 720 - 4 * (lon - ha) - eqtime):
        moment = (midnight + timedelta(minutes=minutes)).astimezone(zone)
        if moment.date() != day:
            moment += timedelta(days=(day - moment.date()).days)
        out.append(moment.strftime("%H:%M"))
    return out[0], out[1]


def _anomaly(loc_id: str, day: date) -> float:
    return rng("wx-anomaly", loc_id, day.isoformat()).gauss(0, 2.6)


def _simulate_day(loc: dict[str, Any], day: date) -> dict[str, Any]:
    """The weather of one local day, identical whenever it is asked for."""
    clim = loc["climate"]
    r = rng("wx-day", loc["id"], day.isoformat())
    peak = 200 if loc["lat"] >= 0 else 15
    doy = day.timetuple().tm_yday
    mean = clim["t_mean"] + clim["t_amp"] * math.cos(2 * math.pi * (doy - peak) / 365.25)
    mean += 0.6 * _anomaly(loc["id"], day) + 0.4 * _anomaly(loc["id"], day - timedelta(days=1))
    share = 1 + 0.9 * math.cos(2 * math.pi * (day.month - clim["wettest_month"]) / 12)
    monthly_mm = clim["precip_mm"] * share / 12
    p_rain = min(max(monthly_mm / 150, 0.03), 0.8)
    rain = r.random() < p_rain
    spread = min(max(13 - clim["precip_mm"] / 250, 5), 15) * (0.6 if rain else 1.0)
    high, low = mean + spread / 2, mean - spread / 2
    amount = round(r.expovariate(1 / max(2.0, monthly_mm / max(p_rain * 30, 1))), 1) if rain else 0.0
    if rain:
        if high < 1:
            condition = "snow"
        elif amount >= 20 and high >= 22:
            condition = "thunderstorms"
        elif amount >= 15:
            condition = "heavy rain"
        elif amount >= 3:
            condition = "rain"
        else:
            condition = "light rain"
        chance = 5 * r.randint(11, 19)
    else:
        sky = r.random()
        condition = "sunny" if sky < 0.42 else "partly cloudy" if sky < 0.72 else "cloudy" if sky < 0.95 else "fog"
        chance = 5 * r.randint(0, 5)
    wind = max(2.0, r.gauss(12, 5))
    if r.random() < 0.04:
        wind = r.uniform(45, 75)
    gust = wind * r.uniform(1.3, 1.8)
    humidity = int(min(100, max(10, 35 + min(45, clim["precip_mm"] / 40) + (25 if rain else 0) + r.randint(-8, 8))))
    cloud = {"sunny": 1.0, "partly cloudy": 0.85, "cloudy": 0.55, "fog": 0.5}.get(condition, 0.4)
    sun_angle = max(0.0, math.cos(math.radians(abs(loc["lat"] - _declination(day)))))
    uv = round(11.5 * sun_angle**2 * cloud + loc["elevation_m"] / 1500)
    sunrise, sunset = _sun_times(loc["lat"], loc["lon"], day, loc["tz"])
    return {"date": day.isoformat(), "weekday": WEEKDAYS[day.weekday()], "condition": condition,
            "high_c": round(high, 1), "low_c": round(low, 1), "precip_chance": min(chance, 100),
            "precip_mm": amount, "wind_kph": round(wind), "gust_kph": round(gust), "humidity": humidity,
            "uv_index": uv, "sunrise": sunrise, "sunset": sunset}


def _temp_at(loc: dict[str, Any], day: date, hour: float) -> float:
    today = _simulate_day(loc, day)
    if 6 <= hour < 15:
        return today["low_c"] + (today["high_c"] - today["low_c"]) * (1 - math.cos(math.pi * (hour - 6) / 9)) / 2
    if hour >= 15:
        nxt = _simulate_day(loc, day + timedelta(days=1))
        return today["high_c"] - (today["high_c"] - nxt["low_c"]) * (1 - math.cos(math.pi * (hour - 15) / 15)) / 2
    prev = _simulate_day(loc, day - timedelta(days=1))
    return prev["high_c"] - (prev["high_c"] - today["low_c"]) * (1 - math.cos(math.pi * (hour + 9) / 15)) / 2


def _feels_like(temp: float, wind: float, humidity: int) -> float:
    if temp <= 10 and wind > 4.8:
        v = wind**0.16
        return 13.12 + 0.6215 * temp - 11.37 * v + 0.3965 * temp * v
    if temp >= 27 and humidity >= 40:
        return temp + 0.1 * (humidity - 40) * (temp - 26) / 4
    return temp


def _convert(record: dict[str, Any], units: Units) -> dict[str, Any]:
    if units == "metric":
        return record
    out: dict[str, Any] = {}
    for key, value in record.items():
        if key.endswith("_c") and isinstance(value, int | float):
            out[key[:-2] + "_f"] = round(value * 9 / 5 + 32, 1)
        elif key.endswith("_kph") and isinstance(value, int | float):
            out[key[:-4] + "_mph"] = round(value / 1.609)
        elif key == "precip_mm":
            out["precip_in"] = round(value / 25.4, 2)
        else:
            out[key] = value
    return out


def _current(loc: dict[str, Any], units: Units) -> dict[str, Any]:
    local = _local_now(loc)
    day = _simulate_day(loc, local.date())
    hour = local.hour + local.minute / 60
    temp = _temp_at(loc, local.date(), hour)
    daylight = day["sunrise"] < local.strftime("%H:%M") < day["sunset"] if ":" in day["sunrise"] else True
    condition = day["condition"]
    if condition == "sunny" and not daylight:
        condition = "clear"
    record = {"observed_at": local.isoformat(timespec="minutes"), "condition": condition,
              "temperature_c": round(temp, 1),
              "feels_like_c": round(_feels_like(temp, day["wind_kph"], day["humidity"]), 1),
              "humidity": day["humidity"], "wind_kph": day["wind_kph"], "gust_kph": day["gust_kph"],
              "uv_index": day["uv_index"] if daylight else 0, "is_day": daylight}
    return _convert(record, units)


# --------------------------------------------------------------------------- tools


@mcp.tool()
def search_locations(
    query: Annotated[str, Field(description="City or national park name, optionally with state or country")],
    limit: Annotated[int, Field(ge=1, le=20)] = 5,
) -> dict[str, Any]:
    """Find weather locations by name; returns ids that every other weather tool accepts."""
    found = _matches(query)
    if not found:
        q = _norm_tokens(query)
        found = [loc for loc in _locations().values() if q & _norm_tokens(loc["name"])]
    found.sort(key=lambda loc: (loc["kind"] != "city", loc["id"]))
    return {"query": query, "count": len(found),
            "locations": [{"id": loc["id"], "name": _label(loc), "kind": loc["kind"], "lat": loc["lat"],
                           "lon": loc["lon"], "timezone": loc["tz"]} for loc in found[:limit]]}


@mcp.tool()
def get_current_weather(
    location: Annotated[str, Field(description="Location id from search_locations, or a city/park name")],
    units: Units = "metric",
) -> dict[str, Any]:
    """Current conditions at a location, observed at its local time."""
    loc = _resolve(location)
    return {"location": _label(loc), "location_id": loc["id"]} | _current(loc, units)


@mcp.tool()
def get_forecast(
    location: Annotated[str, Field(description="Location id from search_locations, or a city/park name")],
    days: Annotated[int, Field(ge=1, le=7, description="Number of days starting today (local date)")] = 3,
    units: Units = "metric",
) -> dict[str, Any]:
    """Daily forecast for up to seven days starting today: highs and lows, sky, rain, wind, UV, sunrise."""
    loc = _resolve(location)
    start = _local_now(loc).date()
    return {"location": _label(loc), "location_id": loc["id"], "timezone": loc["tz"], "units": units,
            "days": [_convert(_simulate_day(loc, start + timedelta(days=i)), units) for i in range(days)]}


@mcp.tool()
def get_hourly_forecast(
    location: str,
    hours: Annotated[int, Field(ge=1, le=48)] = 12,
    units: Units = "metric",
) -> dict[str, Any]:
    """Hour-by-hour temperature and rain chance, starting with the current hour."""
    loc = _resolve(location)
    local = _local_now(loc).replace(minute=0, second=0, microsecond=0)
    out = []
    for i in range(hours):
        moment = local + timedelta(hours=i)
        day = _simulate_day(loc, moment.date())
        record = {"time": moment.isoformat(timespec="minutes"), "temperature_c": round(
            _temp_at(loc, moment.date(), moment.hour), 1), "condition": day["condition"],
            "precip_chance": day["precip_chance"], "wind_kph": day["wind_kph"]}
        out.append(_convert(record, units))
    return {"location": _label(loc), "location_id": loc["id"], "hours": out}


ALERT_RULES: list[tuple[str, str, str]] = [
    ("Excessive Heat Warning", "extreme", "Dangerously hot conditions with highs near {high_c} C."),
    ("Heat Advisory", "moderate", "Hot conditions with highs near {high_c} C; limit strenuous activity."),
    ("Extreme Cold Warning", "severe", "Dangerously cold, with lows near {low_c} C."),
    ("Winter Storm Warning", "severe", "Heavy snow of about {precip_mm} mm water equivalent expected."),
    ("Flood Watch", "moderate", "Heavy rain of about {precip_mm} mm may cause flooding."),
    ("Severe Thunderstorm Watch", "moderate", "Thunderstorms with about {precip_mm} mm of rain possible."),
    ("High Wind Warning", "severe", "Wind gusts up to {gust_kph} km/h expected."),
]


def _alert_kinds(day: dict[str, Any]) -> list[int]:
    kinds = []
    if day["high_c"] >= 40:
        kinds.append(0)
    elif day["high_c"] >= 35:
        kinds.append(1)
    if day["low_c"] <= -20:
        kinds.append(2)
    if day["condition"] == "snow" and day["precip_mm"] >= 8:
        kinds.append(3)
    if day["precip_mm"] >= 40:
        kinds.append(4)
    elif day["condition"] == "thunderstorms":
        kinds.append(5)
    if day["gust_kph"] >= 70:
        kinds.append(6)
    return kinds


_ALERT_DAYS = 3
"""How many days, today included, the weather warnings cover."""


@mcp.tool()
def get_alerts(location: str) -> dict[str, Any]:
    """Active and upcoming weather warnings for a location over the next three days."""
    loc = _resolve(location)
    start = _local_now(loc).date()
    alerts = []
    for offset in range(_ALERT_DAYS):
        day = _simulate_day(loc, start + timedelta(days=offset))
        for kind in _alert_kinds(day):
            event, severity, text = ALERT_RULES[kind]
            alerts.append({"id": f"WX-{loc['id'][3:].upper()}-{day['date'].replace('-', '')}-{kind}",
                           "event": event, "severity": severity, "day": day["date"],
                           "description": text.format(**day)})
    window = f"{_ALERT_DAYS} days from {start.isoformat()}"  # the result says what it covers, as the description does
    return {"location": _label(loc), "location_id": loc["id"], "window": window, "count": len(alerts),
            "alerts": alerts}


@mcp.tool()
def get_weather_by_coordinates(
    lat: Annotated[float, Field(ge=-90, le=90)],
    lon: Annotated[float, Field(ge=-180, le=180)],
    units: Units = "metric",
) -> dict[str, Any]:
    """Current conditions at a coordinate, taken from the nearest weather location within 100 km."""
    best = min(_locations().values(), key=lambda loc: (_haversine(loc["lat"], loc["lon"], lat, lon), loc["id"]))
    km = _haversine(best["lat"], best["lon"], lat, lon)
    if km > 100:
        raise ToolError(f"no weather station within 100 km of {lat},{lon} (nearest is {_label(best)})")
    return {"nearest_location": _label(best), "location_id": best["id"], "distance_km": round(km, 1)} | _current(
        best, units)


def _aqi_category(aqi: int) -> str:
    for limit, name in ((50, "good"), (100, "moderate"), (150, "unhealthy for sensitive groups"),
                        (200, "unhealthy"), (300, "very unhealthy")):
        if aqi <= limit:
            return name
    return "hazardous"


@mcp.tool()
def get_air_quality(location: str) -> dict[str, Any]:
    """Today's air quality index (US scale, 0-500) with its category and dominant pollutant."""
    loc = _resolve(location)
    today = _local_now(loc).date()
    day = _simulate_day(loc, today)
    country_base = {"China": 85, "India": 130, "Egypt": 120, "United Arab Emirates": 95, "Mexico": 75}
    base = 28 if loc["kind"] == "park" else country_base.get(loc["country"], 40)
    if loc["id"] == "wx-havo":
        base = 55
    r = rng("wx-aqi", loc["id"], today.isoformat())
    aqi = base * r.uniform(0.6, 1.5) * (0.7 if day["precip_mm"] > 2 else 1.0) * (1.2 if day["wind_kph"] < 6 else 1)
    value = max(5, round(aqi))
    ozone = day["high_c"] >= 27 and day["condition"] == "sunny"
    pollutant = "o3" if ozone else ("so2" if loc["id"] == "wx-havo" else "pm2.5")
    return {"location": _label(loc), "location_id": loc["id"], "date": today.isoformat(), "aqi": value,
            "category": _aqi_category(value), "dominant_pollutant": pollutant,
            "pm25_ugm3": round(value * 0.42 if value <= 100 else 35 + (value - 100) * 0.6, 1)}


@mcp.tool()
def get_historical_weather(
    location: str,
    date: Annotated[str, Field(description="A past local date YYYY-MM-DD within the last 30 days")],
    units: Units = "metric",
) -> dict[str, Any]:
    """Observed weather for one past day at a location (up to 30 days back)."""
    loc = _resolve(location)
    try:
        day = datetime.strptime(date.strip(), "%Y-%m-%d").date()
    except ValueError as exc:
        raise ToolError(f"invalid date {date!r}; use YYYY-MM-DD") from exc
    today = _local_now(loc).date()
    if day >= today:
        raise ToolError(f"{day.isoformat()} is not in the past (today is {today.isoformat()} there); "
                        "use get_forecast for today and later")
    if day < today - timedelta(days=HISTORY_DAYS):
        raise ToolError(f"history only goes back {HISTORY_DAYS} days, to "
                        f"{(today - timedelta(days=HISTORY_DAYS)).isoformat()}")
    return {"location": _label(loc), "location_id": loc["id"]} | _convert(_simulate_day(loc, day), units)


if __name__ == "__main__":
    serve(mcp)
