"""The versions a servers config declares for one server, each under a label of its own.

A server entry may say ``"version": "1.4.0"`` (the entry is that version) or ``"versions": {label: overrides}``,
each label its own release: the entry's fields with the overrides on top (a command, args with a package
version, a url), or the entry served at a stage of an evolved lineage (``"stage": "v3"``, with an optional
``"lineages"`` folder). ``run --versions`` picks labels; every picked version is its own set of episodes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mcptrials.model import ServerSpec, version_label_problem

STAGE = re.compile(r"early|middle|late|v\d+")
"""A lineage stage a version may name (``evolve.versions.STAGES`` says which round each word is)."""
VERSION_ONLY_KEYS = frozenset({"stage", "lineages"})
"""Keys a version's overrides may have beyond a server entry's own."""


class VersionsError(ValueError):
    """A ``version``/``versions`` field that cannot be used; the message names the file, server and label."""


@dataclass(frozen=True)
class DeclaredVersion:
    """One version of a server as its config declares it."""

    label: str
    spec: ServerSpec
    """How to start this version (``spec.version`` is ``label``); for a stage, the server in front of the proxy."""
    stage: str | None = None
    """A lineage stage (``v3``, ``late``) to serve ``spec`` at, through the mutation proxy."""
    lineages: str | None = None
    """The lineages folder of ``stage`` (default: the run's ``--lineages``, else the bundled lineages)."""


def declared_versions(spec: ServerSpec) -> dict[str, DeclaredVersion]:
    """The versions ``spec``'s config declares, by label in the order written ({} for an unversioned server)."""
    return dict(spec._versions)


def declare(spec: ServerSpec, versions: Mapping[str, DeclaredVersion]) -> ServerSpec:
    """``spec`` remembering the versions its config declares (``declared_versions``)."""
    spec._versions = dict(versions)
    return spec


def check_label(label: Any, where: str) -> str:
    """``label`` when it can label a version, else ``VersionsError`` naming where it was written."""
    problem = version_label_problem(label)
    if problem:
        raise VersionsError(f"{where}: version label {label!r}: {problem}")
    return str(label)


Parse = Callable[[dict[str, Any]], ServerSpec]
"""Parses one (merged) server entry into a spec; raises the config's error naming its field."""


def parse_versions(entry: dict[str, Any], where: str, parse: Parse) -> ServerSpec:
    """The spec of an entry with ``"versions"``: its first version, remembering them all (``declared_versions``)."""
    block = entry["versions"]
    if "version" in entry:
        raise VersionsError(f"{where}: give either 'version' (one label) or 'versions' (a label per version), "
                            "not both")
    if not isinstance(block, dict) or not block:
        raise VersionsError(f"{where}: field 'versions' must map labels to overrides, e.g. "
                            '{"1.0": {"args": ["-y", "pkg@1.0"]}, "2.0": {"args": ["-y", "pkg@2.0"]}}')
    base = {k: v for k, v in entry.items() if k != "versions"}
    found: dict[str, DeclaredVersion] = {}
    for label, overrides in block.items():
        label = check_label(label, where)
        here = f"{where}, version {label!r}"
        if not isinstance(overrides, dict):
            raise VersionsError(f"{here}: expected an object of overrides (command, args, url, env, stage, ...), "
                                f"got {type(overrides).__name__}")
        for key in ("version", "versions", "disabled"):
            if key in overrides:
                raise VersionsError(f"{here}: field {key!r} cannot be set per version (the label is the key)")
        stage = overrides.get("stage")
        if stage is not None and (not isinstance(stage, str) or not STAGE.fullmatch(stage)):
            raise VersionsError(f"{here}: field 'stage' must be early, middle, late or v0, v1, ... (got {stage!r})")
        lineages = overrides.get("lineages")
        if lineages is not None and (not isinstance(lineages, str) or not lineages):
            raise VersionsError(f"{here}: field 'lineages' must be a folder path")
        merged = _merge(base, {k: v for k, v in overrides.items() if k not in VERSION_ONLY_KEYS})
        try:
            spec = parse({**merged, "version": label})
        except ValueError as exc:
            raise VersionsError(f"{exc} (in version {label!r})") from None
        found[label] = DeclaredVersion(label, spec, stage, lineages)
    first = next(iter(found.values())).spec.model_copy()
    return declare(first, found)


def _merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """The entry's fields with a version's on top; ``env`` and ``headers`` are merged key by key."""
    merged = {**base, **overrides}
    for key in ("env", "headers"):
        if isinstance(base.get(key), dict) and isinstance(overrides.get(key), dict):
            merged[key] = {**base[key], **overrides[key]}
    dropped = {"command": ("args", "url"), "url": ("command", "args", "cwd")}
    for given, others in dropped.items():  # a version started another way: the entry's way does not carry over
        if given in overrides:
            for key in (*others, "type", "transport", "transportType"):
                if key not in overrides:
                    merged.pop(key, None)
    return merged
