"""Seeded lineages are byte-identical, obey their operators, and match what the proxy serves."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from mcptrials.evolve.interface import build_interface
from mcptrials.evolve.lineage import evolve, evolve_tools, version_server_spec, write_lineage
from mcptrials.evolve.operators import OPERATORS
from mcptrials.evolve.plan import load_plan_chain
from mcptrials.evolve.proxy import list_all_tools
from mcptrials.model import ServerSpec


@pytest.fixture
async def toy_tools(toy_server: Any) -> list[dict[str, Any]]:
    async with Client(toy_server, cache=None) as client:
        return await list_all_tools(client)


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_gives_byte_identical_lineages(tmp_path: Path, toy_tools: list[dict[str, Any]]) -> None:
    for name in ("a", "b"):
        write_lineage(evolve_tools(toy_tools, 5, seed=7, server="toy"), tmp_path / name, "toy", 7)
    write_lineage(evolve_tools(toy_tools, 5, seed=8, server="toy"), tmp_path / "c", "toy", 8)
    first = files(tmp_path / "a")
    assert first == files(tmp_path / "b")
    assert first != files(tmp_path / "c")
    assert sorted(first) == sorted([
        "lineage.json", *(f"v{k}/{f}" for k in range(6) for f in ("manifest.json", "tools.json")),
        *(f"v{k}/plan.yaml" for k in range(1, 6))])
    assert str(tmp_path) not in "".join(b.decode() for b in first.values())


@pytest.mark.parametrize("seed", range(25))
def test_generated_rounds_obey_their_operator_and_replay_through_the_plans(
    tmp_path: Path, toy_tools: list[dict[str, Any]], seed: int
) -> None:
    manifests = write_lineage(evolve_tools(toy_tools, 6, seed=seed, server="toy"), tmp_path, "toy", seed)
    for manifest in manifests[1:]:
        assert manifest.operator_violations == [], manifest
        assert manifest.patterns, manifest
        assert set(manifest.patterns) & OPERATORS[manifest.operator or ""].patterns or manifest.operator == "O3"
    chain = load_plan_chain([tmp_path / "v6" / "plan.yaml"])
    assert chain.versions == [f"v{k}" for k in range(1, 7)]
    for k in range(1, 7):
        served = build_interface(toy_tools, chain.upto(f"v{k}")).tool_list()
        written = json.loads((tmp_path / f"v{k}" / "tools.json").read_text())["tools"]
        assert json.loads(json.dumps(served)) == written
        manifest = json.loads((tmp_path / f"v{k}" / "manifest.json").read_text())
        assert manifest["parent"] == f"v{k - 1}" and manifest["plan"] == f"v{k}/plan.yaml"


def test_every_operator_is_drawn_across_seeds(toy_tools: list[dict[str, Any]]) -> None:
    drawn = {plan.operators[0] for seed in range(40) for plan, _ in evolve_tools(toy_tools, 3, seed, "toy")[1:]
             if plan is not None}
    assert drawn == set(OPERATORS)


def test_operator_subset_and_impossible_requests(toy_tools: list[dict[str, Any]]) -> None:
    versions = evolve_tools(toy_tools, 4, seed=1, server="toy", operators=["O9"])
    assert [p.operators for p, _ in versions[1:] if p is not None] == [["O9"]] * 4
    bare = [{"name": "ping", "description": "Ping.", "inputSchema": {"type": "object", "properties": {}}}]
    with pytest.raises(ValueError, match="no operator of"):
        evolve_tools(bare, 1, seed=0, server="x", operators=["O10", "O7"])


@pytest.mark.slow
async def test_evolve_a_live_server_and_serve_a_version(tmp_path: Path, toy_server_path: Path) -> None:
    spec = ServerSpec(name="toy", command=sys.executable, args=[str(toy_server_path)])
    manifests = await _in_thread(evolve, spec, 3, 11, tmp_path)
    assert [m.version for m in manifests] == ["v0", "v1", "v2", "v3"]
    assert manifests[0].upstream["command"] == sys.executable
    served_spec = version_server_spec(spec, tmp_path, "v3")
    assert served_spec.args[:3] == ["-m", "mcptrials.evolve.proxy", "--plan"]
    params = StdioServerParameters(command=served_spec.command or "", args=served_spec.args)
    async with Client(params, cache=None) as client:
        served = [t.model_dump(by_alias=True, exclude_none=True, mode="json")
                  for t in (await client.list_tools()).tools]
    written = json.loads((tmp_path / "v3" / "tools.json").read_text())["tools"]
    assert [t["name"] for t in served] == [t["name"] for t in written]
    assert [t["inputSchema"] for t in served] == [t["inputSchema"] for t in written]
    assert version_server_spec(spec, tmp_path, "v0").command == sys.executable
    with pytest.raises(ValueError, match="no plan for version 'v9'"):
        version_server_spec(spec, tmp_path, "v9")


async def _in_thread(func: Any, *args: Any) -> Any:
    import anyio.to_thread

    return await anyio.to_thread.run_sync(lambda: func(*args))
