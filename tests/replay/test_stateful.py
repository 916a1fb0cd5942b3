"""Replay of a stateful server: a read after a write is answered from the right point of the right history."""

from __future__ import annotations

from pathlib import Path

import anyio

from mcptrials.agents.reference import ReferenceAgent
from mcptrials.bundled.world import bundled_servers
from mcptrials.model import PlannedCall, Task
from mcptrials.replay.recording import load_recording
from mcptrials.replay.serve import Replay
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store

READ = PlannedCall(tool="files__read_file", args={"path": "notes.txt"})
WRITE = PlannedCall(tool="files__write_file", args={"path": "notes.txt", "content": "after"})


def _task(task_id: str, steps: list[PlannedCall]) -> Task:
    return Task.model_validate({
        "id": task_id, "prompt": "Replace the note.", "servers": ["files"],
        "fixtures": {"files": {"notes.txt": "before"}},
        "spec": {"checkpoints": [{"id": "v", "kind": "value_produced", "source": "tool_result",
                                  "contains": ["after"]}]},
        "reference": [s.model_dump() for s in steps], "reference_answer": "done"})


def _run(specs: dict, tasks: list[Task], db: Path, replay: Replay | None = None) -> dict[str, object]:
    store = Store(db)
    anyio.run(execute, RunPlan(servers=specs, tasks=tasks, agent=ReferenceAgent(), model=None, replay=replay), store)
    return {e.task_id: e for e in store.episodes()}


def test_read_write_read_replays_in_order_and_never_from_the_wrong_state(tmp_path: Path) -> None:
    # declared static on purpose: the replay must see from the recording itself that answers depend on history
    specs = {"files": bundled_servers()["files"].model_copy(update={"dynamism": "static"})}
    recorded = _run(specs, [_task("rw", [READ, WRITE, READ]), _task("other", [WRITE, READ])], tmp_path / "rec.db")
    first, _, last = recorded["rw"].tool_calls  # type: ignore[attr-defined]
    assert "before" in first.content and "after" in last.content
    recording, _ = load_recording(str(tmp_path / "rec.db"), str(tmp_path / "rec.db"))
    assert recording.stateful("files")

    same = _run(specs, [_task("rw", [READ, WRITE, READ])], tmp_path / "same.db", Replay(recording))
    assert [c.content for c in same["rw"].tool_calls] == [c.content for c in recorded["rw"].tool_calls]  # type: ignore

    # the write skipped: the second read must not get the post-write answer (from this or another episode)
    skipped = _run(specs, [_task("rw", [READ, READ])], tmp_path / "skip.db", Replay(recording))
    read1, read2 = skipped["rw"].tool_calls  # type: ignore[attr-defined]
    assert "before" in read1.content and read1.replay == "exact"
    assert read2.error_kind == "replay_miss" and "after" not in read2.content

    # on a miss, live mode catches the real server up (re-issues the replayed write) and stays live
    read_lines = PlannedCall(tool="files__read_file", args={"path": "notes.txt", "start_line": 1})
    live = _run({"files": bundled_servers()["files"]}, [_task("rw", [READ, WRITE, read_lines, READ])],
                tmp_path / "live.db", Replay(recording, "live"))
    calls = live["rw"].tool_calls  # type: ignore[attr-defined]
    assert [c.replay for c in calls] == ["exact", "exact", "live", "live"]
    assert not any(c.is_error for c in calls)
    assert "after" in calls[2].content and "before" not in calls[2].content  # the replayed write reached it


def test_answers_that_differ_across_attempts_make_a_server_stateful(tmp_path: Path) -> None:
    """Attempt 0 only read; attempt 1 wrote then read: the same read answered two ways across attempts."""
    specs = {"files": bundled_servers()["files"].model_copy(update={"dynamism": "static"})}
    store = Store(tmp_path / "rec.db")
    for attempts, steps in ((1, [READ]), (2, [WRITE, READ])):  # same task id and key: attempt 0 is kept
        plan = RunPlan(servers=specs, tasks=[_task("rw", steps)], agent=ReferenceAgent(), model=None,
                       attempts=attempts)
        anyio.run(execute, plan, store)
    recording, _ = load_recording(str(tmp_path / "rec.db"), str(tmp_path / "rec.db"))
    assert recording.stateful("files")
    # replaying attempt 0 with a write no recorded world made: the write did not happen, and the read
    # gets attempt 0's answer, not attempt 1's post-write one
    other_write = WRITE.model_copy(update={"args": {"path": "notes.txt", "content": "elsewhere"}})
    replayed = _run(specs, [_task("rw", [other_write, READ])], tmp_path / "out.db", Replay(recording))
    write, read = replayed["rw"].tool_calls  # type: ignore[attr-defined]
    assert write.error_kind == "replay_miss"
    assert read.replay == "exact" and "before" in read.content and "after" not in read.content
    # the write attempt 1 made, then the read: that recorded world answers both (same fixtures, same calls)
    replayed = _run(specs, [_task("rw", [WRITE, READ])], tmp_path / "out2.db", Replay(recording))
    write, read = replayed["rw"].tool_calls  # type: ignore[attr-defined]
    assert write.replay == read.replay == "exact" and "after" in read.content
