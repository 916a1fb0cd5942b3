"""A China rail timetable: stations, tickets with live seats and fares, stops, transfers, bookings.

Timetables are shipped data; seat availability and floating fares are simulated per train and
travel date from seeded randomness, so any frozen date gives stable answers. Bookings are kept
in ``rail_bookings.json`` inside the episode sandbox.
"""

from __future__ import annotations

import hashlib
import json
from datetime import date, datetime, timedelta
from functools import cache
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from mcptrials.bundled.servers._runtime import SandboxError, confined, load_data, now, rng, serve

DYNAMISM = "stateful_write"
CATEGORY = "travel"
DESCRIPTION = "China rail timetable: station codes, tickets with seats and fares, stops, transfers, bookings."

mcp = MCPServer(
    "rail",
    instructions="Rail timetable for 30 Chinese cities. Stations are identified by three-letter codes; "
    "dates are YYYY-MM-DD in China Standard Time (UTC+08:00).",
    log_level="WARNING",
)

CHINA_TZ = ZoneInfo("Asia/Shanghai")
WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
BOOKINGS_FILE = "rail_bookings.json"
CITY_ALIASES = {"xian": "xi'an", "peking": "beijing", "canton": "guangzhou"}
TrainType = Literal["G", "D", "K"]
SeatClass = Literal["business", "first", "second", "soft_sleeper", "hard_sleeper", "hard_seat"]


# --------------------------------------------------------------------------- data access


@cache
def _index() -> dict[str, Any]:
    data = load_data("rail.json")
    stations = {s["code"]: s for s in data["stations"]}
    by_city: dict[str, list[dict[str, Any]]] = {}
    for s in data["stations"]:
        by_city.setdefault(s["city"].lower(), []).append(s)
    trains = {t["train_no"]: t for t in data["trains"]}
    return {"data": data, "stations": stations, "by_city": by_city, "trains": trains}


def _today() -> date:
    return now().astimezone(CHINA_TZ).date()


def _parse_date(value: str) -> date:
    try:
        return date.fromisoformat(value.strip())
    except ValueError as exc:
        raise ToolError(f"invalid date {value!r}: use YYYY-MM-DD, e.g. {_today().isoformat()}") from exc


def _sale_date(value: str) -> date:
    """A travel date inside the booking window (today .. today + 14 days)."""
    day = _parse_date(value)
    today = _today()
    window = _index()["data"]["booking_window_days"]
    if day < today:
        raise ToolError(f"{day.isoformat()} is in the past; today is {today.isoformat()} (China time)")
    if day > today + timedelta(days=window):
        last = (today + timedelta(days=window)).isoformat()
        raise ToolError(
            f"tickets for {day.isoformat()} are not on sale yet: sales open {window} days ahead, "
            f"so the latest date you can search today is {last}"
        )
    return day


def _station(code: str) -> dict[str, Any]:
    station = _index()["stations"].get(code.strip().upper())
    if station is None:
        raise ToolError(
            f"unknown station code {code!r}; look codes up with get_station_codes_by_city or search_stations"
        )
    return station


def _parse_hhmm(value: str, name: str) -> int:
    try:
        hours, minutes = value.strip().split(":")
        total = int(hours) * 60 + int(minutes)
    except ValueError as exc:
        raise ToolError(f"{name} must look like HH:MM, got {value!r}") from exc
    if not 0 <= total <= 24 * 60:
        raise ToolError(f"{name} must be between 00:00 and 24:00, got {value!r}")
    return total


def _minutes(stop_time: str, day: int) -> int:
    hours, minutes = stop_time.split(":")
    return day * 24 * 60 + int(hours) * 60 + int(minutes)


def _fmt_duration(minutes: int) -> str:
    return f"{minutes // 60}h {minutes % 60:02d}m"


# --------------------------------------------------------------------------- simulation


def _origin_date(train: dict[str, Any], stop_index: int, travel_date: date) -> date:
    """The date the train left its origin, given the date it leaves stop ``stop_index``."""
    return travel_date - timedelta(days=train["route"][stop_index]["day"])


def _runs(train: dict[str, Any], origin_date: date) -> bool:
    return origin_date.weekday() in train["runs_on"]


def _fare_factor(train_no: str, origin_date: date) -> float:
    if train_no[0] == "K":
        return 1.0
    return rng("rail-fare", train_no, origin_date.isoformat()).choice([0.9, 0.95, 1.0, 1.0, 1.05, 1.1])


def _seats(train: dict[str, Any], origin_date: date, km: int) -> list[dict[str, Any]]:
    classes = _index()["data"]["seat_classes"][train["type"]]
    factor = _fare_factor(train["train_no"], origin_date)
    days_ahead = (origin_date - _today()).days
    busy = 0.25 if origin_date.weekday() in (4, 6) else 0.1
    busy += 0.15 if days_ahead <= 1 else 0.0
    out = []
    for seat_class, rate in classes:
        r = rng("rail-seats", train["train_no"], origin_date.isoformat(), seat_class)
        sold_out = r.random() < busy + (0.1 if seat_class == "business" else 0.0)
        count = 0 if sold_out else r.choice([r.randint(1, 9), r.randint(10, 60), r.randint(20, 99)])
        price = round((km * rate + 2) * factor * 2) / 2
        status = "sold_out" if count == 0 else ("few" if count < 10 else "available")
        out.append({"class": seat_class, "price_cny": price, "available": count, "status": status})
    return out


def _city_of(code: str) -> str:
    return _station(code)["city"].lower()


def _legs(from_code: str, to_code: str, travel_date: date) -> list[dict[str, Any]]:
    """Every running train that calls at a station of the origin city, then one of the destination city."""
    from_city, to_city = _city_of(from_code), _city_of(to_code)
    if from_city == to_city:
        raise ToolError("origin and destination are in the same city")
    idx = _index()
    out = []
    for train in idx["trains"].values():
        route = train["route"]
        start = next((i for i, s in enumerate(route)
                      if idx["stations"][s["station"]]["city"].lower() == from_city and s["depart"]), None)
        if start is None:
            continue
        end = next((i for i in range(start + 1, len(route))
                    if idx["stations"][route[i]["station"]]["city"].lower() == to_city), None)
        if end is None:
            continue
        origin_date = _origin_date(train, start, travel_date)
        if not _runs(train, origin_date):
            continue
        out.append(_leg(train, start, end, origin_date))
    return out


def _leg(train: dict[str, Any], start: int, end: int, origin_date: date) -> dict[str, Any]:
    a, b = train["route"][start], train["route"][end]
    dep = _minutes(a["depart"], a["day"])
    arr = _minutes(b["arrive"], b["day"])
    km = b["km"] - a["km"]
    dep_date = origin_date + timedelta(days=a["day"])
    arr_date = origin_date + timedelta(days=b["day"])
    return {
        "train_no": train["train_no"],
        "type": train["type"],
        "from_station": a["station"],
        "to_station": b["station"],
        "depart": a["depart"],
        "arrive": b["arrive"],
        "arrive_date": arr_date.isoformat(),
        "duration": _fmt_duration(arr - dep),
        "distance_km": km,
        "seats": {s["class"]: {"price_cny": s["price_cny"], "left": s["available"]}
                  for s in _seats(train, origin_date, km)},
        "_minutes": arr - dep,
        "_dep": dep - a["day"] * 24 * 60,
        "_arr_abs": (arr_date - dep_date).days * 24 * 60 + _minutes(b["arrive"], 0),
    }


def _public(leg: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in leg.items() if not k.startswith("_")}


def _legend(legs: list[dict[str, Any]]) -> dict[str, str]:
    stations = _index()["stations"]
    codes = sorted({leg["from_station"] for leg in legs} | {leg["to_station"] for leg in legs})
    return {code: stations[code]["name"] for code in codes}


def _runs_on_text(train: dict[str, Any]) -> str:
    days = train["runs_on"]
    return "daily" if len(days) == 7 else ", ".join(WEEKDAYS[d] for d in days)


def _cheapest(leg: dict[str, Any]) -> float | None:
    prices = [s["price_cny"] for s in leg["seats"].values() if s["left"] > 0]
    return min(prices) if prices else None


# --------------------------------------------------------------------------- station tools


@mcp.tool()
def get_current_date() -> dict[str, str]:
    """Today's date in China Standard Time (UTC+08:00), the time zone every rail date is read in."""
    current = now().astimezone(CHINA_TZ)
    return {"date": current.date().isoformat(), "weekday": WEEKDAYS[current.weekday()],
            "time": current.strftime("%H:%M"), "timezone": "Asia/Shanghai"}


@mcp.tool()
def get_station_codes_by_city(
    cities: Annotated[str, Field(description="City names separated by commas, e.g. 'Beijing,Xi'an'")],
) -> dict[str, Any]:
    """Return the main station code of each city, for use as from_station/to_station in ticket searches."""
    idx = _index()
    out: dict[str, Any] = {}
    for raw in [c.strip() for c in cities.split(",") if c.strip()]:
        stations = idx["by_city"].get(CITY_ALIASES.get(raw.lower(), raw.lower()))
        if not stations:
            out[raw] = {"error": "no station found for this city"}
            continue
        main = stations[0]
        out[raw] = {"station_code": main["code"], "station_name": main["name"]}
    if not out:
        raise ToolError("give at least one city name")
    if all("error" in v for v in out.values()):
        raise ToolError(f"no stations found for {cities!r}; this timetable covers 30 major Chinese cities")
    return out


@mcp.tool()
def get_stations_in_city(city: str) -> dict[str, Any]:
    """List every station of a city with its code and whether it serves high-speed or conventional trains."""
    key = city.strip().lower()
    stations = _index()["by_city"].get(CITY_ALIASES.get(key, key))
    if not stations:
        raise ToolError(f"no stations found for city {city!r}")
    return {"city": stations[0]["city"], "province": stations[0]["province"],
            "stations": [{"code": s["code"], "name": s["name"], "kind": s["kind"]} for s in stations]}


@mcp.tool()
def get_station_by_code(code: str) -> dict[str, Any]:
    """Look up one station by its three-letter code."""
    station = _station(code)
    return {k: station[k] for k in ("code", "name", "city", "province", "kind", "address", "lat", "lon")}


@mcp.tool()
def search_stations(
    keyword: Annotated[str, Field(description="Part of a station, city or province name, or a code")],
    limit: Annotated[int, Field(ge=1, le=30)] = 10,
) -> dict[str, Any]:
    """Find stations whose name, city, province or code contains the keyword."""
    needle = keyword.strip().lower()
    if not needle:
        raise ToolError("keyword must not be empty")
    hits = [s for s in _index()["data"]["stations"]
            if needle in s["name"].lower() or needle in s["city"].lower() or needle in s["province"].lower()
            or needle == s["code"].lower()]
    return {"keyword": keyword, "count": len(hits),
            "stations": [{"code": s["code"], "name": s["name"], "city": s["city"], "kind": s["kind"]}
                         for s in hits[:limit]]}


# --------------------------------------------------------------------------- ticket tools


class DepartureWindow(BaseModel):
    """Only keep trains leaving the origin station inside this window (local time)."""

    earliest: str = Field("00:00", description="HH:MM, inclusive")
    latest: str = Field("23:59", description="HH:MM, inclusive")


@mcp.tool()
def get_tickets(
    date: Annotated[str, Field(description="Travel date YYYY-MM-DD (China time), within the next 14 days")],
    from_station: Annotated[str, Field(description="Departure station code, e.g. BJP; any station of "
                                                   "the same city matches")],
    to_station: Annotated[str, Field(description="Arrival station code, e.g. SHH")],
    train_types: Annotated[list[TrainType] | None, Field(description="Keep only these train types; "
                                                                     "all when omitted")] = None,
    departure_window: DepartureWindow | None = None,
    sort_by: Literal["departure_time", "arrival_time", "duration", "price"] = "departure_time",
    only_available: Annotated[bool, Field(description="Drop trains with no seat left in any class")] = False,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
) -> dict[str, Any]:
    """Search trains between two cities on a date, with departure and arrival times, seats left and fares.

    Station codes are matched by city, so BJP finds trains from Beijing South, West and Chaoyang too;
    each result names the exact stations. Fares are in CNY and float a little from day to day.
    """
    day = _sale_date(date)
    legs = _legs(from_station, to_station, day)
    if train_types:
        legs = [leg for leg in legs if leg["type"] in train_types]
    if departure_window is not None:
        lo = _parse_hhmm(departure_window.earliest, "departure_window.earliest")
        hi = _parse_hhmm(departure_window.latest, "departure_window.latest")
        legs = [leg for leg in legs if lo <= leg["_dep"] <= hi]
    if only_available:
        legs = [leg for leg in legs if any(s["left"] > 0 for s in leg["seats"].values())]
    keys = {
        "departure_time": lambda leg: (leg["_dep"], leg["train_no"]),
        "arrival_time": lambda leg: (leg["_arr_abs"], leg["train_no"]),
        "duration": lambda leg: (leg["_minutes"], leg["train_no"]),
        "price": lambda leg: (_cheapest(leg) if _cheapest(leg) is not None else 1e9, leg["train_no"]),
    }
    legs.sort(key=keys[sort_by])
    return {
        "date": day.isoformat(),
        "from": _station(from_station)["city"],
        "to": _station(to_station)["city"],
        "count": len(legs),
        "shown": min(limit, len(legs)),
        "stations": _legend(legs[:limit]),
        "trains": [_public(leg) for leg in legs[:limit]],
    }


@mcp.tool()
def get_tickets_by_train_type(
    date: str, from_station: str, to_station: str, train_type: TrainType
) -> dict[str, Any]:
    """Trains of one type between two stations. Times only."""
    day = _sale_date(date)
    legs = sorted((leg for leg in _legs(from_station, to_station, day) if leg["type"] == train_type),
                  key=lambda leg: leg["_dep"])
    fields = ("train_no", "from_station", "to_station", "depart", "arrive", "duration")
    return {
        "date": day.isoformat(),
        "train_type": train_type,
        "trains": [{k: leg[k] for k in fields} | {"seats_left": sum(s["left"] for s in leg["seats"].values())}
                   for leg in legs],
    }


@mcp.tool()
def get_train_stops(
    train_no: Annotated[str, Field(description="Train number such as G1 or K599")],
    date: Annotated[str, Field(description="Date the train leaves its first station, YYYY-MM-DD")],
) -> dict[str, Any]:
    """Every stop of a train on a given day: arrival and departure times, dwell time and distance."""
    train = _index()["trains"].get(train_no.strip().upper())
    if train is None:
        raise ToolError(f"unknown train number {train_no!r}")
    day = _parse_date(date)
    if not _runs(train, day):
        raise ToolError(f"{train['train_no']} does not run on {day.isoformat()} ({WEEKDAYS[day.weekday()]}); "
                        f"it runs on {_runs_on_text(train)}")
    stations = _index()["stations"]
    stops = []
    for i, s in enumerate(train["route"]):
        dwell = None
        if s["arrive"] and s["depart"]:
            dwell = (_minutes(s["depart"], 0) - _minutes(s["arrive"], 0)) % (24 * 60)
        stops.append({"seq": i + 1, "station": s["station"], "station_name": stations[s["station"]]["name"],
                      "city": stations[s["station"]]["city"], "arrive": s["arrive"], "depart": s["depart"],
                      "stop_minutes": dwell, "date": (day + timedelta(days=s["day"])).isoformat(),
                      "km": s["km"]})
    first, last = train["route"][0], train["route"][-1]
    total = _minutes(last["arrive"], last["day"]) - _minutes(first["depart"], 0)
    return {"train_no": train["train_no"], "type": train["type"], "line": train["line"],
            "date": day.isoformat(), "runs_on": _runs_on_text(train),
            "duration": _fmt_duration(total),
            "distance_km": last["km"], "stops": stops}


@mcp.tool()
def get_interline_tickets(
    date: Annotated[str, Field(description="Travel date YYYY-MM-DD, within the next 14 days")],
    from_station: str,
    to_station: str,
    via_city: Annotated[str | None, Field(description="Force the change in this city")] = None,
    min_transfer_minutes: Annotated[int, Field(ge=10, le=180)] = 20,
    limit: Annotated[int, Field(ge=1, le=10)] = 5,
) -> dict[str, Any]:
    """Two-train journeys with one change, for routes without a convenient direct train.

    The change happens in a city both trains serve; changing between two stations of the same city
    needs at least 60 minutes. Results are ordered by total journey time.
    """
    day = _sale_date(date)
    idx = _index()
    from_city, to_city = _city_of(from_station), _city_of(to_station)
    if from_city == to_city:
        raise ToolError("origin and destination are in the same city")
    via = via_city.strip().lower() if via_city else None
    if via is not None and via not in idx["by_city"]:
        raise ToolError(f"unknown transfer city {via_city!r}")
    max_wait = idx["data"]["max_transfer_minutes"]
    hubs = sorted({s["city"].lower() for s in idx["data"]["stations"]} - {from_city, to_city})
    options = []
    for hub in hubs:
        if via is not None and hub != via:
            continue
        hub_code = idx["by_city"][hub][0]["code"]
        first_legs = _legs(from_station, hub_code, day)
        if not first_legs:
            continue
        for leg1 in first_legs:
            arrive_day = _parse_date(leg1["arrive_date"])
            if (arrive_day - day).days > 0:
                continue
            for leg2 in _legs(hub_code, to_station, arrive_day):
                need = min_transfer_minutes if leg2["from_station"] == leg1["to_station"] else max(
                    60, min_transfer_minutes)
                wait = leg2["_dep"] - _minutes(leg1["arrive"], 0)
                if not need <= wait <= max_wait:
                    continue
                total = leg1["_minutes"] + wait + leg2["_minutes"]
                options.append((total, leg1["_dep"], leg1, leg2, wait))
    options.sort(key=lambda o: (o[0], o[1], o[2]["train_no"], o[3]["train_no"]))
    if not options:
        raise ToolError("no one-change journey found on that date; try another date or transfer city")
    out = []
    for total, _, leg1, leg2, wait in options[:limit]:
        out.append({
            "transfer_city": idx["stations"][leg1["to_station"]]["city"],
            "transfer_minutes": wait,
            "same_station": leg1["to_station"] == leg2["from_station"],
            "total_duration": _fmt_duration(total),
            "total_minutes": total,
            "legs": [_public(leg1), _public(leg2)],
        })
    return {"date": day.isoformat(), "from": _station(from_station)["city"],
            "to": _station(to_station)["city"], "count": len(options), "itineraries": out}


# --------------------------------------------------------------------------- bookings


def _load_bookings() -> dict[str, Any]:
    path = confined(BOOKINGS_FILE)
    if not path.exists():
        return {"bookings": []}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ToolError(f"{BOOKINGS_FILE} in the workspace is not valid JSON") from exc


def _save_bookings(state: dict[str, Any]) -> None:
    try:
        path = confined(BOOKINGS_FILE)
    except SandboxError as exc:  # pragma: no cover - constant path
        raise ToolError(str(exc)) from exc
    path.write_text(json.dumps(state, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


@mcp.tool()
def book_ticket(
    train_no: str,
    date: Annotated[str, Field(description="Date of departure from from_station, YYYY-MM-DD")],
    from_station: Annotated[str, Field(description="Exact boarding station code on this train's route")],
    to_station: Annotated[str, Field(description="Exact alighting station code on this train's route")],
    seat_class: SeatClass,
    passenger_name: Annotated[str, Field(min_length=2, max_length=60)],
) -> dict[str, Any]:
    """Buy one ticket. This charges the fare shown by get_tickets and reserves a seat."""
    day = _sale_date(date)
    train = _index()["trains"].get(train_no.strip().upper())
    if train is None:
        raise ToolError(f"unknown train number {train_no!r}")
    codes = [s["station"] for s in train["route"]]
    src, dst = _station(from_station)["code"], _station(to_station)["code"]
    if src not in codes or dst not in codes or codes.index(src) >= codes.index(dst):
        stops = ", ".join(codes)
        raise ToolError(f"{train['train_no']} does not run from {src} to {dst}; its stops are {stops}")
    start, end = codes.index(src), codes.index(dst)
    origin_date = _origin_date(train, start, day)
    if not _runs(train, origin_date):
        raise ToolError(f"{train['train_no']} does not run on {day.isoformat()}")
    leg = _leg(train, start, end, origin_date)
    seat = leg["seats"].get(seat_class)
    if seat is None:
        offered = ", ".join(leg["seats"])
        raise ToolError(f"{train['train_no']} has no {seat_class} class; it offers {offered}")
    state = _load_bookings()
    taken = sum(1 for b in state["bookings"]
                if b["train_no"] == train["train_no"] and b["date"] == day.isoformat()
                and b["seat_class"] == seat_class and b["status"] == "active")
    if seat["left"] - taken <= 0:
        raise ToolError(f"no {seat_class} seats left on {train['train_no']} on {day.isoformat()}")
    key = json.dumps([train["train_no"], day.isoformat(), src, dst, seat_class, passenger_name.strip(),
                      len(state["bookings"])])
    booking_id = "RB" + hashlib.sha256(key.encode()).hexdigest()[:8].upper()
    car = 1 + int(hashlib.sha256((key + "car").encode()).hexdigest(), 16) % 16
    booking = {
        "booking_id": booking_id, "status": "active", "passenger_name": passenger_name.strip(),
        "train_no": train["train_no"], "date": day.isoformat(), "from_station": src, "to_station": dst,
        "depart": leg["depart"], "arrive": leg["arrive"], "arrive_date": leg["arrive_date"],
        "seat_class": seat_class,
        "seat": f"car {car:02d} seat {1 + len(state['bookings']) % 20:02d}{'ABCDF'[car % 5]}",
        "price_cny": seat["price_cny"], "booked_at": now().astimezone(CHINA_TZ).isoformat(timespec="minutes"),
    }
    state["bookings"].append(booking)
    _save_bookings(state)
    return booking


@mcp.tool()
def list_bookings(status: Literal["active", "cancelled", "all"] = "active") -> dict[str, Any]:
    """List the tickets booked in this workspace."""
    bookings = _load_bookings()["bookings"]
    if status != "all":
        bookings = [b for b in bookings if b["status"] == status]
    return {"status": status, "count": len(bookings), "bookings": bookings}


@mcp.tool()
def cancel_booking(booking_id: str) -> dict[str, Any]:
    """Cancel a booked ticket and refund it, minus a fee when departure is less than 48 hours away."""
    state = _load_bookings()
    booking = next((b for b in state["bookings"] if b["booking_id"] == booking_id.strip().upper()), None)
    if booking is None:
        raise ToolError(f"no booking {booking_id!r}; list_bookings shows the existing ones")
    if booking["status"] != "active":
        raise ToolError(f"booking {booking['booking_id']} is already {booking['status']}")
    departure = datetime.fromisoformat(f"{booking['date']}T{booking['depart']}").replace(tzinfo=CHINA_TZ)
    hours_left = (departure - now()).total_seconds() / 3600
    if hours_left <= 0:
        raise ToolError(f"booking {booking['booking_id']} has already departed and cannot be cancelled")
    fee_rate = 0.0 if hours_left >= 48 else (0.05 if hours_left >= 24 else 0.2)
    fee = round(booking["price_cny"] * fee_rate * 2) / 2
    booking["status"] = "cancelled"
    booking["refund_cny"] = booking["price_cny"] - fee
    booking["cancellation_fee_cny"] = fee
    _save_bookings(state)
    return booking


if __name__ == "__main__":
    serve(mcp)
