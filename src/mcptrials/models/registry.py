"""Turn a model spec string (``provider:name``) into a ``ChatModel``."""

from __future__ import annotations

from mcptrials.models.base import ChatModel, SamplingSettings
from mcptrials.models.retry import RetryPolicy


class ModelSpecError(ValueError):
    """A model spec that names no known provider or lacks its model name."""


PROVIDERS = ("openai", "scripted", "local")


def load_model(spec: str, *, base_url: str | None = None, sampling: SamplingSettings | None = None,
               retry: RetryPolicy | None = None) -> ChatModel:
    """Build the model named by ``spec`` (e.g. ``openai:gpt-4o-mini``, ``scripted:script.json``)."""
    provider, sep, name = spec.partition(":")
    if not sep and provider != "local":
        raise ModelSpecError(f"model spec {spec!r} needs a provider prefix, e.g. openai:{spec}")
    sampling = sampling or SamplingSettings()
    if provider == "openai":
        if not name:
            raise ModelSpecError("openai: needs a model name, e.g. openai:gpt-4o-mini")
        from mcptrials.models.openai_provider import OpenAIModel

        return OpenAIModel(model=name, base_url=base_url, sampling=sampling, retry=retry or RetryPolicy())
    if provider == "scripted":
        from mcptrials.models.scripted import ScriptedModel, load_script

        if name == "reference":
            return ScriptedModel(source="reference")
        if not name:
            raise ModelSpecError("scripted: needs a script file, e.g. scripted:script.json, or scripted:reference")
        return ScriptedModel(source=name, script=load_script(name))
    if provider == "local":
        try:
            from mcptrials.models.local import LocalModel
        except ImportError as exc:
            raise ModelSpecError(f"the local provider is not installed ({exc}); "
                                 "install it with: pip install 'mcptrials[local]'") from None
        return LocalModel.from_spec(name, sampling=sampling)
    raise ModelSpecError(f"unknown model provider {provider!r} in {spec!r} (known: {', '.join(PROVIDERS)})")
