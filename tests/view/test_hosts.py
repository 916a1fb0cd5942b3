"""The viewer answers only for its own address and names (DNS rebinding cannot read the store through a browser),
and says so when it is bound to every interface."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from mcptrials.store.db import Store

ENV = {**os.environ, "COLUMNS": "200"}
MCPTRIALS = [sys.executable, "-m", "mcptrials.cli"]


@pytest.fixture(scope="module")
def store_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("hosts") / "runs.db"
    done = subprocess.run([*MCPTRIALS, "run", "--agent", "reference", "--task", "unit-001", "--db", str(db)],
                          capture_output=True, text=True, env=ENV, timeout=300)
    assert done.returncode == 0, done.stderr
    return db


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _serve(db: Path, *args: str) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """`mcptrials view --db DB ARGS` on a free port, once it answers."""
    port = _free_port()
    process = subprocess.Popen([*MCPTRIALS, "view", "--db", str(db), "--port", str(port), *args], env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.communicate()
            try:
                httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the viewer did not answer within 60 s"
                time.sleep(0.2)
        yield port, process
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def local_view(store_db: Path) -> Iterator[int]:
    with _serve(store_db) as (port, _):
        yield port


def _get(port: int, path: str, host: str) -> httpx.Response:
    return httpx.get(f"http://127.0.0.1:{port}{path}", headers={"Host": host}, timeout=10)


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:{port}", "localhost.attacker.example",
                                  "127.0.0.1.nip.io:{port}", "[::1]x"])
@pytest.mark.parametrize("path", ["/", "/episodes", "/run/x", "/static/view.css"])
def test_a_request_naming_another_host_is_refused(local_view: int, store_db: Path, host: str, path: str) -> None:
    response = _get(local_view, path, host.format(port=local_view))
    assert response.status_code == 421
    assert response.text.startswith("421 this viewer does not answer for host ")
    episode = next(Store(store_db, read_only=True).episodes())
    assert episode.id not in response.text and "unit-001" not in response.text


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST", "[::1]:{port}", "127.0.0.1"])
def test_the_viewer_answers_for_its_own_address_and_localhost(local_view: int, host: str) -> None:
    response = _get(local_view, "/episodes", host.format(port=local_view))
    assert response.status_code == 200 and "unit-001" in response.text


def test_a_public_bind_warns_and_allow_host_adds_a_name(store_db: Path) -> None:
    with _serve(store_db, "--host", "0.0.0.0", "--allow-host", "lab.example.org") as (port, process):
        assert _get(port, "/episodes", f"lab.example.org:{port}").status_code == 200
        assert _get(port, "/episodes", f"{socket.gethostname()}:{port}").status_code == 200
        assert _get(port, "/episodes", "attacker.example").status_code == 421
        process.terminate()
        _, said = process.communicate(timeout=10)
    lines = said.splitlines()
    assert lines[0] == ("warning: --host 0.0.0.0 serves the store to every machine that can reach this one, with no "
                        "password; use --host 127.0.0.1 unless that is what you want")
    assert lines[1].startswith(f"mcptrials view: http://0.0.0.0:{port}/")


def test_a_local_bind_does_not_warn(store_db: Path) -> None:
    with _serve(store_db) as (_, process):
        process.terminate()
        _, said = process.communicate(timeout=10)
    assert "warning" not in said and said.startswith("mcptrials view: http://127.0.0.1:")
