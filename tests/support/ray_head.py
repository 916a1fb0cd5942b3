"""A throwaway Ray head node for tests, fully the tests' own and bound to 127.0.0.1.

`ray start --head --block` runs in its own process group with its own temp folder, its own ports and
its own authentication token. Everything that talks to it (the head, the test process's drivers, the
`mcptrials` commands the tests start) gets ``CLUSTER_ENV``: token auth with that token, whatever
``~/.ray/auth_token`` another cluster on the machine wrote or rewrites meanwhile, and Ray's loopback
mode (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``), in which a driver given ``127.0.0.1:PORT`` connects
there, not to the address of the machine's default route (on a machine with two addresses Ray
otherwise rewrites 127.0.0.1 to the other one). A watchdog (``watchdog.py``) stops the head if the
test process dies without tearing it down.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from watchdog import Stop, Watchdog

FOREIGN_RAY_VARS = ("RAY_ADDRESS", "RAY_AUTH_TOKEN_PATH", "RAY_NODE_IP_ADDRESS", "RAY_TMPDIR")
"""Settings of some other cluster the environment may carry: never passed on to the tests' one."""


CLUSTER_ENV = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16),
               "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
"""What every process talking to the tests' cluster gets: this session's own token, and loopback mode."""

# Set when the test session starts (tests/conftest.py imports this module), before anything imports Ray:
# Ray reads the loopback setting once, at import. Commands the tests start inherit it with os.environ.
for _name in FOREIGN_RAY_VARS:
    os.environ.pop(_name, None)
os.environ.update(CLUSTER_ENV)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="session")
def ray_address() -> Iterator[str]:
    """Address of a 2-CPU Ray head node started for this session (skipped with the reason if Ray is missing)."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed (pip install 'mcptrials[ray]')")
    ray_cli = Path(sys.executable).with_name("ray")
    if not ray_cli.exists():
        pytest.skip(f"the ray command is not installed beside {sys.executable}")
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="rt-", dir="/tmp")  # short: Ray's socket paths must fit in 107 bytes
    env = {**os.environ, **CLUSTER_ENV}
    # Every port Ray would otherwise take at a fixed default (dashboard agent 52365, ...) is a free one: a second
    # session's head node, or one left over by a killed run, cannot clash with this one. (No Ray Client port:
    # naming one starts the client server, which needs ray[client].)
    ports = [f"--{name}={_free_port()}" for name in ("dashboard-agent-listen-port", "dashboard-agent-grpc-port",
                                                      "metrics-export-port", "runtime-env-agent-port")]
    log = Path(temp) / "head.log"  # a file, not a pipe nobody reads: a chatty head must never block on it
    with log.open("wb") as out:
        proc = subprocess.Popen([str(ray_cli), "start", "--head", "--block", f"--port={port}", "--num-cpus=2",
                                 "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}",
                                 "--node-ip-address=127.0.0.1", *ports],
                                stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    watchdog = Watchdog(Stop(process_groups=[proc.pid], folders=[temp]))
    try:
        deadline = time.time() + 120
        while not _listening(port):
            if proc.poll() is not None or time.time() > deadline:  # Ray is installed: not starting is a failure
                pytest.fail(f"cannot start a Ray head node: {log.read_text(errors='replace')[-800:]}")
            time.sleep(0.5)
        time.sleep(2)  # the raylet registers just after the GCS port opens
        yield f"127.0.0.1:{port}"
    finally:
        for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(wait)
                time.sleep(1)
            except subprocess.TimeoutExpired:
                continue
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # any straggler of the group
        shutil.rmtree(temp, ignore_errors=True)
        watchdog.release()
