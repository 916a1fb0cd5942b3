"""A world clock keyed by city: local time in a named city, city-to-city differences, meeting slots.

Like ``clock`` it has a tool called ``now``, but this one needs a city name rather than a time
zone and answers in the city's local time.
"""

from __future__ import annotations

from datetime import date as date_cls
from datetime import datetime, timedelta
from functools import cache
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from mcptrials.bundled.servers._runtime import load_data, serve
from mcptrials.bundled.servers._runtime import now as frozen_now

DYNAMISM = "live_read"
CATEGORY = "time"
DESCRIPTION = "World clock by city name: local time, time differences between cities, meeting planner."

mcp = MCPServer("worldclock", log_level="WARNING")

Region = Literal["asia", "europe", "north_america", "south_america", "africa", "oceania"]


@cache
def _cities() -> list[dict[str, Any]]:
    return load_data("worldclock.json")["cities"]


def _city(name: str) -> dict[str, Any]:
    text = name.strip().lower().replace(".", "")
    hits = [c for c in _cities() if c["name"].lower() == text or c["key"] == text]
    if not hits and "," in text:
        head, tail = (p.strip() for p in text.split(",", 1))
        hits = [c for c in _cities() if c["name"].lower() == head
                and (tail in c["country"].lower() or tail in c.get("admin", "").lower()
                     or tail == c["key"].split("-")[-1])]
    if not hits:
        raise ToolError(f"unknown city {name!r}; list_cities shows the supported cities")
    if len(hits) > 1:
        options = ", ".join(f"{c['name']}, {c['admin']}" for c in hits)
        raise ToolError(f"{name!r} matches several cities ({options}); add the state, e.g. '{hits[0]['name']}, "
                        f"{hits[0]['admin']}'")
    return hits[0]


def _local(city: dict[str, Any], moment: datetime | None = None) -> datetime:
    return (moment or frozen_now()).astimezone(ZoneInfo(city["tz"]))


def _offset_hours(moment: datetime) -> float:
    delta = moment.utcoffset() or timedelta()
    return delta.total_seconds() / 3600


@mcp.tool()
def now(city: Annotated[str, Field(description="City name, e.g. 'Tokyo' or 'Portland, Maine'")]) -> str:
    """Local time right now in a city, as one line of text."""
    c = _city(city)
    local = _local(c)
    offset = _offset_hours(local)
    sign = "+" if offset >= 0 else "-"
    hours = abs(offset)
    offset_text = f"UTC{sign}{int(hours)}" + (f":{round((hours % 1) * 60):02d}" if hours % 1 else "")
    where = f"{c['name']}, {c['admin']}" if c["country"] in ("United States", "Canada", "Australia") else c["name"]
    return f"{local.strftime('%A %d %B %Y, %H:%M')} in {where}, {c['country']} ({offset_text})"


@mcp.tool()
def time_difference(city_a: str, city_b: str) -> dict[str, Any]:
    """How many hours city_b is ahead of city_a right now (negative if behind)."""
    a, b = _city(city_a), _city(city_b)
    la, lb = _local(a), _local(b)
    diff = _offset_hours(lb) - _offset_hours(la)
    return {"city_a": a["name"], "local_time_a": la.strftime("%Y-%m-%d %H:%M"), "city_b": b["name"],
            "local_time_b": lb.strftime("%Y-%m-%d %H:%M"), "b_ahead_of_a_hours": diff}


@mcp.tool()
def list_cities(region: Region | None = None) -> dict[str, Any]:
    """Cities this world clock knows, optionally within one region."""
    cities = [c for c in _cities() if region is None or c["region"] == region]
    return {"count": len(cities), "cities": [f"{c['name']}, {c['admin']}, {c['country']}" for c in cities]}


class WorkingHours(BaseModel):
    """Local working hours applied in every city."""

    start: int = Field(9, ge=0, le=23, description="First working hour, local time")
    end: int = Field(17, ge=1, le=24, description="Hour the working day ends, local time")


@mcp.tool()
def find_meeting_time(
    cities: Annotated[list[str], Field(min_length=2, max_length=5)],
    date: Annotated[str, Field(description="Meeting date YYYY-MM-DD, read in the first city's time zone")],
    duration_minutes: Annotated[int, Field(ge=15, le=240)] = 60,
    working_hours: WorkingHours | None = None,
) -> dict[str, Any]:
    """Start times (on the half hour) when a meeting fits inside working hours in every city."""
    hours = working_hours or WorkingHours(start=9, end=17)
    if hours.end <= hours.start:
        raise ToolError("working_hours.end must be after working_hours.start")
    resolved = [_city(c) for c in cities]
    try:
        day = date_cls.fromisoformat(date.strip())
    except ValueError as exc:
        raise ToolError(f"date must be YYYY-MM-DD, got {date!r}") from exc
    first_zone = ZoneInfo(resolved[0]["tz"])
    start = datetime(day.year, day.month, day.day, tzinfo=first_zone)
    slots = []
    for step in range(48):
        begin = start + timedelta(minutes=30 * step)
        finish = begin + timedelta(minutes=duration_minutes)
        fits = True
        for c in resolved:
            lb, lf = _local(c, begin), _local(c, finish)
            end_ok = lf.hour * 60 + lf.minute <= hours.end * 60 and lf.date() == lb.date()
            if lb.hour < hours.start or not end_ok:
                fits = False
                break
        if fits:
            slots.append({c["name"]: _local(c, begin).strftime("%Y-%m-%d %H:%M") for c in resolved})
    return {"date": day.isoformat(), "duration_minutes": duration_minutes,
            "working_hours": f"{hours.start:02d}:00-{hours.end:02d}:00", "count": len(slots), "slots": slots,
            "note": "no overlap inside working hours" if not slots else ""}


if __name__ == "__main__":
    serve(mcp)
