"""Where episodes run: here (the default, in the runner's event loop) or elsewhere (``run --executor``)."""

from __future__ import annotations

from typing import Any

EXECUTORS = ("local", "ray")


class ExecutorError(Exception):
    """An executor cannot be used (unknown name, missing extra, cluster unreachable): one clear line."""


def make_executor(name: str, address: str | None = None) -> Any:
    """The executor named ``name`` (None for ``local``), already connected; ``close()`` it when done."""
    if name == "local":
        if address is not None:
            raise ExecutorError("--address needs --executor ray")
        return None
    if name == "ray":
        from mcptrials.run.executors.ray_executor import RayExecutor

        return RayExecutor(address)
    raise ExecutorError(f"unknown executor {name!r} (known: {', '.join(EXECUTORS)})")
