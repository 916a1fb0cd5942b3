"""Stand-in process for one forked server (stdlib only, run with ``python -S``).

The MCP client spawns this script as if it were the server. It hands its own stdin, stdout and
stderr to the fork server, which forks a warm child that serves MCP on them, then it mirrors
the child's life: it exits with the child's status, and a SIGTERM to it is passed on.

Usage: python -S _forkserver_launch.py SOCKET_PATH MODULE [ARGS...]
"""

import contextlib
import json
import os
import signal
import socket
import sys


def main() -> int:
    sock_path, module, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(sock_path)
    except OSError as exc:
        print(f"mcptrials fork server unreachable at {sock_path}: {exc}", file=sys.stderr)
        return 70
    request = json.dumps({"module": module, "args": args, "env": dict(os.environ), "cwd": os.getcwd()})
    socket.send_fds(conn, [request.encode() + b"\n"], [0, 1, 2])
    reader = conn.makefile("r")
    reply = json.loads(reader.readline() or "{}")
    child = reply.get("pid")
    if not child:
        print(f"mcptrials fork server refused the launch: {reply.get('error', 'no reply')}", file=sys.stderr)
        return 71

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child, signum)  # the server's group: it and what it started

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    # our copies of the pipes are no longer needed: the child owns them now
    for fd in (0, 1):
        os.close(fd)
    line = reader.readline()
    status = json.loads(line).get("status", 1) if line else 1
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
