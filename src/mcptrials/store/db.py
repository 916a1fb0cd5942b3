"""The result store: runs, tasks, tool catalog, episodes and scores in SQL (SQLite WAL by default).

The schema is kept by Alembic migrations shipped in ``store/migrations`` and applied on open
(``store/migrate.py``); SQLite and PostgreSQL (``postgresql://...``, psycopg 3) behave the same.

Episodes are written once, whole, in one transaction, keyed by (task, version, agent, model,
attempt, config hash): re-running a command never duplicates one, and a crash loses at most the
episodes still in flight. Scores can be replaced by re-scoring.

An infra-error episode is not a result: it does not count as completed, so the next invocation
of the same command runs its key again, and the new episode (same key, same id) replaces it and
its scores.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import (
    JSON,
    Column,
    Engine,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    bindparam,
    func,
    select,
    type_coerce,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError

from mcptrials.judges.base import SCORER_PREFIX
from mcptrials.model import Episode, Score, Task, ToolInfo
from mcptrials.store.engine import StoreError, StoreUnreachableError, display_url, open_engine, store_url
from mcptrials.store.migrate import check_store

metadata = MetaData()
_T = TypeVar("_T")

runs = Table(
    "runs", metadata,
    Column("id", String, primary_key=True),
    Column("created_at", String, nullable=False),
    Column("config_hash", String, nullable=False),
    Column("config", JSON, nullable=False),
    # what became of the run and which process ran it (``store/run_status.py``); none before revision 0003
    Column("status", String),
    Column("label", String),
    Column("machine", String),
    Column("host", String),
    Column("pid", Integer),
    Column("pid_started", String),
    Column("ended_at", String),
    Column("note", Text),
)
tasks = Table(
    "tasks", metadata,
    Column("id", String, primary_key=True),
    Column("version", String, primary_key=True),
    Column("data", JSON, nullable=False),
)
tools = Table(
    "tools", metadata,
    Column("hash", String, primary_key=True),
    Column("data", JSON, nullable=False),
)
episodes = Table(
    "episodes", metadata,
    Column("id", String, primary_key=True),
    Column("run_id", String, nullable=False, index=True),
    Column("task_id", String, nullable=False),
    Column("version", String, nullable=False),
    Column("agent", String, nullable=False),
    Column("model", String, nullable=False),
    Column("attempt", Integer, nullable=False),
    Column("config_hash", String, nullable=False),
    Column("outcome", String, nullable=False),
    Column("created_at", String, nullable=False),
    Column("data", Text, nullable=False),
    UniqueConstraint("task_id", "version", "agent", "model", "attempt", "config_hash", name="episode_key"),
)
scores = Table(
    "scores", metadata,
    Column("episode_id", String, primary_key=True),
    Column("scorer", String, primary_key=True),
    Column("scorer_version", String, nullable=False),
    Column("passed", Integer),
    Column("value", Float),
    Column("data", Text, nullable=False),
)
judgments = Table(
    "judgments", metadata,
    Column("judge", String, primary_key=True),
    Column("version", String, primary_key=True),
    Column("prompt_hash", String, primary_key=True),
    Column("created_at", String, nullable=False),
    Column("data", Text, nullable=False),
)
"""Model judgments keyed by (judge, version, prompt hash): a re-run or re-score never asks again."""
run_locks = Table(
    "run_locks", metadata,
    Column("key", String, primary_key=True),
    Column("run_id", String, nullable=False),
    Column("machine", String, nullable=False),
    Column("host", String, nullable=False),
    Column("pid", Integer, nullable=False),
    Column("label", String, nullable=False),
    Column("started_at", String, nullable=False),
    Column("heartbeat_at", Float, nullable=False),
)
"""One row per (store, run settings) while a run executes them (``store/lock.py``)."""


SQLITE_HEADER = b"SQLite format 3\x00"


def is_sqlite(path: Path) -> bool:
    """Whether ``path`` is a SQLite database file (by its header)."""
    try:
        with path.open("rb") as handle:
            return handle.read(16) == SQLITE_HEADER
    except OSError:
        return False


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def task_version(task: Task) -> str:
    """The server version a (possibly rewritten) task definition belongs to."""
    return str(task.provenance.get("version", "v0"))


def task_for(known: Mapping[tuple[str, str], Task], task_id: str, version: str) -> Task | None:
    """The definition of a task on a version, falling back to its original (v0) form."""
    return known.get((task_id, version)) or known.get((task_id, "v0"))


INFRA_OUTCOME = "infra_error"
"""The stored outcome of an episode that infrastructure spoiled (not a result)."""


UNJUDGED = "unjudged"
"""The outcome of an episode of a judge-only task that no judge giving a verdict has judged (not a result)."""


def is_judged(effects: Score | None) -> bool:
    """Whether a Tier-1 score leaves the verdict to the task's judges (a judge-only task)."""
    return effects is not None and effects.passed is None and effects.detail.get("verdict") == "judged"


def outcome_of(episode: Episode, effects: Score | None, judged: Iterable[Score] = ()) -> str:
    """passed | failed | unjudged | infra_error: the outcomes a report counts.

    A judge-only task's outcome is its named judges' verdict (``judged``: the episode's judge
    scores): failed when one fails (or a minefield was hit), passed when every one that gives a
    verdict passes; unjudged while none has (a rubric alone gives a score, not a verdict).
    """
    if episode.infra_error is not None or episode.termination == "infra_error":
        return INFRA_OUTCOME
    if effects is not None and is_judged(effects):
        names = {SCORER_PREFIX + name for name in effects.detail.get("judges", [])}
        verdicts = [s.passed for s in judged if s.scorer in names and s.passed is not None]
        if "minefield" in effects.failure_codes or False in verdicts:
            return "failed"
        return "passed" if verdicts else UNJUDGED
    return "passed" if effects is not None and effects.passed else "failed"


class Store:
    """Read and write results; ``url`` is a path (SQLite) or a database URL (``postgresql://...``).

    Opening migrates the schema to the newest revision. ``url`` as kept here has its password
    masked: the password is never stored or printed.
    """

    def __init__(self, url: str | Path | URL, *, migrate: bool = True, read_only: bool = False) -> None:
        """``url`` may also be an engine's (unmasked) URL; ``migrate=False`` opens a store another opener
        has already migrated (a re-scoring helper process).

        ``read_only``: for commands that only read (report, view, show, export, a replay's recording): the
        database is opened so that nothing can be written, nothing is migrated, and a database that is not an
        up-to-date mcptrials store is refused with one line (``StoreError``).
        """
        from mcptrials.store.migrate import upgrade

        target = url if isinstance(url, URL) else _existing(url) if read_only else store_url(url)
        self.url = display_url(target)
        self.read_only = read_only
        self._known_tools: set[str] = set()
        self.unreadable: list[str] = []
        """Stored rows that could not be read and were left out (one line each: table, key, what is wrong)."""
        self.engine: Engine = open_engine(target, read_only=read_only)
        try:
            if read_only:
                check_store(self.engine, display_url(url))
            elif migrate:
                upgrade(self.engine, metadata)
        except StoreUnreachableError as exc:  # down before anything was done: a setting to fix, not an outage
            self.engine.dispose()
            raise StoreError(f"cannot open the result store {self.url}: {exc.detail}") from None
        except StoreError:
            self.engine.dispose()
            raise
        except DBAPIError as exc:  # a server's refusal, or a file that is damaged or not a database
            self.engine.dispose()
            raise StoreError(f"cannot open the result store {self.url}: {_first_line(exc)}") from None

    # -- writing -----------------------------------------------------------------------

    def _insert(self) -> Any:
        return sqlite_insert if self.engine.dialect.name == "sqlite" else pg_insert

    def _insert_ignore(self, table: Table, rows: list[dict[str, Any]], keys: list[str] | None) -> Any:
        """INSERT ... ON CONFLICT (keys) DO NOTHING; with no keys, a conflict on any unique index is ignored."""
        return self._insert()(table).values(rows).on_conflict_do_nothing(index_elements=keys)

    def _upsert(self, table: Table, keys: Sequence[str]) -> Any:
        """INSERT ... ON CONFLICT (keys) DO UPDATE every other column (safe against a concurrent writer)."""
        stmt = self._insert()(table)
        return stmt.on_conflict_do_update(index_elements=list(keys), set_={
            c.name: stmt.excluded[c.name] for c in table.columns if c.name not in keys})

    def save_run(self, run_id: str, config_hash: str, config: dict[str, Any],
                 owner: Mapping[str, Any] | None = None) -> None:
        """Record a run; ``owner`` (status, label, machine, host, pid, pid_started) says who runs it."""
        row = {"id": run_id, "created_at": _now(), "config_hash": config_hash, "config": config, **(owner or {})}
        with self.engine.begin() as conn:
            conn.execute(self._insert_ignore(runs, [row], ["id"]))

    def end_run(self, run_id: str, status: str, note: str | None = None) -> None:
        """Set what became of a run: finished, interrupted, failed (with ``note``), or gone."""
        with self.engine.begin() as conn:
            conn.execute(runs.update().where(runs.c.id == run_id)
                         .values(status=status, ended_at=_now(), note=None if note is None else note[:2000]))

    def add_run_warnings(self, run_id: str, lines: Sequence[str]) -> None:
        """Record warnings with a run (its settings' ``warnings`` list), each once."""
        if not lines:
            return
        with self.engine.begin() as conn:
            row = conn.execute(select(type_coerce(runs.c.config, Text)).where(runs.c.id == run_id)).first()
            try:
                config = json_object(row[0]) if row is not None else None
            except ValueError:  # settings this version cannot read: left as they are
                config = None
            if config is None:
                return
            said = [str(w) for w in config.get("warnings") or []]
            config["warnings"] = list(dict.fromkeys([*said, *lines]))
            conn.execute(runs.update().where(runs.c.id == run_id).values(config=config))

    def save_tasks(self, items: Iterable[Task]) -> None:
        """Store task definitions per (id, version); the latest wins, so re-scoring uses fixed specs."""
        rows = list({(t.id, task_version(t)): {"id": t.id, "version": task_version(t),
                                                "data": t.model_dump(mode="json")} for t in items}.values())
        if rows:
            with self.engine.begin() as conn:
                conn.execute(self._upsert(tasks, ["id", "version"]), rows)

    def save_tools(self, items: Iterable[ToolInfo]) -> None:
        """Add tools to the catalog (keyed by schema hash and server); known ones are skipped."""
        rows = {key: {"hash": key, "data": t.model_dump(mode="json")}
                for t in items if (key := f"{t.schema_hash}:{t.server}") not in self._known_tools}
        if rows:
            with self.engine.begin() as conn:
                conn.execute(self._insert_ignore(tools, list(rows.values()), ["hash"]))
            self._known_tools.update(rows)

    def save_episode(self, episode: Episode, episode_scores: list[Score]) -> bool:
        """Write an episode and its scores atomically; False if its key was already stored.

        A stored infra-error episode with the same key (or id) is replaced, scores included.
        """
        effects = next((s for s in episode_scores if s.scorer == "effects"), None)
        row = {"id": episode.id, "run_id": episode.run_id, "task_id": episode.task_id,
               "version": episode.version, "agent": episode.agent, "model": episode.model,
               "attempt": episode.attempt, "config_hash": episode.config_hash,
               "outcome": outcome_of(episode, effects, episode_scores), "created_at": _now(),
               "data": episode.model_dump_json()}
        same_key = ((episodes.c.task_id == episode.task_id) & (episodes.c.version == episode.version)
                    & (episodes.c.agent == episode.agent) & (episodes.c.model == episode.model)
                    & (episodes.c.attempt == episode.attempt) & (episodes.c.config_hash == episode.config_hash))
        with self.engine.begin() as conn:
            stale = [r.id for r in conn.execute(select(episodes.c.id).where(
                (same_key | (episodes.c.id == episode.id)) & (episodes.c.outcome == INFRA_OUTCOME)))]
            if stale:
                conn.execute(scores.delete().where(scores.c.episode_id.in_(stale)))
                conn.execute(episodes.delete().where(episodes.c.id.in_(stale)))
            # No conflict target: PostgreSQL ignores only its arbiter index's conflicts, so two processes storing
            # the same episode at once would otherwise fail on the id (primary key) instead of skipping it.
            inserted = conn.execute(self._insert_ignore(episodes, [row], None).returning(episodes.c.id)).first()
            if inserted is None:  # (rowcount is not reliable on every driver: psycopg gives -1)
                return False
            self._put_scores(conn, episode_scores)
        return True

    def _put_scores(self, conn: Any, items: Sequence[Score]) -> None:
        """Upsert scores in one statement (executemany); the last of a duplicate (episode, scorer) wins."""
        rows = list({(s.episode_id, s.scorer): score_row(s) for s in items}.values())
        if rows:
            conn.execute(self._upsert(scores, ["episode_id", "scorer"]), rows)

    def replace_scores(self, items: Iterable[tuple[Episode, list[Score]]], chunk: int = 5000) -> int:
        """Store new scores for stored episodes and refresh their outcome; returns the count.

        Written in bulk: one transaction and two executemany statements per ``chunk`` episodes.
        """
        count = 0
        batch: list[tuple[Episode, list[Score]]] = []
        for item in items:
            batch.append(item)
            if len(batch) >= chunk:
                count += self._replace_chunk(batch)
                batch = []
        return count + (self._replace_chunk(batch) if batch else 0)

    def _replace_chunk(self, batch: list[tuple[Episode, list[Score]]]) -> int:
        outcomes = {episode.id: outcome_of(episode, next((s for s in new_scores if s.scorer == "effects"), None))
                    for episode, new_scores in batch}
        self.write_score_rows([score_row(s) for _, new_scores in batch for s in new_scores], outcomes)
        return len(batch)

    def write_score_rows(self, rows: Sequence[dict[str, Any]], outcomes: Mapping[str, str]) -> None:
        """Bulk write: upsert score rows (as made by ``score_row``) and set episodes' outcomes, one transaction."""
        with self.engine.begin() as conn:
            if rows:
                conn.execute(self._upsert(scores, ["episode_id", "scorer"]), list(rows))
            if outcomes:
                conn.execute(episodes.update().where(episodes.c.id == bindparam("eid"))
                             .values(outcome=bindparam("new_outcome")),
                             [{"eid": eid, "new_outcome": outcome} for eid, outcome in outcomes.items()])

    def put_scores(self, items: Iterable[Score]) -> int:
        """Store (replace) scores of stored episodes without touching their outcome (judged scores)."""
        rows = list(items)
        with self.engine.begin() as conn:
            self._put_scores(conn, rows)
        return len(rows)

    def put_judgment(self, judge: str, version: str, prompt_hash: str, data: dict[str, Any]) -> None:
        """Keep one model judgment; the first stored for a key wins."""
        with self.engine.begin() as conn:
            conn.execute(self._insert_ignore(judgments, [{
                "judge": judge, "version": version, "prompt_hash": prompt_hash, "created_at": _now(),
                "data": json.dumps(data, default=str)}], ["judge", "version", "prompt_hash"]))

    def get_judgment(self, judge: str, version: str, prompt_hash: str) -> dict[str, Any] | None:
        """A stored judgment, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(select(judgments.c.data).where(
                (judgments.c.judge == judge) & (judgments.c.version == version)
                & (judgments.c.prompt_hash == prompt_hash))).first()
        return None if row is None else self.read_row("judgment", prompt_hash, json_object, row[0])

    # -- reading -----------------------------------------------------------------------

    def completed_keys(self) -> set[tuple[str, str, str, str, int, str]]:
        """Keys of stored results; infra-error episodes are not results, so their keys run again."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(episodes.c.task_id, episodes.c.version, episodes.c.agent,
                                       episodes.c.model, episodes.c.attempt, episodes.c.config_hash)
                                .where(episodes.c.outcome != INFRA_OUTCOME))
            return {tuple(r) for r in rows}

    def episode_count(self) -> int:
        """How many episodes are stored."""
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(episodes)).scalar_one())

    def episode_id_ranges(self, size: int = 500) -> Iterator[tuple[str, str | None]]:
        """The stored episodes as consecutive id ranges ``(after, through]`` of ``size`` each, in id order
        (``through`` None: to the end); each found by a short index query, when it is asked for."""
        last = ""
        while True:
            with self.engine.connect() as conn:
                after_last = episodes.c.id > last
                through = conn.execute(select(episodes.c.id).where(after_last).order_by(episodes.c.id)
                                       .offset(size - 1).limit(1)).scalar()
                if through is None:
                    if conn.execute(select(episodes.c.id).where(after_last).limit(1)).first() is not None:
                        yield last, None
                    return
            yield last, through
            last = through

    def episode_json_range(self, after: str, through: str | None) -> list[tuple[str, str, str]]:
        """(id, JSON, stored outcome) of every episode with ``after < id <= through`` (``through`` None: no
        upper bound)."""
        where = episodes.c.id > after
        if through is not None:
            where = where & (episodes.c.id <= through)
        with self.engine.connect() as conn:
            return [(row[0], row[1], row[2]) for row in conn.execute(
                select(episodes.c.id, episodes.c.data, episodes.c.outcome).where(where).order_by(episodes.c.id))]

    def read_row(self, what: str, key: str, parse: Callable[[Any], _T], data: Any) -> _T | None:
        """``parse(data)``, or None when the stored row cannot be read: then it is noted in ``unreadable``."""
        try:
            return parse(data)
        except (ValueError, TypeError) as exc:  # bad JSON, a pydantic ValidationError (a ValueError), wrong type
            line = f"{what} {key}: {row_problem(exc)}"
            if line not in self.unreadable:
                self.unreadable.append(line)
            return None

    def episodes(self, run_id: str | None = None, **match: str | None) -> Iterator[Episode]:
        """Stored episodes by model, agent, task, version, attempt; only those of ``run_id`` and with every
        column of ``match`` (``task_id``, ``model``, ``agent``, ``version``, ``outcome``) equal, None ignored.
        Unreadable rows are left out (and listed on ``unreadable``)."""
        query = select(episodes.c.id, episodes.c.data).order_by(episodes.c.model, episodes.c.agent, episodes.c.task_id,
                                                 episodes.c.version, episodes.c.attempt)
        for column, value in {"run_id": run_id or None, **match}.items():
            if value is not None:
                query = query.where(episodes.c[column] == value)
        with self.engine.connect() as conn:
            for episode_id, data in conn.execute(query):
                episode = self.read_row("episode", episode_id, Episode.model_validate_json, data)
                if episode is not None:
                    yield episode

    def scores(self) -> dict[str, dict[str, Score]]:
        """All scores as {episode_id: {scorer: score}}."""
        out: dict[str, dict[str, Score]] = {}
        with self.engine.connect() as conn:
            for episode_id, scorer, data in conn.execute(select(scores.c.episode_id, scores.c.scorer, scores.c.data)):
                score = self.read_row("score", f"{episode_id} {scorer}", Score.model_validate_json, data)
                if score is not None:
                    out.setdefault(score.episode_id, {})[score.scorer] = score
        return out

    def tasks(self) -> dict[tuple[str, str], Task]:
        """Every stored task definition keyed by (task id, server version)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(tasks.c.id, tasks.c.version, type_coerce(tasks.c.data, Text)))
            found = {(i, v): self.read_row("task", f"{i} {v}", lambda d: Task.model_validate(json_object(d)), data)
                     for i, v, data in rows}
        return {key: task for key, task in found.items() if task is not None}

    def tool_catalog(self) -> dict[str, ToolInfo]:
        """Every tool ever offered, keyed by ``schema_hash:server``."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(tools.c.hash, type_coerce(tools.c.data, Text)))
            found = {key: self.read_row("tool", key, lambda d: ToolInfo.model_validate(json_object(d)), data)
                     for key, data in rows}
        return {key: tool for key, tool in found.items() if tool is not None}

    def runs(self) -> list[dict[str, Any]]:
        """Every run with its settings, oldest first; a run whose settings cannot be read is left out."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(runs.c.id, runs.c.created_at, runs.c.config_hash,
                                       type_coerce(runs.c.config, Text)).order_by(runs.c.created_at))
            found = [(r, self.read_row("run", r[0], json_object, r[3])) for r in rows]
        return [{"id": r[0], "created_at": r[1], "config_hash": r[2], "config": config}
                for r, config in found if config is not None]

    def close(self) -> None:
        self.engine.dispose()


def score_row(score: Score) -> dict[str, Any]:
    """A score as a row of the ``scores`` table."""
    return {"episode_id": score.episode_id, "scorer": score.scorer, "scorer_version": score.scorer_version,
            "passed": None if score.passed is None else int(score.passed), "value": score.value,
            "data": score.model_dump_json()}


def _existing(target: str | Path) -> URL:
    """The URL of a store that must already exist (a reader never creates one, nor its folder)."""
    text = str(target)
    if "://" in text:
        return store_url(text)
    return URL.create("sqlite", database=str(Path(text).expanduser()))


def json_object(data: Any) -> dict[str, Any]:
    """A stored JSON object (text, or already decoded by the driver); ValueError when it is not one."""
    value = json.loads(data) if isinstance(data, str | bytes) else data
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, found {type(value).__name__}")
    return value


def row_problem(exc: Exception) -> str:
    """What is wrong with a stored row in one line: a validation error's first field and message, else the
    error's first line."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return (f"{where}: {first['msg']}" if where else str(first["msg"]))[:300]
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]


def _first_line(exc: Exception) -> str:
    """A driver error as one line, without SQLAlchemy's statement and background link."""
    cause = getattr(exc, "orig", None) or exc
    return next((line.strip() for line in str(cause).splitlines() if line.strip()), type(cause).__name__)

