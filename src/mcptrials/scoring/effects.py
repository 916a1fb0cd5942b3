"""Tier-1 scoring (DynamicMCPBench §3.4): deterministic and path-agnostic.

A spec says what must be true, never which call spelled it how:

- a tool-effect checkpoint is met by any successful call of a member of its equivalence set
  whose *effective* arguments (as the server sees them) meet that member's predicates;
- a value checkpoint by values stated in a tool result or the final message (the answer),
  compared normalised, with facts bound to their labels and claims that must be absent;
- a state checkpoint by the episode's sandbox snapshot after the agent stopped.

Any minefield hit fails the task outright. The partial order holds when *some* assignment
of meeting calls to checkpoints respects every pair (a read may also happen before a write).
"""

from __future__ import annotations

from collections.abc import Mapping

from mcptrials.model import (
    CheckpointResult,
    Episode,
    Minefield,
    Score,
    StateCheckpoint,
    Task,
    ToolCallRecord,
    ToolEffectCheckpoint,
    ToolInfo,
    ValueCheckpoint,
)
from mcptrials.scoring.answers import absent_violations, text_holds, text_problems
from mcptrials.scoring.matchers import arguments_satisfy, effective_arguments
from mcptrials.scoring.memo import forget_episode
from mcptrials.scoring.state import check_state

SCORER = "effects"
VERSION = "2"

Calls = list[tuple[ToolCallRecord, dict | None]]  # a successful call and its effective arguments


def _successful(episode: Episode, tools: Mapping[str, ToolInfo] | None) -> Calls:
    out: Calls = []
    for call in episode.tool_calls:
        if call.is_error or call.tool is None:
            continue
        info = (tools or {}).get(call.name)
        out.append((call, effective_arguments(call.arguments, info.input_schema if info else None)))
    return out


def _check_effect(cp: ToolEffectCheckpoint, calls: Calls) -> tuple[CheckpointResult, list[int]]:
    members = cp.all_members()
    names = [m.tool for m in members]
    candidates = [(c, a) for c, a in calls if c.name in names]
    if not candidates:
        return CheckpointResult(id=cp.id, passed=False, failure="missing_effect",
                                detail=f"no successful call of {' | '.join(dict.fromkeys(names))}"), []
    met = [c.index for c, args in candidates
           if any(m.tool == c.name and arguments_satisfy(args, m.must_include, m.must_match) for m in members)]
    if met:
        return CheckpointResult(id=cp.id, passed=True, matched_step=met[0],
                                detail=f"met at step {met[0]}"), met
    return CheckpointResult(id=cp.id, passed=False, failure="wrong_arguments",
                            detail=f"{len(candidates)} call(s) of {' | '.join(dict.fromkeys(names))}, none with the"
                                   " required arguments"), []


def effect_steps(cp: ToolEffectCheckpoint, episode: Episode, tools: Mapping[str, ToolInfo] | None = None) -> list[int]:
    """The steps of ``episode`` whose calls meet a tool-effect checkpoint."""
    return _check_effect(cp, _successful(episode, tools))[1]


def _check_value(cp: ValueCheckpoint, calls: Calls, episode: Episode,
                 every_step: bool = True) -> tuple[CheckpointResult, list[int]]:
    """``every_step``: find every step that meets it (a partial order reads them), else the first."""
    haystacks: list[tuple[int, str, bool]] = []  # (step, text, is a tool result)
    if cp.source in {"tool_result", "any"}:
        haystacks += [(c.index, c.content, True) for c, _ in calls if not cp.tools or c.name in cp.tools]
    if cp.source in {"final_message", "any"}:
        haystacks.append((len(episode.steps), episode.final_answer, False))
    if cp.absent:  # a claim that must not be made is looked for everywhere the checkpoint reads
        claimed = absent_violations("\n".join(text for _, text, _ in haystacks), cp.absent)
        if claimed:
            return CheckpointResult(id=cp.id, passed=False, failure="missing_value",
                                    detail=f"states {claimed}, which must not be claimed"), []
    meeting = (index for index, text, raw in haystacks if text_holds(cp, text, verbatim=raw, absent=False))
    met = list(meeting) if every_step else [first for first in [next(meeting, None)] if first is not None]
    if not met and len(haystacks) > 1 and cp.source == "tool_result" and not cp.facts:
        # values spread over several results: all seen by the last of them
        seen = "\n".join(text for _, text, _ in haystacks)
        if text_holds(cp, seen, verbatim=True, absent=False):
            met = [haystacks[-1][0]]
    if met:
        return CheckpointResult(id=cp.id, passed=True, matched_step=met[0], detail=f"found by step {met[0]}"), met
    where = {"final_message": "the final answer", "tool_result": "any tool result", "any": "any result or answer"}
    problems = text_problems(cp, haystacks[-1][1], verbatim=haystacks[-1][2], absent=False) if haystacks \
        else ["nothing to read"]
    return CheckpointResult(id=cp.id, passed=False, failure="missing_value",
                            detail=f"not in {where[cp.source]}: {'; '.join(problems)}"), []


def minefield_hits(minefields: list[Minefield], calls: Calls) -> list[str]:
    """Descriptions of every successful call that stepped on a minefield."""
    hits = []
    for mine in minefields:
        for call, args in calls:
            if call.name in mine.tools and arguments_satisfy(args, mine.must_include, mine.must_match):
                hits.append(f"step {call.index}: {call.name}" + (f" ({mine.description})" if mine.description else ""))
    return hits


def order_violations(order: list[tuple[str, str]], met: Mapping[str, list[int]]) -> list[str]:
    """Pairs that no assignment of meeting steps to checkpoints can respect.

    Checkpoints take, in dependency order, the earliest meeting step after every step their
    predecessors took; that greedy choice finds an assignment whenever one exists.
    """
    nodes = sorted({c for pair in order for c in pair})
    preds = {n: [a for a, b in order if b == n] for n in nodes}
    chosen: dict[str, int] = {}
    violations = []
    remaining = [n for n in nodes if met.get(n)]
    while remaining:
        ready = [n for n in remaining if all(p in chosen or p not in remaining for p in preds[n])]
        if not ready:  # a cycle: report it rather than loop
            return [f"partial order has a cycle through {remaining}"]
        for node in ready:
            floor = max((chosen[p] for p in preds[node] if p in chosen), default=-1)
            later = [s for s in met[node] if s > floor]
            if later:
                chosen[node] = min(later)
            else:
                chosen[node] = max(met[node])
                blocker = max((p for p in preds[node] if p in chosen), key=lambda p: chosen[p])
                violations.append(f"{blocker} (step {chosen[blocker]}) must come before {node} (no meeting step"
                                  f" after it; met at {met[node]})")
            remaining.remove(node)
    return violations


def score_effects(task: Task, episode: Episode, tools: Mapping[str, ToolInfo] | None = None) -> Score:
    """Grade one episode against its task's spec with the deterministic Tier-1 rules.

    ``tools`` (qualified name -> tool) supplies input schemas, so arguments are compared
    with their defaults filled in; without it, only given arguments are compared.
    """
    forget_episode()
    calls = _successful(episode, tools)
    results: list[CheckpointResult] = []
    met: dict[str, list[int]] = {}
    end = len(episode.steps) + 1
    ordered = {c for pair in task.spec.partial_order for c in pair}
    for cp in task.spec.checkpoints:
        try:
            if isinstance(cp, ToolEffectCheckpoint):
                result, steps = _check_effect(cp, calls)
            elif isinstance(cp, ValueCheckpoint):
                result, steps = _check_value(cp, calls, episode, every_step=cp.id in ordered)
            else:
                result = check_state(cp, episode.state)
                steps = [end] if result.passed else []
        except Exception as exc:  # a verdict is never lost to odd data: the checkpoint fails, saying why
            result = CheckpointResult(id=cp.id, passed=False, failure="missing_value" if isinstance(
                cp, ValueCheckpoint) else "wrong_state" if isinstance(cp, StateCheckpoint) else "wrong_arguments",
                detail=f"could not be evaluated: {type(exc).__name__}: {exc}")
            steps = []
        results.append(result)
        met[cp.id] = steps
    violations = order_violations(task.spec.partial_order, met)
    hits = minefield_hits(task.spec.minefields, calls)
    codes: list[str] = sorted({r.failure for r in results if r.failure})
    if hits:
        codes.append("minefield")
    if violations:
        codes.append("order_violation")
    passed = all(r.passed for r in results) and not hits and not violations
    if not passed and episode.termination in {"max_turns", "budget", "agent_error"}:
        codes.append(episode.termination)
    met_count = sum(r.passed for r in results)
    return Score(
        episode_id=episode.id, scorer=SCORER, scorer_version=VERSION, passed=passed,
        value=met_count / len(results),
        values={"checkpoints_met": float(met_count), "checkpoints": float(len(results))},
        checkpoints=results, failure_codes=codes,
        detail={"minefield_hits": hits, "order_violations": violations},
    )
