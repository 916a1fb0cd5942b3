"""Carrying named values from old results to new ones: JSON leaves, text tokens, rounding, ambiguity."""

from __future__ import annotations

import json

import pytest

from mcptrials.replay.values import Ambiguous, changed_pairs, updated_text, updated_value


def test_json_leaves_pair_by_path_and_unchanged_leaves_do_not() -> None:
    old = [(json.dumps({"symbol": "MSFT", "price": 412.5, "rows": [1, 2]}), None)]
    new = [("ignored", {"symbol": "MSFT", "price": 430.25, "rows": [1, 3]})]
    assert sorted(changed_pairs(old, new)) == [(2, 3), (412.5, 430.25)]


def test_text_results_pair_replaced_tokens() -> None:
    pairs = changed_pairs([("Rain at 14:00, 12.5 mm expected", None)], [("Rain at 14:00, 9.75 mm expected", None)])
    assert pairs == [(12.5, 9.75)]


def test_a_value_named_rounded_stays_rounded_and_exact_stays_exact() -> None:
    pairs = [(68.0389, 70.1234)]
    assert updated_value(68.04, pairs) == 70.12
    assert updated_value("68", pairs) == "70"
    assert updated_value(68.0389, pairs) == 70.1234
    assert updated_value(68.1, pairs) == 68.1  # names another value: left alone
    assert updated_text("150 pounds is 68.04 kilograms (about 68 kg).", pairs) == \
        "150 pounds is 70.12 kilograms (about 70 kg)."


def test_a_value_that_changed_two_ways_is_ambiguous() -> None:
    with pytest.raises(Ambiguous):
        updated_value(5, [(5, 6), (5, 7)])
    assert updated_text("it was 5", [(5, 6), (5, 7)]) == "it was 5"
