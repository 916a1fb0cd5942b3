"""`inspect view` (inspect's own viewer, in headless Chromium) shows an export: logs, samples, tool calls, scores."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from browser import Chromium
from report_world import cli

pytestmark = pytest.mark.slow  # the shared store takes a minute of real runs to build


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_inspect_view_shows_samples_messages_tool_calls_and_scores(world_db: Path, tmp_path: Path,
                                                                    chromium: Chromium) -> None:
    inspect_cli = Path(sys.executable).parent / "inspect"
    if not inspect_cli.is_file():
        pytest.skip("the inspect CLI is not installed beside this Python (pip install -e '.[dev]')")
    logs = tmp_path / "logs"
    cli("export", "--format", "inspect", "--out", str(logs), "--db", str(world_db))
    port = _free_port()
    server = subprocess.Popen([str(inspect_cli), "view", "--log-dir", str(logs), "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/logs", timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise AssertionError("inspect view did not start") from None
                time.sleep(0.5)
        page = chromium.open(f"http://127.0.0.1:{port}/")
        page.get_by_text("openai:fake-agent").first.wait_for(timeout=20_000)
        rows = page.inner_text("body")
        assert rows.count("mcptrials/v0/") == 3 and rows.count("mcptrials/v3/") == 2  # all five logs listed
        chromium.screenshot(page, "inspect_view_logs", full_page=False)
        page.get_by_text("openai:fake-agent").first.click()
        page.get_by_text("mail-001").first.click()
        page.get_by_text("mail__archive_message").first.wait_for(timeout=20_000)
        sample = page.inner_text("body")
        assert "Get the Marketwire digest newsletters" in sample  # the task prompt
        assert sample.count("mail__archive_message") >= 3  # each tool call, with its arguments and result
        assert 'message_id: "m004"' in sample and "EFFECTS" in sample.upper()
        chromium.screenshot(page, "inspect_view_sample", full_page=False)
    finally:
        server.terminate()
        server.wait(timeout=10)
