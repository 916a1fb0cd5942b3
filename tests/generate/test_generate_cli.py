"""`mcptrials generate` end to end: a scripted model on the local OpenAI-compatible endpoint, real servers.

Over the bundled servers (weather, parks) and over mcp-server-time + mcp-server-git: both methods
keep tasks that pass `tasks check` and their own alternatives, and that `run` and the evolved
stages take unchanged; malformed replies at every stage are retried, then dropped with a reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from fake_openai import completion
from gen_endpoint import TIME_RECIPE, GenModel, Recipe, Step, endpoint, git_author_recipe, git_recipe
from typer.testing import CliRunner

from mcptrials.cli import app
from mcptrials.tasks.alternatives import load_alternatives
from mcptrials.tasks.loader import load_tasks

runner = CliRunner()
WEATHER = Recipe("What will the weather be in Denver over the next two days? Give me the daily highs and lows.",
                 [Step("weather__search_locations", {"query": "Denver"}),
                  Step("weather__get_forecast", {"location": "$id", "days": 2})])
PARKS = Recipe("Which campgrounds does Bryce Canyon National Park have, and what do they cost per night?",
               [Step("parks__search_parks", {"query": "Bryce", "limit": 1}),
                Step("parks__get_campgrounds", {"park_code": "$park_code"})])


def generate(fake, out: Path, *args: str) -> tuple[int, dict]:
    result = runner.invoke(app, ["generate", "--model", "openai:gpt-4o-mini", "--base-url", fake.base_url,
                                 "--out", str(out), "--format", "json", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    start = result.stdout.find("{")
    assert start >= 0, result.output
    return result.exit_code, json.loads(result.stdout[start:])


def check(out: Path, *extra: str) -> None:
    """The generated files work unchanged with `tasks check` (references, discrimination, alternatives)."""
    tasks = ["--tasks", str(out), *extra]
    refs = runner.invoke(app, ["tasks", "check", *tasks, "--format", "json"])
    assert refs.exit_code == 0, refs.output
    summary = json.loads(refs.stdout[refs.stdout.find("{"):])
    assert summary["reference_passed"] == summary["tasks"] > 0
    alts = runner.invoke(app, ["tasks", "check", *tasks, "--alternatives-from",
                               str(out.with_name(f"{out.stem}.alternatives.yaml")), "--format", "json"])
    assert alts.exit_code == 0, alts.output
    played = json.loads(alts.stdout[alts.stdout.find("{"):])
    assert played["accept"]["total"] >= 1 and played["reject"]["total"] >= 1 and not played["misses"]


@pytest.mark.slow
def test_chains_on_bundled_servers(tmp_path: Path) -> None:
    model = GenModel()
    out = tmp_path / "tasks.jsonl"
    with endpoint(model) as fake:
        code, report = generate(fake, out, "--method", "chains", "--n", "2", "--server", "weather,parks",
                                "--max-candidates", "10", "--seed", "3")
    assert code == 0 and report["kept"] == 2, report
    tasks = load_tasks(out)
    assert len(tasks) == 2
    for task in tasks:
        assert task.concrete_prompt and task.prompt != task.concrete_prompt and task.dependency_analysis
        assert task.key_points and task.category in {"prerequisite-strict", "complementary", "long-similar-chain"}
        prov = task.provenance
        assert prov["method"] == "chains" and prov["model"] == "openai:gpt-4o-mini" and prov["seed"] == 3
        assert set(prov["prompts"]) >= {"synthesise_system.txt", "quality_system.txt", "fuzz_system.txt"}
        assert prov["quality"]["solvability"] >= 9 and len(prov["chain"]["tools"]) >= 2
    stages = {s["stage"]: s for s in report["stages"]}
    assert stages["discover"]["entered"] == report["candidates"]
    assert stages["keypoints"]["passed"] == 2
    # chains the scripted reviewer cannot see how to do are filtered out, with the reason
    quality_drops = stages["quality"]["dropped"]
    assert all(reason.startswith("solvability 6 < 9") for reason in quality_drops)
    usage = report["usage"]
    assert usage["model_requests"] == usage["ledger_requests"] == len(fake.requests)
    assert usage["prompt_tokens"] == 11 * len(fake.requests) and usage["completion_tokens"] == 7 * len(fake.requests)
    assert usage["cost_usd"] == pytest.approx(len(fake.requests) * (11 * 0.15 + 7 * 0.60) / 1e6, abs=1e-6)
    check(out)
    # the same files run unchanged, and on evolved versions of the servers
    db = tmp_path / "run.db"
    ran = runner.invoke(app, ["run", "--agent", "reference", "--tasks", str(out), "--db", str(db)])
    assert ran.exit_code == 0, ran.output
    evolved = runner.invoke(app, ["tasks", "check", "--tasks", str(out), "--stages", "v0,v3", "--format", "json"])
    assert evolved.exit_code == 0, evolved.output
    assert json.loads(evolved.stdout[evolved.stdout.find("{"):])["reference_passed"] == 4


@pytest.mark.slow
def test_explore_on_bundled_servers_with_distractors(tmp_path: Path) -> None:
    model = GenModel(explore_recipes={"weather": WEATHER, "parks": PARKS})
    out = tmp_path / "explored.jsonl"
    (tmp_path / "workspace" / "trip").mkdir(parents=True)
    (tmp_path / "workspace" / "trip" / "notes.md").write_text("Denver, then Bryce Canyon.\n")
    with endpoint(model) as fake:
        code, report = generate(fake, out, "--method", "explore", "--n", "2", "--server", "weather,parks,maps",
                                "--categories", "random,sibling", "--distractors", "2", "--max-candidates", "6",
                                "--fixtures", str(tmp_path / "workspace"))
    assert code == 0 and report["kept"] == 2, report
    tasks = load_tasks(out)
    assert len({t.prompt for t in tasks}) == len(tasks) == 2  # a goal seen before is dropped, never kept twice
    assert all(r.startswith("the same goal as explore-s0-") for s in report["stages"] if s["stage"] == "goal"
               for r in s["dropped"])
    for task in tasks:
        assert task.fixtures.files == {"trip/notes.md": "Denver, then Bryce Canyon.\n"}
        assert task.category in {"random", "sibling"} and task.key_points
        assert len(task.distractors) == 2 and not {d.split("__")[0] for d in task.distractors} & set(task.servers)
        assert task.provenance["persona"] and task.provenance["anchor"]
        assert task.provenance["distractors"]["k"] == 2
    alternatives = load_alternatives(out.with_name("explored.alternatives.yaml"))
    assert {a.task for a in alternatives} == {t.id for t in tasks}
    check(out)
    # re-running the finished command replays everything and asks the model nothing
    asked = len(fake.requests)
    with endpoint(model) as again:
        code, report = generate(again, out, "--method", "explore", "--n", "2", "--server", "weather,parks,maps",
                                "--categories", "random,sibling", "--distractors", "2", "--max-candidates", "6",
                                "--fixtures", str(tmp_path / "workspace"))
    assert code == 0 and report["kept"] == 2 and not again.requests and asked > 0
    assert report["usage"]["model_requests"] == 0 and report["usage"]["ledger_requests"] > 0


def _git_repo(path: Path) -> Path:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-04-01T10:00:00+00:00", "GIT_COMMITTER_DATE":
           "2026-04-01T10:00:00+00:00", "GIT_AUTHOR_NAME": "Ada Lovelace", "GIT_AUTHOR_EMAIL": "ada@example.org",
           "GIT_COMMITTER_NAME": "Ada Lovelace", "GIT_COMMITTER_EMAIL": "ada@example.org"}
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True, env=env)
    (path / "notes.txt").write_text("engine notes\n")
    subprocess.run(["git", "-C", str(path), "add", "notes.txt"], check=True, env=env)
    subprocess.run(["git", "-C", str(path), "commit", "-q", "-m", "Describe the analytical engine"], check=True,
                   env=env)
    return path


def _time_git_config(tmp_path: Path) -> tuple[Path, Path]:
    repo = _git_repo(tmp_path / "repo")
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {
        "time": {"command": "python", "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]},
        "git": {"command": "python", "args": ["-m", "mcp_server_git", "--repository", str(repo)]}}}))
    return repo, config


@pytest.mark.slow
def test_both_methods_over_time_and_git(tmp_path: Path) -> None:
    repo, config = _time_git_config(tmp_path)
    git = [git_recipe(str(repo)), git_author_recipe(str(repo))]
    model = GenModel(explore_recipes={"time": TIME_RECIPE, "git": git},
                     chain_makers=[lambda tool: git_recipe(str(repo)) if tool == "git__git_show" else None])
    with endpoint(model) as fake:
        chains_out = tmp_path / "chains.jsonl"
        # mcp-server-time's one dependency feeds get_current_time (the wall clock): chains come from git
        code, report = generate(fake, chains_out, "--servers", str(config), "--server", "git", "--method", "chains",
                                "--n", "1", "--max-candidates", "4", "--seed", "1")
        assert code == 0 and report["kept"] == 1, report
        explore_out = tmp_path / "explore.jsonl"
        code, report = generate(fake, explore_out, "--servers", str(config), "--method", "explore", "--n", "2",
                                "--categories", "random,sibling", "--max-candidates", "6")
        assert code == 0 and report["kept"] == 2, report
    chain_task = load_tasks(chains_out)[0]
    assert [s.tool for s in chain_task.reference] == ["git__git_log", "git__git_show"]
    assert chain_task.provenance["chain"]["edges"][0]["param"] == "revision"
    assert {t.servers[0] for t in load_tasks(explore_out)} <= {"time", "git"}
    check(chains_out, "--servers", str(config))
    check(explore_out, "--servers", str(config))


CHAIN_ARGS = ("--method", "chains", "--n", "1", "--server", "weather", "--max-candidates", "1", "--seed", "1")
EXPLORE_ARGS = ("--method", "explore", "--n", "1", "--server", "weather", "--categories", "random",
                "--max-candidates", "1")


@pytest.mark.slow
@pytest.mark.parametrize(("stage", "args"), [("synthesise", CHAIN_ARGS), ("quality", CHAIN_ARGS),
                                             ("fuzz", CHAIN_ARGS), ("keypoints", CHAIN_ARGS),
                                             ("goal", EXPLORE_ARGS), ("keypoints", EXPLORE_ARGS)])
def test_malformed_replies_are_retried_then_dropped(tmp_path: Path, stage: str, args: tuple[str, ...]) -> None:
    recipes = {"weather": WEATHER}
    # one malformed reply: asked again, and the candidate is kept
    model = GenModel(explore_recipes=recipes, faults={stage: 1})
    with endpoint(model) as fake:
        code, report = generate(fake, tmp_path / "once.jsonl", *args)
    assert code == 0 and report["kept"] == 1, report
    assert model.seen[stage] == 2
    # malformed every time: three requests (two retries), then dropped at that stage with the reason
    model = GenModel(explore_recipes=recipes, faults={stage: 99})
    with endpoint(model) as fake:
        code, report = generate(fake, tmp_path / "always.jsonl", *args)
    assert code == 1 and report["kept"] == 0
    assert model.seen[stage] == 3
    dropped = report["dropped"][0]
    assert dropped["stage"] == stage
    expected = "no usable key points" if stage == "keypoints" else "malformed reply"
    assert f"{expected} after 3 request(s)" in dropped["reason"]
    assert (tmp_path / "always.jsonl").read_text() == ""


@pytest.mark.slow
@pytest.mark.parametrize(("rewrite", "why"), [
    ("Could you check the air somewhere nice for me and tell me how it is?", "dropped the value(s) Denver"),
    ("Run weather__search_locations for Denver and tell me the air quality.", "names tool(s) search_locations"),
])
def test_a_rewrite_that_loses_a_value_or_names_a_tool_is_refused(tmp_path: Path, rewrite: str, why: str) -> None:
    model = GenModel(fuzz_reply=rewrite)
    with endpoint(model) as fake:
        code, report = generate(fake, tmp_path / "f.jsonl", *CHAIN_ARGS)
    assert code == 1 and model.seen["fuzz"] == 3
    assert report["dropped"][0]["stage"] == "fuzz" and why in report["dropped"][0]["reason"]


@pytest.mark.slow
def test_provider_errors_and_explorer_failures_drop_the_candidate(tmp_path: Path) -> None:
    model = GenModel(provider_error={"synthesise"})
    with endpoint(model) as fake:
        code, report = generate(fake, tmp_path / "p.jsonl", *CHAIN_ARGS)
    assert code == 1 and report["dropped"][0]["stage"] == "synthesise"
    assert "provider bad_request" in report["dropped"][0]["reason"]
    # a provider failure is not the candidate's fault: the re-run tries it again (and keeps it)
    with endpoint(GenModel()) as fake:
        code, report = generate(fake, tmp_path / "p.jsonl", *CHAIN_ARGS)
    assert code == 0 and report["kept"] == 1
    # an explorer that cannot do the goal gives up: dropped at the explore stage
    model = GenModel(explore_recipes={"weather": WEATHER})
    model.explore = lambda request: completion("GIVE UP: no idea")  # type: ignore[method-assign]
    with endpoint(model) as fake:
        code, report = generate(fake, tmp_path / "x.jsonl", *EXPLORE_ARGS)
    assert code == 1 and report["dropped"][0]["stage"] == "explore" and report["dropped"][0]["reason"]
    # an explorer whose tool calls never parse, or whose provider refuses: dropped at explore, no crash
    model = GenModel(explore_recipes={"weather": WEATHER})
    model.explore = lambda request: completion(tool_calls=[("weather__search_locations", "{not json")])  # type: ignore[method-assign]
    with endpoint(model) as fake:
        code, report = generate(fake, tmp_path / "y.jsonl", *EXPLORE_ARGS, "--max-turns", "3")
    assert code == 1 and report["dropped"][0]["stage"] == "explore", report["dropped"]
    model = GenModel(explore_recipes={"weather": WEATHER}, provider_error={"explorer"})
    with endpoint(model) as fake:
        code, report = generate(fake, tmp_path / "z.jsonl", *EXPLORE_ARGS)
    assert code == 1 and report["dropped"][0]["stage"] == "explore" and "bad_request" in report["dropped"][0]["reason"]


def test_quality_thresholds_are_options(tmp_path: Path) -> None:
    model = GenModel()
    with endpoint(model) as fake:
        code, report = generate(fake, tmp_path / "q.jsonl", *CHAIN_ARGS, "--min-utility", "8")
    assert code == 1 and report["dropped"][0] == {**report["dropped"][0], "stage": "quality",
                                                  "reason": "utility 7 < 8"}


@pytest.mark.slow
def test_bad_options_are_one_line_errors(tmp_path: Path) -> None:
    base = ["generate", "--out", str(tmp_path / "t.jsonl"), "--n", "1", "--model", "openai:x"]
    for extra, message in [(["--method", "chains", "--categories", "random,nonsense"], "unknown category nonsense"),
                           (["--method", "walk"], "unknown method 'walk'"),
                           (["--method", "explore", "--server", "nowhere"], "no server nowhere"),
                           (["--method", "explore", "--now", "2026-04-13T09:00:00"], "needs a UTC offset"),
                           (["--method", "explore", "--format", "csv"], "unknown format 'csv'"),
                           (["--method", "explore", "--fixtures", str(tmp_path / "none")], "not a folder")]:
        result = runner.invoke(app, base + extra)
        assert result.exit_code == 2, result.output
        assert message in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_killed_generate_resumes_without_repeating_paid_calls(tmp_path: Path) -> None:
    """A real `mcptrials generate` process killed mid-candidate; the re-run asks nothing it was answered before."""
    import threading

    model = GenModel()
    hold = threading.Event()
    reached = threading.Event()
    answered: list[str] = []

    def responder(request: dict) -> object:
        if model.stage(request) == "explorer" and not reached.is_set():
            reached.set()  # the first explorer turn: synthesis and review of this candidate are answered already
            hold.wait(60)  # never answered: the process is killed while it waits
        reply = model(request)
        answered.append(json.dumps(request, sort_keys=True))
        return reply

    out = tmp_path / "tasks.jsonl"
    with endpoint(responder) as fake:  # type: ignore[arg-type]
        args = [sys.executable, "-m", "mcptrials.cli", "generate", "--model", "openai:gen", "--base-url", fake.base_url,
                "--out", str(out), "--method", "chains", "--n", "2", "--server", "weather,parks", "--seed", "3",
                "--max-candidates", "10", "--format", "json"]
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert reached.wait(120), proc.stderr.read().decode() if proc.poll() is not None else "no request"
            proc.kill()
            proc.wait(30)
        finally:
            hold.set()
        first_run = list(answered)
        answered.clear()
        done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["kept"] == 2
    repeated = set(first_run) & set(answered)
    assert not repeated, f"{len(repeated)} answered request(s) were sent again"
    assert report["usage"]["replayed_from_ledger"] >= 1  # the interrupted candidate's answered synthesis
    assert len(load_tasks(out)) == 2
    assert yaml.safe_load(out.with_name("tasks.alternatives.yaml").read_text())["alternatives"]


@pytest.mark.slow
def test_same_seed_and_replies_give_the_same_tasks(tmp_path: Path) -> None:
    outputs = []
    for name in ("a", "b"):
        model = GenModel()
        out = tmp_path / name / "tasks.jsonl"
        with endpoint(model) as fake:
            code, _ = generate(fake, out, "--method", "chains", "--n", "1", "--server", "weather", "--seed", "5",
                               "--max-candidates", "3")
        assert code == 0
        outputs.append((out.read_bytes(), out.with_name("tasks.alternatives.yaml").read_bytes()))
    assert outputs[0] == outputs[1] and outputs[0][0]
