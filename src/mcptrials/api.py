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

from mcptrials.model import ServerSpec, Task

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
        model: str | None = "local:", agent: str = "react", attempts: int = 1, stages: str | None = None,
        lineages: str | Path | None = None, db: str | Path = "mcptrials.db", concurrency: int = 4,
        max_turns: int = 20, max_repeats: int = 3, max_episode_tokens: int | None = None,
        base_url: str | None = None, temperature: float | None = 0.0, max_tokens: int | None = 2048,
        seed: int | None = None, call_timeout: float = 60.0, max_cost: float | None = None) -> list[RunResult]:
    """Run agent episodes and store them in ``db`` (resuming: stored episodes are skipped), one result per version.

    ``model`` is a spec as for ``--model`` (ignored by the model-free agents ``reference`` and ``stale``);
    ``stages`` picks server versions (``"v0,v3"``) from ``lineages`` (default: the bundled ones).
    """
    import anyio

    from mcptrials.agents.registry import MODEL_FREE
    from mcptrials.evolve.lineage_check import versioned_worlds
    from mcptrials.models.base import SamplingSettings
    from mcptrials.models.registry import load_model
    from mcptrials.run.options import DesignOptions, build_agent, prepare_offer
    from mcptrials.run.runner import RunPlan, execute
    from mcptrials.servers.toolbox import Limits
    from mcptrials.store.db import Store

    specs = servers if servers is not None else load_servers()
    chosen = list(tasks) if tasks is not None else load_tasks()
    design = build_agent(agent, DesignOptions(), max_turns=max_turns, max_episode_tokens=max_episode_tokens,
                         max_repeats=max_repeats)
    chosen, offer_setting, _ = prepare_offer(specs, chosen, "task", None, 0)
    chat = None if agent in MODEL_FREE else load_model(
        model or "local:", base_url=base_url,
        sampling=SamplingSettings(temperature=temperature, max_tokens=max_tokens, seed=seed))
    worlds = versioned_worlds(specs, chosen, stages, Path(lineages) if lineages is not None else None,
                              warn=lambda text: warnings.warn(text, stacklevel=2))
    store = Store(db)
    plans = [RunPlan(servers=v_specs, tasks=v_tasks, model=chat, attempts=attempts, concurrency=concurrency,
                     agent=design, pool="task", distractors=offer_setting, limits=Limits(call_timeout=call_timeout),
                     max_cost=max_cost, version=version) for version, v_specs, v_tasks in worlds]

    async def run_all() -> list[RunResult]:
        return [await execute(plan, store) for plan in plans]

    try:
        return anyio.run(run_all)
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


def build_report(db: str | Path = "mcptrials.db", *, k: int | None = None) -> dict[str, Any]:
    """The report as a dict, exactly what ``mcptrials report --format json`` prints."""
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
