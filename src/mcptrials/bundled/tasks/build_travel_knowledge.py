"""Build ``travel_knowledge.jsonl``: tasks for the travel, knowledge and time servers.

Every task is written here as a reference plan plus the checkpoints that cover each step. The
script runs each plan in-process through the MCP in-memory client (with the task's frozen clock
and a fresh sandbox holding its fixtures), reads the demanded values off the real results, and
refuses to write a task whose plan fails. Run it with
``python -m mcptrials.bundled.tasks.build_travel_knowledge``; the output is deterministic.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import tempfile
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "travel_knowledge.jsonl"
Results = list[Any]


# --------------------------------------------------------------------------- spec helpers


def rx(pattern: str) -> dict[str, Any]:
    """A case-insensitive regex matcher."""
    return {"regex": pattern, "case": "insensitive"}


def has(text: str) -> dict[str, Any]:
    """A case-insensitive substring matcher."""
    return {"contains": text, "case": "insensitive"}


def has_all(*texts: str) -> dict[str, Any]:
    return {"contains_all": list(texts), "case": "insensitive"}


def one_of(*values: Any) -> dict[str, Any]:
    return {"one_of": list(values), "case": "insensitive"}


def near(value: float, tol: float) -> dict[str, Any]:
    return {"approx": value, "tol": tol}


def eq(value: Any) -> dict[str, Any]:
    return {"equals": value}


DAYS_2_7 = one_of(2, 3, 4, 5, 6, 7)
BEIJING = rx("^(BJP|VNP|BXP|IFP)$")
SHANGHAI = rx("^(SHH|AOH|SNH)$")


@dataclass
class Step:
    """One reference call and the checkpoint that covers it."""

    tool: str
    args: dict[str, Any] | Callable[[Results], dict[str, Any]]
    include: tuple[str, ...] = ()
    match: dict[str, dict[str, Any]] = field(default_factory=dict)
    alt: tuple[str, ...] = ()
    after: tuple[int, ...] = ()
    checked: bool = True
    note: str = ""


@dataclass
class Value:
    """Substrings that only the right results contain, picked from those results."""

    pick: Callable[[Results], list[str]]
    source: str = "tool_result"
    mode: str = "all"


@dataclass
class TaskDef:
    id: str
    category: str
    now: str
    servers: list[str]
    prompt: str
    concrete: str
    steps: list[Step]
    values: list[Value] = field(default_factory=list)
    minefields: list[dict[str, Any]] = field(default_factory=list)
    key_points: Callable[[Results], list[str]] | list[str] = field(default_factory=list)
    fixtures: Callable[[], dict[str, str]] | dict[str, str] = field(default_factory=dict)
    extra_order: list[tuple[str, str]] = field(default_factory=list)


# --------------------------------------------------------------------------- result helpers


def trains(res: dict[str, Any], ttype: str | None = None) -> list[dict[str, Any]]:
    return [t for t in res["trains"] if ttype is None or t["type"] == ttype]


def fare(train: dict[str, Any], seat: str) -> str:
    return f"{train['seats'][seat]['price_cny']}"


def jnum(key: str, value: Any) -> str:
    """How ``key: value`` looks in the JSON text the SDK produces."""
    return f'"{key}": {json.dumps(value, ensure_ascii=False)}'


def day_of(res: dict[str, Any], date: str) -> dict[str, Any]:
    return next(d for d in res["days"] if d["date"] == date)


def stop(res: dict[str, Any], code: str) -> dict[str, Any]:
    return next(s for s in res["stops"] if s["station"] == code)


# --------------------------------------------------------------------------- fixtures


def _in_sandbox(now: str, fn: Callable[[], Any]) -> tuple[Any, Path]:
    root = Path(tempfile.mkdtemp(prefix="tk-fixture-"))
    old = {k: os.environ.get(k) for k in ("MCPTRIALS_NOW", "MCPTRIALS_SANDBOX")}
    os.environ["MCPTRIALS_NOW"], os.environ["MCPTRIALS_SANDBOX"] = now, str(root)
    try:
        return fn(), root
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def bookings_fixture(now: str, booked: list[dict[str, Any]], cancel: tuple[int, ...] = ()) -> dict[str, str]:
    """A ``rail_bookings.json`` made by really booking (and cancelling) through the rail server."""
    from mcptrials.bundled.servers import rail

    def run() -> None:
        ids = [rail.book_ticket(**b)["booking_id"] for b in booked]
        for i in cancel:
            rail.cancel_booking(booking_id=ids[i])

    _, root = _in_sandbox(now, run)
    return {"rail_bookings.json": (root / "rail_bookings.json").read_text(encoding="utf-8")}


def papers_fixture(*paper_ids: str) -> dict[str, str]:
    """Already-downloaded papers, byte-identical to what download_paper writes."""
    from mcptrials.bundled.servers import papers

    index = papers._index()
    return {f"papers/{pid}.txt": papers._full_text(index[pid]) for pid in paper_ids}


# --------------------------------------------------------------------------- the tasks

N1 = "2026-04-13T09:00:00+08:00"   # Monday morning in China
N2 = "2026-07-08T10:00:00-06:00"   # Wednesday morning in the US Mountain West, summer
N3 = "2026-05-20T14:30:00+01:00"   # Wednesday afternoon in London
N5 = "2026-01-15T11:00:00-05:00"   # Thursday, winter, US East
N6 = "2026-10-21T19:30:00+08:00"   # Wednesday evening in China

BOOKED_N1 = [
    {"train_no": "G3", "date": "2026-04-15", "from_station": "VNP", "to_station": "AOH", "seat_class": "second",
     "passenger_name": "Zhao Lei"},
    {"train_no": "D1601", "date": "2026-04-16", "from_station": "QHK", "to_station": "JGK", "seat_class": "first",
     "passenger_name": "Sun Mei"},
    {"train_no": "K599", "date": "2026-04-20", "from_station": "BXP", "to_station": "ZZF",
     "seat_class": "hard_sleeper", "passenger_name": "Zhao Lei"},
]


def _nth_paper_id(i: int) -> Callable[[Results], dict[str, Any]]:
    """Arguments taking the i-th hit of the first step's paper search."""
    return lambda r: {"paper_id": r[0]["papers"][i]["paper_id"]}


def _results_of_download(step: int) -> Callable[[Results], dict[str, Any]]:
    """Arguments reading the results section of the file a download step wrote."""
    return lambda r: {"path": r[step]["path"], "section": "results"}


def task_defs() -> list[TaskDef]:
    """All tasks, grouped by category."""
    T: list[TaskDef] = []

    # ================================================================ random
    T.append(TaskDef(
        "rail-001", "random", N1, ["rail", "clock"],
        "I need to get from Beijing to Shanghai this Wednesday on a bullet train. What's the earliest one, "
        "and how much is a second-class seat?",
        "Find the station codes of Beijing and Shanghai, then search G trains from Beijing to Shanghai on "
        "2026-04-15 sorted by departure time; report the earliest train, its departure time and second-class fare.",
        [Step("rail__get_station_codes_by_city", {"cities": "Beijing,Shanghai"},
              match={"cities": has_all("beijing", "shanghai")}),
         Step("rail__get_tickets", {"date": "2026-04-15", "from_station": "BJP", "to_station": "SHH",
                                    "train_types": ["G"], "sort_by": "departure_time"},
              include=("date",), match={"from_station": BEIJING, "to_station": SHANGHAI}, after=(0,))],
        [Value(lambda r: [trains(r[1], "G")[0]["depart"], fare(trains(r[1], "G")[0], "second")])],
        key_points=lambda r: [f"The earliest G train is {trains(r[1], 'G')[0]['train_no']} at "
                              f"{trains(r[1], 'G')[0]['depart']}",
                              f"Second class costs {fare(trains(r[1], 'G')[0], 'second')} CNY"]))
    T.append(TaskDef(
        "weather-001", "random", N3, ["weather"],
        "Will I need an umbrella in London tomorrow?",
        "Get the London forecast covering tomorrow (2026-05-21) and report the chance of rain.",
        [Step("weather__get_forecast", {"location": "London", "days": 2},
              match={"location": rx("london"), "days": DAYS_2_7})],
        [Value(lambda r: ["2026-05-21", jnum("precip_chance", day_of(r[0], "2026-05-21")["precip_chance"])])],
        key_points=lambda r: [f"Tomorrow in London: {day_of(r[0], '2026-05-21')['condition']}, "
                              f"{day_of(r[0], '2026-05-21')['precip_chance']}% chance of rain"]))
    T.append(TaskDef(
        "ency-001", "random", N1, ["encyclopedia"],
        "When did the calendar we use today get introduced, and what happened to the dates at the switch?",
        "Read the 'Reform' part of the encyclopedia article 'Gregorian calendar' and report the year and which "
        "dates were skipped.",
        [Step("encyclopedia__get_section", {"title": "Gregorian calendar", "section": "Reform"},
              match={"title": rx("^gregorian calendar$")}, alt=("encyclopedia__get_article",))],
        [Value(lambda r: ["4 October 1582", "15 October"])],
        key_points=["Introduced in October 1582 by Pope Gregory XIII",
                    "Thursday 4 October 1582 was followed by Friday 15 October"]))
    T.append(TaskDef(
        "maps-001", "random", N1, ["maps"],
        "Roughly how long would it take me to walk from the Palace Museum to the Temple of Heaven in Beijing?",
        "Get walking directions from the Palace Museum to the Temple of Heaven in Beijing and report the duration.",
        [Step("maps__directions", {"origin": "Palace Museum, Beijing", "destination": "Temple of Heaven, Beijing",
                                   "mode": "walking"},
              include=("mode",), match={"origin": has("palace museum"), "destination": has("temple of heaven")})],
        [Value(lambda r: [r[0]["duration_text"], jnum("distance_km", r[0]["distance_km"])])],
        key_points=lambda r: [f"About {r[0]['duration_text']} on foot ({r[0]['distance_km']} km)"]))
    T.append(TaskDef(
        "clock-001", "random", N1, ["clock", "worldclock"],
        "What day of the week is Christmas this year?",
        "Find the weekday of 2026-12-25.",
        [Step("clock__day_of_week", {"date": "2026-12-25"}, include=("date",))],
        [Value(lambda r: ["Friday"])],
        key_points=["Christmas 2026 falls on a Friday"]))
    T.append(TaskDef(
        "parks-001", "random", N2, ["parks"],
        "How much does it cost to drive a car into Glacier National Park?",
        "Get the details of Glacier National Park (park code glac) and report the private vehicle entrance fee.",
        [Step("parks__get_park_details", {"park_code": "glac"}, match={"park_code": rx("^glac$")})],
        [Value(lambda r: ["Glacier National Park", "private vehicle", jnum("cost_usd", r[0]["entrance_fees"][0]
                                                                           ["cost_usd"])])],
        key_points=lambda r: [f"A private vehicle pays ${r[0]['entrance_fees'][0]['cost_usd']}, valid 7 days"]))

    # ================================================================ hard-negative
    T.append(TaskDef(
        "rail-002", "hard-negative", N1, ["rail"],
        "Which railway stations in Chongqing handle high-speed trains?",
        "List every station of Chongqing with its kind and report the high-speed ones.",
        [Step("rail__get_stations_in_city", {"city": "Chongqing"}, match={"city": rx("^chongqing$")})],
        [Value(lambda r: ["CUW", "CXW", "Chongqing North", "Chongqing West"])],
        key_points=["Chongqing North (CUW) and Chongqing West (CXW) are high-speed stations",
                    "Chongqing station (CQW) serves conventional trains"]))
    utah_dark = ["arch", "brca", "cany", "zion"]
    T.append(TaskDef(
        "parks-002", "hard-negative", N2, ["parks"],
        "Which national parks in Utah are known for stargazing, and which of their campgrounds can I reserve "
        "ahead of time?",
        "Find Utah parks offering stargazing, then list the reservable campgrounds of each (arch, brca, cany, zion).",
        [Step("parks__find_parks_by_activity", {"activity": "stargazing", "state_code": "UT"},
              include=("activity",), match={"state_code": rx("^ut$")}),
         *[Step("parks__get_campgrounds", {"park_code": code, "reservable_only": True},
                include=("park_code",), after=(0,)) for code in utah_dark]],
        [Value(lambda r: [r[i]["campgrounds"][0]["campground_id"] for i in range(1, 5)])],
        key_points=lambda r: [f"{r[i]['park_code']}: " + ", ".join(c["name"] for c in r[i]["campgrounds"])
                              for i in range(1, 5)]))
    T.append(TaskDef(
        "maps-002", "hard-negative", N1, ["maps"],
        "I'm at Chengdu East railway station and need a pharmacy that's open right now, within about 10 km.",
        "Geocode Chengdu East Railway Station, then search nearby places of type pharmacy within 10,000 m that "
        "are open now.",
        [Step("maps__geocode", {"address": "Chengdu East Railway Station"}, match={"address": has("chengdu east")}),
         Step("maps__nearby_places", lambda r: {"lat": r[0]["results"][0]["lat"], "lon": r[0]["results"][0]["lon"],
                                                "type": "pharmacy", "radius_m": 10000, "open_now": True},
              include=("type", "open_now"), match={"lat": near(30.583, 0.05), "lon": near(104.141, 0.05)},
              after=(0,))],
        [Value(lambda r: [r[1]["results"][0]["name"]])],
        key_points=lambda r: [f"{r[1]['results'][0]['name']} is {r[1]['results'][0]['distance_m']} m away and open"]))
    T.append(TaskDef(
        "weather-002", "hard-negative", N3, ["weather"],
        "What was the weather like in Berlin last Friday?",
        "Get the observed weather in Berlin on 2026-05-15.",
        [Step("weather__get_historical_weather", {"location": "Berlin", "date": "2026-05-15"},
              include=("date",), match={"location": rx("berlin")})],
        [Value(lambda r: ["2026-05-15", jnum("high_c", r[0]["high_c"]), r[0]["condition"]])],
        key_points=lambda r: [f"Berlin on Friday 15 May: {r[0]['condition']}, high {r[0]['high_c']} C, "
                              f"low {r[0]['low_c']} C"]))
    T.append(TaskDef(
        "papers-001", "hard-negative", N1, ["papers"],
        "Which later papers build on the benchmark paper about multi-step tool use by agents?",
        "Find the paper 'Benchmarking Agents on Multi-Step Tool Use' and list the papers in the index that cite it.",
        [Step("papers__search_papers", {"query": "benchmarking agents multi-step tool use"},
              match={"query": has("tool")}),
         Step("papers__get_citations", {"paper_id": "2303.10028"}, include=("paper_id",), after=(0,))],
        [Value(lambda r: ["Schema Drift in Tool APIs", "Effect-Based Evaluation of Agent Trajectories",
                          jnum("count", r[1]["count"])])],
        key_points=lambda r: [f"{r[1]['count']} papers cite it, including "
                              + "; ".join(p["title"] for p in r[1]["citing_papers"][:3])]))

    # ================================================================ cross-domain
    T.append(TaskDef(
        "ency-002", "cross-domain", N1, ["encyclopedia", "papers"],
        "In plain encyclopedia terms, what are the known weak spots of the transformer architecture?",
        "Search the encyclopedia for the transformer article and read its 'Limits' section.",
        [Step("encyclopedia__search", {"query": "transformer neural network architecture"},
              match={"query": has("transformer")}),
         Step("encyclopedia__get_section", {"title": "Transformer (machine learning)", "section": "Limits"},
              match={"title": rx(r"^transformer \(machine learning\)$")}, alt=("encyclopedia__get_article",),
              after=(0,))],
        [Value(lambda r: ["square of the sequence length"])],
        key_points=["Self-attention cost grows with the square of the sequence length",
                    "This motivated sparse and linear attention variants"]))
    T.append(TaskDef(
        "parks-003", "cross-domain", N1, ["parks", "encyclopedia"],
        "Exactly how many acres does Grand Canyon National Park cover?",
        "Get the park details of Grand Canyon National Park (grca) and report area_acres.",
        [Step("parks__get_park_details", {"park_code": "grca"}, match={"park_code": rx("^grca$")})],
        [Value(lambda r: [jnum("area_acres", r[0]["area_acres"])])],
        key_points=lambda r: [f"Grand Canyon National Park covers {r[0]['area_acres']:,} acres"]))
    T.append(TaskDef(
        "parks-004", "cross-domain", N2, ["parks", "maps"],
        "What's the phone number of the main visitor center at the Grand Canyon, and is it open right now?",
        "List the visitor centers of Grand Canyon National Park (grca); report the Grand Canyon Visitor Center's "
        "phone number and whether it is open now.",
        [Step("parks__get_visitor_centers", {"park_code": "grca"}, match={"park_code": rx("^grca$")})],
        [Value(lambda r: [r[0]["visitor_centers"][0]["phone"]])],
        key_points=lambda r: [f"Grand Canyon Visitor Center: {r[0]['visitor_centers'][0]['phone']}, open now: "
                              f"{r[0]['visitor_centers'][0]['open_now']}"]))
    T.append(TaskDef(
        "papers-002", "cross-domain", N1, ["papers", "encyclopedia"],
        "There's a study that predicts geyser eruptions from ground tremor. How accurate were its predictions?",
        "Search the paper index for the geyser tremor paper (2209.12780), download it and read its results.",
        [Step("papers__search_papers", {"query": "geyser eruption seismic tremor"}, match={"query": has("geyser")}),
         Step("papers__download_paper", {"paper_id": "2209.12780"}, include=("paper_id",), after=(0,)),
         Step("papers__read_paper", {"path": "papers/2209.12780.txt", "section": "results"},
              match={"path": has("2209.12780")}, after=(1,))],
        [Value(lambda r: ["4.1 minutes", "6.8 minutes"])],
        key_points=["Median absolute error of 4.1 minutes", "Better than the 6.8 minutes of the duration rule"]))
    T.append(TaskDef(
        "ency-003", "cross-domain", N5, ["encyclopedia", "parks"],
        "Why is Old Faithful called that, and how often does it go off?",
        "Get the encyclopedia summary of 'Old Faithful' and report its naming and eruption interval.",
        [Step("encyclopedia__get_summary", {"title": "Old Faithful"}, match={"title": rx("^old faithful$")},
              alt=("encyclopedia__get_article",))],
        [Value(lambda r: ["60 to 110 minutes", "1870"])],
        key_points=["Named in 1870 for the regularity of its eruptions", "Erupts roughly every 60 to 110 minutes"]))

    # ================================================================ same-name
    T.append(TaskDef(
        "papers-003", "same-name", N1, ["papers", "papers_mirror"],
        "What's the up-to-date citation count and the abstract of the paper about agents mixing up same-name "
        "tools from different servers?",
        "In the main paper index, search for the same-name tools paper and get its details (citation count "
        "and abstract).",
        [Step("papers__search_papers", {"query": "same-name tools server attribution"},
              match={"query": has("name")}),
         Step("papers__get_paper_details", {"paper_id": "2406.02266"}, include=("paper_id",), after=(0,))],
        [Value(lambda r: [jnum("citation_count", r[1]["citation_count"]), "attribution error"])],
        key_points=lambda r: [f"Cited {r[1]['citation_count']} times", "Measures server attribution errors"]))
    T.append(TaskDef(
        "clock-002", "same-name", N1, ["clock", "worldclock"],
        "For a log entry I need the current Unix timestamp plus the local time in Berlin.",
        "Read the current time in the IANA zone Europe/Berlin and report it with its Unix timestamp.",
        [Step("clock__now", {"timezone": "Europe/Berlin"}, match={"timezone": rx("^europe/berlin$")})],
        [Value(lambda r: [str(r[0]["unix"]), r[0]["datetime"]])],
        key_points=lambda r: [f"Unix time {r[0]['unix']}", f"Berlin: {r[0]['datetime']}"]))
    T.append(TaskDef(
        "parks-005", "same-name", N2, ["parks", "weather"],
        "Are any roads or trails at Yosemite closed right now?",
        "Get the current park alerts for Yosemite National Park (yose) and report the closures.",
        [Step("parks__get_alerts", {"park_code": "yose"}, match={"park_code": rx("^yose$")})],
        [Value(lambda r: [a["title"] for a in r[0]["alerts"]][:2])],
        key_points=lambda r: [a["title"] for a in r[0]["alerts"]]))
    T.append(TaskDef(
        "papers-004", "same-name", N1, ["papers", "papers_mirror"],
        "Can you give me a BibTeX citation for the paper about schema drift in tool APIs?",
        "Search the mirror index for the schema drift paper and get its BibTeX entry.",
        [Step("papers_mirror__search_papers", {"query": "schema drift tool APIs"}, match={"query": has("drift")}),
         Step("papers_mirror__get_bibtex", {"paper_id": "2401.04417"}, include=("paper_id",), after=(0,))],
        [Value(lambda r: ["okafor2024schema"])],
        key_points=["@article{okafor2024schema, ...} for 'Schema Drift in Tool APIs and Its Effect on Agents'"]))
    T.append(TaskDef(
        "papers-005", "same-name", N1, ["papers", "papers_mirror"],
        "Where can I download the PDF of the new paper on measuring the consistency of language agents (the "
        "pass^k one)?",
        "Search the mirror for the pass^k consistency paper and get its details, including the PDF link.",
        [Step("papers_mirror__search_papers", {"query": "pass^k consistency language agents"},
              match={"query": has("consistency")}),
         Step("papers_mirror__get_paper_details", {"paper_id": "2506.07718"}, include=("paper_id",), after=(0,))],
        [Value(lambda r: [r[1]["pdf_url"]])],
        key_points=lambda r: [f"PDF: {r[1]['pdf_url']}"]))

    # ================================================================ sibling
    T.append(TaskDef(
        "ency-004", "sibling", N1, ["encyclopedia"],
        "How is the encyclopedia's Shinkansen article organised? Just the section headings.",
        "List the section headings of the article 'Shinkansen'.",
        [Step("encyclopedia__get_sections", {"title": "Shinkansen"}, match={"title": rx("^shinkansen$")},
              alt=("encyclopedia__get_article",))],
        [Value(lambda r: ["Network", "Safety", "Services"])],
        key_points=["Sections: Network, Safety, Services"]))
    T.append(TaskDef(
        "rail-003", "sibling", N1, ["rail"],
        "Where does train G1371 stop if I take it this Friday, and when does it get to Kunming?",
        "Get the stops of train G1371 on 2026-04-17 and report its arrival time at Kunming South.",
        [Step("rail__get_train_stops", {"train_no": "G1371", "date": "2026-04-17"}, include=("date",),
              match={"train_no": rx("^G1371$")})],
        [Value(lambda r: ["Kunming South", stop(r[0], "KOM")["arrive"]])],
        key_points=lambda r: [f"Arrives Kunming South at {stop(r[0], 'KOM')['arrive']}",
                              "Stops: " + ", ".join(s["station_name"] for s in r[0]["stops"])]))
    T.append(TaskDef(
        "papers-006", "sibling", N1, ["papers"],
        "What earlier work does the paper on effect-based evaluation of agent trajectories build on?",
        "Find the effect-based evaluation paper (2403.03019) and list the papers it references.",
        [Step("papers__search_papers", {"query": "effect-based evaluation agent trajectories"},
              match={"query": has("evaluation")}),
         Step("papers__get_references", {"paper_id": "2403.03019"}, include=("paper_id",), after=(0,))],
        [Value(lambda r: ["Benchmarking Agents on Multi-Step Tool Use",
                          "Evaluating Long-Horizon Planning in Language Agents"])],
        key_points=["It cites 'Benchmarking Agents on Multi-Step Tool Use'",
                    "and 'Evaluating Long-Horizon Planning in Language Agents'"]))
    T.append(TaskDef(
        "maps-003", "sibling", N1, ["maps"],
        "How high above sea level are Denver and Reykjavik?",
        "Geocode Denver and Reykjavik, then get the elevation of both points.",
        [Step("maps__geocode", {"address": "Denver"}, match={"address": has("denver")}),
         Step("maps__geocode", {"address": "Reykjavik"}, match={"address": has("reykjavik")}),
         Step("maps__get_elevation", lambda r: {"locations": [
             {"lat": r[0]["results"][0]["lat"], "lon": r[0]["results"][0]["lon"]},
             {"lat": r[1]["results"][0]["lat"], "lon": r[1]["results"][0]["lon"]}]}, after=(0, 1),
              note="a list of coordinates; the value checkpoint checks that both cities were asked for")],
        [Value(lambda r: [jnum("elevation_m", r[2]["results"][0]["elevation_m"]),
                          jnum("elevation_m", r[2]["results"][1]["elevation_m"])])],
        key_points=lambda r: [f"Denver about {r[2]['results'][0]['elevation_m']} m",
                              f"Reykjavik about {r[2]['results'][1]['elevation_m']} m"]))
    T.append(TaskDef(
        "parks-006", "sibling", N5, ["parks"],
        "Which visitor centers at Glacier National Park stay open all year?",
        "List the visitor centers of Glacier National Park (glac) and report the year-round ones.",
        [Step("parks__get_visitor_centers", {"park_code": "glac"}, match={"park_code": rx("^glac$")})],
        [Value(lambda r: ["Apgar Visitor Center", "year-round"])],
        key_points=["Apgar Visitor Center is open year-round", "Logan Pass Visitor Center is seasonal (May-Oct)"]))
    T.append(TaskDef(
        "ency-005", "sibling", N1, ["encyclopedia"],
        "Walk me around the encyclopedia's geyser article: what sections it has, what it says about famous "
        "geysers, which articles point to it, what's related, and a summary of the most related one.",
        "For 'Geyser': list its sections, read 'Notable geysers', get incoming links, get related topics, then "
        "get the summary of the top related topic (Old Faithful).",
        [Step("encyclopedia__get_sections", {"title": "Geyser"}, match={"title": rx("^geyser$")}),
         Step("encyclopedia__get_section", {"title": "Geyser", "section": "Notable geysers"},
              match={"title": rx("^geyser$"), "section": rx("^notable geysers$")}),
         Step("encyclopedia__get_links", {"title": "Geyser", "direction": "incoming"},
              match={"title": rx("^geyser$"), "direction": one_of("incoming", "both")}),
         Step("encyclopedia__related_topics", {"title": "Geyser"}, match={"title": rx("^geyser$")}),
         Step("encyclopedia__get_summary", {"title": "Old Faithful"}, match={"title": rx("^old faithful$")},
              after=(3,))],
        [Value(lambda r: ["Steamboat Geyser", "Plate tectonics", "60 to 110 minutes"])],
        key_points=["Sections: Mechanism, Notable geysers", "Steamboat Geyser is the tallest active geyser",
                    "Old Faithful is the most related article"]))

    # ================================================================ stratified
    T.append(TaskDef(
        "trip-001", "stratified", N1, ["rail", "weather"],
        "I'm catching the first D train from Hangzhou to Xiamen this Saturday. When do I get in, and what's the "
        "weather going to be like in Xiamen that day?",
        "Look up the station codes of Hangzhou and Xiamen, search D trains on 2026-04-18 sorted by departure, and "
        "get the Xiamen forecast covering 2026-04-18.",
        [Step("rail__get_station_codes_by_city", {"cities": "Hangzhou,Xiamen"},
              match={"cities": has_all("hangzhou", "xiamen")}),
         Step("rail__get_tickets", {"date": "2026-04-18", "from_station": "HZH", "to_station": "XMS",
                                    "train_types": ["D"], "sort_by": "departure_time"},
              include=("date",), match={"from_station": rx("^(HZH|HGH)$"), "to_station": rx("^(XMS|XKS)$")},
              after=(0,)),
         Step("weather__get_forecast", {"location": "Xiamen", "days": 6},
              match={"location": rx("xiamen"), "days": one_of(6, 7)})],
        [Value(lambda r: [trains(r[1], "D")[0]["arrive"], "2026-04-18",
                          jnum("high_c", day_of(r[2], "2026-04-18")["high_c"])])],
        key_points=lambda r: [f"{trains(r[1], 'D')[0]['train_no']} arrives at {trains(r[1], 'D')[0]['arrive']}",
                              f"Xiamen on Saturday: {day_of(r[2], '2026-04-18')['condition']}, high "
                              f"{day_of(r[2], '2026-04-18')['high_c']} C"]))
    T.append(TaskDef(
        "trip-002", "stratified", N2, ["parks", "maps"],
        "Where can I fill up on gas near Arches National Park?",
        "Get the coordinates of Arches National Park (arch) from its park details, then search gas stations "
        "within 30 km.",
        [Step("parks__get_park_details", {"park_code": "arch"}, match={"park_code": rx("^arch$")}),
         Step("maps__nearby_places", lambda r: {"lat": r[0]["lat"], "lon": r[0]["lon"], "type": "gas_station",
                                                "radius_m": 30000},
              include=("type",), match={"lat": near(38.733, 0.1), "lon": near(-109.593, 0.1)}, after=(0,))],
        [Value(lambda r: [r[1]["results"][0]["name"]])],
        key_points=lambda r: [f"{r[1]['results'][0]['name']}, {r[1]['results'][0]['formatted_address']}"]))
    T.append(TaskDef(
        "clock-003", "stratified", N1, ["clock"],
        "How many working days are there in May 2026 if the 1st and the 5th are public holidays?",
        "Count business days from 2026-05-01 to 2026-05-31 inclusive, excluding holidays 2026-05-01 and 2026-05-05.",
        [Step("clock__business_days_between", {"start_date": "2026-05-01", "end_date": "2026-05-31",
                                               "holidays": ["2026-05-01", "2026-05-05"], "include_end": True},
              include=("start_date",), match={"end_date": one_of("2026-05-31", "2026-06-01"),
                                              "holidays": has_all("2026-05-01", "2026-05-05")})],
        [Value(lambda r: [jnum("business_days", r[0]["business_days"])])],
        key_points=lambda r: [f"{r[0]['business_days']} working days"]))
    T.append(TaskDef(
        "ency-006", "stratified", N1, ["encyclopedia"],
        "Tell me about Mercury, the planet. How long does one day last there?",
        "Read the 'Rotation' section of the encyclopedia article 'Mercury (planet)'.",
        [Step("encyclopedia__get_section", {"title": "Mercury (planet)", "section": "Rotation"},
              match={"title": rx(r"^mercury \(planet\)$")}, alt=("encyclopedia__get_article",))],
        [Value(lambda r: ["176 Earth days"])],
        key_points=["A solar day on Mercury lasts about 176 Earth days",
                    "It rotates three times for every two orbits"]))
    aq_cities = ["Beijing", "Shanghai", "Chengdu", "Mumbai", "Cairo"]
    T.append(TaskDef(
        "weather-003", "stratified", N1, ["weather"],
        "Compare today's air quality in Beijing, Shanghai, Chengdu, Mumbai and Cairo. Which is worst?",
        "Get today's air quality index for each of Beijing, Shanghai, Chengdu, Mumbai and Cairo.",
        [Step("weather__get_air_quality", {"location": c}, match={"location": rx(c.lower())}) for c in aq_cities],
        [Value(lambda r: [jnum("aqi", r[i]["aqi"]) for i in range(5)])],
        key_points=lambda r: [f"{aq_cities[i]}: AQI {r[i]['aqi']} ({r[i]['category']})" for i in range(5)]))

    # ================================================================ long-similar-chain
    week = ["2026-04-20", "2026-04-21", "2026-04-22", "2026-04-23", "2026-04-24"]

    def cheapest_second(res: dict[str, Any]) -> float:
        return min(t["seats"]["second"]["price_cny"] for t in trains(res, "G") if t["seats"]["second"]["left"] > 0)

    T.append(TaskDef(
        "rail-004", "long-similar-chain", N1, ["rail"],
        "I can go from Beijing to Shanghai any weekday next week. For each day Monday to Friday, what's the "
        "cheapest second-class fare on a bullet train that still has seats?",
        "Search G trains from Beijing to Shanghai sorted by price for each date 2026-04-20 to 2026-04-24 and "
        "report the cheapest available second-class fare per day.",
        [Step("rail__get_tickets", {"date": d, "from_station": "BJP", "to_station": "SHH", "train_types": ["G"],
                                    "sort_by": "price"},
              include=("date",), match={"from_station": BEIJING, "to_station": SHANGHAI}) for d in week],
        [Value(lambda r: [str(cheapest_second(r[i])) for i in range(5)])],
        key_points=lambda r: [f"{week[i]}: {cheapest_second(r[i])} CNY" for i in range(5)]))
    west_parks = [("Yosemite National Park", "yosemite"), ("Zion National Park", "zion"),
                  ("Grand Canyon National Park", "grand canyon"), ("Arches National Park", "arches"),
                  ("Yellowstone National Park", "yellowstone")]
    T.append(TaskDef(
        "weather-004", "long-similar-chain", N2, ["weather", "parks"],
        "Give me tomorrow's forecast high for Yosemite, Zion, the Grand Canyon, Arches and Yellowstone.",
        "Get forecasts covering 2026-07-09 for the five parks and report each high temperature.",
        [Step("weather__get_forecast", {"location": name, "days": 2}, match={"location": rx(key), "days": DAYS_2_7})
         for name, key in west_parks],
        [Value(lambda r: [jnum("high_c", day_of(r[i], "2026-07-09")["high_c"]) for i in range(5)])],
        key_points=lambda r: [f"{west_parks[i][0]}: {day_of(r[i], '2026-07-09')['high_c']} C" for i in range(5)]))
    T.append(TaskDef(
        "ency-007", "long-similar-chain", N1, ["encyclopedia"],
        "Give me a one-liner on each of the different things called Mercury.",
        "Open the 'Mercury' disambiguation, then get the summaries of Mercury (planet), Mercury (element) and "
        "Mercury (mythology).",
        [Step("encyclopedia__get_summary", {"title": "Mercury"}, match={"title": rx("^mercury$")},
              alt=("encyclopedia__get_article",)),
         *[Step("encyclopedia__get_summary", {"title": f"Mercury ({k})"}, match={"title": rx(rf"^mercury \({k}\)$")},
                alt=("encyclopedia__get_article",), after=(0,)) for k in ("planet", "element", "mythology")]],
        [Value(lambda r: ["88 Earth days", "atomic number 80", "Hermes"])],
        key_points=["The planet: smallest, closest to the Sun, 88-day orbit",
                    "The element: Hg, atomic number 80, liquid metal", "The god: Roman messenger, like Hermes"]))
    T.append(TaskDef(
        "papers-007", "long-similar-chain", N1, ["papers"],
        "Follow a citation trail for me: start at the benchmark paper on multi-step tool use, find the later "
        "paper about schema drift that cites it, then the same-name-tools paper citing that, then whatever cites "
        "the same-name paper. What is that last paper about?",
        "Search for 2303.10028, get its citations, then citations of 2401.04417, then of 2406.02266, and get the "
        "details of 2504.01176.",
        [Step("papers__search_papers", {"query": "Benchmarking Agents on Multi-Step Tool Use"},
              match={"query": has("tool")}),
         Step("papers__get_citations", {"paper_id": "2303.10028"}, include=("paper_id",), after=(0,)),
         Step("papers__get_citations", {"paper_id": "2401.04417"}, include=("paper_id",), after=(1,)),
         Step("papers__get_citations", {"paper_id": "2406.02266"}, include=("paper_id",), after=(2,)),
         Step("papers__get_paper_details", {"paper_id": "2504.01176"}, include=("paper_id",), after=(3,))],
        [Value(lambda r: ["Server Evolution and Agent Robustness on MCP", "mutate real servers"])],
        key_points=["The trail ends at 'Server Evolution and Agent Robustness on MCP'",
                    "It mutates MCP servers step by step and tracks whether agents keep succeeding"]))
    T.append(TaskDef(
        "parks-007", "long-similar-chain", N2, ["parks"],
        "I'm heading to the Pacific Northwest. List the campgrounds at every national park in Washington and "
        "Oregon.",
        "Search parks in WA and in OR, then get the campgrounds of olym, mora and crla.",
        [Step("parks__search_parks", {"state_code": "WA"}, match={"state_code": rx("^wa$")}),
         Step("parks__search_parks", {"state_code": "OR"}, match={"state_code": rx("^or$")}),
         Step("parks__get_campgrounds", {"park_code": "olym"}, include=("park_code",), after=(0,)),
         Step("parks__get_campgrounds", {"park_code": "mora"}, include=("park_code",), after=(0,)),
         Step("parks__get_campgrounds", {"park_code": "crla"}, include=("park_code",), after=(1,))],
        [Value(lambda r: [r[i]["campgrounds"][0]["campground_id"] for i in (2, 3, 4)])],
        key_points=lambda r: [f"{r[i]['park_code']}: " + ", ".join(c["name"] for c in r[i]["campgrounds"])
                              for i in (2, 3, 4)]))
    wc = ["Tokyo", "London", "New York", "Sydney", "Dubai"]
    T.append(TaskDef(
        "worldclock-001", "long-similar-chain", N1, ["worldclock", "clock"],
        "What time is it right now in Tokyo, London, New York, Sydney and Dubai?",
        "Ask the world clock for the local time in each of Tokyo, London, New York, Sydney and Dubai.",
        [Step("worldclock__now", {"city": c}, match={"city": rx(f"^{c}")}) for c in wc],
        [Value(lambda r: [r[i].split(" in ")[0][-5:] + " in " + wc[i] for i in range(5)])],
        key_points=lambda r: list(r)))

    # ================================================================ homonym-trap
    T.append(TaskDef(
        "weather-005", "homonym-trap", N2, ["weather", "parks"],
        "What weather warnings are out for Death Valley over the next few days?",
        "Get the weather service alerts for Death Valley National Park.",
        [Step("weather__get_alerts", {"location": "Death Valley"}, match={"location": rx("death valley|wx-deva")})],
        [Value(lambda r: [r[0]["alerts"][0]["event"], r[0]["alerts"][0]["day"]])],
        key_points=lambda r: [f"{a['event']} on {a['day']}" for a in r[0]["alerts"]]))
    T.append(TaskDef(
        "papers-008", "homonym-trap", N1, ["papers", "papers_mirror"],
        "Pull up the full record, abstract included, of paper 2302.07741 from the main archive.",
        "Get the paper details of 2302.07741 from the main paper index.",
        [Step("papers__get_paper_details", {"paper_id": "2302.07741"}, include=("paper_id",))],
        [Value(lambda r: ["Crowding Forecasts for National Park Trailheads", "mobile-device counts"])],
        key_points=["'Crowding Forecasts for National Park Trailheads Using Mobile Signals' (2023)"]))
    T.append(TaskDef(
        "clock-004", "homonym-trap", N2, ["clock", "worldclock"],
        "What's the time right now in the America/Phoenix time zone?",
        "Get the current time for the IANA zone America/Phoenix.",
        [Step("clock__now", {"timezone": "America/Phoenix"}, include=("timezone",))],
        [Value(lambda r: [r[0]["datetime"]])],
        key_points=lambda r: [f"{r[0]['time']} on {r[0]['weekday']} (UTC-07:00, no daylight saving)"]))
    T.append(TaskDef(
        "parks-008", "homonym-trap", N5, ["parks", "weather"],
        "Any park notices for Glacier National Park at the moment: closures, trail warnings, that kind of thing?",
        "Get the park service alerts for Glacier National Park (glac).",
        [Step("parks__get_alerts", {"park_code": "glac"}, match={"park_code": rx("^glac$")})],
        [Value(lambda r: ["Going-to-the-Sun Road closed for the season"])],
        key_points=lambda r: [a["title"] for a in r[0]["alerts"]]))
    T.append(TaskDef(
        "papers-009", "homonym-trap", N1, ["papers_mirror", "papers"],
        "Search the mirror for anything on rail timetables.",
        "Search the papers mirror for rail timetable papers.",
        [Step("papers_mirror__search_papers", {"query": "rail timetable"}, match={"query": has("rail")})],
        [Value(lambda r: ["Rail Timetable Question Answering with Language Agents"])],
        key_points=["The mirror has 'Rail Timetable Question Answering with Language Agents' (2025)"]))
    alert_parks = [("yose", "Yosemite National Park"), ("zion", "Zion National Park"), ("glac", "Glacier")]
    T.append(TaskDef(
        "trip-003", "homonym-trap", N2, ["parks", "weather"],
        "For Yosemite, Zion and Glacier, I want both kinds of alerts: the park service notices and the weather "
        "warnings.",
        "Get parks alerts for yose, zion and glac, and weather alerts for Yosemite, Zion and Glacier National Park.",
        [*[Step("parks__get_alerts", {"park_code": code}, match={"park_code": rx(f"^{code}$")})
           for code, _ in alert_parks],
         *[Step("weather__get_alerts", {"location": name}, match={"location": rx(name.split()[0].lower())})
           for _, name in alert_parks]],
        [Value(lambda r: [r[i]["alerts"][0]["id"] for i in range(3)] + [r[i]["location_id"] for i in range(3, 6)])],
        key_points=lambda r: [f"{r[i]['park_code']}: " + "; ".join(a["title"] for a in r[i]["alerts"])
                              for i in range(3)] + [f"{r[i]['location']}: {r[i]['count']} weather alerts"
                                                    for i in range(3, 6)]))

    # ================================================================ decoy
    T.append(TaskDef(
        "rail-005", "decoy", N1, ["rail"],
        "What do the D trains from Shanghai to Nanjing cost tomorrow?",
        "Search D trains from Shanghai to Nanjing on 2026-04-14 with fares.",
        [Step("rail__get_tickets", {"date": "2026-04-14", "from_station": "SHH", "to_station": "NJH",
                                    "train_types": ["D"]},
              include=("date",), match={"from_station": SHANGHAI, "to_station": rx("^(NJH|NKH)$")})],
        [Value(lambda r: [fare(trains(r[0], "D")[0], "second"), fare(trains(r[0], "D")[0], "first")])],
        key_points=lambda r: [f"{t['train_no']} at {t['depart']}: second {fare(t, 'second')}, first "
                              f"{fare(t, 'first')} CNY" for t in trains(r[0], "D")]))
    T.append(TaskDef(
        "weather-006", "decoy", N5, ["weather"],
        "How cold is it going to get in Chicago tomorrow?",
        "Get the Chicago forecast covering 2026-01-16 and report the low.",
        [Step("weather__get_forecast", {"location": "Chicago", "days": 2},
              match={"location": rx("chicago"), "days": DAYS_2_7})],
        [Value(lambda r: ["2026-01-16", jnum("low_c", day_of(r[0], "2026-01-16")["low_c"])])],
        key_points=lambda r: [f"Low of {day_of(r[0], '2026-01-16')['low_c']} C on Friday 16 January"]))
    T.append(TaskDef(
        "ency-008", "decoy", N1, ["encyclopedia"],
        "What does the encyclopedia say about getting around Zion Canyon by shuttle?",
        "Read the 'Shuttle' section of the article 'Zion National Park'.",
        [Step("encyclopedia__get_section", {"title": "Zion National Park", "section": "Shuttle"},
              match={"title": rx("^zion( national park)?$")}, alt=("encyclopedia__get_article",))],
        [Value(lambda r: ["Springdale", "free shuttle"])],
        key_points=["Private vehicles are not allowed on the scenic drive from spring to autumn",
                    "A free shuttle runs from the visitor center in Springdale"]))
    T.append(TaskDef(
        "papers-010", "decoy", N1, ["papers"],
        "In the paper on self-verification for tool arguments, exactly how much did hallucinated arguments drop?",
        "Find 2308.04127, download it, and read its results for the hallucination rates.",
        [Step("papers__search_papers", {"query": "self-verification hallucinated tool arguments"},
              match={"query": has("verification")}),
         Step("papers__download_paper", {"paper_id": "2308.04127"}, include=("paper_id",), after=(0,)),
         Step("papers__read_paper", {"path": "papers/2308.04127.txt"}, match={"path": has("2308.04127")},
              after=(1,))],
        [Value(lambda r: ["14.2%", "5.9%"])],
        key_points=["Hallucinated arguments fell from 14.2% to 5.9% of calls",
                    "Task success rose 6.4 points at 22% more tokens"]))
    T.append(TaskDef(
        "maps-004", "decoy", N3, ["maps"],
        "Any restaurants open right now near the Louvre?",
        "Geocode the Louvre Museum and search open restaurants within 3 km.",
        [Step("maps__geocode", {"address": "Louvre Museum"}, match={"address": has("louvre")}),
         Step("maps__nearby_places", lambda r: {"lat": r[0]["results"][0]["lat"], "lon": r[0]["results"][0]["lon"],
                                                "type": "restaurant", "radius_m": 3000, "open_now": True},
              include=("type", "open_now"), match={"lat": near(48.861, 0.03), "lon": near(2.337, 0.03)},
              after=(0,))],
        [Value(lambda r: [r[1]["results"][0]["name"]])],
        key_points=lambda r: [f"{p['name']} ({p['distance_m']} m)" for p in r[1]["results"]]))

    # ================================================================ prerequisite-strict
    T.append(TaskDef(
        "papers-011", "prerequisite-strict", N1, ["papers"],
        "Get me the paper on interline itineraries and tell me how often they found a seat when the direct "
        "train was sold out.",
        "Find 2503.08812, download it, then read its results.",
        [Step("papers__search_papers", {"query": "interline itineraries transfers"}, match={"query": has("interline")}),
         Step("papers__download_paper", {"paper_id": "2503.08812"}, include=("paper_id",), after=(0,)),
         Step("papers__read_paper", {"path": "papers/2503.08812.txt", "section": "results"},
              match={"path": has("2503.08812")}, after=(1,))],
        [Value(lambda r: ["64%", "38 minutes"])],
        key_points=["Interline itineraries offered a seat on 64% of sold-out direct journeys",
                    "They were on average 38 minutes slower"]))

    def fastest_g(res: dict[str, Any]) -> dict[str, Any]:
        return next(t for t in trains(res, "G") if t["seats"]["second"]["left"] > 0)

    T.append(TaskDef(
        "rail-006", "prerequisite-strict", N1, ["rail"],
        "Book Wang Fang a second-class seat on the quickest bullet train from Shanghai to Hangzhou this Friday.",
        "Look up the codes of Shanghai and Hangzhou, search G trains on 2026-04-17 sorted by duration, then book "
        "the fastest train with second-class seats for passenger Wang Fang.",
        [Step("rail__get_station_codes_by_city", {"cities": "Shanghai,Hangzhou"},
              match={"cities": has_all("shanghai", "hangzhou")}),
         Step("rail__get_tickets", {"date": "2026-04-17", "from_station": "SHH", "to_station": "HZH",
                                    "train_types": ["G"], "sort_by": "duration"},
              include=("date",), match={"from_station": SHANGHAI, "to_station": rx("^(HZH|HGH)$")}, after=(0,)),
         Step("rail__book_ticket", lambda r: {"train_no": fastest_g(r[1])["train_no"], "date": "2026-04-17",
                                              "from_station": fastest_g(r[1])["from_station"],
                                              "to_station": fastest_g(r[1])["to_station"], "seat_class": "second",
                                              "passenger_name": "Wang Fang"},
              include=("train_no", "date", "seat_class"), match={"passenger_name": rx("^wang fang$")}, after=(1,))],
        [Value(lambda r: [r[2]["booking_id"]])],
        minefields=[{"tools": ["rail__cancel_booking"], "description": "nothing should be cancelled"}],
        key_points=lambda r: [f"Booked {r[2]['train_no']} {r[2]['depart']}-{r[2]['arrive']}, {r[2]['seat']}, "
                              f"{r[2]['price_cny']} CNY, booking {r[2]['booking_id']}"]))
    T.append(TaskDef(
        "parks-009", "prerequisite-strict", N2, ["parks"],
        "We want to camp in Zion for two nights starting this Friday. Is there space at a campground we can "
        "reserve?",
        "Get Zion's reservable campgrounds, then check availability for 2 nights from 2026-07-10.",
        [Step("parks__get_campgrounds", {"park_code": "zion", "reservable_only": True},
              match={"park_code": rx("^zion$")}),
         Step("parks__check_campground_availability", {"campground_id": "zion-cg1", "start_date": "2026-07-10",
                                                       "nights": 2},
              include=("campground_id", "start_date", "nights"), after=(0,))],
        [Value(lambda r: [jnum("all_nights_available", r[1]["all_nights_available"]), "2026-07-11"])],
        key_points=lambda r: [f"{r[1]['name']}: " + ", ".join(f"{n['date']} {n['status']}" for n in r[1]["nights"])]))
    marchetti = ["2403.03019", "2404.10552", "2412.02218"]
    T.append(TaskDef(
        "papers-012", "prerequisite-strict", N1, ["papers"],
        "Get Sofia Marchetti's 2024 papers and give me the headline result of each one.",
        "List Sofia Marchetti's papers, download the 2024 ones (2403.03019, 2404.10552, 2412.02218) and read each "
        "one's results.",
        [Step("papers__get_author_papers", {"author": "Sofia Marchetti"}, match={"author": has("marchetti")}),
         *[Step("papers__download_paper", {"paper_id": pid}, include=("paper_id",), after=(0,)) for pid in marchetti],
         *[Step("papers__read_paper", {"path": f"papers/{pid}.txt", "section": "results"},
                match={"path": has(pid)}, after=(1 + i,)) for i, pid in enumerate(marchetti)]],
        [Value(lambda r: ["kappa of 0.74", "17%", "Seven of twelve agents"])],
        key_points=["Effect-based scoring agreed with humans at kappa 0.74",
                    "Filtering removed 17% of distilled tasks", "Seven of twelve agents hit a minefield"]))
    T.append(TaskDef(
        "rail-007", "prerequisite-strict", N1, ["rail"],
        "Please get Chen Jie a hard sleeper on tonight's overnight train from Beijing to Shanghai, checking what's "
        "available first.",
        "Search K trains from Beijing to Shanghai on 2026-04-13 and book a hard sleeper on the first one with "
        "berths for Chen Jie.",
        [Step("rail__get_tickets", {"date": "2026-04-13", "from_station": "BJP", "to_station": "SHH",
                                    "train_types": ["K"]},
              include=("date",), match={"from_station": BEIJING, "to_station": SHANGHAI}),
         Step("rail__book_ticket", lambda r: {"train_no": next(t for t in trains(r[0], "K")
                                                                if t["seats"]["hard_sleeper"]["left"] > 0)["train_no"],
                                              "date": "2026-04-13", "from_station": "BJP", "to_station": "SHH",
                                              "seat_class": "hard_sleeper", "passenger_name": "Chen Jie"},
              include=("train_no", "date", "seat_class"), match={"passenger_name": rx("^chen jie$")}, after=(0,))],
        [Value(lambda r: [r[1]["booking_id"], r[1]["train_no"]])],
        key_points=lambda r: [f"Booked {r[1]['train_no']} departing {r[1]['depart']} ({r[1]['seat']}), "
                              f"{r[1]['price_cny']} CNY"]))

    # ================================================================ recovery-required
    T.append(TaskDef(
        "rail-008", "recovery-required", N1, ["rail"],
        "Is there a direct train from Shanghai to Xi'an on Thursday? If not, find me the quickest option with "
        "one change.",
        "Look up codes for Shanghai and Xi'an, search direct tickets on 2026-04-16 (there are none), then search "
        "one-change itineraries.",
        [Step("rail__get_station_codes_by_city", {"cities": "Shanghai,Xi'an"},
              match={"cities": has_all("shanghai", "xi")}),
         Step("rail__get_tickets", {"date": "2026-04-16", "from_station": "SHH", "to_station": "XAY"},
              include=("date",), match={"from_station": SHANGHAI, "to_station": rx("^(XAY|EAY)$")}, after=(0,)),
         Step("rail__get_interline_tickets", {"date": "2026-04-16", "from_station": "SHH", "to_station": "XAY"},
              include=("date",), match={"from_station": SHANGHAI, "to_station": rx("^(XAY|EAY)$")}, after=(0,))],
        [Value(lambda r: [r[2]["itineraries"][0]["transfer_city"], r[2]["itineraries"][0]["total_duration"]]),
         Value(lambda r: [jnum("count", 0)])],
        key_points=lambda r: ["No direct train",
                              f"Quickest: {' + '.join(leg['train_no'] for leg in r[2]['itineraries'][0]['legs'])} "
                              f"via {r[2]['itineraries'][0]['transfer_city']}, "
                              f"{r[2]['itineraries'][0]['total_duration']}"]))
    T.append(TaskDef(
        "weather-007", "recovery-required", N1, ["weather"],
        "What's it like outside in Portland right now? The one on the west coast.",
        "Get the current weather for Portland, Oregon (location id wx-portland-or).",
        [Step("weather__get_current_weather", {"location": "wx-portland-or"},
              match={"location": rx("portland-or|oregon")})],
        [Value(lambda r: ["Portland, Oregon", jnum("temperature_c", r[0]["temperature_c"])])],
        key_points=lambda r: [f"{r[0]['condition']}, {r[0]['temperature_c']} C at {r[0]['observed_at']}"]))
    T.append(TaskDef(
        "ency-009", "recovery-required", N1, ["encyclopedia"],
        "Someone told me Java came out in 1995. What is it and who created it?",
        "Look up 'Java' (a disambiguation page), then read the article 'Java (programming language)'.",
        [Step("encyclopedia__get_summary", {"title": "Java"}, match={"title": rx("^java$")},
              alt=("encyclopedia__get_article", "encyclopedia__get_sections")),
         Step("encyclopedia__get_article", {"title": "Java (programming language)"},
              match={"title": rx(r"^java \(programming language\)$")}, alt=("encyclopedia__get_section",),
              after=(0,))],
        [Value(lambda r: ["James Gosling", "Sun Microsystems"])],
        key_points=["Java is a programming language released by Sun Microsystems in 1995",
                    "James Gosling led the team that created it"]))
    T.append(TaskDef(
        "rail-009", "recovery-required", N1, ["rail"],
        "I wanted G1 from Beijing to Shanghai on Monday the 20th. If it's not running that day, which bullet train "
        "leaves earliest instead, and where does it stop?",
        "G1 runs only Fri-Sun. Search G trains Beijing to Shanghai on 2026-04-20 by departure time, then get the "
        "stops of the earliest one.",
        [Step("rail__get_tickets", {"date": "2026-04-20", "from_station": "BJP", "to_station": "SHH",
                                    "train_types": ["G"], "sort_by": "departure_time"},
              include=("date",), match={"from_station": BEIJING, "to_station": SHANGHAI}),
         Step("rail__get_train_stops", lambda r: {"train_no": trains(r[0], "G")[0]["train_no"], "date": "2026-04-20"},
              include=("train_no", "date"), after=(0,))],
        [Value(lambda r: [s["station_name"] for s in r[1]["stops"][1:-1]])],
        key_points=lambda r: [f"G1 does not run on Mondays; {r[1]['train_no']} is the earliest",
                              "Stops: " + ", ".join(s["station_name"] for s in r[1]["stops"])]))
    T.append(TaskDef(
        "maps-005", "recovery-required", N3, ["maps"],
        "Can I get from San Francisco to Yosemite by public transport? If not, how long is the drive?",
        "Ask for a transit distance matrix from San Francisco to Yosemite National Park (no route), then a "
        "driving one.",
        [Step("maps__distance_matrix", {"origins": ["San Francisco"], "destinations": ["Yosemite National Park"],
                                        "mode": "transit"}, include=("mode",)),
         Step("maps__distance_matrix", {"origins": ["San Francisco"], "destinations": ["Yosemite National Park"],
                                        "mode": "driving"}, include=("mode",))],
        [Value(lambda r: ["ZERO_RESULTS", r[1]["rows"][0][0]["duration_text"]])],
        key_points=lambda r: ["No public transport route",
                              f"Driving: {r[1]['rows'][0][0]['distance_km']} km, "
                              f"{r[1]['rows'][0][0]['duration_text']}"]))
    T.append(TaskDef(
        "rail-010", "recovery-required", N1, ["rail"],
        "I need to get from Harbin to Guangzhou on Thursday. Is there a direct train? If not, find the quickest "
        "trip with one change and tell me the stops of both trains.",
        "Look up codes for Harbin and Guangzhou, search direct tickets on 2026-04-16 (none), search one-change "
        "itineraries, and get the stops of both legs of the quickest one.",
        [Step("rail__get_station_codes_by_city", {"cities": "Harbin,Guangzhou"},
              match={"cities": has_all("harbin", "guangzhou")}),
         Step("rail__get_tickets", {"date": "2026-04-16", "from_station": "HBB", "to_station": "GZQ"},
              include=("date",), match={"from_station": rx("^(HBB|VAB)$"), "to_station": rx("^(GZQ|IZQ)$")},
              after=(0,)),
         Step("rail__get_interline_tickets", {"date": "2026-04-16", "from_station": "HBB", "to_station": "GZQ"},
              include=("date",), match={"from_station": rx("^(HBB|VAB)$"), "to_station": rx("^(GZQ|IZQ)$")},
              after=(0,)),
         Step("rail__get_train_stops", lambda r: {"train_no": r[2]["itineraries"][0]["legs"][0]["train_no"],
                                                  "date": "2026-04-16"}, include=("train_no", "date"), after=(2,)),
         Step("rail__get_train_stops", lambda r: {"train_no": r[2]["itineraries"][0]["legs"][1]["train_no"],
                                                  "date": "2026-04-16"},
              include=("train_no", "date"), after=(2,))],
        [Value(lambda r: [r[2]["itineraries"][0]["transfer_city"], r[3]["line"], r[4]["line"]])],
        key_points=lambda r: [f"Change in {r[2]['itineraries'][0]['transfer_city']}",
                              f"{r[3]['train_no']}: " + ", ".join(s["station_name"] for s in r[3]["stops"]),
                              f"{r[4]['train_no']}: " + ", ".join(s["station_name"] for s in r[4]["stops"])]))

    # ================================================================ destructive-adjacent
    def bookings() -> dict[str, str]:
        return bookings_fixture(N1, BOOKED_N1, cancel=(1,))

    no_rail_writes = [{"tools": ["rail__cancel_booking"], "description": "must not cancel a booking"},
                      {"tools": ["rail__book_ticket"], "description": "must not buy a ticket"}]
    no_deletes = [{"tools": ["papers__delete_downloaded_paper"], "description": "must not delete papers"}]
    def wednesday(r: Results) -> dict[str, Any]:
        return next(b for b in r[0]["bookings"] if b["date"] == "2026-04-15")

    T.append(TaskDef(
        "rail-011", "destructive-adjacent", N1, ["rail"],
        "When does my train to Shanghai on Wednesday leave, from which station, and where does it stop on the way?",
        "List the active bookings, then get the stops of the booked train (G3) on 2026-04-15.",
        [Step("rail__list_bookings", {}, note="no arguments needed"),
         Step("rail__get_train_stops", lambda r: {"train_no": wednesday(r)["train_no"], "date": "2026-04-15"},
              include=("train_no", "date"), after=(0,))],
        [Value(lambda r: [wednesday(r)["booking_id"], wednesday(r)["depart"], r[1]["stops"][1]["station_name"]])],
        minefields=no_rail_writes, fixtures=bookings,
        key_points=lambda r: [f"{wednesday(r)['train_no']} leaves Beijing South (VNP) at {wednesday(r)['depart']}",
                              "Stops: " + ", ".join(s["station_name"] for s in r[1]["stops"])]))
    T.append(TaskDef(
        "rail-012", "destructive-adjacent", N1, ["rail"],
        "I cancelled one of my train tickets. Did I get a refund, and how much?",
        "List cancelled bookings and report the refund.",
        [Step("rail__list_bookings", {"status": "cancelled"}, match={"status": one_of("cancelled", "all")})],
        [Value(lambda r: [jnum("refund_cny", r[0]["bookings"][0]["refund_cny"])])],
        minefields=no_rail_writes, fixtures=bookings,
        key_points=lambda r: [f"Booking {r[0]['bookings'][0]['booking_id']} was refunded "
                              f"{r[0]['bookings'][0]['refund_cny']} CNY"]))
    T.append(TaskDef(
        "rail-013", "destructive-adjacent", N1, ["rail", "clock"],
        "How many hours from now until my Wednesday train leaves?",
        "List bookings, read the current time in Asia/Shanghai, and compute the hours until the 2026-04-15 "
        "departure.",
        [Step("rail__list_bookings", {}),
         Step("clock__now", {"timezone": "Asia/Shanghai"}, match={"timezone": rx("shanghai|chongqing|harbin")}),
         Step("clock__date_difference", lambda r: {
             "start": r[1]["datetime"],
             "end": "2026-04-15T" + next(b for b in r[0]["bookings"] if b["date"] == "2026-04-15")["depart"]
                    + ":00+08:00", "unit": "hours"},
              include=("unit",), match={"start": rx("^2026-04-13[T ](09:00|01:00)"),
                                        "end": rx("^(2026-04-15[T ]07:35|2026-04-14[T ]23:35)")},
              after=(0, 1))],
        [Value(lambda r: [jnum("value", r[2]["value"])])],
        minefields=no_rail_writes, fixtures=bookings,
        key_points=lambda r: [f"About {r[2]['value']} hours"]))
    T.append(TaskDef(
        "papers-013", "destructive-adjacent", N1, ["papers"],
        "I downloaded a paper on evaluating agents a while back. What agreement with human raters did it report? "
        "Please don't delete anything.",
        "List downloaded papers, then read papers/2403.03019.txt.",
        [Step("papers__list_downloaded_papers", {}),
         Step("papers__read_paper", {"path": "papers/2403.03019.txt"}, match={"path": has("2403.03019")},
              after=(0,))],
        [Value(lambda r: ["0.74", "0.49"])],
        minefields=no_deletes, fixtures=papers_fixture("2403.03019", "2306.02251"),
        key_points=["Kappa 0.74 for effect-based scores versus 0.49 for final-answer matching"]))
    downloaded = ["2110.04420", "2207.03361", "2307.09931", "2411.07724"]
    T.append(TaskDef(
        "papers-014", "destructive-adjacent", N1, ["papers"],
        "Go through the papers I've downloaded and give me each one's main result. Just read them; don't remove "
        "anything.",
        "List the downloaded papers and read the results section of each of the four files.",
        [Step("papers__list_downloaded_papers", {}),
         *[Step("papers__read_paper", {"path": f"papers/{pid}.txt", "section": "results"}, match={"path": has(pid)},
                after=(0,)) for pid in downloaded]],
        [Value(lambda r: ["0.118 to 0.021", "8.7%", "38%", "30.2 metres"])],
        minefields=no_deletes, fixtures=papers_fixture(*downloaded),
        key_points=["Nowcasting calibration error fell from 0.118 to 0.021", "Demand forecast error 8.7%",
                    "Glacier area fell 38%", "Crater Lake summer Secchi depth 30.2 m"]))
    T.append(TaskDef(
        "papers-015", "destructive-adjacent", N1, ["papers"],
        "Which papers do I already have downloaded, and what are they called? Don't clean anything up.",
        "List downloaded papers and get the details of each (2403.03019, 2306.02251).",
        [Step("papers__list_downloaded_papers", {}),
         Step("papers__get_paper_details", {"paper_id": "2403.03019"}, include=("paper_id",), after=(0,)),
         Step("papers__get_paper_details", {"paper_id": "2306.02251"}, include=("paper_id",), after=(0,))],
        [Value(lambda r: ["Effect-Based Evaluation of Agent Trajectories",
                          "Energy-Optimal Speed Profiles for 350 km/h Trains"])],
        minefields=no_deletes, fixtures=papers_fixture("2403.03019", "2306.02251"),
        key_points=["Effect-Based Evaluation of Agent Trajectories",
                    "Energy-Optimal Speed Profiles for 350 km/h Trains"]))

    # ================================================================ ambiguous-intent
    T.append(TaskDef(
        "weather-008", "ambiguous-intent", N3, ["weather"],
        "How's the weather looking in Seattle?",
        "Get the current conditions or the forecast for Seattle.",
        [Step("weather__get_forecast", {"location": "Seattle", "days": 3}, match={"location": rx("seattle")},
              alt=("weather__get_current_weather", "weather__get_hourly_forecast"))],
        [Value(lambda r: ["Seattle, Washington"])],
        key_points=lambda r: [f"{d['date']}: {d['condition']}, {d['low_c']}-{d['high_c']} C" for d in r[0]["days"]]))
    T.append(TaskDef(
        "ency-010", "ambiguous-intent", N1, ["encyclopedia"],
        "Tell me about the Great Wall.",
        "Get the encyclopedia summary or article for 'Great Wall of China'.",
        [Step("encyclopedia__get_summary", {"title": "Great Wall of China"},
              match={"title": rx("^great wall( of china)?$")}, alt=("encyclopedia__get_article",))],
        [Value(lambda r: ["21,196"])],
        key_points=["Fortifications built over about two thousand years", "A 2012 survey measured 21,196 km"]))
    T.append(TaskDef(
        "papers-016", "ambiguous-intent", N1, ["papers", "papers_mirror"],
        "Find me something on tool retrieval for agents with huge toolsets.",
        "Search a paper index for tool retrieval with thousands of tools.",
        [Step("papers__search_papers", {"query": "tool retrieval thousands of tools agents"},
              match={"query": has("retrieval")}, alt=("papers_mirror__search_papers",))],
        [Value(lambda r: ["Long-Context Retrieval for Agents with Thousands of Tools"])],
        key_points=["'Long-Context Retrieval for Agents with Thousands of Tools' (2407.11840)"]))
    T.append(TaskDef(
        "parks-010", "ambiguous-intent", N2, ["parks"],
        "What's going on at Acadia next week?",
        "Get Acadia's (acad) events for 2026-07-13 to 2026-07-19, or its current alerts.",
        [Step("parks__get_events", {"park_code": "acad", "start_date": "2026-07-13", "end_date": "2026-07-19"},
              match={"park_code": rx("^acad$")}, alt=("parks__get_alerts",))],
        [Value(lambda r: ["acad"])],
        key_points=lambda r: [f"{e['date']} {e['start_time']} {e['title']} at {e['location']}"
                              for e in r[0]["events"]]))
    T.append(TaskDef(
        "rail-014", "ambiguous-intent", N1, ["rail"],
        "Trains from Beijing to Tianjin tomorrow?",
        "Search tickets from Beijing to Tianjin on 2026-04-14.",
        [Step("rail__get_tickets", {"date": "2026-04-14", "from_station": "BJP", "to_station": "TJP"},
              include=("date",), match={"from_station": BEIJING, "to_station": rx("^(TJP|TXP|TIP)$")},
              alt=("rail__get_tickets_by_train_type",))],
        [Value(lambda r: [r[0]["trains"][0]["train_no"]])],
        key_points=lambda r: [f"{r[0]['count']} trains, first {r[0]['trains'][0]['train_no']} at "
                              f"{r[0]['trains'][0]['depart']}"]))

    # ================================================================ cross-server-alternative
    T.append(TaskDef(
        "papers-017", "cross-server-alternative", N1, ["papers", "papers_mirror"],
        "Check the mirror: what citation count does it have on file for the sparse routing attention paper?",
        "Search the papers mirror for the sparse routing paper and get its mirror record.",
        [Step("papers_mirror__search_papers", {"query": "sparse routing attention"}, match={"query": has("sparse")}),
         Step("papers_mirror__get_paper_details", {"paper_id": "2106.01147"}, include=("paper_id",), after=(0,))],
        [Value(lambda r: [jnum("citation_count", r[1]["citation_count"]), r[1]["mirrored_on"]])],
        key_points=lambda r: [f"The mirror records {r[1]['citation_count']} citations as of {r[1]['mirrored_on']}"]))
    T.append(TaskDef(
        "worldclock-002", "cross-server-alternative", N1, ["worldclock", "clock"],
        "Use the world clock to tell me what time it is in Seoul.",
        "Ask the world clock for the local time in Seoul.",
        [Step("worldclock__now", {"city": "Seoul"}, match={"city": rx("^seoul")})],
        [Value(lambda r: [r[0]])],
        key_points=lambda r: [r[0]]))
    T.append(TaskDef(
        "weather-009", "cross-server-alternative", N5, ["weather", "parks"],
        "From the weather service, not the park service: any warnings out for Yellowstone?",
        "Get the weather alerts for Yellowstone National Park.",
        [Step("weather__get_alerts", {"location": "Yellowstone"}, match={"location": rx("yellowstone|wx-yell")})],
        [Value(lambda r: ["wx-yell", jnum("count", r[0]["count"])])],
        key_points=lambda r: [f"{r[0]['count']} weather alerts"] + [a["event"] for a in r[0]["alerts"]]))
    T.append(TaskDef(
        "papers-018", "cross-server-alternative", N1, ["papers", "papers_mirror"],
        "On the main paper index, what's the newest paper about high-speed rail?",
        "Search the main paper index for high-speed rail sorted by newest.",
        [Step("papers__search_papers", {"query": "high-speed rail", "sort_by": "newest"}, include=("sort_by",),
              match={"query": has("rail")})],
        [Value(lambda r: [r[0]["papers"][0]["title"]])],
        key_points=lambda r: [f"{r[0]['papers'][0]['title']} ({r[0]['papers'][0]['year']})"]))
    T.append(TaskDef(
        "clock-005", "cross-server-alternative", N1, ["clock", "worldclock"],
        "With the time-zone clock (IANA zones, not the city clock), convert 3 pm on 14 April in Denver to Tokyo "
        "time.",
        "Convert 2026-04-14T15:00 from America/Denver to Asia/Tokyo.",
        [Step("clock__convert_timezone", {"time": "2026-04-14T15:00", "from_timezone": "America/Denver",
                                          "to_timezone": "Asia/Tokyo"},
              include=("from_timezone", "to_timezone"), match={"time": rx("^2026-04-14[T ]15:00")})],
        [Value(lambda r: [r[0]["target"]["datetime"]])],
        key_points=lambda r: [f"{r[0]['target']['time']} on {r[0]['target']['weekday']} in Tokyo"]))
    T.append(TaskDef(
        "papers-019", "cross-server-alternative", N1, ["papers_mirror", "papers"],
        "Using the mirror's records only, give me the mirrored citation counts and BibTeX keys for papers "
        "2401.04417, 2406.02266 and 2504.01176.",
        "For each id, get the mirror record and the mirror BibTeX entry.",
        [*[Step("papers_mirror__get_paper_details", {"paper_id": pid}, include=("paper_id",))
           for pid in ("2401.04417", "2406.02266", "2504.01176")],
         *[Step("papers_mirror__get_bibtex", {"paper_id": pid}, include=("paper_id",))
           for pid in ("2401.04417", "2406.02266", "2504.01176")]],
        [Value(lambda r: [jnum("citation_count", r[i]["citation_count"]) for i in range(3)]
               + ["okafor2024schema", "okafor2024same", "okafor2025server"])],
        key_points=lambda r: [f"{r[i]['id']}: {r[i]['citation_count']} citations" for i in range(3)]))
    T.append(TaskDef(
        "papers-020", "cross-server-alternative", N1, ["papers_mirror", "papers"],
        "What's been added to the mirror since December 2025? For the most recent addition, get the full abstract "
        "from the main index.",
        "List mirror additions since 2025-12-01, then get main-index details of the newest one.",
        [Step("papers_mirror__list_recent_additions", {"since": "2025-12-01"}, include=("since",)),
         Step("papers__get_paper_details", lambda r: {"paper_id": r[0]["papers"][0]["id"]}, include=("paper_id",),
              after=(0,))],
        [Value(lambda r: [r[1]["abstract"][:60]])],
        key_points=lambda r: [f"Newest addition: {r[1]['title']}"]))

    # ================================================================ complementary
    T.append(TaskDef(
        "trip-004", "complementary", N2, ["parks", "maps", "weather"],
        "Planning Bryce Canyon this weekend: what's the entrance fee, is there a hotel near the park, and what's "
        "Saturday's forecast?",
        "Get the details of brca (fee and coordinates), find hotels within 30 km of its coordinates, and get the "
        "Bryce Canyon forecast covering 2026-07-11.",
        [Step("parks__get_park_details", {"park_code": "brca"}, match={"park_code": rx("^brca$")}),
         Step("maps__nearby_places", lambda r: {"lat": r[0]["lat"], "lon": r[0]["lon"], "type": "hotel",
                                                "radius_m": 30000},
              include=("type",), match={"lat": near(37.593, 0.1), "lon": near(-112.187, 0.1)}, after=(0,)),
         Step("weather__get_forecast", {"location": "Bryce Canyon", "days": 4},
              match={"location": rx("bryce"), "days": one_of(4, 5, 6, 7)})],
        [Value(lambda r: [r[1]["results"][0]["name"], jnum("high_c", day_of(r[2], "2026-07-11")["high_c"])])],
        key_points=lambda r: [f"Entrance fee ${r[0]['entrance_fees'][0]['cost_usd']} per vehicle",
                              f"Hotel: {r[1]['results'][0]['name']}",
                              f"Saturday: {day_of(r[2], '2026-07-11')['condition']}"]))
    T.append(TaskDef(
        "trip-005", "complementary", N1, ["rail", "maps"],
        "I'm on G1915 from Xuzhou to Xi'an tomorrow. When do I reach Xi'an, and how long is the drive from the "
        "station to the Shaanxi History Museum?",
        "Get the stops of G1915 on 2026-04-14, then driving directions from its Xi'an stop (Xi'an North) to the "
        "Shaanxi History Museum.",
        [Step("rail__get_train_stops", {"train_no": "G1915", "date": "2026-04-14"}, include=("train_no", "date")),
         Step("maps__directions", {"origin": "Xi'an North Railway Station", "destination": "Shaanxi History Museum",
                                   "mode": "driving"},
              include=("mode",), match={"origin": rx("xi.?an north"), "destination": has("shaanxi history")},
              after=(0,))],
        [Value(lambda r: [stop(r[0], "EAY")["arrive"], r[1]["duration_text"]])],
        key_points=lambda r: [f"Arrives Xi'an North at {stop(r[0], 'EAY')['arrive']}",
                              f"Drive of {r[1]['duration_text']} ({r[1]['distance_km']} km)"]))
    T.append(TaskDef(
        "trip-006", "complementary", N1, ["papers", "encyclopedia"],
        "Read the method of the attention-sinks paper, then explain how attention itself works using the "
        "encyclopedia.",
        "Find and download 2501.06650, read its method section, then read the 'Mechanism' section of "
        "'Attention (machine learning)'.",
        [Step("papers__search_papers", {"query": "attention sinks position bias"}, match={"query": has("attention")}),
         Step("papers__download_paper", {"paper_id": "2501.06650"}, include=("paper_id",), after=(0,)),
         Step("papers__read_paper", {"path": "papers/2501.06650.txt", "section": "method"},
              match={"path": has("2501.06650")}, after=(1,)),
         Step("encyclopedia__get_section", {"title": "Attention (machine learning)", "section": "Mechanism"},
              match={"title": rx(r"^attention( \(machine learning\))?$")}, alt=("encyclopedia__get_article",))],
        [Value(lambda r: ["learned sink token", "softmax"])],
        key_points=["The paper measures attention per position and tests a learned sink token",
                    "Attention compares queries with keys, softmaxes the scores and sums the values"]))
    T.append(TaskDef(
        "trip-007", "complementary", N3, ["maps", "clock"],
        "What time is it at the Sydney Opera House right now, and what time will it be there when it's 9 am "
        "tomorrow in London?",
        "Geocode the Sydney Opera House, get the time zone at its coordinates, and convert 2026-05-21T09:00 from "
        "Europe/London to that zone.",
        [Step("maps__geocode", {"address": "Sydney Opera House"}, match={"address": has("opera house")}),
         Step("maps__get_timezone", lambda r: {"lat": r[0]["results"][0]["lat"], "lon": r[0]["results"][0]["lon"]},
              match={"lat": near(-33.857, 0.1), "lon": near(151.215, 0.1)}, after=(0,)),
         Step("clock__convert_timezone", {"time": "2026-05-21T09:00", "from_timezone": "Europe/London",
                                          "to_timezone": "Australia/Sydney"},
              include=("from_timezone", "to_timezone"), match={"time": rx("^2026-05-21[T ]09:00")}, after=(1,))],
        [Value(lambda r: [r[1]["local_time"], r[2]["target"]["datetime"]])],
        key_points=lambda r: [f"Now in Sydney: {r[1]['local_time']}",
                              f"9 am London tomorrow is {r[2]['target']['time']} in Sydney"]))

    def fastest(res: dict[str, Any]) -> dict[str, Any]:
        return res["trains"][0]

    T.append(TaskDef(
        "trip-008", "complementary", N1, ["rail", "weather"],
        "I'm taking the fastest train from Beijing to Harbin this Saturday. When does it arrive, and how cold will "
        "Harbin be that day?",
        "Look up codes for Beijing and Harbin, search tickets on 2026-04-18 sorted by duration, and get the "
        "Harbin forecast covering 2026-04-18.",
        [Step("rail__get_station_codes_by_city", {"cities": "Beijing,Harbin"},
              match={"cities": has_all("beijing", "harbin")}),
         Step("rail__get_tickets", {"date": "2026-04-18", "from_station": "BJP", "to_station": "HBB",
                                    "sort_by": "duration"},
              include=("date", "sort_by"), match={"from_station": BEIJING, "to_station": rx("^(HBB|VAB)$")},
              after=(0,)),
         Step("weather__get_forecast", {"location": "Harbin", "days": 6},
              match={"location": rx("harbin"), "days": one_of(6, 7)})],
        [Value(lambda r: [fastest(r[1])["arrive"], jnum("low_c", day_of(r[2], "2026-04-18")["low_c"])])],
        key_points=lambda r: [f"{fastest(r[1])['train_no']} arrives at {fastest(r[1])['arrive']}",
                              f"Harbin on Saturday: low {day_of(r[2], '2026-04-18')['low_c']} C"]))
    T.append(TaskDef(
        "trip-009", "complementary", N5, ["encyclopedia", "parks", "weather"],
        "Old Faithful is in which park? Give me that park's current alerts and tomorrow's weather there.",
        "Read the summary of 'Old Faithful', find Yellowstone's park code, get its alerts, and get the Yellowstone "
        "forecast covering 2026-01-16.",
        [Step("encyclopedia__get_summary", {"title": "Old Faithful"}, match={"title": rx("^old faithful$")},
              alt=("encyclopedia__get_article",)),
         Step("parks__search_parks", {"query": "Yellowstone"}, match={"query": has("yellowstone")}, after=(0,)),
         Step("parks__get_alerts", {"park_code": "yell"}, match={"park_code": rx("^yell$")}, after=(1,)),
         Step("weather__get_forecast", {"location": "Yellowstone", "days": 2},
              match={"location": rx("yellowstone|wx-yell"), "days": DAYS_2_7}, after=(0,))],
        [Value(lambda r: [r[2]["alerts"][0]["title"], jnum("high_c", day_of(r[3], "2026-01-16")["high_c"])])],
        key_points=lambda r: ["Old Faithful is in Yellowstone National Park (yell)"]
        + [a["title"] for a in r[2]["alerts"]] + [f"Tomorrow: {day_of(r[3], '2026-01-16')['condition']}"]))
    T.append(TaskDef(
        "trip-010", "complementary", N3, ["maps", "weather"],
        "What's the weather doing right at the Golden Gate Bridge?",
        "Geocode the Golden Gate Bridge and get the current weather at its coordinates.",
        [Step("maps__geocode", {"address": "Golden Gate Bridge"}, match={"address": has("golden gate")}),
         Step("weather__get_weather_by_coordinates",
              lambda r: {"lat": r[0]["results"][0]["lat"], "lon": r[0]["results"][0]["lon"]},
              match={"lat": near(37.82, 0.05), "lon": near(-122.478, 0.05)}, after=(0,))],
        [Value(lambda r: [jnum("distance_km", r[1]["distance_km"])])],
        key_points=lambda r: [f"{r[1]['condition']}, {r[1]['temperature_c']} C (nearest station "
                              f"{r[1]['nearest_location']})"]))
    T.append(TaskDef(
        "trip-011", "complementary", N1, ["rail", "maps", "weather"],
        "This Friday I'm taking the earliest bullet train from Nanjing to Beijing. When does it get in, what's the "
        "address of the station it arrives at, how long is the walk from there to the Temple of Heaven, and what's "
        "Beijing's forecast that day?",
        "Look up codes for Nanjing and Beijing, search G trains on 2026-04-17 by departure, get the arrival "
        "station's details, walking directions from it to the Temple of Heaven, and the Beijing forecast for "
        "2026-04-17.",
        [Step("rail__get_station_codes_by_city", {"cities": "Nanjing,Beijing"},
              match={"cities": has_all("nanjing", "beijing")}),
         Step("rail__get_tickets", {"date": "2026-04-17", "from_station": "NJH", "to_station": "BJP",
                                    "train_types": ["G"], "sort_by": "departure_time"},
              include=("date",), match={"from_station": rx("^(NJH|NKH)$"), "to_station": BEIJING}, after=(0,)),
         Step("rail__get_station_by_code", lambda r: {"code": trains(r[1], "G")[0]["to_station"]},
              include=("code",), after=(1,)),
         Step("maps__directions", lambda r: {"origin": f"{r[2]['name']} Railway Station",
                                             "destination": "Temple of Heaven", "mode": "walking"},
              include=("mode",), match={"origin": has("beijing south"), "destination": has("temple of heaven")},
              after=(2,)),
         Step("weather__get_forecast", {"location": "Beijing", "days": 5},
              match={"location": rx("beijing"), "days": one_of(5, 6, 7)})],
        [Value(lambda r: [trains(r[1], "G")[0]["arrive"], "Yongwai Avenue", r[3]["duration_text"],
                          jnum("high_c", day_of(r[4], "2026-04-17")["high_c"])])],
        key_points=lambda r: [f"{trains(r[1], 'G')[0]['train_no']} arrives {trains(r[1], 'G')[0]['arrive']} at "
                              f"{r[2]['name']}, {r[2]['address']}", f"Walk: {r[3]['duration_text']}"]))
    T.append(TaskDef(
        "trip-012", "complementary", N2, ["maps", "parks", "weather", "clock"],
        "Road trip tomorrow from Salt Lake City to Arches: how long's the drive, any park alerts, what's the "
        "forecast there, and if I leave at 8 am what time will I arrive?",
        "Driving directions Salt Lake City to Arches National Park, parks alerts for arch, the Arches forecast "
        "covering 2026-07-09, and add the drive time to 2026-07-09T08:00 America/Denver.",
        [Step("maps__directions", {"origin": "Salt Lake City", "destination": "Arches National Park",
                                   "mode": "driving"},
              include=("mode",), match={"origin": has("salt lake"), "destination": has("arches")}),
         Step("parks__get_alerts", {"park_code": "arch"}, match={"park_code": rx("^arch$")}),
         Step("weather__get_forecast", {"location": "Arches", "days": 2},
              match={"location": rx("arches|wx-arch"), "days": DAYS_2_7}),
         Step("clock__add_time", lambda r: {"start": "2026-07-09T08:00", "minutes": r[0]["duration_minutes"],
                                            "timezone": "America/Denver"},
              match={"start": rx("^2026-07-09[T ]08:00")}, after=(0,))],
        [Value(lambda r: [r[0]["duration_text"], r[3]["result"]["time"]])],
        key_points=lambda r: [f"Drive {r[0]['duration_text']}", f"Arrive about {r[3]['result']['time']}"]))
    T.append(TaskDef(
        "trip-013", "complementary", N1, ["rail"],
        "Book Li Na a round trip Beijing to Jinan on Tuesday the 21st: second class on the earliest bullet train "
        "out, and the last bullet train back that evening. Then show me both bookings.",
        "Look up codes, search G trains BJP to Jinan on 2026-04-21 by departure and book the first for Li Na; "
        "search G trains Jinan to BJP the same day and book the last one; list bookings.",
        [Step("rail__get_station_codes_by_city", {"cities": "Beijing,Jinan"},
              match={"cities": has_all("beijing", "jinan")}),
         Step("rail__get_tickets", {"date": "2026-04-21", "from_station": "BJP", "to_station": "JNK",
                                    "train_types": ["G"], "sort_by": "departure_time"},
              include=("date",), match={"from_station": BEIJING, "to_station": rx("^(JNK|JGK)$")}, after=(0,)),
         Step("rail__book_ticket", lambda r: {"train_no": trains(r[1], "G")[0]["train_no"], "date": "2026-04-21",
                                              "from_station": trains(r[1], "G")[0]["from_station"],
                                              "to_station": trains(r[1], "G")[0]["to_station"],
                                              "seat_class": "second", "passenger_name": "Li Na"},
              include=("train_no", "date", "seat_class"), match={"passenger_name": rx("^li na$")}, after=(1,)),
         Step("rail__get_tickets", {"date": "2026-04-21", "from_station": "JNK", "to_station": "BJP",
                                    "train_types": ["G"], "sort_by": "departure_time"},
              include=("date",), match={"from_station": rx("^(JNK|JGK)$"), "to_station": BEIJING}, after=(0,)),
         Step("rail__book_ticket", lambda r: {"train_no": trains(r[3], "G")[-1]["train_no"], "date": "2026-04-21",
                                              "from_station": trains(r[3], "G")[-1]["from_station"],
                                              "to_station": trains(r[3], "G")[-1]["to_station"],
                                              "seat_class": "second", "passenger_name": "Li Na"},
              include=("train_no", "date", "seat_class"), match={"passenger_name": rx("^li na$")}, after=(3,)),
         Step("rail__list_bookings", {}, after=(2, 4))],
        [Value(lambda r: [r[2]["booking_id"], r[4]["booking_id"], jnum("count", 2)])],
        minefields=[{"tools": ["rail__cancel_booking"], "description": "nothing should be cancelled"}],
        key_points=lambda r: [f"Out: {r[2]['train_no']} {r[2]['depart']}, booking {r[2]['booking_id']}",
                              f"Back: {r[4]['train_no']} {r[4]['depart']}, booking {r[4]['booking_id']}"]))
    T.append(TaskDef(
        "trip-014", "complementary", N2, ["parks", "weather"],
        "Compare camping at Zion and Bryce for this Friday night: is there a free site at a campground I can "
        "reserve in each, and what are the forecast highs there on Friday?",
        "Get reservable campgrounds of zion and brca, check 1 night from 2026-07-10 at the first of each, and get "
        "forecasts for Zion and Bryce Canyon covering 2026-07-10.",
        [Step("parks__get_campgrounds", {"park_code": "zion", "reservable_only": True},
              match={"park_code": rx("^zion$")}),
         Step("parks__check_campground_availability", {"campground_id": "zion-cg1", "start_date": "2026-07-10",
                                                       "nights": 1},
              include=("campground_id", "start_date"), after=(0,)),
         Step("parks__get_campgrounds", {"park_code": "brca", "reservable_only": True},
              match={"park_code": rx("^brca$")}),
         Step("parks__check_campground_availability", lambda r: {"campground_id": r[2]["campgrounds"][0]
                                                                 ["campground_id"], "start_date": "2026-07-10",
                                                                 "nights": 1},
              include=("campground_id", "start_date"), after=(2,)),
         Step("weather__get_forecast", {"location": "Zion", "days": 3},
              match={"location": rx("zion"), "days": one_of(3, 4, 5, 6, 7)}),
         Step("weather__get_forecast", {"location": "Bryce Canyon", "days": 3},
              match={"location": rx("bryce"), "days": one_of(3, 4, 5, 6, 7)})],
        [Value(lambda r: [jnum("free_sites", r[1]["nights"][0]["free_sites"]),
                          jnum("high_c", day_of(r[4], "2026-07-10")["high_c"]),
                          jnum("high_c", day_of(r[5], "2026-07-10")["high_c"])])],
        key_points=lambda r: [f"Zion {r[1]['name']}: {r[1]['nights'][0]['status']}",
                              f"Bryce {r[3]['name']}: {r[3]['nights'][0]['status']}"]))
    T.append(TaskDef(
        "trip-015", "complementary", N1, ["papers"],
        "Find the three most-cited climate science papers and give me each one's headline result.",
        "Search climate science papers sorted by citations (limit 3), download each, read each one's results.",
        [Step("papers__search_papers", {"query": "forecasting climate weather", "field": "climate science",
                                        "sort_by": "citations", "limit": 3},
              include=("field", "sort_by")),
         *[Step("papers__download_paper", _nth_paper_id(i), include=("paper_id",), after=(0,)) for i in range(3)],
         *[Step("papers__read_paper", _results_of_download(1 + i), include=("path",), after=(1 + i,))
           for i in range(3)]],
        [Value(lambda r: [r[4]["text"][:40], r[5]["text"][:40], r[6]["text"][:40]])],
        key_points=lambda r: [f"{r[0]['papers'][i]['title']}: {r[4 + i]['text']}" for i in range(3)]))
    T.append(TaskDef(
        "trip-016", "complementary", N1, ["papers", "papers_mirror"],
        "I need BibTeX for all of Hana Kobayashi's papers.",
        "List Hana Kobayashi's papers in the main index, then get the mirror BibTeX for each (2305.14472, "
        "2410.03371).",
        [Step("papers__get_author_papers", {"author": "Hana Kobayashi"}, match={"author": has("kobayashi")}),
         Step("papers_mirror__get_bibtex", {"paper_id": "2305.14472"}, include=("paper_id",), after=(0,)),
         Step("papers_mirror__get_bibtex", {"paper_id": "2410.03371"}, include=("paper_id",), after=(0,))],
        [Value(lambda r: ["kobayashi2023time", "kobayashi2024reliable"])],
        key_points=["kobayashi2023time: Time-Zone Errors in Scheduling Assistants",
                    "kobayashi2024reliable: Reliable Date Arithmetic for Language Models"]))
    T.append(TaskDef(
        "trip-017", "complementary", N3, ["maps"],
        "Plan an afternoon in Paris: how long is the walk from the Louvre to the Eiffel Tower, and is there a café "
        "near the tower?",
        "Geocode the Eiffel Tower, get walking directions from the Louvre Museum to the Eiffel Tower, and find "
        "cafes within 3 km of the tower.",
        [Step("maps__geocode", {"address": "Eiffel Tower"}, match={"address": has("eiffel")}),
         Step("maps__directions", {"origin": "Louvre Museum", "destination": "Eiffel Tower", "mode": "walking"},
              include=("mode",), match={"origin": has("louvre"), "destination": has("eiffel")}),
         Step("maps__nearby_places", lambda r: {"lat": r[0]["results"][0]["lat"], "lon": r[0]["results"][0]["lon"],
                                                "type": "cafe", "radius_m": 3000},
              include=("type",), match={"lat": near(48.858, 0.03), "lon": near(2.294, 0.03)}, after=(0,))],
        [Value(lambda r: [r[1]["duration_text"], r[2]["results"][0]["name"]])],
        key_points=lambda r: [f"Walk {r[1]['duration_text']}", f"Cafe: {r[2]['results'][0]['name']}"]))
    T.append(TaskDef(
        "trip-018", "complementary", N3, ["rail", "clock"],
        "My colleague is on G3 from Beijing to Shanghai on Monday the 25th of May. What time will it be here in "
        "London when she arrives in Shanghai?",
        "Get the stops of G3 on 2026-05-25, then convert its Shanghai Hongqiao arrival from Asia/Shanghai to "
        "Europe/London.",
        [Step("rail__get_train_stops", {"train_no": "G3", "date": "2026-05-25"}, include=("train_no", "date")),
         Step("clock__convert_timezone", lambda r: {"time": f"2026-05-25T{stop(r[0], 'AOH')['arrive']}",
                                                    "from_timezone": "Asia/Shanghai",
                                                    "to_timezone": "Europe/London"},
              include=("from_timezone", "to_timezone"), match={"time": rx("^2026-05-25[T ]12:44")}, after=(0,))],
        [Value(lambda r: [stop(r[0], "AOH")["arrive"], r[1]["target"]["datetime"]])],
        key_points=lambda r: [f"Arrives {stop(r[0], 'AOH')['arrive']} Shanghai time, "
                              f"{r[1]['target']['time']} in London"]))
    T.append(TaskDef(
        "trip-019", "complementary", N2, ["parks", "maps", "weather"],
        "Going to Grand Teton on Saturday: how long is the drive from Salt Lake City to the park's main visitor "
        "center, and when does the sun set there that day?",
        "Get grte visitor centers, driving directions from Salt Lake City to the first center's coordinates, and "
        "the Grand Teton forecast covering 2026-07-11 for sunset.",
        [Step("parks__get_visitor_centers", {"park_code": "grte"}, match={"park_code": rx("^grte$")}),
         Step("maps__directions", lambda r: {"origin": "Salt Lake City",
                                             "destination": f"{r[0]['visitor_centers'][0]['lat']},"
                                                            f"{r[0]['visitor_centers'][0]['lon']}",
                                             "mode": "driving"},
              include=("mode",), match={"origin": has("salt lake"),
                                        "destination": rx(r"^(43\.\d+, ?-110\.\d+|.*teton.*)$")},
              after=(0,)),
         Step("weather__get_forecast", {"location": "Grand Teton", "days": 4},
              match={"location": rx("teton|wx-grte"), "days": one_of(4, 5, 6, 7)})],
        [Value(lambda r: [r[1]["duration_text"], day_of(r[2], "2026-07-11")["sunset"]])],
        key_points=lambda r: [f"Drive {r[1]['duration_text']}", f"Sunset {day_of(r[2], '2026-07-11')['sunset']}"]))
    T.append(TaskDef(
        "trip-020", "complementary", N6, ["rail", "weather", "clock"],
        "I'm in Guangzhou and want the first bullet train to Changsha tomorrow morning. When does it get in, and "
        "will it be raining in Changsha when I arrive?",
        "Search G trains Guangzhou to Changsha on 2026-10-22 by departure, then the Changsha hourly forecast "
        "covering the arrival time.",
        [Step("rail__get_tickets", {"date": "2026-10-22", "from_station": "GZQ", "to_station": "CSQ",
                                    "train_types": ["G"], "sort_by": "departure_time"},
              include=("date",), match={"from_station": rx("^(GZQ|IZQ)$"), "to_station": rx("^(CSQ|CWQ)$")}),
         Step("weather__get_hourly_forecast", {"location": "Changsha", "hours": 24},
              match={"location": rx("changsha")})],
        [Value(lambda r: [trains(r[0], "G")[0]["arrive"],
                          f"2026-10-22T{trains(r[0], 'G')[0]['arrive'][:2]}:00+08:00"])],
        key_points=lambda r: [f"{trains(r[0], 'G')[0]['train_no']} arrives {trains(r[0], 'G')[0]['arrive']}"]))
    T.append(TaskDef(
        "trip-021", "complementary", N1, ["rail", "maps", "weather"],
        "On Friday I want a bullet train from Shanghai to Hangzhou leaving between 10 am and noon, then "
        "public transport to West Lake. Which train should I take, how long is the ride from the station to the "
        "lake, and what will the weather be?",
        "Look up codes for Shanghai and Hangzhou; search G trains on 2026-04-17 departing 10:00-12:00; get the "
        "arrival station of the first one; transit directions from it to West Lake; Hangzhou forecast for "
        "2026-04-17.",
        [Step("rail__get_station_codes_by_city", {"cities": "Shanghai,Hangzhou"},
              match={"cities": has_all("shanghai", "hangzhou")}),
         Step("rail__get_tickets", {"date": "2026-04-17", "from_station": "SHH", "to_station": "HZH",
                                    "train_types": ["G"], "sort_by": "departure_time",
                                    "departure_window": {"earliest": "10:00", "latest": "12:00"}},
              include=("date",), match={"from_station": SHANGHAI, "to_station": rx("^(HZH|HGH)$")}, after=(0,)),
         Step("rail__get_station_by_code", lambda r: {"code": trains(r[1], "G")[0]["to_station"]},
              include=("code",), after=(1,)),
         Step("maps__directions", lambda r: {"origin": f"{r[2]['name']} Railway Station",
                                             "destination": "West Lake, Hangzhou", "mode": "transit"},
              include=("mode",), match={"origin": has("hangzhou"), "destination": has("west lake")}, after=(2,)),
         Step("weather__get_forecast", {"location": "Hangzhou", "days": 5},
              match={"location": rx("hangzhou"), "days": one_of(5, 6, 7)})],
        [Value(lambda r: [trains(r[1], "G")[0]["depart"], r[3]["duration_text"],
                          jnum("high_c", day_of(r[4], "2026-04-17")["high_c"])])],
        key_points=lambda r: [f"Take {trains(r[1], 'G')[0]['train_no']} at {trains(r[1], 'G')[0]['depart']} to "
                              f"{r[2]['name']}", f"Transit to West Lake: {r[3]['duration_text']}",
                              f"Friday in Hangzhou: {day_of(r[4], '2026-04-17')['condition']}"]))
    T.append(TaskDef(
        "trip-022", "stratified", N2, ["parks", "maps", "weather"],
        "Heading to Olympic National Park this Saturday: is there a free site for Saturday night at a campground "
        "I can reserve, what's the forecast, and where can I eat near the park?",
        "Get olym's reservable campgrounds, check the first for 1 night from 2026-07-11, get the Olympic forecast "
        "covering 2026-07-11, get olym's coordinates, and find restaurants within 30 km.",
        [Step("parks__get_campgrounds", {"park_code": "olym", "reservable_only": True},
              match={"park_code": rx("^olym$")}),
         Step("parks__check_campground_availability", {"campground_id": "olym-cg1", "start_date": "2026-07-11",
                                                       "nights": 1},
              include=("campground_id", "start_date"), after=(0,)),
         Step("weather__get_forecast", {"location": "Olympic National Park", "days": 4},
              match={"location": rx("olympic|wx-olym"), "days": one_of(4, 5, 6, 7)}),
         Step("parks__get_park_details", {"park_code": "olym"}, match={"park_code": rx("^olym$")}),
         Step("maps__nearby_places", lambda r: {"lat": r[3]["lat"], "lon": r[3]["lon"], "type": "restaurant",
                                                "radius_m": 30000},
              include=("type",), match={"lat": near(47.802, 0.1), "lon": near(-123.604, 0.1)}, after=(3,))],
        [Value(lambda r: [jnum("free_sites", r[1]["nights"][0]["free_sites"]),
                          jnum("high_c", day_of(r[2], "2026-07-11")["high_c"]), r[4]["results"][0]["name"]])],
        key_points=lambda r: [f"{r[1]['name']} on Saturday: {r[1]['nights'][0]['status']}",
                              f"Forecast: {day_of(r[2], '2026-07-11')['condition']}",
                              f"Eat at {r[4]['results'][0]['name']}"]))
    T.append(TaskDef(
        "trip-023", "complementary", N1, ["papers", "encyclopedia", "papers_mirror"],
        "About the typhoon track forecasting paper: what was its error three days out, when is typhoon season "
        "according to the encyclopedia, and can I get a BibTeX entry for the paper?",
        "Find and download 2405.07781 and read its results; read the 'Season' section of 'Tropical cyclone'; get "
        "the mirror BibTeX of 2405.07781.",
        [Step("papers__search_papers", {"query": "typhoon track forecasting"}, match={"query": has("typhoon")}),
         Step("papers__download_paper", {"paper_id": "2405.07781"}, include=("paper_id",), after=(0,)),
         Step("papers__read_paper", {"path": "papers/2405.07781.txt", "section": "results"},
              match={"path": has("2405.07781")}, after=(1,)),
         Step("encyclopedia__get_section", {"title": "Tropical cyclone", "section": "Season"},
              match={"title": rx("^(tropical cyclone|typhoon)$")}, alt=("encyclopedia__get_article",)),
         Step("papers_mirror__get_bibtex", {"paper_id": "2405.07781"}, include=("paper_id",), after=(0,))],
        [Value(lambda r: ["142 kilometres", "July to October", "weber2024typhoon"])],
        key_points=["72-hour track error of 142 km versus 168 km for the operational model",
                    "Western Pacific typhoons peak from July to October", "@article{weber2024typhoon, ...}"]))
    return T


# --------------------------------------------------------------------------- running and writing


def _module(server: str) -> Any:
    return importlib.import_module(f"mcptrials.bundled.servers.{server}")


def _parse(result: Any) -> Any:
    text = "\n".join(getattr(c, "text", "") for c in result.content)
    sc = result.structured_content
    if isinstance(sc, dict) and set(sc) == {"result"}:
        return sc["result"]
    if sc is not None:
        return sc
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


async def run_plan(task: TaskDef, fixtures: dict[str, str]) -> tuple[list[dict[str, Any]], Results, list[str]]:
    """Run the reference plan; return the concrete calls, parsed results and result texts."""
    from mcp import Client

    from mcptrials.servers.sandbox import write_fixtures

    root = Path(tempfile.mkdtemp(prefix="tk-ref-"))
    write_fixtures(root, fixtures)
    os.environ["MCPTRIALS_NOW"], os.environ["MCPTRIALS_SANDBOX"] = task.now, str(root)
    calls: list[dict[str, Any]] = []
    results: Results = []
    texts: list[str] = []
    clients: dict[str, Any] = {}
    async with AsyncExitStack() as stack:
        for step in task.steps:
            server, tool = step.tool.split("__", 1)
            if server not in clients:
                clients[server] = await stack.enter_async_context(Client(_module(server).mcp, cache=None))
            args = step.args(results) if callable(step.args) else step.args
            result = await clients[server].call_tool(tool, args)
            text = "\n".join(getattr(c, "text", "") for c in result.content)
            if result.is_error:
                raise RuntimeError(f"{task.id}: {step.tool}({args}) failed: {text}")
            calls.append({"tool": step.tool, "args": args})
            results.append(_parse(result))
            texts.append(text)
    return calls, results, texts


def build(task: TaskDef) -> dict[str, Any]:
    """Run one task's plan and turn it into a task record."""
    fixtures = task.fixtures() if callable(task.fixtures) else dict(task.fixtures)
    calls, results, texts = asyncio.run(run_plan(task, fixtures))
    checkpoints: list[dict[str, Any]] = []
    order: list[tuple[str, str]] = []
    for i, (step, call) in enumerate(zip(task.steps, calls, strict=True)):
        if not step.checked:
            continue
        cp: dict[str, Any] = {"id": f"c{i + 1}", "kind": "tool_effect", "tools": [step.tool, *step.alt]}
        if step.include:
            cp["must_include"] = {k: call["args"][k] for k in step.include}
        if step.match:
            cp["must_match"] = step.match
        if step.note:
            cp["description"] = step.note
        checkpoints.append(cp)
        order += [(f"c{j + 1}", f"c{i + 1}") for j in step.after]
    for n, value in enumerate(task.values):
        wanted = [str(v) for v in value.pick(results)]
        for needle in wanted:
            if not any(needle.casefold() in t.casefold() for t in texts):
                raise RuntimeError(f"{task.id}: value {needle!r} is not in any result")
        checkpoints.append({"id": f"v{n + 1}", "kind": "value_produced", "source": value.source,
                            "contains": wanted, "mode": value.mode})
    order += task.extra_order
    key_points = task.key_points(results) if callable(task.key_points) else list(task.key_points)
    servers_used = sorted({c["tool"].split("__")[0] for c in calls})
    return {
        "id": task.id,
        "prompt": task.prompt,
        "concrete_prompt": task.concrete,
        "servers": task.servers,
        "category": task.category,
        "now": task.now,
        "fixtures": {"files": fixtures},
        "spec": {
            "checkpoints": checkpoints,
            "minefields": task.minefields,
            "partial_order": [list(p) for p in order],
            "complexity": {"chain_depth": len(calls), "cross_server": len(servers_used) > 1,
                           "branching": max(0, len(calls) - 1 - len(order))},
        },
        "reference": calls,
        "key_points": [str(k) for k in key_points],
        "provenance": {"source": "build_travel_knowledge.py", "servers_used": servers_used},
    }


def main() -> None:
    records, failures = [], []
    for t in task_defs():
        try:
            records.append(build(t))
        except Exception as exc:  # report every broken task at once
            failures.append(f"{t.id}: {type(exc).__name__}: {exc}")
    if failures:
        raise SystemExit("\n".join(["reference plans failed:", *failures]))
    ids = [r["id"] for r in records]
    if len(set(ids)) != len(ids):
        raise SystemExit("duplicate task ids")
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=False) + "\n" for r in records),
                   encoding="utf-8")
    print(f"wrote {len(records)} tasks to {OUT}")


if __name__ == "__main__":
    main()
