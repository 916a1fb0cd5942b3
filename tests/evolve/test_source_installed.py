"""Source evolution of installed servers, end to end through the CLI: npm JavaScript and PyPI Python.

`evolve --mode source` finds the code of ``@modelcontextprotocol/server-memory`` (its built
``dist/index.js`` behind the npm bin link) and of ``mcp-server-time`` (its package in
site-packages, behind the console script), the scripted model renames a tool in it (O2), the
evolved server is started with node/Python from its own tree and its tools called, and
``run --lineages DIR --stages v0,v1`` runs a task on both versions, remapped to the new name.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from report_world import cli

from mcptrials.model import PlannedCall, Task, TaskSpec, ToolEffectCheckpoint
from mcptrials.store.db import Store


def _rename_round(file: str, old_code: str, new_code: str, new: str, old: str, args: dict[str, Any],
                  broken_first: str | None = None) -> dict[str, Any]:
    hunk = {"file_name": file, "old_code": old_code, "new_code": new_code, "anchor_code": ""}
    apply = {"summary": f"{old} renamed to {new}", "details": {"old_tool": old}, "hunks": [hunk]}
    replies: list[Any] = [apply]
    if broken_first is not None:  # a first attempt whose code does not parse: rejected at the compile step
        replies.insert(0, {**apply, "hunks": [{**hunk, "new_code": broken_first}]})
    return {"select": {"operator": "O2", "target_tools": [old], "rationale": "a clearer name"},
            "apply": replies,
            "tests": {"test_cases": [{"name": "new", "tool": new, "arguments": args, "expect": "ok"},
                                     {"name": "old", "tool": old, "arguments": args, "expect": "validation_error"}]}}


def _files(tmp_path: Path, servers: dict[str, Any], script: dict[str, Any], task: Task) -> tuple[Path, Path, Path]:
    config, round_file, tasks = tmp_path / "servers.json", tmp_path / "round.json", tmp_path / "tasks.jsonl"
    config.write_text(json.dumps({"mcpServers": servers}))
    round_file.write_text(json.dumps(script))
    tasks.write_text(task.model_dump_json() + "\n")
    return config, round_file, tasks


def _evolve_and_run(tmp_path: Path, server: str, config: Path, round_file: Path, tasks: Path, old: str,
                    new: str) -> Path:
    out = tmp_path / f"{server}-src"
    cli("evolve", "--server", server, "--servers", str(config), "--mode", "source", "--rounds", "1",
        "--model", f"scripted:{round_file}", "--out", str(out))
    plan = yaml.safe_load((out / "v1" / "plan.yaml").read_text())
    assert plan["served_by"] == "source"
    assert plan["operations"][0] | {"description": ""} == {"op": "rename_tool", "operator": "O2", "tool": old,
                                                           "new_name": new, "description": ""}
    manifest = json.loads((out / "v1" / "manifest.json").read_text())
    assert [t["outcome"] for t in manifest["tests"]] == ["ok", "error"]  # the evolved server was called
    listed = tmp_path / "v1.json"
    cli("servers", "tools", server, "--servers", str(config), "--stage", "v1", "--lineages", str(out),
        "--out", str(listed))
    names = {t["name"] for t in json.loads(listed.read_text())["tools"]}
    assert new in names and old not in names
    checked = cli("tasks", "check", "--servers", str(config), "--tasks", str(tasks), "--stages", "v0,v1",
                  "--lineages", str(out))
    assert "v1: reference plans passing their own spec: 1/1" in checked.stdout, checked.stdout
    db = tmp_path / "r.db"
    cli("run", "--agent", "reference", "--servers", str(config), "--tasks", str(tasks), "--stages", "v0,v1",
        "--lineages", str(out), "--db", str(db))
    episodes = {e.version: e for e in Store(db).episodes()}
    assert f"{server}__{new}" in episodes["v1"].offered_tools and f"{server}__{old}" in episodes["v0"].offered_tools
    assert episodes["v1"].tool_calls[-1].name == f"{server}__{new}"
    report = json.loads(cli("report", "--db", str(db), "--format", "json").stdout)
    assert {e["version"]: e["outcome"] for e in report["episodes"]} == {"v0": "passed", "v1": "passed"}
    return out


@pytest.mark.slow
def test_npm_server_memory_source_lineage_runs(npm_bin: Path, tmp_path: Path) -> None:
    servers = {"mem": {"command": str(npm_bin / "mcp-server-memory"),
                       "env": {"MEMORY_FILE_PATH": "${MCPTRIALS_SANDBOX}/memory.jsonl"}}}
    script = _rename_round("dist/index.js", 'server.registerTool("read_graph", {',
                           'server.registerTool("read_knowledge_graph", {', "read_knowledge_graph", "read_graph", {},
                           broken_first='server.registerTool("read_knowledge_graph", {{')
    entity = {"entities": [{"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}]}
    task = Task(id="mem-1", prompt="Remember Ada, then show the whole graph.", servers=["mem"],
                spec=TaskSpec(checkpoints=[ToolEffectCheckpoint(id="c1", tools=["mem__read_graph"])]),
                reference=[PlannedCall(tool="mem__create_entities", args=entity),
                           PlannedCall(tool="mem__read_graph", args={})])
    out = _evolve_and_run(tmp_path, "mem", *_files(tmp_path, servers, script, task), "read_graph",
                          "read_knowledge_graph")
    manifest = json.loads((out / "v1" / "manifest.json").read_text())
    rejected = manifest["rejected_attempts"]
    assert [r["step"] for r in rejected] == ["compile"] and "dist/index.js:" in rejected[0]["reason"]
    assert manifest["entry"] == {"runtime": "node", "module": None, "script": "dist/index.js",
                                 "package": "@modelcontextprotocol/server-memory", "args": []}
    # another npm server with the same entry file is not this lineage's server
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"mcpServers": {"mem": {"command": str(npm_bin / "mcp-server-filesystem"),
                                                        "args": [str(tmp_path)]}}}))
    refused = cli("servers", "tools", "mem", "--servers", str(other), "--stage", "v1", "--lineages", str(out),
                  check=False)
    assert refused.returncode == 2 and "package @modelcontextprotocol/server-memory" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert (out / "v1" / "tree" / "node_modules").is_symlink()  # the dependencies it was installed with
    assert 'registerTool("read_knowledge_graph"' in (out / "v1" / "tree" / "dist" / "index.js").read_text()


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("mcp_server_time") is None, reason="mcp-server-time is a dev dependency")
def test_pypi_server_time_is_found_in_site_packages_and_its_lineage_runs(tmp_path: Path) -> None:
    launcher = Path(sys.executable).parent / "mcp-server-time"
    servers = {"time": {"command": str(launcher), "args": ["--local-timezone", "UTC"]}}
    script = _rename_round("mcp_server_time/server.py", '    GET_CURRENT_TIME = "get_current_time"\n',
                           '    GET_CURRENT_TIME = "current_time"\n', "current_time", "get_current_time",
                           {"timezone": "UTC"})
    task = Task(id="time-1", prompt="What time is it in UTC?", servers=["time"],
                spec=TaskSpec(checkpoints=[ToolEffectCheckpoint(id="c1", tools=["time__get_current_time"],
                                                                must_include={"timezone": "UTC"})]),
                reference=[PlannedCall(tool="time__get_current_time", args={"timezone": "UTC"})])
    out = _evolve_and_run(tmp_path, "time", *_files(tmp_path, servers, script, task), "get_current_time",
                          "current_time")
    manifest = json.loads((out / "v1" / "manifest.json").read_text())
    assert manifest["entry"]["module"] == "mcp_server_time" and manifest["changed_files"] == [
        "mcp_server_time/server.py"]
    assert (out / "v1" / "tree" / "mcp_server_time" / "server.py").is_file()
    assert not (out / "v1" / "tree" / "site-packages").exists()  # only the server's package is copied


@pytest.mark.skipif(importlib.util.find_spec("mcp_server_git") is None, reason="mcp-server-git is a dev dependency")
def test_pypi_server_git_is_copied_out_of_site_packages_and_anchored_by_its_enum_names(tmp_path: Path) -> None:
    import anyio

    from mcptrials.evolve.source.anchor import anchor_tree
    from mcptrials.evolve.source.tree import source_server_for
    from mcptrials.evolve.source.validate import list_tools
    from mcptrials.model import ServerSpec

    server = source_server_for(ServerSpec(name="git", command=sys.executable, args=["-m", "mcp_server_git"]),
                               tmp_path / "git")
    assert sorted(p.name for p in server.root.iterdir()) == ["mcp_server_git"]
    assert server.module_origin() == (tmp_path / "git" / "mcp_server_git" / "__init__.py").resolve()
    listed = [t["name"] for t in anyio.run(list_tools, server)]
    assert anchor_tree(server.root).names == listed  # `name=GitTools.STATUS.value` read as "git_status"
