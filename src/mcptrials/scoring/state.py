"""State checkpoints: what the episode sandbox holds after the agent stopped.

The runner captures a snapshot of the sandbox (every small file's text and the result of
every SQL query the task's state checkpoints ask) before the sandbox is removed, and stores
it with the episode; the scorer reads only the snapshot, so stored episodes can be graded
again later.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcptrials.jsonpath import JsonPathError, json_path_steps, select
from mcptrials.model import CheckpointResult, Count, Matcher, StateCheckpoint, Task
from mcptrials.scoring.answers import states
from mcptrials.scoring.claims import text_problems
from mcptrials.scoring.matchers import _MISSING, matches, values_equal
from mcptrials.scoring.memo import EpisodeMemo

MAX_FILE_TEXT = 256_000
MAX_SNAPSHOT_TEXT = 2_000_000
MAX_FILES = 2_000
MAX_ROWS = 1_000


def _query_key(path: str, query: str) -> str:
    return f"{path}\n{query}"


def _run_query(db: Path, query: str) -> dict[str, Any]:
    try:
        con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return {"error": str(exc)}
    try:
        cursor = con.execute(query)
        columns = [c[0] for c in cursor.description or []]
        rows = [list(r) for r in cursor.fetchmany(MAX_ROWS)]
        return {"columns": columns, "rows": [[v if not isinstance(v, bytes) else v.hex() for v in r] for r in rows]}
    except sqlite3.Error as exc:
        return {"error": str(exc)}
    finally:
        con.close()


def capture_files(sandbox: Path) -> dict[str, Any]:
    """Every sandbox file by relative path: size and digest, and the text of small text files (bounded)."""
    files: dict[str, Any] = {}
    budget = MAX_SNAPSHOT_TEXT
    paths = sorted(p for p in sandbox.rglob("*") if p.is_file() and not p.is_symlink())[:MAX_FILES]
    for path in paths:
        rel = path.relative_to(sandbox).as_posix()
        data = path.read_bytes()
        entry: dict[str, Any] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        if len(data) <= MAX_FILE_TEXT and len(data) <= budget and not data.startswith(b"SQLite format 3"):
            try:
                entry["text"] = data.decode("utf-8")
                budget -= len(data)
            except UnicodeDecodeError:
                pass
        files[rel] = entry
    return files


def capture_tables(db: Path) -> dict[str, Any]:
    """Every table of a SQLite file: columns, primary key and rows (at most ``MAX_ROWS`` each)."""
    tables: dict[str, Any] = {}
    listing = _run_query(db, "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
                             " ORDER BY name")
    for (name,) in listing.get("rows", []):
        quoted = '"' + str(name).replace('"', '""') + '"'
        info = _run_query(db, f"PRAGMA table_info({quoted})")
        pk = [row[1] for row in sorted(info.get("rows", []), key=lambda r: r[5]) if row[5]]
        tables[name] = {**_run_query(db, f"SELECT * FROM {quoted}"), "pk": pk}
    return tables


def capture_state(sandbox: Path, task: Task) -> dict[str, Any]:
    """Snapshot the sandbox for the state checkpoints: small text files whole, SQLite files by query."""
    files = capture_files(sandbox)
    queries: dict[str, Any] = {}
    for cp in task.spec.checkpoints:
        if isinstance(cp, StateCheckpoint) and cp.query:
            target = sandbox / cp.path
            if target.is_file() and not target.is_symlink():
                queries[_query_key(cp.path, cp.query)] = _run_query(target, cp.query)
    return {"files": files, "queries": queries}


# --------------------------------------------------------------------------- selecting records

_ABSENT = object()


def field_of(record: Any, name: str) -> Any:
    """A field of a record by dotted path (``meta.date``, ``to[0]``); ``.`` is the record itself."""
    if name in {".", "$", ""}:
        return record
    if name != "*" and not name.startswith("$") and "." not in name and "[" not in name:
        return record.get(name, _ABSENT) if isinstance(record, dict) else _ABSENT  # a plain name: one lookup
    try:
        found = select(record, json_path_steps("$." + name if not name.startswith(("$", "[")) else
                                               ("$" + name if name.startswith("[") else name)))
    except JsonPathError:
        found = [record[name]] if isinstance(record, dict) and name in record else []
    return found[0] if found else _ABSENT


def _record_meets(record: Any, predicates: Mapping[str, Matcher]) -> bool:
    for name, matcher in predicates.items():
        value = field_of(record, name)
        if not matches(_MISSING if value is _ABSENT else value, matcher):
            return False
    return True


def _records(cp: StateCheckpoint, snapshot: Mapping[str, Any]) -> tuple[list[Any] | None, str]:
    """The records a JSON or SQLite checkpoint reads, or None and why there are none."""
    if cp.file_format == "sqlite":
        result = snapshot.get("queries", {}).get(_query_key(cp.path, cp.query or ""))
        if result is None:
            return None, "the query was not captured with this episode (re-run it to grade this checkpoint)"
        if "error" in result:
            return None, f"the query failed: {result['error']}"
        return [dict(zip(result["columns"], row, strict=False)) for row in result["rows"]], ""
    text = snapshot["files"][cp.path].get("text")
    if text is None:
        return None, "the file is too large or not text"
    try:
        document = _DOCUMENTS.get(text, lambda: json.loads(text))
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at line {exc.lineno})"
    return select(document, json_path_steps(cp.json_path or "$")), ""


_DOCUMENTS: EpisodeMemo[str, Any] = EpisodeMemo(limit=16)
"""JSON files of the episode being graded, parsed once however many checkpoints read them."""


def _rows_equal(actual: list[list[Any]], expected: list[list[Any]], ordered: bool) -> bool:
    if len(actual) != len(expected):
        return False
    if ordered:
        return all(values_equal(a, e, insensitive=True) for a, e in zip(actual, expected, strict=True))
    remaining = list(actual)
    for row in expected:
        hit = next((i for i, a in enumerate(remaining) if values_equal(a, row, insensitive=True)), None)
        if hit is None:
            return False
        remaining.pop(hit)
    return True


_LINE_WORTH = re.compile(r"[a-z0-9]", re.IGNORECASE)


_LIST_MARK = re.compile(r"^(?:[-*+]\s+)?(?:\[[ xX]\]\s+)?(?:\d+[.)]\s+)?")


def repeated_lines(text: str, initial: str | None, cp: StateCheckpoint, written: str = "") -> list[str]:
    """Lines holding what the checkpoint looks for, that the agent wrote (``written``: the text of its
    write calls' arguments) and that the file holds more often than once and more often than at the
    start: one line written twice ("- [ ] Call the bank" appended twice). A file a tool renders
    (an export listing a relation under both its ends) repeats lines no agent wrote twice."""
    looked_for = [v for item in cp.contains for v in (item if isinstance(item, list) else [item])]
    looked_for += [v for fact in cp.facts for v in fact.values]
    before: dict[str, int] = {}
    for line in (initial or "").splitlines():
        before[line.strip()] = before.get(line.strip(), 0) + 1
    after: dict[str, int] = {}
    for line in text.splitlines():
        key = line.strip()
        if len(key) >= 6 and _LINE_WORTH.search(key):
            after[key] = after.get(key, 0) + 1
    return [line for line, n in after.items() if n > 1 and n > before.get(line, 0)
            and any(states(line, v) for v in looked_for)
            and _LIST_MARK.sub("", line).strip().casefold() in written.casefold()]


def _counts_items(cp: StateCheckpoint) -> bool:
    """Whether a check's records are items of one kind whose fields it matches (events, messages, rows),
    so that two meeting it are one item written twice; a check that reads whole records of mixed
    kinds for a fact stated anywhere ("." over ``$.*[*]``) counts nothing."""
    return bool(cp.match) and "." not in cp.match and "$.*" not in (cp.json_path or "").replace(" ", "")


def check_state(cp: StateCheckpoint, snapshot: Mapping[str, Any], initial: str | None = None,
                repeats: bool = False, written: str = "") -> CheckpointResult:
    """The verdict on one state checkpoint from an episode's sandbox snapshot.

    ``initial``: the file's text when the episode started, to tell a line written twice from one
    that was there twice; ``repeats``: the task allows the same item written more than once;
    ``written``: the text the agent's write calls carried.
    """

    def verdict(passed: bool, detail: str) -> CheckpointResult:
        return CheckpointResult(id=cp.id, passed=passed, failure=None if passed else "wrong_state", detail=detail)

    if not snapshot:
        return verdict(False, "no sandbox snapshot was stored with this episode")
    present = cp.path in snapshot.get("files", {})
    if not cp.exists:
        return verdict(not present, f"{cp.path} is absent" if not present else f"{cp.path} exists and must not")
    if not present:
        return verdict(False, f"{cp.path} does not exist")
    fmt = cp.file_format
    if fmt == "text":
        text = snapshot["files"][cp.path].get("text")
        if text is None:
            return verdict(False, f"{cp.path} is too large or not text")
        problems = text_problems(cp, text)
        if not problems and not repeats:
            twice = repeated_lines(text, initial, cp, written)
            if twice:
                return CheckpointResult(id=cp.id, passed=False, failure="duplicate_write",
                                        detail=f"{cp.path} holds {twice[0][:80]!r} more than once")
        return verdict(not problems, "; ".join(p.detail for p in problems) or f"{cp.path} holds what it must")
    if fmt == "sqlite" and cp.rows is not None:
        result = snapshot.get("queries", {}).get(_query_key(cp.path, cp.query or ""))
        if result is None or "error" in result:
            why = "the query was not captured" if result is None else f"the query failed: {result['error']}"
            return verdict(False, why)
        ok = _rows_equal(result["rows"], cp.rows, cp.ordered)
        return verdict(ok, "the query returns the expected rows" if ok else
                       f"the query returns {json.dumps(result['rows'][:5], default=str)[:300]}")
    records, why = _records(cp, snapshot)
    if records is None:
        return verdict(False, f"{cp.path}: {why}")
    kept = [r for r in records if _record_meets(r, cp.where)]
    meeting = [r for r in kept if _record_meets(r, cp.match)]
    if isinstance(cp.count, int):
        ok = len(meeting) == cp.count
        return verdict(ok, f"{len(meeting)} record(s) of {cp.path} meet it, {cp.count} required")
    if isinstance(cp.count, Count):
        ok = cp.count.admits(len(meeting))
        wanted = f"at least {cp.count.min}" + (f" and at most {cp.count.max}" if cp.count.max is not None else "")
        return verdict(ok, f"{len(meeting)} record(s) of {cp.path} meet it, {wanted} required")
    if len(meeting) > 1 and _counts_items(cp) and not repeats:  # an item is written once, unless the spec says so
        return CheckpointResult(id=cp.id, passed=False, failure="duplicate_write",
                                detail=f"{len(meeting)} record(s) of {cp.path} meet it: the same item written"
                                       " more than once (the spec's count allows one)")
    if meeting:
        return verdict(True, f"{len(meeting)} record(s) of {cp.path} meet it")
    if not kept:
        return verdict(False, f"no record of {cp.path} meets where={sorted(cp.where)}" if cp.where
                       else f"{cp.path} selects no record")
    return verdict(False, f"{len(kept)} record(s) of {cp.path} selected, none meets {sorted(cp.match)}")
