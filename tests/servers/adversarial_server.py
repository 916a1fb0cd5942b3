"""An MCP server that misbehaves the ways third-party ones do (run as a script; see test_adversarial.py).

``--state PATH`` keeps notes in that file; ``--state default`` keeps them in ``notes.json`` next to this
script (as servers with a built-in data file do); without ``--state`` they live in memory only.
"""

from __future__ import annotations

import base64
import email.utils
import json
import secrets
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import ImageContent, SamplingMessage, TextContent
from pydantic import BaseModel

mcp = MCPServer("adversarial", log_level="WARNING")
_memory: list[str] = []
_state_arg = sys.argv[sys.argv.index("--state") + 1] if "--state" in sys.argv else None
STATE = None if _state_arg is None else (Path(__file__).parent / "notes.json" if _state_arg == "default"
                                         else Path(_state_arg))


def _notes() -> list[str]:
    if STATE is None:
        return _memory
    return json.loads(STATE.read_text()) if STATE.exists() else []


@mcp.tool()
def add_note(text: str) -> str:
    """Add a note unless it is already there; say whether it was new."""
    notes = _notes()
    new = text not in notes
    if new:
        notes.append(text)
    if STATE is not None:
        STATE.write_text(json.dumps(notes))
    return "added" if new else "kept"


@mcp.tool()
def stamp() -> str:
    """Values that differ on every call, in the forms servers write them."""
    now = datetime.now(UTC)
    return json.dumps({"id": str(uuid.uuid4()), "at": now.isoformat(), "epoch": time.time(),
                       "epoch_ms": int(time.time() * 1000), "etag": secrets.token_hex(20),
                       "http_date": email.utils.formatdate(usegmt=True), "clock": now.strftime("%H:%M:%S"),
                       "took": f"{time.perf_counter() % 1:.4f}s"})


@mcp.tool()
async def forever(ctx: Context) -> str:
    """Report progress every 0.2 s and never finish."""
    step = 0
    while True:
        step += 1
        await ctx.report_progress(step, None, f"step {step}")
        await anyio.sleep(0.2)


@mcp.tool()
async def spam_progress(count: int, ctx: Context) -> str:
    """Send ``count`` progress notifications as fast as possible, then finish."""
    for step in range(count):
        await ctx.report_progress(step + 1, count)
    return f"sent {count}"


@mcp.tool()
async def sample_loop(count: int, ctx: Context) -> str:
    """Ask the client's model ``count`` times; say how many answers and refusals came back."""
    answered = refused = 0
    for _ in range(count):
        try:
            await ctx.session.create_message(
                [SamplingMessage(role="user", content=TextContent(type="text", text="Say hi."))], max_tokens=5,
                related_request_id=ctx.request_id)
            answered += 1
        except Exception as exc:
            print(f"sampling failed: {exc!r}", file=sys.stderr)  # the test reads the server's stderr on failure
            refused += 1
    return f"answered {answered}, refused {refused}"


class Name(BaseModel):
    name: str


@mcp.tool()
async def ask_name(ctx: Context) -> str:
    """Ask the user for a name (elicitation) and say what came back."""
    result = await ctx.elicit("Which name should the account use?", Name)
    return f"{result.action}: {getattr(result, 'data', None)}"


@mcp.tool()
def big_image(size: int) -> list[ImageContent]:
    """A PNG-typed image of ``size`` bytes."""
    data = b"\x89PNG\r\n\x1a\n" + b"\0" * max(0, size - 8)
    return [ImageContent(type="image", data=base64.b64encode(data).decode(), mime_type="image/png")]


@mcp.tool()
def now() -> str:
    """The wall clock, as this process sees it."""
    return datetime.now(UTC).isoformat()


@mcp.tool()
def nap() -> str:
    """Sleep a moment the blocking way (time.sleep), then read the wall clock."""
    time.sleep(0.05)
    return datetime.now(UTC).isoformat()


if __name__ == "__main__":
    mcp.run()
