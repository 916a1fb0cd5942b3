"""Keeper of one stdio server's processes (stdlib only, run with ``python -S``): nothing outlives its episode.

The MCP client spawns this script in a new session (process group) in place of the server. It starts the
server as its child in that group, becomes the subreaper of everything the server spawns, and when the
server exits, the client stops it (SIGTERM), or the runner dies (even by SIGKILL: a parent-death signal
plus a check of the parent pid twice a second), it kills every process left in the group and every
descendant that escaped it, then exits with the server's status.

Usage: python -S _server_guard.py COMMAND [ARGS...]
"""

import contextlib
import ctypes
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
STOP_GRACE_S = 1.0
"""How long a server may take to exit once the client has asked it to stop (SIGTERM)."""
POLL_S = 0.5
_WATCHED = {signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGHUP}


def _prctl(option: int, value: int) -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def _table() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, process group) of every process, read from /proc."""
    table: dict[int, tuple[int, int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        table[int(entry)] = (int(fields[1]), int(fields[2]))
    return table


def _leftovers(me: int, group: int) -> set[int]:
    """Every process in ``group`` and every descendant of ``me``, except ``me``."""
    table = _table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found = {pid for pid, (_, pgid) in table.items() if pgid == group}
    frontier, seen = [me], {me}
    while frontier:
        for child in children.get(frontier.pop(), []):
            if child not in seen:
                seen.add(child)
                found.add(child)
                frontier.append(child)
    found.discard(me)
    return found


def _reap() -> list[tuple[int, int]]:
    done: list[tuple[int, int]] = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return done
        if pid == 0:
            return done
        done.append((pid, status))


def _sweep() -> None:
    """SIGKILL everything left in our group and below us, until nothing is (bounded)."""
    me, group = os.getpid(), os.getpgrp()
    for _ in range(100):
        victims = _leftovers(me, group)
        if not victims:
            return
        for pid in victims:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        # a pause that is not time.sleep: under libfaketime 0.9.10 (a frozen clock) its clock_nanosleep fails
        signal.sigtimedwait(_WATCHED, 0.01)
        _reap()


def _spawn(argv: list[str]) -> int:
    pid = os.fork()
    if pid == 0:
        for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            print(f"mcptrials: cannot start {argv[0]!r}: {exc.strerror}", file=sys.stderr, flush=True)
        os._exit(127)
    return pid


def arm() -> int:
    """Prepare this process to guard a server it is about to fork: returns the parent pid to watch.

    Signals are blocked (they are taken with ``sigtimedwait``; the server must unblock them after the fork).
    """
    parent = os.getppid()
    signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)
    _prctl(PR_SET_PDEATHSIG, signal.SIGHUP)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    return parent


def release_stdio() -> None:
    """Drop our copies of stdin/stdout: the server owns the pipes, so its exit must close them."""
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)


def supervise(server: int, parent: int) -> int:
    """Wait for ``server`` to exit, for a stop request (then give it ``STOP_GRACE_S``), or for ``parent`` to
    die; then kill everything left and return the server's exit status (137 when it had to be killed)."""
    status: int | None = None
    stop_at: float | None = None
    while status is None:
        info = signal.sigtimedwait(_WATCHED, POLL_S)
        for pid, raw in _reap():
            if pid == server:
                status = os.waitstatus_to_exitcode(raw)
        if status is not None or os.getppid() != parent:
            break  # the server is done, or the runner is gone: no grace either way
        # SIGHUP is only the parent-death probe: it also fires when the thread that spawned us ends
        if info is not None and info.si_signo in (signal.SIGTERM, signal.SIGINT) and stop_at is None:
            stop_at = time.monotonic() + STOP_GRACE_S  # asked to stop: the group got the signal too
            with contextlib.suppress(ProcessLookupError):
                os.kill(server, signal.SIGTERM)
        if stop_at is not None and time.monotonic() >= stop_at:
            break
    _sweep()
    if status is None:
        return 128 + signal.SIGKILL
    return status if status >= 0 else 128 - status


def main() -> int:
    argv = sys.argv[1:]
    if not argv:
        print("usage: _server_guard.py COMMAND [ARGS...]", file=sys.stderr)
        return 2
    if os.getpgrp() != os.getpid():
        # not started as a group leader: the final sweep kills our whole group, which would be the caller's
        os.setpgid(0, 0)
    parent = arm()
    if os.getppid() != parent:  # the runner died before we armed the signal
        return 1
    server = _spawn(argv)
    release_stdio()
    return supervise(server, parent)


if __name__ == "__main__":
    sys.exit(main())
