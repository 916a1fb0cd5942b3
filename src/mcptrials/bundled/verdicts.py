"""The hand-written verdict layer of the bundled suite: reference answers and spec fixes per task.

The builders derive each task's plan and value checkpoints from real tool results; what a
careful reviewer adds on top — the reference answer, answer and state checks, wider
equivalence sets, fixed references — lives in ``tasks/verdicts/*.yaml``, one mapping from
task id to changes per group. Applying an overlay is idempotent, so it can be applied to a
task that already carries it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

VERDICTS_DIR = Path(__file__).parent / "tasks" / "verdicts"
_REPLACED = ("minefields", "partial_order")
_TOP = ("reference", "reference_answer", "prompt", "concrete_prompt", "key_points", "servers")
_KEYS = {"checkpoints", "remove", *_REPLACED, *_TOP}


class VerdictError(ValueError):
    """An overlay that cannot be applied; the message names the file and task."""


@cache
def overlays(folder: Path = VERDICTS_DIR) -> dict[str, dict[str, Any]]:
    """Every overlay by task id, from every YAML file of ``folder``."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(data, dict):
            raise VerdictError(f"{path}: expected a mapping from task id to changes")
        for task_id, changes in data.items():
            if not isinstance(changes, dict) or set(changes) - _KEYS:
                extra = sorted(set(changes) - _KEYS) if isinstance(changes, dict) else changes
                raise VerdictError(f"{path}: task {task_id!r}: unknown keys {extra} (known: {sorted(_KEYS)})")
            if task_id in found:
                raise VerdictError(f"{path}: task {task_id!r} already has an overlay in another file")
            found[str(task_id)] = changes
    return found


def apply_overlay(record: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """A task record with one overlay applied (a new dict; the input is left as it was)."""
    out = {**record, "spec": dict(record["spec"])}
    for key in _TOP:
        if key in changes:
            out[key] = changes[key]
    spec = out["spec"]
    removed = set(changes.get("remove", []))
    checkpoints = [c for c in spec["checkpoints"] if c["id"] not in removed]
    for new in changes.get("checkpoints", []):
        at = next((i for i, c in enumerate(checkpoints) if c["id"] == new["id"]), None)
        if at is None:
            checkpoints.append(new)
        else:
            checkpoints[at] = new
    spec["checkpoints"] = checkpoints
    for key in _REPLACED:
        if key in changes:
            spec[key] = changes[key]
    spec["partial_order"] = [pair for pair in spec.get("partial_order", []) if not set(pair) & removed]
    return out
