"""A throwaway PostgreSQL cluster for tests: initdb + pg_ctl in a temp dir, password auth over TCP.

A watchdog (``watchdog.py``) stops the cluster and removes its folder if the test process dies
without tearing it down.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from watchdog import Stop, Watchdog

BIN_DIRS = [Path("/usr/lib/postgresql/15/bin"), *sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)]
PASSWORD = "pg-" + secrets.token_hex(8)
"""The superuser's password: tests check it is never stored or printed."""


def _binaries() -> Path | None:
    for folder in BIN_DIRS:
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_postgres(cmd: list[str]) -> list[str]:
    """Run as the ``postgres`` user when we are root (PostgreSQL refuses to run as root)."""
    if os.geteuid() != 0:
        return cmd
    runuser = shutil.which("runuser")
    if runuser is None:
        raise RuntimeError("running as root and `runuser` is missing")
    return [runuser, "-u", "postgres", "--", *cmd]


@contextmanager
def postgres_cluster() -> Iterator[str]:
    """Start a cluster; yields a base URL ``postgresql://postgres:PASSWORD@127.0.0.1:PORT`` (no database)."""
    folder = _binaries()
    if folder is None:
        raise RuntimeError("PostgreSQL binaries not found under /usr/lib/postgresql/*/bin (apt-get install postgresql)")
    root = Path(tempfile.mkdtemp(prefix="mcptrials-pg-"))
    data, pwfile = root / "data", root / "pw"
    pwfile.write_text(PASSWORD + "\n")
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        shutil.chown(pwfile, "postgres")
    port = _free_port()
    stop_command = _as_postgres([str(folder / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"])
    watchdog = Watchdog(Stop(commands=[stop_command], folders=[str(root)]))
    try:
        subprocess.run(_as_postgres([str(folder / "initdb"), "-D", str(data), "-U", "postgres", "-E", "UTF8",
                                     "--auth-local=trust", "--auth-host=scram-sha-256", f"--pwfile={pwfile}"]),
                       check=True, capture_output=True, timeout=120)
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off"
        subprocess.run(_as_postgres([str(folder / "pg_ctl"), "-D", str(data), "-o", options, "-l",
                                     str(root / "log"), "-w", "-t", "60", "start"]),
                       check=True, capture_output=True, timeout=90)
        yield f"postgresql://postgres:{PASSWORD}@127.0.0.1:{port}"
    finally:
        subprocess.run(stop_command, capture_output=True, timeout=60, check=False)
        shutil.rmtree(root, ignore_errors=True)
        watchdog.release()


def new_database(base_url: str) -> str:
    """A fresh, empty database on the cluster; returns its URL."""
    import psycopg

    name = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(f"{base_url}/postgres", autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return f"{base_url}/{name}"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """Base URL of a PostgreSQL cluster started for this test session (skipped with the reason when impossible)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed (pip install 'mcptrials[postgres]')")
    try:
        with postgres_cluster() as url:
            yield url
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        pytest.skip(f"cannot start a PostgreSQL cluster: {exc} {detail.decode(errors='replace')[-300:]}")


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """A fresh database on the session's cluster."""
    return new_database(postgres_server)
