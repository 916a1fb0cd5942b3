"""Run and score the same tasks on evolved server versions.

A lineages folder holds, per server, the chained plans ``<server>/v1/plan.yaml ... vN/plan.yaml``.
For a version, every server with a lineage is served through the mutation proxy at that version,
and every task is rewritten to the effects it really needs there: reference calls, equivalence
sets, argument predicates and minefields follow renamed, merged and migrated tools and arguments.
Stages name versions as in MCPEvol-Bench: early = v0, middle = v3, late = v5.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcptrials.evolve.lineage import version_server_spec
from mcptrials.evolve.mapping import CallTarget, ToolRemovedError, rewrite_call, tool_mapping
from mcptrials.evolve.plan import PlanChain, PlanError, load_plan_chain
from mcptrials.model import (
    Matcher,
    Minefield,
    PlannedCall,
    ServerSpec,
    Task,
    ToolEffectCheckpoint,
    ValueCheckpoint,
    split_qualified,
)

STAGES = {"early": "v0", "middle": "v3", "late": "v5"}
_ABSENT = object()


class VersionError(ValueError):
    """A version or stage that the lineages cannot provide."""


def parse_versions(text: str) -> list[str]:
    """``early,middle,late`` or ``v0,v2,v4`` (mixed allowed) into version labels, in order."""
    out = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        version = STAGES.get(part, part)
        if not (version.startswith("v") and version[1:].isdigit()):
            raise VersionError(f"unknown stage or version {part!r} (early, middle, late, or v0, v1, ...)")
        if version not in out:
            out.append(version)
    if not out:
        raise VersionError("no versions given")
    return out


class Lineages:
    """Plan chains per server, read from ``root/<server>/vK/plan.yaml``."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise VersionError(f"no lineages folder at {self.root}")

    def servers(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir() if (p / "v1" / "plan.yaml").is_file())

    def versions(self, server: str) -> list[str]:
        folder = self.root / server
        found = sorted((p.name for p in folder.glob("v*") if (p / "plan.yaml").is_file()),
                       key=lambda v: int(v[1:]))
        return ["v0", *found]

    def chain(self, server: str, version: str) -> PlanChain | None:
        """The chain that makes ``version`` of ``server``; None for v0 or a server without lineage."""
        if version == "v0" or not (self.root / server).is_dir():
            return None
        plan = self.root / server / version / "plan.yaml"
        if not plan.is_file():
            raise VersionError(f"server {server!r} has no version {version} (has {self.versions(server)})")
        try:
            return load_plan_chain([plan])
        except PlanError as exc:
            raise VersionError(str(exc)) from None

    def operators(self, server: str, version: str) -> dict[str, list[str]]:
        """For each version up to ``version``, the operators its plan applied to ``server``."""
        chain = self.chain(server, version)
        return {} if chain is None else chain.operators_applied()


def versioned_servers(specs: Mapping[str, ServerSpec], lineages: Lineages, version: str) -> dict[str, ServerSpec]:
    """Every server at ``version``: behind the mutation proxy when it has a lineage, else unchanged."""
    out = {}
    for name, spec in specs.items():
        chain = lineages.chain(name, version)
        out[name] = spec if chain is None else version_server_spec(spec, lineages.root / name, version)
    return out


def _targets(chains: Mapping[str, PlanChain], tool: str) -> list[CallTarget]:
    server, _ = split_qualified(tool)
    chain = chains.get(server)
    return [CallTarget(tool=tool)] if chain is None else tool_mapping(chain, [tool])[tool].targets


Predicates = tuple[str, dict[str, Any], dict[str, Matcher]]


def _for_target(target: CallTarget, must_include: dict[str, Any], must_match: dict[str, Matcher]) -> Predicates:
    """One target's tool and predicates: renamed and dropped arguments, and its fixed selector values."""
    include = {target.current(k): v for k, v in must_include.items() if k not in target.dropped_args}
    include.update(target.fixed_args)  # a selector that routes to the old behaviour is part of the effect
    match = {target.current(k): m for k, m in must_match.items() if k not in target.dropped_args}
    return target.tool, include, match


def _rewrite_checkpoint(tools: list[str], must_include: dict[str, Any], must_match: dict[str, Matcher],
                        chains: Mapping[str, PlanChain], used: set[str]) -> tuple[list[str], dict[str, Any],
                                                                                   dict[str, Matcher]]:
    """New equivalence set and predicates; never more lenient than the original checkpoint.

    Targets that agree keep one set; targets that differ only in the selector value of one merged
    tool become a ``one_of``; otherwise the set narrows to the targets agreeing with the one the
    rewritten reference plan uses.
    """
    rewritten = [_for_target(t, must_include, must_match) for tool in tools for t in _targets(chains, tool)]
    if not rewritten:
        raise ToolRemovedError(f"every tool of {tools} is gone and nothing took over their job")
    names = list(dict.fromkeys(tool for tool, _, _ in rewritten))
    if len(names) == 1 and all(m == rewritten[0][2] for _, _, m in rewritten):
        keys = set().union(*(inc.keys() for _, inc, _ in rewritten))
        include, match = {}, dict(rewritten[0][2])
        for key in sorted(keys):
            values = [inc.get(key, _ABSENT) for _, inc, _ in rewritten]
            if all(v == values[0] for v in values):
                if values[0] is not _ABSENT:
                    include[key] = values[0]
            elif _ABSENT not in values:
                match[key] = Matcher(one_of=list(dict.fromkeys(values)))
            else:
                break
        else:
            return names, include, match
    primary = next((r for r in rewritten if r[0] in used), rewritten[0])
    agree = [tool for tool, inc, m in rewritten if inc == primary[1] and m == primary[2]]
    return list(dict.fromkeys(agree)), primary[1], primary[2]


def _rewrite_minefield(mine: Minefield, chains: Mapping[str, PlanChain]) -> list[Minefield]:
    """One minefield per target (exact); a mine whose tools are all gone disappears with them."""
    out: list[Minefield] = []
    for tool in mine.tools:
        for target in _targets(chains, tool):
            name, include, match = _for_target(target, mine.must_include, mine.must_match)
            candidate = Minefield(tools=[name], must_include=include, must_match=match, description=mine.description)
            if candidate not in out:
                out.append(candidate)
    return out


def rewrite_task(task: Task, lineages: Lineages, version: str) -> Task:
    """The task as it must be solved and scored on ``version`` of its servers."""
    chains = {s: c for s in task.servers if (c := lineages.chain(s, version)) is not None}
    operators: dict[str, list[str]] = {}
    for server in task.servers:
        for v, ops in lineages.operators(server, version).items():
            operators.setdefault(v, []).extend(ops)
    provenance = {**task.provenance, "version": version, "operators_by_version": operators,
                  "original_reference": [step.model_dump() for step in task.reference]}
    if not chains:
        return task.model_copy(update={"provenance": provenance})
    reference = []
    for step in task.reference:
        server, _ = split_qualified(step.tool)
        chain = chains.get(server)
        tool, args = (step.tool, step.args) if chain is None else rewrite_call(chain, step.tool, step.args)
        reference.append(PlannedCall(tool=tool, args=args))
    used = {step.tool for step in reference}
    checkpoints: list[ToolEffectCheckpoint | ValueCheckpoint] = []
    for cp in task.spec.checkpoints:
        if isinstance(cp, ToolEffectCheckpoint):
            tools, include, match = _rewrite_checkpoint(cp.tools, cp.must_include, cp.must_match, chains, used)
            checkpoints.append(cp.model_copy(update={"tools": tools, "must_include": include, "must_match": match}))
        elif cp.tools:
            tools = list(dict.fromkeys(t.tool for name in cp.tools for t in _targets(chains, name)))
            if not tools:  # an empty list would mean "any tool": looser than the original
                raise ToolRemovedError(f"every tool of value checkpoint {cp.id!r} is gone")
            checkpoints.append(cp.model_copy(update={"tools": tools}))
        else:
            checkpoints.append(cp)
    minefields = [new for mine in task.spec.minefields for new in _rewrite_minefield(mine, chains)]
    spec = task.spec.model_copy(update={"checkpoints": checkpoints, "minefields": minefields})
    return task.model_copy(update={"reference": reference, "spec": spec, "provenance": provenance})


def versioned_world(specs: Mapping[str, ServerSpec], tasks: list[Task], lineages: Lineages,
                    version: str) -> tuple[dict[str, ServerSpec], list[Task]]:
    """Servers and rewritten tasks for one version."""
    return versioned_servers(specs, lineages, version), [rewrite_task(t, lineages, version) for t in tasks]
