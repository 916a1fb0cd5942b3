"""To-do lists kept as markdown checklists in a workspace file.

A task file looks like::

    # Title

    ## Section
    - [ ] Write the report (due: 2026-04-20) (priority: high) <!-- id:3 -->
    - [x] Book the room <!-- id:4 -->

Each task carries a stable numeric id in an HTML comment; hand-written lines without one
get the next free ids, in file order, the first time the file is changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import now, serve
from mcptrials.bundled.servers._workspace import relative, workspace_path, write_text

DYNAMISM = "stateful_write"
CATEGORY = "productivity"
DESCRIPTION = "Markdown to-do lists in the workspace: add, list, update, complete and remove tasks."

mcp = MCPServer("mdtasks", log_level="WARNING")

DEFAULT_FILE = "tasks.md"
TASK = re.compile(r"^(?P<indent>\s*)[-*] \[(?P<mark>[ xX])\] (?P<body>.*)$")
ID = re.compile(r"\s*<!--\s*id:(\d+)\s*-->\s*$")
DUE = re.compile(r"\s*\(due: (\d{4}-\d{2}-\d{2})\)")
PRIORITY = re.compile(r"\s*\(priority: (low|normal|high)\)")
Priority = Literal["low", "normal", "high"]
File = Annotated[str, Field(description="Task file relative to the workspace")]


@dataclass
class Task:
    """One checklist line of a task file."""

    line: int
    id: int | None
    text: str
    done: bool
    due: str | None
    priority: str
    section: str | None

    def render(self) -> str:
        parts = [f"- [{'x' if self.done else ' '}] {self.text}"]
        if self.due:
            parts.append(f"(due: {self.due})")
        if self.priority != "normal":
            parts.append(f"(priority: {self.priority})")
        parts.append(f"<!-- id:{self.id} -->")
        return " ".join(parts)

    def summary(self) -> str:
        extra = ", ".join(x for x in (f"due {self.due}" if self.due else "",
                                       f"{self.priority} priority" if self.priority != "normal" else "") if x)
        return f"[{'x' if self.done else ' '}] #{self.id} {self.text}" + (f" ({extra})" if extra else "")

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "status": "done" if self.done else "open",
                "due": self.due, "priority": self.priority, "section": self.section}


def _parse(lines: list[str]) -> list[Task]:
    tasks: list[Task] = []
    section: str | None = None
    for number, line in enumerate(lines):
        if line.startswith("## "):
            section = line[3:].strip()
            continue
        match = TASK.match(line)
        if not match:
            continue
        body = match.group("body")
        found_id = ID.search(body)
        body = ID.sub("", body)
        due = DUE.search(body)
        body = DUE.sub("", body)
        priority = PRIORITY.search(body)
        body = PRIORITY.sub("", body)
        tasks.append(Task(line=number, id=int(found_id.group(1)) if found_id else None, text=body.strip(),
                          done=match.group("mark") != " ", due=due.group(1) if due else None,
                          priority=priority.group(1) if priority else "normal", section=section))
    next_id = max((t.id for t in tasks if t.id is not None), default=0) + 1
    for task in tasks:
        if task.id is None:
            task.id, next_id = next_id, next_id + 1
    return tasks


def _load(file: str) -> tuple[Any, list[str], list[Task]]:
    target = workspace_path(file)
    if not target.exists():
        raise ToolError(f"no task file at {file!r}; create it first with create_task_file")
    if not target.is_file():
        raise ToolError(f"{file!r} is not a file")
    lines = target.read_text(encoding="utf-8").splitlines()
    return target, lines, _parse(lines)


def _save(target: Any, lines: list[str], tasks: list[Task]) -> None:
    for task in tasks:
        lines[task.line] = task.render()
    write_text(target, "\n".join(lines) + "\n")


def _find(tasks: list[Task], task_id: int, file: str) -> Task:
    for task in tasks:
        if task.id == task_id:
            return task
    raise ToolError(f"no task with id {task_id} in {file!r}; list_tasks shows the ids")


def _date(value: str | None) -> str | None:
    if value is None or value == "":
        return None
    word = value.strip().lower()
    today = now().date()
    if word == "today":
        return today.isoformat()
    if word == "tomorrow":
        return (today + timedelta(days=1)).isoformat()
    try:
        return date.fromisoformat(value.strip()).isoformat()
    except ValueError:
        raise ToolError(f"due dates must be YYYY-MM-DD (or 'today' / 'tomorrow'), got {value!r}") from None


def _clean_text(text: str) -> str:
    cleaned = " ".join(text.split())
    if not cleaned:
        raise ToolError("task text must not be empty")
    return cleaned


@mcp.tool()
def create_task_file(
    title: Annotated[str, Field(description="Heading of the list, e.g. 'Launch checklist'")],
    file: File = DEFAULT_FILE,
    sections: Annotated[list[str] | None, Field(description="Section headings to start with")] = None,
    overwrite: Annotated[bool, Field(description="Replace an existing file (its tasks are lost)")] = False,
) -> dict[str, Any]:
    """Set up a new markdown task file with a title and optional sections."""
    target = workspace_path(file)
    if not target.name.endswith(".md"):
        raise ToolError("task files must end in .md")
    if target.exists() and not overwrite:
        raise ToolError(f"{file!r} already exists; add tasks to it or pass overwrite=true")
    lines = [f"# {title.strip()}", ""]
    for section in sections or []:
        lines += [f"## {section.strip()}", ""]
    write_text(target, "\n".join(lines).rstrip("\n") + "\n")
    return {"file": relative(target), "title": title.strip(), "sections": [s.strip() for s in sections or []]}


@mcp.tool()
def add_task(
    text: Annotated[str, Field(description="What needs doing")],
    file: File = DEFAULT_FILE,
    section: Annotated[str | None, Field(description="Section heading; created if missing")] = None,
    due: Annotated[str | None, Field(description="YYYY-MM-DD, 'today' or 'tomorrow'")] = None,
    priority: Priority = "normal",
) -> dict[str, Any]:
    """Add an open task to a task file and return it with its id."""
    target, lines, tasks = _load(file)
    task = Task(line=-1, id=max((t.id or 0 for t in tasks), default=0) + 1, text=_clean_text(text),
                done=False, due=_date(due), priority=priority, section=section.strip() if section else None)
    for existing in tasks:
        lines[existing.line] = existing.render()
    if task.section:
        heading = next((i for i, line in enumerate(lines) if line.strip() == f"## {task.section}"), None)
        if heading is None:
            while lines and lines[-1] == "":
                lines.pop()
            lines += ["", f"## {task.section}", task.render()]
        else:
            end = heading + 1
            while end < len(lines) and not lines[end].startswith("#"):
                end += 1
            while end > heading + 1 and lines[end - 1] == "":
                end -= 1
            lines.insert(end, task.render())
    else:
        first_section = next((i for i, line in enumerate(lines) if line.startswith("## ")), len(lines))
        end = first_section
        while end > 0 and lines[end - 1] == "":
            end -= 1
        if end > 0 and lines[end - 1].startswith("# "):
            lines.insert(end, "")
            end += 1
        lines.insert(end, task.render())
    write_text(target, "\n".join(lines).rstrip("\n") + "\n")
    return {"file": relative(target), "added": task.public()}


@mcp.tool()
def list_tasks(
    file: File = DEFAULT_FILE,
    status: Annotated[Literal["open", "done", "all"], Field(description="Which tasks to show")] = "open",
    section: str | None = None,
    due_before: Annotated[str | None, Field(description="Only tasks due on or before this date")] = None,
) -> dict[str, Any]:
    """List tasks in a task file, open ones by default, with ids, due dates and priorities."""
    target, _lines, tasks = _load(file)
    limit = _date(due_before)
    chosen = [t for t in tasks
              if (status == "all" or (status == "done") == t.done)
              and (section is None or (t.section or "").lower() == section.strip().lower())
              and (limit is None or (t.due is not None and t.due <= limit))]
    return {"file": relative(target), "status": status, "count": len(chosen),
            "checklist": [t.summary() for t in chosen], "tasks": [t.public() for t in chosen]}


@mcp.tool()
def update_task(
    task_id: int,
    file: File = DEFAULT_FILE,
    text: str | None = None,
    due: Annotated[str | None, Field(description="New due date; '' clears it")] = None,
    priority: Priority | None = None,
) -> dict[str, Any]:
    """Change a task's text, due date or priority."""
    target, lines, tasks = _load(file)
    task = _find(tasks, task_id, file)
    if text is None and due is None and priority is None:
        raise ToolError("nothing to change: give text, due or priority")
    if text is not None:
        task.text = _clean_text(text)
    if due is not None:
        task.due = _date(due)
    if priority is not None:
        task.priority = priority
    _save(target, lines, tasks)
    return {"file": relative(target), "updated": task.public()}


@mcp.tool()
def complete_task(task_id: int, file: File = DEFAULT_FILE) -> dict[str, Any]:
    """Tick a task off as done."""
    target, lines, tasks = _load(file)
    task = _find(tasks, task_id, file)
    task.done = True
    _save(target, lines, tasks)
    return {"file": relative(target), "completed": task.public()}


@mcp.tool()
def reopen_task(task_id: int, file: File = DEFAULT_FILE) -> dict[str, Any]:
    """Mark a done task as open again."""
    target, lines, tasks = _load(file)
    task = _find(tasks, task_id, file)
    task.done = False
    _save(target, lines, tasks)
    return {"file": relative(target), "reopened": task.public()}


@mcp.tool()
def remove_task(task_id: int, file: File = DEFAULT_FILE) -> dict[str, Any]:
    """Delete a task line from the file entirely (it is not kept as done)."""
    target, lines, tasks = _load(file)
    task = _find(tasks, task_id, file)
    _save(target, lines, tasks)
    del lines[task.line]
    write_text(target, "\n".join(lines).rstrip("\n") + "\n")
    return {"file": relative(target), "removed": task.public()}


if __name__ == "__main__":
    serve(mcp)
