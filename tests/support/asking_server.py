"""An MCP server whose one tool asks the client for everything it can: its roots, a sampled reply and an
answer to an elicitation (run as a script)."""

from __future__ import annotations

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import SamplingMessage, TextContent
from pydantic import BaseModel

mcp = MCPServer("asking", log_level="WARNING")


class City(BaseModel):
    city: str


@mcp.tool()
async def plan_trip(ctx: Context) -> str:
    """Plan a trip: look at the client's roots, ask its model for a motto and the user for a city."""
    roots = await ctx.session.list_roots()
    reply = await ctx.session.create_message(
        [SamplingMessage(role="user", content=TextContent(type="text", text="A travel motto, please."))],
        max_tokens=20, related_request_id=ctx.request_id)
    answer = await ctx.elicit("Which city should the trip go to?", City)
    motto = reply.content.text if isinstance(reply.content, TextContent) else "?"
    return f"{len(roots.roots)} root(s); motto {motto!r}; city {answer.action}: {getattr(answer, 'data', None)}"


if __name__ == "__main__":
    mcp.run()
