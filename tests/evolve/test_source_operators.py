"""Every operator O1-O11 carried out on the real bundled ``units`` server's source, end to end.

Scripted replies hold real hunks against a copy of ``mcptrials/bundled/servers/units.py``; each
round is applied, compiled, started from its own copy, classified against the operator, and
its test calls run. Broken replies are rejected at the step that catches them. All rounds run
concurrently in one event loop, sharing one original version (``v0``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcptrials.evolve.operators import OPERATORS, get_operator
from mcptrials.evolve.source.anchor import anchor_tree
from mcptrials.evolve.source.mutate import (
    RoundOutcome,
    RoundSettings,
    evolve_round,
    evolve_source,
    init_version,
    read_manifest,
    read_tools,
    version_server,
)
from mcptrials.evolve.source.script import scripted_round_model
from mcptrials.evolve.source.tree import SourceServer, bundled_source
from mcptrials.models.base import Message, ModelResponse
from mcptrials.models.scripted import ScriptedModel

UNITS = "mcptrials/bundled/servers/units.py"
SETTINGS = RoundSettings(max_attempts=1, start_timeout=90.0, call_timeout=30.0)
CONCURRENT_ROUNDS = 6


def hunk(old: str = "", new: str = "", anchor: str = "", file_name: str = UNITS) -> dict[str, str]:
    return {"file_name": file_name, "old_code": old, "new_code": new, "anchor_code": anchor}


def select(operator: str, *targets: str) -> dict[str, Any]:
    return {"operator": operator, "target_tools": list(targets), "rationale": f"scripted {operator}"}


def apply(*hunks: dict[str, str], summary: str = "scripted change") -> str:
    # Wrapped in prose and a fence, as models often answer.
    return "Here is the change.\n```json\n" + json.dumps({"summary": summary, "details": {}, "hunks": list(hunks)}) \
        + "\n```\n"


def case(tool: str, expect: str = "ok", **arguments: Any) -> dict[str, Any]:
    return {"name": f"{tool}-{expect}", "tool": tool, "arguments": arguments, "expect": expect}


def calls(*cases: dict[str, Any]) -> dict[str, Any]:
    return {"test_cases": list(cases)}


# --------------------------------------------------------------------------- the source snippets

TEMPERATURE_DOC = '    """Temperature between Celsius, Fahrenheit and Kelvin."""\n'
MANY_DOC = '    """Convert a list of values that share the same units."""\n'
LIST_DOC = '    """List the supported unit symbols and their aliases, for one category or all of them."""\n'
CONVERT_CATEGORY = ('    category: Annotated[Category, Field(description="Kind of quantity; both units must belong '
                    'to it")],\n) -> dict[str, Any]:\n')
CONVERT_RESULT = '            "result": _fmt(_convert(value, source, target, category))}\n'

UNIT_FACTOR = '''

@mcp.tool()
def unit_factor(
    unit: Annotated[str, Field(description="Unit symbol or name, e.g. 'km'")],
    category: Annotated[Category, Field(description="Kind of quantity the unit measures")],
) -> dict[str, Any]:
    """Give the factor that turns one of ``unit`` into the base unit of its category."""
    if category == "temperature":
        raise ToolError("temperature scales use offsets, not a single factor")
    symbol = _lookup(category, unit)
    base = next(iter(UNITS[category]))
    return {"unit": symbol, "category": category, "base_unit": base, "factor": UNITS[category][symbol][0]}
'''

COMPARE = '''

@mcp.tool()
def compare_quantities(
    first_value: float,
    first_unit: str,
    second_value: float,
    second_unit: str,
    category: Category,
) -> dict[str, Any]:
    """Say which of two quantities of the same category is larger."""
    first = _convert(first_value, _lookup(category, first_unit), _lookup(category, second_unit), category)
    larger = "first" if first > second_value else "second" if first < second_value else "equal"
    return {"larger": larger, "first_in_second_unit": _fmt(first), "second_value": second_value}
'''

GUESS_CATEGORY = '''

def _guess_category(name: str) -> str:
    """The category whose units include ``name`` (symbol or alias, any case)."""
    wanted = name.strip().lower()
    for category, table in UNITS.items():
        for symbol, (_factor, aliases) in table.items():
            if wanted == symbol.lower() or wanted in (a.lower() for a in aliases):
                return category
    raise ToolError(f"unknown unit {name!r}")
'''

LIST_UNITS_SEARCH = '''def list_units(
    search: Annotated[str | None, Field(description="Only units whose symbol or alias contains this text")] = None,
) -> dict[str, Any]:
    """List the unit symbols and aliases of every category, optionally only those matching a search text."""
    needle = (search or "").strip().lower()
    found: dict[str, dict[str, list[str]]] = {}
    for c, table in UNITS.items():
        for s, (_f, a) in table.items():
            if not needle or needle in s.lower() or any(needle in x.lower() for x in a):
                found.setdefault(c, {})[s] = list(a)
    return {"categories": found}
'''


def _whole(server: SourceServer, tool: str) -> str:
    anchor = anchor_tree(server.root).tool(tool)
    assert anchor is not None and anchor.implementation is not None
    return anchor.definition.text + anchor.implementation.text


def _list_units_tail(server: SourceServer) -> str:
    anchor = anchor_tree(server.root).tool("list_units")
    assert anchor is not None and anchor.implementation is not None
    return anchor.implementation.text


Script = dict[str, Any]


def operator_scripts(v0: SourceServer) -> dict[str, Script]:
    """One scripted round per operator: selection, hunks, test calls."""
    tail = _list_units_tail(v0)
    many: dict[str, Any] = {"values": [1.0, 2.5], "from_unit": "km", "to_unit": "mi"}
    return {
        "O1": {"select": select("O1"),
               "apply": apply(hunk(anchor=tail, new=UNIT_FACTOR)),
               "tests": calls(case("unit_factor", unit="km", category="length"),
                              case("unit_factor", "validation_error", unit="km", category="colour"))},
        "O2": {"select": select("O2", "convert_temperature"),
               "apply": apply(hunk("def convert_temperature(\n", "def convert_temp(\n"),
                              hunk(TEMPERATURE_DOC, '    """Convert a temperature between the Celsius, Fahrenheit '
                                                    'and Kelvin scales."""\n')),
               "tests": calls(case("convert_temp", value=100, from_scale="C", to_scale="F"),
                              case("convert_temp", "validation_error", value=1, from_scale="X", to_scale="C"),
                              case("convert_temperature", "validation_error", value=1, from_scale="C",
                                   to_scale="K"))},
        "O3": {"select": select("O3", "convert_temperature"),
               "apply": apply(hunk(_whole(v0, "convert_temperature"), ""),
                              hunk("    imperial gallon).\n",
                                   "    imperial gallon). Temperatures are converted here too (category "
                                   "'temperature', scales\n    C, F and K); this replaces the former "
                                   "convert_temperature tool.\n")),
               "tests": calls(case("convert", value=100, from_unit="C", to_unit="F", category="temperature"),
                              case("convert_temperature", "validation_error", value=1, from_scale="C",
                                   to_scale="K"))},
        "O4": {"select": select("O4", "convert_many"),
               "apply": apply(hunk(anchor=tail, new=COMPARE),
                              hunk(MANY_DOC, '    """Convert a list of values that share the same units; to '
                                             'rank two quantities use compare_quantities."""\n')),
               "tests": calls(case("compare_quantities", first_value=1, first_unit="mi", second_value=1.5,
                                   second_unit="km", category="length"),
                              case("convert_many", **many, category="length"))},
        "O5": {"select": select("O5", "convert"),
               "apply": apply(hunk(CONVERT_CATEGORY, CONVERT_CATEGORY.replace(
                                  ") -> dict", '    digits: Annotated[int, Field(ge=1, le=12, description='
                                              '"Significant digits of the result")] = 6,\n) -> dict')),
                              hunk(CONVERT_RESULT, '            "result": float(f"{_convert(value, source, target, '
                                                   'category):.{digits}g}")}\n')),
               "tests": calls(case("convert", value=1, from_unit="mi", to_unit="km", category="length", digits=3),
                              case("convert", value=1, from_unit="mi", to_unit="km", category="length"),
                              case("convert", "validation_error", value=1, from_unit="mi", to_unit="km",
                                   category="length", digits=0))},
        "O6": {"select": select("O6", "convert_many"),
               "apply": apply(hunk("Field(min_length=1, max_length=200)", "Field(min_length=1, max_length=50)")),
               "tests": calls(case("convert_many", **many, category="length"),
                              case("convert_many", "validation_error", values=[1.0] * 51, from_unit="km",
                                   to_unit="mi", category="length"))},
        "O7": {"select": select("O7", "convert_many"),
               "apply": apply(hunk("    to_unit: str,\n    category: Category,\n) -> dict[str, Any]:\n" + MANY_DOC,
                                   "    to_unit: str,\n) -> dict[str, Any]:\n" + MANY_DOC
                                   + "    category = _guess_category(from_unit)\n"),
                              hunk(anchor="    return 0.0 if out == 0 else out\n", new=GUESS_CATEGORY)),
               "tests": calls(case("convert_many", **many),
                              case("convert_many", "validation_error", values=[], from_unit="km", to_unit="mi"))},
        "O8": {"select": select("O8", "list_units"),
               "apply": apply(hunk("def list_units(category: Category | None = None) -> dict[str, Any]:\n"
                                   + LIST_DOC + tail, LIST_UNITS_SEARCH)),
               "tests": calls(case("list_units"), case("list_units", search="mile"))},
        "O9": {"select": select("O9", "list_units"),
               "apply": apply(hunk(LIST_DOC, '    """Show which unit symbols and alias names the converter '
                                             'understands, for a single category or for all."""\n')),
               "tests": calls(case("list_units"), case("list_units", category="mass"))},
        "O10": {"select": select("O10", "convert"),
                "apply": apply(hunk("""Field(description="Unit symbol or name, e.g. 'mi', 'miles', 'lb'")""",
                                    """Field(description="Unit to convert from: a symbol such as 'mi' or a name """
                                    """such as 'miles' (any case)")"""),
                               hunk("""Field(description="Unit symbol or name, e.g. 'km'")""",
                                    """Field(description="Unit to convert to, written like from_unit")""")),
                "tests": calls(case("convert", value=3, from_unit="miles", to_unit="km", category="length"))},
        "O11": {"select": select("O11", "convert_temperature"),
                "apply": apply(hunk('    from_scale: Literal["C", "F", "K"],\n    to_scale: Literal["C", "F", "K"],\n',
                                    '    from_scale: Annotated[Literal["C", "F", "K"], Field(description="Scale the '
                                    'value is given in")],\n    to_scale: Annotated[Literal["C", "F", "K"], '
                                    'Field(description="Scale to express the value in")],\n'),
                               hunk(TEMPERATURE_DOC, '    """Convert a temperature reading between the Celsius (C), '
                                                     'Fahrenheit (F) and Kelvin (K) scales."""\n')),
                "tests": calls(case("convert_temperature", value=0, from_scale="C", to_scale="K"),
                               case("convert_temperature", "validation_error", value=0, from_scale="X",
                                    to_scale="K"))},
    }


EXPECTED_PATTERN = {"O1": "P2", "O2": "P5", "O3": "P17", "O4": "P18", "O5": "P4", "O6": "P8", "O7": "P14",
                    "O8": "P6", "O9": "P1", "O10": "P3", "O11": "P7"}


def broken_scripts(v0: SourceServer) -> dict[str, tuple[Script, str, str]]:
    """Replies that must be rejected: (script, step that rejects, text the reason contains)."""
    ops = operator_scripts(v0)
    return {
        "select_not_json": ({"select": "I think O9 on list_units is best."}, "select", "not JSON"),
        "select_unknown_tool": ({"select": select("O9", "convert_everything")}, "select",
                                "target tool 'convert_everything' does not exist"),
        "apply_not_json": ({"select": select("O9", "list_units"),
                            "apply": "I would rewrite the docstring of list_units to be clearer."},
                           "apply", "not JSON"),
        "old_code_not_found": ({"select": select("O9", "list_units"),
                                "apply": apply(hunk('    """List every unit."""\n', '    """Units."""\n'))},
                               "patch", "old_code not found in mcptrials/bundled/servers/units.py"),
        "syntax_error": ({"select": select("O9", "list_units"),
                          "apply": apply(hunk(LIST_DOC, '    """Units."""\n    chosen = [category if\n'))},
                         "compile", "SyntaxError"),
        "crash_on_start": ({"select": select("O6", "convert_many"),
                            "apply": apply(hunk("max_length=200", "max_length=100"),
                                           hunk(anchor="mcp = MCPServer(\"units\", log_level=\"WARNING\")\n",
                                                new='raise RuntimeError("refusing to start")\n'))},
                           "start", "did not start"),
        "o11_renames_a_parameter": ({"select": select("O11", "convert_temperature"),
                                     "apply": apply(hunk("    value: float,\n    from_scale", "    reading: float,\n"
                                                         "    from_scale"),
                                                    hunk('"result": _fmt(_convert(value, from_scale',
                                                         '"result": _fmt(_convert(reading, from_scale'),
                                                    hunk('    return {"value": value, "from_scale"',
                                                         '    return {"value": reading, "from_scale"'),
                                                    hunk(TEMPERATURE_DOC, '    """Convert a temperature."""\n'))},
                                    "classify", "O11 Joint Description Update may not"),
        "test_call_fails": ({**ops["O5"], "tests": calls(case("convert", value=1, from_unit="mi", to_unit="kg",
                                                              category="length", digits=3))},
                            "test", "expected ok, got error"),
    }


# --------------------------------------------------------------------------- running everything once


@dataclass
class Runs:
    """Everything the module's tests look at, produced in one event loop."""

    v0: SourceServer
    v0_tools: list[dict[str, Any]]
    root: Path
    outcomes: dict[str, RoundOutcome] = field(default_factory=dict)
    retry_prompts: list[str] = field(default_factory=list)
    lineage_dir: Path | None = None


def _retry_model(v0: SourceServer, prompts: list[str]) -> ScriptedModel:
    """First apply reply misses its old_code; the second is right. Records every apply prompt."""
    good = operator_scripts(v0)["O9"]
    inner = scripted_round_model({"select": good["select"],
                                  "apply": [apply(hunk('    """No such docstring."""\n', "x = 1\n")), good["apply"]],
                                  "tests": good["tests"]})
    assert inner.fn is not None
    fn: Callable[..., ModelResponse] = inner.fn

    def recording(messages: list[Message], tools: Any, context: Any) -> ModelResponse:
        if "Step 2" in messages[0].content:
            prompts.append(messages[1].content)
        return fn(messages, tools, context)

    return ScriptedModel(source="retry", fn=recording)


async def _run_all(root: Path) -> Runs:
    original = bundled_source("units", root / "original")
    first = await init_version(original, root / "base", settings=SETTINGS)
    assert first.server is not None
    runs = Runs(v0=first.server, v0_tools=first.tools, root=root)
    jobs: dict[str, tuple[ScriptedModel, RoundSettings]] = {}
    for name, script in operator_scripts(runs.v0).items():
        jobs[name] = (scripted_round_model(script), SETTINGS)
    for name, (script, _step, _reason) in broken_scripts(runs.v0).items():
        jobs[name] = (scripted_round_model(script), SETTINGS)
    jobs["retry"] = (_retry_model(runs.v0, runs.retry_prompts), SETTINGS.model_copy(update={"max_attempts": 2}))
    limiter = anyio.Semaphore(CONCURRENT_ROUNDS)

    async def one(name: str, model: ScriptedModel, settings: RoundSettings) -> None:
        async with limiter:
            runs.outcomes[name] = await evolve_round(runs.v0, root / name, "v1", model, parent_version="v0",
                                                     parent_tools=runs.v0_tools, settings=settings)

    async def lineage() -> None:
        scripts = operator_scripts(runs.v0)
        rounds = [scripts["O9"], scripts["O5"]]
        model = scripted_round_model({step: [r[step] for r in rounds] for step in ("select", "apply", "tests")})
        async with limiter:
            await evolve_source(original, model, 2, root / "lineage", settings=SETTINGS)
        runs.lineage_dir = root / "lineage"

    async with anyio.create_task_group() as group:
        for name, (model, settings) in jobs.items():
            group.start_soon(one, name, model, settings)
        group.start_soon(lineage)
    return runs


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    return anyio.run(_run_all, tmp_path_factory.mktemp("source-rounds"))


# --------------------------------------------------------------------------- operators


@pytest.mark.parametrize("operator", list(OPERATORS))
def test_each_operator_is_applied_validated_and_classified(runs: Runs, operator: str) -> None:
    outcome = runs.outcomes[operator]
    assert outcome.accepted, [r.feedback() for r in outcome.rejections]
    manifest = outcome.manifest
    assert manifest is not None and manifest.diff is not None
    assert manifest.operator == operator and manifest.parent == "v0" and manifest.version == "v1"
    assert get_operator(operator).check(manifest.diff) == []
    assert EXPECTED_PATTERN[operator] in manifest.patterns
    assert manifest.changed_files == [UNITS]
    assert manifest.tests and all(t.passed for t in manifest.tests)
    assert manifest.tool_count == len(outcome.tools)
    folder = runs.root / operator / "v1"
    assert read_manifest(runs.root / operator, "v1") == manifest
    assert read_tools(runs.root / operator, "v1") == outcome.tools
    edited = (folder / "tree" / UNITS).read_text(encoding="utf-8")
    assert edited != (runs.v0.root / UNITS).read_text(encoding="utf-8")
    assert not (runs.root / operator / ".staging").exists()
    assert not list((folder / "tree").rglob("__pycache__"))
    assert manifest.prompt_hashes and manifest.model == "scripted:source-round"


def test_tightening_was_tested_with_a_refused_call(runs: Runs) -> None:
    manifest = runs.outcomes["O6"].manifest
    assert manifest is not None
    refused = [t for t in manifest.tests if t.case.expect == "validation_error"]
    assert refused and all(t.outcome == "error" for t in refused)
    assert "validation error" in refused[0].detail.lower()


def test_new_parameter_has_an_effect(runs: Runs) -> None:
    manifest = runs.outcomes["O5"].manifest
    assert manifest is not None
    three_digits = manifest.tests[0]
    assert three_digits.case.arguments["digits"] == 3 and '"result": 1.61' in three_digits.detail


# --------------------------------------------------------------------------- rejections


@pytest.mark.parametrize("name", ["select_not_json", "select_unknown_tool", "apply_not_json", "old_code_not_found",
                                  "syntax_error", "crash_on_start", "o11_renames_a_parameter",
                                  "test_call_fails"])
def test_broken_replies_are_rejected_with_their_step_and_reason(runs: Runs, name: str) -> None:
    _script, step, reason = broken_scripts(runs.v0)[name]
    outcome = runs.outcomes[name]
    assert not outcome.accepted and outcome.manifest is None
    [rejection] = outcome.rejections
    assert rejection.step == step
    assert reason in rejection.reason
    assert not (runs.root / name / "v1").exists()
    assert not (runs.root / name / ".staging").exists()


def test_rename_is_reported_as_a_parameter_removal_and_addition(runs: Runs) -> None:
    [rejection] = runs.outcomes["o11_renames_a_parameter"].rejections
    assert "remove a required parameter (convert_temperature.value)" in rejection.reason
    assert "add a required parameter (convert_temperature.reading)" in rejection.reason
    assert "may only change documentation" in rejection.reason  # the source check agrees


def test_a_rejected_attempt_is_retried_with_its_reason(runs: Runs) -> None:
    outcome = runs.outcomes["retry"]
    assert outcome.accepted and outcome.manifest is not None
    [rejection] = outcome.manifest.rejected_attempts
    assert rejection.attempt == 1 and rejection.step == "patch" and rejection.operator == "O9"
    assert len(runs.retry_prompts) == 2
    assert "Earlier attempts" not in runs.retry_prompts[0]
    assert "attempt 1 (operator O9 on list_units) failed at step 'patch'" in runs.retry_prompts[1]


# --------------------------------------------------------------------------- lineages


def test_a_lineage_chains_versions_each_run_from_its_own_tree(runs: Runs) -> None:
    assert runs.lineage_dir is not None
    lineage = json.loads((runs.lineage_dir / "lineage.json").read_text(encoding="utf-8"))
    assert [(r["round"], r["parent"], r["version"], r["operator"]) for r in lineage["rounds"]] == [
        (1, "v0", "v1", "O9"), (2, "v1", "v2", "O5")]
    v2 = read_manifest(runs.lineage_dir, "v2")
    assert v2.parent == "v1" and v2.patterns == ["P4"]
    tools = {t["name"]: t for t in read_tools(runs.lineage_dir, "v2")}
    assert tools["list_units"]["description"].startswith("Show which unit symbols")
    assert "digits" in tools["convert"]["inputSchema"]["properties"]
    spec = version_server(runs.v0, runs.lineage_dir, "v2").spec()
    assert spec.env["PYTHONPATH"].startswith(str((runs.lineage_dir / "v2" / "tree").resolve()))
