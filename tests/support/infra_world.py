"""A small world with a server that never starts: the two example servers, ``broken`` (exits at start and says
why on stderr), the three example tasks, one task on ``broken`` and, when asked, one whose reference fails."""

from __future__ import annotations

import json
import sys
from pathlib import Path

EXAMPLES = Path(__file__).parents[2] / "src" / "mcptrials" / "examples"
FAULTY = Path(__file__).parent / "faulty_server.py"


def infra_world(folder: Path, failing: bool = False) -> tuple[Path, Path]:
    """Write ``servers.json`` and ``tasks.jsonl`` into ``folder``; return their paths."""
    servers = folder / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {
        "rail": {"command": sys.executable, "args": ["-m", "mcptrials.examples.trains_server"]},
        "notes": {"command": sys.executable, "args": ["-m", "mcptrials.examples.notes_server"],
                  "dynamism": "stateful_write"},
        "broken": {"command": sys.executable, "args": [str(FAULTY)], "env": {"FAULTY_FAIL_START": "1"}},
    }}))
    tasks = [json.loads(line) for line in (EXAMPLES / "tasks.jsonl").read_text().splitlines() if line.strip()]
    tasks.append({"id": "needs-broken", "prompt": "Echo hi.", "servers": ["broken"],
                  "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": ["broken__echo"]}]},
                  "reference": [{"tool": "broken__echo", "args": {"text": "hi"}}]})
    if failing:  # the reference writes the wrong note: a failed episode, with a failure code
        tasks.append({"id": "wrong-note", "prompt": "Write G7 into trip.md.", "servers": ["notes"],
                      "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": ["notes__write_file"],
                                                "must_match": {"content": {"contains_all": ["G7"]}}}]},
                      "reference": [{"tool": "notes__write_file", "args": {"path": "trip.md", "content": "G1"}}]})
    path = folder / "tasks.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    return servers, path
