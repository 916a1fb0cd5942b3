"""MCPEvol-Bench (Octobrist/MCPEvol-Bench): test cases, one multiplexer config per stage, ``evolution.json`` records.

A test case keeps its question as the prompt, its recorded calls as the reference plan and its answer as the
reference answer; it is judged for task fulfilment by the key-point judge (one key point per expected tool
call). ``servers.json`` is the original stage; ``stages/<stage>.json`` the evolved ones (iter3, iter5), for
ECS over the stages. An ``evolution.json`` record becomes an interface plan where it can (description
rewrites, parameter removals); source-level changes (new parameters with new behaviour, new tools) cannot.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcptrials.imports.common import Imported, expect, read_json, server_name, stdio_needs

STAGES = ("original", "iter3", "iter5")
META_KEYS = frozenset({"mutation_type", "task_idx"})


def read_mcpevol(src: Path) -> Imported:
    """Read a checkout of MCPEvol-Bench into tasks, per-stage servers, interface plans and a mapping table."""
    imported = Imported("mcpevol", str(src))
    for stage in STAGES:
        path = src / "servers" / "1mcp_config" / stage / "mcp.json"
        if not path.is_file():
            imported.row("stage", stage, "dropped", f"no {path}")
            continue
        servers = {}
        for raw, entry in expect(read_json(path, "MCPEvol stage config").get("mcpServers", {}), dict, str(path)).items():
            args = [str(a) for a in entry.get("args") or []]
            servers[server_name(raw)] = {"command": entry.get("command"), "args": args,
                                         "env": {str(k): str(v) for k, v in (entry.get("env") or {}).items()},
                                         "version": stage}
            if stage == "original":
                needs = stdio_needs(entry.get("command"), args)
                placeholder = any("/path/to/" in a for a in args)
                imported.row("server", raw, "partial" if placeholder else "mapped",
                             "args name /path/to/... (set to your install)" if placeholder else "", needs)
        if stage == "original":
            imported.servers = servers
        else:
            imported.files[f"stages/{stage}.json"] = {"mcpServers": servers}
        imported.row("stage", stage, "mapped", f"{len(servers)} servers")
    cases = src / "src" / "custom" / "data" / "test_cases" / "test_cases.json"
    for case in expect(read_json(cases, "MCPEvol test cases"), list, str(cases)):
        _task(imported, expect(case, dict, str(cases)))
    mutations = src / "src" / "custom" / "data" / "mutation"
    for path in sorted(mutations.rglob("evolution.json")) if mutations.is_dir() else []:
        depth = len(path.relative_to(mutations).parts) - 1
        for raw, record in expect(read_json(path, "MCPEvol evolution record"), dict, str(path)).items():
            _plan(imported, raw, expect(record, dict, f"{path}: {raw}"), depth)
    return imported


def _task(imported: Imported, case: dict[str, Any]) -> None:
    task_id = f"mcpevol-{case.get('idx')}"
    question = str(case.get("question") or "").strip()
    owners = {tool: server_name(raw) for raw, tools in (case.get("servers") or {}).items() for tool in tools or []}
    servers = list(dict.fromkeys(owners.values()))
    if not question or not servers:
        imported.row("task", task_id, "dropped", "no question or no servers")
        return
    reference = []
    for message in case.get("trajectory_messages") or []:
        for call in message.get("tool_calls") or [] if isinstance(message, dict) else []:
            name = str((call.get("function") or {}).get("name"))
            try:
                args = json.loads((call.get("function") or {}).get("arguments") or "{}")
            except json.JSONDecodeError:
                args = {}
            if name in owners and isinstance(args, dict):
                reference.append({"tool": f"{owners[name]}__{name}", "args": args})
    missing = [s for s in servers if s not in imported.servers]
    imported.tasks.append({
        "id": task_id, "prompt": question, "servers": servers, "reference": reference,
        "reference_answer": case.get("answer") or None,
        "key_points": [f"Uses {tool} ({owners[tool]}) or an equivalent to do its part" for tool in owners]
        + ["Delivers what the request asks for"],
        "spec": {"checkpoints": [], "judges": ["keypoints"], "grounding": False},
        "provenance": {"benchmark": "mcpevol", "idx": case.get("idx"),
                       "recorded_success": (case.get("eval_result") or {}).get("is_success")},
    })
    imported.row("task", task_id, "partial" if missing else "mapped",
                 f"servers not in the original stage: {', '.join(missing)}" if missing else "")


def _plan(imported: Imported, raw: str, record: dict[str, Any], depth: int) -> None:
    name = server_name(raw)
    kind = str(record.get("mutation_type") or "")
    operations: list[dict[str, Any]] = []
    for tool, change in ((k, v) for k, v in record.items() if k not in META_KEYS):
        where = f"round {depth} {raw}:{tool} ({kind})"
        if not isinstance(change, dict):
            imported.row("mutation", where, "dropped", "a summary, not an interface contract")
            continue
        described = change.get("tool") if isinstance(change.get("tool"), dict) else change
        if described.get("modified_description"):
            operations.append({"op": "describe_tool", "operator": "O9", "tool": tool,
                               "description": described["modified_description"]})
        for param in change.get("parameters") or []:
            if isinstance(param, dict) and param.get("modified_description"):
                operations.append({"op": "describe_param", "operator": "O10", "tool": tool,
                                   "param": param.get("parameter_name"), "description": param["modified_description"]})
        for param in change.get("parameter_removals") or []:
            operations.append({"op": "remove_param", "operator": "O7", "tool": tool,
                               "param": param.get("name") if isinstance(param, dict) else str(param)})
        if change.get("parameter_additions") or change.get("diff_hunks") and not operations:
            imported.row("mutation", where, "dropped", "new behaviour in the source (added parameters or code): "
                                                       "an interface plan cannot carry it; use their stage servers")
    if operations:
        plan = {"version": f"r{depth}", "server": name, "summary": f"MCPEvol {kind} round {depth}",
                "operations": operations}
        imported.files[f"plans/r{depth}/{name}.json"] = plan
        imported.row("plan", f"round {depth} {raw}", "mapped", f"{len(operations)} operations")
