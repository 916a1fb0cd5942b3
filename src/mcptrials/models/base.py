"""The ChatModel protocol: messages and tool schemas in; text, tool calls and usage out.

Every provider (openai, scripted, local, anthropic) implements ``ChatModel``. Agents only
ever see this protocol, so a new provider never touches agent code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from mcptrials.model import ToolCallRequest, Usage


class Message(BaseModel):
    """One chat message in provider-neutral form."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None
    media: list[dict[str, str]] = Field(default_factory=list)
    """Images/audio a tool returned ({kind, mime_type, data (base64)}), for models that accept them."""


class ToolSchema(BaseModel):
    """A tool as offered to the model: qualified name, description, JSON Schema of its input."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class SamplingSettings(BaseModel):
    """Sampling settings that can change a score; all recorded with the run."""

    model_config = ConfigDict(extra="forbid")

    temperature: float | None = 0.0
    top_p: float | None = None
    max_tokens: int | None = 2048
    seed: int | None = None
    reasoning_effort: str | None = None


class ModelResponse(BaseModel):
    """What one model call produced."""

    model_config = ConfigDict(extra="forbid")

    text: str = ""
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str | None = None


InfraKind = Literal[
    "rate_limit", "server_error", "timeout", "connection", "malformed_response",
    "auth", "quota", "model_not_found", "context_overflow", "bad_request",
]
FATAL_KINDS: frozenset[str] = frozenset({"auth", "quota", "model_not_found"})
"""Errors no retry can fix and that hit every episode alike: they stop the whole run."""


class ProviderError(Exception):
    """A provider call that failed for infrastructure reasons, classified by ``kind``.

    ``retry_after`` is the server's requested wait in seconds where it gave one; ``raw`` is
    the response body (never headers, which may carry keys) for the episode record.
    """

    def __init__(self, kind: InfraKind, message: str, *, retry_after: float | None = None,
                 status: int | None = None, raw: str | None = None) -> None:
        super().__init__(message)
        self.kind: InfraKind = kind
        self.message = message
        self.retry_after = retry_after
        self.status = status
        self.raw = raw

    @property
    def retryable(self) -> bool:
        return self.kind in {"rate_limit", "server_error", "timeout", "connection"}

    @property
    def fatal(self) -> bool:
        return self.kind in FATAL_KINDS


@dataclass
class EpisodeContext:
    """What a model may know about the episode it serves (used by scripted models only)."""

    task_id: str
    attempt: int = 0
    reference: list[dict[str, Any]] = field(default_factory=list)
    reference_answer: str | None = None


@runtime_checkable
class ChatModel(Protocol):
    """A chat model that may call tools."""

    @property
    def spec(self) -> str:
        """The model spec string, e.g. ``openai:gpt-4o-mini``, recorded with every episode."""
        ...

    async def generate(self, messages: list[Message], tools: list[ToolSchema]) -> ModelResponse:
        """Answer the conversation; raise ``ProviderError`` on infrastructure failure."""
        ...

    def for_episode(self, context: EpisodeContext) -> ChatModel:
        """Return the model to use for one episode (stateless providers return ``self``)."""
        ...

    def settings(self) -> dict[str, Any]:
        """Every setting of this model that can change a score, for the run record."""
        ...
