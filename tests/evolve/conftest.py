"""Shared fixtures for the evolution tests: the toy upstream server, in-process and as a script."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
TOY_SERVER = HERE / "toy_server.py"


def _load_toy() -> Any:
    spec = importlib.util.spec_from_file_location("mcptrials_tests_toy_server", TOY_SERVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.server


@pytest.fixture
def toy_server() -> Any:
    """A fresh in-process toy server (an ``MCPServer``)."""
    return _load_toy()


@pytest.fixture
def toy_server_path() -> Path:
    """The toy server script, to run as a stdio subprocess."""
    return TOY_SERVER
