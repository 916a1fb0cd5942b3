"""The progress bar is told when the model weights are joined and checked (a one-off wait of minutes)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mcptrials import activity
from mcptrials.models import weights


def test_joining_and_checking_weights_is_announced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parts = [tmp_path / "p1", tmp_path / "p2"]
    parts[0].write_bytes(b"GGUF" + b"a" * 1000)
    parts[1].write_bytes(b"b" * 1000)
    whole = b"".join(p.read_bytes() for p in parts)
    monkeypatch.setattr(weights, "DEFAULT_SHA256", hashlib.sha256(whole).hexdigest())
    monkeypatch.setattr(weights, "DEFAULT_SIZE", len(whole))
    monkeypatch.setattr(weights, "locate_parts", lambda: parts)
    seen: list[str] = []
    real_assemble, real_hash = weights.assemble, weights.sha256_file

    def assemble(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(activity.describe())
        return real_assemble(*args, **kwargs)

    def sha256_file(path: Path) -> str:
        seen.append(activity.describe())
        return real_hash(path)

    monkeypatch.setattr(weights, "assemble", assemble)
    monkeypatch.setattr(weights, "sha256_file", sha256_file)
    path = weights.default_model_path(tmp_path / "cache")
    assert path.read_bytes() == whole
    assert "joining the model weights" in seen[0] and "SHA-256" in seen[0]
    weights.default_model_path(tmp_path / "cache", verify=True)
    assert "checking the model weights' SHA-256" in seen[-1]
    assert activity.describe() == ""  # nothing left behind once done
