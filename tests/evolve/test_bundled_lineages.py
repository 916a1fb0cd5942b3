"""The bundled evolution lineages: well-formed chains, every operator in use, every version live and faithful.

Each bundled server has five chained plans ``<server>/v1..v5/plan.yaml``. These tests check that
the chains are well formed (one operator per round), that the suite as a whole exercises all
eleven operators, that every version of every server starts behind the mutation proxy and lists
the tools its plans promise, and that each round's real tool-list diff obeys its operator. A last
test runs interface-level evolution on every bundled server twice and expects identical output.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcptrials.bundled.world import LINEAGES_DIR, bundled_servers
from mcptrials.evolve.diff import diff_tool_lists
from mcptrials.evolve.interface import build_interface
from mcptrials.evolve.lineage import evolve
from mcptrials.evolve.operators import OPERATORS, get_operator
from mcptrials.evolve.plan import EvolutionPlan, RenameTool, load_plan
from mcptrials.evolve.versions import Lineages, versioned_servers
from mcptrials.model import ServerSpec, ToolInfo
from mcptrials.servers.toolbox import Limits, open_toolbox

LINEAGES = Lineages(LINEAGES_DIR)
SERVERS = sorted(bundled_servers())
ROUNDS = 5
VERSIONS = [f"v{k}" for k in range(ROUNDS + 1)]


def _plan(server: str, version: str) -> EvolutionPlan:
    return load_plan(LINEAGES_DIR / server / version / "plan.yaml")


def _wire(tools: list[ToolInfo]) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        wire: dict[str, Any] = {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}
        if tool.output_schema is not None:
            wire["outputSchema"] = tool.output_schema
        out.append(wire)
    return out


# --------------------------------------------------------------------------- the plans themselves


def test_every_bundled_server_has_a_lineage() -> None:
    assert LINEAGES.servers() == SERVERS


@pytest.mark.parametrize("server", SERVERS)
def test_lineage_chains_v1_to_v5_one_operator_per_round(server: str) -> None:
    assert LINEAGES.versions(server) == VERSIONS
    for k in range(1, ROUNDS + 1):
        version = f"v{k}"
        plan = _plan(server, version)
        assert plan.version == version
        assert plan.server == server
        assert plan.parent == (None if k == 1 else f"../v{k - 1}/plan.yaml")
        assert plan.summary, f"{server} {version} has no summary"
        assert len(plan.operators) == 1, f"{server} {version} mixes operators {plan.operators}"
        chain = LINEAGES.chain(server, version)
        assert chain is not None and chain.versions == VERSIONS[1:k + 1]


def test_suite_uses_every_operator_several_times() -> None:
    used = Counter(_plan(s, v).operators[0] for s in SERVERS for v in VERSIONS[1:])
    assert set(used) == set(OPERATORS), f"unused operators: {sorted(set(OPERATORS) - set(used))}"
    assert min(used.values()) >= 3, used


def test_rounds_vary_within_each_server() -> None:
    for server in SERVERS:
        ops = [_plan(server, v).operators[0] for v in VERSIONS[1:]]
        assert len(set(ops)) >= 4, f"{server} repeats operators: {ops}"


# --------------------------------------------------------------------------- every version live


async def _list_versions(spec: ServerSpec, sandbox: Path) -> dict[str, list[ToolInfo]]:
    """Start all versions of one server at once and return each version's listed tools."""
    found: dict[str, list[ToolInfo]] = {}
    problems: dict[str, str] = {}
    limits = Limits(start_timeout=120.0)

    async def one(version: str) -> None:
        specs = versioned_servers({spec.name: spec}, LINEAGES, version)
        if version != "v0":
            assert "mcptrials.evolve.proxy" in specs[spec.name].args, f"{spec.name} {version} bypasses the proxy"
        folder = sandbox / version
        folder.mkdir()
        async with open_toolbox(specs.values(), folder, limits=limits) as box:
            if box.failures:
                problems[version] = "; ".join(f.reason for f in box.failures.values())
            found[version] = box.tools

    async with anyio.create_task_group() as group:
        for version in VERSIONS:
            group.start_soon(one, version)
    assert not problems, f"{spec.name}: versions that failed to start: {problems}"
    return found


@pytest.mark.parametrize("server", SERVERS)
def test_every_version_starts_and_each_round_obeys_its_operator(server: str, tmp_path: Path) -> None:
    listed = anyio.run(_list_versions, bundled_servers()[server], tmp_path)
    base = _wire(listed["v0"])
    assert base, f"{server} v0 lists no tools"
    previous = base
    for k in range(1, ROUNDS + 1):
        version = f"v{k}"
        current = _wire(listed[version])
        chain = LINEAGES.chain(server, version)
        assert chain is not None
        promised = [t["name"] for t in build_interface(base, chain).tool_list()]
        assert [t["name"] for t in current] == promised, f"{server} {version} lists other tools than planned"
        plan = chain.plans[-1]
        renamed = {op.tool: op.new_name for op in plan.operations if isinstance(op, RenameTool)}
        report = diff_tool_lists(previous, current, replacements=renamed)
        operator = get_operator(plan.operators[0])
        assert operator.check(report) == [], f"{server} {version} breaks {operator.label}"
        assert report.tools, f"{server} {version} changes nothing"
        previous = current


# --------------------------------------------------------------------------- generated lineages


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_interface_evolution_is_reproducible_on_every_bundled_server(tmp_path: Path) -> None:
    specs = bundled_servers()
    seed = 11

    def run(server: str, label: str) -> Path:
        out = tmp_path / label / server
        evolve(specs[server], ROUNDS, seed, out)
        return out

    jobs = [(server, label) for server in SERVERS for label in ("first", "second")]
    with ThreadPoolExecutor(max_workers=4) as pool:
        folders = list(pool.map(lambda job: run(*job), jobs))
    by_job = dict(zip(jobs, folders, strict=True))
    for server in SERVERS:
        first, second = _tree(by_job[(server, "first")]), _tree(by_job[(server, "second")])
        expected = {"lineage.json", "v0/tools.json", "v0/manifest.json"} | {
            f"v{k}/{name}" for k in range(1, ROUNDS + 1) for name in ("plan.yaml", "tools.json", "manifest.json")}
        assert set(first) == expected, f"{server}: unexpected files {sorted(set(first) ^ expected)}"
        assert first == second, f"{server}: files differ: {[k for k in first if first[k] != second.get(k)]}"
