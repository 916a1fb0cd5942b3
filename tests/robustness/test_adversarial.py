"""Cases from the adversarial review of the robustness work: inputs, secrets, processes, deadlines B did not test."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, Reply
from faults import HERE, MARK_VAR, alive, describe, wait_gone
from typer.testing import CliRunner

from mcptrials.cli import app
from mcptrials.model import ServerSpec, Task
from mcptrials.models.base import Message, ProviderError
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.models.retry import RetryPolicy
from mcptrials.servers.config import ConfigError, load_servers
from mcptrials.servers.guard import enabled as guard_enabled
from mcptrials.servers.toolbox import Limits, open_toolbox
from mcptrials.tasks.loader import TaskFileError, load_tasks

ADVERSARIAL = HERE / "adversarial_server.py"
TASK = {"id": "t1", "prompt": "hi", "servers": ["s"],
        "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": ["s__x"]}]}}

# --------------------------------------------------------------------------- documents

# values that scan as YAML but that PyYAML's constructors cannot convert: they raised ValueError/AttributeError
BAD_YAML_VALUES = {
    "impossible date": "2001-13-45",
    "impossible time": "2001-01-01 25:61:61",
    "int tag on text": "!!int abc",
    "float tag on text": "!!float abc",
    "timestamp tag on text": "!!timestamp abc",
    "5000-digit integer": "1" + "0" * 5000,
}


@pytest.mark.parametrize("value", BAD_YAML_VALUES.values(), ids=BAD_YAML_VALUES.keys())
def test_yaml_values_that_do_not_convert_give_one_line(tmp_path: Path, value: str) -> None:
    task_file = tmp_path / "tasks.yaml"
    task_file.write_text(f"id: t1\nprompt: hi\nservers: [s]\nmetadata: {{when: {value}}}\n")
    with pytest.raises(TaskFileError) as task_error:
        load_tasks(task_file)
    config = tmp_path / "servers.yaml"
    config.write_text(f"mcpServers:\n  s:\n    command: echo\n    args: [{value}]\n")
    with pytest.raises(ConfigError) as config_error:
        load_servers(config)
    for error, path in ((task_error, task_file), (config_error, config)):
        message = str(error.value)
        assert message.startswith(f"{path}: invalid YAML value: ") and "\n" not in message


def test_a_json_integer_too_long_to_convert_gives_one_line(tmp_path: Path) -> None:
    for name in ("tasks.json", "tasks.jsonl"):
        path = tmp_path / name
        path.write_text(json.dumps(TASK)[:-1] + ', "metadata": {"n": 1' + "0" * 5000 + "}}\n")
        with pytest.raises(TaskFileError, match=r"invalid JSON: Exceeds the limit \(4300 digits\)") as caught:
            load_tasks(path)
        assert str(caught.value).startswith(str(path))
    config = tmp_path / "servers.json"
    config.write_text('{"mcpServers": {"s": {"command": "echo", "timeout": 1' + "0" * 5000 + "}}}")
    with pytest.raises(ConfigError, match="invalid JSON"):
        load_servers(config)


def test_a_bad_yaml_value_stops_run_with_exit_2_and_no_traceback(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text("id: t1\nprompt: hi\nservers: [s]\nnow: 2026-02-30T10:00:00Z\n")
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"s": {"command": "python", "args": [str(ADVERSARIAL)]}}}))
    result = CliRunner().invoke(app, ["run", "--model", "scripted:reference", "--tasks", str(tasks),
                                      "--servers", str(servers), "--db", str(tmp_path / "runs.db")])
    assert result.exit_code == 2, result.output
    assert "invalid YAML value: day is out of range for month" in result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    assert len(result.output.strip().splitlines()) == 1


def test_utf8_byte_order_mark_is_accepted_and_utf16_is_named(tmp_path: Path) -> None:
    """Windows editors save UTF-8 with a BOM: that is UTF-8, so it loads (JSON, JSONL, YAML, server config)."""
    body = json.dumps(TASK).encode()
    for name in ("a.json", "b.jsonl", "c.yaml"):
        (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + body + b"\n")
        assert [t.id for t in load_tasks(tmp_path / name)] == ["t1"]
    config = tmp_path / "servers.json"
    config.write_bytes(b"\xef\xbb\xbf" + json.dumps({"mcpServers": {"s": {"command": "echo"}}}).encode())
    assert list(load_servers(config)) == ["s"]
    wide = tmp_path / "wide.json"
    wide.write_bytes(json.dumps(TASK).encode("utf-16"))
    with pytest.raises(TaskFileError, match=r"is UTF-16 text .* save it as UTF-8"):
        load_tasks(wide)


@pytest.mark.timeout(60)
def test_endless_or_blocking_files_do_not_hang_the_load(tmp_path: Path) -> None:
    """``/dev/zero`` reports size 0 and never ends (it was read whole: unbounded memory); a FIFO planted in a
    tasks folder blocks the reader forever. The read is bounded, and a folder scan takes regular files only."""
    import os

    for loader, error in ((load_tasks, TaskFileError), (load_servers, ConfigError)):
        with pytest.raises(error, match="over the 67108864-byte limit"):
            loader(Path("/dev/zero"))
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "ok.json").write_text(json.dumps(TASK))
    os.mkfifo(folder / "planted.yaml")
    (folder / "zero.json").symlink_to("/dev/zero")
    assert [t.id for t in load_tasks(folder)] == ["t1"]


def test_a_merge_key_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    """``<<: [*a, *a, *a, *a]`` at each of 12 levels: 4^12 (16 million) keys once merged."""
    lines = ["a0: &a0 {x: 1}"] + [f"a{i}: &a{i} {{<<: [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}], k{i}: 1}}"
                                  for i in range(1, 13)]
    path = tmp_path / "tasks.yaml"
    path.write_text("\n".join(lines) + "\nid: t1\n")
    tracemalloc.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(TaskFileError, match="alias bomb"):
            load_tasks(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - t0 < 5 and peak < 50_000_000


@pytest.mark.parametrize("path", ["a\\..\\..\\x", "\\\\server\\share\\x", "C:x", "./", "a/b/../../../x", "\\x",
                                  "sub/\x00x"])
def test_fixture_paths_that_could_leave_the_sandbox_are_refused(path: str) -> None:
    with pytest.raises(ValueError, match=r"fixtures\.files"):
        Task.model_validate({**TASK, "fixtures": {"files": {path: "x"}}})


@pytest.mark.parametrize("files", [{"a/./b": "1", "a/b": "2"}, {"a//b": "1", "a/b": "2"}, {"d": "1", "d/e/f": "2"}])
def test_fixture_paths_that_collide_after_normalising_are_refused(files: dict[str, str]) -> None:
    with pytest.raises(ValueError, match=r"(?s)fixtures\.files.*(the same file|is a file)"):
        Task.model_validate({**TASK, "fixtures": {"files": files}})


# --------------------------------------------------------------------------- secrets

def test_a_secret_in_a_tool_description_or_server_version_is_not_stored(tmp_path: Path, mark: str) -> None:
    """A server lists its token inside a tool description and its version: the tool catalog and episode are scrubbed."""
    token = "SECRET7-listedtok-93c1"
    tasks = tmp_path / "tasks.jsonl"
    task = {"id": "look", "prompt": "look up cat", "servers": ["adv"],
            "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": ["adv__lookup"]}]},
            "reference": [{"tool": "adv__lookup", "args": {"word": "cat"}}]}
    tasks.write_text(json.dumps(task) + "\n")
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"adv": {
        "command": "python", "args": [str(ADVERSARIAL)],
        "env": {"ADV_TOKEN": "${ADV_SECRET}", MARK_VAR: "${" + MARK_VAR + "}"}}}}))
    db = tmp_path / "runs.db"
    result = CliRunner().invoke(app, ["run", "--model", "scripted:reference", "--tasks", str(tasks), "--servers",
                                      str(servers), "--db", str(db)], env={"ADV_SECRET": token})
    assert result.exit_code == 0, result.output
    from mcptrials.store.db import Store

    store = Store(db)
    (episode,) = list(store.episodes())
    assert episode.infra_error is None and episode.tool_hashes
    written = b"".join(p.read_bytes() for p in tmp_path.glob("runs.db*"))  # the database and its WAL
    assert token.encode() not in written
    assert b"v1?key=***" in written  # the listing is stored, masked
    assert wait_gone(mark) == []


def test_literal_secrets_in_server_args_are_masked_in_the_stored_record() -> None:
    """Common configs put a token in an argument: ``mcp-remote https://host/mcp?api_key=X``, docker's
    ``-e GITHUB_TOKEN=X``, an evolved version's ``--upstream-url`` (whose headers travel in a JSON env value)."""
    from mcptrials.safety.secrets import spec_secrets

    spec = ServerSpec(name="remote", command="npx", args=[
        "mcp-remote", "https://host.example/mcp?api_key=SECRET9-urlarg-77aa", "-e", "GITHUB_TOKEN=ghp_SECRET10abcd",
        "--upstream-url=http://user:SECRET11-pw@host.example/mcp", "https://plain.example/mcp#frag", "--verbose"],
        env={"MCPTRIALS_UPSTREAM_HEADERS": json.dumps({"Authorization": "Bearer SECRET12-hdr-0b0b"})})
    record = json.dumps(spec.public_view())
    for secret in ("SECRET9-urlarg-77aa", "ghp_SECRET10abcd", "SECRET11-pw", "SECRET12-hdr-0b0b"):
        assert secret not in record
        assert secret in spec_secrets(spec)  # and scrubbed wherever a server quotes it
    assert spec.public_view()["args"] == [
        "mcp-remote", "https://host.example/mcp?api_key=***", "-e", "GITHUB_TOKEN=***",
        "--upstream-url=http://user:***@host.example/mcp", "https://plain.example/mcp#frag", "--verbose"]


def test_plain_config_values_are_not_scrubbed_from_what_is_scored(tmp_path: Path, mark: str) -> None:
    """The runner scores the scrubbed episode, so scrubbing every env value and ``${VAR}`` expansion masked a
    ``TZ=Europe/Paris`` or a ``${DOCS}`` folder in tool results and answers, and changed scores. Only values
    secret by name or token-like are scrubbed; the stored record still masks every env value."""
    from faults import HOSTILE, write_world

    from mcptrials.model import ToolCallRecord
    from mcptrials.store.db import Store

    key = "SECRET13-envkey-c0ffee"
    text = f"meet in Europe/Paris, notes in /home/alice/Documents, key {key}"
    task = {"id": "plain", "prompt": "echo", "servers": ["hostile"],
            "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": ["hostile__echo"]}]},
            "reference": [{"tool": "hostile__echo", "args": {"text": text}}]}
    tasks, servers = write_world(tmp_path, [task], {"hostile": {
        "command": "python", "args": [str(HOSTILE), "--docs", "${DOCS}"],
        "env": {"TZ": "Europe/Paris", "HOSTILE_API_KEY": "${ADV_KEY}", MARK_VAR: "${" + MARK_VAR + "}"}}})
    db = tmp_path / "runs.db"
    result = CliRunner().invoke(app, ["run", "--model", "scripted:reference", "--tasks", str(tasks), "--servers",
                                      str(servers), "--db", str(db)],
                                env={"DOCS": "/home/alice/Documents", "ADV_KEY": key})
    assert result.exit_code == 0, result.output
    store = Store(db)
    (episode,) = list(store.episodes())
    (call,) = [s for s in episode.steps if isinstance(s, ToolCallRecord)]
    assert call.content == text.replace(key, "***")
    record = json.dumps(store.runs())
    assert '"TZ": "***"' in record and "${DOCS}" in record and key not in record
    assert wait_gone(mark) == []


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_key_in_the_model_base_url_query_is_masked_in_settings(provider: str) -> None:
    from mcptrials.models.anthropic_provider import AnthropicModel
    from mcptrials.safety.secrets import model_secrets

    secret = "SECRET8-querykey-51aa"
    cls = OpenAIModel if provider == "openai" else AnthropicModel
    model = cls(model="m", base_url=f"https://proxy.example.com/v1?api-key={secret}&deployment=x", api_key="sk-k123456")
    assert secret not in json.dumps(model.settings())
    assert {secret, "sk-k123456"} <= model_secrets(model)


# --------------------------------------------------------------------------- processes

@pytest.mark.skipif(not guard_enabled(), reason="process guards need Linux /proc")
async def test_a_server_that_closes_stdout_but_lives_on_is_killed_with_its_daemon(tmp_path: Path,
                                                                                   mark: str) -> None:
    pidfile = tmp_path / "pids"
    spec = ServerSpec(name="adv", command=sys.executable, args=[str(ADVERSARIAL)],
                      env={MARK_VAR: mark, "ADV_PIDFILE": str(pidfile)})
    t0 = time.monotonic()
    async with open_toolbox([spec], tmp_path, limits=Limits(call_timeout=2.0)) as box:
        assert not box.failures, box.failures
        started = [int(p) for p in pidfile.read_text().split()]
        assert len(started) == 2 and len(alive(started)) == 2  # the server and its setsid'd, orphaned daemon
        _, _, out = await box.call("adv__hangup", {})
        assert out.is_error and out.error_kind == "server_crash", out  # the pipe closed: no 2 s wait
    left = wait_gone(mark)
    assert left == [], describe(left)
    assert alive(started) == []
    assert time.monotonic() - t0 < 20


# --------------------------------------------------------------------------- provider deadline

def _silent_endpoint(behaviour: Callable[[socket.socket], None]) -> Iterator[str]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    stop = threading.Event()
    conns: list[socket.socket] = []

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conns.append(conn)
            threading.Thread(target=behaviour, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    listener.close()
    for conn in conns:
        conn.close()


@pytest.fixture
def mute_endpoint() -> Iterator[str]:
    """Accepts the connection, reads the request, never sends a byte."""
    def listen_only(conn: socket.socket) -> None:
        conn.recv(65536)

    yield from _silent_endpoint(listen_only)


@pytest.fixture
def stalled_endpoint() -> Iterator[str]:
    """Sends the status line and headers, then stalls forever (no body byte)."""
    def stall(conn: socket.socket) -> None:
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n")

    yield from _silent_endpoint(stall)


@pytest.mark.parametrize("endpoint", ["mute_endpoint", "stalled_endpoint"])
async def test_silent_providers_time_out_on_the_overall_deadline(endpoint: str,
                                                                 request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue(endpoint)
    model = OpenAIModel(model="silent", base_url=url, api_key="sk-test", timeout=1.0,
                        retry=RetryPolicy(max_retries=0, base_delay=0.01))
    t0 = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        await model.generate([Message(role="user", content="hi")], [])
    assert caught.value.kind == "timeout"
    assert 0.9 < time.monotonic() - t0 < 4


@pytest.mark.skipif(not guard_enabled(), reason="process guards need Linux /proc")
def test_a_guard_started_without_its_own_group_spares_its_caller(tmp_path: Path) -> None:
    """The guard's final sweep kills its process group; started without a new session that group was the
    caller's, so the caller (a runner, a shell) was SIGKILLed. The caller here runs in a session of its own,
    so a regression kills it, not pytest."""
    import subprocess

    from mcptrials.servers.guard import GUARD

    caller = tmp_path / "caller.py"
    caller.write_text("import subprocess, sys\n"
                      f"rc = subprocess.run([sys.executable, '-S', {str(GUARD)!r}, 'true']).returncode\n"
                      "print('caller survived', rc)\n")
    done = subprocess.run([sys.executable, str(caller)], capture_output=True, text=True, timeout=30,
                          start_new_session=True)
    assert (done.returncode, done.stdout.strip()) == (0, "caller survived 0"), done


def test_a_fatal_provider_error_quoting_the_key_is_printed_masked(tmp_path: Path, fake_openai: FakeOpenAI,
                                                                  mark: str) -> None:
    """A proxy's 401 body that repeats the API key (and the base URL's ``?api-key=``) stops the run; the line
    printed for it (kept in CI logs) is scrubbed like everything stored."""
    from faults import nap_task, write_world

    key, query = "sk-SECRET14-fatal-9d9d", "QSECRET15-basequery"
    fake_openai.responder = lambda request: Reply(status=401, body={"error": {
        "message": f"Incorrect API key provided: {key}. Query was api-key={query}"}})
    tasks, servers = write_world(tmp_path, [nap_task("a", 0.0)])
    result = CliRunner().invoke(app, ["run", "--model", "openai:m", "--base-url", f"{fake_openai.base_url}?api-key="
                                      f"{query}", "--tasks", str(tasks), "--servers", str(servers), "--db",
                                      str(tmp_path / "runs.db")], env={"OPENAI_API_KEY": key})
    assert result.exit_code == 3, result.output
    assert "Incorrect API key provided: ***. Query was api-key=***" in result.output
    assert key not in result.output and query not in result.output
    assert wait_gone(mark) == []
