"""Worlds of the server versions a servers config declares: one per label, each run as its own version.

A label's world starts every server that declares the label at that version; a server with a single
version runs it in every world; an unversioned server runs as configured. A version that names a
lineage stage is served through the mutation proxy at that stage, and the tasks on it are rewritten
as for ``--stages``. Without ``--versions`` every declared label runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mcptrials.evolve.plan import PlanChain
from mcptrials.evolve.versions import STAGES, Lineages, VersionError, rewrite_task, versioned_servers
from mcptrials.model import ServerSpec, Task
from mcptrials.servers.versions import DeclaredVersion, declared_versions

World = tuple[str, dict[str, ServerSpec], list[Task]]
"""(version label, servers, tasks as they must be solved there)."""


def declares_versions(specs: Mapping[str, ServerSpec]) -> bool:
    """Whether any server's config declares a version (``version`` or ``versions``)."""
    return any(declared_versions(spec) for spec in specs.values())


def declared_labels(specs: Mapping[str, ServerSpec]) -> list[str]:
    """Every label the config declares, in the order written (servers with several versions first decide)."""
    several = [label for spec in specs.values() if len(found := declared_versions(spec)) > 1 for label in found]
    if several:
        return list(dict.fromkeys(several))
    single = {name: label for name, spec in specs.items() for label in declared_versions(spec)}
    if len(set(single.values())) <= 1:
        return list(dict.fromkeys(single.values()))
    return ["+".join(f"{name}@{label}" for name, label in single.items())]  # one world of pinned servers


def parse_labels(text: str, specs: Mapping[str, ServerSpec]) -> list[str]:
    """``--versions a,b`` as labels in order; ``VersionError`` naming a label no server declares."""
    picked = list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    known = list(dict.fromkeys(label for spec in specs.values() for label in declared_versions(spec)))
    if not picked:
        raise VersionError("--versions: no version given")
    if not known:
        raise VersionError("--versions: the servers config declares no versions (give a server \"versions\": "
                           "{label: {...}} or \"version\": label; for evolved lineages use --stages)")
    unknown = [label for label in picked if label not in known]
    if unknown:
        hint = " (lineage stages go to --stages)" if all(u in STAGES or u[1:].isdigit() for u in unknown) else ""
        raise VersionError(f"--versions: no server declares version {', '.join(map(repr, unknown))} "
                           f"(declared: {', '.join(known)}){hint}")
    return picked


def _version_in(name: str, spec: ServerSpec, label: str, used: bool) -> DeclaredVersion | None:
    """The version of server ``name`` in ``label``'s world (None: run as configured)."""
    found = declared_versions(spec)
    if label in found:
        return found[label]
    if len(found) == 1:
        return next(iter(found.values()))
    if found and used:
        raise VersionError(f"server {name!r} has no version {label!r} (it declares: {', '.join(found)}); give every "
                           "versioned server the labels you run, or run them from separate configs")
    return None


class _PinnedLineages(Lineages):
    """Each server's chain at its own stage, whatever version a rewrite asks for (one world's stage versions)."""

    def __init__(self, pins: Mapping[str, tuple[Lineages, str]]) -> None:  # pins, no folder of its own
        self.pins = dict(pins)

    def folder(self, server: str) -> Path:
        return self.pins[server][0].folder(server)

    def servers(self) -> list[str]:
        return sorted(self.pins)

    def chain(self, server: str, version: str) -> PlanChain | None:
        pin = self.pins.get(server)
        return None if pin is None else pin[0].chain(server, pin[1])

    def operators(self, server: str, version: str) -> dict[str, list[str]]:
        pin = self.pins.get(server)
        return {} if pin is None else pin[0].operators(server, pin[1])


def _lineages_of(version: DeclaredVersion, default: Path | None) -> Lineages:
    from mcptrials.bundled.world import LINEAGES_DIR

    return Lineages(version.lineages or default or LINEAGES_DIR)


def release_worlds(specs: Mapping[str, ServerSpec], tasks: list[Task], picked: str | None,
                   lineages: Path | None = None) -> list[World]:
    """One world per picked label (every declared label when ``picked`` is None), in the order given."""
    labels = parse_labels(picked, specs) if picked else declared_labels(specs)
    used = {s for t in tasks for s in t.servers} if tasks else set(specs)
    worlds: list[World] = []
    for label in labels:
        servers: dict[str, ServerSpec] = {}
        pins: dict[str, tuple[Lineages, str]] = {}
        for name, spec in specs.items():
            version = _version_in(name, spec, label, name in used)
            if version is None:
                servers[name] = spec
                continue
            servers[name] = version.spec
            if version.stage is not None:
                found = _lineages_of(version, lineages)
                stage = STAGES.get(version.stage, version.stage)
                found.chain(name, stage)  # a stage the lineage lacks is refused here, before any episode
                pins[name] = (found, stage)
                served = versioned_servers({name: version.spec}, found, stage)[name]
                servers[name] = served.model_copy(update={"version": version.label})
        chosen = [rewrite_task(t, _PinnedLineages(pins), label) for t in tasks] if pins else list(tasks)
        worlds.append((label, servers, chosen))
    return worlds


def expected_labels(specs: Mapping[str, ServerSpec], worlds: list[World]) -> dict[str, dict[str, str]]:
    """Per world, the label each release server should report at ``initialize`` (stage versions report theirs)."""
    out: dict[str, dict[str, str]] = {}
    for label, servers, _ in worlds:
        out[label] = {}
        for name, spec in servers.items():
            version = declared_versions(specs[name]).get(spec.version) if name in specs else None
            if version is not None and version.stage is None:
                out[label][name] = version.label
    return out


def declared_worlds(specs: Mapping[str, ServerSpec], tasks: list[Task], stages: str | None, versions: str | None,
                    lineages: Path | None) -> list[World] | None:
    """The worlds of declared versions, or None when the run is not about them (no versions, or ``--stages``).

    ``--versions`` and ``--stages`` do not mix; under ``--stages`` a server the tasks use must not declare
    several versions (which one would evolve?).
    """
    if versions and stages:
        raise VersionError("give --versions or --stages, not both (a declared version may name a lineage stage: "
                           '"versions": {"late": {"stage": "v5"}})')
    if versions or (not stages and declares_versions(specs)):
        return release_worlds(specs, tasks, versions, lineages)
    if stages:
        used = {s for t in tasks for s in t.servers} if tasks else set(specs)
        several = sorted(n for n, s in specs.items() if n in used and len(declared_versions(s)) > 1)
        if several:
            raise VersionError(f"--stages: server {several[0]!r} declares several versions "
                               f"({', '.join(declared_versions(specs[several[0]]))}); pick them with --versions, "
                               "or name a stage in a version (\"stage\": \"v3\")")
    return None
