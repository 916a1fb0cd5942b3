"""Recorded traces of a published benchmark as episodes of a result store, so ``run --replay`` answers from them."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from mcptrials.imports.common import Imported, server_name
from mcptrials.model import (
    Episode,
    ModelTurn,
    ServerIdentity,
    ServerSpec,
    Task,
    ToolCallRecord,
    ToolCallRequest,
    ToolInfo,
    stable_hash,
)


def _text(result: Any) -> str:
    """A recorded MCP result as the text an agent read: its text parts, else the result as JSON."""
    if isinstance(result, dict) and isinstance(result.get("content"), list):
        parts = [str(p.get("text", "")) for p in result["content"] if isinstance(p, dict) and p.get("type") == "text"]
        if parts:
            return "\n".join(parts)
    return "" if result is None else json.dumps(result, default=str)


def _when(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def trace_episode(trace: dict[str, Any], task_id: str, source: str) -> tuple[Episode, list[ToolInfo]]:
    """One DynamicMCPBench trace as an episode of ``task_id``: each agent call a turn and its answered call."""
    tools = [ToolInfo(server=server_name(raw), name=str(t.get("name")), description=str(t.get("description") or ""),
                      input_schema=t.get("input_schema") or {"type": "object", "properties": {}})
             for raw, listing in (trace.get("tool_specs") or {}).items() for t in listing or []]
    meta = trace.get("seed_metadata") or {}
    exploration = meta.get("exploration") or {}
    steps: list[ModelTurn | ToolCallRecord] = []
    started = _when(trace.get("started_at"))
    for step in trace.get("steps") or []:
        if step.get("kind") != "call_tool_agent":
            continue
        server, tool = server_name(str(step.get("server_id"))), str(step.get("tool_name"))
        call_id = f"call-{step.get('step_id')}"
        name = f"{server}__{tool}"
        arguments = step.get("arguments") if isinstance(step.get("arguments"), dict) else {}
        turn = len([s for s in steps if isinstance(s, ModelTurn)])
        request = ToolCallRequest(id=call_id, name=name, arguments=arguments)
        steps.append(ModelTurn(index=len(steps), tool_calls=[request]))
        failed = step.get("status") != "success"
        error = step.get("error") or {}
        result = step.get("result")
        at = _when(step.get("started_at"))
        steps.append(ToolCallRecord(
            index=len(steps), call_id=call_id, turn=turn, name=name, server=server, tool=tool, arguments=arguments,
            content=str(error.get("message") or "") if failed and result is None else _text(result),
            structured_content=result.get("structuredContent") if isinstance(result, dict) else None,
            is_error=failed, error_kind="tool_error" if failed else None,
            latency_s=float(step.get("latency_ms") or 0) / 1000,
            started_s=(at - started).total_seconds() if at and started else None))
    final = str(exploration.get("final_message") or "")
    steps.append(ModelTurn(index=len(steps), text=final))
    identities = {}
    for fp in trace.get("servers") or []:
        name = server_name(str(fp.get("server_id")))
        hashes = sorted(t.schema_hash for t in tools if t.server == name)
        identities[name] = ServerIdentity(tools_hash=stable_hash(hashes), name=fp.get("server_name"),
                                          version=fp.get("server_version"))
    trace_id = str(trace.get("trace_id"))
    episode = Episode(id=stable_hash([source, trace_id]), run_id=f"{source}-traces", task_id=task_id, agent="recorded",
                      model=str(meta.get("llm_model") or "unknown"), attempt=1, config_hash=stable_hash([source]),
                      steps=steps, final_answer=final, started_at=started,
                      tool_hashes={t.qualified_name: t.schema_hash for t in tools}, servers=identities)
    return episode, tools


def store_traces(imported: Imported, db: str) -> int:
    """Write the imported tasks, tools and recorded episodes (scored by Tier-1 and the rules) into the store ``db``."""
    from mcptrials.scoring.effects import score_effects
    from mcptrials.scoring.rules import score_rules
    from mcptrials.store.db import Store

    tasks = {}
    for data in imported.tasks:
        try:
            tasks[data["id"]] = Task.model_validate(data)
        except ValidationError:  # written nowhere: ``write_import`` lists it as dropped, saying why
            continue
    servers = {name: ServerSpec.model_validate({"name": name, **{k: v for k, v in spec.items()
                                                                  if k not in {"description", "type"}}}).public_view()
               for name, spec in imported.servers.items()}
    store = Store(db)
    try:
        run_id = f"{imported.fmt}-traces"
        store.save_run(run_id, stable_hash([imported.fmt]), {"imported_from": imported.source, "servers": servers},
                       {"status": "finished"})
        store.save_tasks(tasks.values())
        store.save_tools(imported.tools)
        saved = 0
        for episode in imported.episodes:
            task = tasks.get(episode.task_id)
            if task is None:
                continue
            offered = {t.qualified_name: t for t in imported.tools if t.qualified_name in episode.tool_hashes}
            saved += store.save_episode(episode, [score_effects(task, episode, offered),
                                                  score_rules(episode, offered, task)])
        return saved
    finally:
        store.close()
