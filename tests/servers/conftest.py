"""Third-party MCP servers for the client tests: npm packages installed once into a user cache."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def everything_http(npm_bin: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """The everything server over HTTP (``request.param``: ``sse`` or ``streamableHttp``); yields its base URL."""
    mode = request.param
    port = free_port()
    proc = subprocess.Popen([str(npm_bin / "mcp-server-everything"), mode], env={"PATH": _path(), "PORT": str(port)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail(f"everything server ({mode}) did not listen on {port}")
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()


def _path() -> str:
    import os

    return os.environ.get("PATH", "/usr/bin:/bin")
