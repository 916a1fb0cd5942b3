"""Headline figures: a pass rate that counts infra episodes, and each distinct infra failure named once.

A rate over scored episodes alone reads "100 % 6/6" while 2 of 8 episodes never ran; every
headline here says "75 % 6/8, 2 infra" instead: infra episodes are in the denominator and named.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from mcptrials.model import InfraError


def pass_headline(passed: int, failed: int, infra: int) -> str:
    """``75 % 6/8, 2 infra``: passed over every episode, infra ones included and counted ("–" with none)."""
    total = passed + failed + infra
    rate = "–" if not total else f"{100 * passed / total:.0f} %"
    return f"{rate} {passed}/{total}" + (f", {infra} infra" if infra else "")


@dataclass
class InfraFailure:
    """One distinct infra failure (same kind, server and message) and the episodes it hit."""

    kind: str
    server: str | None
    message: str
    episodes: list[str] = field(default_factory=list)

    def lines(self, shown: int = 5) -> list[str]:
        """The failure as printed: its kind and server, the episodes, then the message's lines indented."""
        where = f", server {self.server!r}" if self.server else ""
        more = f" (+{len(self.episodes) - shown} more)" if len(self.episodes) > shown else ""
        head = (f"infra error ({self.kind}{where}) in {len(self.episodes)} episode(s): "
                f"{', '.join(self.episodes[:shown])}{more}")
        return [head, *(f"  {line}" for line in self.message.strip().splitlines() or ["(no message)"])]


def distinct_infra(found: Iterable[tuple[str, InfraError]]) -> list[InfraFailure]:
    """Infra errors grouped by (kind, server, message), in the order first seen, with their episode ids."""
    groups: dict[tuple[str, str | None, str], InfraFailure] = {}
    for episode_id, error in found:
        key = (error.kind, error.server, error.message)
        groups.setdefault(key, InfraFailure(*key)).episodes.append(episode_id)
    return list(groups.values())
