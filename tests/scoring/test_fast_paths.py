"""The scorer's fast paths decide exactly as the full checks they stand in for.

Re-scoring speed comes from shortcuts: a text check that stops at its first problem, a facts
check that rejects a text lacking a fact's every label before reading numbers, date and time
scans skipped where a cheap substring test says they cannot match, and the Rust JSON-schema
validator where it agrees with ``jsonschema``. Each is compared here with the full path on the
bundled tasks' checkpoints, the alternatives corpus's answers (right and wrong, written by
hand) and variants of them that a weak agent would give.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import jsonschema
import pytest
from referencing.exceptions import Unresolvable

from mcptrials.bundled.world import bundled_tasks
from mcptrials.model import StateCheckpoint, ValueCheckpoint
from mcptrials.scoring import answers, claims, rules
from mcptrials.scoring.memo import forget_episode
from mcptrials.tasks.alternatives import bundled_alternatives

_SHIFT = str.maketrans("0123456789", "1234567890")


def _variants(text: str) -> Iterator[str]:
    """An answer as written, and as a weak agent might have written it instead."""
    yield text
    yield text.translate(_SHIFT)  # every figure wrong
    yield text.upper()
    yield text[: len(text) // 2]  # cut off
    yield " ".join(reversed(text.split()))  # labels and values no longer in order
    yield re.sub(r"\s+", "  ", text)  # blank runs to collapse
    yield text.replace(" ", "\t").replace(".", ". \r\n")
    yield ""


@pytest.fixture(scope="module")
def corpus() -> dict[str, list[str]]:
    """Texts per task id: the alternatives' answers and their variants."""
    texts: dict[str, list[str]] = {}
    for alt in bundled_alternatives():
        texts.setdefault(alt.task, []).extend(_variants(alt.answer))
    return texts


def _text_checkpoints() -> Iterator[tuple[str, ValueCheckpoint | StateCheckpoint]]:
    for task in bundled_tasks():
        for cp in task.spec.checkpoints:
            if isinstance(cp, ValueCheckpoint | StateCheckpoint) and (cp.contains or cp.facts or cp.absent):
                yield task.id, cp


def test_text_holds_is_exactly_no_text_problems(corpus: dict[str, list[str]]) -> None:
    checked = held = 0
    for task_id, cp in _text_checkpoints():
        for text in corpus.get(task_id, []):
            for verbatim in (False, True):
                for absent in (False, True):
                    forget_episode()
                    full = claims.text_problems(cp, text, verbatim=verbatim, absent=absent)
                    forget_episode()
                    fast = claims.text_holds(cp, text, verbatim=verbatim, absent=absent)
                    assert fast is (not full), (task_id, cp.id, text, verbatim, absent, full)
                    checked += 1
                    held += fast
    assert checked > 5000 and 0 < held < checked  # both verdicts occur, many times


def test_facts_stated_is_exactly_every_fact_stated(corpus: dict[str, list[str]]) -> None:
    checked = stated = 0
    for task_id, cp in _text_checkpoints():
        if not cp.facts:
            continue
        for text in corpus.get(task_id, []):
            forget_episode()
            full = all(v.stated for v in claims.check_facts(text, cp.facts))
            forget_episode()
            assert claims.facts_stated(text, cp.facts) is full, (task_id, cp.id, text)
            checked += 1
            stated += full
    assert checked > 1000 and 0 < stated < checked


_SCAN_EDGES = [
    "at 9.30 p.m. on 13 April", "21h30 sharp", "from 4-5pm", "11-1pm", "Sept 3rd, 2026", "3rd of march",
    "13/04/2026 and 04.13.2026", "2026/4/3", "version 2026-13-45", "noon", "12:00:00", "at 7am", "7 a.m.",
    "May 2026 sales", "mayor", "dec 2", "the decimal 3.25", "h12", "ratio 1:5", "1:05", "09:7",
]


def test_date_and_time_scans_skip_only_texts_where_nothing_matches(corpus: dict[str, list[str]],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [answers.normalise_text(t, fold=fold) for ts in corpus.values() for t in ts for fold in (True, False)]
    texts += [answers.normalise_text(t) for t in _SCAN_EDGES]
    fast = [(answers.date_mentions(t), answers.time_mentions(t), answers.number_mentions(t)) for t in texts]
    monkeypatch.setattr(answers, "_DATE_PATTERNS", [(("",), p) for _, p in answers._DATE_PATTERNS])
    monkeypatch.setattr(answers, "_CLOCKLIKE", re.compile(""))  # every scan runs on every text
    forget_episode()
    full = [(answers.date_mentions(t), answers.time_mentions(t), answers.number_mentions(t)) for t in texts]
    assert fast == full
    assert sum(bool(d) for d, _, _ in full) > 20 and sum(bool(t) for _, t, _ in full) > 20


_SCHEMAS = [
    {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 10}}, "required": ["n"]},
    {"type": "object", "properties": {"x": {"type": "number"}, "s": {"type": "string", "maxLength": 3}},
     "additionalProperties": False},
    {"type": "object", "properties": {"kind": {"enum": ["a", "B", 3]}, "c": {"const": True}}},
    {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True,
                                               "minItems": 1}}},
    {"type": "object", "properties": {"v": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                                      "w": {"oneOf": [{"type": "string"}, {"type": "number"}]}}},
    {"type": "object", "$defs": {"p": {"type": "object", "properties": {"q": {"type": "boolean"}},
                                       "required": ["q"]}},
     "properties": {"p": {"$ref": "#/$defs/p"}}},
    {"type": "object", "properties": {"d": {"type": "string", "format": "date"},
                                      "e": {"type": "string", "format": "email"}}},
    {"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{2}\\d+$"}}},
    {"type": "object", "patternProperties": {"^x-": {"type": "integer"}}},
    {"type": "object", "properties": {"r": {"$ref": "https://example.invalid/schema.json"}}},
    {"type": "object", "properties": {"o": {"type": "object", "properties": {"deep": {"type": "integer"}},
                                            "required": ["deep"]}},
     "dependentRequired": {"a": ["b"]}, "minProperties": 1},
    {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 5}, "t": {"type": ["string", "null"]}}},
    {"type": "object", "properties": {"pattern": {"type": "string"}, "code": {"type": "integer"}},
     "required": ["pattern"]},  # a parameter called "pattern" (grep-like tools): no regex is read
]
_VALUES = [None, True, False, 0, 1, -1, 1.0, 2.5, 5, 10, 11, 10**20, -(10**30), float("nan"), float("inf"), "",
           "x", "abc", "abcd", "AB12", "ab12", "2026-04-13", "not a date", "a@b.c", [], ["x"], ["x", "x"], [1],
           {}, {"q": True}, {"q": 1}, {"deep": 3}, {"deep": "3"}]
_KEYS = ["n", "x", "s", "kind", "c", "tags", "v", "w", "p", "d", "e", "code", "x-a", "x-b", "r", "o", "a", "b",
         "t", "pattern", "extra"]


def test_rust_schema_validator_agrees_with_jsonschema() -> None:
    """Every instance gets the verdict of ``jsonschema`` itself, whichever validator gives it."""
    rng = random.Random(20261203)
    checked = valid = 0
    for schema in _SCHEMAS:
        check = rules._validator(rules.json.dumps(schema, sort_keys=True))
        assert check is not None
        reference = jsonschema.Draft202012Validator(schema)
        for _ in range(400):
            instance = {key: rng.choice(_VALUES) for key in rng.sample(_KEYS, rng.randint(0, 4))}
            try:
                expected = reference.is_valid(instance)
            except Unresolvable:  # the remote $ref, once "r" is given: unusable, so met (never a crash)
                expected = True
            assert check(instance) is expected, (schema, instance)
            checked += 1
            valid += expected
    assert 0 < valid < checked
    assert rules._validator(rules.json.dumps({"type": "nonsense"})) is None  # unusable: counts as met


def test_the_rust_validator_judges_the_plain_schemas_and_not_the_others() -> None:
    uses_rust = [rules._rust_agrees(schema) for schema in _SCHEMAS]
    assert uses_rust == [True, True, True, True, True, True, True, False, False, False, True, True, True]
