"""Stored episodes as inspect_ai eval logs (one per model x agent x version), so `inspect view` shows our runs.

Built with inspect_ai's own log types (the optional extra ``inspect``). Each episode is a sample:
id = task id, epoch = attempt + 1; its messages are the task prompt, every agent turn with its
tool calls, and each tool result (errors as ``ToolCallError``). Scores are ours, not recomputed:
``effects`` is 1 when the Tier-1 verdict passed, else 0, and ``checkpoints`` is the checkpoint
fraction. The log's metrics are the report's numbers for that model, agent and version.
An infra-error episode is a sample with an ``error`` and no score (it is not a result).
"""

from __future__ import annotations

import base64
import re
from collections import defaultdict
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from mcptrials.model import Episode, ModelTurn, Score, Task, ToolCallRecord, stable_hash
from mcptrials.servers.client import event_lines
from mcptrials.store.db import is_judged, outcome_of, task_for

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample
    from inspect_ai.model import ChatMessage, Content
    from pydantic import JsonValue

    from mcptrials.servers.blobs import BlobStore


class InspectMissing(RuntimeError):
    """inspect-ai is not installed."""


def _require() -> None:
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise InspectMissing("the inspect export needs inspect-ai: pip install 'mcptrials[inspect]'") from None


def _tool_content(step: ToolCallRecord, blobs: BlobStore | None) -> str | list[Content]:
    """A tool result's text, plus each image it returned (read back from the run's blob store) as an image."""
    from inspect_ai.model import ContentImage, ContentText

    images: list[Content] = []
    for item in step.attachments:
        if item.get("kind") != "image" or "sha256" not in item or blobs is None:
            continue
        try:
            data = base64.b64encode(blobs.get(str(item["sha256"]))).decode("ascii")
        except OSError:  # the blob is gone (store copied without its .blobs folder): the text still names it
            continue
        images.append(ContentImage(image=f"data:{item.get('mime_type') or 'image/png'};base64,{data}"))
    return [ContentText(text=step.content), *images] if images else step.content


def _messages(episode: Episode, task: Task | None, blobs: BlobStore | None = None) -> list[ChatMessage]:
    """The conversation as inspect messages: user prompt, assistant turns with tool calls, tool results."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser
    from inspect_ai.tool import ToolCall, ToolCallError

    out: list[ChatMessage] = [ChatMessageUser(content=task.prompt if task else f"(task {episode.task_id})")]
    announced: set[str] = set()
    last_text = ""
    for step in episode.steps:
        if isinstance(step, ModelTurn):
            if step.role != "agent":
                continue
            calls = [ToolCall(id=c.id, function=c.name, arguments=c.arguments or {},
                              parse_error=None if c.arguments is not None else f"not JSON: {c.raw_arguments!r}")
                     for c in step.tool_calls]
            announced.update(c.id for c in step.tool_calls)
            out.append(ChatMessageAssistant(content=step.text, tool_calls=calls or None, model=episode.model))
            last_text = step.text
        elif isinstance(step, ToolCallRecord):
            if step.call_id not in announced:  # a model-free agent (reference, stale): the call stands alone
                out.append(ChatMessageAssistant(content="", tool_calls=[ToolCall(
                    id=step.call_id, function=step.name, arguments=step.arguments or {})], model=episode.model))
                announced.add(step.call_id)
            error = ToolCallError("timeout" if step.error_kind in {"timeout", "server_unresponsive"} else "unknown",
                                  f"{step.error_kind or 'tool_error'}: {step.content}") if step.is_error else None
            out.append(ChatMessageTool(content=_tool_content(step, blobs), tool_call_id=step.call_id,
                                       function=step.name, error=error,
                                       metadata={"mcp_events": step.events} if step.events else None))
    if episode.final_answer and episode.final_answer.strip() != last_text.strip():
        out.append(ChatMessageAssistant(content=episode.final_answer, model=episode.model))
    return out


def _server_events(episode: Episode) -> list[Any]:
    """What servers asked of the client during calls (roots, sampling, elicitation, progress) as inspect info
    events, one per call that had any, in the transcript's order."""
    from inspect_ai.event import InfoEvent

    started = episode.started_at or datetime.now(UTC)
    return [InfoEvent(source=f"mcp:{call.server or call.name}", timestamp=started + timedelta(
                seconds=(call.started_s or 0.0) + call.latency_s),
                      data=cast("JsonValue", {"call": call.name, "step": call.index,
                                              "lines": event_lines(call.events), "events": call.events}))
            for call in episode.tool_calls if call.events]


def _sample(episode: Episode, scores: Mapping[str, Score], task: Task | None, sample_id: str,
            blobs: BlobStore | None = None) -> EvalSample:
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import Score as InspectScore

    effects = scores.get("effects")
    outcome = outcome_of(episode, effects, scores.values())
    sample_scores: dict[str, InspectScore] = {}
    if outcome not in {"infra_error", "unjudged"} and effects is not None and not is_judged(effects):
        failed = [c for c in effects.checkpoints if not c.passed]
        explanation = "passed" if effects.passed else "failed: " + ", ".join(effects.failure_codes) + "".join(
            f"; {c.id}: {c.failure or 'unmet'} {c.detail}".rstrip() for c in failed)
        sample_scores["effects"] = InspectScore(
            value=1.0 if effects.passed else 0.0, answer=episode.final_answer or None, explanation=explanation,
            metadata={"checkpoints": {c.id: c.passed for c in effects.checkpoints},
                      "failure_codes": effects.failure_codes})
        if effects.value is not None:
            sample_scores["checkpoints"] = InspectScore(value=float(effects.value))
    usage = ModelUsage(input_tokens=episode.usage.prompt_tokens, output_tokens=episode.usage.completion_tokens,
                       total_tokens=episode.usage.prompt_tokens + episode.usage.completion_tokens,
                       total_cost=episode.usage.cost_usd or None)
    started = episode.started_at
    return EvalSample(
        id=sample_id, epoch=episode.attempt + 1, input=task.prompt if task else episode.task_id,
        target=task.reference_answer or "" if task else "", messages=_messages(episode, task, blobs),
        output=ModelOutput.from_content(episode.model, episode.final_answer), scores=sample_scores,
        metadata={"episode_id": episode.id, "task_id": episode.task_id, "version": episode.version,
                  "outcome": outcome, "termination": episode.termination, "config_hash": episode.config_hash,
                  "category": task.category if task else None, "chain_length": task.chain_length if task else None},
        model_usage={episode.model: usage} if usage.total_tokens else {}, events=_server_events(episode),
        started_at=started.isoformat() if started else None, total_time=round(episode.duration_s, 3),
        error=EvalError(message=f"infra_error: {episode.infra_error.kind}: {episode.infra_error.message}"
                        if episode.infra_error else "infra_error", traceback="", traceback_ansi="")
        if outcome == "infra_error" else None)


def build_log(episodes: list[Episode], scores: Mapping[str, Mapping[str, Score]],
              tasks: Mapping[tuple[str, str], Task], numbers: Mapping[str, Any],
              blobs: BlobStore | None = None) -> EvalLog:
    """One eval log for episodes of one model, agent and version; ``numbers`` is the report's per-version row."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalMetric,
        EvalPlan,
        EvalPlanStep,
        EvalResults,
        EvalScore,
        EvalSpec,
        EvalStats,
    )
    from inspect_ai.model import ModelUsage

    import mcptrials

    first = episodes[0]
    keys: defaultdict[tuple[str, int], int] = defaultdict(int)
    for e in episodes:
        keys[(e.task_id, e.attempt)] += 1
    samples = [_sample(e, scores.get(e.id, {}), task_for(tasks, e.task_id, e.version),
                       e.task_id if keys[(e.task_id, e.attempt)] == 1 else f"{e.task_id}@{e.config_hash[:8]}",
                       blobs)
               for e in episodes]
    ids: list[str | int] = list(dict.fromkeys(s.id for s in samples))
    starts = [e.started_at for e in episodes if e.started_at] or [datetime.now(UTC)]
    created = min(starts).isoformat()
    scored = [s for s in samples if s.scores]
    metrics = {name: EvalMetric(name=name, value=float(numbers[name]))
               for name in ("pass_hat_k", "pass_at_k", "pass_at_1") if numbers.get(name) is not None}
    prompt = sum(e.usage.prompt_tokens for e in episodes)
    completion = sum(e.usage.completion_tokens for e in episodes)
    cost = sum(e.usage.cost_usd for e in episodes)
    return EvalLog(
        status="success",
        eval=EvalSpec(
            created=created, task=f"mcptrials/{first.version}/{first.agent}",
            task_id=stable_hash([first.model, first.agent, first.version]),  # the viewer folds equal ids as retries
            eval_id=stable_hash([first.model, first.agent, first.version, created]), run_id=first.run_id,
            task_display_name=f"mcptrials {first.version} ({first.agent})",
            dataset=EvalDataset(name="mcptrials", samples=len(ids), sample_ids=ids),  # per epoch, as inspect counts
            model=first.model, solver=first.agent, config=EvalConfig(epochs=max(e.attempt for e in episodes) + 1),
            packages={"mcptrials": mcptrials.__version__},
            metadata={"agent": first.agent, "version": first.version, "k": numbers.get("k"),
                      "ci95": [numbers.get("ci95_low"), numbers.get("ci95_high")],
                      "infra_errors": numbers.get("infra_errors"), "exported_by": "mcptrials export --format inspect"}),
        plan=EvalPlan(name=first.agent, steps=[EvalPlanStep(solver=first.agent)]),
        results=EvalResults(total_samples=len(samples), completed_samples=len(scored),
                            scores=[EvalScore(name="effects", scorer="effects", scored_samples=len(scored),
                                              unscored_samples=len(samples) - len(scored), metrics=metrics)]),
        stats=EvalStats(started_at=created, completed_at=max(starts).isoformat(),
                        model_usage={first.model: ModelUsage(input_tokens=prompt, output_tokens=completion,
                                                             total_tokens=prompt + completion,
                                                             total_cost=cost or None)} if prompt + completion else {}),
        samples=samples,
    )


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-") or "x"


def export_inspect(episodes: list[Episode], scores: Mapping[str, Mapping[str, Score]],
                   tasks: Mapping[tuple[str, str], Task], report: Mapping[str, Any], out_dir: Path,
                   blobs: BlobStore | None = None) -> list[Path]:
    """Write one ``.eval`` log per model x agent x version into ``out_dir``; return their paths.

    ``blobs`` is the run's blob store: images tool calls returned go into the tool messages.
    """
    _require()
    from inspect_ai.log import write_eval_log

    groups: dict[tuple[str, str, str], list[Episode]] = defaultdict(list)
    agent_label = {row["episode_id"]: row["agent"] for row in report["episodes"]}
    for e in episodes:
        groups[(e.model, agent_label.get(e.id, e.agent), e.version)].append(e)
    numbers = {(r["model"], r["agent"], r["version"]): r for r in report["per_version"]}
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for (model, agent, version), mine in sorted(groups.items()):
        log = build_log(mine, scores, tasks, numbers.get((model, agent, version), {}), blobs)
        stamp = log.eval.created[:19].replace(":", "-")
        path = out_dir / f"{stamp}_mcptrials-{_slug(version)}_{_slug(model)}_{_slug(agent)}.eval"
        write_eval_log(log, path, format="eval")
        written.append(path)
    return written
