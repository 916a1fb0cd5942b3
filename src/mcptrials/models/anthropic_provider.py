"""Anthropic's Messages API through the official ``anthropic`` SDK (extra ``mcptrials[anthropic]``)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from mcptrials.model import ToolCallRequest, Usage
from mcptrials.models.base import Message, ModelResponse, ProviderError, ToolSchema
from mcptrials.models.endpoint import EndpointModel, split_query
from mcptrials.models.openai_provider import classify_status, wire_name

DEFAULT_MAX_TOKENS = 4096


def to_anthropic(messages: list[Message]) -> tuple[str, list[dict[str, Any]]]:
    """Split out the system prompt and fold tool results into user turns, as the API expects."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    wire: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            continue
        if m.role == "tool":
            images = [{"type": "image",
                       "source": {"type": "base64", "media_type": i.get("mime_type"), "data": i["data"]}}
                      for i in m.media if i.get("kind") == "image"]
            block = {"type": "tool_result", "tool_use_id": m.tool_call_id or "",
                     "content": [{"type": "text", "text": m.content}, *images] if images else m.content}
            if wire and wire[-1]["role"] == "user" and isinstance(wire[-1]["content"], list):
                wire[-1]["content"].append(block)
            else:
                wire.append({"role": "user", "content": [block]})
        elif m.role == "assistant":
            content: list[dict[str, Any]] = [{"type": "text", "text": m.content}] if m.content else []
            content += [{"type": "tool_use", "id": c.id, "name": wire_name(c.name), "input": c.arguments or {}}
                        for c in m.tool_calls]
            wire.append({"role": "assistant", "content": content or [{"type": "text", "text": ""}]})
        else:
            wire.append({"role": "user", "content": m.content})
    return system, wire


def parse_message(body: str, names: dict[str, str]) -> ModelResponse:
    """Read a Messages API JSON body into a ``ModelResponse``."""
    try:
        data = json.loads(body)
        blocks = data["content"]
        usage = data.get("usage") or {}
        texts = [b["text"] for b in blocks if b.get("type") == "text"]
        calls = []
        for i, b in enumerate(b for b in blocks if b.get("type") == "tool_use"):
            args = b.get("input")
            calls.append(ToolCallRequest(id=str(b.get("id") or f"toolu_{i}"), name=names.get(b["name"], b["name"]),
                                         arguments=args if isinstance(args, dict) else None,
                                         raw_arguments=None if isinstance(args, dict) else json.dumps(args)))
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise ProviderError("malformed_response", f"unreadable message ({type(exc).__name__})", raw=body[:4000]) \
            from None
    prompt = sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_creation_input_tokens",
                                                   "cache_read_input_tokens"))
    return ModelResponse(text="".join(texts), tool_calls=calls,
                         usage=Usage(prompt_tokens=prompt, completion_tokens=int(usage.get("output_tokens") or 0)),
                         finish_reason=data.get("stop_reason"))


@dataclass
class AnthropicModel(EndpointModel):
    """A Claude model behind the Messages API, with classified, retried errors."""

    provider: str = "anthropic"
    _client: Any = None

    def client(self) -> Any:
        if self._client is None:
            try:
                import anthropic
            except ImportError:
                raise ProviderError("auth", "the anthropic SDK is not installed: pip install 'mcptrials[anthropic]'") \
                    from None
            key = self.api_key or os.environ.get("ANTHROPIC_API_KEY")
            if not key:
                raise ProviderError("auth", "no API key: set ANTHROPIC_API_KEY")
            base, query = split_query(self.base_url or None)
            self._client = anthropic.AsyncAnthropic(api_key=key, base_url=base, default_query=query, max_retries=0,
                                                    timeout=self.timeout)
        return self._client

    async def generate(self, messages: list[Message], tools: list[ToolSchema]) -> ModelResponse:
        system, wire = to_anthropic(messages)
        names = {wire_name(t.name): t.name for t in tools}
        body: dict[str, Any] = {"model": self.model, "messages": wire,
                                "max_tokens": self.sampling.max_tokens or DEFAULT_MAX_TOKENS}
        if system:
            body["system"] = system
        if tools:
            body["tools"] = [{"name": wire_name(t.name), "description": t.description, "input_schema": t.parameters}
                             for t in tools]
        # the SDK has no typed sampling fields any more; the wire API still takes them
        extra = {k: v for k in ("temperature", "top_p") if (v := getattr(self.sampling, k)) is not None}
        if extra:
            body["extra_body"] = extra
        return await self._priced(lambda: self._once(body, names))

    async def _once(self, body: dict[str, Any], names: dict[str, str]) -> ModelResponse:
        import anthropic

        client = self.client()
        try:
            raw = await client.messages.with_raw_response.create(**body)
        except anthropic.APITimeoutError:
            raise ProviderError("timeout", f"no answer within {self.timeout:g}s") from None
        except anthropic.APIConnectionError as exc:
            raise ProviderError("connection", f"cannot reach the endpoint: {exc}") from None
        except anthropic.APIStatusError as exc:
            raise classify_status(exc.status_code, exc.response.text, exc.response.headers) from None
        except anthropic.AnthropicError as exc:
            raise ProviderError("malformed_response", f"{type(exc).__name__}: {exc}") from None
        return parse_message(raw.http_response.text, names)
