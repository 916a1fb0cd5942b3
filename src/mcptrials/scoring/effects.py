"""Tier-1 scoring (DynamicMCPBench §3.4): deterministic and path-agnostic.

A spec says what must be true, never which call spelled it how:

- a tool-effect checkpoint is met by any successful call of a member of its equivalence set
  whose *effective* arguments (as the server sees them) meet that member's predicates;
- a value checkpoint by values stated in a tool result or the final message (the answer),
  compared normalised, with facts bound to their labels and claims that must be absent;
- a state checkpoint by the episode's sandbox snapshot after the agent stopped;
- a conclusion checkpoint by the option (or the yes/no) the answer concludes.

Facts are read as claims (``claims``): a hedged, withdrawn or denied value is no statement of
it. Two implicit checks hold of every episode: the answer's own assertions (every figure, date,
time and code traceable to the prompt or a tool result, weekdays agreeing with their dates:
``grounding``), and no write made twice with the same effective arguments unless the spec allows
repeats (``duplicate_write``). Any minefield hit fails the task outright. The partial order holds when *some* assignment
of meeting calls to checkpoints respects every pair (a read may also happen before a write).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from mcptrials.model import (
    CheckpointResult,
    ConclusionCheckpoint,
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
from mcptrials.scoring.answers import absent_violations
from mcptrials.scoring.claims import text_holds, text_problems
from mcptrials.scoring.conclusions import check_conclusion
from mcptrials.scoring.grounding import check_claims
from mcptrials.scoring.matchers import arguments_satisfy, effective_arguments
from mcptrials.scoring.memo import forget_episode
from mcptrials.scoring.state import check_state

SCORER = "effects"
VERSION = "3"
WRITES_ID = "_writes"
"""The id of the implicit checkpoint that no write was made twice."""

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
        else []
    ambiguous = any(p.code == "ambiguous_claim" for p in problems)
    return CheckpointResult(id=cp.id, passed=False, failure="ambiguous_claim" if ambiguous else "missing_value",
                            detail=f"not in {where[cp.source]}: "
                                   f"{'; '.join(p.detail for p in problems) or 'nothing to read'}"), []


_WRITE_VERB = re.compile(r"^(?:create|add|append|send|book|insert|post|reserve|schedule|new|submit|reply|forward|log|"
                         r"record|place|buy|purchase|order|transfer|comment|invite|register|enroll|publish|upload|"
                         r"save_note|remember|store|push|enqueue|draft|compose|make|open_ticket|file)(?:_|$)")


def _written(calls: Calls) -> str:
    """The text every successful call carried in its arguments (what the agent wrote, where it wrote)."""
    def leaves(value: object) -> list[str]:
        if isinstance(value, dict):
            return [x for v in value.values() for x in leaves(v)]
        if isinstance(value, list):
            return [x for v in value for x in leaves(v)]
        return [str(value)] if isinstance(value, str) else []

    return "\n".join(x for _call, args in calls for x in leaves(args or {}))


def repeated_writes(calls: Calls, tools: Mapping[str, ToolInfo] | None) -> list[str]:
    """Writes that add something (create, send, book, append, ...) made more than once with the same
    effective arguments: one booking made twice, one email sent twice."""
    seen: dict[tuple[str, str], list[int]] = {}
    for call, args in calls:
        info = (tools or {}).get(call.name)
        if (info is not None and info.read_only) or not _WRITE_VERB.match((call.tool or "").lower()):
            continue
        key = (call.name, json.dumps(args, sort_keys=True, default=str))
        seen.setdefault(key, []).append(call.index)
    return [f"{name} at steps {steps}" for (name, _a), steps in seen.items() if len(steps) > 1]


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


def _implicit_checks(task: Task, episode: Episode, calls: Calls,
                     tools: Mapping[str, ToolInfo] | None) -> list[CheckpointResult]:
    """The checks every episode is held to beside its spec (the answer's own claims, writes made once),
    as checkpoint results when they fail (a passing one adds nothing to the score's record)."""
    out = []
    try:
        claims = check_claims(task, episode)
    except Exception as exc:  # a verdict is never lost to odd data
        claims = CheckpointResult(id="_grounding", passed=False, failure="ungrounded_claim",
                                  detail=f"could not be evaluated: {type(exc).__name__}: {exc}")
    if claims is not None and not claims.passed:
        out.append(claims)
    twice = [] if task.spec.repeats else repeated_writes(calls, tools)
    if twice:
        out.append(CheckpointResult(id=WRITES_ID, passed=False, failure="duplicate_write",
                                    detail="the same write made more than once: " + "; ".join(twice[:3])))
    return out


JUDGED = "judged"
"""``Score.detail["verdict"]`` of a task whose verdict is its judges' (``TaskSpec.judges``): Tier-1 gives none."""


def _judged(task: Task, episode: Episode, calls: Calls) -> Score:
    """A judge-only task's Tier-1 score: no verdict (``passed`` None), the judges that give it, minefields hit."""
    hits = minefield_hits(task.spec.minefields, calls)
    return Score(episode_id=episode.id, scorer=SCORER, scorer_version=VERSION, passed=None, value=None,
                 failure_codes=["minefield"] if hits else [],
                 detail={"verdict": JUDGED, "judges": list(task.spec.judges), "minefield_hits": hits})


def score_effects(task: Task, episode: Episode, tools: Mapping[str, ToolInfo] | None = None) -> Score:
    """Grade one episode against its task's spec with the deterministic Tier-1 rules.

    A judge-only task (no checkpoint, ``spec.judges`` named) gets no Tier-1 verdict: ``passed``
    is None and ``detail["verdict"]`` is ``judged`` (its judges decide; see ``store.db.outcome_of``).

    ``tools`` (qualified name -> tool) supplies input schemas, so arguments are compared
    with their defaults filled in; without it, only given arguments are compared.
    """
    forget_episode()
    calls = _successful(episode, tools)
    if task.spec.judge_only:
        return _judged(task, episode, calls)
    results: list[CheckpointResult] = []
    met: dict[str, list[int]] = {}
    end = len(episode.steps) + 1
    ordered = {c for pair in task.spec.partial_order for c in pair}
    written = _written(calls) if any(isinstance(c, StateCheckpoint) for c in task.spec.checkpoints) else ""
    for cp in task.spec.checkpoints:
        try:
            if isinstance(cp, ToolEffectCheckpoint):
                result, steps = _check_effect(cp, calls)
            elif isinstance(cp, ValueCheckpoint):
                result, steps = _check_value(cp, calls, episode, every_step=cp.id in ordered)
            elif isinstance(cp, ConclusionCheckpoint):
                result = check_conclusion(cp, episode.final_answer)
                steps = [len(episode.steps)] if result.passed else []
            else:
                result = check_state(cp, episode.state, task.fixtures.files.get(cp.path), task.spec.repeats,
                                     written)
                steps = [end] if result.passed else []
        except Exception as exc:  # a verdict is never lost to odd data: the checkpoint fails, saying why
            result = CheckpointResult(id=cp.id, passed=False, failure="missing_value" if isinstance(
                cp, ValueCheckpoint) else "wrong_state" if isinstance(cp, StateCheckpoint) else "wrong_conclusion"
                if isinstance(cp, ConclusionCheckpoint) else "wrong_arguments",
                detail=f"could not be evaluated: {type(exc).__name__}: {exc}")
            steps = []
        results.append(result)
        met[cp.id] = steps
    implicit = _implicit_checks(task, episode, calls, tools)
    violations = order_violations(task.spec.partial_order, met)
    hits = minefield_hits(task.spec.minefields, calls)
    codes: list[str] = sorted({r.failure for r in [*results, *implicit] if r.failure})
    if hits:
        codes.append("minefield")
    if violations:
        codes.append("order_violation")
    passed = all(r.passed for r in [*results, *implicit]) and not hits and not violations
    if not passed and episode.termination in {"max_turns", "budget", "agent_error"}:
        codes.append(episode.termination)
    met_count = sum(r.passed for r in results)
    return Score(
        episode_id=episode.id, scorer=SCORER, scorer_version=VERSION, passed=passed,
        value=met_count / len(results),
        values={"checkpoints_met": float(met_count), "checkpoints": float(len(results))},
        checkpoints=results + implicit, failure_codes=codes,
        detail={"minefield_hits": hits, "order_violations": violations},
    )
