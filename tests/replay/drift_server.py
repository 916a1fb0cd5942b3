"""A server that drifts between refreshes: ``DRIFT_FILE`` (JSON) sets its release and its prices.

Releases: ``base``; ``removed`` (get_item gone); ``renamed`` (get_item's parameter renamed);
``required`` (get_item needs a new parameter); ``down`` (exits at start).
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

WORLD = json.loads(Path(os.environ["DRIFT_FILE"]).read_text())
RELEASE = WORLD.get("release", "base")
if RELEASE == "down":
    raise SystemExit("drift server: this release does not start")

server = MCPServer("drift")


def _item(item_id: str) -> dict[str, Any]:
    prices = json.loads(Path(os.environ["DRIFT_FILE"]).read_text())["prices"]
    if item_id not in prices:
        raise ToolError(f"no item {item_id!r}")
    return {"id": item_id, "price": prices[item_id], "currency": "USD"}


if RELEASE in {"base", "removed"}:
    if RELEASE == "base":

        @server.tool()
        def get_item(item_id: str) -> dict[str, Any]:
            """One catalogue item with its current price."""
            return _item(item_id)
elif RELEASE == "renamed":

    @server.tool()
    def get_item(sku: str) -> dict[str, Any]:  # type: ignore[misc]
        """One catalogue item with its current price."""
        return _item(sku)
else:

    @server.tool()
    def get_item(item_id: str, region: str) -> dict[str, Any]:  # type: ignore[misc]
        """One catalogue item with its current price in a region."""
        return {**_item(item_id), "region": region}


@server.tool()
def stamp() -> str:
    """The server's clock, to the microsecond."""
    return f"server time {datetime.now(UTC).isoformat()}"


@server.tool()
def list_items(limit: int = 10) -> list[str]:
    """Item ids in the catalogue."""
    return sorted(json.loads(Path(os.environ["DRIFT_FILE"]).read_text())["prices"])[:limit]


if __name__ == "__main__":
    server.run()
