"""The tests' Ray cluster is their own and address-stable; no fixture's server outlives the test process.

Each test runs an inner pytest session (a fresh process) on the real fixtures of tests/support.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
SUPPORT = Path(__file__).parents[1] / "support"
CONFTEST = f"""
import sys
sys.path.insert(0, {str(SUPPORT)!r})
from ray_head import ray_address  # noqa: E402,F401
from pg_cluster import postgres_server  # noqa: E402,F401
"""


def _inner(tmp_path: Path, test: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    folder = tmp_path / "inner"
    folder.mkdir()
    (folder / "conftest.py").write_text(CONFTEST)
    (folder / "test_inner.py").write_text(test)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           str(folder)], capture_output=True, text=True, env=env, timeout=500, cwd=folder)


OWN_CLUSTER = """
import os, subprocess, sys
from pathlib import Path

def test_drivers_reach_the_cluster_as_started(ray_address):
    # another cluster's `ray.init()` on this machine rewrites the default token meanwhile
    (Path.home() / ".ray" / "auth_token").write_text("token-of-yet-another-cluster")
    import ray
    from mcptrials.run.executors import make_executor
    remote = make_executor("ray", ray_address)
    try:
        assert remote.describe() == "Ray cluster: 1 node(s), 2 CPU(s)"
        assert ray.get_runtime_context().gcs_address == ray_address
        assert {n["NodeManagerAddress"] for n in ray.nodes()} == {"127.0.0.1"}
    finally:
        remote.close()
    done = subprocess.run([sys.executable, "-m", "mcptrials.cli", "run", "--agent", "reference", "--task", "unit-001",
                           "--executor", "ray", "--address", ray_address, "--db", str(Path.cwd() / "r.db")],
                          capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "episodes run on the Ray cluster: 1 node(s), 2 CPU(s)" in done.stderr
"""


def test_the_ray_cluster_is_the_tests_own_whatever_the_machine_says(tmp_path: Path) -> None:
    """A machine with another cluster's token in ~/.ray and a RAY_ADDRESS: the tests' cluster is unaffected."""
    pytest.importorskip("ray", reason="ray is not installed (pip install 'mcptrials[ray]')")
    home = tmp_path / "home"
    (home / ".ray").mkdir(parents=True)
    (home / ".ray" / "auth_token").write_text("token-of-another-cluster")
    env = {key: value for key, value in os.environ.items() if not key.startswith("RAY_")}
    env.update(HOME=str(home), RAY_ADDRESS="192.0.2.77:6379", COLUMNS="200")
    done = _inner(tmp_path, OWN_CLUSTER, env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout


DIES = """
import json, os, signal
import psutil

def _tree(match):
    found = [p for p in psutil.process_iter(["cmdline"]) if match(" ".join(p.info["cmdline"] or []))]
    every = {p.pid: p for p in found}
    for p in found:
        every.update({c.pid: c for c in p.children(recursive=True)})
    return [(p.pid, p.create_time()) for p in every.values()]

def test_crash(ray_address, postgres_server):
    ray_port = ray_address.rsplit(":", 1)[1]
    pg_port = postgres_server.rsplit(":", 1)[1]
    servers = _tree(lambda line: ray_port in line and ("gcs" in line or "raylet" in line or "ray start" in line))
    servers += _tree(lambda line: f"-p {pg_port}" in line and "postgres" in line)
    with open(os.environ["SERVERS_FILE"], "w") as out:
        json.dump(servers, out)
    os.kill(os.getpid(), signal.SIGKILL)  # no teardown, no atexit: as when pytest itself crashes
"""


def _alive(servers: list[list[float]]) -> list[psutil.Process]:
    left = []
    for pid, created in servers:
        try:
            proc = psutil.Process(int(pid))
            if abs(proc.create_time() - created) < 0.01 and proc.status() != psutil.STATUS_ZOMBIE:
                left.append(proc)
        except psutil.NoSuchProcess:
            continue
    return left


def test_fixture_servers_do_not_outlive_a_killed_test_process(tmp_path: Path) -> None:
    """pytest SIGKILLed mid-test: the Ray head and the PostgreSQL cluster it started are stopped all the same."""
    pytest.importorskip("ray", reason="ray is not installed (pip install 'mcptrials[ray]')")
    pytest.importorskip("psycopg", reason="psycopg is not installed")
    listing = tmp_path / "servers.json"
    done = _inner(tmp_path, DIES, {**os.environ, "SERVERS_FILE": str(listing)})
    assert done.returncode == -signal.SIGKILL, done.stdout[-3000:]
    servers = json.loads(listing.read_text())
    assert len(servers) >= 3  # the head's processes and the postmaster with its workers
    deadline = time.monotonic() + 60
    try:
        while _alive(servers) and time.monotonic() < deadline:
            time.sleep(0.5)
        left = _alive(servers)
        assert left == [], [" ".join(p.cmdline())[:120] for p in left]
    finally:
        for proc in _alive(servers):  # never leave them behind, even when the test fails
            proc.kill()
