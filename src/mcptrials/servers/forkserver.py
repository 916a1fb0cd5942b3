"""A warm fork server for Python MCP servers: pay the SDK import once, not once per episode.

Importing the ``mcp`` SDK costs about a second of CPU; a 5-server episode on two cores would
spend most of its start-up there. The fork server imports the SDK once, then forks a fresh
child per launch. Each child is its own process with its own stdio, environment and working
directory, so episodes stay isolated exactly as with a cold start.

The MCP client spawns ``_forkserver_launch.py`` (stdlib only, starts in milliseconds), which
passes its stdio file descriptors over a Unix socket; see that file for its side.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import runpy
import select
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import SupportsIndex

from mcptrials.safety.tempdirs import temp_prefix
from mcptrials.servers import _server_guard

LAUNCHER = Path(__file__).with_name("_forkserver_launch.py")
SCRIPT_PREFIX = "path:"
"""A launch target naming a Python script file rather than a module."""
STARTUP_VARIABLES_OK = {"PYTHONPATH", "PYTHONUNBUFFERED", "PYTHONIOENCODING"}
"""``PYTHON*`` variables a forked child can honour; any other acts at interpreter start-up only."""
PRELOAD = ("mcp.server", "mcp.server.mcpserver", "mcp.server.mcpserver.exceptions", "pydantic", "anyio",
           "mcptrials.bundled.servers._runtime", "mcptrials.evolve.proxy")


# --------------------------------------------------------------------------- the server process


def _run_child(request: dict[str, object], fds: list[int], inherited: list[int]) -> None:
    """In the forked child: drop the fork server's descriptors, take over the launcher's stdio, run.

    The child guards the server (``_server_guard.supervise``): it forks the server itself and, when the
    server exits, the launcher asks it to stop, or the fork server dies, it kills the server's whole group
    and every process the server started, even daemons that left the group.
    """
    signal.set_wakeup_fd(-1)
    os.setpgid(0, 0)  # its own group: the server and whatever it starts
    parent = _server_guard.arm()
    for fd in inherited:
        with contextlib.suppress(OSError):
            os.close(fd)
    for target, fd in zip((0, 1, 2), fds, strict=True):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(str(request["cwd"]))
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in dict(request["env"]).items()})  # type: ignore[call-overload]
    server = os.fork()
    if server != 0:
        _server_guard.release_stdio()
        os._exit(_server_guard.supervise(server, parent))
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    _die_with_parent()
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - the server owns it until exit
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    launch = str(request["module"])
    script = launch.removeprefix(SCRIPT_PREFIX) if launch.startswith(SCRIPT_PREFIX) else None
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    # sys.path[0] is where `python -m` (the working directory) or `python script` (its folder) looks first
    sys.path[:1] = [os.path.dirname(script) if script is not None else os.getcwd(), *extra]
    sys.argv = [script or launch, *[str(a) for a in request.get("args", [])]]  # type: ignore[attr-defined]
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    code = 0
    try:
        if script is not None:
            runpy.run_path(script, run_name="__main__")
        else:
            runpy.run_module(launch, run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _die_with_parent() -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux; elsewhere a no-op)."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG


def _kill_group(pid: int) -> None:
    """SIGKILL a forked server's whole process group (it and whatever it started)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _stop(guard: int) -> None:
    """Ask a forked server's guard to stop it; the guard kills the group and any escaped daemon."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(guard, signal.SIGTERM)


def serve(sock_path: str) -> None:
    """Preload the SDK, then fork a child per launch request until stdin closes.

    A child whose launcher goes away (the client killed it, or the client died) has its whole group killed,
    so a server that ignores SIGTERM cannot outlive its episode; when stdin closes, every child's group is.
    """
    import importlib

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's to handle; it closes our stdin
    if os.environ.get("FAKETIME"):  # a clock template: its children inherit a time.sleep that works under it
        time.sleep = _sleep_without_clock_nanosleep
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(sock_path)
    except OSError as exc:
        print(f"cannot bind {sock_path!r} ({len(sock_path)} chars): {exc}", flush=True)
        return
    try:
        for name in PRELOAD:
            importlib.import_module(name)
        _serve(listener)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(sock_path)


def _sleep_without_clock_nanosleep(seconds: float | SupportsIndex) -> None:
    """``time.sleep`` for processes under libfaketime, whose ``clock_nanosleep`` wrapper (0.9.10, Debian 12)
    fails with EINVAL when the monotonic clock is left real, as a frozen clock leaves it."""
    length = float(seconds)
    if length < 0:
        raise ValueError("sleep length must be non-negative")
    deadline = time.monotonic() + length
    while (left := deadline - time.monotonic()) > 0:
        select.select([], [], [], left)


def _serve(listener: socket.socket) -> None:
    listener.listen(64)
    waker_r, waker_w = os.pipe()
    os.set_blocking(waker_w, False)
    signal.set_wakeup_fd(waker_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children: dict[int, socket.socket] = {}
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(sys.stdin, selectors.EVENT_READ, "parent")
    selector.register(waker_r, selectors.EVENT_READ, "signal")
    print("ready", flush=True)
    while True:
        for key, _ in selector.select():
            if key.data == "parent":
                if not sys.stdin.readline():
                    for pid in children:
                        _stop(pid)  # and each guard also sees us gone
                    return
            elif key.data == "signal":
                os.read(waker_r, 512)
                _reap(children, selector)
            elif isinstance(key.data, int):  # a launcher's socket: readable only when it closes
                pid = key.data
                with contextlib.suppress(OSError):
                    if key.fileobj.recv(64):  # type: ignore[union-attr]
                        continue
                _stop(pid)  # the launcher is gone (killed or exited): nothing of its server may stay
                with contextlib.suppress(KeyError, ValueError):
                    selector.unregister(key.fileobj)
            else:
                conn, _ = listener.accept()
                inherited = [listener.fileno(), waker_r, waker_w, selector.fileno() if hasattr(selector, "fileno")
                             else -1, *(c.fileno() for c in children.values())]
                launched = _launch(conn, children, [fd for fd in inherited if fd >= 0])
                if launched is not None:
                    selector.register(conn, selectors.EVENT_READ, launched)


def _launch(conn: socket.socket, children: dict[int, socket.socket], inherited: list[int]) -> int | None:
    try:
        data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 20, 3)
        request = json.loads(data.decode())
        if len(fds) != 3:
            raise ValueError(f"expected 3 file descriptors, got {len(fds)}")
    except (OSError, ValueError) as exc:
        conn.sendall(json.dumps({"error": str(exc)}).encode() + b"\n")
        conn.close()
        return None
    pid = os.fork()
    if pid == 0:  # the child never returns into the fork server's loop (whose exit removes the socket)
        try:
            conn.close()
            _run_child(request, fds, inherited)
        except BaseException as exc:  # e.g. the working directory is gone: the server's stderr says so
            with contextlib.suppress(OSError):
                os.write(2, f"mcptrials fork server: cannot start {request.get('module')}: {exc!r}\n".encode())
        finally:
            os._exit(1)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # also here: no window in which a kill of the group misses the child
    for fd in fds:
        os.close(fd)
    children[pid] = conn
    conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    return pid


def _reap(children: dict[int, socket.socket], selector: selectors.BaseSelector) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _kill_group(pid)  # whatever the server started goes with it
        conn = children.pop(pid, None)
        if conn is not None:
            with contextlib.suppress(KeyError, ValueError):
                selector.unregister(conn)
            with contextlib.suppress(OSError):
                conn.sendall(json.dumps({"status": os.waitstatus_to_exitcode(status) & 0xFF}).encode() + b"\n")
            conn.close()


# --------------------------------------------------------------------------- the client side


class ForkServer:
    """Handle on a running fork server, started on first use and stopped at exit."""

    def __init__(self, environment: Mapping[str, str] | None = None) -> None:
        """Start one; ``environment`` is added to its own (e.g. a preloaded frozen clock its children keep)."""
        self._dir = tempfile.mkdtemp(prefix=temp_prefix("fork"))
        self.socket_path = os.path.join(self._dir, "fork.sock")
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "mcptrials.servers.forkserver", self.socket_path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ, **(environment or {})},
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline().strip()
        if line != "ready":
            self._proc.wait(5)
            self._remove_dir()
            raise RuntimeError(f"fork server did not start: {line or 'no answer'} (exit {self._proc.poll()})")
        atexit.register(self.close)

    @property
    def alive(self) -> bool:
        """Whether it can still launch: its process runs and its socket is where launchers look."""
        return self._proc.poll() is None and os.path.exists(self.socket_path)

    def command(self, module: str, args: list[str]) -> tuple[str, list[str]]:
        """The (command, args) a stdio client spawns to get a forked server running ``module``."""
        return sys.executable, ["-S", str(LAUNCHER), self.socket_path, module, *args]

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.close()
                self._proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
        self._remove_dir()

    def _remove_dir(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.socket_path)
        with contextlib.suppress(OSError):
            os.rmdir(self._dir)


_instances: dict[frozenset[tuple[str, str]], ForkServer] = {}
_lock = threading.Lock()
MAX_CLOCK_TEMPLATES = 3
"""Most fork servers kept under a frozen clock (each holds about one SDK import in memory)."""
_unavailable: str | None = None
"""Why the fork server could not start in this process (then every server is cold-started)."""


def enabled() -> bool:
    """Fork servers are used unless ``MCPTRIALS_FORKSERVER=0`` (or the platform lacks fork)."""
    return os.environ.get("MCPTRIALS_FORKSERVER", "1") != "0" and hasattr(os, "fork") and hasattr(socket, "send_fds")


def shared(environment: Mapping[str, str] | None = None) -> ForkServer | None:
    """The process-wide fork server for ``environment`` (see ``ForkServer``), started on first call
    (about one SDK import).

    None when it cannot start (e.g. its socket path is too long for the platform): servers are then
    cold-started, with one warning line on stderr for the process. Also None for a new frozen clock once
    ``MAX_CLOCK_TEMPLATES`` exist (a run whose tasks each set another ``now`` starts those servers cold).
    """
    global _unavailable
    key = frozenset((environment or {}).items())
    with _lock:
        if _unavailable is not None:
            return None
        instance = _instances.get(key)
        if instance is None and key and sum(1 for k in _instances if k) >= MAX_CLOCK_TEMPLATES:
            return None  # one more template would cost more than the cold starts it saves
        if instance is None or not instance.alive:  # one whose socket is gone keeps its running children till exit
            try:
                instance = _instances[key] = ForkServer(environment)
            except (OSError, RuntimeError) as exc:
                _unavailable = str(exc)
                print(f"warning: fork server unavailable ({exc}); starting servers cold", file=sys.stderr)
                return None
        return instance


def _shadows_loaded(pythonpath: str) -> bool:
    """Whether a ``PYTHONPATH`` folder holds its own copy of a package already imported here (``pip install
    --target`` of an old release with its own ``mcp``): a forked child would keep the template's copy."""
    loaded = {name for name, module in list(sys.modules.items())  # installed packages, not a test's own modules
              if "." not in name and "-packages" in (getattr(module, "__file__", None) or "")}
    for folder in (p for p in pythonpath.split(os.pathsep) if p):
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        if any(entry.removesuffix(".py") in loaded for entry in entries if not entry.startswith(("_", "."))):
            return True
    return False


def python_target(command: str, args: list[str], env: Mapping[str, str]) -> tuple[str, list[str]] | None:
    """What a fork server of this interpreter can run for a third-party stdio command, else None.

    ``python -m module ...`` and ``python script.py ...`` with this interpreter, or a console script
    (``mcp-server-time``) whose ``#!`` line is exactly this environment's Python: the target (a module,
    or ``SCRIPT_PREFIX`` + the script's path) and its arguments. Not when the environment sets a
    ``PYTHON*`` variable that only acts when an interpreter starts, its own ``LD_PRELOAD``, or a ``PYTHONPATH``
    with its own copy of a package this process already imported.
    """
    if any(k.startswith("PYTHON") and k not in STARTUP_VARIABLES_OK for k in env) or "LD_PRELOAD" in env:
        return None
    if _shadows_loaded(env.get("PYTHONPATH", "")):
        return None
    if command == sys.executable:
        if args[:1] == ["-m"] and len(args) >= 2:
            return args[1], list(args[2:])
        if args and args[0].endswith(".py") and os.path.isfile(args[0]):
            return SCRIPT_PREFIX + os.path.abspath(args[0]), list(args[1:])
        return None
    found = shutil.which(command, path=env.get("PATH", os.environ.get("PATH", os.defpath)))
    if found is None:
        return None
    try:
        with open(found, "rb") as handle:
            first = handle.readline(512)
    except OSError:
        return None
    interpreter = first[2:].decode(errors="replace").strip() if first.startswith(b"#!") else ""
    here = os.path.dirname(sys.executable)
    if not interpreter or " " in interpreter or os.path.dirname(interpreter) != here \
            or not os.path.basename(interpreter).startswith("python"):
        return None
    return SCRIPT_PREFIX + found, list(args)


if __name__ == "__main__":
    serve(sys.argv[1])
