"""What every bundled server shares: the frozen clock, the sandbox, seeded data, start-up.

Bundled servers must be deterministic: a result depends only on shipped data, the task's
frozen clock (``MCPTRIALS_NOW``) and the sandbox contents (``MCPTRIALS_SANDBOX``).
They keep no state in memory between calls, so one process can serve episode after episode:
a request whose ``_meta`` names a sandbox (``SANDBOX_META``) or a frozen time (``NOW_META``)
works in that sandbox, at that time, instead.
This module imports nothing heavy so servers start fast.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import random
import sys
import threading
from collections.abc import Mapping
from contextvars import ContextVar
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

DEFAULT_NOW = "2026-04-13T09:00:00+00:00"
SANDBOX_META = "mcptrials/sandbox"
"""Request ``_meta`` key naming the episode sandbox a request works in (set by mcptrials' server pool)."""
NOW_META = "mcptrials/now"
"""Request ``_meta`` key giving the episode's frozen time (empty: the task sets none, so ``DEFAULT_NOW``)."""
_bound: ContextVar[Mapping[str, str] | None] = ContextVar("mcptrials_bound_episode", default=None)


class SandboxError(ValueError):
    """A path that would leave the episode sandbox."""


def now() -> datetime:
    """The episode's frozen time (the request's, else ``MCPTRIALS_NOW``), or a fixed default; always timezone-aware."""
    bound = _bound.get() or {}
    value = (bound[NOW_META] if NOW_META in bound else os.environ.get("MCPTRIALS_NOW")) or DEFAULT_NOW
    moment = datetime.fromisoformat(value)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def sandbox() -> Path:
    """The episode sandbox: the one the request names, else ``MCPTRIALS_SANDBOX``, else the working directory."""
    root = Path((_bound.get() or {}).get(SANDBOX_META) or os.environ.get("MCPTRIALS_SANDBOX") or os.getcwd())
    root.mkdir(parents=True, exist_ok=True)
    return root.resolve()


def confined(path: str, *, must_exist: bool = False) -> Path:
    """Resolve ``path`` inside the sandbox; refuse absolute paths, ``..`` and symlinks out."""
    if not path or path.strip() == "":
        raise SandboxError("path must not be empty")
    candidate = Path(path)
    if candidate.is_absolute():
        raise SandboxError(f"absolute paths are not allowed: {path!r} (use a path relative to the workspace)")
    if any(part == ".." for part in candidate.parts):
        raise SandboxError(f"'..' is not allowed in paths: {path!r}")
    root = sandbox()
    resolved = (root / candidate).resolve()
    if resolved != root and root not in resolved.parents:
        raise SandboxError(f"{path!r} points outside the workspace")
    if must_exist and not resolved.exists():
        raise FileNotFoundError(f"no such file or folder in the workspace: {path!r}")
    return resolved


def rng(*key: Any) -> random.Random:
    """A random generator seeded by ``key`` alone, so simulated live data is reproducible."""
    digest = hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


@cache
def load_data(name: str) -> Any:
    """Load a shipped JSON data file from ``mcptrials.bundled.data`` (cached per process)."""
    text = resources.files("mcptrials.bundled.data").joinpath(name).read_text(encoding="utf-8")
    return json.loads(text)


def _one_call_at_a_time(server: Any) -> None:
    """Make the server's plain-function tools run one at a time.

    The SDK runs each plain-function tool in a worker thread, so two calls of one turn that read,
    change and write the same state file could lose an update; a lock around every tool prevents it.
    """
    lock = threading.Lock()
    tools = getattr(getattr(server, "_tool_manager", None), "_tools", {})
    for tool in tools.values():
        if getattr(tool, "is_async", True):
            continue
        fn = tool.fn

        @functools.wraps(fn)
        def locked(*args: Any, _fn: Any = fn, **kwargs: Any) -> Any:
            with lock:
                return _fn(*args, **kwargs)

        tool.fn = locked


async def _bind_episode(ctx: Any, call_next: Any) -> Any:
    """Server middleware: run a request in the sandbox and at the time its ``_meta`` names, if it does."""
    meta = getattr(ctx, "meta", None)
    if not meta and isinstance(ctx.params, Mapping):
        meta = ctx.params.get("_meta")
    bound = {k: v for k, v in meta.items() if k in (SANDBOX_META, NOW_META) and isinstance(v, str)} \
        if isinstance(meta, Mapping) else {}
    if not bound:
        return await call_next(ctx)
    token = _bound.set(bound)
    try:
        return await call_next(ctx)
    finally:
        _bound.reset(token)


def serve(server: Any) -> None:
    """Run ``server`` over stdio, or streamable HTTP with ``--http PORT`` on the command line."""
    _one_call_at_a_time(server)
    server.middleware.append(_bind_episode)
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        server.run("streamable-http", port=port)
    else:
        server.run()
