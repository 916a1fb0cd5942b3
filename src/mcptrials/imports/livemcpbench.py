"""LiveMCPBench (icip-cas/LiveMCPBench): ``annotated_data/all_annotations.json`` and ``tools/LiveMCPTool/``.

A task keeps its question as the prompt, its annotated steps as key points and its answer as the reference
answer, and is judged by the key-point judge (``judges: [keypoints]``), as LiveMCPEval does. Its servers are
the ones whose tools the annotation lists (looked up in ``tools.json``); files under ``/root/...`` are copied
from the checkout's ``annotated_data`` into the sandbox and the prompt's paths mapped there.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mcptrials.imports.common import Imported, ImportError_, expect, read_json, server_name, stdio_needs

ROOT = "/root/"
"""Where their tasks expect the annotated data (their scripts link ``annotated_data/*`` there)."""
LIVE = frozenset({"Discovery", "Finance", "Location", "Entertainment"})
"""Their server categories that read a changing web service."""
_NUMBERED = re.compile(r"^\s*\d+[.)]\s*")
_ROOT_PATH = re.compile(r"/root/([\w.-]+)")


def read_livemcpbench(src: Path) -> Imported:
    """Read a checkout of LiveMCPBench into tasks, servers and a mapping table."""
    root = src if src.is_dir() else src.parent.parent
    annotations = src if src.is_file() else root / "annotated_data" / "all_annotations.json"
    imported = Imported("livemcpbench", str(src))
    configs = root / "tools" / "LiveMCPTool" / "all_config.json"
    for entry in expect(read_json(configs, "LiveMCPBench server configs"), list, str(configs)):
        _servers(imported, expect(entry, dict, str(configs)))
    owners = _tool_owners(root / "tools" / "LiveMCPTool" / "tools.json", imported)
    data = root / "annotated_data"
    for item in expect(read_json(annotations, "LiveMCPBench annotations"), list, str(annotations)):
        _task(imported, expect(item, dict, str(annotations)), owners, data)
    return imported


def _servers(imported: Imported, entry: dict[str, Any]) -> None:
    category = str(entry.get("category") or "")
    for raw, config in expect((entry.get("config") or {}).get("mcpServers", {}), dict, "config.mcpServers").items():
        name = server_name(raw)
        if name in imported.servers:
            imported.row("server", raw, "dropped", f"a second server named {name!r}")
            continue
        args = [str(a) for a in config.get("args") or []]
        needs = [n for n in (stdio_needs(config.get("command"), args), "network" if category in LIVE else "") if n]
        imported.servers[name] = {"command": config.get("command"), "args": args,
                                  "env": {str(k): str(v) for k, v in (config.get("env") or {}).items()},
                                  "category": category or None, "description": str(entry.get("name") or raw),
                                  "dynamism": "live_read" if category in LIVE else "static",
                                  "tags": [n.replace(" ", "-") for n in needs]}
        imported.row("server", raw, "mapped", "", ", ".join(needs))


def _tool_owners(path: Path, imported: Imported) -> dict[str, list[str]]:
    """Tool name -> the servers that list it (from ``tools.json``; empty when it is absent)."""
    if not path.is_file():
        imported.row("tools", str(path), "dropped", "no tools.json: tasks cannot name their servers")
        return {}
    owners: dict[str, list[str]] = {}
    for entry in expect(read_json(path, "LiveMCPBench tool lists"), list, str(path)):
        for raw, listing in (entry.get("tools") or {}).items() if isinstance(entry, dict) else ():
            for tool in (listing or {}).get("tools") or []:
                owners.setdefault(str(tool.get("name")), []).append(server_name(raw))
    return owners


def _lines(text: Any) -> list[str]:
    return [_NUMBERED.sub("", line).strip() for line in str(text or "").splitlines() if line.strip()]


def _task(imported: Imported, item: dict[str, Any], owners: dict[str, list[str]], data: Path) -> None:
    task_id, prompt = str(item.get("task_id") or ""), str(item.get("Question") or "").strip()
    if not task_id or not prompt:
        imported.row("task", task_id or "(no id)", "dropped", "no task_id or Question")
        return
    meta = item.get("Annotator Metadata") or {}
    tools = _lines(meta.get("Tools"))
    servers = list(dict.fromkeys(s for t in tools for s in owners.get(t, [])[:1] if s in imported.servers))
    unknown = [t for t in tools if not owners.get(t)]
    if not servers:
        imported.row("task", task_id, "dropped", f"none of its tools {tools} is in the tool pool")
        return
    copy, missing = {}, []
    for folder in dict.fromkeys(_ROOT_PATH.findall(prompt + " " + str(item.get("file_name") or ""))):
        source = data / folder
        if source.exists():
            copy[folder] = str(source.resolve())
        else:
            missing.append(folder)
    imported.tasks.append({
        "id": task_id, "prompt": prompt, "servers": servers, "category": str(item.get("category") or "uncategorised"),
        "key_points": _lines(meta.get("Steps")), "reference_answer": str(item.get("answers") or "") or None,
        "spec": {"checkpoints": [], "judges": ["keypoints"], "grounding": False},
        "fixtures": {"copy": copy, "path_map": {ROOT: "."} if copy or ROOT in prompt else {}},
        "provenance": {"benchmark": "livemcpbench", "task_id": task_id, "tools": tools},
    })
    why = "; ".join(x for x in (f"tools not in the pool: {', '.join(unknown)}" if unknown else "",
                                f"data not in the checkout: {', '.join(missing)}" if missing else "") if x)
    imported.row("task", task_id, "partial" if why else "mapped", why)


__all__ = ["ImportError_", "read_livemcpbench"]
