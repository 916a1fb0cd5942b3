"""`mcptrials export`: inspect_ai logs read back with inspect's own reader; JSONL one episode per line."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from report_world import cli, report_json

pytestmark = pytest.mark.slow  # the shared store takes a minute of real runs to build


def test_inspect_logs_read_back_with_our_counts_and_scores(world_db: Path, tmp_path: Path) -> None:
    from inspect_ai.log import list_eval_logs, read_eval_log

    cli("export", "--format", "inspect", "--out", str(tmp_path / "logs"), "--db", str(world_db))
    data = report_json(world_db)
    rows = {r["episode_id"]: r for r in data["episodes"]}
    groups = Counter((r["model"], r["agent"], r["version"]) for r in rows.values())
    listed = list_eval_logs(str(tmp_path / "logs"))  # what `inspect view` lists
    assert len(listed) == len(groups) == 5  # stale v0/v3, scripted v0/v3, fake model v0
    seen: set[str] = set()
    per_version = {(r["model"], r["agent"], r["version"]): r for r in data["per_version"]}
    for info in listed:
        log = read_eval_log(info)
        assert log.status == "success" and log.samples
        first = rows[log.samples[0].metadata["episode_id"]]
        key = (first["model"], first["agent"], first["version"])
        assert log.eval.model == first["model"] and log.eval.solver == first["agent"]
        assert len(log.samples) == groups[key] == log.results.total_samples
        metrics = log.results.scores[0].metrics
        assert metrics["pass_hat_k"].value == per_version[key]["pass_hat_k"]
        assert metrics["pass_at_1"].value == per_version[key]["pass_at_1"]
        for sample in log.samples:
            row = rows[sample.metadata["episode_id"]]
            seen.add(row["episode_id"])
            assert (sample.id, sample.epoch) == (row["task_id"], row["attempt"] + 1)
            assert sample.scores["effects"].value == (1.0 if row["outcome"] == "passed" else 0.0)
            assert sample.scores["checkpoints"].value == row["checkpoint_fraction"]
            assert sample.scores["effects"].metadata["failure_codes"] == row["failure_codes"]
            calls = [c for m in sample.messages if m.role == "assistant" for c in (m.tool_calls or [])]
            results = [m for m in sample.messages if m.role == "tool"]
            assert len(calls) == len(results) == row["tool_calls"]
            assert {c.id for c in calls} == {m.tool_call_id for m in results}
            assert sample.messages[0].role == "user"
            if row["outcome"] != "passed":
                assert "failed" in (sample.scores["effects"].explanation or "")
    assert seen == set(rows)
    headers = [read_eval_log(i, header_only=True).eval for i in listed]
    assert len({h.task_id for h in headers}) == len(headers)  # `inspect view` folds logs with one task id as retries
    for h in headers:
        assert h.dataset.samples == len(h.dataset.sample_ids or [])  # tasks, not tasks x epochs
    # tool errors are shown as errors: the stale agent called a tool v3 renamed
    stale_v3 = next(read_eval_log(i) for i in listed if "v3_none_stale" in i.name)
    errors = [m for s in stale_v3.samples for m in s.messages if m.role == "tool" and m.error is not None]
    assert errors and all("unknown_tool" in e.error.message for e in errors)


def test_jsonl_one_episode_per_line(world_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "episodes.jsonl"
    cli("export", "--format", "jsonl", "--out", str(out), "--db", str(world_db))
    lines = out.read_text().splitlines()
    data = report_json(world_db)
    assert len(lines) == len(data["episodes"])
    by_id = {r["episode_id"]: r for r in data["episodes"]}
    for line in lines:
        record = json.loads(line)
        episode = record["episode"]
        assert record["row"] == by_id[episode["id"]]
        assert record["scores"]["effects"]["passed"] == (by_id[episode["id"]]["outcome"] == "passed")
        assert len([s for s in episode["steps"] if s["kind"] == "tool"]) == record["row"]["tool_calls"]
    stdout = cli("export", "--format", "jsonl", "--db", str(world_db)).stdout.splitlines()
    assert len(stdout) == len(lines)


@pytest.mark.parametrize(("args", "message"), [
    (["--format", "parquet"], "unknown export format"),
    (["--format", "inspect"], "needs --out"),
])
def test_bad_export_requests_are_one_line(world_db: Path, args: list[str], message: str) -> None:
    done = cli("export", *args, "--db", str(world_db), check=False)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
