"""Statistics over attempts: pass^k, pass@k, Wilson intervals."""

from __future__ import annotations

import math
from collections.abc import Iterable


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
