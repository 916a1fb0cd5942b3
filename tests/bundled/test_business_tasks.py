"""The business/productivity task suite: valid, well covered, solvable, and discriminating."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache

from mcptrials.bundled.world import TASKS_DIR
from mcptrials.model import Task, split_qualified
from mcptrials.tasks.loader import load_tasks

TASK_FILE = TASKS_DIR / "business_productivity.jsonl"
CATEGORIES = {"random", "hard-negative", "cross-domain", "same-name", "sibling", "stratified", "long-similar-chain",
              "homonym-trap", "decoy", "prerequisite-strict", "recovery-required", "destructive-adjacent",
              "ambiguous-intent", "cross-server-alternative", "complementary"}
MY_SERVERS = {"finance", "shopdb", "mathstats", "units", "scicomp", "files", "mdtasks", "mail", "calendar", "memory",
              "web"}
STATE_SERVERS = {"files", "mdtasks", "mail", "calendar", "shopdb"}
READ_ONLY_TOOLS = {"list_tasks", "list_inbox", "read_message", "search", "list_contacts", "list_events", "get_event",
                   "search_events", "find_free_slots", "read_query", "list_tables", "describe_table",
                   "list_directory", "read_file", "search_files", "search_text", "get_file_info"}


@cache
def tasks() -> list[Task]:
    return [Task.model_validate(json.loads(line)) for line in TASK_FILE.read_text().splitlines() if line.strip()]


def test_every_line_is_a_valid_task_and_loads() -> None:
    raw = [json.loads(line) for line in TASK_FILE.read_text().splitlines()]
    assert len(raw) == len(tasks()) >= 75
    assert len({t.id for t in tasks()}) == len(tasks())
    assert [t.id for t in load_tasks(TASK_FILE)] == [t.id for t in tasks()]
    for task in tasks():
        assert task.now is not None and task.now.utcoffset() is not None
        assert task.concrete_prompt and task.key_points and task.reference
        assert set(task.servers) <= MY_SERVERS


def test_coverage_of_categories_lengths_servers_and_state() -> None:
    by_category = Counter(t.category for t in tasks())
    assert set(by_category) == CATEGORIES
    assert min(by_category.values()) >= 3, by_category
    by_length = Counter(t.chain_length for t in tasks())
    assert min(by_length[s] for s in ("short", "medium", "long")) >= 18, by_length
    cross = [t for t in tasks() if len({split_qualified(s.tool)[0] for s in t.reference}) >= 2]
    assert len(cross) >= 20
    stateful = [t for t in tasks()
                if any(split_qualified(s.tool)[0] in STATE_SERVERS and split_qualified(s.tool)[1] not in READ_ONLY_TOOLS
                       for s in t.reference)]
    assert len(stateful) >= 20
    destructive = [t for t in tasks() if t.category == "destructive-adjacent"]
    assert all(t.spec.minefields for t in destructive)
