"""Shared fixtures: the fake OpenAI endpoint, server specs for the example and faulty servers."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

SUPPORT = Path(__file__).parent / "support"
sys.path.insert(0, str(SUPPORT))

from browser import chromium  # noqa: E402,F401  (headless Chromium fixture, tests/support/browser.py)
from fake_openai import FakeOpenAI  # noqa: E402
from npm_servers import npm_bin  # noqa: E402,F401  (npm MCP servers, tests/support/npm_servers.py)
from pg_cluster import postgres_server, postgres_url  # noqa: E402,F401  (throwaway PostgreSQL, tests/support/pg_cluster.py)
from ray_head import ray_address  # noqa: E402,F401  (throwaway Ray head node, tests/support/ray_head.py)

from mcptrials.model import ServerSpec  # noqa: E402


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def faulty_spec() -> ServerSpec:
    return ServerSpec(name="faulty", command=sys.executable, args=[str(SUPPORT / "faulty_server.py")])


@pytest.fixture
def example_specs() -> dict[str, ServerSpec]:
    return {
        "rail": ServerSpec(name="rail", command=sys.executable, args=["-m", "mcptrials.examples.trains_server"],
                           dynamism="live_read"),
        "notes": ServerSpec(name="notes", command=sys.executable, args=["-m", "mcptrials.examples.notes_server"],
                            dynamism="stateful_write"),
    }


@pytest.fixture
def example_tasks_path() -> Path:
    return Path(__file__).parents[1] / "src" / "mcptrials" / "examples" / "tasks.jsonl"
