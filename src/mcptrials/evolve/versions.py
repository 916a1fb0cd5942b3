"""Run and score the same tasks on evolved server versions.

A lineages folder holds, per server, the chained plans ``<server>/v1/plan.yaml ... vN/plan.yaml``.
For a version, every server with a lineage is served through the mutation proxy at that version
(or, for a lineage ``evolve --mode source`` wrote, from that version's rewritten source tree),
and every task is rewritten to the effects it really needs there: reference calls, equivalence
sets, argument predicates and minefields follow renamed, merged and migrated tools and arguments.
Stages name versions as in MCPEvol-Bench: early = v0, middle = v3, late = v5.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from mcptrials.evolve.lineage import version_server_spec
from mcptrials.evolve.mapping import CallTarget, ToolRemovedError, rewrite_call, tool_mapping
from mcptrials.evolve.plan import PlanChain, PlanError, load_plan_chain
from mcptrials.jsonpath import first_step, with_first_step
from mcptrials.model import (
    Checkpoint,
    EffectMember,
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
    """Plan chains per server, read from ``root/<server>/vK/plan.yaml``.

    ``root`` may also be one server's lineage as ``mcptrials evolve --out`` writes it
    (``root/lineage.json`` naming the server, ``root/vK/plan.yaml``).
    """

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise VersionError(f"no lineages folder at {self.root}")
        self.single: str | None = _single_server(self.root)

    def folder(self, server: str) -> Path:
        """Where ``server``'s versions are (``root`` itself for a single-server lineage)."""
        if self.single is not None:
            return self.root if server == self.single else self.root / "_no_lineage_" / server
        return self.root / server

    def servers(self) -> list[str]:
        if self.single is not None:
            return [self.single]
        return sorted(p.name for p in self.root.iterdir() if (p / "v1" / "plan.yaml").is_file())

    def versions(self, server: str) -> list[str]:
        folder = self.folder(server)
        found = sorted((p.name for p in folder.glob("v*") if (p / "plan.yaml").is_file()),
                       key=lambda v: int(v[1:]))
        return ["v0", *found]

    def chain(self, server: str, version: str) -> PlanChain | None:
        """The chain that makes ``version`` of ``server``; None for v0 or a server without lineage."""
        if version == "v0" or not self.folder(server).is_dir():
            return None
        plan = self.folder(server) / version / "plan.yaml"
        if not plan.is_file():
            raise VersionError(f"server {server!r} has no version {version} (has {self.versions(server)})")
        try:
            return load_plan_chain([plan])
        except PlanError as exc:
            raise VersionError(str(exc)) from None

    def chains_at(self, version: str) -> Callable[[Task], dict[str, PlanChain]]:
        """For a task, the chains of its servers that make ``version`` (none on v0)."""
        def of(task: Task) -> dict[str, PlanChain]:
            return {s: c for s in task.servers if (c := self.chain(s, version)) is not None}
        return of

    def operators(self, server: str, version: str) -> dict[str, list[str]]:
        """For each version up to ``version``, the operators its plan applied to ``server``."""
        chain = self.chain(server, version)
        return {} if chain is None else chain.operators_applied()


def _single_server(root: Path) -> str | None:
    """The server a single-server lineage folder (``evolve --out``) belongs to, else None."""
    manifest = root / "lineage.json"
    if not manifest.is_file() or not (root / "v1" / "plan.yaml").is_file():
        return None
    from mcptrials.safety.loading import DocumentError, load_document

    try:
        server = load_document(manifest, "lineage manifest").get("server")
    except (DocumentError, AttributeError):
        return None
    return server if isinstance(server, str) and server else None


def versioned_servers(specs: Mapping[str, ServerSpec], lineages: Lineages, version: str) -> dict[str, ServerSpec]:
    """Every server at ``version``: behind the mutation proxy when it has a lineage, else unchanged."""
    out = {}
    for name, spec in specs.items():
        chain = lineages.chain(name, version)
        try:
            out[name] = spec if chain is None else version_server_spec(spec, lineages.folder(name), version)
        except (ValueError, OSError) as exc:  # a source version whose tree or manifest does not fit the config
            raise VersionError(f"server {name!r} at {version}: {exc}") from None
    return out


def _targets(chains: Mapping[str, PlanChain], tool: str) -> list[CallTarget]:
    server, _ = split_qualified(tool)
    chain = chains.get(server)
    return [CallTarget(tool=tool)] if chain is None else tool_mapping(chain, [tool])[tool].targets


Predicates = tuple[str, dict[str, Any], dict[str, Matcher]]


def _renamed(target: CallTarget, predicates: Mapping[str, Any]) -> dict[str, Any]:
    """Predicates keyed by the target's argument names (a path's first step renamed); dropped arguments left out."""
    out = {}
    for key, value in predicates.items():
        head = str(first_step(key))
        if head not in target.dropped_args:
            out[with_first_step(key, target.current(head))] = value
    return out


def _for_target(target: CallTarget, must_include: dict[str, Any], must_match: dict[str, Matcher]) -> Predicates:
    """One target's tool and predicates: renamed and dropped arguments, and its fixed selector values."""
    include = _renamed(target, must_include)
    include.update(target.fixed_args)  # a selector that routes to the old behaviour is part of the effect
    return target.tool, include, _renamed(target, must_match)


def _implied_meet(target: CallTarget, member: EffectMember | Minefield) -> bool:
    """Whether the values an alias fixes itself meet the member's predicates on those arguments."""
    from mcptrials.scoring.matchers import arguments_satisfy

    fixed = target.implied_args
    include = {k: v for k, v in member.must_include.items() if first_step(k) in fixed}
    match = {k: m for k, m in member.must_match.items() if first_step(k) in fixed}
    return arguments_satisfy(fixed, include, match)


def _rewrite_effect(cp: ToolEffectCheckpoint, chains: Mapping[str, PlanChain]) -> ToolEffectCheckpoint:
    """The checkpoint on the evolved interface: every tool that now does a member's job is a member.

    Each target keeps its own predicates (renamed arguments, fixed selector values), so the
    set accepts every tool the version advertises for the effect and is never looser than
    the original for any of them.
    """
    members: list[EffectMember] = []
    for member in cp.all_members():
        for target in _targets(chains, member.tool):
            if not _implied_meet(target, member):
                continue  # an alias whose fixed values cannot do this effect
            tool, include, match = _for_target(target, member.must_include, member.must_match)
            candidate = EffectMember(tool=tool, must_include=include, must_match=match)
            if candidate not in members:
                members.append(candidate)
    if not members:
        raise ToolRemovedError(f"every tool of checkpoint {cp.id!r} is gone and nothing took over their job")
    return cp.model_copy(update={"tools": [], "must_include": {}, "must_match": {}, "members": members})


def _rewrite_minefield(mine: Minefield, chains: Mapping[str, PlanChain]) -> list[Minefield]:
    """One minefield per target (exact); a mine whose tools are all gone disappears with them."""
    out: list[Minefield] = []
    for tool in mine.tools:
        for target in _targets(chains, tool):
            if not _implied_meet(target, mine):
                continue
            name, include, match = _for_target(target, mine.must_include, mine.must_match)
            candidate = Minefield(tools=[name], must_include=include, must_match=match, description=mine.description)
            if candidate not in out:
                out.append(candidate)
    return out


def _rewrite_distractors(names: list[str], lineages: Lineages, version: str) -> list[str]:
    """A task's distractor tools as ``version`` names them (a distractor the version removed is dropped)."""
    out: list[str] = []
    for name in names:
        chain = lineages.chain(split_qualified(name)[0], version)
        targets = [name] if chain is None else [t.tool for t in tool_mapping(chain, [name])[name].targets]
        out += [t for t in targets if t not in out]
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
    if task.distractors:
        task = task.model_copy(update={"distractors": _rewrite_distractors(task.distractors, lineages, version)})
    if not chains:
        return task.model_copy(update={"provenance": provenance})
    reference = []
    for step in task.reference:
        server, _ = split_qualified(step.tool)
        chain = chains.get(server)
        tool, args = (step.tool, step.args) if chain is None else rewrite_call(chain, step.tool, step.args)
        reference.append(PlannedCall(tool=tool, args=args))
    checkpoints: list[Checkpoint] = []
    for cp in task.spec.checkpoints:
        if isinstance(cp, ToolEffectCheckpoint):
            checkpoints.append(_rewrite_effect(cp, chains))
        elif isinstance(cp, ValueCheckpoint) and cp.tools:
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
