"""The npm MCP servers tests start: installed once into a user cache (``.ci/run`` does it first)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

NPM_PREFIX = Path.home() / ".cache" / "mcptrials-npm"
NPM_PACKAGES = ("@modelcontextprotocol/server-memory", "@modelcontextprotocol/server-filesystem",
                "@modelcontextprotocol/server-everything")


@pytest.fixture(scope="session")
def npm_bin() -> Path:
    """The folder of the npm servers' executables (installed here when missing; skipped without npm)."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("npm/node are not installed: the npm MCP servers cannot run (.ci/run installs them)")
    bin_dir = NPM_PREFIX / "node_modules" / ".bin"
    wanted = ("mcp-server-memory", "mcp-server-filesystem", "mcp-server-everything")
    if not all((bin_dir / name).exists() for name in wanted):
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(NPM_PREFIX),
                        *NPM_PACKAGES], check=True, capture_output=True, timeout=600)
    return bin_dir
