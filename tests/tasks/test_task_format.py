"""The task format's additions on real servers through the CLI: binary fixtures copied from a folder, absolute
paths mapped into the sandbox, regex value checks and nested argument predicates; and their load errors."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcptrials.model import Episode, Task, ToolCallRecord
from mcptrials.scoring.effects import score_effects
from mcptrials.tasks.loader import TaskFileError, load_tasks, task_json_schema

DOSSIER = Path(__file__).parents[1] / "support" / "dossier_server.py"
BLOB = b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x80 not text\n\xc3\x28 end"
"""Bytes no UTF-8 decoder accepts (0xff, a lone 0x80, an invalid 0xc3 0x28 pair), with CR and LF bytes."""


def mcptrials(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcptrials.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "COLUMNS": "200"}, timeout=300)


def task(task_id: str, reference: list[dict[str, Any]], checkpoints: list[dict[str, Any]],
         answer: str = "Done.") -> dict[str, Any]:
    return {"id": task_id, "prompt": "Look at /root/data/blob.bin and tag Alice and Bob.",
            "servers": ["files", "dossier"],
            "fixtures": {"copy": {"data": "inputs", "extra/copy.bin": "inputs/blob.bin"},
                         "path_map": {"/root/data/": "data"}},
            "spec": {"grounding": False, "checkpoints": checkpoints}, "reference": reference,
            "reference_answer": answer}


READ = [{"tool": "files__get_file_info", "args": {"path": "data/blob.bin"}},
        {"tool": "files__get_file_info", "args": {"path": "extra/copy.bin"}},
        {"tool": "dossier__file_digest", "args": {"path": "/root/data/blob.bin"}}]
TAG_BOTH = {"tool": "dossier__tag_entities", "args": {"entities": [{"name": "Bob"}, {"name": "Alice"}],
                                                      "source": {"kind": "memo"}}}
TAG_BOB = {"tool": "dossier__tag_entities", "args": {"entities": [{"name": "Bob"}]}}
DIGEST = hashlib.sha256(BLOB).hexdigest()
SIZE_AND_DIGEST = {"id": "digest", "kind": "value_produced", "source": "tool_result",
                   "tools": ["dossier__file_digest"],
                   "regex": [rf'"size":\s*{len(BLOB)}\b', rf'"sha256":\s*"{DIGEST}"', r'"utf8":\s*false']}
ALICE = {"id": "alice", "kind": "tool_effect", "tools": ["dossier__tag_entities"],
         "must_match": {"entities[].name": {"equals": "Alice"}}, "must_include": {"source.kind": "memo"}}


@pytest.fixture
def world(tmp_path: Path) -> Path:
    """A servers config (the bundled files server and the dossier server) and a task folder with a binary input."""
    (tmp_path / "tasks" / "inputs").mkdir(parents=True)
    (tmp_path / "tasks" / "inputs" / "blob.bin").write_bytes(BLOB)
    (tmp_path / "servers.json").write_text(json.dumps({"mcpServers": {
        "files": {"command": sys.executable, "args": ["-m", "mcptrials.bundled.servers.files"]},
        "dossier": {"command": sys.executable, "args": [str(DOSSIER)]}}}))
    return tmp_path


def test_binary_fixtures_regex_and_nested_predicates_on_real_servers(world: Path) -> None:
    tasks = [
        task("all-good", [*READ, TAG_BOTH], [SIZE_AND_DIGEST, ALICE]),
        task("no-alice", [*READ, TAG_BOB], [SIZE_AND_DIGEST, ALICE]),
        task("wrong-size", [*READ, TAG_BOTH], [{**SIZE_AND_DIGEST, "regex": [r'"size":\s*3\b']}, ALICE]),
        task("answer-pattern", [*READ, TAG_BOTH],
             [{"id": "ref", "kind": "value_produced", "source": "final_message", "regex": [r"\bREF-\d{4}\b"],
               "case": "sensitive"}], answer="Filed as ref-2026."),
    ]
    (world / "tasks" / "suite.json").write_text(json.dumps({"tasks": tasks}))
    checked = mcptrials("tasks", "check", "--servers", "servers.json", "--tasks", "tasks/suite.json",
                        "--task", "all-good", cwd=world)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    done = mcptrials("run", "--servers", "servers.json", "--tasks", "tasks/suite.json", "--agent", "reference",
                     "--db", "r.db", cwd=world)
    assert done.returncode == 0, done.stderr
    report = mcptrials("report", "--db", "r.db", "--format", "json", cwd=world)
    rows = {r["task_id"]: r for r in json.loads(report.stdout)["episodes"]}
    assert rows["all-good"]["outcome"] == "passed", rows["all-good"]
    assert rows["no-alice"]["checkpoints"] == {"digest": True, "alice": False}
    assert rows["no-alice"]["failure_codes"] == ["wrong_arguments"]
    assert rows["wrong-size"]["checkpoints"] == {"digest": False, "alice": True}
    assert rows["answer-pattern"]["checkpoints"] == {"ref": False}  # case-sensitive: ref-2026 is no REF-dddd

    from mcptrials.store.db import Store

    episode = next(e for e in Store(world / "r.db").episodes() if e.task_id == "all-good")
    info, copied, digest = (c for c in episode.tool_calls if c.tool in {"get_file_info", "file_digest"})
    for call in (info, copied):  # the bytes copied from the folder and the single file, read by the bundled server
        assert not call.is_error and json.loads(call.content)["size"] == len(BLOB), call.content
        assert json.loads(call.content)["lines"] == BLOB.count(b"\n") + 1
    assert digest.arguments == {"path": "/root/data/blob.bin"}  # recorded as the agent gave it ...
    seen = json.loads(digest.content)  # ... and read by the server at the sandbox's real path
    assert seen["sha256"] == DIGEST and seen["utf8"] is False and seen["path"].endswith("/sandbox/data/blob.bin")


def test_a_missing_copy_source_is_one_line_naming_the_task(world: Path) -> None:
    broken = task("lost", READ, [SIZE_AND_DIGEST])
    broken["fixtures"]["copy"] = {"data/blob.bin": "inputs/nowhere.bin"}
    (world / "tasks" / "lost.json").write_text(json.dumps(broken))
    done = mcptrials("tasks", "check", "--servers", "servers.json", "--tasks", "tasks/lost.json", cwd=world)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "task 'lost': fixtures.copy 'data/blob.bin':" in lines[0] and "nowhere.bin does not exist" in lines[0]


@pytest.mark.parametrize(("change", "message"), [
    ({"spec": {"checkpoints": [{"id": "v", "kind": "value_produced", "regex": ["(unclosed"]}]}},
     "spec.checkpoints.0.value_produced.regex: invalid regex '(unclosed'"),
    ({"spec": {"checkpoints": [{"id": "e", "kind": "tool_effect", "tools": ["files__read_file"],
                                "must_match": {"entities[x].name": {"equals": "A"}}}]}},
     "argument path 'entities[x].name' cannot be read"),
    ({"fixtures": {"path_map": {"root/data": "data"}}}, "must be an absolute path prefix"),
    ({"fixtures": {"copy": {"../out": "inputs"}}}, "contains '..'"),
    ({"spec": {"checkpoints": []}}, "spec.checkpoints of task 'bad' is empty"),
    ({"spec": {"checkpoints": [], "judges": ["oracle"]}}, "spec.judges.0: Input should be 'keypoints' or 'rubric'"),
])
def test_bad_additions_are_load_errors_naming_the_task(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    record = {"id": "bad", "prompt": "p", "servers": ["files"],
              "spec": {"checkpoints": [{"id": "v", "kind": "value_produced", "contains": ["x"]}]}, **change}
    (tmp_path / "t.json").write_text(json.dumps(record))
    with pytest.raises(TaskFileError) as caught:
        load_tasks(tmp_path / "t.json")
    assert "task 'bad'" in str(caught.value) and message in str(caught.value), str(caught.value)


def test_the_schema_publishes_the_additions() -> None:
    defs = task_json_schema()["$defs"]
    assert set(defs["Fixtures"]["properties"]) == {"files", "copy", "path_map"}
    assert defs["TaskSpec"]["properties"]["judges"]["items"]["enum"] == ["keypoints", "rubric"]
    assert "checkpoints" not in defs["TaskSpec"].get("required", [])
    assert "regex" in defs["ValueCheckpoint"]["properties"] and "regex" in defs["StateCheckpoint"]["properties"]


def _call(args: dict[str, Any]) -> Episode:
    return Episode(id="e", run_id="r", task_id="t", agent="a", model="m", attempt=0, config_hash="h", steps=[
        ToolCallRecord(index=0, call_id="0", turn=0, name="dossier__tag_entities", server="dossier",
                       tool="tag_entities", arguments=args, content="ok")])


@pytest.mark.parametrize(("predicates", "args", "passed"), [
    ({"must_include": {"entities[0].name": "Bob"}}, {"entities": [{"name": "Bob"}, {"name": "Al"}]}, True),
    ({"must_include": {"entities[1].name": "Bob"}}, {"entities": [{"name": "Bob"}, {"name": "Al"}]}, False),
    ({"must_match": {"entities[].role": {"one_of": ["org"]}}}, {"entities": [{"name": "X", "role": "org"}]}, True),
    ({"must_match": {"entities[].name": {"absent": ["Eve"]}}}, {"entities": [{"name": "Bob"}, {"name": "Eve"}]},
     False),  # ``absent`` holds only when no element states it
    ({"must_match": {"meta.tags[].v": {"regex": "^x"}}}, {"meta": {"tags": [{"v": "ab"}, {"v": "xy"}]}}, True),
    ({"must_include": {"meta.files[].path": "./a/b.txt"}}, {"meta": {"files": [{"path": "a/b.txt"}]}}, True),
    ({"must_include": {"entities[].name": "Bob"}}, {"entities": "Bob"}, False),  # not a list: nothing reached
])
def test_nested_predicates(predicates: dict[str, Any], args: dict[str, Any], passed: bool) -> None:
    spec = Task.model_validate({"id": "t", "prompt": "p", "servers": ["dossier"], "spec": {"grounding": False,
        "checkpoints": [{"id": "c", "kind": "tool_effect", "tools": ["dossier__tag_entities"], **predicates}]}})
    assert score_effects(spec, _call(args)).passed is passed
