"""Run episodes as Ray tasks on a cluster; the driver keeps the store and writes every result.

Each episode is one Ray task: the worker starts the episode's servers on its own node, runs the
agent and sends the finished episode back; scoring, judging, budgets, resume and storage stay
in the driver's runner exactly as with the local executor. The plan is put in Ray's object store
once per run. A worker or node lost for good turns the episode into an ``infra_error`` (run again
by the next invocation, never scored); a fatal provider error stops the run as it does locally.
"""

from __future__ import annotations

import dataclasses
import logging
import socket
from typing import Any

import anyio

from mcptrials.model import Episode, InfraError, Task, ToolInfo, stable_hash
from mcptrials.run.executors import ExecutorError
from mcptrials.run.runner import FatalRunError, RunPlan, run_episode

MAX_RETRIES = 2
"""Times Ray re-runs an episode whose worker process died (nothing of it was stored)."""


def _episode_on_worker(plan: RunPlan, task: Task, attempt: int, run_id: str,
                       config_hash: str) -> tuple[Episode, dict[str, ToolInfo]]:
    """Runs in a Ray worker: one episode in a fresh event loop, servers started on this node."""
    return anyio.run(run_episode, plan, task, attempt, run_id, config_hash)


class RayExecutor:
    """``run --executor ray [--address ADDR]``: connect to (or start) a Ray cluster and run episodes there."""

    name = "ray"

    def __init__(self, address: str | None = None, num_cpus: float = 1.0) -> None:
        try:
            import ray
        except ImportError:
            raise ExecutorError("--executor ray needs Ray: pip install 'mcptrials[ray]'") from None
        self._ray = ray
        if address and address != "auto" and not address.startswith("ray://"):
            _reachable(address)
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR,
                     configure_logging=True, ignore_reinit_error=True)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            where = address or "a new local cluster"
            raise ExecutorError(f"cannot connect to the Ray cluster at {where}: {str(exc).splitlines()[0]}") from None
        self._remote = ray.remote(num_cpus=num_cpus, max_retries=MAX_RETRIES)(_episode_on_worker)
        self._plans: dict[int, tuple[RunPlan, Any]] = {}

    def describe(self) -> str:
        resources = self._ray.cluster_resources()
        return f"Ray cluster: {len(self._ray.nodes())} node(s), {resources.get('CPU', 0):g} CPU(s)"

    def _plan_ref(self, plan: RunPlan) -> Any:
        """The plan in the object store, once per plan; judges and the executor stay with the driver."""
        held = self._plans.get(id(plan))
        if held is None or held[0] is not plan:
            shipped = dataclasses.replace(plan, executor=None, judges=[])
            held = self._plans[id(plan)] = (plan, self._ray.put(shipped))
        return held[1]

    async def __call__(self, plan: RunPlan, task: Task, attempt: int, run_id: str,
                       config_hash: str) -> tuple[Episode, dict[str, ToolInfo]]:
        ref = self._remote.remote(self._plan_ref(plan), task, attempt, run_id, config_hash)
        exceptions = self._ray.exceptions
        try:
            return await ref
        except anyio.get_cancelled_exc_class():
            self._ray.cancel(ref, force=True)
            raise
        except exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, FatalRunError):
                raise FatalRunError(str(cause)) from None
            if isinstance(cause, BaseException):
                raise cause from None
            raise
        except (exceptions.WorkerCrashedError, exceptions.NodeDiedError, exceptions.ObjectLostError,
                exceptions.TaskCancelledError, exceptions.RaySystemError) as exc:
            return _lost(plan, task, attempt, run_id, config_hash, f"{type(exc).__name__}: {exc}"), {}

    def close(self) -> None:
        self._plans.clear()
        self._ray.shutdown()


def _reachable(address: str, timeout: float = 5.0) -> None:
    """Fail in seconds, not minutes, when nothing answers at a head node's address (Ray retries for long)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ExecutorError(f"--address {address!r}: expected HOST:PORT of the Ray head node (or auto)")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ExecutorError(f"cannot connect to the Ray cluster at {address}: {exc.strerror or exc}") from None


def _lost(plan: RunPlan, task: Task, attempt: int, run_id: str, config_hash: str, message: str) -> Episode:
    """The infra-error episode of an episode the cluster lost (its key runs again on the next invocation)."""
    key = (task.id, plan.version, plan.agent.name, plan.model_spec, attempt, config_hash)
    return Episode(id=stable_hash(key), run_id=run_id, task_id=task.id, version=plan.version, agent=plan.agent.name,
                   model=plan.model_spec, attempt=attempt, config_hash=config_hash, termination="infra_error",
                   infra_error=InfraError(kind="executor", message=message[:2000]))
