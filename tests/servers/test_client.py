"""The full client against real servers: roots, sampling, elicitation, resources, images, progress."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path

import anyio
import pytest
from fake_openai import FakeOpenAI, completion

from mcptrials.agents.react import ReactAgent
from mcptrials.model import ElicitationRule, ServerSpec, Task, TaskSpec, ValueCheckpoint
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.models.retry import RetryPolicy
from mcptrials.run.runner import RunPlan, execute
from mcptrials.servers.blobs import BlobStore
from mcptrials.servers.client import ClientOptions, ClientSetup
from mcptrials.servers.sandbox import episode_sandbox
from mcptrials.servers.toolbox import Limits, open_toolbox
from mcptrials.store.db import Store

DOC = "demo://resource/static/document/architecture.md"


def everything(npm_bin: Path) -> ServerSpec:
    return ServerSpec(name="every", command=str(npm_bin / "mcp-server-everything"), args=["stdio"])


def test_filesystem_server_gets_the_sandbox_as_its_root(npm_bin: Path, tmp_path: Path) -> None:
    spec = ServerSpec(name="fs", command=str(npm_bin / "mcp-server-filesystem"))  # no folder: it asks for roots

    async def go() -> tuple[str, str, str]:
        with episode_sandbox({"notes/a.txt": "hello from the sandbox"}, parent=tmp_path) as sandbox:
            async with open_toolbox([spec], sandbox) as box:
                assert not box.failures, box.failures
                allowed = (await box.call("fs__list_allowed_directories", {}))[2]
                read = (await box.call("fs__read_text_file", {"path": str(sandbox / "notes/a.txt")}))[2]
                outside = (await box.call("fs__read_text_file", {"path": "/etc/hostname"}))[2]
                return allowed.content.replace(str(sandbox), "<sandbox>"), read.content, outside.content

    allowed, read, outside = anyio.run(go)
    assert "<sandbox>" in allowed
    assert read == "hello from the sandbox"
    assert "denied" in outside.lower() or "outside" in outside.lower()


def test_git_server_from_pypi(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for cmd in (["init", "-q"], ["-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "--allow-empty",
                                 "-m", "first commit of the probe"]):
        subprocess.run(["git", *cmd], cwd=repo, check=True)
    spec = ServerSpec(name="git", command="mcp-server-git", args=["--repository", str(repo)])

    async def go() -> str:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([spec], sandbox) as box:
                assert not box.failures, box.failures
                return (await box.call("git__git_log", {"repo_path": str(repo)}))[2].content

    assert "first commit of the probe" in anyio.run(go)


@pytest.mark.parametrize("sees_images", [True, False])
def test_episode_records_sampling_elicitation_resource_and_image(npm_bin: Path, tmp_path: Path,
                                                                fake_openai: FakeOpenAI, sees_images: bool) -> None:
    fake_openai.queue(
        completion("", [("every__trigger-sampling-request", {"prompt": "Name a colour", "maxTokens": 20}),
                        ("every__trigger-elicitation-request", {}),
                        ("every__get-tiny-image", {}),
                        ("every__read_resource", {"uri": DOC})]),
        completion("teal", prompt_tokens=5, completion_tokens=1),  # the sampling request, same model
        completion("All done."),
    )
    task = Task(id="client-1", prompt="Exercise the client.", servers=["every"],
                spec=TaskSpec(checkpoints=[ValueCheckpoint(id="c1", contains=["teal"])]),
                elicitation=[ElicitationRule(match="fields", content={"name": "Ada Lovelace"})])
    chat = OpenAIModel(model="fake", base_url=fake_openai.base_url, api_key="sk-x",
                       retry=RetryPolicy(max_retries=0, base_delay=0.01), media=("image",) if sees_images else ())
    blobs = BlobStore(tmp_path / "r.db.blobs")
    plan = RunPlan(servers={"every": everything(npm_bin)}, tasks=[task], agent=ReactAgent(max_turns=4), model=chat,
                   client=ClientOptions(blobs=blobs, expose_resources=True))
    store = Store(tmp_path / "r.db")
    result = anyio.run(execute, plan, store)
    assert result.counts["infra_error"] == 0
    episode = next(store.episodes())
    calls = {c.tool: c for c in episode.tool_calls}
    # sampling: answered by the model under test, recorded with its tokens, its answer reached the tool
    sampling = [e for e in calls["trigger-sampling-request"].events if e["kind"] == "sampling"]
    assert sampling[0]["reply"] == "teal" and sampling[0]["prompt_tokens"] == 5
    assert sampling[0]["model"] == chat.spec and "Name a colour" in sampling[0]["messages"][-1]["content"]
    assert "teal" in calls["trigger-sampling-request"].content
    # elicitation: answered from the task's rule, recorded
    elicited = [e for e in calls["trigger-elicitation-request"].events if e["kind"] == "elicitation"]
    assert elicited[0]["action"] == "accept" and elicited[0]["content"] == {"name": "Ada Lovelace"}
    assert "Ada Lovelace" in calls["trigger-elicitation-request"].content
    # image: stored by content hash beside the DB, a placeholder naming it in the text
    image = calls["get-tiny-image"].attachments[0]
    assert image["kind"] == "image" and image["mime_type"] == "image/png"
    assert blobs.get(image["sha256"])[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"blob {image['sha256'][:12]}" in calls["get-tiny-image"].content
    # resource read through the exposed tool
    assert not calls["read_resource"].is_error and len(calls["read_resource"].content) > 100
    assert "every__read_resource" in episode.tool_hashes
    # the image reaches a model that accepts images as a content part after the tool results, else only the text
    turn2 = fake_openai.requests[-1]["messages"]
    parts = [p for m in turn2 if m["role"] == "user" and isinstance(m["content"], list) for p in m["content"]]
    urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    assert urls == (["data:image/png;base64," + base64.b64encode(blobs.get(image["sha256"])).decode()]
                    if sees_images else [])
    assert turn2[-1]["role"] == ("user" if sees_images else "tool")


def test_unmatched_elicitation_is_declined_and_recorded(npm_bin: Path, tmp_path: Path) -> None:
    async def go() -> tuple[str, list]:
        with episode_sandbox(parent=tmp_path) as sandbox:
            setup = ClientSetup(elicitation=[ElicitationRule(match="never matches this", content={})])
            async with open_toolbox([everything(npm_bin)], sandbox, client=setup) as box:
                outcome = (await box.call("every__trigger-elicitation-request", {}))[2]
                return outcome.content, outcome.events

    content, events = anyio.run(go)
    assert [e["action"] for e in events if e["kind"] == "elicitation"] == ["decline"]
    assert "decline" in content.lower()


def test_progress_is_recorded_and_extends_the_call_timeout(npm_bin: Path, tmp_path: Path) -> None:
    # 3 s of work with a progress step each 0.6 s outlasts a 1.5 s timeout only because progress extends it
    async def go() -> tuple[bool, str | None, list]:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([everything(npm_bin)], sandbox, limits=Limits(call_timeout=1.5)) as box:
                outcome = (await box.call("every__trigger-long-running-operation", {"duration": 3, "steps": 5}))[2]
                return outcome.is_error, outcome.error_kind, outcome.events

    is_error, kind, events = anyio.run(go)
    progress = [e for e in events if e["kind"] == "progress"]
    assert not is_error, kind
    assert [e["progress"] for e in progress] == [1, 2, 3, 4, 5] and progress[0]["total"] == 5


def test_task_augmented_tools_are_offered_and_called_as_tasks(npm_bin: Path, tmp_path: Path) -> None:
    """simulate-research-query requires task augmentation (MCP 2025-11-25 tasks): it is offered, and a call
    creates the task, polls it through its stages and returns its result; the task's course is recorded."""
    async def go() -> tuple[list[str], dict[str, str], object, object]:
        with episode_sandbox(parent=tmp_path) as sandbox:
            rules = [ElicitationRule(match=".*", action="accept", content={"interpretation": "ocean tides"})]
            async with open_toolbox([everything(npm_bin)], sandbox, client=ClientSetup(elicitation=rules)) as box:
                conn = box.connections["every"]
                plain = (await box.call("every__simulate-research-query", {"topic": "tides"}))[2]
                asks = (await box.call("every__simulate-research-query", {"topic": "tides", "ambiguous": True}))[2]
                return [t.qualified_name for t in box.tools], dict(conn.extras.not_offered), plain, asks

    offered, not_offered, plain, asks = anyio.run(go)
    assert "every__simulate-research-query" in offered and not_offered == {}
    assert (plain.is_error, plain.error_kind) == (False, None)  # type: ignore[attr-defined]
    assert plain.content.startswith("# Research Report: tides")  # type: ignore[attr-defined]
    [task] = [e for e in plain.events if e["kind"] == "task"]  # type: ignore[attr-defined]
    stages = ["working: Gathering sources...", "working: Analyzing content...", "working: Synthesizing findings...",
              "working: Generating report...", "completed: Generating report..."]
    # polled each second as the server suggests, against 1 s stages: a stage may pass between two polls
    assert task["statuses"][0] == stages[0] and task["statuses"][-1] == stages[-1]
    assert task["statuses"] == [s for s in stages if s in task["statuses"]]
    kinds = [e["kind"] for e in asks.events]  # type: ignore[attr-defined]
    assert not asks.is_error and "elicitation" in kinds and kinds[-1] == "task", asks  # type: ignore[attr-defined]
    assert "input_required" in " ".join(asks.events[-1]["statuses"])  # type: ignore[attr-defined]


def test_prompts_and_resources_as_tools_with_bad_arguments(npm_bin: Path, tmp_path: Path) -> None:
    async def go() -> dict[str, tuple[bool, str]]:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([everything(npm_bin)], sandbox, client=ClientSetup(expose_resources=True)) as box:
                calls = {"prompt": ("every__get_prompt", {"name": "args-prompt", "arguments": {"city": "Lyon"}}),
                         "no_uri": ("every__read_resource", {}),
                         "bad_uri": ("every__read_resource", {"uri": "demo://nowhere/x"}),
                         "bad_prompt": ("every__get_prompt", {"name": "no-such-prompt"})}
                out = {}
                for key, (name, args) in calls.items():
                    outcome = (await box.call(name, args))[2]
                    out[key] = (outcome.is_error, outcome.content)
                return out

    out = anyio.run(go)
    assert out["prompt"][0] is False and "Lyon" in out["prompt"][1] and out["prompt"][1].startswith("user:")
    assert out["no_uri"] == (True, "read_resource needs a 'uri' string")
    assert out["bad_uri"][0] is True and out["bad_prompt"][0] is True


def test_sampling_provider_failure_reaches_the_server_as_an_error(npm_bin: Path, tmp_path: Path,
                                                                  fake_openai: FakeOpenAI) -> None:
    from fake_openai import Reply

    fake_openai.queue(Reply(500, {"error": {"message": "sampler down"}}))
    sampler = OpenAIModel(model="fake", base_url=fake_openai.base_url, api_key="sk-x",
                          retry=RetryPolicy(max_retries=0, base_delay=0.01))

    async def go() -> tuple[str, list]:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([everything(npm_bin)], sandbox, client=ClientSetup(sampling_model=sampler)) as box:
                outcome = (await box.call("every__trigger-sampling-request", {"prompt": "hi"}))[2]
                return outcome.content, outcome.events

    content, events = anyio.run(go)
    sampling = [e for e in events if e["kind"] == "sampling"]
    assert len(sampling) == 1 and "sampler down" in sampling[0]["error"] and "reply" not in sampling[0]
    assert "sampling failed" in content or "error" in content.lower()


def test_client_options_are_part_of_the_run_key() -> None:
    from mcptrials.agents.reference import ReferenceAgent

    base = RunPlan(servers={}, tasks=[], agent=ReferenceAgent(), model=None)
    exposed = RunPlan(servers={}, tasks=[], agent=ReferenceAgent(), model=None,
                      client=ClientOptions(expose_resources=True, blobs=BlobStore(Path("x.blobs"))))
    assert "client" not in base.settings()
    assert exposed.settings()["client"] == {"expose_resources": True}
