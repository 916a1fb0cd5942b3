"""Health checks: start servers, list their tools, find schema problems, time start-up."""

from __future__ import annotations

import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from mcptrials.model import ServerSpec, ToolInfo
from mcptrials.safety.tempdirs import temp_prefix
from mcptrials.servers import forkserver
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
    not_offered: dict[str, str] = field(default_factory=dict)
    """Tools the server lists that are not offered to agents (task-augmented only), with the reason."""

    def as_dict(self) -> dict[str, Any]:
        return {"server": self.name, "ok": self.ok, "status": self.status, "tools": self.tools,
                "startup_s": round(self.startup_s, 3), "all_started_s": round(self.total_s, 3),
                "schema_problems": self.problems, "error": self.error, "not_offered": self.not_offered}


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


@dataclass
class HealthReport:
    """Per-server results plus the timings of starting them all."""

    results: list[HealthResult]
    all_started_s: float
    forkserver_warmup_s: float | None


async def _start_each(specs: list[ServerSpec], sandbox: Path, limits: Limits | None) -> dict[str, HealthResult]:
    results = {}
    for spec in specs:
        async with open_toolbox([spec], sandbox, limits=limits) as box:
            conn = box.connections.get(spec.name)
            if conn is None:
                results[spec.name] = HealthResult(spec.name, False, "failed to start",
                                                  error=str(box.failures[spec.name]))
            else:
                problems = [p for t in conn.tools for p in schema_problems(t)]
                results[spec.name] = HealthResult(spec.name, True, "ok", len(conn.tools), conn.startup_s,
                                                  problems=problems, not_offered=dict(conn.extras.not_offered))
    return results


async def check_servers(specs: list[ServerSpec], limits: Limits | None = None) -> HealthReport:
    """Start each server alone (its own start-up time), then all at once (the episode case)."""
    warmup = None
    if any("bundled" in s.tags for s in specs) and forkserver.enabled():
        t0 = time.perf_counter()
        await anyio.to_thread.run_sync(forkserver.shared)
        warmup = time.perf_counter() - t0
    with tempfile.TemporaryDirectory(prefix=temp_prefix("check")) as tmp:
        sandbox = Path(tmp) / "sandbox"
        sandbox.mkdir()
        results = await _start_each(specs, sandbox, limits)
        t0 = time.perf_counter()
        async with open_toolbox(specs, sandbox, limits=limits):
            total = time.perf_counter() - t0
    for r in results.values():
        r.total_s = total
    return HealthReport([results[s.name] for s in specs], total, warmup)


async def list_tools(specs: list[ServerSpec]) -> dict[str, list[ToolInfo]]:
    """Every server's tools (a server that fails to start lists none)."""
    with tempfile.TemporaryDirectory(prefix=temp_prefix("list")) as tmp:
        sandbox = Path(tmp) / "sandbox"
        sandbox.mkdir()
        async with open_toolbox(specs, sandbox) as box:
            return {spec.name: list(box.connections[spec.name].tools) if spec.name in box.connections else []
                    for spec in specs}


@dataclass
class Survey:
    """What one server offers: its tools, resources, prompts and tools not offered; or why it did not start."""

    tools: list[ToolInfo] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    needs_sandbox: str | None = None
    """Set instead of ``error`` when the server did not start on a ``${MCPTRIALS_SANDBOX}`` path that only an
    episode's fixtures create: the path as its config writes it (not a failure)."""


_SANDBOX_PATH = re.compile(r"\$\{MCPTRIALS_SANDBOX\}(/[^\s,;'\"=]*)?")


def missing_sandbox_path(spec: ServerSpec, sandbox: Path) -> str | None:
    """The first ``${MCPTRIALS_SANDBOX}/...`` path of ``spec`` (args, env, cwd) that ``sandbox`` does not hold."""
    for value in [*spec.args, *spec.env.values(), *([spec.cwd] if spec.cwd else [])]:
        for found in _SANDBOX_PATH.finditer(value):
            rest = (found.group(1) or "").strip("/")
            if rest and not (sandbox / rest).exists():
                return found.group(0)
    return None


async def survey(specs: list[ServerSpec], limits: Limits | None = None) -> dict[str, Survey]:
    """Start every server once, in an empty sandbox as an episode would, and describe what it offers (``servers list``).

    A server that does not start because a ``${MCPTRIALS_SANDBOX}/...`` path its config names is missing
    (a repository a task's fixtures put there) is reported as needing an episode sandbox, not as failed.
    """
    with tempfile.TemporaryDirectory(prefix=temp_prefix("list")) as tmp:
        sandbox = Path(tmp) / "sandbox"
        sandbox.mkdir()
        async with open_toolbox(specs, sandbox, limits=limits) as box:
            out = {}
            for spec in specs:
                conn = box.connections.get(spec.name)
                if conn is None and (missing := missing_sandbox_path(spec, sandbox)) is not None:
                    out[spec.name] = Survey(needs_sandbox=missing)  # an episode's fixtures create it
                elif conn is None:
                    failure = box.failures.get(spec.name)
                    tail = failure.stderr_tail.strip().splitlines()[-1:] if failure else []
                    reason = failure.reason if failure else "did not start"
                    out[spec.name] = Survey(error=f"{reason} ({tail[0].strip()})" if tail else reason)
                else:
                    out[spec.name] = Survey(list(conn.tools), conn.extras.summary())
            return out
