"""An MCP server for the reuse tests (run as a script): it reports its process, clock and counters.

``pid`` and ``now`` tell which process served a call and under which frozen clock;
``seen_at_start`` what the sandbox held when it started; ``note`` writes a file in its working
directory (the "stateless but writes a global file" case); ``die`` ends the process mid-call;
``slow`` holds a call open so concurrent episodes overlap.
"""

from __future__ import annotations

import os
import time

from mcp.server import MCPServer

mcp = MCPServer("reuse-probe", log_level="WARNING")
_STARTED = time.time()
_AT_START = sorted(os.listdir(os.environ.get("MCPTRIALS_SANDBOX") or "."))


@mcp.tool()
def pid() -> str:
    """Return this process's id."""
    return str(os.getpid())


@mcp.tool()
def now() -> str:
    """Return the frozen clock this process was started with."""
    return os.environ.get("MCPTRIALS_NOW", "unset")


@mcp.tool()
def note(text: str) -> str:
    """Append ``text`` to notes.txt in the working directory; return how many notes it holds."""
    with open("notes.txt", "a", encoding="utf-8") as fh:
        fh.write(text + "\n")
    with open("notes.txt", encoding="utf-8") as fh:
        return str(len(fh.readlines()))


@mcp.tool()
def seen_at_start() -> str:
    """Return the files the sandbox held when this process started, and the sandbox path."""
    return f"{','.join(_AT_START)} in {os.environ.get('MCPTRIALS_SANDBOX')} at {_STARTED}"


@mcp.tool()
def die() -> str:
    """End the process without answering."""
    os._exit(1)


@mcp.tool()
def slow(seconds: float) -> str:
    """Sleep, then return this process's id."""
    time.sleep(seconds)
    return str(os.getpid())


if __name__ == "__main__":
    mcp.run()
