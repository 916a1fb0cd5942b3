"""Statistics over attempts: pass^k, pass@k, Wilson intervals.

The unit of pass^k is one task on one server version: attempts of a task on v0 and on v3 are
different experiments (the interface changed), never attempts of one another.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

UnitKey = TypeVar("UnitKey", bound=Hashable)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Probability that k attempts drawn without replacement from n (c passed) all pass: C(c,k)/C(n,k)."""
    _check(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): 1 - C(n-c,k)/C(n,k), the chance one of k attempts passes."""
    _check(n, c, k)
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n) or not (1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")


def mean_over_tasks(counts: Iterable[tuple[int, int]], k: int, estimator: str = "hat") -> float | None:
    """Average ``pass_hat_k`` (or ``pass_at_k``) over tasks given (n, c) per task; tasks with n < k are left out."""
    fn = pass_hat_k if estimator == "hat" else pass_at_k
    values = [fn(n, c, k) for n, c in counts if n >= k]
    return sum(values) / len(values) if values else None


def wilson_interval(successes: float, total: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a proportion; (0, 1) when there is no data."""
    if total <= 0:
        return 0.0, 1.0
    p = successes / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class PassRates(Generic[UnitKey]):
    """pass^k, pass@k and pass@1 over units (e.g. (task, version) pairs) of scored attempts.

    ``n_units`` counts the units with at least k attempts, the ones pass^k and pass@k average
    over; ``short_of_k`` lists the others (including units with no scored attempt at all), so
    nothing drops out unseen. pass@1 averages every unit with at least one attempt.
    """

    k: int
    n_units: int
    pass_hat_k: float | None
    pass_at_k: float | None
    pass_at_1: float | None
    short_of_k: list[UnitKey] = field(default_factory=list)


def pass_rates(attempts: Mapping[UnitKey, Sequence[bool]], k: int | None = None) -> PassRates[UnitKey]:
    """pass^k / pass@k / pass@1 over units given each unit's attempt outcomes (True = passed).

    ``k`` defaults to the largest number of attempts any unit has (1 when there are none).
    """
    most = max((len(v) for v in attempts.values()), default=0)
    k = k or most or 1
    counts = {key: (len(v), sum(bool(x) for x in v)) for key, v in attempts.items()}
    scored = [nc for nc in counts.values() if nc[0] >= k]
    short = [key for key, (n, _) in counts.items() if n < k]
    return PassRates(k=k, n_units=len(scored), pass_hat_k=mean_over_tasks(scored, k, "hat"),
                     pass_at_k=mean_over_tasks(scored, k, "at"),
                     pass_at_1=mean_over_tasks(counts.values(), 1, "hat"), short_of_k=short)
