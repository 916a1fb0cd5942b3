"""Every argument matcher, including case folding and missing keys."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from mcptrials.model import Matcher
from mcptrials.scoring.matchers import arguments_satisfy, matches, values_equal


@pytest.mark.parametrize(("matcher", "value", "expected"), [
    ({"equals": "BJP"}, "BJP", True),
    ({"equals": "BJP"}, "bjp", False),
    ({"equals": "BJP", "case": "insensitive"}, "bjp", True),
    ({"equals": 5}, 5.0, True),
    ({"equals": 5}, "5", True),
    ({"equals": ["a", "b"]}, ["a", "b"], True),
    ({"equals": ["a", "b"]}, ["b", "a"], False),
    ({"equals": True}, 1, False),
    ({"regex": "^(BJP|VNP)$"}, "VNP", True),
    ({"regex": "^(BJP|VNP)$"}, "XVNP", False),
    ({"regex": "^g\\d+$", "case": "insensitive"}, "G101", True),
    ({"regex": "^\\d+$"}, 42, True),
    ({"contains": "hotel"}, "call the hotel", True),
    ({"contains": "Hotel"}, "call the hotel", False),
    ({"contains": "Hotel", "case": "insensitive"}, "call the HOTEL", True),
    ({"contains": "AAPL"}, ["AAPL", "MSFT"], True),
    ({"contains": "AAP"}, ["AAPL", "MSFT"], False),
    ({"contains_all": ["G1", "G7"]}, "G1 07:00, G7 09:00", True),
    ({"contains_all": ["G1", "G9"]}, "G1 07:00, G7 09:00", False),
    ({"contains_all": ["aapl", "msft"], "case": "insensitive"}, ["AAPL", "MSFT", "GOOGL"], True),
    ({"one_of": ["G", "any"]}, "any", True),
    ({"one_of": ["G", "any"]}, "D", False),
    ({"one_of": ["g"], "case": "insensitive"}, "G", True),
    ({"approx": 5, "tol": 0}, 5, True),
    ({"approx": 5, "tol": 0}, 6, False),
    ({"approx": 3.14, "tol": 0.01}, 3.141, True),
    ({"approx": 3.14, "tol": 0.01}, "3.2", False),
    ({"approx": 3.14, "tol": 0.01}, "pi", False),
])
def test_matcher(matcher: dict, value: object, expected: bool) -> None:
    assert matches(value, Matcher.model_validate(matcher)) is expected


def test_invalid_regex_is_rejected_when_the_spec_loads() -> None:
    with pytest.raises(ValueError, match="invalid regex"):
        Matcher.model_validate({"regex": "("})


def test_matcher_needs_exactly_one_kind() -> None:
    with pytest.raises(ValidationError, match="exactly one"):
        Matcher.model_validate({"equals": 1, "regex": "x"})
    with pytest.raises(ValidationError, match="exactly one"):
        Matcher.model_validate({"case": "insensitive"})


def test_matcher_serialises_compactly_and_round_trips() -> None:
    m = Matcher.model_validate({"approx": 5, "tol": 0.5})
    assert m.model_dump() == {"approx": 5.0, "tol": 0.5}
    assert Matcher.model_validate(m.model_dump()).kind == "approx"
    m = Matcher.model_validate({"equals": None})
    assert matches(None, m) and Matcher.model_validate(m.model_dump()).kind == "equals"


def test_arguments_satisfy_requires_every_key() -> None:
    args = {"date": "2026-04-15", "from_station": "VNP", "limit": 5}
    assert arguments_satisfy(args, {"date": "2026-04-15"}, {"from_station": Matcher(regex="^(BJP|VNP)$")})
    assert not arguments_satisfy(args, {"date": "2026-04-16"}, {})
    assert not arguments_satisfy(args, {"missing": 1}, {})
    assert not arguments_satisfy(args, {}, {"to_station": Matcher(regex=".*")})
    assert not arguments_satisfy(None, {"date": "x"}, {})
    assert arguments_satisfy(None, {}, {})


def test_values_equal_nested() -> None:
    assert values_equal({"a": [1, {"b": "X"}]}, {"a": [1.0, {"b": "x"}]}, insensitive=True)
    assert not values_equal({"a": 1}, {"a": 1, "b": 2})


def test_a_matrix_contains_its_entries_and_a_list_only_its_items() -> None:
    matrix = [[3, 2, -1], [2, -2, 4]]
    assert matches(matrix, Matcher(contains_all=[3, -2, 4]))
    assert matches(matrix, Matcher(contains_all=[[3, 2, -1]]))  # a whole row is still an item
    assert not matches(matrix, Matcher(contains_all=[3, 5]))
    assert not matches([[1, [7]]], Matcher(contains=7))  # one level: rows of a matrix, not any nesting
