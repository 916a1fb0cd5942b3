"""Adaptive concurrency per provider: halve on a rate limit, grow back one slot at a time (AIMD)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio


@dataclass
class AdaptiveLimiter:
    """Caps in-flight requests to one provider; the cap adapts to rate limits, never above ``ceiling``."""

    ceiling: int = 8
    name: str = ""
    capacity: int = 0
    in_flight: int = 0
    waiting: int = 0
    retries: int = 0
    rate_limits: int = 0
    waited_s: float = 0.0
    _streak: int = 0
    _changed: anyio.Condition = field(default_factory=anyio.Condition)

    def __post_init__(self) -> None:
        self.ceiling = max(1, self.ceiling)
        self.capacity = self.capacity or self.ceiling

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one request slot for the duration of the block."""
        async with self._changed:
            self.waiting += 1
            try:
                while self.in_flight >= self.capacity:
                    await self._changed.wait()
            finally:
                self.waiting -= 1
            self.in_flight += 1
        try:
            yield
        finally:
            async with self._changed:
                self.in_flight -= 1
                self._changed.notify_all()

    def on_success(self) -> None:
        """Additive increase: one more slot after a full window of successes."""
        self._streak += 1
        if self._streak >= self.capacity and self.capacity < self.ceiling:
            self.capacity += 1
            self._streak = 0

    def on_rate_limit(self) -> None:
        """Multiplicative decrease: halve the cap (at least one slot stays)."""
        self.rate_limits += 1
        self.capacity = max(1, self.capacity // 2)
        self._streak = 0

    def describe(self) -> str:
        """A short status line for the progress display."""
        return (f"{self.name}: {self.in_flight}/{self.capacity} in flight, {self.waiting} queued, "
                f"{self.retries} retries, {self.waited_s:.0f}s waited")
