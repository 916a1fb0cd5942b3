"""Replay and refresh on cases their author did not write: third-party servers, model agents, odd recordings."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from fake_openai import FakeOpenAI, Reply, completion
from typer.testing import CliRunner

from mcptrials.agents.react import ReactAgent
from mcptrials.agents.reference import ReferenceAgent
from mcptrials.bundled.world import bundled_servers
from mcptrials.cli import app
from mcptrials.model import Episode, ServerSpec, Task
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.replay.recording import load_recording
from mcptrials.replay.serve import Replay
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store

HERE = Path(__file__).parent
SECRETS = ("sk-env-secret-7731", "hdr-secret-5519", "url-token-0042", "flag-secret-8810")


def _task(task_id: str, server: str, steps: list[tuple[str, dict[str, Any]]], **extra: Any) -> dict[str, Any]:
    spec = extra.pop("spec", {"checkpoints": [{"id": "used", "kind": "tool_effect", "tools": [steps[0][0]]}]})
    return {"id": task_id, "prompt": "Do it.", "servers": [server], "spec": spec,
            "reference": [{"tool": t, "args": a} for t, a in steps], "reference_answer": "done", **extra}


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _cli(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def _by_key(db: Path) -> dict[tuple[str, int], Episode]:
    return {(e.task_id, e.attempt): e for e in Store(db).episodes()}


def _same_world(recorded: Path, replayed: Path) -> None:
    """Every replayed episode got the recorded results byte for byte, and the same verdicts."""
    before, after = _by_key(recorded), _by_key(replayed)
    assert set(before) == set(after)
    old_scores, new_scores = Store(recorded).scores(), Store(replayed).scores()
    for key, old in before.items():
        new = after[key]
        assert [(c.content, c.structured_content, c.is_error, c.error_kind, c.truncated) for c in new.tool_calls] \
            == [(c.content, c.structured_content, c.is_error, c.error_kind, c.truncated) for c in old.tool_calls]
        assert all(c.replay == "exact" for c in new.tool_calls), key
        assert (new.infra_error is None) == (old.infra_error is None) and new.termination == old.termination
        assert new.state == old.state
        assert new_scores[new.id]["effects"].passed == old_scores[old.id]["effects"].passed


def _no_secret_in(*dbs: Path) -> None:
    for db in dbs:
        raw = db.read_bytes() + (db.with_name(db.name + "-wal").read_bytes()
                                 if db.with_name(db.name + "-wal").exists() else b"")
        for secret in SECRETS:
            assert secret.encode() not in raw, (db, secret)


# --------------------------------------------------------------------------- third-party servers


@pytest.mark.skipif(importlib.util.find_spec("mcp_server_git") is None, reason="mcp-server-git is a dev dependency")
def test_git_server_replays_without_its_binary_and_keeps_no_secret(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.txt").write_text("hi\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    (repo / "b.txt").write_text("new\n")
    servers = tmp_path / "servers.json"  # secrets in every place a config can hold one
    servers.write_text(json.dumps({"mcpServers": {
        "git": {"command": sys.executable, "args": ["-m", "mcp_server_git", "--repository", str(repo)],
                "env": {"GIT_API_KEY": SECRETS[0], "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}},
        "remote": {"url": f"https://bot:{SECRETS[2]}@mcp.example.com/mcp?token={SECRETS[2]}",
                   "headers": {"Authorization": f"Bearer {SECRETS[1]}"}},
        "other": {"command": "other-mcp", "args": ["--api-key", SECRETS[3], f"--token={SECRETS[3]}"]}}}))
    status = ("git__git_status", {"repo_path": str(repo)})
    tasks = _write(tmp_path / "tasks.jsonl", [_task("commit", "git", [
        status, ("git__git_add", {"repo_path": str(repo), "files": ["b.txt"]}),
        ("git__git_commit", {"repo_path": str(repo), "message": "add b"}),
        ("git__git_log", {"repo_path": str(repo), "max_count": 1})])])
    _cli("run", "--servers", str(servers), "--tasks", str(tasks), "--agent", "reference", "--db",
         str(tmp_path / "rec.db"))
    shutil.rmtree(repo)  # the world is gone too, not only the server binary
    _cli("run", "--replay", str(tmp_path / "rec.db"), "--agent", "reference", "--db", str(tmp_path / "replay.db"))
    _same_world(tmp_path / "rec.db", tmp_path / "replay.db")
    (recorded,) = Store(tmp_path / "rec.db").episodes()
    assert "hash" in recorded.tool_calls[2].content and "add b" in recorded.tool_calls[3].content
    assert recorded.servers["git"].name == "mcp-git"

    # the commit skipped: the log must not get the post-commit answer. No call was recorded twice, so
    # only the server's own annotations (git_commit is not read-only) say that its answers depend on order
    skipped = _write(tmp_path / "skipped.jsonl", [_task("commit", "git", [
        status, ("git__git_log", {"repo_path": str(repo), "max_count": 1})])])
    _cli("run", "--replay", str(tmp_path / "rec.db"), "--tasks", str(skipped), "--agent", "reference",
         "--db", str(tmp_path / "skipped.db"))
    (episode,) = Store(tmp_path / "skipped.db").episodes()
    first, second = episode.tool_calls
    assert first.replay == "exact" and second.error_kind == "replay_miss" and "add b" not in second.content

    # reads repeated (the server marks git_status and git_log read-only) get their answer again, but
    # never across a write: the status after git_add is not the one before it
    log = ("git__git_log", {"repo_path": str(repo), "max_count": 1})
    add, commit = ("git__git_add", {"repo_path": str(repo), "files": ["b.txt"]}), \
        ("git__git_commit", {"repo_path": str(repo), "message": "add b"})
    again = _write(tmp_path / "again.jsonl", [_task("commit", "git", [status, status, add, status, commit,
                                                                      log, log])])
    _cli("run", "--replay", str(tmp_path / "rec.db"), "--tasks", str(again), "--agent", "reference",
         "--db", str(tmp_path / "again.db"))
    (episode,) = Store(tmp_path / "again.db").episodes()
    assert [c.replay for c in episode.tool_calls] == ["exact", "exact", "exact", "miss", "exact", "exact", "exact"]
    assert episode.tool_calls[1].content == recorded.tool_calls[0].content
    assert episode.tool_calls[6].content == recorded.tool_calls[3].content
    _no_secret_in(tmp_path / "rec.db", tmp_path / "replay.db", tmp_path / "skipped.db")


@pytest.mark.slow
def test_npm_memory_server_replays_its_state_without_node(tmp_path: Path, npm_bin: Path) -> None:
    """A stateful third-party server from npm (installed by ``.ci/run``), replayed with Node out of reach."""
    memory = tmp_path / "memory.jsonl"
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"memory": {
        "command": str(npm_bin / "mcp-server-memory"),
        "env": {"MEMORY_FILE_PATH": str(memory), "MEMORY_API_KEY": SECRETS[0]}}}}))
    entity = {"name": "Zoë Ångström", "entityType": "person", "observations": ["lives in Malmö"]}
    read = ("memory__read_graph", {})
    tasks = _write(tmp_path / "tasks.jsonl", [_task("remember", "memory", [
        read, ("memory__create_entities", {"entities": [entity]}), read])])
    _cli("run", "--servers", str(servers), "--tasks", str(tasks), "--agent", "reference", "--db",
         str(tmp_path / "rec.db"))
    (recorded,) = Store(tmp_path / "rec.db").episodes()
    assert recorded.infra_error is None, recorded.infra_error
    assert "Malmö" in recorded.tool_calls[2].content and "Malmö" not in recorded.tool_calls[0].content
    absent = tmp_path / "absent.json"
    absent.write_text(json.dumps({"mcpServers": {"memory": {"command": str(tmp_path / "no-node")}}}))
    _cli("run", "--replay", str(tmp_path / "rec.db"), "--servers", str(absent), "--agent", "reference",
         "--db", str(tmp_path / "replay.db"))
    _same_world(tmp_path / "rec.db", tmp_path / "replay.db")
    _no_secret_in(tmp_path / "rec.db", tmp_path / "replay.db")


# --------------------------------------------------------------------------- model agents over real HTTP

FILES_TASK = Task.model_validate({
    "id": "notes", "prompt": "Tidy the notes.", "servers": ["files"], "fixtures": {"files": {"notes.txt": "before"}},
    "spec": {"checkpoints": [{"id": "wrote", "kind": "tool_effect", "tools": ["files__write_file"]}]},
    "reference": [{"tool": "files__read_file", "args": {"path": "notes.txt"}}], "reference_answer": "done"})
READ_NOTES = ("files__read_file", {"path": "notes.txt"})
WRITE_A = ("files__write_file", {"path": "a.txt", "content": "A"})
WRITE_NOTES = ("files__write_file", {"path": "notes.txt", "content": "after"})


def _react(db: Path, turns: list[list[tuple[str, dict[str, Any]]]], replay: Replay | None = None,
           specs: dict[str, ServerSpec] | None = None) -> tuple[Episode, list[Any]]:
    """One ReAct episode on the files server whose model asks for ``turns`` of (parallel) calls, then answers."""
    specs = specs or {"files": bundled_servers()["files"]}
    with FakeOpenAI() as fake:
        fake.queue(*[completion("", calls) for calls in turns], completion("Done."))
        chat = OpenAIModel(model="fake", base_url=fake.base_url, api_key="sk-test")
        plan = RunPlan(servers=specs, tasks=[FILES_TASK], agent=ReactAgent(max_turns=8), model=chat, replay=replay)
        store = Store(db)
        anyio.run(execute, plan, store)
        requests = [r["messages"] for r in fake.requests]
    (episode,) = store.episodes(store.runs()[-1]["id"])
    return episode, requests


def _gone() -> dict[str, ServerSpec]:
    return {"files": bundled_servers()["files"].model_copy(update={"command": "/nonexistent/files", "args": []})}


def test_parallel_calls_on_a_stateful_server_replay_in_any_order(tmp_path: Path) -> None:
    turns = [[READ_NOTES, WRITE_A, WRITE_NOTES], [READ_NOTES, ("files__read_file", {"path": "a.txt"})]]
    recorded, live_requests = _react(tmp_path / "rec.db", turns)
    assert "after" in recorded.tool_calls[3].content and recorded.state
    recording, _ = load_recording(str(tmp_path / "rec.db"), str(tmp_path / "rec.db"))

    replayed, requests = _react(tmp_path / "same.db", turns, Replay(recording), _gone())
    assert requests == live_requests and [c.replay for c in replayed.tool_calls] == ["exact"] * 5
    assert replayed.state == recorded.state

    # the same parallel calls in another order: they ran concurrently, so any order is the recorded world
    shuffled = [[WRITE_NOTES, READ_NOTES, WRITE_A], turns[1]]
    replayed, _ = _react(tmp_path / "shuffled.db", shuffled, Replay(recording), _gone())
    by_call = {(c.name, json.dumps(c.arguments, sort_keys=True), c.turn): c.content for c in recorded.tool_calls}
    assert [c.replay for c in replayed.tool_calls] == ["exact"] * 5
    assert all(by_call[(c.name, json.dumps(c.arguments, sort_keys=True), c.turn)] == c.content
               for c in replayed.tool_calls)
    assert replayed.state == recorded.state

    # a read of the second turn sent before the first turn's write: what it would see is unknown, a miss
    early = [[("files__read_file", {"path": "a.txt"}), READ_NOTES, WRITE_A, WRITE_NOTES], [READ_NOTES]]
    replayed, _ = _react(tmp_path / "early.db", early, Replay(recording), _gone())
    assert [c.replay for c in replayed.tool_calls] == ["miss", "exact", "exact", "exact", "exact"]
    assert replayed.state != recorded.state


def test_the_same_read_before_and_after_a_write_gets_each_answer_once(tmp_path: Path) -> None:
    turns = [[READ_NOTES], [WRITE_NOTES], [READ_NOTES]]
    recorded, live_requests = _react(tmp_path / "rec.db", turns)
    assert "before" in recorded.tool_calls[0].content and "after" in recorded.tool_calls[2].content
    recording, _ = load_recording(str(tmp_path / "rec.db"), str(tmp_path / "rec.db"))
    replayed, requests = _react(tmp_path / "same.db", turns, Replay(recording), _gone())
    assert requests == live_requests and replayed.state == recorded.state

    reread, _ = _react(tmp_path / "reread.db", [[READ_NOTES], [READ_NOTES], [WRITE_NOTES]], Replay(recording),
                       _gone())
    first, second, write = reread.tool_calls
    assert "before" in first.content and second.error_kind == "replay_miss" and "after" not in second.content
    assert write.replay == "exact"  # back on the recorded sequence
    assert reread.state != recorded.state  # a miss on a stateful server: the recorded end state is not claimed


def test_parallel_live_misses_catch_a_stateful_server_up_once(tmp_path: Path) -> None:
    """Two calls of one turn miss together under --on-miss live: the replayed append is re-issued once, not twice."""
    append = ("files__append_file", {"path": "notes.txt", "content": "+x"})
    _react(tmp_path / "rec.db", [[append]])
    recording, _ = load_recording(str(tmp_path / "rec.db"), str(tmp_path / "rec.db"))
    both = [("files__read_file", {"path": "notes.txt", "start_line": 1}), ("files__get_file_info", {"path": "a.txt"}),
            ("files__read_file", {"path": "notes.txt", "start_line": 1, "end_line": 5})]
    replayed, _ = _react(tmp_path / "live.db", [[append], both], Replay(recording, "live"))
    calls = replayed.tool_calls
    assert [c.replay for c in calls] == ["exact", "live", "live", "live"]
    for read in (calls[1], calls[3]):
        assert json.loads(read.content)["content"].count("+x") == 1, read.content
    assert replayed.state == Store(tmp_path / "rec.db").episodes().__next__().state


# --------------------------------------------------------------------------- argument spelling vs meaning

ODD = ServerSpec(name="odd", command=sys.executable, args=[str(HERE / "odd_server.py")])
BIG_ID = 1234567890123456789


def _plan_task(task_id: str, server: str, steps: list[tuple[str, dict[str, Any]]], **extra: Any) -> Task:
    return Task.model_validate(_task(task_id, server, steps, **extra))


def _replay_one(recording: Any, specs: dict[str, ServerSpec], task: Task, db: Path) -> Episode:
    store = Store(db)
    anyio.run(execute, RunPlan(servers=specs, tasks=[task], agent=ReferenceAgent(), model=None,
                               replay=Replay(recording)), store)
    (episode,) = store.episodes()
    return episode


def test_arguments_spelled_differently_are_answered_and_other_meanings_miss(tmp_path: Path) -> None:
    files = {"files": bundled_servers()["files"]}
    notes = {"fixtures": {"files": {"notes.txt": "before", "docs/notes.txt": "other"}}}
    stats = [("odd__stats", {"item_id": 4}), ("odd__stats", {"item_id": BIG_ID})]
    store = Store(tmp_path / "rec.db")
    anyio.run(execute, RunPlan(servers={**files, "odd": ODD}, agent=ReferenceAgent(), model=None, tasks=[
        _plan_task("n", "files", [("files__read_file", {"path": "notes.txt"})], **notes),
        _plan_task("s", "odd", stats)]), store)
    recording, _ = load_recording(str(tmp_path / "rec.db"), str(tmp_path / "rec.db"))
    answers = {e.task_id: e.tool_calls[0].content for e in store.episodes()}
    gone = {"files": files["files"].model_copy(update={"command": "/nonexistent"}),
            "odd": ODD.model_copy(update={"command": "/nonexistent"})}
    same_path = ["./notes.txt", "notes.txt/", "./docs/../notes.txt", "/tmp/mcptrials-x1/sandbox/notes.txt"]
    other_path = ["Notes.txt", "docs/notes.txt", "notes.txt.bak"]
    same_stats = [{"item_id": "4"}, {"item_id": 4.0}, {"item_id": 4, "unit": "kg"}, {"unit": "kg", "item_id": "4"}]
    other_stats = [{"item_id": 5}, {"item_id": 4, "unit": "lb"}, {"item_id": BIG_ID - 1}, {"item_id": "04x"},
                   {"item_id": 4, "unit": "KG"}]
    cases = [("n", "files", "files__read_file", {"path": p}, p in same_path) for p in same_path + other_path]
    cases += [("s", "odd", "odd__stats", a, a in same_stats) for a in same_stats + other_stats]
    for i, (task_id, server, tool, args, same) in enumerate(cases):
        task = _plan_task(task_id, server, [(tool, args)], **(notes if server == "files" else {}))
        (call,) = _replay_one(recording, {server: gone[server]}, task, tmp_path / f"r{i}.db").tool_calls
        if same:
            assert call.replay == "normalised" and call.content == answers[task_id], args
        else:
            assert call.replay == "miss" and call.error_kind == "replay_miss", args
    big = _plan_task("s", "odd", [("odd__stats", {"item_id": BIG_ID})])
    (call,) = _replay_one(recording, {"odd": gone["odd"]}, big, tmp_path / "big.db").tool_calls
    assert call.replay == "exact" and str(BIG_ID) in call.content


# --------------------------------------------------------------------------- awkward recordings


def test_odd_results_replay_byte_identical_and_a_recorded_crash_stays_infra(tmp_path: Path) -> None:
    tasks = [_plan_task("odd", "odd", [("odd__greet", {"name": "Zoë"}), ("odd__big", {}),
                                       ("odd__fail", {"reason": "nein"}), ("odd__stats", {"item_id": 4})]),
             _plan_task("crash", "odd", [("odd__greet", {"name": "a"}), ("odd__crash", {}),
                                         ("odd__greet", {"name": "b"})])]
    store = Store(tmp_path / "rec.db")
    anyio.run(execute, RunPlan(servers={"odd": ODD}, tasks=tasks, agent=ReferenceAgent(), model=None), store)
    recorded = {e.task_id: e for e in store.episodes()}
    greet, big, fail, stats = recorded["odd"].tool_calls
    assert "こんにちは" in greet.content and big.truncated and fail.is_error and stats.structured_content
    assert recorded["crash"].infra_error is not None and recorded["crash"].infra_error.kind == "server_crash"
    assert recorded["crash"].tool_hashes  # the tools the agent was offered, though the server died later
    recording, _ = load_recording(str(tmp_path / "rec.db"), str(tmp_path / "rec.db"))
    gone = {"odd": ODD.model_copy(update={"command": "/nonexistent"})}
    anyio.run(execute, RunPlan(servers=gone, tasks=tasks, agent=ReferenceAgent(), model=None,
                               replay=Replay(recording)), Store(tmp_path / "replay.db"))
    _same_world(tmp_path / "rec.db", tmp_path / "replay.db")  # the crash replays as the same infra error
    replayed = {e.task_id: e for e in Store(tmp_path / "replay.db").episodes()}
    assert replayed["crash"].infra_error is not None and replayed["crash"].infra_error.kind == "server_crash"


# --------------------------------------------------------------------------- stores holding several runs


def test_several_runs_in_one_store_each_replay_finds_its_own_world(tmp_path: Path) -> None:
    """A reference run and a model run of one stateful task; then a newer server release of a stateless one."""
    db = tmp_path / "rec.db"
    rw = [READ_NOTES, WRITE_NOTES, READ_NOTES]
    task = FILES_TASK.model_copy(update={"reference": _plan_task("x", "files", rw).reference})
    anyio.run(execute, RunPlan(servers={"files": bundled_servers()["files"]}, tasks=[task], agent=ReferenceAgent(),
                               model=None, attempts=2), Store(db))
    _react(db, [[READ_NOTES], [READ_NOTES]])  # the newest run: a model that only read
    recording, _ = load_recording(str(db), str(db))
    assert len(recording.runs) == 2
    reference = {e.attempt: e for e in Store(db).episodes() if e.agent == "reference"}
    for attempt in range(5):  # more attempts than recorded
        store = Store(tmp_path / f"ref{attempt}.db")
        anyio.run(execute, RunPlan(servers=_gone(), tasks=[task], agent=ReferenceAgent(), model=None,
                                   replay=Replay(recording), attempts=attempt + 1), store)
        episode = next(e for e in store.episodes() if e.attempt == attempt)
        assert [c.replay for c in episode.tool_calls] == ["exact"] * 3, attempt
        assert episode.state == reference[attempt % 2].state and "after" in episode.tool_calls[2].content
    model, _ = _react(tmp_path / "model.db", [[READ_NOTES], [READ_NOTES]], Replay(recording), _gone())
    assert [c.replay for c in model.tool_calls] == ["exact", "exact"]
    assert all("before" in c.content for c in model.tool_calls)  # the model's world, where nothing was written

    # the same stateless task recorded on two releases of a server: a replay never mixes their answers
    greet = [("odd__greet", {"name": "a"}), ("odd__greet", {"name": "b"})]
    new_release = ODD.model_copy(update={"env": {"ODD_VARIANT": "2"}})
    two = tmp_path / "two.db"
    anyio.run(execute, RunPlan(servers={"odd": ODD}, tasks=[_plan_task("g", "odd", greet)], agent=ReferenceAgent(),
                               model=None), Store(two))
    anyio.run(execute, RunPlan(servers={"odd": new_release}, tasks=[_plan_task("g", "odd", greet[:1])],
                               agent=ReferenceAgent(stale=True), model=None), Store(two))
    recording, _ = load_recording(str(two), str(two))
    episode = _replay_one(recording, {"odd": ODD.model_copy(update={"command": "/nonexistent"})},
                          _plan_task("g", "odd", greet), tmp_path / "mixed.db")
    assert [c.replay for c in episode.tool_calls] == ["exact", "miss"]
    assert episode.servers["odd"].tools_hash == next(e for e in Store(two).episodes()
                                                     if e.agent == "stale").servers["odd"].tools_hash


# --------------------------------------------------------------------------- resume, live misses with secrets

TIME = {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}
ZONES = ["Asia/Tokyo", "Europe/Paris", "America/Lima", "Africa/Cairo"]


def _time_agent(request: dict[str, Any]) -> Reply:
    """A model that converts 09:30 London time to the zone its task names, then answers."""
    messages = request["messages"]
    if messages[-1]["role"] == "tool":
        return completion("Converted.")
    zone = next(z for z in ZONES if z in json.dumps(messages))
    return completion("", [("time__convert_time", {"source_timezone": "Europe/London", "time": "09:30",
                                                   "target_timezone": zone})])


def _stored(db: Path) -> int:
    """Episodes in ``db`` so far, read without creating anything (another process is writing it)."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            return int(conn.execute("select count(*) from episodes").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("mcp_server_time") is None, reason="mcp-server-time is a dev dependency")
def test_a_killed_replay_resumes_where_it_stopped(tmp_path: Path) -> None:
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"time": TIME}}))
    tasks = _write(tmp_path / "tasks.jsonl", [{**_task(f"to-{i}", "time", [("time__convert_time", {})]),
                                               "prompt": f"What is 09:30 in London in {zone}?"}
                                              for i, zone in enumerate(ZONES)])
    with FakeOpenAI(responder=_time_agent) as fake:
        model = ["--agent", "react", "--model", "openai:fake", "--base-url", fake.base_url]
        _cli("run", "--servers", str(servers), "--tasks", str(tasks), *model, "--db", str(tmp_path / "rec.db"))
        fake.responder = lambda request: Reply(**{**vars(_time_agent(request)), "delay": 0.4})
        out = tmp_path / "replay.db"
        command = [sys.executable, "-m", "mcptrials.cli", "run", "--replay", str(tmp_path / "rec.db"), *model,
                   "--concurrency", "1", "--db", str(out)]
        env = {**os.environ, "OPENAI_API_KEY": "sk-test"}
        proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(600):  # kill it once some, not all, episodes are stored
                if 1 <= _stored(out) < len(ZONES):
                    break
                time.sleep(0.05)
        finally:
            proc.kill()
            proc.wait()
        done = {e.id for e in Store(out).episodes()}
        assert 1 <= len(done) < len(ZONES)
        fake.responder = _time_agent
        resumed = CliRunner().invoke(app, ["run", "--replay", str(tmp_path / "rec.db"), *model, "--concurrency", "1",
                                           "--db", str(out)], env={"OPENAI_API_KEY": "sk-test"})
        assert resumed.exit_code == 0, resumed.output
    assert len({r["config_hash"] for r in Store(out).runs()}) == 1  # the same settings: resumed, not a new replay
    episodes = list(Store(out).episodes())
    assert len(episodes) == len(ZONES) and done <= {e.id for e in episodes}
    _same_world(tmp_path / "rec.db", out)


def test_live_misses_need_the_real_config_when_the_recording_masked_its_secrets(tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"ACME": 12.5, "NEWCO": 3.25}))
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"prices": {
        "command": sys.executable, "args": [str(HERE / "price_server.py")],
        "env": {"PRICE_FILE": str(prices), "PRICE_API_KEY": SECRETS[0]}}}}))
    acme = ("prices__get_price", {"symbol": "ACME"})
    newco = ("prices__get_price", {"symbol": "NEWCO"})
    _cli("run", "--servers", str(servers), "--tasks", str(_write(tmp_path / "t.jsonl", [_task("p", "prices", [acme])])),
         "--agent", "reference", "--db", str(tmp_path / "rec.db"))
    changed = _write(tmp_path / "changed.jsonl", [_task("p", "prices", [newco, acme])])
    base = ["run", "--replay", str(tmp_path / "rec.db"), "--tasks", str(changed), "--agent", "reference",
            "--on-miss", "live", "--db", str(tmp_path / "live.db")]
    refused = CliRunner().invoke(app, base)
    assert refused.exit_code == 2 and "give --servers" in refused.output and "prices" in refused.output
    assert "Traceback" not in refused.output and len(refused.output.strip().splitlines()) == 1
    _cli(*base, "--servers", str(servers))
    (episode,) = Store(tmp_path / "live.db").episodes()
    live, hit = episode.tool_calls
    assert live.replay == "live" and "3.25" in live.content and hit.replay == "exact"
    _no_secret_in(tmp_path / "rec.db", tmp_path / "live.db")


# --------------------------------------------------------------------------- refresh


def _refresh(*args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(app, ["refresh", *args, "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def _classes(report: dict[str, Any]) -> dict[str, str]:
    return {row["task"]: row["class"] for row in report["per_task"]}


@pytest.fixture
def drifting(tmp_path: Path) -> dict[str, Path]:
    world = tmp_path / "world.json"
    world.write_text(json.dumps({"release": "base", "prices": {"a1": 12.5, "b2": 7}}))
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"drift": {
        "command": sys.executable, "args": [str(HERE / "drift_server.py")], "env": {"DRIFT_FILE": str(world)}}}}))
    value = {"checkpoints": [{"id": "price", "kind": "value_produced", "source": "any", "contains": ["12.5"]}]}
    tasks = _write(tmp_path / "tasks.jsonl", [
        _task("price", "drift", [("drift__get_item", {"item_id": "a1"})], spec=value),
        {**_task("answer", "drift", [("drift__get_item", {"item_id": "a1"})],
                 spec={"checkpoints": [{"id": "said", "kind": "value_produced", "source": "final_message",
                                        "contains": ["12.50"]}]}), "reference_answer": "a1 costs 12.50 USD."},
        _task("stamp", "drift", [("drift__stamp", {})]),
        _task("list", "drift", [("drift__list_items", {})]),
    ])
    return {"world": world, "servers": servers, "tasks": tasks, "dir": tmp_path, "db": tmp_path / "r.db"}


def _set_world(paths: dict[str, Path], release: str = "base", a1: float = 12.5) -> None:
    paths["world"].write_text(json.dumps({"release": release, "prices": {"a1": a1, "b2": 7}}))


@pytest.mark.slow
def test_refresh_round_trips_and_a_clock_in_the_results_never_breaks_a_task(drifting: dict[str, Path]) -> None:
    d = drifting
    common = ["--servers", str(d["servers"]), "--db", str(d["db"])]
    code, first = _refresh("--tasks", str(d["tasks"]), *common, "--out", str(d["dir"] / "base.jsonl"))
    assert code == 0 and first["no_baseline"] == 4 and first["counts"]["identical"] == 4
    code, again = _refresh("--tasks", str(d["dir"] / "base.jsonl"), *common, "--out", str(d["dir"] / "again.jsonl"))
    assert code == 0 and _classes(again) == {"price": "identical", "answer": "identical", "stamp": "drifted",
                                            "list": "identical"}
    code, third = _refresh("--tasks", str(d["dir"] / "again.jsonl"), *common, "--out", str(d["dir"] / "third.jsonl"))
    assert _classes(third) == _classes(again)

    def body(path: Path) -> list[dict[str, Any]]:  # the task files agree but for the refresh block
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        return [{**r, "provenance": {k: v for k, v in r["provenance"].items() if k != "refresh"}} for r in rows]

    assert body(d["dir"] / "third.jsonl") == body(d["dir"] / "again.jsonl") == body(d["dir"] / "base.jsonl")

    # the price moves: the value the spec names and the answer's number follow it together
    _set_world(d, a1=13.7549)
    code, moved = _refresh("--tasks", str(d["dir"] / "base.jsonl"), *common, "--out", str(d["dir"] / "moved.jsonl"))
    assert code == 0 and _classes(moved)["price"] == "drifted" and _classes(moved)["answer"] == "drifted"
    rows = {json.loads(line)["id"]: json.loads(line) for line in (d["dir"] / "moved.jsonl").read_text().splitlines()}
    assert rows["price"]["spec"]["checkpoints"][0]["contains"] == ["13.7549"]
    (said,) = rows["answer"]["spec"]["checkpoints"][0]["contains"]
    assert said.startswith("13.75") and rows["answer"]["reference_answer"] == f"a1 costs {said} USD."
    code, settled = _refresh("--tasks", str(d["dir"] / "moved.jsonl"), *common)
    assert _classes(settled)["price"] == _classes(settled)["answer"] == "identical"

    decay = CliRunner().invoke(app, ["report", "--decay", "--db", str(d["db"]), "--format", "json"])
    rows_ = json.loads(decay.stdout)["decay"]
    assert len(rows_) == 5 and all(abs(sum(r["fractions"].values()) - 1) < 1e-3 for r in rows_)
    assert [r["fractions"]["identical"] for r in rows_][:3] == [1.0, 0.75, 0.75]


@pytest.mark.parametrize("release, broken, reason", [
    ("removed", {"price", "answer"}, "tool gone"),
    ("renamed", {"price", "answer"}, "arguments rejected"),
    ("required", {"price", "answer"}, "arguments rejected"),
    ("down", {"price", "answer", "stamp", "list"}, "server unavailable"),
])
def test_refresh_names_what_broke(drifting: dict[str, Path], release: str, broken: set[str], reason: str) -> None:
    d = drifting
    common = ["--servers", str(d["servers"]), "--db", str(d["db"])]
    _refresh("--tasks", str(d["tasks"]), *common, "--out", str(d["dir"] / "base.jsonl"))
    _set_world(d, release)
    code, report = _refresh("--tasks", str(d["dir"] / "base.jsonl"), *common, "--out", str(d["dir"] / "after.jsonl"))
    assert code == 1
    rows = {r["task"]: r for r in report["per_task"]}
    assert {t for t, r in rows.items() if r["class"] == "broken"} == broken
    for task in broken:
        assert reason in rows[task]["reasons"][0], rows[task]
        if release != "down":
            assert rows[task]["patterns"], rows[task]  # the P-pattern of the tool whose step failed
    assert rows["list"]["class"] == ("broken" if release == "down" else "identical")
    before = (d["dir"] / "base.jsonl").read_text().splitlines()
    after = (d["dir"] / "after.jsonl").read_text().splitlines()
    assert [b for b, a in zip(before, after, strict=True) if json.loads(b)["id"] in broken] == \
        [a for a in after if json.loads(a)["id"] in broken]  # broken tasks are written as they were


@pytest.mark.parametrize("args, message", [
    (["--out", "{dir}"], "is a folder"),
    (["--out", "/proc/no-such/x.jsonl"], "cannot write"),
    (["--db", "{tasks}"], "not a result store"),
    (["--format", "yaml"], "unknown format"),
    (["--task", "nope"], "unknown task id"),
])
def test_bad_refresh_input_is_one_line_exit_2(drifting: dict[str, Path], args: list[str], message: str) -> None:
    d = drifting
    filled = [a.format(dir=d["dir"], tasks=d["tasks"]) for a in args]
    db = [] if "--db" in filled else ["--db", str(d["db"])]
    result = CliRunner().invoke(app, ["refresh", "--servers", str(d["servers"]), "--tasks", str(d["tasks"]),
                                      *db, *filled])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
