"""Fault-suite helpers: the hostile server's spec, and a census of every process a test's run left behind."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil

from mcptrials.model import ServerSpec

HERE = Path(__file__).parent
HOSTILE = HERE / "hostile_server.py"
MARK_VAR = "MCPTRIALS_FAULT_MARK"


def shared_helpers() -> set[int]:
    """Pids of this test process's own long-lived helpers (its fork servers), which outlive single episodes."""
    from mcptrials.servers import forkserver

    return {server._proc.pid for server in forkserver._instances.values() if server.alive}


def marked(mark: str) -> list[psutil.Process]:
    """Live (non-zombie) processes, other than this one and its fork server, whose environment carries ``mark``."""
    found = []
    skip = shared_helpers()
    needle = f"{MARK_VAR}={mark}".encode()
    for proc in psutil.process_iter(["pid", "status"]):
        if proc.pid == os.getpid() or proc.pid in skip or proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        try:
            with open(f"/proc/{proc.pid}/environ", "rb") as handle:
                if needle in handle.read().split(b"\0"):
                    found.append(proc)
        except OSError:
            continue
    return found


def alive(pids: list[int]) -> list[int]:
    """Those of ``pids`` still running (zombies count as gone)."""
    out = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                out.append(pid)
        except psutil.NoSuchProcess:
            pass
    return out


def wait_gone(mark: str, timeout: float = 8.0) -> list[psutil.Process]:
    """Wait until no marked process is left; return those still there at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        left = marked(mark)
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.05)


def describe(procs: list[psutil.Process]) -> str:
    lines = []
    for p in procs:
        try:
            lines.append(f"{p.pid} {' '.join(p.cmdline())[:150]}")
        except psutil.Error:
            lines.append(f"{p.pid} (gone)")
    return "\n".join(lines)


def hostile_spec(name: str = "hostile", *, forked: bool = False, **env: str) -> ServerSpec:
    """The hostile server, through the fork server (``-m``) or cold-started as servers in other languages are
    (launched by a shell, so nothing marks it as this interpreter's to fork)."""
    mark_env = {MARK_VAR: os.environ.get(MARK_VAR, "")}
    if forked:
        return ServerSpec(name=name, command=sys.executable, args=["-m", "hostile_server"], tags=["bundled"],
                          env={**mark_env, "PYTHONPATH": str(HERE), **env})
    return ServerSpec(name=name, command="/bin/sh", args=["-c", f'exec "{sys.executable}" "{HOSTILE}"'],
                      env={**mark_env, **env})


def nap_task(task_id: str, seconds: float, server: str = "hostile", **extra: Any) -> dict[str, Any]:
    """A task whose reference plan naps on the hostile server (the scripted model plays it)."""
    return {"id": task_id, "prompt": f"nap {seconds} s", "servers": [server],
            "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": [f"{server}__nap"]}]},
            "reference": [{"tool": f"{server}__nap", "args": {"seconds": seconds}}], **extra}


def write_world(folder: Path, tasks: list[dict[str, Any]], servers: dict[str, Any] | None = None) -> tuple[Path, Path]:
    """Write a tasks.jsonl and a servers.json (default: the hostile server, cold-started) into ``folder``."""
    tasks_path, servers_path = folder / "tasks.jsonl", folder / "servers.json"
    tasks_path.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    servers = servers or {"hostile": {"command": "python", "args": [str(HOSTILE)],
                                      "env": {MARK_VAR: "${" + MARK_VAR + ":-unmarked}", "HOSTILE_CHILDREN": "1"}}}
    servers_path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return tasks_path, servers_path


def run_command(tasks: Path, servers: Path, db: Path, *extra: str) -> list[str]:
    """``mcptrials run`` with the scripted reference model over the given world."""
    return [sys.executable, "-m", "mcptrials.cli", "run", "--model", "scripted:reference", "--tasks", str(tasks),
            "--servers", str(servers), "--db", str(db), *extra]


def stored(db: Path) -> list[tuple[str, int]]:
    """(task id, attempt) of every stored episode."""
    if not db.exists():
        return []
    with sqlite3.connect(db, timeout=10) as conn:
        try:
            return [(str(t), int(a)) for t, a in conn.execute("select task_id, attempt from episodes")]
        except sqlite3.OperationalError:
            return []


def hostile_http(**env: str) -> Iterator[int]:
    """The hostile server over streamable HTTP on a free port (the test's server, not the run's: unmarked)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    clean = {k: v for k, v in os.environ.items() if k != MARK_VAR}
    proc = subprocess.Popen([sys.executable, str(HOSTILE), "--http", str(port)], env={**clean, **env},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    yield port
    proc.terminate()
    proc.wait(10)
