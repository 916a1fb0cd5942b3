"""What every remote chat endpoint shares: identity, sampling, retries, the adaptive limiter, pricing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Self
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import anyio

from mcptrials.model import public_url
from mcptrials.models.base import EpisodeContext, ModelResponse, ProviderError, SamplingSettings
from mcptrials.models.limiter import AdaptiveLimiter
from mcptrials.models.pricing import Price
from mcptrials.models.retry import RetryPolicy, RetryStats, with_retries


def split_query(url: str | None) -> tuple[str | None, dict[str, str] | None]:
    """A base URL without its query string, and that query as parameters for every request.

    The SDKs append a request's path to the base URL's text, so ``https://h/v1?token=X`` would become
    ``https://h/v1/?token=Xchat/completions``; the query has to travel as the client's default query instead.
    """
    if not url or "?" not in url:
        return url, None
    parts = urlsplit(url)
    return urlunsplit(parts._replace(query="", fragment="")), dict(parse_qsl(parts.query, keep_blank_values=True))


@dataclass
class EndpointModel:
    """Base of the HTTP providers; subclasses build requests and make one attempt (``_once``)."""

    model: str
    base_url: str | None = None
    api_key: str | None = None
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout: float = 120.0
    media: tuple[str, ...] = ()
    """Kinds of tool-returned media this model accepts (``image``, ``audio``); others see placeholders."""
    provider: str = "openai"
    price: Price = field(default_factory=Price)
    limiter: AdaptiveLimiter | None = None
    stats: RetryStats = field(default_factory=RetryStats)

    @property
    def spec(self) -> str:
        return f"{self.provider}:{self.model}"

    def for_episode(self, context: EpisodeContext) -> Self:
        return self

    def endpoint(self) -> str | None:
        """The base URL requests go to (None: the provider's default)."""
        return self.base_url

    def settings(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.model, "base_url": public_url(self.endpoint()),
                "sampling": self.sampling.model_dump(exclude_none=True),
                "retry": {"max_retries": self.retry.max_retries, "base_delay": self.retry.base_delay},
                "timeout": self.timeout, "price_per_mtok": {"input": self.price.input, "output": self.price.output},
                **({"media": list(self.media)} if self.media else {})}

    async def _priced(self, once: Callable[[], Awaitable[ModelResponse]]) -> ModelResponse:
        """Run one request with retries through the limiter, and price its usage."""
        response = await with_retries(lambda: self._within_deadline(once), self.retry, self.stats, self.limiter)
        response.usage.cost_usd = self.price.cost(response.usage)
        return response

    async def _within_deadline(self, once: Callable[[], Awaitable[ModelResponse]]) -> ModelResponse:
        """One attempt bounded as a whole by ``timeout``: an endpoint that drips bytes cannot hold it forever.

        The HTTP client's own timeout bounds each read, not the request, so a byte every few seconds never trips it.
        """
        with anyio.move_on_after(self.timeout):
            return await once()
        raise ProviderError("timeout", f"no complete answer within {self.timeout:g}s (overall request deadline)")
