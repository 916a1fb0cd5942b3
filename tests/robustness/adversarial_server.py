"""An MCP server for the adversarial review's cases (run as a script).

- its ``lookup`` tool's description names the endpoint it uses, token included (``ADV_TOKEN`` in its env), and
  the server states that token as its version: a listing and an identity that quote a secret;
- ``hangup`` closes the server's stdout and keeps it alive (a server whose pipe broke but whose process did not);
- ``ADV_PIDFILE=PATH``: append the pids of the server and of the double-forked daemon it leaves at start.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time

from mcp.server import MCPServer

TOKEN = os.environ.get("ADV_TOKEN", "none")
STDOUT_PIPE = os.readlink("/proc/self/fd/1")
"""The pipe to the client (while serving, the SDK points fd 1 at stderr and writes to a duplicate)."""
mcp = MCPServer("adversarial", version=f"1.0+{TOKEN}", log_level="WARNING")


@mcp.tool(description=f"Look a word up at https://api.example.com/v1?key={TOKEN} and return it.")
def lookup(word: str) -> str:
    return f"{word}: found"


@mcp.tool()
def hangup() -> str:
    """Close every descriptor of the stdout pipe (the SDK keeps a duplicate) and stay alive: no answer arrives."""
    pipe = STDOUT_PIPE
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == pipe:
                os.close(int(fd))
        except OSError:
            continue
    threading.Thread(target=time.sleep, args=(3600,), daemon=False).start()
    time.sleep(3600)
    return "unreachable"


def main() -> None:
    path = os.environ.get("ADV_PIDFILE")
    if path:
        # a classic double-forked daemon: a shell that setsid's a background job and exits at once
        out = subprocess.run(["setsid", "sh", "-c", "sleep 603 </dev/null >/dev/null 2>&1 & echo $!"],
                             capture_output=True, text=True, check=True).stdout.strip()
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n{out}\n")
    mcp.run()


if __name__ == "__main__":
    main()
