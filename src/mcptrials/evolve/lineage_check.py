"""Choose each requested version's servers and tasks, refusing a ``--lineages`` folder that evolves none of them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from mcptrials.evolve.versions import Lineages, VersionError, parse_versions, versioned_world
from mcptrials.model import ServerSpec, Task


def require_matching_lineage(lineages: Lineages, specs: Mapping[str, ServerSpec], tasks: list[Task],
                             path: Path) -> None:
    """Raise VersionError unless a server the tasks use (or, without tasks, a configured one) has a lineage there."""
    wanted = sorted({s for t in tasks for s in t.servers}) if tasks else sorted(specs)
    have = lineages.servers()
    if not set(wanted) & set(have):
        raise VersionError(
            f"--lineages {path}: no lineage for {', '.join(wanted[:8]) or 'any server'}"
            f"{' ...' if len(wanted) > 8 else ''} (it has: {', '.join(have) or 'none'}; expected "
            "<server>/vK/plan.yaml, or one server's folder written by `mcptrials evolve --out`)")


def versioned_worlds(specs: Mapping[str, ServerSpec], tasks: list[Task], stages: str | None,
                     lineages: Path | None, warn: Callable[[str], None] | None = None,
                     ) -> list[tuple[str, dict[str, ServerSpec], list[Task]]]:
    """(version, servers, rewritten tasks) for each requested version; just v0 without ``stages``.

    With a user's ``--lineages`` folder, tasks none of whose servers it evolves are named through
    ``warn``: they run their servers at v0 under every version label.
    """
    if not stages:
        return [("v0", dict(specs), tasks)]
    from mcptrials.bundled.world import LINEAGES_DIR

    found = Lineages(lineages or LINEAGES_DIR)
    versions = parse_versions(stages)
    if lineages is not None and versions != ["v0"]:
        require_matching_lineage(found, specs, tasks, lineages)
        have = set(found.servers())
        static = sorted(t.id for t in tasks if not set(t.servers) & have)
        if static and warn is not None:
            warn(f"--lineages {lineages} evolves none of the servers of {len(static)} task(s) "
                 f"({', '.join(static[:5])}{' ...' if len(static) > 5 else ''}): "
                 "they run at v0 under every version label")
    return [(v, *versioned_world(specs, tasks, found, v)) for v in versions]
