"""The openai provider against a local OpenAI-compatible endpoint: parsing, retries, error classes."""

from __future__ import annotations

import time

import pytest
from fake_openai import FakeOpenAI, Reply, completion

from mcptrials.models.base import Message, ProviderError, ToolSchema
from mcptrials.models.openai_provider import OpenAIModel, wire_name
from mcptrials.models.retry import RetryPolicy

TOOLS = [ToolSchema(name="rail__get_tickets", description="tickets", parameters={"type": "object"})]
MESSAGES = [Message(role="user", content="hi")]


def model(fake: FakeOpenAI, retries: int = 3, timeout: float = 30.0) -> OpenAIModel:
    return OpenAIModel(model="fake-model", base_url=fake.base_url, api_key="sk-test",
                       retry=RetryPolicy(max_retries=retries, base_delay=0.01), timeout=timeout)


async def test_tool_calls_text_and_usage(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(completion("thinking", [("rail__get_tickets", {"date": "2026-04-15"}),
                                              ("rail__get_tickets", "{not json")], 120, 30))
    response = await model(fake_openai).generate(MESSAGES, TOOLS)
    assert response.text == "thinking"
    assert response.tool_calls[0].arguments == {"date": "2026-04-15"}
    assert response.tool_calls[1].arguments is None and response.tool_calls[1].raw_arguments == "{not json"
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (120, 30)
    sent = fake_openai.requests[0]
    assert sent["model"] == "fake-model" and sent["tools"][0]["function"]["name"] == "rail__get_tickets"
    assert sent["temperature"] == 0.0


async def test_rate_limit_honours_retry_after(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "1"}), completion("ok"))
    m = model(fake_openai)
    t0 = time.perf_counter()
    response = await m.generate(MESSAGES, TOOLS)
    assert response.text == "ok" and len(fake_openai.requests) == 2
    assert time.perf_counter() - t0 >= 0.95
    assert m.stats.retries == 1 and m.stats.by_kind == {"rate_limit": 1}


async def test_server_error_is_retried_then_gives_up(fake_openai: FakeOpenAI) -> None:
    fake_openai.default = Reply(500, {"error": {"message": "boom"}})
    with pytest.raises(ProviderError) as info:
        await model(fake_openai, retries=2).generate(MESSAGES, TOOLS)
    assert info.value.kind == "server_error" and len(fake_openai.requests) == 3


async def test_malformed_json_is_not_retried(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(Reply(200, "{this is not json"))
    with pytest.raises(ProviderError) as info:
        await model(fake_openai).generate(MESSAGES, TOOLS)
    assert info.value.kind == "malformed_response" and info.value.raw == "{this is not json"
    assert len(fake_openai.requests) == 1


async def test_timeout_is_retried(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(Reply(200, {}, delay=2.0), completion("late but fine"))
    response = await model(fake_openai, timeout=0.5).generate(MESSAGES, TOOLS)
    assert response.text == "late but fine" and len(fake_openai.requests) == 2


@pytest.mark.parametrize(("status", "body", "kind"), [
    (401, {"error": {"message": "bad key"}}, "auth"),
    (429, {"error": {"code": "insufficient_quota", "message": "You exceeded your current quota"}}, "quota"),
    (404, {"error": {"message": "model not found"}}, "model_not_found"),
    (400, {"error": {"message": "This model's maximum context length is 8192 tokens"}}, "context_overflow"),
])
async def test_fatal_and_unretried_errors(fake_openai: FakeOpenAI, status: int, body: dict, kind: str) -> None:
    fake_openai.default = Reply(status, body)
    with pytest.raises(ProviderError) as info:
        await model(fake_openai).generate(MESSAGES, TOOLS)
    assert info.value.kind == kind and len(fake_openai.requests) == 1


def test_wire_names_are_valid_for_the_api() -> None:
    assert wire_name("rail__get_tickets") == "rail__get_tickets"
    odd = wire_name("srv__tool.with.dots")
    assert odd == "srv__tool_with_dots"
    assert len(wire_name("s__" + "x" * 100)) <= 64
