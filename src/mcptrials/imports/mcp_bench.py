"""MCP-Bench (Accenture/mcp-bench): ``tasks/mcpbench_tasks_*_runner_format.json`` and ``mcp_servers/commands.json``.

A task keeps its fuzzy request as the prompt, its concrete description and dependency analysis for the
rubric judge, and becomes judge-only (``judges: [rubric]``): MCP-Bench has no deterministic checkpoint.
Tool mentions of the concrete description (``Server:tool (k=v, ...)``, or a bare tool name on a
single-server task) give the reference plan (calls whose arguments are all literal) and, with the arrows
and "feeds" clauses of the dependency analysis, the dependency pairs the rule metric checks.
"""

from __future__ import annotations

import itertools
import json
import re
import shlex
from pathlib import Path
from typing import Any

from mcptrials.imports.common import Imported, ImportError_, expect, read_json, server_name

TASK_FILES = ("mcpbench_tasks_single_runner_format.json", "mcpbench_tasks_multi_2server_runner_format.json",
              "mcpbench_tasks_multi_3server_runner_format.json")
OFFLINE = frozenset({"Unit Converter", "Math MCP", "Medical Calculator", "Scientific Computing", "Time MCP",
                     "Bibliomantic"})
"""The servers that compute locally (no web service, no key): our reading of their code, as the paper counts 6."""

_CALL = re.compile(r"(?:(?P<server>[A-Z][\w .-]*?):)?(?P<tool>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?P<open>\s*\()?")
_CUE = re.compile(r"(call|calling|use|using|invoke|invoking|via|with|run|then|and)\W*$", re.IGNORECASE)
_LINK = re.compile(r"→|->|\bfeeds?\b|\bfeeding\b|\bdrives?\b|\bconsumed by\b|\bused by\b|\bpassed to\b"
                   r"|\binput (?:to|for)\b", re.IGNORECASE)


def read_mcp_bench(src: Path) -> Imported:
    """Read a checkout of MCP-Bench (or one of its task files) into tasks, servers and a mapping table."""
    root = src if src.is_dir() else src.parent.parent
    files = [src] if src.is_file() else [p for p in (root / "tasks" / name for name in TASK_FILES) if p.is_file()]
    if not files:
        raise ImportError_(f"{src}: no MCP-Bench task file (tasks/mcpbench_tasks_*_runner_format.json)")
    imported = Imported("mcp-bench", str(src))
    commands_path = root / "mcp_servers" / "commands.json"
    commands = expect(read_json(commands_path, "MCP-Bench server commands"), dict, str(commands_path)) \
        if commands_path.is_file() else {}
    if not commands:
        imported.row("servers", str(commands_path), "dropped", "no mcp_servers/commands.json beside the tasks")
    names = {raw: server_name(raw) for raw in commands}
    for raw, entry in commands.items():
        _server(imported, raw, expect(entry, dict, f"{commands_path}: {raw}"), root / "mcp_servers")
    for path in files:
        data = expect(read_json(path, "MCP-Bench task file"), dict, str(path))
        for group in expect(data.get("server_tasks"), list, f"{path}: server_tasks"):
            raws = [s.strip() for s in str(group.get("server_name", "")).split("+") if s.strip()]
            for raw in raws:
                names.setdefault(raw, server_name(raw))
            for item in expect(group.get("tasks", []), list, f"{path}: tasks"):
                _task(imported, expect(item, dict, f"{path}: task"), [names[r] for r in raws], raws, group, path)
    missing = sorted({s for t in imported.tasks for s in t["servers"]} - set(imported.servers))
    for name in missing:
        imported.row("server", name, "dropped", "named by tasks but absent from commands.json")
    offline = [t for t in imported.tasks if all(s in imported.servers and "offline" in imported.servers[s]["tags"]
                                                for s in t["servers"])]
    imported.files["tasks.offline.jsonl"] = "".join(json.dumps(t) + "\n" for t in offline)
    return imported


def _server(imported: Imported, raw: str, entry: dict[str, Any], servers_dir: Path) -> None:
    name = server_name(raw)
    try:
        argv = shlex.split(str(entry.get("cmd", "")))
    except ValueError as exc:
        imported.row("server", raw, "dropped", f"command does not parse: {exc}")
        return
    if not argv:
        imported.row("server", raw, "dropped", "no command")
        return
    keys = [str(k) for k in entry.get("env") or []]
    cwd = str(entry.get("cwd") or "")
    folder = (servers_dir / cwd.removeprefix("../")).resolve() if cwd else servers_dir.resolve()
    spec: dict[str, Any] = {"command": argv[0], "args": argv[1:], "cwd": str(folder),
                            "env": {k: "${" + k + ":-}" for k in keys},
                            "tags": ["offline" if raw in OFFLINE else "network"] + (["needs-key"] if keys else []),
                            "dynamism": "static" if raw in OFFLINE else "live_read", "description": raw}
    needs = ", ".join([f"api key: {k}" for k in keys] + ([] if raw in OFFLINE else ["network"]))
    if entry.get("transport") == "http":
        port, endpoint = entry.get("port"), entry.get("endpoint", "/mcp")
        spec = {"url": f"http://localhost:{port}{endpoint}", "tags": spec["tags"], "dynamism": spec["dynamism"],
                "description": raw}
        imported.servers[name] = spec
        imported.row("server", raw, "partial", f"HTTP server: start it yourself ({entry.get('cmd')} in {folder})",
                     needs)
        return
    imported.servers[name] = spec
    imported.row("server", raw, "mapped", "" if folder.is_dir() else "folder not installed (their install.sh)", needs)


def _task(imported: Imported, item: dict[str, Any], servers: list[str], raws: list[str], group: dict[str, Any],
          path: Path) -> None:
    task_id = str(item.get("task_id") or "")
    prompt = str(item.get("fuzzy_description") or "").strip()
    if not task_id or not prompt:
        imported.row("task", task_id or "(no id)", "dropped", "no task_id or fuzzy_description")
        return
    concrete = str(item.get("task_description") or "")
    analysis = str(item.get("dependency_analysis") or "")
    by_raw = dict(zip(raws, servers, strict=True))
    calls, plan = tool_mentions(concrete, by_raw)
    calls = list(dict.fromkeys(calls + tool_mentions(analysis, by_raw)[0]))
    edges = dependency_pairs(analysis, {c.split("__", 1)[1]: c for c in calls}, by_raw) + placeholder_pairs(plan)
    imported.tasks.append({
        "id": task_id, "prompt": prompt, "concrete_prompt": concrete or None, "dependency_analysis": analysis or None,
        "dependencies": [list(e) for e in dict.fromkeys(edges)], "servers": servers,
        "category": str(group.get("combination_type") or ("single" if len(servers) == 1 else "multi")),
        "spec": {"checkpoints": [], "judges": ["rubric"], "grounding": False},
        "reference": [{"tool": tool, "args": args} for tool, args, literal in plan if literal],
        "provenance": {"benchmark": "mcp-bench", "file": path.name, "task_id": task_id,
                       "distraction_servers": list(item.get("distraction_servers") or [])},
    })
    literal = sum(1 for _, _, lit in plan if lit)
    note = f"{len(calls)} tools named, {literal}/{len(plan)} calls with literal arguments, {len(edges)} dependencies"
    imported.row("task", task_id, "mapped", note)
    if item.get("distraction_servers"):
        imported.row("distractors", task_id, "dropped", "their distractors are whole servers, ours are tools "
                     "(kept in provenance.distraction_servers)")


def tool_mentions(text: str, servers: dict[str, str]) -> tuple[list[str], list[tuple[str, dict[str, Any], bool]]]:
    """Qualified tools the text names, and the calls it spells out: (tool, arguments, all literal)."""
    single = next(iter(servers.values())) if len(servers) == 1 else None
    named: list[str] = []
    plan: list[tuple[str, dict[str, Any], bool]] = []
    for m in _CALL.finditer(text):
        raw = (m.group("server") or "").strip()
        server = _named_server(raw, servers) if raw else single
        cued = m.group("open") or _CUE.search(text[max(0, m.start() - 12):m.start()])
        if server is None or (not raw and not cued):
            continue
        tool = f"{server}__{m.group('tool')}"
        named.append(tool)
        if m.group("open"):
            args = _arguments(text, m.end())
            if args is not None:
                plan.append((tool, args[0], args[1]))
    return list(dict.fromkeys(named)), plan


def _named_server(raw: str, servers: dict[str, str]) -> str | None:
    """The server a ``Name:`` prefix names; the prefix may carry the words before it ("Call Time MCP")."""
    return next((ours for theirs, ours in servers.items() if raw == theirs or raw.endswith(" " + theirs)), None)


def _arguments(text: str, start: int) -> tuple[dict[str, Any], bool] | None:
    """The ``k=v, ...`` inside the parenthesis opened before ``start``: (arguments, all values literal)."""
    depth, end = 1, start
    while end < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        end += 1
    inner = text[start:end - 1]
    parts, depth, current = [], 0, ""
    for ch in inner:
        depth += {"[": 1, "{": 1, "]": -1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    args: dict[str, Any] = {}
    literal = True
    for part in (p.strip() for p in parts if p.strip()):
        key, eq, value = part.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_]\w*", key.strip()):
            return None
        value = value.strip()
        if "<" in value or "…" in value or "..." in value:
            literal = False
            continue
        try:
            args[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            args[key.strip()] = value.strip("\"'“”")
    return args, literal


def dependency_pairs(analysis: str, tools: dict[str, str], servers: dict[str, str]) -> list[tuple[str, str]]:
    """(producer, consumer) pairs from the clauses of a dependency analysis that link tools (→, feeds, ...)."""
    pairs = []
    for clause in re.split(r"[.;\n•]|\(\d+\)|\d\)\s", analysis):
        if not _LINK.search(clause):
            continue
        found: list[str] = []
        for m in re.finditer(r"(?:([A-Z][\w .-]*?):)?([a-z][a-z0-9]*(?:_[a-z0-9]+)+)", clause):
            server = _named_server((m.group(1) or "").strip(), servers)
            name = f"{server}__{m.group(2)}" if server else tools.get(m.group(2))
            if name and (not found or found[-1] != name):
                found.append(name)
        pairs += list(itertools.pairwise(found))
    return pairs


def placeholder_pairs(plan: list[tuple[str, dict[str, Any], bool]]) -> list[tuple[str, str]]:
    """A call whose arguments are placeholders (``<top_result.id>``) depends on the call spelled out before it."""
    return [(before[0], after[0]) for before, after in itertools.pairwise(plan)
            if not after[2] and before[0] != after[0]]
