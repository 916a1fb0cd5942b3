"""The travel, knowledge and time servers: deterministic, clock-driven, sandbox-confined, realistic."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

SERVERS = ["rail", "maps", "parks", "weather", "encyclopedia", "papers", "papers_mirror", "clock", "worldclock"]
NOW = "2026-04-13T09:00:00+08:00"


def module(name: str) -> Any:
    return importlib.import_module(f"mcptrials.bundled.servers.{name}")


@pytest.fixture(autouse=True)
def frozen_world(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Every test starts with the default frozen clock and an empty sandbox of its own."""
    monkeypatch.setenv("MCPTRIALS_NOW", NOW)
    monkeypatch.setenv("MCPTRIALS_SANDBOX", str(tmp_path))
    return tmp_path


async def call(server: str, tool: str, **args: Any) -> Any:
    """Call a tool in memory; return parsed JSON (or text), raising on a tool error."""
    async with Client(module(server).mcp, cache=None) as client:
        result = await client.call_tool(tool, args)
    text = "\n".join(c.text for c in result.content)
    if result.is_error:
        raise AssertionError(f"{server}.{tool} failed: {text}")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


async def error(server: str, tool: str, **args: Any) -> str:
    """Call a tool that must fail; return the error message the client sees."""
    async with Client(module(server).mcp, cache=None) as client:
        result = await client.call_tool(tool, args)
    assert result.is_error, f"{server}.{tool}({args}) should have failed"
    return "\n".join(c.text for c in result.content)


# --------------------------------------------------------------------------- shape of the world


async def test_metadata_and_tool_counts() -> None:
    total = 0
    for name in SERVERS:
        mod = module(name)
        assert mod.DYNAMISM in {"static", "live_read", "stateful_write"}
        assert mod.CATEGORY in {"travel", "knowledge", "time"}
        assert mod.DESCRIPTION and "\n" not in mod.DESCRIPTION
        async with Client(mod.mcp, cache=None) as client:
            tools = (await client.list_tools()).tools
        assert len(tools) >= 4, name
        for tool in tools:
            assert tool.description, f"{name}.{tool.name} has no description"
        total += len(tools)
    assert total >= 50


async def test_same_name_traps_exist() -> None:
    async def names(server: str) -> set[str]:
        async with Client(module(server).mcp, cache=None) as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert {"search_papers", "get_paper_details"} <= (await names("papers")) & (await names("papers_mirror"))
    assert "now" in (await names("clock")) & (await names("worldclock"))
    assert "get_alerts" in (await names("parks")) & (await names("weather"))


def test_shipped_data_matches_the_generator() -> None:
    from mcptrials.bundled.data import generate_travel as gen

    built = {"rail.json": gen.build_rail(), "parks.json": gen.build_parks(), "weather.json": None,
             "worldclock.json": gen.build_worldclock(), "encyclopedia.json": gen.build_encyclopedia()}
    built["maps.json"] = gen.build_maps(built["rail.json"], built["parks.json"])
    built["weather.json"] = gen.build_weather(built["parks.json"])
    built["papers.json"], built["papers_mirror.json"] = gen.build_papers()
    total = 0
    for name, obj in built.items():
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=False) + "\n"
        shipped = (Path(gen.__file__).parent / name).read_text(encoding="utf-8")
        assert shipped == text, f"{name} is stale: re-run generate_travel.py"
        total += len(text.encode())
    assert total < 1_500_000
    assert 140 <= len(built["rail.json"]["trains"]) <= 200
    assert 55 <= len(built["encyclopedia.json"]["articles"]) <= 70


# --------------------------------------------------------------------------- determinism and the clock


async def test_same_call_same_answer_and_live_data_moves_with_the_date() -> None:
    args = {"date": "2026-04-15", "from_station": "BJP", "to_station": "SHH"}
    first = await call("rail", "get_tickets", **args)
    assert first == await call("rail", "get_tickets", **args)
    other = await call("rail", "get_tickets", **(args | {"date": "2026-04-16"}))
    assert [t["train_no"] for t in first["trains"]] == [t["train_no"] for t in other["trains"]]
    assert [t["seats"] for t in first["trains"]] != [t["seats"] for t in other["trains"]]

    forecast = await call("weather", "get_forecast", location="Beijing", days=7)
    assert forecast == await call("weather", "get_forecast", location="Beijing", days=7)
    highs = [d["high_c"] for d in forecast["days"]]
    assert len(set(highs)) > 1


async def test_weather_follows_the_frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    today = await call("weather", "get_current_weather", location="Beijing")
    assert today["observed_at"].startswith("2026-04-13T09:00")
    forecast = await call("weather", "get_forecast", location="Beijing", days=2)
    monkeypatch.setenv("MCPTRIALS_NOW", "2026-04-14T09:00:00+08:00")
    moved = await call("weather", "get_current_weather", location="Beijing")
    assert moved["observed_at"].startswith("2026-04-14T09:00")
    assert moved != today
    # Yesterday's forecast for today is today's history: one simulated truth per day.
    history = await call("weather", "get_historical_weather", location="Beijing", date="2026-04-13")
    assert {k: history[k] for k in ("high_c", "low_c", "condition")} == {
        k: forecast["days"][0][k] for k in ("high_c", "low_c", "condition")}


async def test_clock_reads_mcptrials_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPTRIALS_NOW", "2026-03-01T12:34:00+00:00")
    utc = await call("clock", "now")
    assert utc["datetime"] == "2026-03-01T12:34:00+00:00" and utc["weekday"] == "Sunday"
    tokyo = await call("clock", "now", timezone="Asia/Tokyo")
    assert tokyo["time"] == "21:34" and tokyo["utc_offset"] == "+09:00"
    assert "21:34 in Tokyo" in await call("worldclock", "now", city="Tokyo")
    assert (await call("rail", "get_current_date"))["date"] == "2026-03-01"
    monkeypatch.setenv("MCPTRIALS_NOW", "2026-07-04T23:30:00-04:00")
    assert (await call("clock", "now", timezone="America/New_York"))["date"] == "2026-07-04"
    assert (await call("rail", "get_current_date"))["date"] == "2026-07-05"


async def test_clock_arithmetic() -> None:
    converted = await call("clock", "convert_timezone", time="2026-03-28T12:00", from_timezone="Europe/London",
                           to_timezone="America/New_York")
    assert converted["target"]["time"] == "08:00"  # the US is already on daylight time, the UK not yet
    assert (await call("clock", "add_time", start="2024-02-28", days=1))["result"]["date"] == "2024-02-29"
    assert (await call("clock", "date_difference", start="2026-01-01", end="2026-03-01"))["value"] == 59
    days = await call("clock", "business_days_between", start_date="2026-04-13", end_date="2026-04-20",
                      holidays=["2026-04-17"])
    assert days["business_days"] == 4
    assert "unknown time zone" in await error("clock", "now", timezone="Mars/Olympus")
    assert "several cities" in await error("worldclock", "now", city="Portland")
    slots = await call("worldclock", "find_meeting_time", cities=["London", "New York"], date="2026-04-14",
                       working_hours={"start": 9, "end": 17})
    assert slots["count"] > 0 and slots["slots"][0]["New York"].endswith("09:00")


# --------------------------------------------------------------------------- rail


async def test_rail_realistic_calls_and_errors() -> None:
    codes = await call("rail", "get_station_codes_by_city", cities="Beijing,Xi'an")
    assert codes["Beijing"]["station_code"] == "BJP" and codes["Xi'an"]["station_code"] == "XAY"
    tickets = await call("rail", "get_tickets", date="2026-04-15", from_station="BJP", to_station="SHH",
                         train_types=["G"], departure_window={"earliest": "09:00", "latest": "12:00"},
                         sort_by="duration", limit=3)
    assert tickets["trains"] and all(t["type"] == "G" for t in tickets["trains"])
    assert all("09:00" <= t["depart"] <= "12:00" for t in tickets["trains"])
    minutes = [int(t["duration"].split("h")[0]) * 60 + int(t["duration"].split()[1][:-1]) for t in tickets["trains"]]
    assert minutes == sorted(minutes)
    assert len(json.dumps(tickets)) < 8000
    stops = await call("rail", "get_train_stops", train_no="G3", date="2026-04-15")
    assert stops["stops"][0]["station"] == "VNP" and stops["stops"][-1]["station"] == "AOH"
    transfer = await call("rail", "get_interline_tickets", date="2026-04-16", from_station="SHH", to_station="XAY")
    assert transfer["itineraries"][0]["transfer_city"] == "Xuzhou"
    assert "unknown station code" in await error("rail", "get_tickets", date="2026-04-15", from_station="XXX",
                                                 to_station="SHH")
    assert "not on sale yet" in await error("rail", "get_tickets", date="2026-06-01", from_station="BJP",
                                            to_station="SHH")
    assert "in the past" in await error("rail", "get_tickets", date="2026-04-01", from_station="BJP",
                                        to_station="SHH")
    assert "does not run" in await error("rail", "get_train_stops", train_no="G1", date="2026-04-13")


async def test_rail_bookings_live_in_the_sandbox(frozen_world: Path) -> None:
    booking = await call("rail", "book_ticket", train_no="G3", date="2026-04-15", from_station="VNP",
                         to_station="AOH", seat_class="second", passenger_name="Li Wei")
    stored = json.loads((frozen_world / "rail_bookings.json").read_text())
    assert stored["bookings"][0]["booking_id"] == booking["booking_id"]
    listed = await call("rail", "list_bookings")
    assert listed["count"] == 1
    cancelled = await call("rail", "cancel_booking", booking_id=booking["booking_id"])
    assert cancelled["status"] == "cancelled" and cancelled["refund_cny"] > 0
    assert (await call("rail", "list_bookings"))["count"] == 0
    assert "already cancelled" in await error("rail", "cancel_booking", booking_id=booking["booking_id"])


# --------------------------------------------------------------------------- maps, parks, weather


async def test_maps_realistic_calls() -> None:
    found = await call("maps", "geocode", address="Temple of Heaven")
    place = found["results"][0]
    assert place["name"] == "Temple of Heaven"
    assert len((await call("maps", "geocode", address="Portland"))["results"]) >= 2
    nearby = await call("maps", "nearby_places", lat=place["lat"], lon=place["lon"], radius_m=5000)
    assert nearby["results"][0]["distance_m"] <= nearby["results"][-1]["distance_m"]
    details = await call("maps", "place_details", place_id="pl-beijing-vnp")
    assert details["rail_code"] == "VNP" and details["open_now"] is True
    matrix = await call("maps", "distance_matrix", origins=["San Francisco"],
                        destinations=["Yosemite National Park", "Tokyo"], mode="driving")
    assert matrix["rows"][0][0]["status"] == "OK" and matrix["rows"][0][1]["status"] == "ZERO_RESULTS"
    tz = await call("maps", "get_timezone", lat=36.06, lon=-112.14)
    assert tz["timezone"] == "America/Phoenix" and tz["dst_active"] is False
    assert "no " in await error("maps", "directions", origin="Paris", destination="New York", mode="driving")
    async with Client(module("maps").mcp, cache=None) as client:
        result = await client.call_tool("nearby_places", {"lat": 10, "lon": 10, "radius_m": 999999})
    assert result.is_error  # radius is capped by the schema


async def test_parks_realistic_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    utah = await call("parks", "search_parks", state_code="UT")
    assert {p["park_code"] for p in utah["parks"]} == {"arch", "brca", "cany", "zion"}
    dark = await call("parks", "find_parks_by_activity", activity="stargazing", state_code="CA")
    assert {p["park_code"] for p in dark["parks"]} == {"deva", "jotr"}
    yell = await call("parks", "get_park_details", park_code="yell")
    assert yell["established"] == 1872 and yell["states"] == ["WY", "MT", "ID"]
    monkeypatch.setenv("MCPTRIALS_NOW", "2026-01-15T11:00:00-05:00")
    winter = await call("parks", "get_alerts", park_code="glac")
    assert any("Going-to-the-Sun Road" in a["title"] for a in winter["alerts"])
    monkeypatch.setenv("MCPTRIALS_NOW", "2026-07-15T11:00:00-05:00")
    summer = await call("parks", "get_alerts", park_code="glac")
    assert not any("Going-to-the-Sun Road" in a["title"] for a in summer["alerts"])
    avail = await call("parks", "check_campground_availability", campground_id="zion-cg1", start_date="2026-07-17",
                       nights=3)
    assert [n["date"] for n in avail["nights"]] == ["2026-07-17", "2026-07-18", "2026-07-19"]
    events = await call("parks", "get_events", park_code="arch", start_date="2026-07-15", end_date="2026-07-21")
    assert all("2026-07-15" <= e["date"] <= "2026-07-21" for e in events["events"])
    assert "too long" in await error("parks", "get_events", park_code="arch", start_date="2026-07-01",
                                     end_date="2026-09-01")
    assert "unknown park code" in await error("parks", "get_park_details", park_code="xxxx")


async def test_weather_realistic_calls() -> None:
    assert "ambiguous" in await error("weather", "get_current_weather", location="Portland")
    ids = [loc["id"] for loc in (await call("weather", "search_locations", query="Portland"))["locations"]]
    assert ids == ["wx-portland-me", "wx-portland-or"]
    imperial = await call("weather", "get_forecast", location="wx-portland-or", days=3, units="imperial")
    assert "high_f" in imperial["days"][0] and len(imperial["days"]) == 3
    by_coords = await call("weather", "get_weather_by_coordinates", lat=39.9, lon=116.4)
    assert by_coords["location_id"] == "wx-beijing"
    assert "history only goes back" in await error("weather", "get_historical_weather", location="Beijing",
                                                   date="2025-01-01")
    async with Client(module("weather").mcp, cache=None) as client:
        assert (await client.call_tool("get_forecast", {"location": "Beijing", "days": 8})).is_error


# --------------------------------------------------------------------------- knowledge


async def test_encyclopedia_realistic_calls() -> None:
    disambiguation = await call("encyclopedia", "get_summary", title="Mercury")
    assert disambiguation["type"] == "disambiguation" and len(disambiguation["options"]) == 3
    assert (await call("encyclopedia", "get_summary", title="UTC"))["title"] == "Coordinated Universal Time"
    section = await call("encyclopedia", "get_section", title="shinkansen", section="SAFETY")
    assert "earthquake" in section["text"]
    hits = await call("encyclopedia", "search", query="geyser eruptions Yellowstone")
    assert hits["results"][0]["title"] == "Geyser"
    links = await call("encyclopedia", "get_links", title="Geyser", direction="incoming")
    assert "Old Faithful" in links["incoming"]
    assert "did you mean" in await error("encyclopedia", "get_article", title="Geysers of Mars")


async def test_papers_download_is_confined_to_the_sandbox(frozen_world: Path) -> None:
    assert "download the paper first" in await error("papers", "read_paper", path="papers/2406.02266.txt")
    saved = await call("papers", "download_paper", paper_id="2406.02266")
    assert saved["path"] == "papers/2406.02266.txt"
    assert (frozen_world / "papers" / "2406.02266.txt").is_file()
    results = await call("papers", "read_paper", path=saved["path"], section="results")
    assert "23.5%" in results["text"]
    for bad in ("../outside", "/tmp", "papers/../../outside"):
        assert "refused" in await error("papers", "download_paper", paper_id="2406.02266", directory=bad)
    assert "bare file name" in await error("papers", "download_paper", paper_id="2406.02266",
                                           filename="../../escape.txt")
    assert "refused" in await error("papers", "read_paper", path="/etc/passwd")
    assert "refused" in await error("papers", "delete_downloaded_paper", path="../x.txt")
    assert not (frozen_world.parent / "outside").exists()
    listed = await call("papers", "list_downloaded_papers")
    assert [f["path"] for f in listed["files"]] == ["papers/2406.02266.txt"]
    await call("papers", "delete_downloaded_paper", path="papers/2406.02266.txt")
    assert not (frozen_world / "papers" / "2406.02266.txt").exists()


async def test_mirror_is_smaller_and_staler_than_the_main_index() -> None:
    main = await call("papers", "get_paper_details", paper_id="2406.02266")
    mirror = await call("papers_mirror", "get_paper_details", paper_id="2406.02266")
    assert mirror["citation_count"] < main["citation_count"] and "abstract" not in mirror
    assert "not in this mirror" in await error("papers_mirror", "get_paper_details", paper_id="2302.07741")
    assert "unknown paper id" in await error("papers", "get_paper_details", paper_id="2506.07718")
    assert "okafor2024schema" in await call("papers_mirror", "get_bibtex", paper_id="2401.04417")
    citing = await call("papers", "get_citations", paper_id="2303.10028")
    assert "2401.04417" in {p["paper_id"] for p in citing["citing_papers"]}


# --------------------------------------------------------------------------- over stdio


@pytest.mark.parametrize("name", SERVERS)
async def test_each_server_runs_over_stdio(name: str, tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", f"mcptrials.bundled.servers.{name}"],
                                   env={"MCPTRIALS_NOW": NOW, "MCPTRIALS_SANDBOX": str(tmp_path)})
    async with Client(params, cache=None) as client:
        tools = (await client.list_tools()).tools
        assert len(tools) == len(await module(name).mcp.list_tools())
        if name == "clock":
            result = await client.call_tool("now", {"timezone": "Asia/Shanghai"})
            assert json.loads(result.content[0].text)["datetime"] == NOW
        if name == "papers":
            result = await client.call_tool("download_paper", {"paper_id": "2303.10028"})
            assert not result.is_error and (tmp_path / "papers" / "2303.10028.txt").is_file()
