"""The runner: (task x attempt) episodes, run concurrently, each stored the moment it ends.

Re-running the same command resumes: an episode whose key is already stored is skipped, so
nothing is run twice and nothing is lost, also after ``kill -9``.
"""

from __future__ import annotations

import contextlib
import platform
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

import mcptrials
from mcptrials import activity
from mcptrials.agents.base import Agent, Trajectory
from mcptrials.fixtures import map_paths, sandbox_prefixes
from mcptrials.model import (
    INFRA_ERROR_KINDS,
    Episode,
    InfraError,
    Score,
    ServerSpec,
    Task,
    ToolInfo,
    stable_hash,
)
from mcptrials.models.base import ChatModel, EpisodeContext, ProviderError
from mcptrials.run.offer import episode_servers, offer_filter
from mcptrials.safety.caps import cap_episode
from mcptrials.safety.secrets import (
    HIDDEN_VALUES,
    hidden_values_digest,
    redact,
    run_secrets,
    scrub_episode,
    scrub_tools,
)
from mcptrials.scoring.effects import score_effects
from mcptrials.scoring.rules import score_rules
from mcptrials.scoring.state import capture_state
from mcptrials.servers import statewatch
from mcptrials.servers.client import ClientOptions, current_client
from mcptrials.servers.pool import (
    idle_limit,
    open_pooled_toolbox,
    pooled_sandbox,
    reuse_enabled,
    reuse_reason,
    server_pool,
)
from mcptrials.servers.toolbox import Limits, Toolbox
from mcptrials.store.db import Store, outcome_of
from mcptrials.store.engine import StoreUnreachableError


class FatalRunError(RuntimeError):
    """A failure no retry can fix (bad key, exhausted quota, unknown model): the run stops."""


@dataclass
class RunPlan:
    """What to run and with which settings; everything here is recorded with the run."""

    servers: dict[str, ServerSpec]
    tasks: list[Task]
    agent: Agent
    model: ChatModel | None
    attempts: int = 1
    concurrency: int = 4
    limits: Limits = field(default_factory=Limits)
    version: str = "v0"
    max_cost: float | None = None
    judges: list[Any] = field(default_factory=list)
    """Judges (``mcptrials.judges``) run on each episode after Tier-1 (``run --judge``)."""
    pool: str = "task"
    """Which tools an episode offers: ``task`` (its servers and distractors) or ``all`` (every server)."""
    distractors: dict[str, int] | None = None
    """``run --distractors K``: {k, seed} applied to tasks without recorded distractors."""
    replay: Any = None
    """``run --replay``: a ``mcptrials.replay.Replay`` whose recorded servers stand in for the live ones."""
    capture: Callable[[Path, Task], dict[str, Any]] | None = None
    """What to snapshot of the sandbox after the servers stop (default: ``capture_state``; generation takes more)."""
    client: ClientOptions = field(default_factory=ClientOptions)
    """How servers' requests are answered: sampling model, resources as tools, blob store (``servers.client``)."""
    executor: Callable[..., Awaitable[tuple[Episode, dict[str, ToolInfo]]]] | None = None
    """Runs one episode elsewhere (``run --executor ray``: ``run.executors``); None runs it here (``run_episode``)."""
    reuse: bool = True
    """Let reusable servers serve several episodes (``servers.pool``); cannot change a score, so not in the key."""
    server_instructions: bool = False
    """Pass each server's instructions (``initialize``, or the config's ``instructions``) on to the agent's system
    prompt (``run --server-instructions``); in the key when on, so earlier runs keep theirs."""

    @property
    def model_spec(self) -> str:
        return self.model.spec if self.model is not None else "none"

    def settings(self) -> dict[str, Any]:
        """Every setting that can change a score (hashed into the resume key)."""
        return {
            "agent": self.agent.settings(),
            "model": self.model.settings() if self.model is not None else None,
            "limits": {"call_timeout": self.limits.call_timeout, "output_cap": self.limits.output_cap},
            "servers": {name: _server_settings(spec) for name, spec in sorted(self.servers.items())},
            "version": self.version,
            **({"pool": self.pool} if self.pool != "task" else {}),
            **({"distractors": self.distractors} if self.distractors else {}),
            **({"replay": self.replay.settings()} if self.replay is not None else {}),
            **({"client": self.client.settings()} if self.client.settings() else {}),
            **({"server_instructions": True} if self.server_instructions else {}),
        }

    def record(self) -> dict[str, Any]:
        """The run record: settings plus the environment they ran in (not part of the key)."""
        return {**self.settings(), "server_instructions": self.server_instructions,  # (recorded off too)
                "attempts": self.attempts, "concurrency": self.concurrency,
                "max_cost": self.max_cost, "reuse": self.reuse and reuse_enabled(),
                "server_reuse": {name: reuse_reason(spec)[1] for name, spec in sorted(self.servers.items())},
                "tasks": len(self.tasks), "package_version": mcptrials.__version__,
                "git_revision": _git_revision(), "python": platform.python_version()}


_NOT_IN_KEY = frozenset({"fixtures", "reuse"})


def _server_settings(spec: ServerSpec) -> dict[str, Any]:
    """A server's part of the settings: its public view, and a digest of the values that view masks (when it
    masks any), so two runs whose servers differ only in a masked value do not share stored results."""
    shown = {k: v for k, v in spec.public_view().items() if k not in _NOT_IN_KEY}
    hidden = hidden_values_digest(spec, _NOT_IN_KEY)
    return shown if hidden is None else {**shown, HIDDEN_VALUES: hidden}


Identity = tuple[str, str | None, str | None]
"""What a server showed of itself: (tools hash, name, version) as it said at ``initialize``."""


@dataclass
class RunResult:
    """What one invocation did."""

    run_id: str
    planned: int
    skipped: int
    completed: int
    counts: dict[str, int]
    duration_s: float
    not_started: int = 0
    cost_usd: float = 0.0
    infra: list[tuple[str, InfraError]] = field(default_factory=list)
    """(episode id, infra error) of every episode this invocation stored as an infra error."""
    warnings: list[str] = field(default_factory=list)
    """Said once each during the run (also as ``warning:`` progress events): a server that kept state outside
    the sandbox, so later attempts started from what earlier ones wrote."""
    identities: dict[str, set[Identity]] = field(default_factory=dict)
    """Per server, every (tools hash, name, version) it showed at ``initialize`` in this invocation's episodes."""


ProgressHook = Callable[[str, Episode | None], None]


class SharedStateWatch:
    """Tells, after each episode, whether a server changed a file outside the sandbox (``servers.statewatch``).

    Such a server keeps state across episodes: attempt 2 starts from what attempt 1 wrote. Servers
    whose config names only per-episode paths (``${MCPTRIALS_SANDBOX}``) have nothing to watch.
    """

    def __init__(self, servers: dict[str, ServerSpec]) -> None:
        self.places = {name: places for name, spec in servers.items() if (places := statewatch.watched_places(spec))}
        self.before = statewatch.snapshot([w for ws in self.places.values() for w in ws])

    def new_warnings(self) -> list[str]:
        """One line per server seen changing its shared places for the first time (then no longer watched)."""
        every = [w for ws in self.places.values() for w in ws]
        lines = []
        for path in statewatch.changed(self.before, statewatch.snapshot(every)):
            for name, places in list(self.places.items()):
                place = statewatch.owner(path, places)
                if place is not None:
                    lines.append(f"server {name!r} changed {path} ({place.why}) outside the episode sandbox: later "
                                 "attempts start from that state; give it a per-episode path such as "
                                 "${MCPTRIALS_SANDBOX}/... (check: mcptrials servers check --isolation)")
                    del self.places[name]
        return lines


def _git_revision() -> str | None:
    import subprocess

    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).parent)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def score_episode(task: Task, episode: Episode, tools: dict[str, ToolInfo]) -> list[Score]:
    """The scores written with every episode: Tier-1 effects and rule metrics."""
    return [score_effects(task, episode, tools), score_rules(episode, tools, task)]


async def run_episode(plan: RunPlan, task: Task, attempt: int, run_id: str,
                      config_hash: str) -> tuple[Episode, dict[str, ToolInfo]]:
    """Run one attempt at one task in a fresh sandbox with fresh servers."""
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    trajectory = Trajectory()
    activity.track(f"{task.id}#{attempt}", trajectory)  # progress bar: this episode's turn and tool call
    infra: InfraError | None = None
    fatal: ProviderError | None = None
    offered: dict[str, ToolInfo] = {}
    key = (task.id, plan.version, plan.agent.name, plan.model_spec, attempt, config_hash)
    context = EpisodeContext(task_id=task.id, attempt=attempt,
                             reference=[step.model_dump() for step in task.reference],
                             reference_answer=task.reference_answer)
    model = plan.model.for_episode(context) if plan.model is not None else None
    specs = [plan.servers[name] for name in episode_servers(task, plan.servers, plan.pool)]
    current_client.set((plan.client.for_episode(model, task.elicitation), stable_hash(key)))
    with pooled_sandbox(task, attempt) if plan.replay is None else plan.replay.sandbox(task) as sandbox:
        opener = open_pooled_toolbox if plan.replay is None else plan.replay.opener(task, attempt)
        async with opener(specs, sandbox, now=task.now.isoformat() if task.now else None,
                          limits=plan.limits, offer=offer_filter(task, plan.pool)) as box:
            offered = {t.qualified_name: t for t in box.tools}
            seen = _as_the_agent_sees_it(plan, task, box, sandbox)
            if box.failures:
                name, failure = next(iter(box.failures.items()))
                infra = InfraError(kind="server_start", message=str(failure), server=name)
            else:
                try:
                    await plan.agent.run(seen, box, model, trajectory)
                except ProviderError as exc:
                    if exc.fatal:
                        fatal = exc
                    elif exc.kind == "context_overflow":
                        trajectory.termination, trajectory.agent_error = "agent_error", exc.message
                    else:
                        trajectory.termination = "infra_error"
                        infra = InfraError(kind=f"provider_{exc.kind}", message=exc.message)
            tool_hashes = {q: t.schema_hash for q, t in offered.items()}  # as offered: a crash hides none
            identity = box.server_identity()
        if getattr(box, "reuse_violation", None):  # a reused server kept state: re-run, never score
            infra = InfraError(kind="server_reuse", message=str(box.reuse_violation))
        state = (plan.capture or capture_state)(sandbox, task)  # after the servers stopped, before the sandbox goes
        if plan.replay is not None:  # replayed writes never reach the sandbox: the recording says what it held
            state = plan.replay.final_state(task, attempt, state)
    if fatal is not None:  # raised outside the server task group so it reaches the runner unwrapped
        secrets = run_secrets(plan.servers.values(), [plan.model])  # a 401 body may quote the key: printed
        raise FatalRunError(f"{plan.model_spec}: {redact(fatal.message, secrets)}")
    if infra is None:
        broken = next((c for c in trajectory.steps if getattr(c, "error_kind", None) in INFRA_ERROR_KINDS), None)
        if broken is not None:
            infra = InfraError(kind=broken.error_kind or "server", message=broken.content,  # type: ignore[union-attr]
                               server=broken.server)  # type: ignore[union-attr]
    if infra is not None:
        trajectory.termination = "infra_error"
    episode = Episode(
        id=stable_hash(key), run_id=run_id, task_id=task.id, version=plan.version, agent=plan.agent.name,
        model=plan.model_spec, attempt=attempt, config_hash=config_hash, steps=trajectory.steps,
        final_answer=trajectory.final_answer, termination=trajectory.termination, infra_error=infra,
        agent_error=trajectory.agent_error, usage=trajectory.usage, tool_hashes=tool_hashes, state=state,
        started_at=started, duration_s=time.perf_counter() - t0,
        servers=identity, instructions=dict(box.instructions),
    )
    return episode, offered


def _as_the_agent_sees_it(plan: RunPlan, task: Task, box: Toolbox, sandbox: Path) -> Task:
    """Set up what the episode's agent is shown: servers' instructions (when the run passes them on), and the
    task's absolute paths (``fixtures.path_map``) turned into the sandbox's real ones, in its prompt and calls."""
    if plan.server_instructions:
        box.instructions = box.server_instructions()
    if not task.fixtures.path_map:
        return task
    box.path_prefixes = sandbox_prefixes(task.fixtures.path_map, sandbox)
    return task.model_copy(update={"prompt": map_paths(task.prompt, box.path_prefixes)})


async def execute(plan: RunPlan, store: Store, on_event: ProgressHook | None = None) -> RunResult:
    """Run every (task x attempt) episode not yet stored; store each as it ends.

    Holds the store's run lock for these settings (``store.lock``): a second identical run is refused.
    """
    from mcptrials.store.lock import hold_run_lock, owner

    current_client.set((plan.client.for_run(plan.model), None))  # servers started ahead of their episode

    label = f"{plan.model_spec} / {plan.agent.name} / {plan.version}"
    run_id = f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}"
    async with hold_run_lock(store, stable_hash(plan.settings()), run_id, label):
        # the run row says what became of the run; one killed outright stays "running" with a dead process
        # (store/run_status.py tells the two apart)
        try:
            result = await _execute(plan, store, run_id, owner(label), on_event)
        except BaseException as exc:
            _record_end(plan, store, run_id, exc)
            raise
        _record_end(plan, store, run_id, None)
        return result


def _record_end(plan: RunPlan, store: Store, run_id: str, exc: BaseException | None) -> None:
    """Store how the run ended: finished, interrupted (Ctrl-C, SIGTERM, cancelled) or failed (with the error)."""
    note = None
    leaves = _leaves(exc) if exc is not None else []
    if exc is None:
        status = "finished"
    elif all(isinstance(e, KeyboardInterrupt | anyio.get_cancelled_exc_class()) for e in leaves):
        status = "interrupted"
    else:
        status = "failed"
        said = list(dict.fromkeys(str(e) if isinstance(e, FatalRunError) else f"{type(e).__name__}: {e}"
                                  for e in leaves if not isinstance(e, anyio.get_cancelled_exc_class())))
        more = f" (and {len(said) - 1} other error(s))" if len(said) > 1 else ""
        note = redact(said[0] + more, run_secrets(plan.servers.values(), [plan.model]))
    with contextlib.suppress(Exception):  # the store may be what failed; the original error is the one to see
        store.end_run(run_id, status, note)


def _leaves(exc: BaseException) -> list[BaseException]:
    """The errors inside (nested) exception groups, as a task group raises them; the error itself otherwise."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


async def _execute(plan: RunPlan, store: Store, run_id: str, owner: dict[str, Any],
                   on_event: ProgressHook | None = None) -> RunResult:
    t0 = time.perf_counter()
    base_hash = stable_hash(plan.settings())
    store.save_run(run_id, base_hash, plan.record(), owner)
    store.save_tasks(plan.tasks)
    done = store.completed_keys()
    todo: list[tuple[Task, int, str]] = []
    for task in plan.tasks:
        config_hash = stable_hash([base_hash, task.visible_hash()])
        for attempt in range(plan.attempts):
            if (task.id, plan.version, plan.agent.name, plan.model_spec, attempt, config_hash) not in done:
                todo.append((task, attempt, config_hash))
    planned = len(plan.tasks) * plan.attempts
    counts = {"passed": 0, "failed": 0, "infra_error": 0}  # (and "unjudged" once a judge-only task has one)
    if on_event:
        on_event(f"start:{len(todo)}:{planned - len(todo)}", None)
    limiter = anyio.Semaphore(max(1, plan.concurrency))
    secrets = run_secrets(plan.servers.values(), [plan.model, *(getattr(j, "model", None) for j in plan.judges)])
    fatal: list[FatalRunError | StoreUnreachableError] = []
    infra: list[tuple[str, InfraError]] = []
    spent = [0.0]
    skipped_for_budget = [0]
    said: list[str] = []
    identities: dict[str, set[Identity]] = {}
    shared = SharedStateWatch(plan.servers) if plan.replay is None and plan.executor is None and todo else None

    async def one(task: Task, attempt: int, config_hash: str, cancel: anyio.CancelScope) -> None:
        async with limiter:
            if fatal:
                return
            if plan.max_cost is not None and spent[0] >= plan.max_cost:
                skipped_for_budget[0] += 1  # not stored: a re-run with a larger budget picks it up
                return
            try:
                await _play_and_store(task, attempt, config_hash)
            except (FatalRunError, StoreUnreachableError) as exc:  # the run cannot go on: stop every episode
                fatal.append(exc)
                cancel.cancel()

    async def _play_and_store(task: Task, attempt: int, config_hash: str) -> None:
        """Play one episode, score it and store it."""
        episode, offered = await (plan.executor or run_episode)(plan, task, attempt, run_id, config_hash)
        spent[0] += episode.usage.cost_usd
        episode = scrub_episode(cap_episode(episode, plan.limits.output_cap), secrets)  # stored == scored
        if (clean := scrub_tools(offered, secrets)) is not offered:  # a secret in a listed tool
            offered = clean
            episode = episode.model_copy(update={"tool_hashes": {q: t.schema_hash for q, t in clean.items()}})
        scores = score_episode(task, episode, offered)
        if plan.judges and episode.infra_error is None:
            from mcptrials.judges.apply import judge_episode

            judged = await judge_episode(plan.judges, task, episode, scores[0], offered)
            spent[0] += sum(s.values.get("judge_cost_usd", 0.0) for s in judged)
            scores += judged
        store.save_tools(offered.values())
        store.save_episode(episode, scores)
        for name, seen in episode.servers.items():
            identities.setdefault(name, set()).add((seen.tools_hash, seen.name, seen.version))
        effects = scores[0]
        outcome = outcome_of(episode, effects, scores)
        counts[outcome] = counts.get(outcome, 0) + 1
        if episode.infra_error is not None:
            infra.append((episode.id, episode.infra_error))
        activity.done(f"{task.id}#{attempt}")
        if on_event:
            on_event("episode", episode)
        if shared is not None and shared.places:
            for line in await anyio.to_thread.run_sync(shared.new_warnings):
                said.append(line)
                if on_event:
                    on_event(f"warning:{line}", None)

    idle = idle_limit(len(plan.servers), plan.concurrency)
    async with server_pool(plan.reuse, max_idle=idle) as pool, anyio.create_task_group() as tg:
        if pool is not None and plan.replay is None and plan.executor is None:  # fresh servers started ahead
            pool.expect([(task, attempt, [plan.servers[n] for n in episode_servers(task, plan.servers, plan.pool)])
                         for task, attempt, _ in todo], plan.limits, depth=min(plan.concurrency + 1, 8))
        for task, attempt, config_hash in todo:
            tg.start_soon(one, task, attempt, config_hash, tg.cancel_scope)
    if fatal:
        raise fatal[0]
    return RunResult(run_id=run_id, planned=planned, skipped=planned - len(todo), completed=sum(counts.values()),
                     counts=counts, duration_s=time.perf_counter() - t0, not_started=skipped_for_budget[0],
                     cost_usd=spent[0], infra=infra, warnings=said, identities=identities)
