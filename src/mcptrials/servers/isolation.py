"""The isolation probe: play each stateful task's reference in two fresh episodes and compare.

A server whose answers differ between two fresh episodes keeps state outside the episode sandbox
(a file in its install folder, a fixed path in its config, a shared database): attempt 2 of a run
would see what attempt 1 wrote. Values that differ on every run anyway (ids, timestamps, the
sandbox path, the episode id) are normalised before comparing, so they do not count as state.
What the plays wrote to the places a server's config names outside the sandbox is undone after each
task (``statewatch.kept``): the probe leaves no state behind for the next real run to start from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcptrials.model import ServerSpec, Task, split_qualified
from mcptrials.servers import statewatch
from mcptrials.servers.client import ClientSetup
from mcptrials.servers.pool import open_pooled_toolbox, reuse_reason, server_pool
from mcptrials.servers.sandbox import episode_sandbox
from mcptrials.servers.toolbox import Limits, open_toolbox

_VOLATILE = [
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I), "<uuid>"),
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?"), "<time>"),
    (re.compile(r"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) "
                r"\d{4} \d\d:\d\d:\d\d( GMT| UTC| [+-]\d{4})?"), "<time>"),  # HTTP / RFC 2822 dates
    (re.compile(r"\b\d{1,2}:\d\d:\d\d(\.\d+)?\b"), "<time>"),  # a time of day on its own
    (re.compile(r"\b1[6-9]\d{8}(\d{3,6})?(\.\d+)?\b"), "<epoch>"),  # seconds, ms or us, with a fraction
    (re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b"), "<ulid>"),
    (re.compile(r"\b[0-9a-f]{16,}\b", re.I), "<hex>"),
    (re.compile(r"\d+(\.\d+)? ?(ms|s|seconds|milliseconds)\b"), "<duration>"),
]


@dataclass
class Leak:
    """A call whose result differed between two fresh episodes."""

    task: str
    server: str
    call: int
    tool: str
    first: str
    second: str
    path: str | None = None
    """A file outside the sandbox the reference wrote (when the results alone did not differ)."""
    why: str = ""
    reused: bool = False
    """The difference showed on a process that had served one episode (a server marked ``"reuse": true``)."""

    def line(self) -> str:
        if self.reused:
            return (f"server {self.server!r} is marked \"reuse\": true but keeps state in its process: task "
                    f"{self.task}, reference call {self.call + 1} ({self.tool}) answered {_excerpt(self.first)!r} "
                    f"fresh but {_excerpt(self.second)!r} on a process that had served the task once; "
                    "mark it \"reuse\": false")
        if self.path is not None:
            return (f"server {self.server!r} keeps state outside the sandbox: task {self.task}, its reference "
                    f"changed {self.path} ({self.why}), which every episode shares")
        return (f"server {self.server!r} keeps state outside the sandbox: task {self.task}, reference call "
                f"{self.call + 1} ({self.tool}) answered differently in two fresh episodes: "
                f"{_excerpt(self.first)!r} then {_excerpt(self.second)!r}")

    def as_dict(self) -> dict[str, Any]:
        if self.path is not None:
            return {"task": self.task, "server": self.server, "path": self.path, "why": self.why}
        return {"task": self.task, "server": self.server, "call": self.call + 1, "tool": self.tool,
                "first": _excerpt(self.first, 300), "second": _excerpt(self.second, 300),
                **({"reused": True} if self.reused else {})}


def _excerpt(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width] + "..."


def normalise(text: str, sandbox: str, episode: str) -> str:
    """``text`` with what differs between any two episodes replaced by placeholders."""
    text = text.replace(sandbox, "<sandbox>").replace(episode, "<episode>")
    for pattern, placeholder in _VOLATILE:
        text = pattern.sub(placeholder, text)
    return text


def stateful(task: Task, specs: dict[str, ServerSpec], read_only: dict[str, bool | None]) -> bool:
    """A task whose reference calls a tool not declared read-only, or a server marked stateful."""
    for step in task.reference:
        server, _ = split_qualified(step.tool)
        if specs.get(server) is not None and specs[server].dynamism == "stateful_write":
            return True
        if read_only.get(step.tool) is not True:
            return True
    return False


async def _play(task: Task, specs: list[ServerSpec], limits: Limits, label: str) -> list[str]:
    results = []
    with episode_sandbox(task.fixtures) as sandbox:
        async with open_toolbox(specs, sandbox, now=task.now.isoformat() if task.now else None, limits=limits,
                                client=ClientSetup(elicitation=task.elicitation), episode=label) as box:
            if box.failures:
                failure = next(iter(box.failures.values()))
                raise RuntimeError(str(failure))
            for step in task.reference:
                _, _, outcome = await box.call(step.tool, dict(step.args))
                results.append(normalise(outcome.content, str(sandbox), label))
    return results


async def _play_reused(task: Task, specs: list[ServerSpec], limits: Limits) -> list[str]:
    """The reference played on the processes of a reuse pool after they served it once (``servers.pool``)."""
    results: list[str] = []
    async with server_pool() as pool:
        for _ in range(2):
            results = []
            with episode_sandbox(task.fixtures) as sandbox:
                async with open_pooled_toolbox(specs, sandbox, now=task.now.isoformat() if task.now else None,
                                               limits=limits) as box:
                    if box.failures:
                        raise RuntimeError(str(next(iter(box.failures.values()))))
                    for step in task.reference:
                        _, _, outcome = await box.call(step.tool, dict(step.args))
                        results.append(normalise(outcome.content, str(sandbox), sandbox.parent.name))
            if pool is None:  # reuse turned off (MCPTRIALS_REUSE=0): nothing to compare
                break
    return results


async def probe(tasks: list[Task], specs: dict[str, ServerSpec], limits: Limits | None = None,
                on_task: Any = None) -> tuple[list[Leak], list[str], int]:
    """(leaks, tasks that could not be probed, tasks probed) over the stateful tasks of ``tasks``."""
    limits = limits or Limits()
    leaks: list[Leak] = []
    problems: list[str] = []
    probed = 0
    read_only: dict[str, bool | None] = {}
    for task in tasks:
        if on_task is not None:
            on_task(task)
        used = [specs[name] for name in task.servers if name in specs]
        if not task.reference or not used:
            continue
        if not read_only.keys() >= {s.tool for s in task.reference}:
            read_only.update(await _read_only(used, limits))
        reusable = any(s.reuse and reuse_reason(s)[0] for s in used)
        if not stateful(task, specs, read_only) and not reusable:
            continue
        places = {spec.name: statewatch.watched_places(spec) for spec in used}
        with statewatch.kept([w for ws in places.values() for w in ws]) as before:  # the plays' writes are undone
            try:
                first = await _play(task, used, limits, f"isolation-{task.id}-1")
                second = await _play(task, used, limits, f"isolation-{task.id}-2")
                reused = await _play_reused(task, used, limits) if reusable else first
            except RuntimeError as exc:
                problems.append(f"task {task.id}: {exc}".splitlines()[0])
                continue
            written = _written_file(task, places, before)
        probed += 1
        leak = _differing_call(task, first, second) or written
        if leak is None and (leak := _differing_call(task, first, reused)) is not None:
            leak.reused = True
        if leak is not None:
            leaks.append(leak)
    return leaks, problems, probed


def _differing_call(task: Task, first: list[str], second: list[str]) -> Leak | None:
    for index, (a, b) in enumerate(zip(first, second, strict=True)):
        if a != b:
            server, tool = split_qualified(task.reference[index].tool)
            return Leak(task.id, server, index, tool, a, b)
    return None


def _written_file(task: Task, places: dict[str, list[statewatch.Watched]],
                  before: dict[Path, statewatch.Stamp | None]) -> Leak | None:
    """A file outside the sandbox the two plays changed (state that was already there before the probe)."""
    every = [w for ws in places.values() for w in ws]
    for path in statewatch.changed(before, statewatch.snapshot(every)):
        for server, watched in places.items():
            place = statewatch.owner(path, watched)
            if place is not None:
                return Leak(task.id, server, -1, "", "", "", path=str(path), why=place.why)
    return None


async def _read_only(specs: list[ServerSpec], limits: Limits) -> dict[str, bool | None]:
    with episode_sandbox() as sandbox:
        async with open_toolbox(specs, sandbox, limits=limits) as box:
            return {t.qualified_name: t.read_only for t in box.tools}
