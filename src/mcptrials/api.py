"""The Python API: what the CLI does, as typed functions for notebooks and other harnesses.

``mcptrials.run_tasks(...)`` and ``mcptrials run`` take the same settings and write the same store;
every function here is re-exported from the ``mcptrials`` package. The names never shadow a
subpackage (``mcptrials.run``, ``.report``, ``.export``, ``.evolve`` stay plain modules).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcptrials.model import Episode, Score, ServerSpec, Task

if TYPE_CHECKING:
    from mcptrials.evolve.lineage import VersionManifest
    from mcptrials.run.runner import RunResult


def load_servers(config: str | Path | None = None) -> dict[str, ServerSpec]:
    """Servers from an ``mcpServers`` / VS Code config file, or the bundled offline world without one."""
    from mcptrials.bundled.world import bundled_servers
    from mcptrials.servers.config import load_servers as from_config

    return from_config(Path(config)) if config is not None else dict(bundled_servers())


def load_tasks(*paths: str | Path) -> list[Task]:
    """Tasks from files or folders (JSON, JSONL, YAML), or the bundled suite without any."""
    from mcptrials.bundled.world import bundled_tasks
    from mcptrials.tasks.loader import load_tasks as from_files

    return from_files(*(Path(p) for p in paths)) if paths else bundled_tasks()


def run_tasks(tasks: Sequence[Task] | None = None, servers: dict[str, ServerSpec] | None = None, *,
        model: str | None = None, agent: str = "react", attempts: int = 1, stages: str | None = None,
        versions: str | None = None, lineages: str | Path | None = None, db: str | Path = "mcptrials.db",
        concurrency: int = 4,
        max_turns: int = 20, max_repeats: int = 3, max_episode_tokens: int | None = None,
        base_url: str | None = None, temperature: float | None = 0.0, max_tokens: int | None = 2048,
        seed: int | None = None, call_timeout: float = 60.0, max_cost: float | None = None,
        server_instructions: bool = False) -> list[RunResult]:
    """Run agent episodes and store them in ``db`` (resuming: stored episodes are skipped), one result per version.

    ``model`` is a spec as for ``--model`` and is required for every agent but the model-free ``reference``
    and ``stale`` (``model="local:"`` is the embedded llama.cpp model: offline but slow, minutes per task);
    without one a ``ValueError`` says so before anything runs. ``stages`` picks server versions
    (``"v0,v3"``) from ``lineages`` (default: the bundled ones); ``versions`` picks versions the servers config
    declares (``"2025.3.28,2025.7.1"``; default: every declared one). A declared version whose server says it
    is another is warned about (``UserWarning``) and recorded with its run. ``server_instructions`` is
    ``--server-instructions``: the servers' instructions reach the agent's system prompt.
    """
    import anyio

    from mcptrials.agents.registry import MODEL_FREE
    from mcptrials.evolve.lineage_check import versioned_worlds
    from mcptrials.evolve.releases import declared_worlds
    from mcptrials.models.base import SamplingSettings
    from mcptrials.models.registry import load_model
    from mcptrials.run.options import DesignOptions, build_agent, prepare_offer
    from mcptrials.run.runner import RunPlan, execute
    from mcptrials.servers.toolbox import Limits
    from mcptrials.store.db import Store

    if model is None and agent not in MODEL_FREE:
        raise ValueError(f"run_tasks(agent={agent!r}) needs model=: a spec such as 'openai:gpt-4o-mini', or "
                         "'local:' for the embedded model (slow); the agents 'reference' and 'stale' need none")
    from mcptrials.safety.tempdirs import sweep_stale

    sweep_stale()  # temp folders of an earlier run killed outright
    specs = servers if servers is not None else load_servers()
    chosen = list(tasks) if tasks is not None else load_tasks()
    design = build_agent(agent, DesignOptions(), max_turns=max_turns, max_episode_tokens=max_episode_tokens,
                         max_repeats=max_repeats)
    chosen, offer_setting, _ = prepare_offer(specs, chosen, "task", None, 0)
    chat = None if agent in MODEL_FREE or model is None else load_model(
        model, base_url=base_url,
        sampling=SamplingSettings(temperature=temperature, max_tokens=max_tokens, seed=seed))
    folder = Path(lineages) if lineages is not None else None
    worlds = declared_worlds(specs, chosen, stages, versions, folder) or versioned_worlds(
        specs, chosen, stages, folder, warn=lambda text: warnings.warn(text, stacklevel=2))
    store = Store(db)
    plans = [RunPlan(servers=v_specs, tasks=v_tasks, model=chat, attempts=attempts, concurrency=concurrency,
                     agent=design, pool="task", distractors=offer_setting, limits=Limits(call_timeout=call_timeout),
                     max_cost=max_cost, version=version, server_instructions=server_instructions)
             for version, v_specs, v_tasks in worlds]

    def say(event: str, _: object) -> None:
        if event.startswith("warning:"):  # a server kept state across attempts
            warnings.warn(event[len("warning:"):], stacklevel=1)

    async def run_all() -> list[RunResult]:
        return [await execute(plan, store, say) for plan in plans]

    from mcptrials.run.version_check import check_run_labels

    try:
        results = anyio.run(run_all)
        for text in check_run_labels(specs, worlds, [(p.version, r) for p, r in zip(plans, results, strict=True)],
                                     store):
            warnings.warn(text, stacklevel=2)
        return results
    finally:
        store.close()


def score(db: str | Path = "mcptrials.db") -> int:
    """Re-score every stored episode with the deterministic scorers; returns how many were scored."""
    from mcptrials.scoring.rescore import rescore
    from mcptrials.store.db import Store

    store = Store(db)
    try:
        return rescore(store)[0]
    finally:
        store.close()


def _existing(db: str | Path) -> str | Path:
    """``db`` itself; ``FileNotFoundError`` for a path with nothing there (a reader never creates a store)."""
    if "://" not in str(db) and not Path(db).expanduser().exists():
        raise FileNotFoundError(f"no result store at {db}")
    return db


def read_episodes(db: str | Path = "mcptrials.db", *, run: str | None = None, task: str | None = None,
                  model: str | None = None, agent: str | None = None, version: str | None = None,
                  outcome: str | None = None) -> list[Episode]:
    """Stored episodes as ``Episode`` objects, each whole (every turn and call), matching every filter given.

    ``run`` is a run id as ``run`` prints it; ``outcome`` is ``passed``, ``failed`` or ``infra_error``.
    Ordered by model, agent, task, version and attempt. Their verdicts: ``read_scores``.
    """
    from mcptrials.store.db import Store

    outcomes = ("passed", "failed", "infra_error")
    if outcome is not None and outcome not in outcomes:
        raise ValueError(f"outcome={outcome!r}: one of {', '.join(outcomes)}")
    store = Store(_existing(db))
    try:
        if run is not None and run not in {r["id"] for r in store.runs()}:
            raise ValueError(f"no run {run!r} in {store.url}")
        return list(store.episodes(run, task_id=task, model=model, agent=agent, version=version,
                                   outcome=outcome))
    finally:
        store.close()


def read_scores(db: str | Path = "mcptrials.db") -> dict[str, dict[str, Score]]:
    """Every stored verdict as ``{episode id: {scorer name: Score}}`` (``effects``, ``rules``, ``judge:...``)."""
    from mcptrials.store.db import Store

    store = Store(_existing(db))
    try:
        return store.scores()
    finally:
        store.close()


def build_report(db: str | Path = "mcptrials.db", *, k: int | None = None) -> dict[str, Any]:
    """The report as a dict, exactly what ``mcptrials report --format json`` prints.

    Top-level keys: ``summary`` (one row per model x agent: pass^k with its 95 % interval, pass@k, pass@1,
    episodes, infra errors, tokens, cost, rule metrics), ``comparison`` (whether the rows ran the same units,
    and how many they share), ``per_version``, ``breakdown`` (per category and
    chain length), ``infra_unresolved``, ``evolution``, ``judges``, ``pass_k_curves``, ``failure_codes``,
    ``tool_error_kinds``, ``pareto``, ``papers`` (the published benchmarks' own tables) and ``episodes``
    (one flat row per episode). Every key of every
    section is described on the API page of the docs (docs/reference/api.md, "The report dict").
    """
    from mcptrials.report.summary import report_from_store
    from mcptrials.store.db import Store

    store = Store(db, read_only=True)
    try:
        return report_from_store(store, k)
    finally:
        store.close()


def write_report(db: str | Path, out: str | Path, fmt: str = "html") -> Path:
    """Write the report of ``db`` as html (one self-contained page), json or csv to ``out``."""
    from mcptrials.report.write import rendered

    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(rendered(build_report(db), fmt, str(db)), encoding="utf-8")
    return path


def export_results(db: str | Path, fmt: str, out: str | Path) -> list[Path]:
    """Export stored episodes: ``inspect`` (a folder of .eval logs) or ``jsonl`` (a file); returns the files."""
    from mcptrials.export.command import export as export_store
    from mcptrials.store.db import Store

    store = Store(db, read_only=True)
    try:
        return export_store(store, fmt, Path(out))[1]
    finally:
        store.close()


def evolve_server(server: ServerSpec | str, out: str | Path, *, rounds: int = 5,
                  seed: int = 0) -> list[VersionManifest]:
    """Evolve a server's interface (deterministic mutation plans) into ``out``, usable as ``lineages=out``."""
    from mcptrials.evolve.lineage import evolve as evolve_interface

    spec = load_servers()[server] if isinstance(server, str) else server
    return evolve_interface(spec, rounds, seed, Path(out))
