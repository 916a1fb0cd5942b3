"""The old and new release of one server as server specs: from two configs, two package versions or git refs.

- Two configs: the server named ``server`` (or the only one) in each; the new release takes the
  old one's name so tasks written for it apply.
- Two package versions: the config's entry (``npx -y pkg``, ``uvx pkg``, ``pipx run pkg``, ``python -m
  mod`` or the package's own executable) pointed at each version, installed into the user cache.
- Git refs: every path of the config's entry that lies in the server's git work tree pointed at a copy
  of that tree at the ref; the new release is the work tree as it is unless a second ref is given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from mcptrials.model import ServerSpec
from mcptrials.release.install import InstallError, git_checkout, git_root, npm_bins, pypi_env

Registry = Literal["npm", "pypi"]
REGISTRIES: tuple[Registry, ...] = ("npm", "pypi")
_NPM_LAUNCHERS = frozenset({"npx", "npm", "node", "bunx", "pnpx"})
_PYPI_LAUNCHERS = frozenset({"uvx", "uv", "pipx", "python", "python3", "pip"})
_VERSION_SUFFIX = re.compile(r"(==|@)[^@=/]+$")


class ReleaseError(ValueError):
    """Releases that cannot be told apart or set up: a missing server, an entry no version can be put in."""


@dataclass(frozen=True)
class Release:
    """One release of the server: how it is labelled in the summary and how to start it."""

    label: str
    spec: ServerSpec


@dataclass(frozen=True)
class ReleasePair:
    """The old and new release of the server under check, and where they came from."""

    server: str
    old: Release
    new: Release
    source: str
    """configs, npm, pypi or git."""


def pick_server(specs: dict[str, ServerSpec], server: str | None, where: str) -> ServerSpec:
    """The server ``server`` of a config, or its only server when none is named."""
    if server is not None:
        if server not in specs:
            raise ReleaseError(f"{where}: no server {server!r} (known: {', '.join(sorted(specs))})")
        return specs[server]
    if len(specs) != 1:
        raise ReleaseError(f"{where}: holds {len(specs)} servers ({', '.join(sorted(specs))}); name one with --server")
    return next(iter(specs.values()))


def from_configs(old: dict[str, ServerSpec], new: dict[str, ServerSpec], server: str | None,
                 old_label: str, new_label: str) -> ReleasePair:
    """The pair given as two servers configs."""
    old_spec = pick_server(old, server, f"--old {old_label}")
    new_spec = pick_server(new, server or (old_spec.name if old_spec.name in new else None), f"--new {new_label}")
    new_spec = new_spec.model_copy(update={"name": old_spec.name})
    return ReleasePair(old_spec.name, Release(old_label, old_spec), Release(new_label, new_spec), "configs")


# --------------------------------------------------------------------------- package versions


def guess_registry(spec: ServerSpec, package: str) -> Registry:
    """npm for an ``npx``/``node`` entry or an ``@scope/`` package, PyPI for ``uvx``/``pipx``/``python``."""
    launcher = Path(spec.command or "").name
    if launcher in _NPM_LAUNCHERS or package.startswith("@"):
        return "npm"
    if launcher in _PYPI_LAUNCHERS:
        return "pypi"
    raise ReleaseError(f"server {spec.name!r}: cannot tell whether {package!r} comes from npm or PyPI "
                       "(its command is neither npx nor uvx); give --registry npm or --registry pypi")


def _bare(name: str) -> str:
    """A package or command name without a pinned version (``pkg@1.2``, ``pkg==1.2``)."""
    return _VERSION_SUFFIX.sub("", name) if not name.startswith("@") or name.count("@") > 1 else name


def _after_launcher(spec: ServerSpec, package: str) -> tuple[str | None, list[str]]:
    """For ``npx``/``uvx``/``pipx run`` entries: the executable asked for (None: the package's own) and its args."""
    args = list(spec.args)
    launcher = Path(spec.command or "").name
    if launcher == "pipx" and args[:1] == ["run"]:
        args = args[1:]
    wanted: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-p", "--package", "--from", "--spec") and i + 1 < len(args):
            if _bare(args[i + 1]) != package:
                raise ReleaseError(f"server {spec.name!r}: its {arg} names {args[i + 1]!r}, not {package!r}")
            wanted = ""  # the executable is the next positional argument
            i += 2
            continue
        if arg.startswith("-"):
            i += 1
            continue
        if wanted == "":
            return _bare(arg), args[i + 1:]
        if _bare(arg) != package:
            raise ReleaseError(f"server {spec.name!r}: {spec.command} runs {arg!r}, not the package {package!r}")
        return None, args[i + 1:]
    raise ReleaseError(f"server {spec.name!r}: {spec.command} {' '.join(spec.args)} names no package to run")


def _pick_bin(bins: dict[str, Path], wanted: str | None, package: str, version: str) -> Path:
    if wanted is not None:
        if wanted not in bins:
            raise ReleaseError(f"{package} {version} has no executable {wanted!r} "
                               f"(it has: {', '.join(bins) or 'none'})")
        return bins[wanted]
    if len(bins) == 1:
        return next(iter(bins.values()))
    short = package.rsplit("/", 1)[-1]
    for name in (short, f"mcp-{short}"):
        if name in bins:
            return bins[name]
    raise ReleaseError(f"{package} {version} has {len(bins)} executables ({', '.join(bins) or 'none'}); "
                       "name one in the config (npx -p PKG NAME, or the executable as the command)")


def package_spec(spec: ServerSpec, package: str, version: str, registry: Registry,
                 extras: tuple[str, ...] = ()) -> ServerSpec:
    """``spec`` running ``version`` of ``package``, installed into the user cache with ``extras`` beside it."""
    launcher = Path(spec.command or "").name
    if spec.transport != "stdio":
        raise ReleaseError(f"server {spec.name!r} is reached by URL: a package version cannot be put in it "
                           "(give two configs with --old and --new)")
    try:
        if registry == "npm":
            bins = npm_bins(package, version, extras)
            if launcher in ("npx", "bunx", "pnpx") or (launcher == "npm" and spec.args[:1] == ["exec"]):
                wanted, rest = _after_launcher(spec.model_copy(update={"args": spec.args[1:] if launcher == "npm"
                                                                       else spec.args}), package)
            else:
                wanted, rest = launcher, list(spec.args)
            command = _pick_bin(bins, wanted, package, version)
            return spec.model_copy(update={"command": str(command), "args": rest})
        bin_dir = pypi_env(package, version, extras)
        if launcher in ("uvx", "pipx") or (launcher == "uv" and spec.args[:2] == ["tool", "run"]):
            wanted, rest = _after_launcher(spec.model_copy(update={"args": spec.args[2:] if launcher == "uv"
                                                                   else spec.args}), package)
            name = wanted or package
        elif launcher in ("python", "python3"):
            name, rest = "python", list(spec.args)
        else:
            name, rest = launcher, list(spec.args)
    except InstallError as exc:
        raise ReleaseError(str(exc)) from None
    command = bin_dir / name
    if not command.exists():
        found = sorted(p.name for p in bin_dir.iterdir() if not p.name.startswith(("python", "pip", "activate")))
        raise ReleaseError(f"{package} {version} installs no executable {name!r} "
                           f"(it has: {', '.join(found) or 'none'})")
    return spec.model_copy(update={"command": str(command), "args": rest})


def from_package(specs: dict[str, ServerSpec], server: str | None, package: str, old_version: str,
                 new_version: str, registry: Registry | None, extras: tuple[str, ...] = ()) -> ReleasePair:
    """The pair given as one config and two published versions of the package it runs.

    ``extras`` are installed beside both (``--with``): an old release whose dependencies' newest versions
    no longer fit it runs with the versions it was made for (``--with 'mcp<2'``).
    """
    spec = pick_server(specs, server, "--servers")
    registry = registry or guess_registry(spec, package)
    old = Release(old_version, package_spec(spec, package, old_version, registry, extras))
    new = Release(new_version, package_spec(spec, package, new_version, registry, extras))
    return ReleasePair(spec.name, old, new, registry)


# --------------------------------------------------------------------------- git refs


def _paths(spec: ServerSpec) -> list[Path]:
    """The existing paths an entry names: source path, its arguments (the script), cwd, then the command."""
    base = Path(spec.cwd) if spec.cwd else Path.cwd()
    out: list[Path] = []
    for value in [spec.source_path, *spec.args, spec.cwd, spec.command]:
        if not value or value.startswith("-"):
            continue
        path = Path(value) if Path(value).is_absolute() else base / value
        if path.exists() and ("/" in value or path.is_file()):
            out.append(path.resolve())
    return out


def _moved(spec: ServerSpec, root: Path, dest: Path) -> ServerSpec:
    """``spec`` with every mention of the work tree ``root`` (paths, PYTHONPATH entries) pointed at ``dest``."""
    pattern = re.compile(re.escape(str(root)) + r"(?=[/:;]|$)")

    def move(value: str | None) -> str | None:
        return None if value is None else pattern.sub(lambda _m: str(dest), value)

    here = Path.cwd().resolve()
    cwd = spec.cwd or (str(here) if here == root or root in here.parents else None)  # relative paths stay relative
    return spec.model_copy(update={
        "command": move(spec.command), "args": [move(a) or "" for a in spec.args], "cwd": move(cwd),
        "source_path": move(spec.source_path), "env": {k: move(v) or "" for k, v in spec.env.items()}})


def from_git(specs: dict[str, ServerSpec], server: str | None, old_ref: str, new_ref: str | None) -> ReleasePair:
    """The pair given as one config of a server run from a git work tree, and the ref of the old release."""
    spec = pick_server(specs, server, "--servers")
    paths = _paths(spec)
    if not paths:
        raise ReleaseError(f"server {spec.name!r}: its config names no existing file or folder (script, cwd, "
                           "source_path) to find its git work tree by")
    try:
        root = git_root(paths[0]).resolve()
        old_dir, old_commit = git_checkout(root, old_ref)
        old = Release(f"{old_ref} ({old_commit[:10]})", _moved(spec, root, old_dir))
        if new_ref is None:
            new = Release("work tree", spec)
        else:
            new_dir, new_commit = git_checkout(root, new_ref)
            new = Release(f"{new_ref} ({new_commit[:10]})", _moved(spec, root, new_dir))
    except InstallError as exc:
        raise ReleaseError(str(exc)) from None
    return ReleasePair(spec.name, old, new, "git")
