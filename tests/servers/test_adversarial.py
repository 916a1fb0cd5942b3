"""Adversarial cases for the client and the isolation probe, against servers written the ways others write them."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from fake_openai import FakeOpenAI, completion
from npm_servers import NPM_PREFIX

from mcptrials.model import ElicitationRule, PlannedCall, ServerSpec, Task, TaskSpec, ValueCheckpoint
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.models.retry import RetryPolicy
from mcptrials.servers import forkserver
from mcptrials.servers.blobs import BlobStore
from mcptrials.servers.client import PROGRESS_EVENTS_CAP, SAMPLING_PER_CALL, ClientSetup
from mcptrials.servers.clock import faketime_available
from mcptrials.servers.config import ConfigError, parse_servers
from mcptrials.servers.connection import PROGRESS_CAP_FACTOR
from mcptrials.servers.isolation import normalise, probe
from mcptrials.servers.sandbox import episode_sandbox
from mcptrials.servers.statewatch import watched_places
from mcptrials.servers.toolbox import Limits, open_toolbox

SERVER = Path(__file__).with_name("adversarial_server.py")
NPM_SDK = NPM_PREFIX / "node_modules" / "@modelcontextprotocol" / "sdk" / "dist" / "esm"


def adversarial(name: str = "adv", *args: str, script: Path = SERVER) -> ServerSpec:
    return ServerSpec(name=name, command=sys.executable, args=[str(script), *args])


def notes_task(server: str = "adv", *, with_stamp: bool = False) -> Task:
    calls = [PlannedCall(tool=f"{server}__stamp", args={})] if with_stamp else []
    calls += [PlannedCall(tool=f"{server}__add_note", args={"text": "ada"})]
    return Task(id="notes-1", prompt="Note Ada.", servers=[server], reference=calls,
                spec=TaskSpec(checkpoints=[ValueCheckpoint(id="c1", contains=["ada"])]))


def memory_task() -> Task:
    entity = {"entities": [{"name": "Ada", "entityType": "person", "observations": ["likes tea"]}]}
    return Task(id="mem-1", prompt="Remember Ada.", servers=["mem"],
                spec=TaskSpec(checkpoints=[ValueCheckpoint(id="c1", contains=["Ada"])]),
                reference=[PlannedCall(tool="mem__create_entities", args=entity),
                           PlannedCall(tool="mem__read_graph", args={})])


def memory_spec(npm_bin: Path, memory_file: str) -> dict[str, ServerSpec]:
    return parse_servers({"mcpServers": {"mem": {"command": str(npm_bin / "mcp-server-memory"),
                                                 "env": {"MEMORY_FILE_PATH": memory_file}}}}, "cfg", environ={})


def test_probe_flags_a_fixed_store_that_was_full_before_the_probe(npm_bin: Path, tmp_path: Path) -> None:
    """Both plays answer alike when the shared file already holds the state; the write to it gives it away."""
    shared = tmp_path / "shared.jsonl"
    shared.write_text('{"type":"entity","name":"Ada","entityType":"person","observations":["likes tea"]}\n')
    leaks, problems, probed = anyio.run(probe, [memory_task()], memory_spec(npm_bin, str(shared)))
    assert probed == 1 and not problems
    assert [(leak.server, leak.path, leak.why) for leak in leaks] == [("mem", str(shared), "named in its config")]
    assert f"changed {shared}" in leaks[0].line() and leaks[0].as_dict()["path"] == str(shared)
    # the sandboxed config writes only inside each episode's sandbox: nothing shared changes
    leaks, problems, probed = anyio.run(probe, [memory_task()], memory_spec(npm_bin, "${MCPTRIALS_SANDBOX}/m.jsonl"))
    assert (leaks, problems, probed) == ([], [], 1)


@pytest.mark.parametrize("prefilled", [True, False])
def test_probe_flags_a_default_data_file_next_to_the_program(tmp_path: Path, prefilled: bool) -> None:
    """A server keeping its data beside its own code (no path in the config) is caught, full or empty."""
    script = tmp_path / "srv" / "server.py"
    script.parent.mkdir()
    shutil.copy(SERVER, script)
    if prefilled:
        (script.parent / "notes.json").write_text(json.dumps(["ada"]))
    leaks, problems, probed = anyio.run(probe, [notes_task()], {"adv": adversarial("adv", "--state", "default",
                                                                                  script=script)})
    assert probed == 1 and not problems and len(leaks) == 1
    if prefilled:  # "kept" both times: only the write shows it
        assert (leaks[0].path, leaks[0].why) == (str(script.parent / "notes.json"), "its program's folder")
    else:  # "added" then "kept"
        assert (leaks[0].tool, leaks[0].first, leaks[0].second, leaks[0].path) == ("add_note", "added", "kept", None)


def test_probe_passes_memory_only_and_nondeterministic_servers(tmp_path: Path) -> None:
    """A fresh process per episode keeps in-memory state apart; ids, times, epochs, ETags are not state."""
    script = tmp_path / "server.py"  # its own folder: the probe watches a program's folder
    shutil.copy(SERVER, script)
    leaks, problems, probed = anyio.run(probe, [notes_task(with_stamp=True)], {"adv": adversarial(script=script)})
    assert (leaks, problems, probed) == ([], [], 1)


def test_volatile_values_are_normalised_but_real_differences_stay() -> None:
    one = normalise('{"t": 1764570000.6177514, "ms": 1764570000123, "d": "Tue, 01 Dec 2026 06:19:18 GMT", '
                    '"c": "06:19:18", "u": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "n": 2}', "/sb", "isolation-x-1")
    two = normalise('{"t": 1764570031.2, "ms": 1764570031999, "d": "Tue, 01 Dec 2026 06:19:49 GMT", '
                    '"c": "6:19:49", "u": "01BX5ZZKBKACTAV9WEVGEMMVRZ", "n": 2}', "/sb", "isolation-x-2")
    assert one == two
    assert normalise('{"n": 2}', "/sb", "e") != normalise('{"n": 3}', "/sb", "e")


def test_watched_places_skip_per_episode_paths_urls_and_system_folders(tmp_path: Path) -> None:
    spec = ServerSpec(name="db", command="mcp-server-sqlite",
                      args=["--db-path", str(tmp_path / "x.db"), "--log=/usr/share/x"],
                      env={"URL": "https://example.com/data/y", "ROOT": f"file://{tmp_path}/docs",
                           "MEM": "${MCPTRIALS_SANDBOX}/m.jsonl", "LOG": f"{tmp_path}/${{MCPTRIALS_EPISODE}}.txt"})
    assert [(str(w.path), w.why) for w in watched_places(spec)] == [
        (str(tmp_path / "x.db"), "named in its config"), (str(tmp_path / "docs"), "named in its config")]


def test_endless_progress_ends_at_the_overall_cap(tmp_path: Path) -> None:
    """Progress extends a call's timeout, but never past PROGRESS_CAP_FACTOR times it."""
    async def go() -> tuple[float, object]:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([adversarial()], sandbox, limits=Limits(call_timeout=0.4)) as box:
                with anyio.fail_after(30):
                    start = anyio.current_time()
                    outcome = (await box.call("adv__forever", {}))[2]
                    return anyio.current_time() - start, outcome

    took, outcome = anyio.run(go)
    cap = 0.4 * PROGRESS_CAP_FACTOR
    assert outcome.is_error and outcome.error_kind == "timeout"  # the server still answers: the call's fault
    assert f"timed out after {cap:g} s (the overall cap" in outcome.content
    assert cap <= took < cap + 10
    assert len([e for e in outcome.events if e["kind"] == "progress"]) >= 10


def test_image_larger_than_the_output_cap_is_stored_whole_and_shown_as_a_placeholder(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "r.db.blobs")

    async def go() -> object:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([adversarial()], sandbox, limits=Limits(output_cap=100),
                                    client=ClientSetup(blobs=blobs)) as box:
                return (await box.call("adv__big_image", {"size": 300_000}))[2]

    outcome = anyio.run(go)
    image = outcome.attachments[0]
    assert image["bytes"] == 300_000 and len(blobs.get(image["sha256"])) == 300_000
    assert outcome.content == f"[image: image/png, 300000 bytes, blob {image['sha256'][:12]}]"
    assert not outcome.truncated


@pytest.mark.skipif(not faketime_available(), reason="libfaketime (Debian package faketime) not installed")
@pytest.mark.parametrize("launch", ["python", "node", "npx"])
def test_frozen_clock_reaches_python_node_and_npx_servers(launch: str, tmp_path: Path) -> None:
    now = "2026-04-13T09:00:00+08:00"
    if launch == "python":
        spec = adversarial("clock")
    else:
        if shutil.which("node") is None or not NPM_SDK.exists():
            pytest.skip("node or the npm MCP SDK (installed by .ci/run) is missing")
        package = tmp_path / "nodeclock"
        package.mkdir()
        (package / "package.json").write_text(json.dumps({"name": "nodeclock", "version": "1.0.0",
                                                          "bin": {"nodeclock": "server.mjs"}}))
        (package / "server.mjs").write_text(
            f'#!/usr/bin/env node\nimport {{ McpServer }} from "{NPM_SDK}/server/mcp.js";\n'
            f'import {{ StdioServerTransport }} from "{NPM_SDK}/server/stdio.js";\n'
            'const server = new McpServer({ name: "nodeclock", version: "1.0.0" });\n'
            'server.registerTool("now", { description: "The wall clock." }, async () => '
            '({ content: [{ type: "text", text: new Date().toISOString() }] }));\n'
            "await server.connect(new StdioServerTransport());\n")
        (package / "server.mjs").chmod(0o755)
        spec = ServerSpec(name="clock", command="node", args=[str(package / "server.mjs")]) if launch == "node" \
            else ServerSpec(name="clock", command="npx", args=["--yes", "--offline", str(package)])

    async def ask() -> str:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([spec], sandbox, now=now) as box:
                assert not box.failures, box.failures
                return (await box.call("clock__now", {}))[2].content

    assert anyio.run(ask).replace("+00:00", "Z").startswith("2026-04-13T01:00:00")


@pytest.mark.skipif(not faketime_available(), reason="libfaketime (Debian package faketime) not installed")
def test_time_sleep_works_under_a_frozen_clock_and_the_fork_server_outlives_a_failed_child(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """libfaketime 0.9.10 breaks ``time.sleep`` (EINVAL) when the monotonic clock stays real.

    A server forked under a task's frozen clock must still answer when it calls it, and its guard's own
    pause at exit must not fail either: that failure once unwound a forked child into the fork server's
    loop, which removed the fork server's socket, and every later server start of the run failed.
    (Once ``MAX_CLOCK_TEMPLATES`` clocks have fork servers, further clocks start cold: a fresh registry
    keeps earlier tests' clocks from sending this one down that path.)
    """
    monkeypatch.setattr(forkserver, "_instances", {})
    now = "2026-04-13T09:00:00+00:00"
    spec = adversarial("clock")

    async def nap() -> str:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([spec], sandbox, now=now) as box:
                assert not box.failures, box.failures
                result = (await box.call("clock__nap", {}))[2]
                assert not result.is_error, result.content
                return result.content

    for _ in range(3):  # the servers of earlier rounds have exited (and been swept) before the next starts
        assert anyio.run(nap).startswith("2026-04-13T09:00:00")


@pytest.mark.skipif(not faketime_available(), reason="libfaketime (Debian package faketime) not installed")
def test_a_frozen_clock_survives_what_killed_servers_leave_in_shared_memory(tmp_path: Path) -> None:
    """Servers are killed, not asked to stop, so names a dead process made in /dev/shm stay behind.

    The ``faketime`` wrapper named a semaphore after its pid and refused to start when a dead one's
    was still there: here the next pids all have one, and the frozen clock must still work.
    """
    shm, last = Path("/dev/shm"), Path("/proc/sys/kernel/ns_last_pid")
    if not shm.is_dir() or not last.exists():
        pytest.skip("needs Linux /dev/shm and /proc/sys/kernel/ns_last_pid")
    start = int(last.read_text())
    stale = [shm / f"sem.faketime_sem_{pid}" for pid in range(start + 1, start + 3000)]
    stale = [path for path in stale if not path.exists()]
    for path in stale:
        path.touch()
    before = {p.name for p in shm.iterdir()}

    async def ask() -> str:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([adversarial("clock")], sandbox, now="2026-04-13T09:00:00+08:00") as box:
                assert not box.failures, box.failures
                return (await box.call("clock__now", {}))[2].content

    try:
        for _ in range(2):
            assert anyio.run(ask).replace("+00:00", "Z").startswith("2026-04-13T01:00:00")
        left = sorted({p.name for p in shm.iterdir()} - before)
        assert not [name for name in left if "faketime" in name], left
    finally:
        for path in stale:
            path.unlink(missing_ok=True)


def test_misspelt_episode_variable_names_the_right_one() -> None:
    entry = {"command": "x", "env": {"MEMORY_FILE_PATH": "${MCPTRIALS_SANBOX}/memory.jsonl"}}
    with pytest.raises(ConfigError, match=r"\$\{MCPTRIALS_SANBOX\} is not set \(did you mean \$\{MCPTRIALS_SANDBOX\}"):
        parse_servers({"mcpServers": {"mem": entry}}, "mcp.json", environ={})


def test_an_npx_package_folder_is_watched(tmp_path: Path) -> None:
    """``npx -y PKG@version`` servers keep default data files in the package npx unpacked."""
    unpacked = tmp_path / "_npx" / "0123abcd" / "node_modules" / "@scope" / "server-notes"
    unpacked.mkdir(parents=True)
    spec = ServerSpec(name="n", command="npx", args=["-y", "@scope/server-notes@1.2.0"],
                      env={"npm_config_cache": str(tmp_path)})
    assert [(w.path, w.why) for w in watched_places(spec)] == [(unpacked, "its npx package's folder")]


def test_what_node_based_clients_accept_loads() -> None:
    """A bare ``/sse`` url is SSE; numbers and booleans in env/headers become text; typos still fail."""
    specs = parse_servers({"mcpServers": {
        "legacy": {"url": "http://127.0.0.1:1/sse/", "headers": {"X-Retries": 3}},
        "modern": {"url": "http://127.0.0.1:1/mcp?via=sse"},
        "local": {"command": "srv", "env": {"PORT": 8080, "DEBUG": True, "RATIO": 0.5}}}}, "cfg", environ={})
    assert (specs["legacy"].transport, specs["modern"].transport) == ("sse", "http")
    assert specs["legacy"].headers == {"X-Retries": "3"}
    assert specs["local"].env == {"PORT": "8080", "DEBUG": "true", "RATIO": "0.5"}
    with pytest.raises(ConfigError, match=r"field 'env.K'"):
        parse_servers({"mcpServers": {"a": {"command": "x", "env": {"K": ["a"]}}}}, "cfg", environ={})


@pytest.mark.parametrize("everything_http", ["sse"], indirect=True)
def test_bare_sse_url_reaches_a_real_sse_server(everything_http: str, tmp_path: Path) -> None:
    spec = parse_servers({"mcpServers": {"every": {"url": f"{everything_http}/sse"}}}, "cfg", environ={})["every"]

    async def go() -> str:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([spec], sandbox) as box:
                assert not box.failures, box.failures
                return (await box.call("every__echo", {"message": "bare"}))[2].content

    assert anyio.run(go) == "Echo: bare"


def test_a_progress_flood_is_counted_not_stored_whole(tmp_path: Path) -> None:
    async def go() -> object:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([adversarial()], sandbox) as box:
                return (await box.call("adv__spam_progress", {"count": 3000}))[2]

    outcome = anyio.run(go)
    assert outcome.content == "sent 3000" and not outcome.is_error
    progress = [e for e in outcome.events if e["kind"] == "progress"]
    assert len(progress) == PROGRESS_EVENTS_CAP + 1
    assert progress[-1]["not_recorded"] + PROGRESS_EVENTS_CAP == 3000 and progress[-1]["last_progress"] == 3000


def test_a_sampling_loop_is_refused_past_the_per_call_limit(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """A server asking the model in a loop cannot spend without bound: each call gets SAMPLING_PER_CALL answers."""
    fake_openai.default = completion("hi", prompt_tokens=3, completion_tokens=1)
    sampler = OpenAIModel(model="fake", base_url=fake_openai.base_url, api_key="sk-x",
                          retry=RetryPolicy(max_retries=0, base_delay=0.01))

    async def go() -> list[object]:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([adversarial()], sandbox, client=ClientSetup(sampling_model=sampler)) as box:
                return [(await box.call("adv__sample_loop", {"count": SAMPLING_PER_CALL + 15}))[2] for _ in range(2)]

    for outcome in anyio.run(go):  # the limit is per call: the second call gets its own allowance
        assert outcome.content == f"answered {SAMPLING_PER_CALL}, refused 15"
        sampling = [e for e in outcome.events if e["kind"] == "sampling"]
        assert [e.get("reply") for e in sampling[:-1]] == ["hi"] * SAMPLING_PER_CALL
        assert sampling[-1]["error"].startswith("refused") and len(sampling) == SAMPLING_PER_CALL + 1
    assert len(fake_openai.requests) == 2 * SAMPLING_PER_CALL


@pytest.mark.parametrize("rules", [[ElicitationRule(match="which name", content={"name": "Ada"})],
                                   [ElicitationRule(match="no such question", content={"name": "Bob"})]])
def test_a_python_sdk_server_can_elicit(rules: list[ElicitationRule], tmp_path: Path) -> None:
    """Servers on the Python SDK 2.x ask through ``ctx.elicit``; the request reaches the task's rules."""
    async def go() -> object:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([adversarial()], sandbox, client=ClientSetup(elicitation=rules)) as box:
                return (await box.call("adv__ask_name", {}))[2]

    outcome = anyio.run(go)
    [event] = [e for e in outcome.events if e["kind"] == "elicitation"]
    if rules[0].content == {"name": "Ada"}:
        assert outcome.content == "accept: name='Ada'" and (event["action"], event["rule"]) == ("accept", 0)
    else:  # no rule matches: declined, and recorded
        assert outcome.content == "decline: None" and (event["action"], event["rule"]) == ("decline", None)


def test_text_typed_blob_resources_are_read_as_text(npm_bin: Path, tmp_path: Path) -> None:
    """A resource sent as a base64 blob with a text type (embedded in a result, or read) is not lost."""
    spec = ServerSpec(name="every", command=str(npm_bin / "mcp-server-everything"), args=["stdio"])

    async def go() -> tuple[str, str]:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([spec], sandbox, client=ClientSetup(expose_resources=True)) as box:
                embedded = (await box.call("every__get-resource-reference", {"resourceType": "Blob",
                                                                             "resourceId": 2}))[2]
                read = (await box.call("every__read_resource", {"uri": "demo://resource/dynamic/blob/1"}))[2]
                return embedded.content, read.content

    embedded, read = anyio.run(go)
    assert "Resource 2" in embedded.split("\n", 2)[1] and "[resource" not in embedded, embedded
    assert read.startswith("Resource 1") and "b64 chars" not in read, read
