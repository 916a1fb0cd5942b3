"""A model agent (ReAct over real HTTP) replayed: it sees the same tool results, gets the same verdict and state."""

from __future__ import annotations

from pathlib import Path

import anyio
from fake_openai import FakeOpenAI, completion

from mcptrials.agents.react import ReactAgent
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.replay.recording import load_recording
from mcptrials.replay.serve import Replay
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store
from mcptrials.tasks.loader import load_tasks

REPLIES = [
    completion("", [("rail__get_station_codes", {"city": "Beijing"}),
                    ("rail__get_station_codes", {"city": "Shanghai"})]),
    completion("", [("rail__get_tickets", {"from_station": "VNP", "to_station": "SHH", "date": "2026-04-15",
                                           "train_type": "G"})]),
    completion("", [("notes__write_file", {"path": "trip.md", "content": "G1 07:00 and G7 09:00"})]),
    completion("Your options are G1 and G7; saved in trip.md."),
]


def _plan(specs: dict, tasks: list, fake: FakeOpenAI, replay: Replay | None = None) -> RunPlan:
    chat = OpenAIModel(model="fake", base_url=fake.base_url, api_key="sk-test")
    return RunPlan(servers=specs, tasks=tasks, agent=ReactAgent(max_turns=6), model=chat, concurrency=1,
                   replay=replay)


def test_react_episode_replays_to_the_same_prompts_verdict_and_state(example_specs, example_tasks_path,
                                                                      tmp_path: Path) -> None:
    tasks = [t for t in load_tasks(example_tasks_path) if t.id == "ex-trip-note"]
    with FakeOpenAI() as fake:
        fake.queue(*REPLIES)
        live = Store(tmp_path / "live.db")
        anyio.run(execute, _plan(example_specs, tasks, fake), live)
        live_requests = [r["messages"] for r in fake.requests]
    recording, _ = load_recording(str(tmp_path / "live.db"), str(tmp_path / "live.db"))
    gone = {n: s.model_copy(update={"command": str(tmp_path / "absent"), "args": []}) for n, s in example_specs.items()}
    with FakeOpenAI() as fake:
        fake.queue(*REPLIES)
        replayed = Store(tmp_path / "replay.db")
        anyio.run(execute, _plan(gone, tasks, fake, Replay(recording)), replayed)
        replay_requests = [r["messages"] for r in fake.requests]
    assert replay_requests == live_requests  # the model saw exactly the recorded world
    (before,), (after,) = list(live.episodes()), list(replayed.episodes())
    assert [c.replay for c in after.tool_calls] == ["exact"] * 4
    assert after.state == before.state and "trip.md" in str(before.state)  # the write's effect, from the recording
    verdict = {s: Store(tmp_path / db).scores()[e.id]["effects"].passed
               for s, db, e in (("live", "live.db", before), ("replay", "replay.db", after))}
    assert verdict == {"live": True, "replay": True}
