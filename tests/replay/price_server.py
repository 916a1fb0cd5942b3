"""A small live-data MCP server for refresh tests: prices read from the JSON file ``PRICE_FILE`` names."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("prices")


@server.tool()
def get_price(symbol: str) -> dict[str, Any]:
    """The latest price of a stock symbol."""
    prices = json.loads(Path(os.environ["PRICE_FILE"]).read_text())
    if symbol not in prices:
        raise ToolError(f"unknown symbol {symbol!r}")
    return {"symbol": symbol, "price": prices[symbol], "currency": "USD"}


if __name__ == "__main__":
    server.run()
