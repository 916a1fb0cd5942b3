"""Health checks: start servers, list their tools, find schema problems, time start-up."""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from mcptrials.model import ServerSpec, ToolInfo
from mcptrials.servers.toolbox import Limits, open_toolbox


@dataclass
class HealthResult:
    """One server's health: status, tool count, start-up time, schema problems."""

    name: str
    ok: bool
    status: str
    tools: int = 0
    startup_s: float = 0.0
    total_s: float = 0.0
    problems: list[str] = field(default_factory=list)
    error: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"server": self.name, "ok": self.ok, "status": self.status, "tools": self.tools,
                "startup_s": round(self.startup_s, 3), "all_started_s": round(self.total_s, 3),
                "schema_problems": self.problems, "error": self.error}


def schema_problems(tool: ToolInfo) -> list[str]:
    """What is wrong with a tool's input schema (empty when it is a usable JSON Schema object)."""
    problems = []
    schema = tool.input_schema
    if schema.get("type") != "object":
        problems.append(f"{tool.name}: input schema type is {schema.get('type')!r}, not 'object'")
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        problems.append(f"{tool.name}: invalid JSON Schema: {exc.message}")
    if not tool.description.strip():
        problems.append(f"{tool.name}: no description")
    return problems


async def check_servers(specs: list[ServerSpec], limits: Limits | None = None) -> list[HealthResult]:
    """Start all servers at once in a scratch sandbox and report on each."""
    with tempfile.TemporaryDirectory(prefix="mcptrials-check-") as tmp:
        sandbox = Path(tmp) / "sandbox"
        sandbox.mkdir()
        t0 = time.perf_counter()
        async with open_toolbox(specs, sandbox, limits=limits) as box:
            total = time.perf_counter() - t0
            results = []
            for spec in specs:
                conn = box.connections.get(spec.name)
                if conn is None:
                    failure = box.failures[spec.name]
                    results.append(HealthResult(spec.name, False, "failed to start", total_s=total,
                                                error=str(failure)))
                    continue
                problems = [p for t in conn.tools for p in schema_problems(t)]
                results.append(HealthResult(spec.name, True, "ok", len(conn.tools), conn.startup_s, total, problems))
    return results


async def list_tools(specs: list[ServerSpec]) -> dict[str, list[ToolInfo]]:
    """Every server's tools (a server that fails to start lists none)."""
    with tempfile.TemporaryDirectory(prefix="mcptrials-list-") as tmp:
        sandbox = Path(tmp) / "sandbox"
        sandbox.mkdir()
        async with open_toolbox(specs, sandbox) as box:
            return {spec.name: list(box.connections[spec.name].tools) if spec.name in box.connections else []
                    for spec in specs}
