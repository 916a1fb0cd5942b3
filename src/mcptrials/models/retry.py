"""Retry transient provider errors with exponential backoff that honours ``Retry-After``."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import anyio

from mcptrials.models.base import ProviderError
from mcptrials.models.limiter import AdaptiveLimiter

T = TypeVar("T")


@dataclass
class RetryPolicy:
    """How often and how long to retry; the run records these settings."""

    max_retries: int = 4
    base_delay: float = 1.0
    max_delay: float = 60.0
    jitter: float = 0.25

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        backoff = self.base_delay * (2 ** attempt)
        return min(backoff * (1 + random.uniform(0, self.jitter)), self.max_delay)


@dataclass
class RetryStats:
    """Counters a provider exposes for progress display and the episode record."""

    retries: int = 0
    waited_s: float = 0.0
    by_kind: dict[str, int] = field(default_factory=dict)


async def with_retries(call: Callable[[], Awaitable[T]], policy: RetryPolicy,
                       stats: RetryStats | None = None, limiter: AdaptiveLimiter | None = None) -> T:
    """Run ``call``; retry retryable ``ProviderError``s per ``policy``; re-raise the rest.

    With a ``limiter``, each attempt holds one of the provider's slots, and rate limits shrink it.
    """
    attempt = 0
    while True:
        try:
            if limiter is None:
                result = await call()
            else:
                async with limiter.slot():
                    result = await call()
                limiter.on_success()
            return result
        except ProviderError as exc:
            if limiter is not None and exc.kind == "rate_limit":
                limiter.on_rate_limit()
            if not exc.retryable or attempt >= policy.max_retries:
                raise
            wait = policy.delay(attempt, exc.retry_after)
            if stats is not None:
                stats.retries += 1
                stats.waited_s += wait
                stats.by_kind[exc.kind] = stats.by_kind.get(exc.kind, 0) + 1
            if limiter is not None:
                limiter.retries += 1
                limiter.waited_s += wait
            attempt += 1
            await anyio.sleep(wait)


def parse_retry_after(headers: object) -> float | None:
    """Read ``retry-after-ms`` or ``retry-after`` (seconds) from response headers, if present."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = get(name)
        if value is None:
            continue
        try:
            return float(value) * scale
        except (TypeError, ValueError):
            from email.utils import parsedate_to_datetime

            try:
                from datetime import UTC, datetime

                return max(0.0, (parsedate_to_datetime(str(value)) - datetime.now(UTC)).total_seconds())
            except (TypeError, ValueError):
                return None
    return None
