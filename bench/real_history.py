"""MCPEvol's real-history experiment: published releases of third-party MCP servers as the versions of a run.

For each server (npm ``@modelcontextprotocol/server-memory``, ``-filesystem``, ``-everything``; PyPI
``mcp-server-git``, ``mcp-server-time``, ``mcp-server-fetch``) the releases below are installed once into
``~/.cache/mcptrials/real-history`` (never into the repository), their tool lists are taken and diffed,
and the tasks of ``bench/real_history_tasks.yaml`` (written for the oldest release) run on every release
as declared versions of one servers config (``"versions": {label: {...}}``), so each release is its own
version: pass rate per version and ECS across them. Beside them, where a bundled interface-evolved
lineage of the same kind of server exists (memory, files), its stages run with the stale agent
(which, like tasks written for an old release, plays the v0 plan on every version).

    python bench/real_history.py [--model scripted:reference] [--servers memory,time] [--format json]

Figures are measured on this machine; ``--format json`` prints them as one JSON document.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

CACHE = Path.home() / ".cache" / "mcptrials" / "real-history"
HERE = Path(__file__).parent
TASKS = HERE / "real_history_tasks.yaml"

RELEASES: dict[str, dict[str, Any]] = {
    "memory": {"registry": "npm", "package": "@modelcontextprotocol/server-memory", "bin": "mcp-server-memory",
               "versions": ["0.6.2", "2025.4.25", "2026.8.31"],
               "env": {"MEMORY_FILE_PATH": "${MCPTRIALS_SANDBOX}/memory.json"}, "lineage": "memory"},
    "filesystem": {"registry": "npm", "package": "@modelcontextprotocol/server-filesystem",
                   "bin": "mcp-server-filesystem", "versions": ["0.6.2", "2025.3.28", "2025.7.1", "2026.8.31"],
                   "args": ["${MCPTRIALS_SANDBOX}"], "lineage": "files"},
    "everything": {"registry": "npm", "package": "@modelcontextprotocol/server-everything",
                   "bin": "mcp-server-everything", "versions": ["0.6.2", "2025.7.1", "2026.8.31"],
                   "args": ["stdio"]},
    "git": {"registry": "pypi", "package": "mcp-server-git", "module": "mcp_server_git",
            "versions": ["0.6.2", "2025.7.1", "2026.10.19"], "pins": {"0.6.2": ["mcp<2"], "2025.7.1": ["mcp<2"]}},
    "time": {"registry": "pypi", "package": "mcp-server-time", "module": "mcp_server_time",
             "versions": ["0.6.2", "2025.7.1", "2026.10.19"], "args": ["--local-timezone", "UTC"],
             "pins": {"0.6.2": ["mcp<2"], "2025.7.1": ["mcp<2"]}},
    "fetch": {"registry": "pypi", "package": "mcp-server-fetch", "module": "mcp_server_fetch",
              "versions": ["0.6.2", "2025.4.7", "2026.10.24"], "tasks": False,  # its tasks need the internet
              "pins": {"0.6.2": ["mcp<2"], "2025.4.7": ["mcp<2"]}},
}
"""The older PyPI releases leave ``mcp`` unpinned: installed today they get mcp 2.x and fail to import
(``McpError`` is gone), so ``pins`` installs them beside the mcp 1.x they were written for."""


def install(server: str, version: str) -> Path:
    """The folder one release is installed in (installed on first use)."""
    info = RELEASES[server]
    folder = CACHE / info["registry"] / f"{server}-{version}"
    marker = folder / ".installed"
    if marker.is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    if info["registry"] == "npm":
        command = ["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(folder),
                   f"{info['package']}@{version}"]
    else:
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(folder),
                   f"{info['package']}=={version}", *info.get("pins", {}).get(version, [])]
    subprocess.run(command, check=True, capture_output=True, timeout=900, env={**os.environ, "PIP_CONSTRAINT": ""})
    marker.write_text(version)
    return folder


def version_entry(server: str, version: str) -> dict[str, Any]:
    """The servers-config overrides that start one installed release."""
    info = RELEASES[server]
    folder = install(server, version)
    if info["registry"] == "npm":
        return {"command": str(folder / "node_modules" / ".bin" / info["bin"]), "args": list(info.get("args", []))}
    return {"command": sys.executable, "args": ["-m", info["module"], *info.get("args", [])],
            "env": {"PYTHONPATH": str(folder)}}


def config_of(server: str) -> dict[str, Any]:
    """One server, every release a declared version."""
    info = RELEASES[server]
    entry: dict[str, Any] = {"versions": {v: version_entry(server, v) for v in info["versions"]}}
    if info.get("env"):
        entry["env"] = dict(info["env"])
    return {"mcpServers": {server: entry}}


LIST_TOOLS = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2024-11-05", "capabilities": {},
                "clientInfo": {"name": "real-history", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def _raw_tools(command: str, args: list[str], env: dict[str, str], sandbox: str) -> tuple[dict[str, Any], str]:
    """A release's tool list as it sends it (not through the SDK, which refuses some published lists), and its
    ``serverInfo``: by JSON-RPC over stdio, one line per message."""
    from mcptrials.model import stable_hash

    fill = [a.replace("${MCPTRIALS_SANDBOX}", sandbox) for a in args]
    environ = {**os.environ, **{k: v.replace("${MCPTRIALS_SANDBOX}", sandbox) for k, v in env.items()}}
    process = subprocess.Popen([command, *fill], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env=environ, cwd=sandbox)
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write("".join(json.dumps(m) + "\n" for m in LIST_TOOLS))
        process.stdin.flush()
        info, tools = "", {}
        for line in process.stdout:
            message = json.loads(line) if line.startswith("{") else {}
            if message.get("id") == 1:
                server = message.get("result", {}).get("serverInfo", {})
                info = f"{server.get('name')} {server.get('version')}"
            if message.get("id") == 2:
                tools = {t["name"]: stable_hash([t.get("description"), t.get("inputSchema")])
                         for t in message.get("result", {}).get("tools", [])}
                break
        return dict(sorted(tools.items())), info
    finally:
        process.kill()
        process.wait()


def _tool_lists(server: str) -> dict[str, tuple[dict[str, str], str]]:
    from mcptrials.servers.config import parse_servers
    from mcptrials.servers.versions import declared_versions

    spec = parse_servers(config_of(server), "real-history", environ={})[server]
    out = {}
    for label, version in declared_versions(spec).items():
        with tempfile.TemporaryDirectory() as sandbox:
            assert version.spec.command is not None
            out[label] = _raw_tools(version.spec.command, version.spec.args, version.spec.env, sandbox)
    return out


def tool_diffs(server: str) -> dict[str, Any]:
    """Tool names per release and what each release added, removed and re-described against the one before."""
    found = _tool_lists(server)
    lists = {label: tools for label, (tools, _) in found.items()}
    steps = [{"from": a, "to": b, "added": sorted(set(lists[b]) - set(lists[a])),
              "removed": sorted(set(lists[a]) - set(lists[b])),
              "schema_changed": sorted(t for t in set(lists[a]) & set(lists[b]) if lists[a][t] != lists[b][t])}
             for a, b in itertools.pairwise(lists)]
    return {"package": RELEASES[server]["package"], "tools": {v: sorted(t) for v, t in lists.items()},
            "server_info": {label: info for label, (_, info) in found.items()}, "steps": steps}


def git_repo() -> Path:
    """A small fixed repository the git tasks read (made once in the cache)."""
    repo = CACHE / "git-fixture"
    if (repo / ".git").is_dir():
        return repo
    repo.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.org",
           "GIT_AUTHOR_DATE": "2026-01-02T10:00:00Z", "GIT_COMMITTER_DATE": "2026-01-02T10:00:00Z"}
    (repo / "notes.md").write_text("first line\n")
    for command in (["git", "init", "-q", "-b", "main"], ["git", "add", "notes.md"],
                    ["git", "commit", "-q", "-m", "Add the release notes"], ["git", "branch", "feature-x"]):
        subprocess.run(command, cwd=repo, check=True, env=env, capture_output=True)
    (repo / "notes.md").write_text("first line\nsecond line\n")
    return repo


def tasks_of(server: str, folder: Path) -> Path:
    """The server's tasks as a task file (``${GIT_REPO}`` filled in)."""
    from mcptrials.safety.loading import load_document

    data = load_document(TASKS, "real-history tasks")
    mine = [t for t in data["tasks"] if t["servers"] == [server]]
    repo = str(git_repo()) if server == "git" else ""
    path = folder / f"{server}_tasks.jsonl"
    path.write_text("".join(json.dumps(t).replace("${GIT_REPO}", repo) + "\n" for t in mine))
    return path


def _report(db: Path) -> dict[str, Any]:
    from mcptrials.report.summary import report_from_store
    from mcptrials.store.db import Store

    store = Store(db)
    try:
        return report_from_store(store)
    finally:
        store.close()


def _figures(report: dict[str, Any]) -> dict[str, Any]:
    evolution = report["evolution"][0] if report["evolution"] else {}
    failed: dict[str, list[str]] = {}
    for row in report["episodes"]:
        if row["outcome"] != "passed":
            failed.setdefault(row["version"], []).append(f"{row['task_id']} ({row['outcome']})")
    return {"per_version": {r["version"]: {"pass_rate": r["pass_at_1"], "tasks": r["n_tasks"],
                                           "infra_errors": r["infra_errors"],
                                           "not_passed": sorted(failed.get(r["version"], []))}
                            for r in report["per_version"]},
            "ecs": evolution.get("ecs"), "ecs_tasks": evolution.get("ecs_tasks"),
            "broken_tasks": evolution.get("broken_tasks", [])}


def run_releases(server: str, model: str, folder: Path) -> dict[str, Any]:
    """Every release of ``server`` as a declared version of one run; the report's per-version figures and ECS."""
    import mcptrials
    from mcptrials.servers.config import load_servers

    for stale in (CACHE / "npm").glob("memory-*/node_modules/@modelcontextprotocol/server-memory/dist/memory.json"):
        stale.unlink()  # a release that keeps its graph in its own folder (0.6.2) starts empty on every bench run
    config = folder / f"{server}_servers.json"
    config.write_text(json.dumps(config_of(server)))
    db = folder / f"{server}.db"
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        mcptrials.run_tasks(mcptrials.load_tasks(tasks_of(server, folder)), load_servers(config), agent="react",
                            model=model, db=db, concurrency=1, max_turns=12)  # one at a time: shared state
    return {**_figures(_report(db)), "seconds": round(time.perf_counter() - t0, 1),
            "label_warnings": [str(w.message) for w in said if "reports itself" in str(w.message)
                               or "look like one build" in str(w.message)]}


def run_lineage(lineage: str, folder: Path) -> dict[str, Any]:
    """The bundled interface-evolved lineage of the same kind of server, stale agent, stages early/middle/late."""
    import mcptrials

    tasks = [t for t in mcptrials.load_tasks() if t.servers == [lineage]]
    db = folder / f"lineage-{lineage}.db"
    mcptrials.run_tasks(tasks, agent="stale", stages="early,middle,late", db=db, concurrency=1)
    return _figures(_report(db))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="scripted:reference",
                        help="model spec; scripted:reference plays each task's reference plan (written for the "
                             "oldest release) on every release")
    parser.add_argument("--servers", default=",".join(RELEASES), help="comma-separated servers")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    parser.add_argument("--no-lineages", action="store_true", help="skip the bundled lineages")
    options = parser.parse_args()
    model = options.model
    out: dict[str, Any] = {"model": options.model, "servers": {}}
    with tempfile.TemporaryDirectory(prefix="real-history-") as tmp:
        folder = Path(tmp)
        for server in [s.strip() for s in options.servers.split(",") if s.strip()]:
            found: dict[str, Any] = {"diff": tool_diffs(server)}
            if RELEASES[server].get("tasks", True):
                found["releases"] = run_releases(server, model, folder)
            lineage = RELEASES[server].get("lineage")
            if lineage and not options.no_lineages:
                found["lineage"] = {"server": lineage, **run_lineage(lineage, folder)}
            out["servers"][server] = found
    if options.format == "json":
        print(json.dumps(out, indent=2))
        return
    print_tables(out)


def print_tables(out: dict[str, Any]) -> None:
    """The figures as plain text tables."""
    print(f"model: {out['model']}")
    for server, found in out["servers"].items():
        diff = found["diff"]
        print(f"\n{server} ({diff['package']})")
        print("  release       tools  against the release before: +added -removed ~schema or description changed")
        steps = {s["to"]: s for s in diff["steps"]}
        for label, tools in diff["tools"].items():
            step = steps.get(label)
            change = "" if step is None else (
                " ".join([*(f"+{t}" for t in step["added"]), *(f"-{t}" for t in step["removed"]),
                          *(f"~{t}" for t in step["schema_changed"])]) or "(no change)")
            print(f"  {label:<12} {len(tools):>6}  {change}")
        for kind in ("releases", "lineage"):
            if kind not in found:
                continue
            figures = found[kind]
            title = "releases" if kind == "releases" else f"bundled lineage '{figures['server']}' (stale agent)"
            rates = ", ".join(f"{v} {r['pass_rate']:.2f} ({r['tasks']} tasks"
                              + (f", {r['infra_errors']} infra" if r["infra_errors"] else "") + ")"
                              for v, r in figures["per_version"].items() if r["pass_rate"] is not None)
            ecs = "n/a" if figures["ecs"] is None else f"{figures['ecs']:.3f} over {figures['ecs_tasks']} tasks"
            print(f"  {title}: pass rate {rates}; ECS {ecs}")
            for version, row in figures["per_version"].items():
                if row["not_passed"]:
                    print(f"    not passed on {version}: {', '.join(row['not_passed'])}")
            for line in figures.get("label_warnings", []):
                print(f"    warning: {line}")


if __name__ == "__main__":
    main()
