"""Turn a model spec (``provider:name``) or a models-file entry into a ``ChatModel``.

Presets are only base URLs, key variables and defaults over the OpenAI-compatible provider:
``vllm:``, ``ollama:``, ``llamacpp:`` (a llama.cpp server), ``openrouter:``, ``deepseek:``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcptrials.models.base import ChatModel, SamplingSettings
from mcptrials.models.limiter import AdaptiveLimiter
from mcptrials.models.pricing import Price, load_prices, price_for
from mcptrials.models.retry import RetryPolicy
from mcptrials.safety.loading import bounded, load_document


class ModelSpecError(ValueError):
    """A model spec or models file that names no known provider or is malformed."""


@dataclass(frozen=True)
class Preset:
    """An OpenAI-compatible endpoint by another name."""

    base_url: str
    url_env: str
    key_env: str
    concurrency: int


PRESETS: dict[str, Preset] = {
    "vllm": Preset("http://localhost:8000/v1", "VLLM_BASE_URL", "VLLM_API_KEY", 16),
    "ollama": Preset("http://localhost:11434/v1", "OLLAMA_BASE_URL", "OLLAMA_API_KEY", 2),
    "llamacpp": Preset("http://localhost:8080/v1", "LLAMACPP_BASE_URL", "LLAMACPP_API_KEY", 2),
    "openrouter": Preset("https://openrouter.ai/api/v1", "OPENROUTER_BASE_URL", "OPENROUTER_API_KEY", 8),
    "deepseek": Preset("https://api.deepseek.com/v1", "DEEPSEEK_BASE_URL", "DEEPSEEK_API_KEY", 8),
}
PROVIDERS = ("openai", "anthropic", "scripted", "local", *PRESETS)
DEFAULT_CONCURRENCY = {"openai": 8, "anthropic": 8}

_limiters: dict[str, AdaptiveLimiter] = {}


def shared_limiter(key: str, ceiling: int) -> AdaptiveLimiter:
    """One adaptive limiter per endpoint, shared by every episode and model using it."""
    if key not in _limiters:
        _limiters[key] = AdaptiveLimiter(ceiling=ceiling, name=key)
    return _limiters[key]


def active_limiters() -> list[AdaptiveLimiter]:
    return list(_limiters.values())


class ModelEntry(BaseModel):
    """One model in a models file: a spec plus its own settings."""

    model_config = ConfigDict(extra="forbid")

    spec: str
    base_url: str | None = None
    temperature: float | None = 0.0
    top_p: float | None = None
    max_tokens: int | None = 2048
    seed: int | None = None
    reasoning_effort: str | None = None
    price: dict[str, float] | None = None
    concurrency: int | None = Field(default=None, ge=1)
    tool_mode: Literal["native", "prompt"] = "native"
    max_retries: int = Field(default=4, ge=0)
    constrained: bool = False
    media: list[Literal["image", "audio"]] = Field(default_factory=list)
    """Tool-returned media the model accepts (passed as content parts; otherwise a placeholder)."""


def load_models_file(path: str | Path) -> dict[str, ModelEntry]:
    """Read ``{"models": {name: {spec, ...settings}}}`` (JSON or YAML)."""
    path = Path(path)
    data = bounded(load_document, ModelSpecError, path, "models file")
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise ModelSpecError(f"{path}: expected {{\"models\": {{name: {{\"spec\": ...}}}}}}")
    entries = {}
    for name, raw in data["models"].items():
        try:
            entries[name] = ModelEntry.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise ModelSpecError(f"{path}: model {name!r}: {'.'.join(map(str, err['loc']))}: {err['msg']}") from None
    return entries


def load_model(spec: str, *, base_url: str | None = None, sampling: SamplingSettings | None = None,
               retry: RetryPolicy | None = None, prices: dict[str, Price] | None = None,
               concurrency: int | None = None, tool_mode: str = "native",
               price: Price | None = None, constrained: bool = False) -> ChatModel:
    """Build the model named by ``spec`` (e.g. ``openai:gpt-4o-mini``, ``vllm:qwen``, ``scripted:s.json``)."""
    provider, sep, name = spec.partition(":")
    if not sep and provider != "local":
        raise ModelSpecError(f"model spec {spec!r} needs a provider prefix, e.g. openai:{spec}")
    sampling = sampling or SamplingSettings()
    retry = retry or RetryPolicy()
    table = prices if prices is not None else load_prices()
    model: ChatModel
    if provider == "openai" or provider in PRESETS:
        if not name:
            raise ModelSpecError(f"{provider}: needs a model name, e.g. {provider}:my-model")
        from mcptrials.models.openai_provider import OpenAIModel

        preset = PRESETS.get(provider)
        url = base_url or (os.environ.get(preset.url_env) or preset.base_url if preset else None)
        key_env = preset.key_env if preset else "OPENAI_API_KEY"
        ceiling = concurrency or (preset.concurrency if preset else DEFAULT_CONCURRENCY["openai"])
        limiter = shared_limiter(f"{provider}@{url or os.environ.get('OPENAI_BASE_URL') or 'api.openai.com'}", ceiling)
        model = OpenAIModel(model=name, base_url=url, sampling=sampling, retry=retry, provider=provider,
                            price=price or price_for(name, table), limiter=limiter, api_key_env=key_env)
    elif provider == "anthropic":
        if not name:
            raise ModelSpecError("anthropic: needs a model name, e.g. anthropic:claude-sonnet-4-5")
        from mcptrials.models.anthropic_provider import AnthropicModel

        limiter = shared_limiter(f"anthropic@{base_url or 'api.anthropic.com'}",
                                 concurrency or DEFAULT_CONCURRENCY["anthropic"])
        model = AnthropicModel(model=name, base_url=base_url, sampling=sampling, retry=retry,
                               price=price or price_for(name, table), limiter=limiter)
    elif provider == "scripted":
        from mcptrials.models.scripted import ScriptedModel, load_script

        if name == "reference":
            return ScriptedModel(source="reference")
        if not name:
            raise ModelSpecError("scripted: needs a script file, e.g. scripted:script.json, or scripted:reference")
        return ScriptedModel(source=name, script=load_script(name))
    elif provider == "local":
        try:
            from mcptrials.models.local import LocalModel
        except ImportError as exc:
            raise ModelSpecError(f"the local provider is not installed ({exc}); "
                                 "install it with: pip install 'mcptrials[local]'") from None
        model = LocalModel.from_spec(name, sampling=sampling, constrained=constrained)
    else:
        raise ModelSpecError(f"unknown model provider {provider!r} in {spec!r} (known: {', '.join(PROVIDERS)})")
    if tool_mode == "prompt":
        from mcptrials.models.prompt_tools import PromptToolsModel

        model = PromptToolsModel(inner=model)
    return model


def model_from_entry(entry: ModelEntry, prices: dict[str, Price] | None = None) -> ChatModel:
    """Build a model from a models-file entry."""
    sampling = SamplingSettings(temperature=entry.temperature, top_p=entry.top_p, max_tokens=entry.max_tokens,
                                seed=entry.seed, reasoning_effort=entry.reasoning_effort)
    price = Price(**entry.price) if entry.price else None
    model = load_model(entry.spec, base_url=entry.base_url, sampling=sampling,
                       retry=RetryPolicy(max_retries=entry.max_retries), prices=prices,
                       concurrency=entry.concurrency, tool_mode=entry.tool_mode, price=price,
                       constrained=entry.constrained)
    if entry.media:
        if not hasattr(model, "media"):
            raise ModelSpecError(f"{entry.spec}: 'media' is only for endpoint models (openai, anthropic, vllm)")
        model.media = tuple(entry.media)
    return model


def describe(settings: dict[str, Any]) -> str:
    """One line naming a model's provider and model, for messages."""
    return f"{settings.get('provider')}:{settings.get('model', settings.get('source', '?'))}"
