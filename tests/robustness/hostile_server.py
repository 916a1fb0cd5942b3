"""An MCP server that misbehaves the ways the fault suite checks (run as a script or with ``-m``).

Environment switches:
- ``HOSTILE_CHILDREN=1``: at start, spawn a child in its process group and a daemon that leaves the group
  (``setsid``), both sleeping for ten minutes;
- ``HOSTILE_STUBBORN=1``: ignore SIGTERM and do not exit when stdin closes (a non-daemon thread sleeps on);
- ``HOSTILE_PIDFILE=PATH``: append the pids of the server and everything it started, one per line;
- ``HOSTILE_FAIL_START=1``: print the command line and ``HOSTILE_*`` environment to stderr and exit 3;
- ``HOSTILE_WHEREFILE=PATH``: write ``{"cwd": ..., "executable": ...}`` there at start;
- ``HOSTILE_REQUIRE_AUTH=VALUE`` (with ``--http``): answer 401 to requests without ``Authorization: VALUE``.

``--http PORT`` serves over streamable HTTP instead of stdio.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

from mcp.server import MCPServer

mcp = MCPServer("hostile", log_level="WARNING")
_started: list[int] = []


def _note(*pids: int) -> None:
    path = os.environ.get("HOSTILE_PIDFILE")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("".join(f"{p}\n" for p in pids))


@mcp.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@mcp.tool()
def big(megabytes: float = 1.0) -> dict[str, Any]:
    """Return a huge text and a huge structured result."""
    size = int(megabytes * 1_000_000)
    return {"blob": "y" * size, "n": size}


@mcp.tool()
def reveal() -> str:
    """Echo the server's own command line and environment (a leak the runner must scrub)."""
    env = {k: v for k, v in os.environ.items() if k.startswith("HOSTILE_")}
    return f"argv={sys.argv!r} env={env!r}"


@mcp.tool()
def pids() -> dict[str, Any]:
    """The server's pid, process group and the pids it started."""
    return {"pid": os.getpid(), "pgid": os.getpgrp(), "started": _started}


@mcp.tool()
def nap(seconds: float = 30.0) -> str:
    """Sleep (in a worker thread) and answer."""
    time.sleep(seconds)
    return "rested"


def _start_children() -> None:
    child = subprocess.Popen(["sleep", "600"])
    daemon = subprocess.Popen(["sh", "-c", "sleep 601 & echo $!"], stdout=subprocess.PIPE, text=True,
                              start_new_session=True)
    grandchild = int((daemon.stdout.readline() if daemon.stdout else "0").strip() or 0)
    daemon.wait()
    _started.extend([child.pid, grandchild])
    _note(child.pid, grandchild)


def _guarded_app() -> Any:
    """The streamable-HTTP app; with ``HOSTILE_REQUIRE_AUTH``, requests without that Authorization get a 401."""
    from starlette.responses import PlainTextResponse

    app = mcp.streamable_http_app()
    required = os.environ.get("HOSTILE_REQUIRE_AUTH")

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or [])
        if required and scope["type"] == "http" and headers.get(b"authorization", b"").decode() != required:
            await PlainTextResponse("unauthorized", status_code=401)(scope, receive, send)
            return
        await app(scope, receive, send)

    return wrapped


def main() -> None:
    _note(os.getpid())
    if os.environ.get("HOSTILE_FAIL_START") == "1":
        print(f"refusing to start: {reveal()}", file=sys.stderr, flush=True)
        sys.exit(3)
    if os.environ.get("HOSTILE_WHEREFILE"):
        with open(os.environ["HOSTILE_WHEREFILE"], "w", encoding="utf-8") as handle:
            json.dump({"cwd": os.getcwd(), "executable": sys.executable}, handle)
    if os.environ.get("HOSTILE_CHILDREN") == "1":
        _start_children()
    if os.environ.get("HOSTILE_STUBBORN") == "1":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        threading.Thread(target=time.sleep, args=(3600,), daemon=False).start()
    if "--http" in sys.argv:
        import uvicorn

        port = int(sys.argv[sys.argv.index("--http") + 1])
        uvicorn.run(_guarded_app(), host="127.0.0.1", port=port, log_level="warning")
    else:
        mcp.run()


if __name__ == "__main__":
    main()
