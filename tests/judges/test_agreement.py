"""Agreement statistics against values worked out by hand on small tables."""

from __future__ import annotations

import math

import pytest

from mcptrials.judges.agreement import (
    accuracy,
    binary_agreement,
    bootstrap_ci,
    cohen_kappa,
    f1,
    gwet_ac1,
    kendall,
    spearman,
)


def table(pp: int, ff: int, pf: int, fp: int) -> tuple[list[bool], list[bool]]:
    """Labels and verdicts from a 2x2 table: both pass, both fail, label pass/scorer fail, label fail/scorer pass."""
    labels = [True] * pp + [False] * ff + [True] * pf + [False] * fp
    verdicts = [True] * pp + [False] * ff + [False] * pf + [True] * fp
    return labels, verdicts


def test_ordinary_table() -> None:
    # n=50, p_o = 35/50 = 0.7; label pass 25/50, scorer pass 30/50
    # kappa: p_e = .5*.6 + .5*.4 = .5 -> (.7-.5)/.5 = 0.4
    # AC1: pi = .55, p_e = 2*.55*.45 = .495 -> (.7-.495)/.505 = 0.405941
    # F1 = 2*20 / (2*20 + 10 + 5) = 40/55
    labels, verdicts = table(20, 15, 5, 10)
    assert accuracy(labels, verdicts) == pytest.approx(0.7)
    assert cohen_kappa(labels, verdicts) == pytest.approx(0.4)
    assert gwet_ac1(labels, verdicts) == pytest.approx(0.205 / 0.505)
    assert f1(labels, verdicts) == pytest.approx(40 / 55)


def test_kappa_paradox_table_where_ac1_stays_high() -> None:
    # 45 agree on pass, none on fail, 3 + 2 disagreements: p_o = .9
    # kappa: p_e = .96*.94 + .04*.06 = .9048 -> (.9-.9048)/.0952 = -0.050420
    # AC1: pi = .95, p_e = 2*.95*.05 = .095 -> (.9-.095)/.905 = 0.889503
    labels, verdicts = table(45, 0, 3, 2)
    assert cohen_kappa(labels, verdicts) == pytest.approx(-0.0048 / 0.0952)
    assert gwet_ac1(labels, verdicts) == pytest.approx(0.805 / 0.905)


def test_one_class_throughout() -> None:
    labels, verdicts = table(10, 0, 0, 0)
    assert math.isnan(cohen_kappa(labels, verdicts))  # chance agreement is 1
    assert gwet_ac1(labels, verdicts) == 1.0
    assert math.isnan(f1([False, False], [False, False]))


def test_rank_correlations() -> None:
    # d = (-1, 1, -1, 1, 0): rho = 1 - 6*4/(5*24) = 0.8; 8 concordant, 2 discordant pairs: tau = 0.6
    x, y = [1, 2, 3, 4, 5], [2, 1, 4, 3, 5]
    assert spearman(x, y) == pytest.approx(0.8)
    assert kendall(x, y) == pytest.approx(0.6)
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    labels, verdicts = table(20, 15, 5, 10)
    first = bootstrap_ci(cohen_kappa, labels, verdicts)
    assert first == bootstrap_ci(cohen_kappa, labels, verdicts)
    assert first is not None and first[0] < 0.4 < first[1]
    report = binary_agreement(labels, verdicts)
    assert report["n"] == 50 and report["table"] == {"both_pass": 20, "both_fail": 15, "label_pass_scorer_fail": 5,
                                                      "label_fail_scorer_pass": 10}
    assert report["cohen_kappa"]["value"] == 0.4 and report["gwet_ac1"]["value"] == round(0.205 / 0.505, 4)
