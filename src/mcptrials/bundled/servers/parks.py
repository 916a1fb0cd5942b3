"""US national parks: search, details, alerts, campgrounds and availability, visitor centers, events.

Park facts are shipped data. Alerts, ranger events and campsite availability are simulated from
seeds keyed on the park (or campground) and the date, so they change from day to day but are
reproducible for any frozen clock.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from functools import cache
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import load_data, now, rng, serve

DYNAMISM = "live_read"
CATEGORY = "travel"
DESCRIPTION = "US national parks: search, details, alerts, campgrounds and availability, visitor centers, events."

mcp = MCPServer("parks", log_level="WARNING")

Activity = Literal["hiking", "camping", "fishing", "stargazing", "wildlife_viewing", "biking", "boating", "climbing",
                   "horseback_riding", "scenic_driving", "skiing", "snowshoeing", "swimming", "paddling",
                   "birdwatching"]
AlertType = Literal["closure", "caution", "information", "danger"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
MAX_EVENT_RANGE_DAYS = 31
BOOKING_HORIZON_DAYS = 180


@cache
def _parks() -> dict[str, dict[str, Any]]:
    return {p["code"]: p for p in load_data("parks.json")["parks"]}


def _park(code: str) -> dict[str, Any]:
    park = _parks().get(code.strip().lower())
    if park is None:
        raise ToolError(f"unknown park code {code!r}; park codes are four letters such as 'yose' or 'zion' "
                        "(find them with search_parks)")
    return park


def _local_today(park: dict[str, Any]) -> date:
    return now().astimezone(ZoneInfo(park["timezone"])).date()


def _parse_date(value: str, name: str) -> date:
    try:
        return datetime.strptime(value.strip(), "%Y-%m-%d").date()
    except ValueError as exc:
        raise ToolError(f"{name} must be a date like 2026-05-01, got {value!r}") from exc


def _in_season(months: list[int], month: int) -> bool:
    first, last = months
    return first <= month <= last


def _summary(park: dict[str, Any]) -> dict[str, Any]:
    return {"park_code": park["code"], "name": park["name"], "states": park["states"],
            "description": park["description"]}


# --------------------------------------------------------------------------- search


@mcp.tool()
def search_parks(
    state_code: Annotated[str | None, Field(description="Two-letter US state code, e.g. 'UT'")] = None,
    query: Annotated[str | None, Field(description="Words to look for in the park name or description")] = None,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
) -> dict[str, Any]:
    """Search national parks by state and/or keywords in their name and description."""
    if not state_code and not query:
        raise ToolError("give a state_code, a query, or both")
    words = set(re.findall(r"[a-z]+", (query or "").lower())) - {"national", "park", "parks", "the", "in", "of"}
    hits = []
    for park in _parks().values():
        if state_code and state_code.strip().upper() not in park["states"]:
            continue
        text = f"{park['name']} {park['description']} {' '.join(park['state_names'])}".lower()
        score = sum(1 for w in words if w in text)
        if words and score == 0:
            continue
        hits.append((-score, park["name"], park))
    hits.sort(key=lambda h: h[:2])
    return {"total": len(hits), "parks": [_summary(p) for *_, p in hits[:limit]]}


@mcp.tool()
def find_parks_by_activity(
    activity: Activity,
    state_code: str | None = None,
) -> dict[str, Any]:
    """Parks that offer an activity, optionally within one state. Returns codes and names only; use
    get_park_details for anything else."""
    hits = [p for p in _parks().values() if activity in p["activities"]
            and (not state_code or state_code.strip().upper() in p["states"])]
    hits.sort(key=lambda p: p["name"])
    return {"activity": activity, "total": len(hits),
            "parks": [{"park_code": p["code"], "name": p["name"], "states": p["states"]} for p in hits]}


@mcp.tool()
def get_park_details(park_code: str) -> dict[str, Any]:
    """Everything about one park: location, time zone, size, founding year, fees, activities, trails, wildlife."""
    park = _park(park_code)
    keep = ("name", "states", "state_names", "description", "lat", "lon", "timezone", "established", "area_acres",
            "elevation_m", "gateway_town", "activities", "entrance_fees", "trails", "wildlife", "seasonal_road")
    out = {"park_code": park["code"]} | {k: park[k] for k in keep}
    if not park["entrance_fees"]:
        out["entrance_fee_note"] = "no entrance fee is charged at this park"
    out["campground_count"] = len(park["campgrounds"])
    out["visitor_center_count"] = len(park["visitor_centers"])
    return out


# --------------------------------------------------------------------------- alerts


def _alerts_for(park: dict[str, Any], today: date) -> list[dict[str, Any]]:
    """Seasonal closures plus a weekly draw of trail, wildlife and facility notices."""
    alerts: list[dict[str, Any]] = []
    road = park["seasonal_road"]
    if road and not _in_season(road["open_months"], today.month):
        first, last = road["open_months"]
        alerts.append({"type": "closure", "title": f"{road['name']} closed for the season",
                       "description": f"{road['name']} is normally open from {MONTHS[first - 1]} to "
                                      f"{MONTHS[last - 1]}; expect snow and no services beyond the gates."})
    year, week, _ = today.isocalendar()
    r = rng("park-alerts", park["code"], year, week)
    trail = r.choice(park["trails"])
    animal = r.choice(park["wildlife"])
    center = r.choice(park["visitor_centers"])["name"]
    pool = [
        {"type": "closure", "title": f"{trail} temporarily closed",
         "description": f"{trail} is closed for {r.choice(['rockfall cleanup', 'bridge repairs', 'trail work'])}; "
                        "use another route until further notice."},
        {"type": "caution", "title": f"{animal.capitalize()} active near roads and trails",
         "description": f"Recent {animal} sightings; keep at least 25 yards away and store food properly."},
        {"type": "information", "title": f"{center} has reduced hours this week",
         "description": f"{center} opens one hour later than usual because of staffing."},
        {"type": "danger", "title": "Flash flood risk in narrow canyons",
         "description": "Storms upstream can send water through slot canyons with little warning; check the "
                        "forecast before entering."},
        {"type": "caution", "title": "Parking lots fill early",
         "description": "Popular trailhead lots are often full by 8 a.m.; arrive early or use the shuttle."},
    ]
    chosen = sorted(r.sample(range(len(pool)), r.randint(1, 3)))
    for i in chosen:
        if pool[i]["type"] == "danger" and park["climate"]["precip_mm"] > 900:
            continue
        alerts.append(pool[i])
    for i, alert in enumerate(alerts):
        alert["id"] = f"{park['code']}-{year}w{week:02d}-{i + 1}"
    return alerts


@mcp.tool()
def get_alerts(
    park_code: str,
    alert_type: AlertType | None = None,
) -> dict[str, Any]:
    """Current park alerts: closures, cautions, danger warnings and general information."""
    park = _park(park_code)
    today = _local_today(park)
    alerts = _alerts_for(park, today)
    if alert_type:
        alerts = [a for a in alerts if a["type"] == alert_type]
    return {"park_code": park["code"], "as_of": today.isoformat(), "count": len(alerts),
            "alerts": [{"id": a["id"], "type": a["type"], "title": a["title"], "description": a["description"]}
                       for a in alerts]}


# --------------------------------------------------------------------------- campgrounds


@mcp.tool()
def get_campgrounds(
    park_code: str,
    reservable_only: Annotated[bool, Field(description="Only campgrounds that take reservations")] = False,
) -> dict[str, Any]:
    """Campgrounds in a park with site counts, nightly fee, season, RV limits and amenities."""
    park = _park(park_code)
    month = _local_today(park).month
    out = []
    for cg in park["campgrounds"]:
        if reservable_only and not cg["reservable"]:
            continue
        first, last = cg["season_months"]
        out.append({"campground_id": cg["id"], "name": cg["name"], "sites": cg["sites"],
                    "reservable": cg["reservable"], "fee_per_night_usd": cg["fee_per_night"],
                    "season": "year-round" if [first, last] == [1, 12] else f"{MONTHS[first - 1]}-{MONTHS[last - 1]}",
                    "open_now": _in_season(cg["season_months"], month),
                    "max_rv_length_ft": cg["max_rv_length_ft"] or None, "amenities": cg["amenities"]})
    return {"park_code": park["code"], "count": len(out), "campgrounds": out}


@mcp.tool()
def check_campground_availability(
    campground_id: Annotated[str, Field(description="Id from get_campgrounds, e.g. 'yose-cg1'")],
    start_date: Annotated[str, Field(description="First night, YYYY-MM-DD")],
    nights: Annotated[int, Field(ge=1, le=14)] = 1,
) -> dict[str, Any]:
    """Free sites per night for a reservable campground over a stay of up to 14 nights."""
    code = campground_id.strip().lower().split("-cg")[0]
    park = _park(code)
    cg = next((c for c in park["campgrounds"] if c["id"] == campground_id.strip().lower()), None)
    if cg is None:
        raise ToolError(f"unknown campground {campground_id!r}; ids come from get_campgrounds")
    first = _parse_date(start_date, "start_date")
    today = _local_today(park)
    if first < today:
        raise ToolError(f"{first.isoformat()} is in the past; today is {today.isoformat()} at {park['name']}")
    if first > today + timedelta(days=BOOKING_HORIZON_DAYS):
        raise ToolError(f"reservations open {BOOKING_HORIZON_DAYS} days ahead; the latest start date today is "
                        f"{(today + timedelta(days=BOOKING_HORIZON_DAYS)).isoformat()}")
    if not cg["reservable"]:
        return {"campground_id": cg["id"], "name": cg["name"], "reservable": False,
                "note": "first-come, first-served only; sites cannot be reserved"}
    out = []
    for i in range(nights):
        night = first + timedelta(days=i)
        if not _in_season(cg["season_months"], night.month):
            out.append({"date": night.isoformat(), "status": "closed", "free_sites": 0})
            continue
        r = rng("campsites", cg["id"], night.isoformat())
        busy = 0.45 if night.weekday() in (4, 5) else 0.15
        free = 0 if r.random() < busy else r.randint(1, max(2, cg["sites"] // 5))
        out.append({"date": night.isoformat(), "status": "available" if free else "full", "free_sites": free})
    return {"campground_id": cg["id"], "name": cg["name"], "park_code": park["code"],
            "fee_per_night_usd": cg["fee_per_night"], "all_nights_available": all(n["free_sites"] for n in out),
            "nights": out}


# --------------------------------------------------------------------------- visitor centers and events


@mcp.tool()
def get_visitor_centers(park_code: str) -> dict[str, Any]:
    """Visitor centers with opening hours, season, phone and whether each is open at this moment."""
    park = _park(park_code)
    local = now().astimezone(ZoneInfo(park["timezone"]))
    out = []
    for vc in park["visitor_centers"]:
        start, end = vc["hours"].split("-")
        in_season = _in_season(vc["open_months"], local.month)
        open_now = in_season and start <= local.strftime("%H:%M") < end
        first, last = vc["open_months"]
        out.append({"id": vc["id"], "name": vc["name"], "hours": vc["hours"],
                    "season": "year-round" if [first, last] == [1, 12] else f"{MONTHS[first - 1]}-{MONTHS[last - 1]}",
                    "open_now": open_now, "phone": vc["phone"], "lat": vc["lat"], "lon": vc["lon"]})
    return {"park_code": park["code"], "local_time": local.isoformat(timespec="minutes"), "visitor_centers": out}


EVENT_KINDS = [
    ("Ranger-led nature walk", "hiking", 90),
    ("Night sky program", "stargazing", 120),
    ("Junior Ranger workshop", None, 60),
    ("Geology talk", None, 45),
    ("Wildlife watching with a ranger", "wildlife_viewing", 120),
    ("Birding walk", "birdwatching", 90),
    ("Campfire program", "camping", 60),
    ("Snowshoe walk", "snowshoeing", 120),
]


@mcp.tool()
def get_events(
    park_code: str,
    start_date: Annotated[str, Field(description="YYYY-MM-DD")],
    end_date: Annotated[str, Field(description="YYYY-MM-DD, at most 31 days after start_date")],
) -> dict[str, Any]:
    """Ranger programs and other scheduled events in a park between two dates (inclusive)."""
    park = _park(park_code)
    first, last = _parse_date(start_date, "start_date"), _parse_date(end_date, "end_date")
    if last < first:
        raise ToolError("end_date is before start_date")
    if (last - first).days > MAX_EVENT_RANGE_DAYS:
        raise ToolError(f"date range too long: at most {MAX_EVENT_RANGE_DAYS} days per request")
    kinds = [k for k in EVENT_KINDS if k[1] is None or k[1] in park["activities"]]
    events = []
    day = first
    while day <= last:
        r = rng("park-events", park["code"], day.isoformat())
        for n in range(r.choice([0, 1, 1, 2])):
            title, activity, minutes = r.choice(kinds)
            if activity == "snowshoeing" and day.month not in (12, 1, 2, 3):
                continue
            centers = [vc for vc in park["visitor_centers"] if _in_season(vc["open_months"], day.month)]
            place = r.choice(centers)["name"] if centers else park["name"]
            hour = 20 if activity in ("stargazing", "camping") else r.choice([9, 10, 14, 15])
            events.append({"event_id": f"ev-{park['code']}-{day.strftime('%Y%m%d')}-{n + 1}", "title": title,
                           "date": day.isoformat(), "start_time": f"{hour:02d}:{r.choice(['00', '30'])}",
                           "duration_minutes": minutes, "location": place,
                           "free": r.random() < 0.8, "registration_required": activity == "stargazing"})
        day += timedelta(days=1)
    return {"park_code": park["code"], "start_date": first.isoformat(), "end_date": last.isoformat(),
            "count": len(events), "events": events}


if __name__ == "__main__":
    serve(mcp)
