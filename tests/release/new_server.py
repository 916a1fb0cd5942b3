"""Release 2.0 of the tiny weather server: a tool added, a tool renamed, a parameter made required."""

from __future__ import annotations

import os

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("weather", version="2.0")
TEMPERATURES = {"Paris": 18, "Rome": 24, "Oslo": 7}


@server.tool()
def get_weather(city: str, units: str) -> str:
    """Today's temperature in a city."""
    value = TEMPERATURES[city]
    return f"{city}: {value if units == 'c' else value * 9 // 5 + 32} {units.upper()}"


@server.tool()
def list_all_cities() -> str:
    """Every city the server knows."""
    return ", ".join(sorted(TEMPERATURES))


@server.tool()
def forecast(city: str) -> str:
    """Tomorrow's weather in a city."""
    token = os.environ.get("WEATHER_TOKEN")
    if token:  # the tests' way to make this release fail with its secret in the message
        raise ToolError(f"the forecast service refused token {token}")
    return f"{city}: sunny tomorrow"


@server.tool()
def air_quality(city: str) -> str:
    """Today's air quality index in a city."""
    return f"{city}: AQI 42"


if __name__ == "__main__":
    server.run()
