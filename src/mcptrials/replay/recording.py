"""A recorded world: the stored episodes of one or more runs, indexed so a replay can answer calls from them.

A recording is read from a result store: a SQLite file (every recorded, non-replay run in it) or
a run id in the current store. Each (task, version, attempt) keeps its episodes in order (the
original first, then the replays of it, whose live-answered calls were added to the world), and
each episode keeps, per server, its calls in the order they happened.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptrials.model import Episode, ServerSpec, Task, ToolCallRecord, ToolInfo, stable_hash
from mcptrials.safety.secrets import HIDDEN_VALUES
from mcptrials.scoring.matchers import effective_arguments
from mcptrials.store.db import Store, is_sqlite, task_version
from mcptrials.store.engine import display_url

INFRA_KINDS = frozenset({"timeout", "server_unresponsive", "server_crash", "server_unavailable", "replay_miss"})
"""Error kinds that are not an answer of the recorded server (never evidence that it keeps state)."""

EpisodeKey = tuple[str, str, int]
"""(task id, server version, attempt): which recorded history an episode is answered from."""


class ReplayError(ValueError):
    """A recording that cannot be replayed: no such store or run, not a store, nothing recorded."""


def exact_key(tool: str, arguments: Mapping[str, Any] | None) -> str:
    """The call as sent: tool and arguments as JSON (key order does not matter)."""
    return json.dumps([tool, arguments], sort_keys=True, separators=(",", ":"), default=str)


def _numbers_alike(value: Any) -> Any:
    """5 and 5.0 alike; integers kept exact (two 19-digit ids one apart are different items)."""
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        return int(value) if value.is_integer() and abs(value) < 2**53 else value
    if isinstance(value, list):
        return [_numbers_alike(v) for v in value]
    if isinstance(value, dict):
        return {k: _numbers_alike(v) for k, v in value.items()}
    return value


def normalised_key(tool: str, arguments: Mapping[str, Any] | None, schema: Mapping[str, Any] | None) -> str:
    """The call as the server sees it: defaults filled, numeric strings and 5/5.0 alike, enum case, paths."""
    effective = effective_arguments(arguments, schema)
    return json.dumps([tool, _numbers_alike(effective)], sort_keys=True, separators=(",", ":"), default=str)


@dataclass
class RecordedCall:
    """One answered call of a recorded history, with both match keys and the exact answer."""

    tool: str
    arguments: dict[str, Any] | None
    exact: str
    normalised: str
    record: ToolCallRecord

    @property
    def answer_hash(self) -> str:
        r = self.record
        return stable_hash([r.content, r.structured_content, r.is_error])


@dataclass
class History:
    """One episode's calls to one server, in the order they happened."""

    episode_id: str
    run_id: str
    calls: list[RecordedCall]


@dataclass
class Recording:
    """The recorded episodes of some runs, their tools, tasks and server configs."""

    runs: list[str]
    episodes: dict[EpisodeKey, list[Episode]]
    catalog: dict[str, ToolInfo]
    tasks: dict[tuple[str, str], Task]
    servers: dict[str, ServerSpec]
    descendants: list[str] = field(default_factory=list)
    _stateful: dict[str, bool] = field(default_factory=dict)
    _histories: dict[tuple[str, str], History] = field(default_factory=dict)

    @property
    def episode_count(self) -> int:
        return sum(len(v) for v in self.episodes.values())

    def fingerprint(self) -> str:
        """Identifies the recorded episodes replayed (not the replays that added live answers, so a re-run resumes)."""
        runs = set(self.runs)
        return stable_hash(sorted(e.id for eps in self.episodes.values() for e in eps if e.run_id in runs))

    def tools_of(self, episode: Episode, server: str) -> list[ToolInfo]:
        """The tools ``server`` listed in ``episode`` (from the tool catalog by their recorded schema hash)."""
        out = []
        for qualified, schema_hash in episode.tool_hashes.items():
            tool = self.catalog.get(f"{schema_hash}:{server}")
            if tool is not None and tool.qualified_name == qualified:
                out.append(tool)
        return out

    def history(self, episode: Episode, server: str) -> History:
        """``episode``'s answered calls to ``server``, keyed for matching against its recorded schemas."""
        found = self._histories.get((episode.id, server))
        if found is None:
            found = self._histories[(episode.id, server)] = self._history(episode, server)
        return found

    def _history(self, episode: Episode, server: str) -> History:
        schemas = {t.name: t.input_schema for t in self.tools_of(episode, server)}
        calls = []
        for record in episode.tool_calls:
            if record.server != server or record.tool is None or record.error_kind == "replay_miss":
                continue  # a recorded crash or timeout is replayed: that world broke there (an infra episode)
            if record.arguments is None:
                continue
            calls.append(RecordedCall(record.tool, record.arguments, exact_key(record.tool, record.arguments),
                                      normalised_key(record.tool, record.arguments, schemas.get(record.tool)),
                                      record))
        return History(episode.id, episode.run_id, calls)

    def stateful(self, server: str) -> bool:
        """Whether ``server``'s answers depend on what came before: declared so, or seen to in the recording.

        Declared: ``stateful_write`` in the config, or a recorded call to a tool the server marked as
        not read-only (``readOnlyHint: false``). Seen: the same (normalised) call got two different
        answers in one task and version, within an episode or across its attempts (same fixtures,
        same frozen clock: a stateless server agrees).
        """
        if server not in self._stateful:
            spec = self.servers.get(server)
            writers = {t.name for t in self.catalog.values() if t.server == server and t.read_only is False}
            found = (spec is not None and spec.dynamism == "stateful_write") or any(
                call.tool in writers for eps in self.episodes.values() for episode in eps
                for call in self.history(episode, server).calls)
            answers: dict[tuple[str, str, str], str] = {}
            for (task_id, version, _), eps in self.episodes.items():
                for call in (c for episode in eps for c in self.history(episode, server).calls
                             if c.record.error_kind not in INFRA_KINDS):
                    key = (task_id, version, call.normalised)
                    if found or answers.setdefault(key, call.answer_hash) != call.answer_hash:
                        found = True
                        break
            self._stateful[server] = found
        return self._stateful[server]


def _replay_sources(config: Mapping[str, Any]) -> list[str]:
    replay = config.get("replay")
    return list(replay.get("source_runs", [])) if isinstance(replay, Mapping) else []


def _same_file(path: Path, db: str) -> bool:
    """Whether the recording is the run's own store (which the run migrates and writes anyway)."""
    target = Path(db).expanduser()
    return "://" not in db and target.exists() and target.samefile(path)


def load_recording(source: str, db: str) -> tuple[Recording, Store]:
    """The recording named by ``source``: a store file (its recorded runs) or a run id in the store ``db``."""
    path = Path(source).expanduser()
    if path.exists():
        if path.is_dir() or not is_sqlite(path):
            raise ReplayError(f"--replay {source}: not a result store (expected a SQLite file written by "
                              "`mcptrials run`, or a run id in --db)")
        store = Store(path, read_only=not _same_file(path, db))  # a recording is read, never changed
        all_runs = store.runs()
        chosen = [r["id"] for r in all_runs if not _replay_sources(r["config"])]
        if not chosen:
            raise ReplayError(f"--replay {source}: the store holds no recorded run")
    else:
        if "://" not in db and not Path(db).expanduser().is_file():
            raise ReplayError(f"--replay {source}: no such file, and no result store at {db} to look the run up in")
        if "://" not in db and not is_sqlite(Path(db).expanduser()):
            raise ReplayError(f"--db {db}: not a result store (SQLite file)")
        store = Store(db)
        all_runs = store.runs()
        if source not in {r["id"] for r in all_runs}:
            known = ", ".join(r["id"] for r in all_runs[-5:]) or "none"
            raise ReplayError(f"--replay {source}: no run {source!r} in {display_url(db)} (latest runs: {known})")
        chosen = [source]
    descendants = [r["id"] for r in all_runs if set(_replay_sources(r["config"])) & set(chosen)]
    originals = set(chosen)
    wanted = originals | set(descendants)
    order = {run_id: i for i, run_id in enumerate([*chosen, *descendants])}
    episodes: dict[EpisodeKey, list[Episode]] = {}
    for episode in store.episodes():
        if episode.run_id in wanted:
            episodes.setdefault((episode.task_id, episode.version, episode.attempt), []).append(episode)
    if not any(e.run_id in originals for eps in episodes.values() for e in eps):
        raise ReplayError(f"--replay {source}: the recorded run(s) hold no episode")
    def rank(episode: Episode) -> tuple[int, int]:
        """Originals first, the newest run first; then the replays that added live answers, oldest first."""
        at = order[episode.run_id]
        return (0, -at) if episode.run_id in originals else (1, at)

    for eps in episodes.values():
        eps.sort(key=rank)
    servers: dict[str, ServerSpec] = {}
    for run in all_runs:
        if run["id"] in originals:
            for name, data in (run["config"].get("servers") or {}).items():
                try:
                    servers[name] = ServerSpec.model_validate({k: v for k, v in data.items() if k != HIDDEN_VALUES})
                except ValueError:
                    continue
    tasks = store.tasks()
    return Recording(runs=chosen, episodes=episodes, catalog=store.tool_catalog(), tasks=tasks, servers=servers,
                     descendants=descendants), store


def recorded_tasks(recording: Recording) -> dict[str, list[Task]]:
    """Per recorded version, the definitions of the tasks recorded on it (from the store)."""
    out: dict[str, list[Task]] = {}
    for task_id, version in sorted({(k[0], k[1]) for k in recording.episodes}):
        task = recording.tasks.get((task_id, version)) or recording.tasks.get((task_id, "v0"))
        if task is not None:
            if version != "v0" and task_version(task) != version:
                continue
            out.setdefault(version, []).append(task)
    return out
