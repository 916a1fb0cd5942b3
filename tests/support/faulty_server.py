"""A deliberately misbehaving MCP server for fault tests (run as a script).

``--http PORT`` serves it over streamable HTTP, where a call of ``http_500`` is answered with a
bare HTTP 500 (as a crashing web server or a failing gateway would), never reaching the tool.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

_switch = os.environ.get("FAULTY_FAIL_START_IF_EXISTS")
if os.environ.get("FAULTY_FAIL_START") or (_switch and os.path.exists(_switch)):
    print("refusing to start: missing configuration", file=sys.stderr)
    sys.exit(3)

mcp = MCPServer("faulty", log_level="WARNING")


@mcp.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@mcp.tool()
def fail(reason: str) -> str:
    """Always fail with a tool error."""
    raise ToolError(f"failed on purpose: {reason}")


@mcp.tool()
def crash() -> str:
    """Kill the server process mid-call."""
    os._exit(7)


@mcp.tool()
def hang(seconds: float = 3600) -> str:
    """Block for a long time (in a worker thread: the server keeps answering other requests)."""
    time.sleep(seconds)
    return "woke up"


@mcp.tool()
async def slow(seconds: float = 3600) -> str:
    """Take as long as asked, without blocking the server."""
    await anyio.sleep(seconds)
    return "done"


@mcp.tool()
async def freeze(seconds: float = 3600) -> str:
    """Block the server's event loop: nothing, not even a ping, is answered until it ends."""
    time.sleep(seconds)
    return "thawed"


@mcp.tool()
def http_500() -> str:
    """Over HTTP, answered with an HTTP 500 before the tool runs."""
    return "not reached over HTTP"


@mcp.tool()
def huge(size: int = 1_000_000) -> str:
    """Return a very large result."""
    return "x" * size


@mcp.tool()
def garbage() -> str:
    """Write non-protocol bytes to stdout, then answer."""
    os.write(1, b"this is not JSON-RPC at all\n{broken json\n")
    return "answered after garbage"


def _http_app(port: int) -> Any:
    """The streamable-HTTP app, wrapped so that calls of ``http_500`` get an HTTP 500."""
    from starlette.responses import PlainTextResponse

    app = mcp.streamable_http_app()

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        chunks = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        if isinstance(request, dict) and request.get("method") == "tools/call" \
                and (request.get("params") or {}).get("name") == "http_500":
            await PlainTextResponse("internal server error", status_code=500)(scope, receive, send)
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await app(scope, replay, send)

    return wrapped


if __name__ == "__main__":
    if "--http" in sys.argv:
        import uvicorn

        port = int(sys.argv[sys.argv.index("--http") + 1])
        uvicorn.run(_http_app(port), host="127.0.0.1", port=port, log_level="warning")
    else:
        mcp.run()
