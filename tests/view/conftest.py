"""A store made by real runs (v0 and an evolved v5, two agents, a model judge) and `mcptrials view` serving it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "judges"))

from judge_endpoint import JudgeEndpoint

MCPTRIALS = str(Path(sys.executable).parent / "mcptrials")
TASKS = ["--stages", "v0,v5", "--limit", "4", "--concurrency", "2"]


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the real `mcptrials` command; fail the test with its output when it fails."""
    done = subprocess.run([MCPTRIALS, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "COLUMNS": "200", **(env or {})})
    assert done.returncode == 0, f"mcptrials {' '.join(args)} -> {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Served:
    """A running `mcptrials view` process and the store it serves."""

    db: Path | str
    url: str
    process: subprocess.Popen[str]


def start_view(db: Path | str) -> Served:
    """Start `mcptrials view --db DB --port P` and wait until it answers."""
    port = free_port()
    process = subprocess.Popen([MCPTRIALS, "view", "--db", str(db), "--port", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            said = process.stdout.read() if process.stdout else ""
            raise AssertionError(f"mcptrials view exited {process.returncode}: {said}")
        try:
            if httpx.get(url + "/", timeout=2).status_code == 200:
                return Served(db, url, process)
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    raise AssertionError("mcptrials view did not answer within 60 s")


def stop_view(served: Served) -> None:
    served.process.terminate()
    try:
        served.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        served.process.kill()
        served.process.wait()


@pytest.fixture(scope="session")
def run_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two real runs on 4 bundled tasks at v0 and v5: the scripted reference model (react) and the stale agent
    (plays the v0 plan on every version, so it trips over v5's changes), then a model judge over the store."""
    db = tmp_path_factory.mktemp("view") / "runs.db"
    cli("run", "--model", "scripted:reference", *TASKS, "--db", str(db))
    cli("run", "--agent", "stale", *TASKS, "--db", str(db))
    with JudgeEndpoint() as judge:
        cli("score", "--db", str(db), "--judge", "openai:gpt-4o-mini", "--judge-base-url", judge.base_url,
            "--judges", "tier2,keypoints", env={"OPENAI_API_KEY": "test-key"})
    return db


@pytest.fixture(scope="session")
def viewer(run_db: Path) -> Iterator[Served]:
    served = start_view(run_db)
    try:
        yield served
    finally:
        stop_view(served)
