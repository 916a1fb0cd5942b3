"""Keep a distilled task only if its reference passes its own spec, the spec discriminates, and it judges
mechanically made right and wrong alternatives right.

The alternatives are made from the task and a replay of its reference, never by a model:

- accept: the answer reworded (sentences reordered, numbers and dates in another format), an
  extra harmless re-read, independent calls in another order, an argument spelled as the
  server accepts it (``./path``, a default left out);
- reject: a necessary write dropped while the answer claims it done, the answer's key value
  swapped for another value of that kind seen in the results, a write's checked item changed
  to another existing one, a written text with its facts changed, a destructive call on an
  item the task is about.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from mcptrials.agents.reference import ReferenceAgent
from mcptrials.generate.distill import _calls, dependencies, is_write
from mcptrials.generate.draft import Trace
from mcptrials.generate.values import Value, values_in, word_in
from mcptrials.model import (
    Episode,
    PlannedCall,
    ServerSpec,
    StateCheckpoint,
    Task,
    ToolEffectCheckpoint,
    ToolInfo,
    ValueCheckpoint,
)
from mcptrials.run.runner import RunPlan, run_episode
from mcptrials.scoring.answers import normalise_text, states
from mcptrials.scoring.matchers import is_path_parameter
from mcptrials.tasks.alternatives import Alternative, AltResult, play
from mcptrials.tasks.check import CheckResult, check_references


@dataclass
class Validation:
    """The verdict on one distilled task: why it must be dropped (if it must), and the alternatives it faced."""

    task_id: str
    reasons: list[str] = field(default_factory=list)
    alternatives: list[Alternative] = field(default_factory=list)
    results: list[AltResult] = field(default_factory=list)
    check: CheckResult | None = None

    @property
    def passed(self) -> bool:
        return not self.reasons


def _alt(task: Task, name: str, expect: str, classes: list[str], why: str, calls: list[PlannedCall],
         answer: str) -> Alternative:
    return Alternative.model_validate({
        "task": task.id, "id": name, "expect": expect, "classes": classes, "why": why, "answer": answer,
        "turns": [[{"tool": c.tool, "args": c.args}] for c in calls]})


# --------------------------------------------------------------------------- rewording an answer

_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]


def _reformat(value: Value) -> str | None:
    """The same value written another way a careful reader accepts."""
    if value.kind == "date":
        d = date.fromisoformat(str(value.value))
        return f"{d.day} {_MONTHS[d.month - 1]} {d.year}" if "-" in value.text else d.isoformat()
    if value.kind == "number" and isinstance(value.value, int) and abs(value.value) >= 1000:
        return f"{value.value:,}" if "," not in value.text else str(value.value)
    if value.kind == "time":
        hour, minute = map(int, str(value.value).split(":"))
        return f"{hour % 12 or 12}:{minute:02d} {'pm' if hour >= 12 else 'am'}"
    return None


def reworded(answer: str, year: int | None) -> str:
    """The answer with values in other formats and its sentences in reverse order."""
    text = answer
    for value in sorted(values_in(answer, year=year), key=lambda v: -v.start):
        other = _reformat(value)
        if other is not None:
            text = text[:value.start] + other + text[value.end:] if text[value.start:value.end] == value.text \
                else text
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text.strip()) if p.strip()]
    return "To sum up what I found and did: " + " ".join(reversed(parts)) if len(parts) > 1 else \
        "Here is the result. " + text


def _swap_value(answer: str, value: Value, decoy: Any, year: int | None) -> str:
    """The answer with every mention of ``value`` (also a rounded one) replaced by ``decoy``."""
    text = normalise_text(answer, fold=False)
    for mention in sorted(values_in(text, year=year, small=True), key=lambda v: -v.start):
        if mention.kind == value.kind and (mention.key == value.key or (
                value.kind == "number" and states(mention.text, value.value))):
            text = text[:mention.start] + str(decoy) + text[mention.end:]
    return text


# --------------------------------------------------------------------------- making alternatives


def _decoy(value: Any, kind: str, pool: list[Value], avoid: set[str], forms: tuple[str, ...] = ()) -> Any:
    """Another value of the same kind seen in the results, that the right answer does not state, nor any other
    spelling the spec accepts for it ("Shanghai-Kunming HSR" still says "shanghai", a form of "Shanghai Hongqiao")."""
    mine = str(value).casefold()
    for other in pool:
        theirs = str(other.value).casefold()
        if any(word_in(f, theirs) for f in forms):
            continue
        if other.kind == kind and theirs not in avoid and mine not in theirs and theirs not in mine:
            return other.value
    if kind == "number" and isinstance(value, int | float):
        return round(value * 2 + 7, 2)
    return None


def _parts_of_one(item: Any) -> bool:
    """Whether a required item lists distinct parts of one thing (the phrases of a title), any of which names it:
    swapping one part out leaves the others, so it makes no wrong answer."""
    if not isinstance(item, list) or not isinstance(item[0], str) or " " not in item[0].strip():
        return False
    return any(isinstance(x, str) and re.search(r"[^\W\d_]", x) and x.casefold() not in item[0].casefold()
               for x in item[1:])  # (a phone number's other spellings are forms of it, not parts)


def _answer_values(task: Task) -> list[Any]:
    out: list[Any] = []
    for cp in task.spec.checkpoints:
        if isinstance(cp, ValueCheckpoint) and cp.source == "final_message":
            out += [x for item in cp.contains if not _parts_of_one(item)
                    for x in (item if isinstance(item, list) else [item])]
            out += [v for f in cp.facts for v in f.values]
    return out


def _forms_of(task: Task, value: Any) -> tuple[str, ...]:
    """Every spelling the answer checks accept for a required value (the options of its ``contains`` item)."""
    mine = str(value).casefold()
    for cp in task.spec.checkpoints:
        if isinstance(cp, ValueCheckpoint) and cp.source == "final_message":
            for item in cp.contains:
                options = [str(x).casefold() for x in (item if isinstance(item, list) else [item])]
                if mine in options:
                    return tuple(options)
    return (mine,)


def make_alternatives(task: Task, episode: Episode, tools: Mapping[str, ToolInfo]) -> list[Alternative]:
    """Right and wrong trajectories for a task, made mechanically from its reference replay."""
    plan = list(task.reference)
    answer = task.reference_answer or ""
    year = task.now.year if task.now else None
    trace = Trace(episode=episode, tools=dict(tools), before={}, after={})
    calls = _calls(trace)
    results = [c.content for c in episode.tool_calls if not c.is_error]
    pool = [v for r in results for v in values_in(r, year=year)]
    out: list[Alternative] = []
    # accept: reworded answer
    out.append(_alt(task, "gen-reworded", "accept", ["rephrased_answer"],
                    "Same calls; the answer in another order with values in other formats.", plan,
                    reworded(answer, year)))
    # accept: an extra harmless re-read at the end
    reads = [s for s in plan if not is_write(s.tool)]
    if reads:
        out.append(_alt(task, "gen-extra-read", "accept", ["extra_reads"], "Re-reads at the end to double-check.",
                        [*plan, reads[0]], answer))
    # accept: an argument spelled as the server sees it
    for i, step in enumerate(plan):
        info = tools.get(step.tool)
        props = (info.input_schema or {}).get("properties", {}) if info else {}
        spelled = dict(step.args)
        for key, value in step.args.items():
            prop = props.get(key) if isinstance(props.get(key), dict) else {}
            if is_path_parameter(key) and isinstance(value, str) and not value.startswith(("/", "./")):
                spelled[key] = "./" + value
            elif prop and "default" in prop and prop["default"] == value:
                del spelled[key]
        if spelled != step.args:
            out.append(_alt(task, "gen-spelling", "accept", ["other_spelling"],
                            "Same calls with arguments spelled another way the server accepts.",
                            [*plan[:i], PlannedCall(tool=step.tool, args=spelled), *plan[i + 1:]], answer))
            break
    # accept: two adjacent independent reads in the other order
    if len(calls) == len(plan):
        deps = dependencies(calls, task.concrete_prompt or task.prompt)
        for i in range(len(plan) - 1):
            a, b = calls[i], calls[i + 1]
            if not a.write and not b.write and a.position not in deps.get(b.position, set()):
                swapped = [*plan[:i], plan[i + 1], plan[i], *plan[i + 2:]]
                out.append(_alt(task, "gen-other-order", "accept", ["other_order"],
                                "Two independent look-ups in the other order.", swapped, answer))
                break
    # reject: the last write dropped, the answer still claims it
    writes = [i for i, s in enumerate(plan) if is_write(s.tool)]
    if writes:
        out.append(_alt(task, "gen-dropped-write", "reject", ["wrong_conclusion"],
                        "Skips a write the task needs and still says it is done.",
                        [s for i, s in enumerate(plan) if i != writes[-1]], answer))
    # reject: the answer's key value swapped for a decoy from the results
    required = {str(v).casefold() for v in _answer_values(task)}
    if required:
        plain = values_in(answer, year=year)
        stated = {str(v.value).casefold() for v in plain}
        small = [v for v in values_in(answer, year=year, small=True) if v not in plain]  # "0% chance of rain"
        for value in [*plain, *small]:  # a small figure only when no other is checked
            if str(value.value).casefold() not in required:
                continue
            decoy = _decoy(value.value, value.kind, pool, required | stated, _forms_of(task, value.value))
            if decoy is not None:
                out.append(_alt(task, "gen-wrong-value", "reject", ["wrong_value"],
                                f"States {decoy} (seen in the results) instead of {value.value}.", plan,
                                _swap_value(answer, value, decoy, year)))
                break
    # reject: a write aimed at another existing item, or with its facts changed
    checked = _checked_write_args(task)
    for i in writes:
        wrong = _wrong_write(plan[i], pool, checked, year)
        if wrong is not None:
            name, classes, why, step = wrong
            out.append(_alt(task, name, "reject", classes, why, [*plan[:i], step, *plan[i + 1:]], answer))
            break
    # reject: a destructive call on an item the task is about
    for mine in task.spec.minefields:
        if mine.must_match:
            key, matcher = next(iter(mine.must_match.items()))
            options = matcher.one_of or ([matcher.equals] if matcher.equals is not None else [])
            written = {str(v) for s in plan if is_write(s.tool) for v in s.args.values() if isinstance(v, str | int)}
            used = {str(v) for s in plan for v in s.args.values() if isinstance(v, str | int)}
            # an item a write of the plan names first (it surely exists), then one the plan reads
            options = sorted(options, key=lambda o: (str(o) not in written, str(o) not in used))
            args = _fill_required(mine.tools[0], {key: options[0]}, plan, tools) if options else None
            if args is not None:
                out.append(_alt(task, "gen-destructive", "reject", ["destructive_shortcut"],
                                f"Also calls {mine.tools[0]} on {options[0]}.",
                                [*plan, PlannedCall(tool=mine.tools[0], args=args)], answer))
                break
    return out


def _wrong_write(step: PlannedCall, pool: list[Value], checked: set[str],
                 year: int | None) -> tuple[str, list[str], str, PlannedCall] | None:
    """The write aimed at another existing item (an argument that is one checked value), or written with
    the checked facts of its text changed; None when the spec checks nothing of its arguments."""
    for key, raw in step.args.items():
        items = raw if isinstance(raw, list) else [raw]
        for position, original in enumerate(items):
            if isinstance(original, bool) or not isinstance(original, str | int | float):
                continue
            text = str(original)
            found = values_in(text, year=year, small=True)
            if len(found) == 1 and found[0].text.strip() == text.strip() and text.casefold() in checked:
                decoy = _decoy(found[0].value, found[0].kind, pool, {text.casefold()})
                if decoy is None:
                    continue
                new_items = [*items[:position], decoy, *items[position + 1:]]
                args = {**step.args, key: new_items if isinstance(raw, list) else decoy}
                return ("gen-wrong-item", ["wrong_item"], f"Aims {step.tool} at {decoy} instead of {text}.",
                        PlannedCall(tool=step.tool, args=args))
            if isinstance(original, str) and any(ch.isspace() for ch in text.strip()):
                changed = text
                for value in sorted(found, key=lambda v: -v.start):
                    if str(value.value).casefold() in checked and value.text in changed:
                        decoy = _decoy(value.value, value.kind, pool, {str(value.value).casefold()})
                        if decoy is not None:
                            changed = changed.replace(value.text, str(decoy))
                if changed != text:
                    new_items = [*items[:position], changed, *items[position + 1:]]
                    args = {**step.args, key: new_items if isinstance(raw, list) else changed}
                    return ("gen-wrong-content", ["wrong_content"], f"Writes {step.tool} with its facts changed.",
                            PlannedCall(tool=step.tool, args=args))
    return None


def _fill_required(tool: str, args: dict[str, Any], plan: list[PlannedCall],
                   tools: Mapping[str, ToolInfo]) -> dict[str, Any] | None:
    """``args`` with every other required parameter taken from a same-named argument of the plan; None if one
    cannot be filled (the call would fail and prove nothing)."""
    info = tools.get(tool)
    required = (info.input_schema or {}).get("required", []) if info else []
    out = dict(args)
    for name in required:
        if name not in out:
            found = next((step.args[name] for step in plan if name in step.args), None)
            if found is None:
                return None
            out[name] = found
    return out


def _checked_write_args(task: Task) -> set[str]:
    """Every value the spec's state and effect checkpoints name (case-folded)."""
    out: set[str] = set()
    for cp in task.spec.checkpoints:
        if isinstance(cp, StateCheckpoint):
            out |= {str(v).casefold() for v in cp.contains}
            for m in [*cp.match.values(), *cp.where.values()]:
                value = getattr(m, m.kind)
                out |= {str(v).casefold() for v in (value if isinstance(value, list) else [value])}
        elif isinstance(cp, ToolEffectCheckpoint):
            for member in cp.all_members():
                out |= {str(v).casefold() for v in member.must_include.values()}
                for m in member.must_match.values():
                    value = getattr(m, m.kind)
                    out |= {str(v).casefold() for v in (value if isinstance(value, list) else [value])}
    return out


# --------------------------------------------------------------------------- the validation


async def validate(task: Task, specs: Mapping[str, ServerSpec], *, concurrency: int = 2) -> Validation:
    """Replay, check (discrimination and lint) and play generated alternatives; every failure is a reason."""
    result = Validation(task.id)
    [check] = await check_references(specs, [task], concurrency=1)
    result.check = check
    if not check.passed:
        result.reasons.append(f"the reference does not pass its own spec: {check.reason}")
        return result
    disc = check.discrimination
    if disc is not None and disc.missed:
        result.reasons.append(f"the spec misses {', '.join(disc.missed)}")
    plan = RunPlan(servers=dict(specs), tasks=[task], agent=ReferenceAgent(), model=None)
    episode, tools = await run_episode(plan, task, 0, "validate", "validate")
    if episode.infra_error is not None:
        result.reasons.append(f"infra error on replay: {episode.infra_error.message[:200]}")
        return result
    result.alternatives = make_alternatives(task, episode, tools)
    if not any(a.expect == "reject" for a in result.alternatives):
        result.reasons.append("no wrong alternative could be made for this task")
    result.results = await play(specs, [task], result.alternatives, concurrency=concurrency)
    for r in result.results:
        if not r.right:
            verdict = "accepted" if r.accepted else "rejected" if r.accepted is False else "infra error on"
            result.reasons.append(f"{verdict} the {r.expect}-expected alternative {r.alt_id}: {r.detail[:200]}")
    return result
