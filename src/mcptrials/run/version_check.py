"""Whether the servers a run started are the versions their labels say: one warning line per disagreement.

A release labelled ``2025.7.1`` whose server says at ``initialize`` that it is ``0.6.2``, or two labels
whose servers list the same tools and say the same version (likely one build under two names), are
told in the run output and recorded with the run.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mcptrials.evolve.releases import World, expected_labels
from mcptrials.model import ServerSpec
from mcptrials.run.runner import Identity, RunResult
from mcptrials.store.db import Store


@dataclass(frozen=True)
class LabelWarning:
    """One disagreement between version labels and what the servers said, and the versions it concerns."""

    versions: tuple[str, ...]
    text: str


def _same(label: str, reported: str) -> bool:
    """A reported version matches its label up to case, spaces and a leading ``v`` (``v1.2`` is ``1.2``)."""
    def norm(text: str) -> str:
        text = text.strip().lower()
        return text[1:] if text[:1] == "v" and text[1:2].isdigit() else text

    return norm(label) == norm(reported)


def _shown(identity: Identity) -> str:
    _, name, version = identity
    return f"{name or '(no name)'} {version or '(no version)'}"


def label_warnings(expected: Mapping[str, Mapping[str, str]],
                   seen: Mapping[str, Mapping[str, set[Identity]]]) -> list[LabelWarning]:
    """Warnings for ``expected[world][server] = label`` against ``seen[world][server]`` identities.

    A label disagrees with a server that reports another version (or none); two labels of one server
    are suspect when a server of each has the same tools hash and the same reported version.
    """
    out: list[LabelWarning] = []
    by_server: dict[str, dict[str, set[Identity]]] = {}
    for world, servers in expected.items():
        for server, label in servers.items():
            found = seen.get(world, {}).get(server, set())
            by_server.setdefault(server, {}).setdefault(label, set()).update(found)
    for server, labels in sorted(by_server.items()):
        for label, found in labels.items():
            wrong = sorted((i for i in found if i[2] is None or not _same(label, i[2])), key=str)
            if wrong:
                said = "; ".join(f"{_shown(i)} (tools {i[0]})" for i in wrong)
                out.append(LabelWarning((label,), f"server {server!r} version {label!r} reports itself as {said}, "
                                                  f"not {label}: check the version's command or its label"))
        for (a, found_a), (b, found_b) in itertools.combinations(labels.items(), 2):
            alike = sorted({(h, v) for h, _, v in found_a} & {(h, v) for h, _, v in found_b}, key=str)
            if alike:
                tools_hash, version = alike[0]
                out.append(LabelWarning((a, b), f"server {server!r} versions {a!r} and {b!r} look like one build: the "
                                                f"same tools (hash {tools_hash}) and reported version "
                                                f"{version or '(none)'}"))
    return out


def check_run_labels(specs: Mapping[str, ServerSpec], worlds: list[World],
                     results: Sequence[tuple[str, RunResult]], store: Store) -> list[str]:
    """The warnings on a run's declared versions (``results``: each version's run), each recorded with its runs."""
    expected = expected_labels(specs, worlds)
    if not any(expected.values()):
        return []
    seen: dict[str, dict[str, set[Identity]]] = {}
    for version, result in results:
        for server, found in result.identities.items():
            seen.setdefault(version, {}).setdefault(server, set()).update(found)
    found_warnings = label_warnings(expected, seen)
    for warning in found_warnings:
        for version, result in results:
            if version in warning.versions:
                store.add_run_warnings(result.run_id, [warning.text])
    return [w.text for w in found_warnings]
