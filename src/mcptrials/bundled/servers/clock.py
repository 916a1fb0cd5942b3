"""Clock and calendar arithmetic on the episode's frozen time, with IANA time zones.

``now`` reads the frozen clock (``MCPTRIALS_NOW``); every other tool is pure date arithmetic, so
answers never depend on the real time.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import now as frozen_now
from mcptrials.bundled.servers._runtime import serve

DYNAMISM = "live_read"
CATEGORY = "time"
DESCRIPTION = "Clock: current time in any IANA zone, time zone conversion, date arithmetic, weekdays, business days."

mcp = MCPServer("clock", log_level="WARNING")

WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
Region = Literal["Africa", "America", "Antarctica", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific"]


def _zone(name: str) -> ZoneInfo:
    key = name.strip()
    if key.upper() in ("UTC", "Z", "GMT"):
        key = "UTC"
    try:
        return ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ToolError(f"unknown time zone {name!r}; use an IANA name such as 'Asia/Shanghai' or "
                        "'America/New_York' (list_timezones shows them)") from exc


def _parse_moment(value: str, zone: ZoneInfo | None = None) -> datetime:
    """An ISO date-time; a bare date means midnight; a bare HH:MM means that time today in ``zone``."""
    text = value.strip().replace(" ", "T", 1) if len(value.strip()) > 10 else value.strip()
    try:
        if len(text) in (4, 5) and ":" in text:
            base = frozen_now().astimezone(zone or ZoneInfo("UTC"))
            hours, minutes = (int(x) for x in text.split(":"))
            moment = base.replace(hour=hours, minute=minutes, second=0, microsecond=0)
        else:
            moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ToolError(f"cannot read {value!r}; use ISO 8601 such as 2026-04-13T09:30 or 2026-04-13") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone or ZoneInfo("UTC"))
    return moment


def _parse_day(value: str, name: str) -> date:
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError as exc:
        raise ToolError(f"{name} must be a date YYYY-MM-DD, got {value!r}") from exc


def _describe(moment: datetime) -> dict[str, Any]:
    offset = moment.strftime("%z")
    return {"datetime": moment.isoformat(timespec="seconds"), "date": moment.date().isoformat(),
            "time": moment.strftime("%H:%M"), "weekday": WEEKDAYS[moment.weekday()],
            "utc_offset": f"{offset[:3]}:{offset[3:]}" if offset else "+00:00", "dst": bool(moment.dst())}


@mcp.tool()
def now(
    timezone: Annotated[str, Field(description="IANA time zone name, e.g. 'Europe/Paris'")] = "UTC",
    format: Literal["iso", "human"] = "iso",
) -> dict[str, Any]:
    """The current date and time in a time zone."""
    moment = frozen_now().astimezone(_zone(timezone))
    out = {"timezone": timezone} | _describe(moment) | {"unix": int(moment.timestamp())}
    if format == "human":
        out["text"] = moment.strftime("%A %d %B %Y, %H:%M")
    return out


@mcp.tool()
def convert_timezone(
    time: Annotated[str, Field(description="ISO date-time like 2026-04-13T15:00, or HH:MM meaning today")],
    from_timezone: str,
    to_timezone: str,
) -> dict[str, Any]:
    """Convert a wall-clock time from one time zone to another, accounting for daylight saving time."""
    source_zone, target_zone = _zone(from_timezone), _zone(to_timezone)
    moment = _parse_moment(time, source_zone)
    target = moment.astimezone(target_zone)
    diff = (target.utcoffset() or timedelta()) - (moment.utcoffset() or timedelta())
    return {"source": {"timezone": from_timezone} | _describe(moment),
            "target": {"timezone": to_timezone} | _describe(target),
            "difference_hours": diff.total_seconds() / 3600}


@mcp.tool()
def add_time(
    start: Annotated[str, Field(description="ISO date or date-time to start from")],
    days: Annotated[int, Field(ge=-3650, le=3650)] = 0,
    hours: Annotated[int, Field(ge=-87600, le=87600)] = 0,
    minutes: Annotated[int, Field(ge=-525600, le=525600)] = 0,
    weeks: Annotated[int, Field(ge=-520, le=520)] = 0,
    timezone: Annotated[str | None, Field(description="Zone for a start without an offset; UTC if omitted")]
    = None,
) -> dict[str, Any]:
    """Add (or with negative numbers subtract) weeks, days, hours and minutes to a date or date-time."""
    zone = _zone(timezone) if timezone else None
    moment = _parse_moment(start, zone)
    result = moment + timedelta(weeks=weeks, days=days, hours=hours, minutes=minutes)
    if zone is not None:
        result = result.astimezone(zone)
    return {"start": moment.isoformat(timespec="minutes"), "result": _describe(result)}


@mcp.tool()
def date_difference(
    start: str,
    end: str,
    unit: Literal["days", "weeks", "hours", "minutes"] = "days",
) -> dict[str, Any]:
    """The time between two dates or date-times (end minus start) in the chosen unit."""
    a, b = _parse_moment(start), _parse_moment(end)
    seconds = (b - a).total_seconds()
    size = {"days": 86400, "weeks": 604800, "hours": 3600, "minutes": 60}[unit]
    value = seconds / size
    return {"start": a.isoformat(timespec="minutes"), "end": b.isoformat(timespec="minutes"), "unit": unit,
            "value": int(value) if value == int(value) else round(value, 4)}


@mcp.tool()
def day_of_week(date: Annotated[str, Field(description="YYYY-MM-DD")]) -> dict[str, Any]:
    """Weekday, ISO week number and day of the year for a date."""
    day = _parse_day(date, "date")
    year, week, _ = day.isocalendar()
    leap = day.year % 4 == 0 and (day.year % 100 != 0 or day.year % 400 == 0)
    return {"date": day.isoformat(), "weekday": WEEKDAYS[day.weekday()], "iso_week": f"{year}-W{week:02d}",
            "day_of_year": day.timetuple().tm_yday, "is_weekend": day.weekday() >= 5, "leap_year": leap}


@mcp.tool()
def business_days_between(
    start_date: str,
    end_date: str,
    holidays: Annotated[list[str], Field(description="Extra non-working dates, YYYY-MM-DD")] = [],  # noqa: B006
    include_end: bool = False,
) -> dict[str, Any]:
    """Count Monday-to-Friday working days from start_date up to end_date, skipping the given holidays."""
    first, last = _parse_day(start_date, "start_date"), _parse_day(end_date, "end_date")
    if last < first:
        raise ToolError("end_date is before start_date")
    if (last - first).days > 3660:
        raise ToolError("range too long (at most ten years)")
    skip = {_parse_day(h, "holiday") for h in holidays}
    count, skipped = 0, []
    day = first
    stop = last + timedelta(days=1) if include_end else last
    while day < stop:
        if day.weekday() < 5:
            if day in skip:
                skipped.append(day.isoformat())
            else:
                count += 1
        day += timedelta(days=1)
    return {"start_date": first.isoformat(), "end_date": last.isoformat(), "include_end": include_end,
            "business_days": count, "holidays_skipped": skipped}


@mcp.tool()
def list_timezones(
    region: Region,
    contains: Annotated[str | None, Field(description="Only zones whose name contains this text")] = None,
) -> dict[str, Any]:
    """IANA time zone names in a region, optionally filtered by a substring such as a city name."""
    names = sorted(z for z in available_timezones() if z.startswith(region + "/"))
    if contains:
        needle = contains.strip().lower().replace(" ", "_")
        names = [z for z in names if needle in z.lower()]
    return {"region": region, "count": len(names), "timezones": names[:80], "truncated": len(names) > 80}


if __name__ == "__main__":
    serve(mcp)
