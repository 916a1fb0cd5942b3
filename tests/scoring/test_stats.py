"""pass^k, pass@k and Wilson intervals against hand-computed values."""

from __future__ import annotations

import math

import pytest

from mcptrials.scoring.stats import mean_over_tasks, pass_at_k, pass_hat_k, wilson_interval


def test_pass_hat_k_hand_values() -> None:
    # n=5 attempts, c=3 passed, k=2: C(3,2)/C(5,2) = 3/10
    assert pass_hat_k(5, 3, 2) == pytest.approx(0.3)
    # k = n: all must pass
    assert pass_hat_k(3, 3, 3) == 1.0
    assert pass_hat_k(3, 2, 3) == 0.0
    # k=1 is the pass rate
    assert pass_hat_k(4, 1, 1) == pytest.approx(0.25)


def test_pass_at_k_hand_values() -> None:
    # n=5, c=1, k=2: 1 - C(4,2)/C(5,2) = 1 - 6/10
    assert pass_at_k(5, 1, 2) == pytest.approx(0.4)
    assert pass_at_k(5, 0, 3) == 0.0
    # n-c < k: some attempt must pass
    assert pass_at_k(3, 2, 2) == 1.0


def test_pass_hat_k_never_exceeds_pass_at_k() -> None:
    for n in range(1, 7):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert pass_hat_k(n, c, k) <= pass_at_k(n, c, k) + 1e-12


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        pass_hat_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def test_mean_over_tasks_skips_tasks_short_of_k() -> None:
    # tasks: (3,3) -> 1, (3,1) -> 0, (2,2) left out for k=3
    assert mean_over_tasks([(3, 3), (3, 1), (2, 2)], 3) == pytest.approx(0.5)
    assert mean_over_tasks([], 1) is None


def test_wilson_interval_hand_value() -> None:
    # 8 of 10 at 95%: known interval (0.4902, 0.9433)
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4)
    assert high == pytest.approx(0.9433, abs=1e-4)
    low, high = wilson_interval(3, 3)
    assert high == 1.0 and math.isclose(low, 0.4385, abs_tol=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
