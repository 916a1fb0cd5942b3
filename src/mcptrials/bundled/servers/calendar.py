"""A personal calendar: list, search, create, update and delete events, find free time, export .ics.

Seed events are placed relative to the frozen clock's date, in the frozen clock's time zone,
which is taken as the user's time zone. Changes are kept in ``calendar/events.json`` in the
sandbox; event ids are ``evt-NNN`` from a counter stored with the events.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import load_data, now, serve
from mcptrials.bundled.servers._workspace import read_state, relative, workspace_path, write_state, write_text

DYNAMISM = "stateful_write"
CATEGORY = "productivity"
DESCRIPTION = "Personal calendar: events by date range, create/update/delete, free slots, .ics export."

mcp = MCPServer("calendar", log_level="WARNING",
                instructions="Times are local to the user's time zone unless an offset is given.")

STATE = "calendar/events.json"
DateStr = Annotated[str, Field(description="A date, YYYY-MM-DD")]


def _tz() -> Any:
    return now().tzinfo


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="minutes")


def _initial() -> dict[str, Any]:
    seed = load_data("calendar.json")
    today = now().date()
    events = []
    for item in seed["events"]:
        day = today + timedelta(days=item["day_offset"])
        if item["all_day"]:
            start = datetime.combine(day, time(0, 0), tzinfo=_tz())
            end = start + timedelta(days=1)
        else:
            hour, minute = (int(x) for x in item["start"].split(":"))
            start = datetime.combine(day, time(hour, minute), tzinfo=_tz())
            end = start + timedelta(minutes=item["duration_minutes"])
        events.append({"id": item["id"], "title": item["title"], "start": _iso(start), "end": _iso(end),
                       "all_day": item["all_day"], "location": item["location"],
                       "attendees": item["attendees"], "description": item["description"]})
    return {"events": events, "next_id": 101}


def _state() -> dict[str, Any]:
    return read_state(STATE, _initial)


def _parse_date(value: str, field: str) -> date:
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise ToolError(f"{field} must be YYYY-MM-DD, got {value!r}") from None


def _parse_moment(value: str, field: str = "start") -> datetime:
    text = value.strip().replace(" ", "T")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ToolError(f"{field} must look like 2026-04-15T14:00, got {value!r}") from None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=_tz())
    return moment.astimezone(_tz())


def _clock(value: str, field: str) -> time:
    try:
        return time.fromisoformat(value.strip())
    except ValueError:
        raise ToolError(f"{field} must be HH:MM, got {value!r}") from None


def _span(event: dict[str, Any]) -> tuple[datetime, datetime]:
    return datetime.fromisoformat(event["start"]), datetime.fromisoformat(event["end"])


def _find(state: dict[str, Any], event_id: str) -> dict[str, Any]:
    for event in state["events"]:
        if event["id"] == event_id:
            return event
    raise ToolError(f"no event with id {event_id!r}; list_events or search_events show ids")


def _overlapping(state: dict[str, Any], start: datetime, end: datetime, skip: str | None = None) -> list[str]:
    out = []
    for event in state["events"]:
        if event["id"] == skip or event["all_day"]:
            continue
        s, e = _span(event)
        if s < end and start < e:
            out.append(f"{event['id']} {event['title']} ({_iso(s)[11:16]}-{_iso(e)[11:16]})")
    return out


def _sorted(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(events, key=lambda e: (e["start"], e["id"]))


@mcp.tool()
def list_events(
    start_date: Annotated[str | None, Field(description="First day, YYYY-MM-DD; default today")] = None,
    end_date: Annotated[str | None, Field(description="Last day (inclusive); default = start_date")] = None,
) -> dict[str, Any]:
    """List the events between two dates (inclusive), in time order."""
    first = _parse_date(start_date, "start_date") if start_date else now().date()
    last = _parse_date(end_date, "end_date") if end_date else first
    if last < first:
        raise ToolError("end_date is before start_date")
    if (last - first).days > 92:
        raise ToolError("the range is limited to 92 days")
    lo = datetime.combine(first, time(0, 0), tzinfo=_tz())
    hi = datetime.combine(last + timedelta(days=1), time(0, 0), tzinfo=_tz())
    chosen = [e for e in _state()["events"] if _span(e)[0] < hi and lo < _span(e)[1]]
    return {"start_date": first.isoformat(), "end_date": last.isoformat(), "count": len(chosen),
            "events": _sorted(chosen)}


@mcp.tool()
def get_event(event_id: str) -> dict[str, Any]:
    """Full details of one event."""
    return _find(_state(), event_id)


@mcp.tool()
def search_events(
    query: Annotated[str, Field(description="Text to find in title, location, description or attendees")],
    include_past: bool = False,
) -> dict[str, Any]:
    """Find events by text. Past events are skipped unless include_past is true."""
    q = query.lower().strip()
    moment = now()
    hits = []
    for event in _state()["events"]:
        hay = " ".join([event["title"], event["location"], event["description"], *event["attendees"]]).lower()
        if q in hay and (include_past or _span(event)[1] > moment):
            hits.append(event)
    return {"query": query, "count": len(hits), "events": _sorted(hits)}


@mcp.tool()
def create_event(
    title: str,
    start: Annotated[str, Field(description="Local start time, e.g. '2026-04-15T14:00'")],
    duration_minutes: Annotated[int, Field(ge=5, le=1440)] = 60,
    attendees: Annotated[list[str] | None, Field(description="Email addresses to invite")] = None,
    location: str = "",
    description: str = "",
    all_day: bool = False,
) -> dict[str, Any]:
    """Create a calendar event.

    ``start`` is read in the user's time zone unless it carries an offset. For an all-day
    event only the date part of ``start`` matters. Overlapping events are reported in
    ``conflicts`` but do not stop the event from being created. Events cannot start in the past.
    """
    if not title.strip():
        raise ToolError("title must not be empty")
    begin = _parse_moment(start)
    if all_day:
        begin = datetime.combine(begin.date(), time(0, 0), tzinfo=_tz())
        end = begin + timedelta(days=1)
        if begin.date() < now().date():
            raise ToolError("cannot create an event in the past")
    else:
        end = begin + timedelta(minutes=duration_minutes)
        if begin < now():
            raise ToolError(f"cannot create an event in the past (now is {_iso(now())})")
    state = _state()
    event_id = f"evt-{state['next_id']:03d}"
    state["next_id"] += 1
    conflicts = [] if all_day else _overlapping(state, begin, end)
    event = {"id": event_id, "title": title.strip(), "start": _iso(begin), "end": _iso(end),
             "all_day": all_day, "location": location,
             "attendees": [a.strip().lower() for a in attendees or []], "description": description}
    state["events"].append(event)
    write_state(STATE, state)
    return {"created": event, "conflicts": conflicts}


@mcp.tool()
def update_event(
    event_id: str,
    title: str | None = None,
    start: Annotated[str | None, Field(description="New local start time; the length is kept")] = None,
    duration_minutes: Annotated[int | None, Field(ge=5, le=1440)] = None,
    location: str | None = None,
    attendees: Annotated[list[str] | None, Field(description="Replaces the attendee list")] = None,
    description: str | None = None,
) -> dict[str, Any]:
    """Change fields of an existing event; fields left out stay as they are."""
    state = _state()
    event = _find(state, event_id)
    old_start, old_end = _span(event)
    begin = _parse_moment(start) if start else old_start
    length = timedelta(minutes=duration_minutes) if duration_minutes else old_end - old_start
    if start and begin < now():
        raise ToolError("cannot move an event into the past")
    event["start"], event["end"] = _iso(begin), _iso(begin + length)
    if title is not None:
        event["title"] = title.strip()
    if location is not None:
        event["location"] = location
    if attendees is not None:
        event["attendees"] = [a.strip().lower() for a in attendees]
    if description is not None:
        event["description"] = description
    write_state(STATE, state)
    conflicts = [] if event["all_day"] else _overlapping(state, begin, begin + length, skip=event_id)
    return {"updated": event, "conflicts": conflicts}


@mcp.tool()
def delete_event(event_id: str) -> dict[str, Any]:
    """Delete an event permanently."""
    state = _state()
    event = _find(state, event_id)
    state["events"] = [e for e in state["events"] if e["id"] != event_id]
    write_state(STATE, state)
    return {"deleted": event_id, "title": event["title"], "start": event["start"]}


@mcp.tool()
def find_free_slots(
    day: Annotated[str, Field(description="The day to search, YYYY-MM-DD")],
    duration_minutes: Annotated[int, Field(ge=5, le=600, description="Minimum length of a free slot")] = 30,
    day_start: Annotated[str, Field(description="Start of the working day, HH:MM")] = "09:00",
    day_end: Annotated[str, Field(description="End of the working day, HH:MM")] = "18:00",
) -> dict[str, Any]:
    """Free windows of at least ``duration_minutes`` on a day, between day_start and day_end."""
    target = _parse_date(day, "day")
    lo = datetime.combine(target, _clock(day_start, "day_start"), tzinfo=_tz())
    hi = datetime.combine(target, _clock(day_end, "day_end"), tzinfo=_tz())
    if hi <= lo:
        raise ToolError("day_end must be after day_start")
    lo = max(lo, now())
    busy = sorted(_span(e) for e in _state()["events"]
                  if not e["all_day"] and _span(e)[0] < hi and lo < _span(e)[1])
    slots = []
    cursor = lo
    for s, e in [*busy, (hi, hi)]:
        if s > cursor and (min(s, hi) - cursor) >= timedelta(minutes=duration_minutes):
            slots.append({"start": _iso(cursor), "end": _iso(min(s, hi)),
                          "minutes": int((min(s, hi) - cursor).total_seconds() // 60)})
        cursor = max(cursor, e)
    return {"day": target.isoformat(), "duration_minutes": duration_minutes, "free_slots": slots}


@mcp.tool()
def export_events(
    path: Annotated[str, Field(description="Workspace file to write, e.g. 'exports/week.ics'")],
    start_date: DateStr,
    end_date: DateStr,
) -> dict[str, Any]:
    """Write the events of a date range to an iCalendar (.ics) file in the workspace."""
    target = workspace_path(path)
    if not target.name.endswith(".ics"):
        raise ToolError("the export file must end in .ics")
    listed = list_events(start_date, end_date)["events"]
    stamp = now().strftime("%Y%m%dT%H%M%S")
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//mcptrials//calendar//EN"]
    for event in listed:
        s, e = _span(event)
        lines += ["BEGIN:VEVENT", f"UID:{event['id']}@calendar.invalid", f"DTSTAMP:{stamp}",
                  f"DTSTART:{s.strftime('%Y%m%dT%H%M%S')}", f"DTEND:{e.strftime('%Y%m%dT%H%M%S')}",
                  f"SUMMARY:{event['title']}"]
        if event["location"]:
            lines.append(f"LOCATION:{event['location']}")
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    write_text(target, "\r\n".join(lines) + "\r\n")
    return {"path": relative(target), "events": len(listed)}


if __name__ == "__main__":
    serve(mcp)
