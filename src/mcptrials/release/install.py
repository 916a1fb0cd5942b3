"""Install one published release of a server (npm or PyPI) or one git ref of its source into the user cache.

Each release gets its own folder under ``<cache>/releases`` (``$MCPTRIALS_CACHE``, else
``~/.cache/mcptrials``) and is installed once: npm packages with ``npm install --prefix``, PyPI
packages into their own virtual environment with pip, git refs with ``git archive``. Nothing is
written into the project or the current environment.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from mcptrials.model import stable_hash
from mcptrials.models.weights import cache_root

INSTALL_TIMEOUT_S = 600.0
"""Longest one install may take (a first npm install downloads the package's dependencies)."""


class InstallError(ValueError):
    """A release that cannot be installed: unknown version, registry unreachable, tool missing."""


def releases_root() -> Path:
    """The folder holding every installed release."""
    return cache_root() / "releases"


def _folder_name(package: str, version: str, extras: tuple[str, ...] = ()) -> str:
    """One folder per package, version and extra requirements (``+<hash>`` when there are any)."""
    tail = f"+{stable_hash(sorted(extras))[:10]}" if extras else ""
    return re.sub(r"[^A-Za-z0-9._=@+-]", "+", f"{package}@{version}") + tail


def _run(command: list[str], what: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    if shutil.which(command[0]) is None and not Path(command[0]).is_file():
        raise InstallError(f"{what}: {command[0]!r} is not installed")
    try:
        done = subprocess.run(command, capture_output=True, timeout=INSTALL_TIMEOUT_S, cwd=cwd, check=False)
    except subprocess.TimeoutExpired:
        raise InstallError(f"{what}: gave no result in {INSTALL_TIMEOUT_S:.0f}s") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
        raise InstallError(f"{what}: failed ({tail[-1] if tail else f'exit {done.returncode}'})")
    return done


def npm_bins(package: str, version: str, extras: tuple[str, ...] = ()) -> dict[str, Path]:
    """Install ``package@version`` from npm (once, with ``extras`` such as ``zod@3.23``); its executables by name."""
    prefix = releases_root() / "npm" / _folder_name(package, version, extras)
    manifest = prefix / "node_modules" / package / "package.json"
    if not manifest.is_file():
        prefix.mkdir(parents=True, exist_ok=True)
        _run(["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--no-save", "--silent",
              f"{package}@{version}", *extras], f"npm install {package}@{version}")
    data = json.loads(manifest.read_text(encoding="utf-8"))
    if data.get("version") != version:
        raise InstallError(f"npm {package}@{version}: the registry installed version {data.get('version')!r}")
    bins = data.get("bin") or {}
    if isinstance(bins, str):
        bins = {package.rsplit("/", 1)[-1]: bins}
    return {name: prefix / "node_modules" / ".bin" / name for name in bins}


def pypi_env(package: str, version: str, extras: tuple[str, ...] = ()) -> Path:
    """Install ``package==version`` (with ``extras`` such as ``mcp<2``) into its own virtual environment, once;
    its ``bin`` folder."""
    env = releases_root() / "pypi" / _folder_name(package, version, extras)
    bin_dir = env / ("Scripts" if sys.platform == "win32" else "bin")
    done = env / ".installed"
    if not done.is_file():
        if env.exists():
            shutil.rmtree(env)  # an install that stopped half way
        _run([sys.executable, "-m", "venv", str(env)], f"a virtual environment for {package}=={version}")
        _run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
              f"{package}=={version}", *extras], f"pip install {package}=={version}")
        done.write_text(f"{package}=={version}\n", encoding="utf-8")
    return bin_dir


def git_root(path: Path) -> Path:
    """The top folder of the git work tree holding ``path``."""
    where = path if path.is_dir() else path.parent
    found = _run(["git", "-C", str(where), "rev-parse", "--show-toplevel"], f"{path}: not in a git work tree")
    return Path(found.stdout.decode().strip())


def git_checkout(root: Path, ref: str) -> tuple[Path, str]:
    """The files of ``ref`` of the repository at ``root``, exported once; (folder, commit id)."""
    try:
        found = _run(["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], "git")
    except InstallError:
        raise InstallError(f"{root}: no commit {ref!r} (git rev-parse finds none)") from None
    commit = found.stdout.decode().strip()
    dest = releases_root() / "git" / _folder_name(root.name, commit[:12])
    if not (dest / ".exported").is_file():
        archive = _run(["git", "-C", str(root), "archive", "--format=tar", commit], f"git archive {ref}")
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(dest, filter="data")
        (dest / ".exported").write_text(commit + "\n", encoding="utf-8")
    return dest, commit
