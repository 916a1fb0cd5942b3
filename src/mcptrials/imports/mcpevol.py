"""MCPEvol-Bench (Octobrist/MCPEvol-Bench): test cases, one multiplexer config per stage, ``evolution.json`` records.

A test case keeps its question as the prompt, its recorded calls as the reference plan and its answer as the
reference answer; it is judged for task fulfilment by the key-point judge (one key point per expected tool
call). ``servers.json`` is the original stage; ``stages/<stage>.json`` the evolved ones (iter3, iter5), for
ECS over the stages. The ``evolution.json`` record of round K becomes ``lineages/<server>/vK/plan.yaml``
where it can (description rewrites, parameter removals), so ``run --stages v0,v3 --lineages DIR/lineages``
replays the interface side of the evolution on any server; source-level changes (new parameters with new
behaviour, new tools) cannot, and are listed as such.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcptrials.evolve.plan import PlanError, parse_plan
from mcptrials.imports.common import Imported, expect, read_json, server_name, stdio_needs

STAGES = ("original", "iter3", "iter5")
META_KEYS = frozenset({"mutation_type", "task_idx"})
RECORD_KEYS = frozenset({"new_tool_config", "new_tool_name", "integration_summary", "addition_summary",
                         "auto_optimizations", "diff_hunks", "evolution_summary"})
"""Keys of a server's record that describe the round as a whole (a new tool, its summaries and code), not a tool."""


def read_mcpevol(src: Path) -> Imported:
    """Read a checkout of MCPEvol-Bench into tasks, per-stage servers, interface plans and a mapping table."""
    imported = Imported("mcpevol", str(src))
    for stage in STAGES:
        path = src / "servers" / "1mcp_config" / stage / "mcp.json"
        if not path.is_file():
            imported.row("stage", stage, "dropped", f"no {path}")
            continue
        servers = {}
        config = expect(read_json(path, "MCPEvol stage config"), dict, str(path))
        for raw, entry in expect(config.get("mcpServers", {}), dict, str(path)).items():
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
    rounds: dict[str, dict[int, list[dict[str, Any]]]] = {}
    source_only: dict[str, set[tuple[str, str]]] = {}  # per server: (tool, param) that only their source has
    records = sorted(mutations.rglob("evolution.json")) if mutations.is_dir() else []
    for path in sorted(records, key=lambda p: len(p.relative_to(mutations).parts)):  # round 1 first
        depth = len(path.relative_to(mutations).parts) - 1
        for raw, record in expect(read_json(path, "MCPEvol evolution record"), dict, str(path)).items():
            operations = _operations(imported, raw, expect(record, dict, f"{path}: {raw}"), depth,
                                     source_only.setdefault(server_name(raw), set()))
            if operations:
                rounds.setdefault(server_name(raw), {}).setdefault(depth, []).extend(operations)
    for server, by_round in sorted(rounds.items()):
        _lineage(imported, server, by_round)
    return imported


def _lineage(imported: Imported, server: str, by_round: dict[int, list[dict[str, Any]]]) -> None:
    """``lineages/<server>/vK/plan.yaml`` for rounds 1, 2, ... while each has a plan that loads."""
    for depth in sorted(by_round):
        where = f"{server} v{depth}"
        if depth > 1 and f"lineages/{server}/v{depth - 1}/plan.yaml" not in imported.files:
            imported.row("plan", where, "dropped", f"round {depth - 1} has no interface plan (its change lives in "
                         "their source only, or it has no record of this server), so the chain stops")
            continue
        plan = {"version": f"v{depth}", "parent": f"../v{depth - 1}/plan.yaml" if depth > 1 else None,
                "server": server, "summary": f"MCPEvol round {depth}", "operations": by_round[depth]}
        try:
            parse_plan(plan, where)
        except PlanError as exc:
            imported.row("plan", where, "dropped", str(exc).splitlines()[0])
            continue
        imported.files[f"lineages/{server}/v{depth}/plan.yaml"] = plan
        imported.row("plan", where, "mapped", f"{len(by_round[depth])} operations")


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


def _operations(imported: Imported, raw: str, record: dict[str, Any], depth: int,
                uncarried: set[tuple[str, str]]) -> list[dict[str, Any]]:
    """The interface operations one server's record of one round carries (description rewrites, removals).

    A record is either a new tool (``new_tool_config`` or ``new_tool_name`` beside summaries and code hunks),
    whose behaviour lives in their source only, or one entry per changed tool. ``uncarried`` holds the tools
    (param "") and parameters earlier rounds added in their source only; it grows with this round's.
    """
    kind = str(record.get("mutation_type") or "")
    raw_tool = record.get("new_tool_config")
    new_tool: dict[str, Any] = raw_tool if isinstance(raw_tool, dict) else {}
    added = str(new_tool.get("name") or record.get("new_tool_name") or "")
    if added:
        uncarried.add((added, ""))
        retouched = [str(o.get("tool_name")) for o in record.get("auto_optimizations") or [] if isinstance(o, dict)]
        imported.row("mutation", f"round {depth} {raw}:{added} ({kind})", "dropped",
                     "a new tool whose behaviour is in their source only (no interface plan can serve it): use "
                     "their stage servers" + (f"; its round also rewrote {', '.join(retouched)} in the source "
                                              "without recording the text" if retouched else ""))
    operations: list[dict[str, Any]] = []
    tools = {k: v for k, v in record.items() if k not in META_KEYS and k not in RECORD_KEYS}
    if not tools and not added:
        imported.row("mutation", f"round {depth} {raw} ({kind})", "dropped", "no interface change recorded (code only)")
    for tool, change in tools.items():
        where = f"round {depth} {raw}:{tool} ({kind})"
        if not isinstance(change, dict):
            imported.row("mutation", where, "dropped", "a summary, not an interface contract")
            continue
        found, source_only = _tool_change(tool, change, uncarried)
        if source_only:
            carried = f"{len(found)} operations carried; " if found else ""
            imported.row("mutation", where, "partial" if found else "dropped",
                         f"{carried}{'; '.join(source_only)}: new behaviour in the source has no interface plan, "
                         "use their stage servers")
        elif found:
            imported.row("mutation", where, "mapped", f"{len(found)} operations")
        else:
            imported.row("mutation", where, "dropped", "no interface change recorded (code only)")
        operations += found
    return operations


def _tool_change(tool: str, change: dict[str, Any],
                 uncarried: set[tuple[str, str]]) -> tuple[list[dict[str, Any]], list[str]]:
    """One tool's recorded change as plan operations, and what of it lives in their source only.

    An operation on a tool or parameter that only their source has (``uncarried``) is left out: the carried
    interface never had it.

    Reads each shape their records use: ``tool_description_change``/``parameter_changes`` (old and new text,
    an ``action`` per parameter), ``parameter_additions``/``parameter_removals``, and
    ``tool``/``parameters`` carrying ``modified_description``.
    """
    described = change["tool"] if isinstance(change.get("tool"), dict) else change
    raw_desc = change.get("tool_description_change")
    desc_change: dict[str, Any] = raw_desc if isinstance(raw_desc, dict) else {}
    new_description = str(desc_change.get("new_description") or described.get("modified_description") or "")
    if new_description and new_description == desc_change.get("old_description"):
        new_description = ""
    param_texts: list[tuple[str, str]] = [(str(p.get("parameter_name")), str(p["modified_description"]))
                                          for p in change.get("parameters") or []
                                          if isinstance(p, dict) and p.get("modified_description")]
    removed = [str(p.get("name") if isinstance(p, dict) else p) for p in change.get("parameter_removals") or []]
    added = [str(p.get("name") if isinstance(p, dict) else p) for p in change.get("parameter_additions") or []]
    for entry in (p for p in change.get("parameter_changes") or [] if isinstance(p, dict)):
        name, action = str(entry.get("name")), str(entry.get("action") or "").lower()
        if action in {"remove", "delete"}:
            removed.append(name)
        elif action == "add":
            added.append(name)
        elif entry.get("description_new") and entry.get("description_new") != entry.get("description_old"):
            param_texts.append((name, str(entry["description_new"])))
    joint = "O11" if new_description and param_texts else None
    found: list[dict[str, Any]] = []
    if new_description:
        found.append({"op": "describe_tool", "operator": joint or "O9", "tool": tool, "description": new_description})
    found += [{"op": "describe_param", "operator": joint or "O10", "tool": tool, "param": name, "description": text}
              for name, text in param_texts]
    found += [{"op": "remove_param", "operator": "O7", "tool": tool, "param": name} for name in removed]
    skipped = [op for op in found if (tool, "") in uncarried or (tool, op.get("param", "")) in uncarried]
    found = [op for op in found if op not in skipped]
    source_only = [f"added parameter(s) {', '.join(added)}"] if added else []
    if skipped:
        source_only.append(f"{', '.join(str(op['op']) + ' ' + str(op.get('param') or tool) for op in skipped)} "
                           "left out (only their source has it, from an earlier round)")
    uncarried.update((tool, name) for name in added)
    if change.get("diff_hunks") and not found and not added and not skipped:
        source_only.append("code changes")
    return found, source_only
