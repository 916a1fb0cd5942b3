"""The bundled offline world: its servers (one module each) and its task suite.

Server metadata (``DYNAMISM``, ``CATEGORY``, ``DESCRIPTION``) is read from each module's source
with ``ast``, so listing the world imports no server code.
"""

from __future__ import annotations

import ast
import sys
from functools import cache
from pathlib import Path

from mcptrials.model import ServerSpec, Task

SERVERS_DIR = Path(__file__).parent / "servers"
TASKS_DIR = Path(__file__).parent / "tasks"
LINEAGES_DIR = Path(__file__).parent / "lineages"
_META = {"DYNAMISM": "dynamism", "CATEGORY": "category", "DESCRIPTION": "description"}


def _module_constants(path: Path) -> dict[str, str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name in _META and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                found[_META[name]] = node.value.value
    return found


@cache
def bundled_servers() -> dict[str, ServerSpec]:
    """Every bundled server as a stdio ``ServerSpec`` run by this interpreter."""
    specs: dict[str, ServerSpec] = {}
    for path in sorted(SERVERS_DIR.glob("*.py")):
        if path.name.startswith("_"):
            continue
        meta = _module_constants(path)
        if "dynamism" not in meta:
            continue  # a helper module, not a server
        name = path.stem
        specs[name] = ServerSpec(
            name=name, command=sys.executable, args=["-m", f"mcptrials.bundled.servers.{name}"],
            category=meta.get("category"), dynamism=meta["dynamism"],  # type: ignore[arg-type]
            source_path=str(path), tags=["bundled"],
        )
    return specs


def bundled_task_files() -> list[Path]:
    """The bundled suite's task files, in a stable order."""
    return sorted(TASKS_DIR.glob("*.jsonl"))


def smoke_tasks(tasks: list[Task], n: int = 5) -> list[Task]:
    """A small, varied set for a first run: short tasks of different categories, in id order."""
    chosen: list[Task] = []
    seen: set[str] = set()
    for task in sorted((t for t in tasks if t.chain_length == "short"), key=lambda t: t.id):
        if task.category not in seen:
            chosen.append(task)
            seen.add(task.category)
        if len(chosen) == n:
            break
    return chosen


QUICK_TASKS = ("unit-001", "unit-005", "unit-006")
"""The quick start's tasks (``mcptrials run`` with no options): one-step questions to a server with four tools.

One server keeps the prompt short and lets the embedded model reuse its cached prompt (system
text and tool list) from one task to the next, which is most of the time on a small CPU."""


def quick_tasks(tasks: list[Task], n: int = len(QUICK_TASKS)) -> list[Task]:
    """The quick start's set: ``QUICK_TASKS`` when present, else short single-server tasks, shortest first."""
    by_id = {t.id: t for t in tasks}
    chosen = [by_id[i] for i in QUICK_TASKS if i in by_id][:n]
    if len(chosen) < n:
        spare = sorted((t for t in tasks if t.chain_length == "short" and len(t.servers) == 1
                        and len(t.reference) <= 1 and t not in chosen), key=lambda t: (len(t.prompt), t.id))
        chosen += spare[:n - len(chosen)]
    return chosen


def bundled_tasks() -> list[Task]:
    """The whole bundled task suite: each file's specs are the ones that run."""
    from mcptrials.tasks.loader import load_tasks

    files = bundled_task_files()
    return load_tasks(*files) if files else []
