"""The local provider: spec handling without llama.cpp, and real generations with the default model."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

import anyio
import pytest

from mcptrials.models.base import ChatModel, EpisodeContext, Message, ModelResponse, ProviderError, ToolSchema
from mcptrials.models.local import LocalModel
from mcptrials.models.weights import DEFAULT_SHA256

needs_llama = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None,
    reason="llama-cpp-python (the 'local' extra) is not installed",
)

CLOCK = ToolSchema(name="clock__now", description="Return the current date and time in ISO 8601.")
QUESTION = [
    Message(role="system", content="You are a helpful assistant. Use the tools when they help."),
    Message(role="user", content="What time is it now?"),
]


def test_spec_and_settings_of_the_default_model() -> None:
    model = LocalModel("")
    assert isinstance(model, ChatModel)
    assert model.spec == "local:default"
    assert LocalModel("default").spec == "local:default"
    assert model.for_episode(EpisodeContext(task_id="t")) is model
    settings = model.settings()
    assert settings["sha256"] == DEFAULT_SHA256
    assert (settings["seed"], settings["temperature"], settings["n_ctx"]) == (0, 0.0, 8192)
    assert settings["constrained"] is False


def test_a_gguf_path_is_accepted_and_hashed(tmp_path: Path) -> None:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF not really")
    model = LocalModel(str(path), constrained=True)
    assert model.spec == f"local:{path}"
    assert model.settings()["sha256"] == hashlib.sha256(b"GGUF not really").hexdigest()
    assert model.settings()["constrained"] is True


def test_a_missing_gguf_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ProviderError) as info:
        LocalModel(str(tmp_path / "absent.gguf"))
    assert info.value.kind == "model_not_found"


@pytest.fixture(scope="module")
def model() -> LocalModel:
    local = LocalModel("", max_tokens=64)
    local.load()
    return local


@needs_llama
@pytest.mark.slow
async def test_real_generation_returns_usage_and_keeps_the_loop_free(model: LocalModel) -> None:
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await anyio.sleep(0.05)
            ticks += 1

    async with anyio.create_task_group() as group:
        group.start_soon(tick)
        response = await model.generate(QUESTION, [CLOCK])
        group.cancel_scope.cancel()
    assert isinstance(response, ModelResponse)
    assert response.usage.prompt_tokens > 50
    assert response.usage.completion_tokens > 0
    assert response.text or response.tool_calls
    assert ticks > 0  # the event loop kept running while llama.cpp worked in a thread


@needs_llama
@pytest.mark.slow
async def test_constrained_generation_writes_a_valid_call(model: LocalModel) -> None:
    model.constrained = True
    try:
        response = await model.generate(QUESTION, [CLOCK])
    finally:
        model.constrained = False
    assert [(c.name, c.arguments) for c in response.tool_calls] == [("clock__now", {})]
    assert response.finish_reason == "tool_calls"
    assert response.usage.completion_tokens > 0
