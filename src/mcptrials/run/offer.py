"""What an episode offers the agent: the task's servers, every server (``--pool all``), or the task's plus distractors.

Distractors (DynamicMCPBench): tools of other servers added to a task's offer, about half of
them with the same bare name as a tool the task needs (the server-attribution trap), the rest
near misses (the other servers' tools whose names and descriptions are closest to the needed
tools'). The choice is deterministic for a seed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from mcptrials.model import Task, ToolEffectCheckpoint, ToolInfo, ValueCheckpoint, split_qualified

POOLS = ("task", "all")


class OfferError(ValueError):
    """A pool or distractor setting that cannot be applied."""


@dataclass
class DistractorChoice:
    """The chosen distractors of one task and how many of them share a needed tool's name."""

    names: list[str]
    same_name: int
    note: str = ""
    """Set when the catalogue could not give what was asked (too few same-name tools or candidates)."""


def needed_tools(task: Task) -> list[str]:
    """Qualified names of the tools the task's reference plan and spec use, in first-use order."""
    names = [step.tool for step in task.reference]
    for cp in task.spec.checkpoints:
        if isinstance(cp, ToolEffectCheckpoint):
            names += cp.tool_names
        elif isinstance(cp, ValueCheckpoint):
            names += cp.tools
    return list(dict.fromkeys(n for n in names if "__" in n))


_WORD = re.compile(r"[a-z0-9]+")


def _words(tool: ToolInfo) -> set[str]:
    return set(_WORD.findall(f"{tool.name.replace('_', ' ')} {tool.description}".lower()))


def _closeness(tool: ToolInfo, targets: list[set[str]]) -> float:
    """The largest word overlap (Jaccard) of a tool's name and description with any needed tool's."""
    mine = _words(tool)
    return max((len(mine & t) / len(mine | t) for t in targets if mine | t), default=0.0)


def choose_distractors(task: Task, catalogue: Sequence[ToolInfo], k: int, seed: int) -> DistractorChoice:
    """Choose ``k`` tools outside the task's offer: ceil(k/2) same-name where the catalogue has them, the
    rest near misses; deterministic for ``seed`` whatever the catalogue's order."""
    if k < 0:
        raise OfferError(f"the number of distractors must be >= 0 (got {k})")
    offer = set(task.servers)
    taken = set(task.distractors)
    candidates = sorted((t for t in catalogue if t.server not in offer and t.qualified_name not in taken),
                        key=lambda t: t.qualified_name)
    needed = needed_tools(task)
    bare = {split_qualified(n)[1] for n in needed}
    rng = random.Random(f"distractors:{seed}:{task.id}")
    want_same = (k + 1) // 2
    same_pool = [t for t in candidates if t.name in bare]
    same = rng.sample(same_pool, min(want_same, len(same_pool)))
    by_name = {t.qualified_name: t for t in catalogue}
    targets = [_words(by_name[n]) for n in needed if n in by_name] or [
        _words(t) for t in catalogue if t.server in offer]
    others = [t for t in candidates if t.name not in bare]
    ranked = sorted(others, key=lambda t: (-_closeness(t, targets), rng.random()))
    ranked += [t for t in same_pool if t not in same]  # more same-name tools only when nothing else is left
    rest = ranked[:k - len(same)]
    notes = []
    if len(same) < want_same:
        notes.append(f"only {len(same)} same-name tool(s) outside the task's servers (wanted {want_same}); "
                     "filled with near misses")
    if len(same) + len(rest) < k:
        notes.append(f"only {len(same) + len(rest)} tool(s) outside the task's offer (wanted {k})")
    names = sorted(t.qualified_name for t in [*same, *rest])
    return DistractorChoice(names=names, same_name=len(same), note="; ".join(notes))


def pick_distractors(task: Task, catalogue: Sequence[ToolInfo], k: int, seed: int) -> list[str]:
    """Qualified names of ``k`` distractor tools for ``task`` (see ``choose_distractors`` for the note)."""
    return choose_distractors(task, catalogue, k, seed).names


def apply_distractors(tasks: Iterable[Task], catalogue: Sequence[ToolInfo], k: int,
                      seed: int) -> tuple[list[Task], dict[str, str]]:
    """Tasks with ``k`` distractors added where none are recorded, and a note per task that got fewer than asked.

    The choice is kept in ``provenance["distractors"]`` (k, seed, same-name count, note).
    """
    out: list[Task] = []
    notes: dict[str, str] = {}
    for task in tasks:
        if task.distractors or k == 0:
            out.append(task)
            continue
        choice = choose_distractors(task, catalogue, k, seed)
        if choice.note:
            notes[task.id] = choice.note
        record = {"k": k, "seed": seed, "same_name": choice.same_name, "note": choice.note}
        out.append(task.model_copy(update={"distractors": choice.names,
                                           "provenance": {**task.provenance, "distractors": record}}))
    return out, notes


def episode_servers(task: Task, servers: Mapping[str, object], pool: str) -> list[str]:
    """The servers an episode starts: every configured one for ``all``, else the task's and its distractors'."""
    if pool == "all":
        return sorted(servers)
    if pool != "task":
        raise OfferError(f"unknown pool {pool!r} (known: {', '.join(POOLS)})")
    extra = [split_qualified(d)[0] for d in task.distractors]
    names = list(dict.fromkeys([*task.servers, *extra]))
    missing = [n for n in names if n not in servers]
    if missing:
        raise OfferError(f"task {task.id!r}: servers {missing} are not in the servers config")
    return names


def offer_filter(task: Task, pool: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """(servers offered whole, single tools offered) for a task with distractors; None when every started tool is."""
    if pool == "all" or not task.distractors:
        return None
    return frozenset(task.servers), frozenset(task.distractors)
