"""The spec lint of ``tasks check``, run before any episode: a spec that can never be met stops the run.

A checkpoint naming a tool no server offers (a typo, a renamed tool) would score every episode
0 % without a word; here it is found first, by starting each server the tasks use once and
listing its tools. A server that does not start is not a lint problem (its episodes become infra
errors, reported as such), so the tasks that need it are only checked statically.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path

from mcptrials.model import ServerSpec, Task, ToolInfo
from mcptrials.servers.toolbox import Limits, open_toolbox
from mcptrials.tasks.lint import static_problems, tool_problems


async def offered_tools(specs: Iterable[ServerSpec], limits: Limits) -> tuple[dict[str, ToolInfo], set[str]]:
    """Every listed tool of the servers by qualified name, and the names of the servers that did not start."""
    with tempfile.TemporaryDirectory(prefix="mcptrials-lint-") as tmp:
        sandbox = Path(tmp) / "sandbox"
        sandbox.mkdir()
        async with open_toolbox(list(specs), sandbox, limits=limits) as box:
            tools = {t.qualified_name: t for conn in box.connections.values() for t in conn.tools}
            return tools, set(box.failures)


async def spec_problems(servers: dict[str, ServerSpec], tasks: list[Task], limits: Limits,
                        list_tools: bool = True) -> list[str]:
    """``task 'ID': problem`` for each lint problem of ``tasks`` on ``servers`` (tools listed when asked)."""
    problems = [f"task {t.id!r}: {p}" for t in tasks for p in static_problems(t)]
    if not list_tools or problems:
        return problems
    used = sorted({name for t in tasks for name in t.servers if name in servers})
    tools, down = await offered_tools([servers[name] for name in used], limits)
    return [f"task {t.id!r}: {p}" for t in tasks if not down & set(t.servers) for p in tool_problems(t, tools)]
