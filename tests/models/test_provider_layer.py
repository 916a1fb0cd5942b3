"""Presets, prices, the adaptive limiter, prompt-based tool calling and token budgets."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from fake_openai import FakeOpenAI, Reply, completion

from mcptrials.model import Usage
from mcptrials.models.base import Message, ToolSchema
from mcptrials.models.limiter import AdaptiveLimiter
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.models.pricing import Price, PriceError, load_prices, price_for
from mcptrials.models.prompt_tools import PromptToolsModel
from mcptrials.models.registry import ModelSpecError, load_model, load_models_file, model_from_entry
from mcptrials.models.retry import RetryPolicy

TOOLS = [ToolSchema(name="rail__get_tickets", description="tickets", parameters={"type": "object"})]


def test_presets_are_base_urls_and_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VLLM_BASE_URL", raising=False)
    vllm = load_model("vllm:qwen2.5-7b")
    assert isinstance(vllm, OpenAIModel)
    assert (vllm.base_url, vllm.spec, vllm.api_key_env) == ("http://localhost:8000/v1", "vllm:qwen2.5-7b",
                                                             "VLLM_API_KEY")
    monkeypatch.setenv("OLLAMA_BASE_URL", "http://gpu-box:11434/v1")
    assert load_model("ollama:llama3.2").base_url == "http://gpu-box:11434/v1"  # type: ignore[attr-defined]
    assert load_model("llamacpp:any", base_url="http://127.0.0.1:9/v1").base_url == "http://127.0.0.1:9/v1"  # type: ignore[attr-defined]
    with pytest.raises(ModelSpecError, match="needs a model name"):
        load_model("ollama:")


def test_price_table_lookup_and_override(tmp_path: Path) -> None:
    table = load_prices()
    assert price_for("gpt-4o-mini-2024-07-18", table) == table["gpt-4o-mini"]
    assert price_for("openrouter/anthropic/claude-sonnet-4-5", table) == table["claude-sonnet-4-5"]
    assert price_for("my-local-model", table) == Price()
    override = tmp_path / "prices.json"
    override.write_text(json.dumps({"models": {"my-local-model": {"input": 1, "output": 2}}}))
    assert price_for("my-local-model", load_prices(override)) == Price(1.0, 2.0)
    override.write_text(json.dumps({"models": {"x": {"input": "cheap"}}}))
    with pytest.raises(PriceError, match="model 'x'"):
        load_prices(override)
    assert Price(2.5, 10).cost(Usage(prompt_tokens=1_000_000, completion_tokens=500_000)) == pytest.approx(7.5)


async def test_known_tokens_give_known_cost(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(completion("hi", prompt_tokens=2000, completion_tokens=1000))
    m = load_model("openai:gpt-4o", base_url=fake_openai.base_url)
    response = await m.generate([Message(role="user", content="x")], TOOLS)
    assert response.usage.cost_usd == pytest.approx(2000 * 2.5 / 1e6 + 1000 * 10.0 / 1e6)
    assert m.settings()["price_per_mtok"] == {"input": 2.5, "output": 10.0}


async def test_limiter_halves_on_rate_limit_and_recovers(fake_openai: FakeOpenAI) -> None:
    limiter = AdaptiveLimiter(ceiling=4, name="fake")
    m = OpenAIModel(model="m", base_url=fake_openai.base_url, api_key="k", limiter=limiter,
                    retry=RetryPolicy(max_retries=2, base_delay=0.01))
    fake_openai.queue(Reply(429, {"error": {"message": "slow"}}, {"retry-after": "0"}))
    fake_openai.default = completion("ok")
    await m.generate([Message(role="user", content="x")], TOOLS)
    assert limiter.capacity == 2 and limiter.rate_limits == 1 and limiter.retries == 1
    for _ in range(6):
        await m.generate([Message(role="user", content="x")], TOOLS)
    assert limiter.capacity == 4


async def test_limiter_caps_in_flight_requests() -> None:
    limiter = AdaptiveLimiter(ceiling=2)
    peak = [0]

    async def work() -> None:
        async with limiter.slot():
            peak[0] = max(peak[0], limiter.in_flight)
            await anyio.sleep(0.05)

    async with anyio.create_task_group() as tg:
        for _ in range(6):
            tg.start_soon(work)
    assert peak[0] == 2 and limiter.in_flight == 0


async def test_prompt_based_tool_calling(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(completion('I will look.\n<tool_call>{"name": "rail__get_tickets", '
                                 '"arguments": {"date": "2026-04-15"}}</tool_call>'),
                      completion("The G1 leaves at 07:00."))
    m = load_model("openai:m", base_url=fake_openai.base_url, tool_mode="prompt")
    assert isinstance(m, PromptToolsModel) and m.spec == "openai:m#prompt-tools"
    first = await m.generate([Message(role="system", content="sys"), Message(role="user", content="go")], TOOLS)
    assert first.tool_calls[0].name == "rail__get_tickets" and first.tool_calls[0].arguments == {"date": "2026-04-15"}
    assert "tools" not in fake_openai.requests[0]
    assert "rail__get_tickets" in fake_openai.requests[0]["messages"][0]["content"]
    history = [Message(role="user", content="go"),
               Message(role="assistant", content=first.text, tool_calls=first.tool_calls),
               Message(role="tool", tool_call_id=first.tool_calls[0].id, name="rail__get_tickets", content="G1 07:00")]
    second = await m.generate(history, TOOLS)
    assert second.text == "The G1 leaves at 07:00." and not second.tool_calls
    roles = [msg["role"] for msg in fake_openai.requests[1]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]


def test_models_file(tmp_path: Path) -> None:
    path = tmp_path / "models.yaml"
    path.write_text("models:\n  cheap:\n    spec: openai:gpt-4o-mini\n    temperature: 0.3\n"
                    "    price: {input: 1, output: 1}\n    concurrency: 3\n")
    entry = load_models_file(path)["cheap"]
    m = model_from_entry(entry)
    assert isinstance(m, OpenAIModel) and m.sampling.temperature == 0.3 and m.price == Price(1, 1)
    path.write_text("models:\n  bad:\n    spec: openai:x\n    temprature: 1\n")
    with pytest.raises(ModelSpecError, match="model 'bad'"):
        load_models_file(path)
