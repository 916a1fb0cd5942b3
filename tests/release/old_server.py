"""Release 1.0 of a tiny weather server (the old release of the release-check tests)."""

from __future__ import annotations

from mcp.server import MCPServer

server = MCPServer("weather", version="1.0")
TEMPERATURES = {"Paris": 18, "Rome": 24, "Oslo": 7}


@server.tool()
def get_weather(city: str, units: str = "c") -> str:
    """Today's temperature in a city."""
    value = TEMPERATURES[city]
    return f"{city}: {value if units == 'c' else value * 9 // 5 + 32} {units.upper()}"


@server.tool()
def list_cities() -> str:
    """Every city the server knows."""
    return ", ".join(sorted(TEMPERATURES))


@server.tool()
def forecast(city: str) -> str:
    """Tomorrow's weather in a city."""
    return f"{city}: sunny tomorrow"


if __name__ == "__main__":
    server.run()
