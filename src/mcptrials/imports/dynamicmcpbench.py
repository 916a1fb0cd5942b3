"""DynamicMCPBench (ITMO-NSS-team/DynamicMCPBench): ``specs.jsonl``, ``manifest.json`` and ``traces.jsonl``.

Their TaskSpec is closest to ours: an equivalence set becomes a checkpoint's tools (``server__tool``), an
argument predicate ``must_include``/``must_match`` (``starts_with`` as an anchored regex), a value
predicate ``contains``/``regex`` on a tool result or the final message, a minefield's forbidden tool a
minefield, ``ordering`` our ``partial_order``; the answer is not held to grounding (they do not check it).
A recorded trace becomes an episode of a result store (``--store``) that ``run --replay`` answers from,
and its calls the task's reference plan.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mcptrials.imports.common import Imported, ImportError_, expect, read_json, read_jsonl, server_name, stdio_needs
from mcptrials.imports.traces import trace_episode


def read_dynamicmcpbench(src: Path) -> Imported:
    """Read a folder holding ``specs.jsonl`` (and ``manifest.json``, ``traces.jsonl``) into tasks and servers."""
    folder = src if src.is_dir() else src.parent
    specs_path = src if src.is_file() else folder / "specs.jsonl"
    imported = Imported("dynamicmcpbench", str(src))
    manifest = folder / "manifest.json"
    if manifest.is_file():
        data = expect(read_json(manifest, "DynamicMCPBench manifest"), dict, str(manifest))
        for entry in expect(data.get("servers", []), list, f"{manifest}: servers"):
            _server(imported, expect(entry, dict, f"{manifest}: server"))
    else:
        imported.row("servers", str(manifest), "dropped", "no manifest.json beside the specs")
    has_traces = (folder / "traces.jsonl").is_file()
    traces = {str(t.get("trace_id")): t for t in read_jsonl(folder / "traces.jsonl", "traces")} if has_traces else {}
    for spec in read_jsonl(specs_path, "DynamicMCPBench specs"):
        task = _task(imported, spec)
        if task is None:
            continue
        trace = traces.pop(str(spec.get("source_trace_id")), None)
        if trace is None and has_traces:
            imported.row("trace", str(spec.get("source_trace_id")), "dropped",
                         f"not in traces.jsonl: {task['id']} has no recording, so a --replay run leaves it out")
        if trace is not None:
            episode, tools = trace_episode(trace, task["id"], "dynamicmcpbench")
            task["reference"] = [{"tool": c.name, "args": c.arguments or {}} for c in episode.tool_calls
                                 if not c.is_error]
            task["reference_answer"] = episode.final_answer or None
            imported.episodes.append(episode)
            imported.tools.extend(tools)
            imported.row("trace", str(spec.get("source_trace_id")), "mapped",
                         f"{len(episode.tool_calls)} calls -> episode of {task['id']}")
    for trace_id in traces:
        imported.row("trace", trace_id, "dropped", "no spec distilled from it")
    return imported


def _server(imported: Imported, entry: dict[str, Any]) -> None:
    raw = str(entry.get("server_id") or "")
    name = server_name(raw)
    dynamism = str(entry.get("dynamism") or "static")
    if entry.get("transport", "stdio") == "stdio":
        args = [str(a) for a in entry.get("args") or []]
        spec: dict[str, Any] = {"command": entry.get("command"), "args": args, "env": entry.get("env") or {}}
        needs = [stdio_needs(entry.get("command"), args)]
    else:
        spec = {"url": entry.get("endpoint"), "headers": entry.get("headers") or {},
                "type": "sse" if entry.get("transport") == "sse" else "http"}
        needs = ["network"]
    if "public-api" in (entry.get("tags") or []) or dynamism == "live_read":
        needs.append("network")
    imported.servers[name] = {**spec, "dynamism": dynamism, "tags": list(entry.get("tags") or []),
                              "description": entry.get("description")}
    imported.row("server", raw, "mapped", "", ", ".join(dict.fromkeys(n for n in needs if n)))


def _tool(ref: dict[str, Any]) -> str:
    return f"{server_name(str(ref.get('server_id')))}__{ref.get('tool_name')}"


def _matcher(match: dict[str, Any]) -> dict[str, Any] | None:
    """Their per-argument matcher as ours; ``starts_with`` as an anchored regex; None when it sets several."""
    set_keys = {k: v for k, v in match.items() if v is not None}
    if len(set_keys) != 1:
        return None
    kind, value = next(iter(set_keys.items()))
    if kind == "starts_with":
        return {"regex": "^" + re.escape(str(value))}
    return {kind: value}


def _predicate(pred: dict[str, Any] | None, where: str, notes: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"must_include": dict((pred or {}).get("must_include") or {}), "must_match": {}}
    for key, match in ((pred or {}).get("must_match") or {}).items():
        ours = _matcher(match or {})
        if ours is None:
            notes.append(f"{where}: argument {key!r} combines matchers (kept the first)")
            first = next(((k, v) for k, v in (match or {}).items() if v is not None), None)
            ours = _matcher(dict([first])) if first else None
        if ours is not None:
            out["must_match"][key] = ours
    return out


def _checkpoint(cp: dict[str, Any], notes: list[str]) -> dict[str, Any] | None:
    cid = str(cp.get("checkpoint_id"))
    kind = cp.get("kind")
    if kind == "tool_effect":
        if cp.get("must_succeed") is False:
            notes.append(f"{cid}: must_succeed false read as true (our effects count successful calls)")
        return {"kind": "tool_effect", "id": cid, "description": cp.get("description") or "",
                "tools": [_tool(r) for r in cp.get("equivalence_set") or []],
                **_predicate(cp.get("arg_predicate"), cid, notes)}
    if kind == "value_produced":
        pred = cp.get("predicate") or {}
        contains: list[Any] = list(pred.get("contains_all") or [])
        if pred.get("contains_any"):
            contains.append(list(pred["contains_any"]))
        source = "final_message" if cp.get("scope") == "final_assistant_message" else "tool_result"
        return {"kind": "value_produced", "id": cid, "description": cp.get("description") or "", "source": source,
                "contains": contains, "regex": [pred["regex"]] if pred.get("regex") else []}
    notes.append(f"{cid}: {kind} checkpoints are reserved in their format (no probe to map)")
    return None


def _task(imported: Imported, spec: dict[str, Any]) -> dict[str, Any] | None:
    task_id = str(spec.get("task_id") or "")
    if not task_id or not spec.get("prompt"):
        imported.row("task", task_id or "(no id)", "dropped", "no task_id or prompt")
        return None
    notes: list[str] = []
    checkpoints = [c for c in (_checkpoint(cp, notes) for cp in spec.get("checkpoints") or []) if c]
    minefields = []
    for mine in spec.get("minefields") or []:
        if mine.get("forbidden_tool"):
            minefields.append({"tools": [_tool(mine["forbidden_tool"])], "description": mine.get("description") or "",
                               **_predicate(mine.get("forbidden_arg_predicate"), str(mine.get("minefield_id")), notes)})
        else:
            notes.append(f"{mine.get('minefield_id')}: a minefield with no forbidden tool")
    kept = {c["id"] for c in checkpoints}
    order = [(o["before_id"], o["after_id"]) for o in spec.get("ordering") or []
             if o.get("before_id") in kept and o.get("after_id") in kept]
    complexity = spec.get("complexity") or {}
    task = {
        "id": task_id, "prompt": spec["prompt"], "servers": [server_name(s) for s in spec.get("servers_used") or []],
        "category": str(spec.get("dynamism") or "uncategorised"),
        "spec": {"checkpoints": checkpoints, "minefields": minefields, "partial_order": order, "grounding": False,
                 "complexity": {"chain_depth": int(complexity.get("trace_depth") or 0),
                                "cross_server": bool(complexity.get("cross_server")),
                                "branching": int(bool(complexity.get("runtime_branching")))}},
        "provenance": {"benchmark": "dynamicmcpbench", "task_id": task_id, "dynamism": spec.get("dynamism"),
                       "source_trace_id": spec.get("source_trace_id"), "notes": spec.get("notes")},
    }
    if not checkpoints:
        imported.row("task", task_id, "dropped", "no checkpoint could be mapped; " + "; ".join(notes))
        return None
    imported.tasks.append(task)
    imported.row("task", task_id, "partial" if notes else "mapped", "; ".join(notes))
    return task


__all__ = ["ImportError_", "read_dynamicmcpbench"]
