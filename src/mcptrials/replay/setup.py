"""What ``run --replay`` runs: the recorded tasks (or the given ones) per recorded version, on replayed servers."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from mcptrials.model import MASK, ServerSpec, Task, version_sort_key
from mcptrials.replay.recording import Recording, ReplayError, load_recording
from mcptrials.replay.serve import ON_MISS, OnMiss, Replay
from mcptrials.store.db import task_version


@dataclass
class ReplaySetup:
    """A loaded recording, the replay answering from it, and the servers and tasks to run."""

    replay: Replay
    specs: dict[str, ServerSpec]
    tasks: list[Task]

    @property
    def recording(self) -> Recording:
        return self.replay.recording

    def worlds(self, chosen: list[Task], stages: str | None) -> list[tuple[str, dict[str, ServerSpec], list[Task]]]:
        """(version, servers, tasks) per recorded version (only ``stages`` when given); unrecorded tasks refused."""
        recorded = {(k[0], k[1]) for k in self.recording.episodes}
        versions = sorted({v for _, v in recorded}, key=version_sort_key)
        if stages:
            from mcptrials.evolve.versions import parse_versions

            wanted = parse_versions(stages)
            missing = [v for v in wanted if v not in versions]
            if missing:
                raise ReplayError(f"the recording has no episodes on {', '.join(missing)} (recorded: "
                                  f"{', '.join(versions)})")
            versions = wanted
        out = []
        for version in versions:
            tasks = [self._task_on(t, version) for t in chosen if (t.id, version) in recorded]
            if tasks:
                out.append((version, self.specs, tasks))
        unrecorded = sorted({t.id for t in chosen} - {t.id for _, _, ts in out for t in ts})
        if unrecorded:
            raise ReplayError(f"no recording of task(s) {', '.join(unrecorded[:8])} in run(s) "
                              f"{', '.join(self.recording.runs)}")
        return out

    def _task_on(self, task: Task, version: str) -> Task:
        if task_version(task) == version:
            return task
        stored = self.recording.tasks.get((task.id, version))
        return stored if stored is not None else task


def replay_setup(source: str, on_miss: str, db: str, servers: Path | None, tasks: list[Path] | None) -> ReplaySetup:
    """Load the recording ``source`` names; tasks from ``tasks`` or the store; servers from ``servers`` or the run."""
    if on_miss not in ON_MISS:
        raise ReplayError(f"unknown --on-miss {on_miss!r} (error, live)")
    recording, _store = load_recording(source, db)
    specs = dict(recording.servers)
    given: set[str] = set()
    if servers is not None:
        from mcptrials.servers.config import load_servers

        loaded = load_servers(servers)
        specs.update(loaded)
        given = set(loaded)
    if tasks:
        from mcptrials.tasks.loader import load_tasks

        chosen = load_tasks(*tasks)
    else:
        chosen = list({t.id: t for (_, v), t in sorted(recording.tasks.items()) if v == "v0" or
                       (t.id, "v0") not in recording.tasks}.values())
        recorded_ids = {k[0] for k in recording.episodes}
        chosen = [t for t in chosen if t.id in recorded_ids]
    missing = sorted({s for t in chosen for s in t.servers} - set(specs))
    if missing:
        raise ReplayError(f"the recording names no config for server(s) {', '.join(missing)}: give --servers")
    used = {s for t in chosen for s in t.servers} - given
    masked = sorted(n for n in used if MASK in json.dumps(specs[n].model_dump()))
    if on_miss == "live" and masked:
        raise ReplayError(f"--on-miss live: the recording masks the secrets (env, headers, URL or flag values) of "
                          f"server(s) {', '.join(masked)}; give --servers with their config")
    mode: OnMiss = "live" if on_miss == "live" else "error"
    return ReplaySetup(Replay(recording, mode), specs, chosen)

