"""``mcptrials release-check`` as a CI runs it: a subprocess on two releases of real servers, verdict and exit code."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
OLD_SERVER = HERE / "old_server.py"
NEW_SERVER = HERE / "new_server.py"
WEATHER_TASKS = HERE / "weather_tasks.jsonl"
EVERYTHING_TASKS = HERE / "everything_tasks.jsonl"
ADAPTING_MODEL = HERE / "adapting_model.json"
"""A scripted model that passes explicit units and tries the new tool name after the old one: it copes with both."""


def release_check(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcptrials.cli", "release-check", *map(str, args)],
                          capture_output=True, text=True, timeout=900, cwd=cwd,
                          env={**os.environ, "COLUMNS": "200"})


def config(path: Path, script: Path | str, name: str = "weather") -> Path:
    path.write_text(json.dumps({"mcpServers": {name: {"command": sys.executable, "args": [str(script)]}}}))
    return path


def changes_by_tool(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["tool"]: c for c in report["changes"]}


def test_a_renamed_tool_and_a_required_parameter_break_the_release(tmp_path: Path) -> None:
    old, new = config(tmp_path / "old.json", OLD_SERVER), config(tmp_path / "new.json", NEW_SERVER)
    summary = tmp_path / "pr" / "release-check.md"
    done = release_check("--old", old, "--new", new, "--tasks", WEATHER_TASKS, "--db", tmp_path / "rc.db",
                         "--markdown", summary, "--format", "json", "--model", f"scripted:{ADAPTING_MODEL}")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "breaking" and report["exit_code"] == 1
    assert (report["old_tools"], report["new_tools"]) == (3, 4)
    assert report["patterns"] == ["P2", "P5", "P13"]
    changes = changes_by_tool(report)
    assert set(changes) == {"get_weather", "list_all_cities", "air_quality"}  # forecast did not change
    assert changes["get_weather"]["patterns"] == ["P13"] and changes["get_weather"]["tasks"] == ["weather-paris"]
    assert changes["get_weather"]["breaking"] == ["param_promoted units"]
    renamed = changes["list_all_cities"]
    assert renamed["status"] == "replaced" and renamed["old_name"] == "list_cities"
    assert renamed["patterns"] == ["P5"] and renamed["tasks"] == ["weather-cities"]
    assert changes["air_quality"]["patterns"] == ["P2"] and not changes["air_quality"]["tasks"]
    assert not changes["air_quality"]["breaking"]
    refs = {r["task"]: (r["old"], r["new"]) for r in report["references"]}
    assert refs == {"weather-paris": ("passes", "broken"), "weather-cities": ("passes", "broken"),
                    "weather-rome-tomorrow": ("passes", "identical")}
    paris = next(r for r in report["references"] if r["task"] == "weather-paris")
    assert paris["patterns"] == ["P13"] and "units" in paris["reasons"][0]
    stale, model = report["agents"]
    assert stale["agent"] == "stale" and stale["old"]["passed"] == 3 and stale["new"]["passed"] == 1
    assert stale["regressions"] == ["weather-paris", "weather-cities"] and stale["fixes"] == []
    assert (model["agent"], model["model"]) == ("react", f"scripted:{ADAPTING_MODEL}")
    assert model["old"]["passed"] == model["new"]["passed"] == 3 and model["regressions"] == []
    assert not any("scripted" in f["text"] for f in report["findings"])  # a model that copes is no reason
    text = summary.read_text()
    assert text.startswith("## Release check: `weather` old.json → new.json")
    assert "**Verdict: ❌ breaking** (exit code 1)" in text
    assert "| `list_cities` → `list_all_cities` | replaced | P5 |" in text
    assert "| `weather-paris` | passes | broken |" in text
    assert "| stale | – | 100 % (3/3) | 33 % (1/3) | `weather-paris`, `weather-cities` | – |" in text
    assert f"| react | scripted:{ADAPTING_MODEL} | 100 % (3/3) | 100 % (3/3) | – | – |" in text
    # the episodes are in the store as two versions of one server, so the rest of mcptrials reads them
    shown = subprocess.run([sys.executable, "-m", "mcptrials.cli", "report", "--db", str(tmp_path / "rc.db"),
                            "--format", "json"], capture_output=True, text=True, timeout=300)
    assert shown.returncode == 0, shown.stderr
    versions = {e["version"] for e in json.loads(shown.stdout)["episodes"]}
    assert versions == {"v0", "v1"}


def test_the_same_release_twice_is_compatible(tmp_path: Path) -> None:
    old = config(tmp_path / "old.json", OLD_SERVER)
    done = release_check("--old", old, "--new", old, "--tasks", WEATHER_TASKS, "--db", tmp_path / "rc.db",
                         "--format", "markdown")
    assert done.returncode == 0, done.stderr
    assert "**Verdict: ✅ compatible** (exit code 0)" in done.stdout
    assert "Patterns: none." in done.stdout and "### Why" not in done.stdout


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"})


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_an_added_tool_since_a_git_ref_is_compatible_with_warnings(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    server = repo / "server.py"
    server.write_text(OLD_SERVER.read_text())
    _git(repo, "init", "-q")
    _git(repo, "add", "server.py")
    _git(repo, "commit", "-q", "-m", "1.0")
    _git(repo, "tag", "v1.0")
    added = '\n\n@server.tool()\ndef air_quality(city: str) -> str:\n    """Air quality index in a city."""\n' \
            '    return f"{city}: AQI 42"\n'
    server.write_text(OLD_SERVER.read_text().replace('\n\nif __name__ ==', added + '\n\nif __name__ =='))
    cfg = config(tmp_path / "servers.json", server)
    cache = {"MCPTRIALS_CACHE": str(tmp_path / "cache")}
    os.environ.update(cache)
    try:
        done = release_check("--servers", cfg, "--git-ref", "v1.0", "--tasks", WEATHER_TASKS,
                             "--db", tmp_path / "rc.db", "--format", "json")
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert report["verdict"] == "compatible-with-warnings" and report["source"] == "git"
        assert report["old"].startswith("v1.0 (") and report["new"] == "work tree"
        assert (report["old_tools"], report["new_tools"]) == (3, 4) and report["patterns"] == ["P2"]
        assert [f["level"] for f in report["findings"]] == ["warning"]
        assert all(r["new"] == "identical" for r in report["references"])
        exported = list((tmp_path / "cache" / "releases" / "git").glob("repo@*/server.py"))
        assert len(exported) == 1 and "air_quality" not in exported[0].read_text()
        # a gate that refuses warnings fails on the same check (resumed from the store: nothing runs again)
        strict = release_check("--servers", cfg, "--git-ref", "v1.0", "--tasks", WEATHER_TASKS,
                               "--db", tmp_path / "rc.db", "--fail-on", "warnings", "--format", "markdown")
        assert strict.returncode == 1, strict.stderr
        assert "**Verdict: ⚠️ compatible-with-warnings** (exit code 1)" in strict.stdout
        assert "(3 already stored)" in strict.stderr
    finally:
        for key in cache:
            os.environ.pop(key)


@pytest.mark.parametrize(("args", "message"), [
    ((), "give the releases one way"),
    (("--old", "OLD"), "--old and --new go together"),
    (("--package", "@modelcontextprotocol/server-memory", "--old-version", "1"), "needs --servers"),
    (("--old", "OLD", "--new", "OLD", "--server", "nope"), "no server 'nope'"),
    (("--old", "OLD", "--new", "OLD", "--tasks", "TASKS", "--format", "yaml"), "unknown format 'yaml'"),
    (("--servers", "OLD", "--git-ref", "HEAD"), "not in a git work tree"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    old = config(tmp_path / "old.json", tmp_path / "nowhere" / "server.py")
    (tmp_path / "nowhere").mkdir()
    (tmp_path / "nowhere" / "server.py").write_text(OLD_SERVER.read_text())
    real = [str(old) if a == "OLD" else str(WEATHER_TASKS) if a == "TASKS" else a for a in args]
    done = release_check(*real, cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.slow
def test_two_published_releases_of_the_everything_server(npm_bin: Path, tmp_path: Path) -> None:
    """npm's server-everything renamed add to get-sum (and more) between 2025.11.25 and 2026.1.14."""
    cfg = tmp_path / "every.json"
    cfg.write_text(json.dumps({"mcpServers": {"every": {
        "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything", "stdio"]}}}))
    summary = tmp_path / "release-check.md"
    done = release_check("--servers", cfg, "--package", "@modelcontextprotocol/server-everything",
                         "--old-version", "2025.11.25", "--new-version", "2026.1.14", "--tasks", EVERYTHING_TASKS,
                         "--db", tmp_path / "rc.db", "--markdown", summary, "--format", "json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "breaking" and report["source"] == "npm"
    changes = changes_by_tool(report)
    assert changes["get-sum"]["old_name"] == "add" and changes["get-sum"]["patterns"] == ["P5"]
    assert changes["get-sum"]["tasks"] == ["every-sum"]
    assert changes["printEnv"]["status"] == "removed" and changes["printEnv"]["patterns"] == ["P17"]
    refs = {r["task"]: (r["old"], r["new"]) for r in report["references"]}
    assert refs == {"every-sum": ("passes", "broken"), "every-echo": ("passes", "identical")}
    [stale] = report["agents"]
    assert stale["regressions"] == ["every-sum"]
    assert "| `add` → `get-sum` | replaced | P5 |" in summary.read_text()


CRASHING = ('import os, sys\nsys.stderr.write("cannot log in with " + os.environ["WEATHER_TOKEN"] + "\\n")\n'
            'sys.exit(3)\n')
TOKEN = "wx-token-8f2c41d9e7"


def test_a_new_release_that_does_not_start_is_breaking_and_keeps_its_secret(tmp_path: Path) -> None:
    old = config(tmp_path / "old.json", OLD_SERVER)
    crashing = tmp_path / "crashing_server.py"
    crashing.write_text(CRASHING)
    new = tmp_path / "new.json"
    new.write_text(json.dumps({"mcpServers": {"weather": {"command": sys.executable, "args": [str(crashing)],
                                                          "env": {"WEATHER_TOKEN": TOKEN}}}}))
    summary = tmp_path / "release-check.md"
    done = release_check("--old", old, "--new", new, "--tasks", WEATHER_TASKS, "--db", tmp_path / "rc.db",
                         "--markdown", summary, "--format", "json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "breaking" and report["new_tools"] is None and report["agents"] == []
    [finding] = report["findings"]
    assert finding["level"] == "breaking" and "the new release (new.json) does not start" in finding["text"]
    assert "cannot log in with ***" in finding["text"]  # the server's last words, its token masked
    assert TOKEN not in done.stdout and TOKEN not in summary.read_text()
    # the other way round there is nothing to check against: bad input
    backwards = release_check("--old", new, "--new", old, "--tasks", WEATHER_TASKS, "--db", tmp_path / "rc.db")
    assert backwards.returncode == 2, backwards.stderr
    assert "the old release (new.json) of 'weather' did not start" in backwards.stderr
    assert TOKEN not in backwards.stderr


def test_a_secret_in_a_broken_reference_stays_out_of_the_summary(tmp_path: Path) -> None:
    old = config(tmp_path / "old.json", OLD_SERVER)
    new = tmp_path / "new.json"
    new.write_text(json.dumps({"mcpServers": {"weather": {"command": sys.executable, "args": [str(NEW_SERVER)],
                                                          "env": {"WEATHER_TOKEN": TOKEN}}}}))
    summary = tmp_path / "release-check.md"
    done = release_check("--old", old, "--new", new, "--tasks", WEATHER_TASKS, "--no-stale",
                         "--db", tmp_path / "rc.db", "--markdown", summary, "--format", "json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    rome = next(r for r in report["references"] if r["task"] == "weather-rome-tomorrow")
    assert rome["new"] == "broken" and "the forecast service refused token ***" in rome["reasons"][0]
    assert report["agents"] == []  # --no-stale and no --model: no agent ran
    assert TOKEN not in done.stdout and TOKEN not in summary.read_text()
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("rc.db*"))  # the refreshes kept in the store
    assert b"the forecast service refused token ***" in stored and TOKEN.encode() not in stored
