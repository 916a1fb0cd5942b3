"""Example MCP server: a tiny deterministic rail timetable."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import rng, serve

mcp = MCPServer("rail", log_level="WARNING")

STATIONS = {"Beijing": ["BJP", "VNP"], "Shanghai": ["SHH", "AOH"], "Nanjing": ["NJH"]}
TRAINS = [
    {"train": "G1", "from": "VNP", "to": "AOH", "departs": "07:00", "arrives": "11:29", "type": "G"},
    {"train": "G7", "from": "VNP", "to": "SHH", "departs": "09:00", "arrives": "13:38", "type": "G"},
    {"train": "D311", "from": "BJP", "to": "SHH", "departs": "19:36", "arrives": "07:17", "type": "D"},
    {"train": "G101", "from": "VNP", "to": "NJH", "departs": "06:20", "arrives": "10:05", "type": "G"},
    {"train": "K1151", "from": "BJP", "to": "NJH", "departs": "12:10", "arrives": "05:33", "type": "K"},
]


@mcp.tool()
def get_station_codes(city: str) -> list[str]:
    """Return the station codes of a city."""
    codes = STATIONS.get(city.strip().title())
    if codes is None:
        raise ToolError(f"unknown city {city!r}; known cities: {', '.join(STATIONS)}")
    return codes


@mcp.tool()
def get_tickets(
    from_station: str,
    to_station: str,
    date: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="travel date, YYYY-MM-DD")],
    train_type: Literal["G", "D", "K", "any"] = "any",
    limit: Annotated[int, Field(ge=1, le=20)] = 10,
) -> list[dict[str, object]]:
    """List trains with seats between two stations on a date."""
    from_city = next((c for c, codes in STATIONS.items() if from_station in codes), None)
    to_city = next((c for c, codes in STATIONS.items() if to_station in codes), None)
    if from_city is None or to_city is None:
        raise ToolError("unknown station code; look codes up with get_station_codes first")
    found = []
    for t in TRAINS:
        same_cities = t["from"] in STATIONS[from_city] and t["to"] in STATIONS[to_city]
        if same_cities and train_type in ("any", t["type"]):
            seats = rng(t["train"], date).randint(0, 120)
            found.append({**t, "date": date, "seats_left": seats})
    return found[:limit]


if __name__ == "__main__":
    serve(mcp)
