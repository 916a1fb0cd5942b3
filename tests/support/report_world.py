"""A result store made by real runs through the CLI, for report, export and API tests.

Three model x agent groups on eight bundled tasks (mixed categories and chain lengths):
- ``none / stale`` plays each task's v0 plan on v0 and on the evolved v3 (fails where v3 moved tools);
- ``scripted:reference / react`` plays the version's own plan through the ReAct loop, on v0 and v3;
- ``openai:fake-agent / react`` is a model behind a real local HTTP endpoint (tests/support/fake_openai.py)
  that plays the reference plan on two conversations in three and gives up on the third, with token counts,
  three attempts on v0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, Reply, completion

TASK_IDS = ("fin-001", "unit-001", "math-001", "mail-001", "task-001", "shop-002", "fin-007", "x-005")


def cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``mcptrials ARGS`` as a user would (a fresh process); fail loudly on an unexpected exit code."""
    full_env = {**os.environ, "COLUMNS": "120", "MCPTRIALS_FORKSERVER": os.environ.get("MCPTRIALS_FORKSERVER", "1"),
                **(env or {})}
    done = subprocess.run([sys.executable, "-m", "mcptrials.cli", *args], capture_output=True, text=True,
                          env=full_env, cwd=cwd, timeout=300)
    if check and done.returncode != 0:
        raise AssertionError(f"mcptrials {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


def _giving_up_responder(tasks: dict[str, Any]) -> Any:
    """Plays the task's reference plan, except on every third conversation of a task, where it gives up."""
    conversations: dict[str, int] = {}

    def respond(request: dict[str, Any]) -> Reply:
        messages = request["messages"]
        prompt = next(m["content"] for m in messages if m["role"] == "user")
        task = next((t for t in tasks.values() if t.prompt in str(prompt)), None)
        assistant_turns = sum(1 for m in messages if m["role"] == "assistant")
        tokens = {"prompt_tokens": 120 * len(messages), "completion_tokens": 25}
        if task is None:
            return completion("I cannot tell which task this is.", **tokens)
        if assistant_turns == 0:
            conversations[task.id] = conversations.get(task.id, 0) + 1
        if conversations[task.id] % 3 == 0:
            return completion("Sorry, I could not do that.", **tokens)
        if assistant_turns < len(task.reference):
            step = task.reference[assistant_turns]
            return completion(tool_calls=[(step.tool, step.args)], **tokens)
        return completion(task.reference_answer or "Done.", **tokens)

    return respond


def build_world(folder: Path) -> Path:
    """Make ``folder/results.db`` with the three groups above; return its path."""
    from mcptrials.bundled.world import bundled_tasks

    db = folder / "results.db"
    picks = [arg for task_id in TASK_IDS for arg in ("--task", task_id)]
    cli("run", "--agent", "stale", "--stages", "v0,v3", "--attempts", "2", "--db", str(db), *picks)
    cli("run", "--model", "scripted:reference", "--stages", "v0,v3", "--attempts", "2", "--db", str(db), *picks)
    tasks = {t.id: t for t in bundled_tasks() if t.id in TASK_IDS}
    with FakeOpenAI(responder=_giving_up_responder(tasks)) as fake:
        cli("run", "--model", "openai:fake-agent", "--base-url", fake.base_url, "--attempts", "3",
            "--concurrency", "1", "--db", str(db), *picks, env={"OPENAI_API_KEY": "test-key"})
    return db


def report_json(db: Path) -> dict[str, Any]:
    """``mcptrials report --format json`` of the store, parsed."""
    return dict(json.loads(cli("report", "--db", str(db), "--format", "json").stdout))


_BUILT: list[Path] = []


def shared_world(make_dir: Any) -> Path:
    """The store built once per test process (``make_dir()`` gives a fresh folder the first time)."""
    if not _BUILT:
        _BUILT.append(build_world(Path(make_dir())))
    return _BUILT[0]
