"""Calls made in one turn run concurrently; a stateful bundled server must still keep every write."""

from __future__ import annotations

import importlib
import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from mcptrials.agents.base import Trajectory, execute_calls
from mcptrials.bundled.servers._runtime import _one_call_at_a_time
from mcptrials.bundled.world import bundled_servers
from mcptrials.model import ToolCallRequest
from mcptrials.servers.toolbox import open_toolbox

IDS = ["m001", "m002", "m003", "m004", "m005"]


async def _archive_all_at_once(server: Any) -> set[str]:
    async with Client(server, cache=None) as client:
        async with anyio.create_task_group() as tg:
            for message_id in IDS:
                tg.start_soon(client.call_tool, "archive_message", {"message_id": message_id})
        listed = await client.call_tool("list_inbox", {"folder": "archive", "limit": 50})
    return {m["id"] for m in listed.structured_content["messages"]}


async def test_without_the_lock_a_slow_state_read_loses_updates(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The race the lock prevents, made certain by a slow read: each call writes back what it read."""
    mail = importlib.reload(importlib.import_module("mcptrials.bundled.servers.mail"))
    original = mail.read_state

    def slow_read(*args: Any, **kwargs: Any) -> Any:
        state = original(*args, **kwargs)
        time.sleep(0.2)
        return state

    monkeypatch.setattr(mail, "read_state", slow_read)
    monkeypatch.setenv("MCPTRIALS_NOW", "2026-04-13T09:00:00+08:00")
    for name, locked in (("bare", False), ("locked", True)):
        box = tmp_path / name
        box.mkdir()
        monkeypatch.setenv("MCPTRIALS_SANDBOX", str(box))
        if locked:
            _one_call_at_a_time(mail.mcp)
        archived = await _archive_all_at_once(mail.mcp)
        assert (set(IDS) <= archived) is locked, (name, archived)
    importlib.reload(mail)


async def test_parallel_archives_in_one_turn_are_all_kept_over_stdio(tmp_path: Path) -> None:
    async with open_toolbox([bundled_servers()["mail"]], tmp_path, now="2026-04-13T09:00:00+08:00") as box:
        requests = [ToolCallRequest(id=f"c{i}", name="mail__archive_message", arguments={"message_id": m})
                    for i, m in enumerate(IDS)]
        records = await execute_calls(box, requests, 0, Trajectory())
        assert [r.is_error for r in records] == [False] * len(IDS), [r.content for r in records]
        _, _, listed = await box.call("mail__list_inbox", {"folder": "archive", "limit": 50})
    assert set(IDS) <= {m["id"] for m in json.loads(listed.content)["messages"]}
