"""Tier-1 effect scoring (DynamicMCPBench §3.4): deterministic, path-agnostic, answer-agnostic.

A tool-effect checkpoint is met by any successful call of a tool in its equivalence set whose
arguments meet its predicates; a value checkpoint by demanded substrings in a tool result or
the final message. Any minefield hit fails the task outright; the partial order must hold
between the first calls that met each pair of checkpoints.
"""

from __future__ import annotations

from mcptrials.model import (
    CheckpointResult,
    Episode,
    Minefield,
    Score,
    Task,
    ToolCallRecord,
    ToolEffectCheckpoint,
    ValueCheckpoint,
)
from mcptrials.scoring.matchers import arguments_satisfy

SCORER = "effects"
VERSION = "1"


def _successful(episode: Episode) -> list[ToolCallRecord]:
    return [c for c in episode.tool_calls if not c.is_error and c.tool is not None]


def _check_effect(cp: ToolEffectCheckpoint, calls: list[ToolCallRecord]) -> CheckpointResult:
    candidates = [c for c in calls if c.name in cp.tools]
    if not candidates:
        return CheckpointResult(id=cp.id, passed=False, failure="missing_effect",
                                detail=f"no successful call of {' | '.join(cp.tools)}")
    for call in candidates:
        if arguments_satisfy(call.arguments, cp.must_include, cp.must_match):
            return CheckpointResult(id=cp.id, passed=True, matched_step=call.index,
                                    detail=f"met by {call.name} at step {call.index}")
    return CheckpointResult(id=cp.id, passed=False, failure="wrong_arguments",
                            detail=f"{len(candidates)} call(s) of {' | '.join(cp.tools)}, none with the required"
                                   " arguments")


def _check_value(cp: ValueCheckpoint, calls: list[ToolCallRecord], episode: Episode) -> CheckpointResult:
    haystacks: list[tuple[int, str]] = []
    if cp.source in {"tool_result", "any"}:
        haystacks += [(c.index, c.content) for c in calls if not cp.tools or c.name in cp.tools]
    if cp.source in {"final_message", "any"} and episode.final_answer:
        haystacks.append((len(episode.steps), episode.final_answer))
    fold = cp.case == "insensitive"
    first_seen: dict[str, int] = {}
    for needle in cp.contains:
        target = needle.casefold() if fold else needle
        for index, text in haystacks:
            if target in (text.casefold() if fold else text):
                first_seen[needle] = index
                break
    missing = [n for n in cp.contains if n not in first_seen]
    passed = not missing if cp.mode == "all" else bool(first_seen)
    if not passed:
        return CheckpointResult(id=cp.id, passed=False, failure="missing_value",
                                detail=f"not found in {cp.source.replace('_', ' ')}: {missing}")
    step = max(first_seen.values()) if cp.mode == "all" else min(first_seen.values())
    return CheckpointResult(id=cp.id, passed=True, matched_step=step, detail=f"found by step {step}")


def minefield_hits(minefields: list[Minefield], calls: list[ToolCallRecord]) -> list[str]:
    """Descriptions of every successful call that stepped on a minefield."""
    hits = []
    for mine in minefields:
        for call in calls:
            if call.name in mine.tools and arguments_satisfy(call.arguments, mine.must_include, mine.must_match):
                hits.append(f"step {call.index}: {call.name}" + (f" ({mine.description})" if mine.description else ""))
    return hits


def score_effects(task: Task, episode: Episode) -> Score:
    """Grade one episode against its task's spec with the deterministic Tier-1 rules."""
    calls = _successful(episode)
    results: list[CheckpointResult] = []
    for cp in task.spec.checkpoints:
        if isinstance(cp, ToolEffectCheckpoint):
            results.append(_check_effect(cp, calls))
        else:
            results.append(_check_value(cp, calls, episode))
    by_id = {r.id: r for r in results}
    violations = []
    for before, after in task.spec.partial_order:
        a, b = by_id[before], by_id[after]
        if a.passed and b.passed and a.matched_step is not None and b.matched_step is not None \
                and not a.matched_step < b.matched_step:
            violations.append(f"{before} (step {a.matched_step}) must come before {after} (step {b.matched_step})")
    hits = minefield_hits(task.spec.minefields, calls)
    codes: list[str] = sorted({r.failure for r in results if r.failure})
    if hits:
        codes.append("minefield")
    if violations:
        codes.append("order_violation")
    passed = all(r.passed for r in results) and not hits and not violations
    if not passed and episode.termination in {"max_turns", "budget", "agent_error"}:
        codes.append(episode.termination)
    met = sum(r.passed for r in results)
    return Score(
        episode_id=episode.id, scorer=SCORER, scorer_version=VERSION, passed=passed,
        value=met / len(results),
        values={"checkpoints_met": float(met), "checkpoints": float(len(results))},
        checkpoints=results, failure_codes=codes,
        detail={"minefield_hits": hits, "order_violations": violations},
    )
