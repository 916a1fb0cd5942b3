"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp server, OpenRouter...)."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any

import openai

from mcptrials.model import ToolCallRequest, Usage
from mcptrials.models.base import (
    Message,
    ModelResponse,
    ProviderError,
    ToolSchema,
)
from mcptrials.models.endpoint import EndpointModel, split_query
from mcptrials.models.retry import parse_retry_after

_VALID_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_CONTEXT_HINTS = ("context length", "context_length", "maximum context", "too many tokens", "prompt is too long")
_QUOTA_HINTS = ("insufficient_quota", "quota", "billing", "credit balance")


def wire_name(name: str) -> str:
    """A function name the OpenAI API accepts (letters, digits, _ and -, at most 64)."""
    if _VALID_NAME.match(name):
        return name
    import hashlib

    safe = re.sub(r"[^A-Za-z0-9_-]", "_", name)
    if len(safe) > 64:
        safe = safe[:55] + "_" + hashlib.sha1(name.encode()).hexdigest()[:8]
    return safe


def parse_arguments(raw: Any) -> tuple[dict[str, Any] | None, str | None]:
    """Turn a tool call's argument payload into a dict; None plus the raw text when it is not one."""
    if isinstance(raw, dict):
        return raw, None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            return None, raw
        if isinstance(value, dict):
            return value, None
    return None, raw if isinstance(raw, str) else json.dumps(raw)


def to_wire_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Our provider-neutral messages in the Chat Completions shape."""
    wire: list[dict[str, Any]] = []
    media: list[dict[str, Any]] = []  # tool messages carry text only: their images follow as one user message
    for m in messages:
        if media and m.role != "tool":
            wire.append({"role": "user", "content": media})
            media = []
        if m.role == "tool":
            wire.append({"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.content})
            media += _media_parts(m)
        elif m.role == "assistant" and m.tool_calls:
            wire.append({
                "role": "assistant",
                "content": m.content or None,
                "tool_calls": [{
                    "id": c.id, "type": "function",
                    "function": {"name": wire_name(c.name),
                                 "arguments": c.raw_arguments if c.arguments is None else json.dumps(c.arguments)},
                } for c in m.tool_calls],
            })
        else:
            wire.append({"role": m.role, "content": m.content})
    if media:
        wire.append({"role": "user", "content": media})
    return wire


def _media_parts(m: Message) -> list[dict[str, Any]]:
    """Chat Completions content parts for a tool message's images (and wav/mp3 audio)."""
    parts: list[dict[str, Any]] = []
    for item in m.media:
        mime = item.get("mime_type") or ""
        if item.get("kind") == "image":
            parts.append({"type": "image_url", "image_url": {"url": f"data:{mime};base64,{item['data']}"}})
        elif item.get("kind") == "audio" and mime.split("/")[-1] in {"wav", "x-wav", "mpeg", "mp3"}:
            parts.append({"type": "input_audio", "input_audio": {
                "data": item["data"], "format": "wav" if "wav" in mime else "mp3"}})
    if parts:
        parts.insert(0, {"type": "text", "text": f"(media returned by tool call {m.tool_call_id})"})
    return parts


def classify_status(status: int, body: str, headers: Any) -> ProviderError:
    """Map an HTTP error status and body to a classified ``ProviderError``."""
    lowered = body.lower()
    snippet = body[:300]
    if status == 429:
        if any(h in lowered for h in _QUOTA_HINTS):
            return ProviderError("quota", f"quota exhausted (HTTP 429): {snippet}", status=status, raw=body)
        return ProviderError("rate_limit", f"rate limited (HTTP 429): {snippet}",
                             retry_after=parse_retry_after(headers), status=status, raw=body)
    if status in {401, 403}:
        return ProviderError("auth", f"authentication failed (HTTP {status}): {snippet}", status=status, raw=body)
    if status == 402:
        return ProviderError("quota", f"payment required (HTTP 402): {snippet}", status=status, raw=body)
    if status == 404:
        return ProviderError("model_not_found", f"model or endpoint not found (HTTP 404): {snippet}",
                             status=status, raw=body)
    if status == 400 and any(h in lowered for h in _QUOTA_HINTS):
        return ProviderError("quota", f"quota or credit exhausted (HTTP 400): {snippet}", status=status, raw=body)
    if status in {400, 413, 422} and any(h in lowered for h in _CONTEXT_HINTS):
        return ProviderError("context_overflow", f"context window exceeded (HTTP {status}): {snippet}",
                             status=status, raw=body)
    if status >= 500 or status in {408, 409}:
        return ProviderError("server_error", f"server error (HTTP {status}): {snippet}",
                             retry_after=parse_retry_after(headers), status=status, raw=body)
    return ProviderError("bad_request", f"request rejected (HTTP {status}): {snippet}", status=status, raw=body)


def parse_completion(body: str, names: dict[str, str]) -> ModelResponse:
    """Read a Chat Completions JSON body; ``names`` maps wire names back to tool names."""
    try:
        data = json.loads(body)
        choice = data["choices"][0]
        message = choice["message"]
    except (json.JSONDecodeError, KeyError, IndexError, TypeError) as exc:
        raise ProviderError("malformed_response", f"unreadable completion ({type(exc).__name__})",
                            raw=body[:4000]) from None
    calls = []
    for i, call in enumerate(message.get("tool_calls") or []):
        fn = call.get("function") or {}
        args, raw = parse_arguments(fn.get("arguments"))
        wire = str(fn.get("name", ""))
        calls.append(ToolCallRequest(id=str(call.get("id") or f"call_{i}"), name=names.get(wire, wire),
                                     arguments=args, raw_arguments=raw))
    usage = data.get("usage") or {}
    return ModelResponse(
        text=message.get("content") or "",
        tool_calls=calls,
        usage=Usage(prompt_tokens=int(usage.get("prompt_tokens") or 0),
                    completion_tokens=int(usage.get("completion_tokens") or 0)),
        finish_reason=choice.get("finish_reason"),
    )


@dataclass
class OpenAIModel(EndpointModel):
    """A chat model served by an OpenAI-compatible endpoint, with classified, retried errors."""

    api_key_env: str = "OPENAI_API_KEY"
    _client: openai.AsyncOpenAI | None = None

    def endpoint(self) -> str | None:
        return self.base_url or os.environ.get("OPENAI_BASE_URL")

    def client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            base_url = self.endpoint()
            key = self.api_key or os.environ.get(self.api_key_env) or ("not-needed" if base_url else None)
            if key is None:
                raise ProviderError("auth", f"no API key: set {self.api_key_env}, "
                                            "or give --base-url for a local server")
            base, query = split_query(base_url)
            self._client = openai.AsyncOpenAI(base_url=base, default_query=query, api_key=key, max_retries=0,
                                              timeout=self.timeout)
        return self._client

    def _request(self, messages: list[Message], tools: list[ToolSchema]) -> tuple[dict[str, Any], dict[str, str]]:
        names = {wire_name(t.name): t.name for t in tools}
        body: dict[str, Any] = {"model": self.model, "messages": to_wire_messages(messages)}
        if tools:
            body["tools"] = [{"type": "function", "function": {
                "name": wire_name(t.name), "description": t.description, "parameters": t.parameters}}
                for t in tools]
        s = self.sampling
        for key in ("temperature", "top_p", "seed", "reasoning_effort"):
            value = getattr(s, key)
            if value is not None:
                body[key] = value
        if s.max_tokens is not None:
            body["max_tokens"] = s.max_tokens
        return body, names

    async def generate(self, messages: list[Message], tools: list[ToolSchema]) -> ModelResponse:
        body, names = self._request(messages, tools)
        return await self._priced(lambda: self._once(body, names))

    async def _once(self, body: dict[str, Any], names: dict[str, str]) -> ModelResponse:
        client = self.client()
        try:
            raw = await client.chat.completions.with_raw_response.create(**body)
        except openai.APITimeoutError:
            raise ProviderError("timeout", f"no answer within {self.timeout:g}s") from None
        except openai.APIConnectionError as exc:
            raise ProviderError("connection", f"cannot reach the endpoint: {exc}") from None
        except openai.APIStatusError as exc:
            raise classify_status(exc.status_code, exc.response.text, exc.response.headers) from None
        except openai.OpenAIError as exc:
            raise ProviderError("malformed_response", f"{type(exc).__name__}: {exc}") from None
        return parse_completion(raw.http_response.text, names)
