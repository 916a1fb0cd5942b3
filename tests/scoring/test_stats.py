"""pass^k, pass@k and Wilson intervals against hand-computed values."""

from __future__ import annotations

import math

import pytest

from mcptrials.scoring.stats import mean_over_tasks, pass_at_k, pass_hat_k, pass_rates, wilson_interval


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


# A and B each run on v0 and v3, three attempts per (task, version).
ATTEMPTS = {
    ("A", "v0"): [True, True, False],
    ("A", "v3"): [True, False, False],
    ("B", "v0"): [True, True, True],
    ("B", "v3"): [False, False, False],
}


def test_pass_rates_per_task_and_version_hand_values() -> None:
    rates = pass_rates(ATTEMPTS)
    # k defaults to 3 attempts; pass^3 per unit: (A,v0) 0, (A,v3) 0, (B,v0) 1, (B,v3) 0
    assert rates.k == 3 and rates.n_units == 4 and rates.short_of_k == []
    assert rates.pass_hat_k == pytest.approx(0.25)
    # pass@3 per unit: 1, 1, 1, 0
    assert rates.pass_at_k == pytest.approx(0.75)
    # pass@1 per unit: 2/3, 1/3, 1, 0
    assert rates.pass_at_1 == pytest.approx(0.5)
    two = pass_rates(ATTEMPTS, k=2)
    # pass^2: C(2,2)/C(3,2) = 1/3, 0, 1, 0
    assert two.pass_hat_k == pytest.approx((1 / 3 + 0 + 1 + 0) / 4)
    # pass@2: 1 - C(1,2)/C(3,2) = 1, 1 - C(2,2)/C(3,2) = 2/3, 1, 0
    assert two.pass_at_k == pytest.approx((1 + 2 / 3 + 1 + 0) / 4)


def test_versions_are_not_attempts_of_one_task() -> None:
    pooled = pass_rates({"A": ATTEMPTS[("A", "v0")] + ATTEMPTS[("A", "v3")],
                         "B": ATTEMPTS[("B", "v0")] + ATTEMPTS[("B", "v3")]}, k=3)
    # pooling v0 and v3 as six attempts (3 passed each) gives C(3,3)/C(6,3) = 1/20 per task
    assert pooled.pass_hat_k == pytest.approx(1 / 20)
    assert pass_rates(ATTEMPTS, k=3).pass_hat_k != pytest.approx(pooled.pass_hat_k)


def test_units_short_of_k_are_listed_not_dropped() -> None:
    rates = pass_rates({("A", "v0"): [True, True], ("B", "v0"): [True], ("C", "v0"): []})
    assert rates.k == 2 and rates.n_units == 1
    assert rates.short_of_k == [("B", "v0"), ("C", "v0")]
    assert rates.pass_hat_k == 1.0
    assert rates.pass_at_1 == pytest.approx(1.0)  # C has no scored attempt, so no pass@1 either
    assert pass_rates({}).n_units == 0 and pass_rates({}).pass_hat_k is None
