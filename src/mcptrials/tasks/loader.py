"""Load and validate task files (JSON, JSONL, YAML) with errors that name the task and field."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mcptrials.fixtures import copy_source_problem
from mcptrials.model import Task
from mcptrials.safety.loading import DocumentError, parse_json, parse_yaml, read_text


class TaskFileError(ValueError):
    """A task file that cannot be used; the message names file, line or task id, and field path."""


def task_json_schema() -> dict[str, Any]:
    """The published JSON Schema of one task, for external tools and editors."""
    schema = Task.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://mcptrials.dev/schema/task.json"
    return schema


def _records(path: Path, text: str) -> list[tuple[str, Any]]:
    """Split a file into (location, record) pairs according to its format (bounded: see ``safety.loading``)."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".jsonl":
            return [(f"{path}:{lineno}", parse_json(line, f"{path}:{lineno}"))
                    for lineno, line in enumerate(text.splitlines(), 1) if line.strip()]
        data = parse_yaml(text, str(path)) if suffix in {".yaml", ".yml"} else parse_json(text, str(path))
    except DocumentError as exc:
        raise TaskFileError(str(exc)) from None
    if isinstance(data, dict) and "tasks" in data:
        data = data["tasks"]
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise TaskFileError(f"{path}: expected a task object, a list of tasks, or {{'tasks': [...]}}")
    return [(f"{path}[{i}]", item) for i, item in enumerate(data)]


def _explain(error: ValidationError) -> str:
    parts = []
    for err in error.errors()[:5]:
        loc = ".".join(str(p) for p in err["loc"] if not str(p).startswith(("function-after", "tagged-union")))
        message = err["msg"].removeprefix("Value error, ")
        parts.append(f"{loc}: {message}" if loc else message)
    more = f" (+{error.error_count() - 5} more)" if error.error_count() > 5 else ""
    return "; ".join(parts) + more


def parse_tasks(records: Iterable[tuple[str, Any]]) -> list[Task]:
    """Validate records into tasks; ids must be unique across everything loaded together."""
    tasks: list[Task] = []
    seen: dict[str, str] = {}
    for where, record in records:
        task_id = record.get("id", "?") if isinstance(record, dict) else "?"
        try:
            task = Task.model_validate(record)
        except ValidationError as exc:
            raise TaskFileError(f"{where}: task {task_id!r}: {_explain(exc)}") from None
        missing = _copy_problem(task)
        if missing is not None:
            raise TaskFileError(f"{where}: task {task.id!r}: fixtures.copy {missing}")
        if task.id in seen:
            raise TaskFileError(f"{where}: task id {task.id!r} is already used at {seen[task.id]}")
        seen[task.id] = where
        tasks.append(task)
    return tasks


def load_tasks(*paths: str | Path) -> list[Task]:
    """Load tasks from files or directories (every .json/.jsonl/.yaml inside, sorted)."""
    return parse_tasks(read_task_records(*paths))


def read_task_records(*paths: str | Path) -> list[tuple[str, Any]]:
    """The raw (location, record) pairs of task files or directories, not yet validated."""
    records: list[tuple[str, Any]] = []
    for raw in paths:
        path = Path(raw)
        files = sorted(p for p in path.rglob("*")  # regular files only: a planted FIFO would block the load
                       if p.suffix.lower() in {".json", ".jsonl", ".yaml", ".yml"} and p.is_file()) \
            if path.is_dir() else [path]
        for file in files:
            try:
                text = read_text(file, "task file")
            except DocumentError as exc:
                raise TaskFileError(str(exc)) from None
            records.extend((where, _with_copy_sources(record, file.parent)) for where, record in _records(file, text))
    return records


def _with_copy_sources(record: Any, folder: Path) -> Any:
    """The record with each relative ``fixtures.copy`` source resolved against the folder of its task file."""
    fixtures = record.get("fixtures") if isinstance(record, dict) else None
    if not isinstance(fixtures, dict) or not isinstance(fixtures.get("copy"), dict):
        return record
    copies = fixtures["copy"]
    resolved = {dest: str((folder / source).resolve()) if isinstance(source, str) and source.strip()
                and not Path(source).is_absolute() else source for dest, source in copies.items()}
    return {**record, "fixtures": {**fixtures, "copy": resolved}}


def _copy_problem(task: Task) -> str | None:
    """The first copied fixture whose source cannot be read (``dest: why``), or None."""
    for dest, source in task.fixtures.copy.items():
        problem = copy_source_problem(source)
        if problem is not None:
            return f"{dest!r}: {problem}"
    return None


def check_servers(tasks: Iterable[Task], servers: Iterable[str]) -> list[str]:
    """Problems where a task names a server the config does not define."""
    known = set(servers)
    problems = []
    for task in tasks:
        missing = [s for s in task.servers if s not in known]
        if missing:
            problems.append(f"task {task.id!r}: servers {missing} are not in the servers config")
        strays = sorted({d.partition("__")[0] for d in task.distractors} - known)
        if strays:
            problems.append(f"task {task.id!r}: distractor servers {strays} are not in the servers config")
    return problems
