"""The anthropic provider against a local fake Messages API: conversion, retries, every error class."""

from __future__ import annotations

import pytest
from fake_openai import FakeOpenAI, Reply, anthropic_message

from mcptrials.model import ToolCallRequest
from mcptrials.models.anthropic_provider import AnthropicModel
from mcptrials.models.base import Message, ProviderError, ToolSchema
from mcptrials.models.pricing import Price
from mcptrials.models.retry import RetryPolicy

pytest.importorskip("anthropic", reason="the anthropic extra is part of the dev install")

TOOLS = [ToolSchema(name="rail__get_tickets", description="tickets", parameters={"type": "object"})]


def model(fake: FakeOpenAI, retries: int = 3, timeout: float = 30.0) -> AnthropicModel:
    return AnthropicModel(model="claude-test", base_url=fake.root_url, api_key="sk-ant-test",
                          retry=RetryPolicy(max_retries=retries, base_delay=0.01), timeout=timeout,
                          price=Price(input=3.0, output=15.0))


async def test_conversation_tools_usage_and_cost(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(anthropic_message("Looking.", [("rail__get_tickets", {"date": "2026-04-15"})], 1000, 200))
    history = [
        Message(role="system", content="be brief"),
        Message(role="user", content="tickets?"),
        Message(role="assistant", content="", tool_calls=[ToolCallRequest(id="t1", name="rail__get_tickets",
                                                                          arguments={"date": "x"})]),
        Message(role="tool", tool_call_id="t1", name="rail__get_tickets", content="none"),
    ]
    response = await model(fake_openai).generate(history, TOOLS)
    assert response.text == "Looking." and response.tool_calls[0].arguments == {"date": "2026-04-15"}
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (1000, 200)
    assert response.usage.cost_usd == pytest.approx((1000 * 3.0 + 200 * 15.0) / 1e6)
    sent = fake_openai.requests[0]
    assert sent["system"] == "be brief" and sent["temperature"] == 0.0 and sent["max_tokens"] == 2048
    assert sent["messages"][1]["content"][0]["type"] == "tool_use"
    assert sent["messages"][2]["content"][0] == {"type": "tool_result", "tool_use_id": "t1", "content": "none"}
    assert sent["tools"][0]["input_schema"] == {"type": "object"}


async def test_rate_limit_then_overloaded_then_success(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(Reply(429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}},
                            {"retry-after": "0.2"}),
                      Reply(529, {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}),
                      anthropic_message("ok"))
    m = model(fake_openai)
    assert (await m.generate([Message(role="user", content="hi")], TOOLS)).text == "ok"
    assert len(fake_openai.requests) == 3 and m.stats.by_kind == {"rate_limit": 1, "server_error": 1}


@pytest.mark.parametrize(("status", "message", "kind"), [
    (401, "invalid x-api-key", "auth"),
    (403, "permission denied", "auth"),
    (404, "model: claude-nope", "model_not_found"),
    (400, "Your credit balance is too low to access the API", "quota"),
    (400, "prompt is too long: 210000 tokens > 200000 maximum", "context_overflow"),
])
async def test_unretried_error_classes(fake_openai: FakeOpenAI, status: int, message: str, kind: str) -> None:
    fake_openai.default = Reply(status, {"type": "error", "error": {"type": "x", "message": message}})
    with pytest.raises(ProviderError) as info:
        await model(fake_openai).generate([Message(role="user", content="hi")], TOOLS)
    assert info.value.kind == kind and len(fake_openai.requests) == 1


async def test_malformed_body_and_timeout(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(Reply(200, '{"content": "not a list of blocks"'))
    with pytest.raises(ProviderError) as info:
        await model(fake_openai).generate([Message(role="user", content="hi")], TOOLS)
    assert info.value.kind == "malformed_response"
    fake_openai.queue(Reply(200, {}, delay=2.0), Reply(200, {}, delay=2.0))
    with pytest.raises(ProviderError) as info:
        await model(fake_openai, retries=1, timeout=0.5).generate([Message(role="user", content="hi")], TOOLS)
    assert info.value.kind == "timeout"
