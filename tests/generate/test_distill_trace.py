"""``pursue``: an explorer on real servers through a real OpenAI-compatible endpoint; snapshots and rejections."""

from __future__ import annotations

import pytest
from distill_traces import bundled, draft_of
from fake_openai import FakeOpenAI, completion

from mcptrials.bundled.world import bundled_servers
from mcptrials.generate.draft import Rejected
from mcptrials.generate.trace import pursue
from mcptrials.models.openai_provider import OpenAIModel


def _model(fake: FakeOpenAI) -> OpenAIModel:
    return OpenAIModel(model="explorer", base_url=fake.base_url, api_key="k")


async def test_the_explorer_is_recorded_with_the_sandbox_before_and_after(fake_openai: FakeOpenAI) -> None:
    source = bundled("cal-006")
    fake_openai.queue(
        completion("", [("calendar__find_free_slots", {"day": "2026-04-20", "duration_minutes": 30,
                                                       "day_start": "09:00", "day_end": "12:00"})]),
        completion("", [("calendar__create_event", {"title": "Laptop handover", "start": "2026-04-20T10:00",
                                                    "duration_minutes": 30,
                                                    "attendees": ["ravi.menon@northwind.example"]})]),
        completion("Booked the laptop handover on 20 April at 10:00."))
    trace = await pursue(bundled_servers(), draft_of(source), _model(fake_openai))
    assert [c.name for c in trace.episode.tool_calls] == ["calendar__find_free_slots", "calendar__create_event"]
    assert "calendar/events.json" in trace.after["files"]
    assert trace.before["files"].get("calendar/events.json", {}).get("sha256") != \
        trace.after["files"]["calendar/events.json"]["sha256"]
    assert "calendar__create_event" in trace.tools
    system = fake_openai.requests[0]["messages"][0]["content"]
    assert "GIVE UP" in system  # the explorer prompt, not the benchmark agent's


async def test_the_database_is_snapshotted_before_the_first_write(fake_openai: FakeOpenAI) -> None:
    source = bundled("shop-003")
    fake_openai.queue(
        completion("", [("shopdb__read_query", {"query": "SELECT id FROM customers WHERE id = 42"})]),
        completion("", [("shopdb__write_query", {"query": "UPDATE customers SET city = 'Lund' WHERE id = 42"})]),
        completion("Customer 42 now lives in Lund."))
    trace = await pursue(bundled_servers(), draft_of(source), _model(fake_openai))
    before = trace.before["sqlite"]["shop/shop.db"]["customers"]
    after = trace.after["sqlite"]["shop/shop.db"]["customers"]
    assert before["pk"] == ["id"] and before["columns"] == after["columns"]
    city = before["columns"].index("city")
    assert [r[city] for r in after["rows"] if r[0] == 42] == ["Lund"]
    assert [r[city] for r in before["rows"] if r[0] == 42] != ["Lund"]


@pytest.mark.parametrize(("replies", "why"), [
    ([completion("I looked around.")], "no successful tool call"),
    ([completion("", [("calendar__list_events", {"start_date": "2026-04-20"})]),
      completion("GIVE UP: there is no IT calendar to book with.")], "gave up"),
    ([completion("", [("calendar__no_such_tool", {})]), completion("All done.")], "no successful tool call"),
])
async def test_an_explorer_that_did_nothing_or_gave_up_is_rejected(fake_openai: FakeOpenAI, replies: list,
                                                                  why: str) -> None:
    fake_openai.queue(*replies)
    with pytest.raises(Rejected) as info:
        await pursue(bundled_servers(), draft_of(bundled("cal-006")), _model(fake_openai))
    assert info.value.stage == "explore" and why in info.value.reason


async def test_an_unconfigured_server_is_rejected_before_anything_starts(fake_openai: FakeOpenAI) -> None:
    draft = draft_of(bundled("cal-006"))
    draft.servers = ["calendar", "nowhere"]
    with pytest.raises(Rejected, match="not configured: nowhere"):
        await pursue(bundled_servers(), draft, _model(fake_openai))
    assert fake_openai.requests == []
