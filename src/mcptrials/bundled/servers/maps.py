"""A small offline map service: geocoding, places, distances, directions, time zones, elevation.

It knows about 60 cities, their landmarks, stations and businesses, and the US national parks
with their gateway towns. Distances are great-circle distances stretched by a per-mode detour
factor, so answers are stable and roughly realistic.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from mcptrials.bundled.servers._runtime import load_data, now, rng, serve

DYNAMISM = "static"
CATEGORY = "travel"
DESCRIPTION = "Offline maps: geocoding, places nearby, place details, distance matrix, directions, time zones."

mcp = MCPServer("maps", log_level="WARNING")

PlaceType = Literal["restaurant", "cafe", "hotel", "museum", "park", "hospital", "train_station", "pharmacy",
                    "supermarket", "attraction", "gas_station"]
TravelMode = Literal["driving", "walking", "bicycling", "transit"]
COORD_RE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$")
# Countries reachable from one another by road.
LANDMASS = {"US": "north_america", "CA": "north_america", "MX": "north_america", "FR": "europe", "DE": "europe",
            "GB": "europe"}
MODE_FACTORS = {"driving": 1.25, "walking": 1.2, "bicycling": 1.22, "transit": 1.3}
MODE_LIMIT_KM = {"driving": 6000.0, "walking": 150.0, "bicycling": 400.0, "transit": 80.0}


# --------------------------------------------------------------------------- data


@cache
def _world() -> dict[str, Any]:
    data = load_data("maps.json")
    cities = {c["id"]: c for c in data["cities"]}
    places = {p["id"]: p for p in data["places"]}
    parks = {p["code"]: p for p in load_data("parks.json")["parks"]}
    return {"cities": cities, "places": places, "parks": parks, "place_list": data["places"]}


def _haversine(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(a))


def _area(city_id: str) -> dict[str, Any]:
    """The city record, or a pseudo-city for a park area, with country code, admin and tz."""
    world = _world()
    if city_id.startswith("park-"):
        park = world["parks"][city_id[5:]]
        return {"id": city_id, "name": park["gateway_town"], "admin": park["state_names"][0],
                "country": "United States", "country_code": "US", "tz": park["timezone"],
                "lat": park["lat"], "lon": park["lon"], "elevation_m": park["elevation_m"],
                "island": "HI" in park["states"]}
    city = world["cities"][city_id]
    return city | {"island": city["admin"] == "Hawaii"}


def _landmass(area: dict[str, Any]) -> str:
    if area.get("island"):
        return "hawaii"
    return LANDMASS.get(area["country_code"], area["country_code"])


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9 ]+", " ", text.lower().replace("'", "")).strip()


def _tokens(text: str) -> set[str]:
    return {t for t in _norm(text).split() if t not in {"the", "of", "in", "at", "near", "a"}}


def _city_result(city: dict[str, Any]) -> dict[str, Any]:
    return {"place_id": f"city-{city['id']}", "name": city["name"], "type": "locality",
            "formatted_address": f"{city['name']}, {city['admin']}, {city['country']}"
            if city["admin"] != city["name"] else f"{city['name']}, {city['country']}",
            "lat": city["lat"], "lon": city["lon"]}


def _place_result(place: dict[str, Any]) -> dict[str, Any]:
    return {"place_id": place["id"], "name": place["name"], "type": place["type"],
            "formatted_address": place["address"], "lat": place["lat"], "lon": place["lon"]}


def _score(query: str, name: str, extra: str = "") -> float:
    q, n = _norm(query), _norm(name)
    if not q:
        return 0.0
    if q == n:
        return 10.0
    qt, nt = _tokens(query), _tokens(name) | _tokens(extra)
    if not qt:
        return 0.0
    overlap = len(qt & nt) / len(qt)
    bonus = 1.0 if n.startswith(q) else 0.0
    needed = 1.0 if len(qt) <= 3 else 0.75
    return 5.0 * overlap + bonus if overlap >= needed else 0.0


def _geocode_candidates(query: str) -> list[tuple[float, dict[str, Any]]]:
    world = _world()
    scored: list[tuple[float, dict[str, Any]]] = []
    for city in world["cities"].values():
        s = max(_score(query, city["name"]) + 0.5,
                _score(query, f"{city['name']} {city['admin']}", city["country"]) + 0.5,
                _score(query, f"{city['name']} {city['country']}") + 0.5)
        if s > 0.5:
            scored.append((s + 2.0, _city_result(city)))
    for place in world["place_list"]:
        area = _area(place["city_id"])
        s = max(_score(query, place["name"], area["name"]), _score(query, place["address"]))
        if place.get("rail_code") and _norm(query) == place["rail_code"].lower():
            s = 10.0
        if s > 0:
            scored.append((s, _place_result(place)))
    scored.sort(key=lambda x: (-x[0], x[1]["place_id"]))
    return scored


def _resolve_point(text: str) -> tuple[float, float, str]:
    """A 'lat,lon' pair, a place_id or an address, as coordinates plus a label."""
    match = COORD_RE.match(text)
    if match:
        lat, lon = float(match.group(1)), float(match.group(2))
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            raise ToolError(f"coordinates out of range: {text!r}")
        return lat, lon, text.strip()
    world = _world()
    if text in world["places"]:
        place = world["places"][text]
        return place["lat"], place["lon"], place["name"]
    if text.startswith("city-") and text[5:] in world["cities"]:
        city = world["cities"][text[5:]]
        return city["lat"], city["lon"], city["name"]
    found = _geocode_candidates(text)
    if not found:
        raise ToolError(f"could not find {text!r}; pass 'lat,lon', a place_id, or a more specific address")
    best = found[0][1]
    return best["lat"], best["lon"], best["name"]


def _nearest_area(lat: float, lon: float) -> tuple[dict[str, Any], float]:
    world = _world()
    best: tuple[dict[str, Any], float] | None = None
    for key in [*world["cities"], *(f"park-{c}" for c in world["parks"])]:
        area = _area(key)
        d = _haversine(lat, lon, area["lat"], area["lon"])
        if best is None or d < best[1]:
            best = (area, d)
    assert best is not None
    return best


def _route(a: tuple[float, float], b: tuple[float, float], mode: str) -> dict[str, Any]:
    """Distance and duration between two points, or a status saying no route exists."""
    area_a, da = _nearest_area(*a)
    area_b, db = _nearest_area(*b)
    straight = _haversine(a[0], a[1], b[0], b[1])
    if _landmass(area_a) != _landmass(area_b) or da > 400 or db > 400:
        return {"status": "ZERO_RESULTS", "note": "no land route between these points"}
    distance = straight * MODE_FACTORS[mode] + (0.2 if straight > 0 else 0.0)
    if distance > MODE_LIMIT_KM[mode]:
        note = "transit covers trips within one metro area" if mode == "transit" else "too far for this mode"
        return {"status": "ZERO_RESULTS", "note": note}
    if mode == "driving":
        speed = 28.0 if distance < 25 else (65.0 if distance < 200 else 88.0)
        minutes = distance / speed * 60 + 3
    elif mode == "walking":
        minutes = distance / 4.8 * 60
    elif mode == "bicycling":
        minutes = distance / 15.0 * 60
    else:
        minutes = distance / 24.0 * 60 + 9
    return {"status": "OK", "distance_km": round(distance, 1), "duration_minutes": round(minutes)}


def _fmt_minutes(minutes: int) -> str:
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"


def _is_open(hours: str, tz: str) -> bool:
    start, end = hours.split("-")
    local = now().astimezone(ZoneInfo(tz))
    minute = local.hour * 60 + local.minute
    sh, sm = (int(x) for x in start.split(":"))
    eh, em = (int(x) for x in end.split(":"))
    return sh * 60 + sm <= minute < eh * 60 + em


# --------------------------------------------------------------------------- tools


@mcp.tool()
def geocode(
    address: Annotated[str, Field(description="A city, landmark, station, business name or street address")],
    limit: Annotated[int, Field(ge=1, le=10)] = 3,
) -> dict[str, Any]:
    """Turn an address or place name into coordinates. Ambiguous names return several candidates."""
    found = _geocode_candidates(address)
    if not found:
        raise ToolError(f"no results for {address!r}")
    return {"query": address, "results": [r for _, r in found[:limit]]}


@mcp.tool()
def reverse_geocode(
    lat: Annotated[float, Field(ge=-90, le=90)],
    lon: Annotated[float, Field(ge=-180, le=180)],
) -> dict[str, Any]:
    """Describe what is at a coordinate: the nearest known place and the surrounding city or park area."""
    area, dist = _nearest_area(lat, lon)
    nearest = min(_world()["place_list"], key=lambda p: (_haversine(lat, lon, p["lat"], p["lon"]), p["id"]))
    place_dist = _haversine(lat, lon, nearest["lat"], nearest["lon"])
    return {
        "lat": lat, "lon": lon,
        "area": {"name": area["name"], "admin": area["admin"], "country": area["country"],
                 "distance_km": round(dist, 1)},
        "nearest_place": _place_result(nearest) | {"distance_m": round(place_dist * 1000)},
        "formatted_address": nearest["address"] if place_dist < 0.3
        else f"near {nearest['name']}, {area['name']}, {area['country']}",
    }


@mcp.tool()
def search_places(
    query: Annotated[str, Field(description="Free text such as 'museum' or 'Golden Kitchen'")],
    city: Annotated[str | None, Field(description="Restrict to this city or park gateway town")] = None,
    type: PlaceType | None = None,
    limit: Annotated[int, Field(ge=1, le=20)] = 5,
) -> dict[str, Any]:
    """Text search over businesses, landmarks and stations, optionally inside one city."""
    results = []
    qt = _tokens(query)
    for place in _world()["place_list"]:
        area = _area(place["city_id"])
        if city and _norm(city) not in (_norm(area["name"]), _norm(area["id"])):
            continue
        if type and place["type"] != type:
            continue
        words = _tokens(place["name"]) | _tokens(place["type"].replace("_", " "))
        hit = len(qt & words)
        if hit == 0 and _norm(query) not in _norm(place["name"]):
            continue
        results.append((-hit, -place["rating"], place["id"], place))
    if not results:
        raise ToolError(f"no places match {query!r}" + (f" in {city}" if city else ""))
    results.sort(key=lambda x: x[:3])
    return {"query": query, "count": len(results),
            "results": [_place_result(p) | {"rating": p["rating"]} for *_, p in results[:limit]]}


@mcp.tool()
def nearby_places(
    lat: Annotated[float, Field(ge=-90, le=90)],
    lon: Annotated[float, Field(ge=-180, le=180)],
    type: PlaceType | None = None,
    radius_m: Annotated[int, Field(ge=50, le=50000, description="Search radius in metres")] = 1500,
    open_now: Annotated[bool, Field(description="Only places open at the current local time")] = False,
    limit: Annotated[int, Field(ge=1, le=20)] = 10,
) -> dict[str, Any]:
    """Places within a radius of a point, nearest first, optionally of one type and open right now."""
    hits = []
    for place in _world()["place_list"]:
        if type and place["type"] != type:
            continue
        d = _haversine(lat, lon, place["lat"], place["lon"]) * 1000
        if d > radius_m:
            continue
        tz = _area(place["city_id"])["tz"]
        is_open = _is_open(place["hours"], tz)
        if open_now and not is_open:
            continue
        hits.append((round(d), place["id"], place, is_open))
    hits.sort(key=lambda x: x[:2])
    return {"center": {"lat": lat, "lon": lon}, "radius_m": radius_m, "count": len(hits),
            "results": [_place_result(p) | {"distance_m": d, "rating": p["rating"], "open_now": o}
                        for d, _, p, o in hits[:limit]]}


@mcp.tool()
def place_details(place_id: str) -> dict[str, Any]:
    """Full details of one place: address, phone, opening hours, rating, price level and whether it is open now."""
    world = _world()
    if place_id.startswith("city-") and place_id[5:] in world["cities"]:
        city = world["cities"][place_id[5:]]
        return _city_result(city) | {"timezone": city["tz"], "elevation_m": city["elevation_m"],
                                     "population": city["population_k"] * 1000}
    place = world["places"].get(place_id)
    if place is None:
        raise ToolError(f"unknown place_id {place_id!r}; get ids from geocode, search_places or nearby_places")
    area = _area(place["city_id"])
    out = {k: v for k, v in place.items() if k not in ("city_id",) and v is not None}
    out["city"] = area["name"]
    out["timezone"] = area["tz"]
    out["open_now"] = _is_open(place["hours"], area["tz"])
    return out


class DistanceMatrixResult(BaseModel):
    """Rows follow origins, elements follow destinations."""

    mode: str
    origins: list[str]
    destinations: list[str]
    rows: list[list[dict[str, Any]]]


@mcp.tool()
def distance_matrix(
    origins: Annotated[list[str], Field(min_length=1, max_length=10,
                                        description="Each a 'lat,lon' pair, a place_id or an address")],
    destinations: Annotated[list[str], Field(min_length=1, max_length=10)],
    mode: TravelMode = "driving",
) -> DistanceMatrixResult:
    """Travel distance and time from every origin to every destination for one travel mode."""
    a = [_resolve_point(o) for o in origins]
    b = [_resolve_point(d) for d in destinations]
    rows = []
    for lat1, lon1, _ in a:
        row = []
        for lat2, lon2, label in b:
            element = _route((lat1, lon1), (lat2, lon2), mode)
            if element["status"] == "OK":
                element["duration_text"] = _fmt_minutes(element["duration_minutes"])
            row.append({"to": label} | element)
        rows.append(row)
    return DistanceMatrixResult(mode=mode, origins=[x[2] for x in a], destinations=[x[2] for x in b], rows=rows)


@mcp.tool()
def directions(
    origin: str,
    destination: str,
    mode: TravelMode = "driving",
    avoid: Annotated[list[Literal["tolls", "highways", "ferries"]], Field(description="Route features to avoid")]
    = [],  # noqa: B006 - pydantic copies defaults
) -> dict[str, Any]:
    """Turn-by-turn directions between two places (addresses, place ids or 'lat,lon')."""
    lat1, lon1, label1 = _resolve_point(origin)
    lat2, lon2, label2 = _resolve_point(destination)
    route = _route((lat1, lon1), (lat2, lon2), mode)
    if route["status"] != "OK":
        raise ToolError(f"no {mode} route from {label1} to {label2}: {route['note']}")
    distance, minutes = route["distance_km"], route["duration_minutes"]
    if mode == "driving" and "highways" in avoid and distance > 30:
        distance, minutes = round(distance * 1.12, 1), round(minutes * 1.35)
    if mode == "driving" and "tolls" in avoid and distance > 30:
        minutes = round(minutes * 1.08)
    r = rng("directions", label1, label2, mode)
    bearing = math.degrees(math.atan2(lon2 - lon1, lat2 - lat1)) % 360
    heading = ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"][
        int((bearing + 22.5) // 45) % 8]
    roads = ["Station Road", "Riverside Avenue", "Ring Road", "Central Boulevard", "Park Street", "Harbor Way",
             "Expressway G2", "Interstate 15", "Highway 9", "Lakeshore Drive", "Market Street"]
    verb = {"driving": "Drive", "walking": "Walk", "bicycling": "Cycle", "transit": "Ride"}[mode]
    n_steps = 3 if distance < 5 else (4 if distance < 50 else 5)
    shares = [r.uniform(0.5, 1.5) for _ in range(n_steps)]
    total = sum(shares)
    steps = []
    for i, share in enumerate(shares):
        km = round(distance * share / total, 1)
        road = r.choice(roads)
        if i == 0:
            text = f"Head {heading} on {road}"
        elif i == n_steps - 1:
            text = f"{verb} on {road} to arrive at {label2}"
        else:
            text = f"Turn {'left' if r.random() < 0.5 else 'right'} onto {road}"
        steps.append({"instruction": text, "distance_km": km})
    return {"origin": label1, "destination": label2, "mode": mode, "avoid": avoid, "distance_km": distance,
            "duration_minutes": minutes, "duration_text": _fmt_minutes(minutes), "steps": steps}


@mcp.tool()
def get_timezone(
    lat: Annotated[float, Field(ge=-90, le=90)],
    lon: Annotated[float, Field(ge=-180, le=180)],
) -> dict[str, Any]:
    """The IANA time zone at a coordinate, its current UTC offset and the local time there."""
    area, dist = _nearest_area(lat, lon)
    if dist > 800:
        raise ToolError("no time zone data this far from a known city or park")
    local = now().astimezone(ZoneInfo(area["tz"]))
    offset = local.strftime("%z")
    return {"timezone": area["tz"], "utc_offset": f"{offset[:3]}:{offset[3:]}",
            "dst_active": bool(local.dst()), "local_time": local.isoformat(timespec="minutes"),
            "reference_area": area["name"]}


class Coordinate(BaseModel):
    """A point on the globe in decimal degrees."""

    lat: float = Field(ge=-90, le=90)
    lon: float = Field(ge=-180, le=180)


@mcp.tool()
def get_elevation(
    locations: Annotated[list[Coordinate], Field(min_length=1, max_length=20)],
) -> dict[str, Any]:
    """Ground elevation in metres above sea level for up to 20 points."""
    out = []
    for point in locations:
        area, dist = _nearest_area(point.lat, point.lon)
        if dist > 150:
            raise ToolError(f"no elevation data at {point.lat},{point.lon}; coverage is within 150 km of known areas")
        jitter = rng("elevation", round(point.lat, 3), round(point.lon, 3)).uniform(-1, 1) * min(dist * 8, 400)
        value = max(area["elevation_m"] + jitter, -80 if area["elevation_m"] < 0 else 0)
        out.append({"lat": point.lat, "lon": point.lon, "elevation_m": round(value)})
    return {"results": out}


if __name__ == "__main__":
    serve(mcp)
