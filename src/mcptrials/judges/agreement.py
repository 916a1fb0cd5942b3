"""Agreement of a scorer with labels: binary verdicts and 1-10 scores, with bootstrap 95% intervals.

Binary: accuracy, F1 (pass is the positive class), Cohen's kappa and Gwet's AC1. scipy has no
kappa or AC1, so both are written here from their definitions (and tested on small tables
computed by hand):

    kappa = (p_o - p_e) / (1 - p_e),  p_e = sum_k p_rater1(k) * p_rater2(k)
    AC1   = (p_o - p_e) / (1 - p_e),  p_e = 1/(Q-1) * sum_k pi_k (1 - pi_k),
            pi_k = (p_rater1(k) + p_rater2(k)) / 2, Q = 2 categories

Scores: Spearman rho and Kendall tau (tau-b) from ``scipy.stats``. Intervals are seeded
percentile bootstraps over items (2000 resamples); a resample where a statistic is undefined
(e.g. kappa when both raters give one class throughout) is skipped.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import stats as sps

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20260413


def _proportions(a: Sequence[bool], b: Sequence[bool]) -> tuple[float, float, float]:
    n = len(a)
    agree = sum(x == y for x, y in zip(a, b, strict=True)) / n
    return agree, sum(a) / n, sum(b) / n


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Cohen's kappa of two binary raters; NaN when chance agreement is 1 (one class throughout)."""
    if not a:
        return math.nan
    p_o, p1, p2 = _proportions(a, b)
    p_e = p1 * p2 + (1 - p1) * (1 - p2)
    return math.nan if p_e == 1 else (p_o - p_e) / (1 - p_e)


def gwet_ac1(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Gwet's AC1 of two binary raters (defined whenever there are items)."""
    if not a:
        return math.nan
    p_o, p1, p2 = _proportions(a, b)
    pi = (p1 + p2) / 2
    p_e = 2 * pi * (1 - pi)  # 1/(Q-1) * sum_k pi_k(1-pi_k) with Q = 2
    return math.nan if p_e == 1 else (p_o - p_e) / (1 - p_e)


def accuracy(truth: Sequence[bool], predicted: Sequence[bool]) -> float:
    return sum(x == y for x, y in zip(truth, predicted, strict=True)) / len(truth) if truth else math.nan


def f1(truth: Sequence[bool], predicted: Sequence[bool]) -> float:
    """F1 of the pass class; NaN when neither side says pass."""
    tp = sum(t and p for t, p in zip(truth, predicted, strict=True))
    fp = sum(p and not t for t, p in zip(truth, predicted, strict=True))
    fn = sum(t and not p for t, p in zip(truth, predicted, strict=True))
    return math.nan if tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn)


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return math.nan
    return float(sps.spearmanr(x, y).statistic)


def kendall(x: Sequence[float], y: Sequence[float]) -> float:
    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return math.nan
    return float(sps.kendalltau(x, y).statistic)


def bootstrap_ci(stat: Callable[[list[Any], list[Any]], float], x: Sequence[Any], y: Sequence[Any],
                 resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> tuple[float, float] | None:
    """Seeded percentile bootstrap 95% interval of ``stat(x, y)`` over paired items."""
    n = len(x)
    if n < 2:
        return None
    rng = np.random.default_rng(seed)
    xs, ys = list(x), list(y)
    values = []
    for _ in range(resamples):
        idx = rng.integers(0, n, n)
        value = stat([xs[i] for i in idx], [ys[i] for i in idx])
        if not math.isnan(value):
            values.append(value)
    if len(values) < resamples // 2:
        return None
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def _clean(value: float) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), 4)


def _with_ci(stat: Callable[[list[Any], list[Any]], float], x: Sequence[Any], y: Sequence[Any]) -> dict[str, Any]:
    point = stat(list(x), list(y))
    ci = bootstrap_ci(stat, x, y) if not math.isnan(point) else None
    return {"value": _clean(point), "ci95": None if ci is None else [round(ci[0], 4), round(ci[1], 4)]}


def binary_agreement(truth: Sequence[bool], predicted: Sequence[bool]) -> dict[str, Any]:
    """n, accuracy, F1, kappa and AC1 (each with its bootstrap interval) and the 2x2 table."""
    table = {"both_pass": sum(t and p for t, p in zip(truth, predicted, strict=True)),
             "both_fail": sum(not t and not p for t, p in zip(truth, predicted, strict=True)),
             "label_pass_scorer_fail": sum(t and not p for t, p in zip(truth, predicted, strict=True)),
             "label_fail_scorer_pass": sum(p and not t for t, p in zip(truth, predicted, strict=True))}
    return {"n": len(truth), "table": table,
            "accuracy": _with_ci(accuracy, truth, predicted), "f1": _with_ci(f1, truth, predicted),
            "cohen_kappa": _with_ci(cohen_kappa, truth, predicted), "gwet_ac1": _with_ci(gwet_ac1, truth, predicted)}


def score_agreement(truth: Sequence[float], predicted: Sequence[float]) -> dict[str, Any]:
    """n, Spearman rho and Kendall tau with bootstrap intervals."""
    return {"n": len(truth), "spearman_rho": _with_ci(spearman, truth, predicted),
            "kendall_tau": _with_ci(kendall, truth, predicted)}
