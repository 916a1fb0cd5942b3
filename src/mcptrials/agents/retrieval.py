"""Tool retrieval for large pools (LiveMCPBench's copilot): rank servers and tools for a stated need.

A tool's routing score combines how well the need matches its server and the tool itself: for
BM25 and remote embeddings ``s_server * s_tool * max(s_server, s_tool)`` (both must fit, and the
stronger match weighs more), for the embedded model ``SERVER_WEIGHT * s_server + s_tool`` (the
tool's own match leads and its server's breaks near-ties: a product lets one broad server's tools
crowd out the second need of a request). A tool with no similarity of its own scores 0 either way.
Similarities come from a backend: BM25 (``bm25s``, offline), an embedded embedding model (``local``:
MiniLM; ``local:gemma``: EmbeddingGemma-300M, stronger and slower; both offline), BM25 and the model
fused by a weighted sum of their scores (``hybrid``, ``hybrid:gemma``), or embeddings from any
OpenAI-compatible ``/v1/embeddings`` endpoint. The embedded model compares a need with tool
documents that include each parameter's description, not only its name.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import anyio

from mcptrials.model import ToolInfo, Usage, public_url, stable_hash
from mcptrials.models.base import ProviderError
from mcptrials.models.embedder import OnnxEmbedder
from mcptrials.models.endpoint import split_query
from mcptrials.models.gemma import GemmaEmbedder
from mcptrials.models.retry import RetryPolicy, with_retries
from mcptrials.models.weights import WeightsError, cache_root

RETRIEVERS = ("bm25", "local", "hybrid", "local:gemma", "hybrid:gemma", "openai:MODEL")
HYBRID_WEIGHTS = (0.2, 0.8)
"""``hybrid``'s weights for BM25 and the embedded model: each backend's scores are divided by its best
one's and summed with these weights (the embedded model leads: BM25 adds exact names and numbers;
measured against 0.1, 0.3 and rank fusion in docs/reference/measured.md)."""
SERVER_WEIGHT = 0.5
"""The server similarity's weight in the embedded model's additive routing score."""


class RetrieverError(ValueError):
    """A retriever spec that names no usable backend."""


@dataclass
class Hit:
    """One retrieved tool with its combined routing score and the two similarities it came from."""

    tool: ToolInfo
    score: float
    server_score: float
    tool_score: float


class TextEmbedder(Protocol):
    """An embedded model turning texts into unit-length vectors (rows of a numpy array)."""

    model_id: str
    texts_embedded: int

    def settings(self) -> dict[str, Any]:
        """What identifies the model in a run's settings."""
        ...

    def load(self) -> None:
        """Make the model ready; raises WeightsError saying what is missing and how to get it."""
        ...

    def embed(self, texts: Sequence[str]) -> Any:
        """Vectors of documents."""
        ...

    def embed_query(self, texts: Sequence[str]) -> Any:
        """Vectors of search requests (a model may phrase them differently from documents)."""
        ...


class Similarity(Protocol):
    """A backend scoring a query against documents, each similarity in [0, 1]."""

    def settings(self) -> dict[str, Any]:
        """The backend's settings, recorded with the run."""
        ...

    async def index(self, docs: Sequence[str]) -> Usage:
        """Prepare ``docs`` for queries (build the index, embed them); what that cost."""
        ...

    async def similarities(self, query: str, docs: Sequence[str]) -> tuple[list[float], Usage]:
        """The query's similarity to each document, and what computing it cost."""
        ...


_SPLIT = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\d+")
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "how", "i", "in", "is",
    "it", "its", "me", "my", "of", "on", "or", "our", "that", "the", "their", "this", "to", "was", "were",
    "what", "when", "where", "which", "who", "will", "with", "you", "your", "can", "do", "does", "get",
    "please", "want", "need", "would", "could", "should", "about", "into", "than", "then", "them", "these",
    "those", "there", "here", "all", "any", "some",
})


def _stem(word: str) -> str:
    """A light suffix stripper so ``trains``/``train`` and ``converting``/``convert`` meet."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def words(text: str) -> list[str]:
    """Lower-case word stems of a text: snake_case and camelCase split, stop words dropped."""
    return [_stem(w.lower()) for w in _SPLIT.findall(text) if w.lower() not in _STOP]


@dataclass
class Bm25Similarity:
    """BM25 over word stems (``bm25s``); scores divided by the best document's so they lie in [0, 1]."""

    k1: float = 1.5
    b: float = 0.75
    _indexes: dict[str, Any] = field(default_factory=dict)

    def settings(self) -> dict[str, Any]:
        return {"backend": "bm25", "k1": self.k1, "b": self.b}

    def _index(self, docs: Sequence[str]) -> Any:
        key = stable_hash(list(docs))
        if key not in self._indexes:
            import bm25s

            index = bm25s.BM25(k1=self.k1, b=self.b)
            index.index([words(d) or ["_"] for d in docs], show_progress=False)
            self._indexes[key] = index
        return self._indexes[key]

    async def index(self, docs: Sequence[str]) -> Usage:
        if docs:
            self._index(docs)
        return Usage()

    async def similarities(self, query: str, docs: Sequence[str]) -> tuple[list[float], Usage]:
        if not docs:
            return [], Usage()
        terms = words(query)
        scores = [float(s) for s in self._index(docs).get_scores(terms)] if terms else [0.0] * len(docs)
        top = max(scores, default=0.0)
        return [s / top if top > 0 else 0.0 for s in scores], Usage()


@dataclass
class EmbeddingSimilarity:
    """Cosine similarity of embeddings from an OpenAI-compatible ``/v1/embeddings`` endpoint (clipped at 0).

    Document vectors are cached by text, so a pool is embedded once per run.
    """

    model: str
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0
    batch: int = 128
    max_chars: int = 8000
    """Each text is cut to this many characters before it is sent (endpoints refuse inputs over ~8k tokens)."""
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    _cache: dict[str, list[float]] = field(default_factory=dict)

    def endpoint(self) -> str | None:
        return self.base_url or os.environ.get("OPENAI_BASE_URL")

    def settings(self) -> dict[str, Any]:
        return {"backend": "openai-embeddings", "model": self.model, "base_url": public_url(self.endpoint()),
                "max_chars": self.max_chars}

    def client(self) -> Any:
        """A new HTTP client, closed after its request: the probe and each run have their own event loop, and
        a pooled keep-alive connection cannot cross loops (documents are cached, so requests are few)."""
        import openai

        url = self.endpoint()
        key = os.environ.get(self.api_key_env) or ("not-needed" if url else None)
        if key is None:
            raise ProviderError("auth", f"embeddings: no API key: set {self.api_key_env}, "
                                        "or give --retriever-base-url for a local endpoint")
        base, query = split_query(url)
        return openai.AsyncOpenAI(base_url=base, default_query=query, api_key=key, max_retries=0, timeout=self.timeout)

    async def _once(self, texts: list[str]) -> tuple[list[list[float]], Usage]:
        import openai

        from mcptrials.models.openai_provider import classify_status

        try:
            async with self.client() as client:
                raw = await client.embeddings.with_raw_response.create(  # the SDK asks for base64 unless told
                    model=self.model, input=[t[:self.max_chars] for t in texts], encoding_format="float")
                body = raw.http_response.text
        except openai.APITimeoutError:
            raise ProviderError("timeout", f"embeddings: no answer within {self.timeout:g}s") from None
        except openai.APIConnectionError as exc:
            raise ProviderError("connection", f"embeddings: cannot reach the endpoint: {exc}") from None
        except openai.APIStatusError as exc:
            error = classify_status(exc.status_code, exc.response.text, exc.response.headers)
            error.message = f"embeddings: {error.message}"
            raise error from None
        return parse_embeddings(body, len(texts))

    async def embed(self, texts: Sequence[str]) -> tuple[list[list[float]], Usage]:
        """Vectors for ``texts`` (cached ones reused), and the tokens the endpoint reported."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        usage = Usage()
        for start in range(0, len(missing), self.batch):
            chunk = missing[start:start + self.batch]
            vectors, spent = await with_retries(partial(self._once, chunk), self.retry)
            usage = usage + spent
            known = next(iter(self._cache.values()), vectors[0])
            if len(vectors[0]) != len(known):  # the endpoint changed models between calls: cosines would be void
                raise ProviderError("malformed_response", f"embeddings endpoint reply unusable: vectors of length "
                                                          f"{len(vectors[0])}, earlier ones had length {len(known)}")
            self._cache.update(zip(chunk, vectors, strict=True))
        return [self._cache[t] for t in texts], usage

    async def index(self, docs: Sequence[str]) -> Usage:
        return (await self.embed(docs))[1]

    async def similarities(self, query: str, docs: Sequence[str]) -> tuple[list[float], Usage]:
        vectors, usage = await self.embed([query, *docs])
        q, rest = vectors[0], vectors[1:]
        return [max(0.0, _cosine(q, v)) for v in rest], usage


@dataclass
class LocalEmbeddingSimilarity:
    """Cosine similarity (clipped at 0) of vectors from an embedded model (MiniLM unless given), run on this CPU.

    A document list's vectors are kept per list (keyed by the hash of its texts and the model) in memory
    and, unless ``persist`` is off, as a ``.npy`` file under ``<cache>/retrieval/``: a pool is embedded
    once, and again only when a tool's text changes.
    """

    embedder: TextEmbedder = field(default_factory=OnnxEmbedder)
    persist: bool = True
    cache: Path | None = None
    """The vector cache folder (default: ``retrieval/`` in the mcptrials cache)."""
    _vectors: dict[str, Any] = field(default_factory=dict)
    _query: tuple[str, Any] | None = None
    """The last query and its vector: a route compares one query with servers, then with tools."""

    def settings(self) -> dict[str, Any]:
        return {"backend": "local-embeddings", **self.embedder.settings()}

    def _query_vector(self, query: str) -> Any:
        if self._query is None or self._query[0] != query:
            self._query = (query, self.embedder.embed_query([query])[0])
        return self._query[1]

    def _folder(self) -> Path:
        return self.cache if self.cache is not None else cache_root() / "retrieval"

    def _doc_vectors(self, docs: Sequence[str]) -> Any:
        import numpy as np

        key = f"{self.embedder.model_id}-{stable_hash(list(docs))}"
        if key in self._vectors:
            return self._vectors[key]
        path = self._folder() / f"{key}.npy"
        vectors = None
        if self.persist and path.is_file():
            try:
                vectors = np.load(path, allow_pickle=False)
            except (OSError, ValueError):  # a damaged file is recomputed and replaced
                vectors = None
            if vectors is not None and vectors.shape[0] != len(docs):
                vectors = None
        if vectors is None:
            vectors = self.embedder.embed(docs)
            if self.persist:
                _save_atomically(path, vectors)
        self._vectors[key] = vectors
        return vectors

    async def index(self, docs: Sequence[str]) -> Usage:
        if docs:  # the model runs in a worker thread: concurrent episodes' event loop keeps turning
            await anyio.to_thread.run_sync(self._doc_vectors, docs)
        return Usage()

    def _scores(self, query: str, docs: Sequence[str]) -> list[float]:
        return [max(0.0, float(s)) for s in self._doc_vectors(docs) @ self._query_vector(query)]

    async def similarities(self, query: str, docs: Sequence[str]) -> tuple[list[float], Usage]:
        if not docs:
            return [], Usage()
        return await anyio.to_thread.run_sync(self._scores, query, docs), Usage()


def _save_atomically(path: Path, vectors: Any) -> None:
    """Write ``vectors`` as ``path`` (``.npy``) through a temporary file, so readers never see half a file."""
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".npy", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            np.save(handle, vectors, allow_pickle=False)
        os.replace(tmp_name, path)
    finally:
        Path(tmp_name).unlink(missing_ok=True)


@dataclass
class HybridSimilarity:
    """A weighted sum of several backends' scores, each first divided by its best document's (so one
    backend's scale does not swamp another's); the sums are divided by the best one's, so they lie in [0, 1]."""

    backends: Sequence[Similarity]
    weights: Sequence[float] = HYBRID_WEIGHTS

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.backends):
            raise ValueError(f"hybrid: {len(self.backends)} backends but {len(self.weights)} weights")

    def settings(self) -> dict[str, Any]:
        return {"backend": "hybrid", "fusion": "weighted sum of max-normalised scores",
                "weights": list(self.weights), "parts": [b.settings() for b in self.backends]}

    async def index(self, docs: Sequence[str]) -> Usage:
        usage = Usage()
        for backend in self.backends:
            usage = usage + await backend.index(docs)
        return usage

    async def similarities(self, query: str, docs: Sequence[str]) -> tuple[list[float], Usage]:
        fused = [0.0] * len(docs)
        usage = Usage()
        for backend, weight in zip(self.backends, self.weights, strict=True):
            scores, spent = await backend.similarities(query, docs)
            usage = usage + spent
            best = max(scores, default=0.0)
            if best > 0:
                fused = [f + weight * s / best for f, s in zip(fused, scores, strict=True)]
        top = max(fused, default=0.0)
        return [f / top if top > 0 else 0.0 for f in fused], usage


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def parse_embeddings(body: str, expected: int) -> tuple[list[list[float]], Usage]:
    """Read an embeddings reply; a malformed one is a ``malformed_response`` naming what is wrong."""
    def bad(why: str) -> ProviderError:
        return ProviderError("malformed_response", f"embeddings endpoint reply unusable: {why}", raw=body[:2000])

    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        raise bad("not JSON") from None
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list) or len(items) != expected:
        raise bad(f"expected 'data' with {expected} embedding(s), got "
                  f"{len(items) if isinstance(items, list) else type(items).__name__}")
    vectors: list[list[float]] = [[] for _ in items]
    for position, item in enumerate(items):
        vector = item.get("embedding") if isinstance(item, dict) else None
        index = item.get("index", position) if isinstance(item, dict) else position
        if not isinstance(vector, list) or not vector or not all(isinstance(x, int | float) for x in vector):
            raise bad(f"item {position} has no numeric 'embedding' list")
        if not all(math.isfinite(x) for x in vector):
            raise bad(f"item {position} has a value that is not a finite number")
        if not isinstance(index, int) or not 0 <= index < expected:
            raise bad(f"item {position} has index {index!r}")
        vectors[index] = [float(x) for x in vector]
    if any(not v for v in vectors) or len({len(v) for v in vectors}) != 1:
        raise bad("embeddings are missing or of different lengths")
    usage = data.get("usage") or {}
    return vectors, Usage(prompt_tokens=int(usage.get("prompt_tokens") or 0) if isinstance(usage, dict) else 0)


def server_document(server: str, tools: Sequence[ToolInfo]) -> str:
    """What a server is about: its name and every tool's name and description."""
    return " ".join([server, *(f"{t.name}: {t.description}" for t in tools)])


def tool_document(tool: ToolInfo, *, described: bool = False) -> str:
    """What a tool is about: its server, name, description and parameter names, each with its own
    description when ``described`` (what a parameter takes often names the need: "ticker symbol",
    "a city or station name")."""
    properties = tool.input_schema.get("properties")
    if not isinstance(properties, dict):
        properties = {}
    if not described:
        return f"{tool.server} {tool.name}: {tool.description} {' '.join(properties)}"
    params = []
    for name, schema in properties.items():
        about = schema.get("description") if isinstance(schema, dict) else None
        params.append(f"{name}: {' '.join(about.split())}" if isinstance(about, str) and about.strip() else name)
    return f"{tool.server} {tool.name}: {' '.join(tool.description.split())} {'; '.join(params)}".strip()


def combined_score(server: float, tool: float, server_weight: float | None) -> float:
    """A tool's routing score from its server's and its own similarity: the product form when
    ``server_weight`` is None, else ``server_weight * server + tool``; 0 whenever the tool's own is 0."""
    if tool <= 0:
        return 0.0
    if server_weight is None:
        return server * tool * max(server, tool)
    return server_weight * server + tool


@dataclass
class ToolRetriever:
    """Ranks a pool's tools for a need by the combined server and tool score."""

    backend: Similarity
    spec: str = "bm25"
    described: bool = False
    """Tool documents carry each parameter's description (see ``tool_document``)."""
    server_weight: float | None = None
    """None: the product score; a number: the additive one (see ``combined_score``)."""

    def settings(self) -> dict[str, Any]:
        score = ("s_server*s_tool*max(s_server,s_tool)" if self.server_weight is None
                 else f"{self.server_weight:g}*s_server+s_tool")
        return {"spec": self.spec, **self.backend.settings(), "score": score,
                "tool_document": "parameter descriptions" if self.described else "parameter names"}

    def documents(self, pool: Sequence[ToolInfo]) -> tuple[dict[str, list[ToolInfo]], list[str], list[str]]:
        """The pool's tools by server (sorted), and the server and tool documents the backend compares."""
        servers: dict[str, list[ToolInfo]] = {}
        for tool in sorted(pool, key=lambda t: t.qualified_name):
            servers.setdefault(tool.server, []).append(tool)
        return (servers, [server_document(s, tools) for s, tools in servers.items()],
                [tool_document(t, described=self.described) for tools in servers.values() for t in tools])

    async def index(self, pool: Sequence[ToolInfo]) -> Usage:
        """Prepare the backend for ``pool`` (a BM25 index, embedded documents) before the first route."""
        _, server_docs, tool_docs = self.documents(pool)
        return await self.backend.index(server_docs) + await self.backend.index(tool_docs)

    async def route(self, query: str, pool: Sequence[ToolInfo], k: int) -> tuple[list[Hit], Usage]:
        """The ``k`` best tools of ``pool`` for ``query``, best first (ties by name), and the cost.

        A tool scoring 0 (nothing of the need in it or its server) is never returned: padding the
        list with alphabetically first tools would show noise as a match.
        """
        servers, server_docs, tool_docs = self.documents(pool)
        names = list(servers)
        server_sims, spent_servers = await self.backend.similarities(query, server_docs)
        tools = [t for s in names for t in servers[s]]
        tool_sims, spent_tools = await self.backend.similarities(query, tool_docs)
        by_server = dict(zip(names, server_sims, strict=True))
        hits = [Hit(tool=t, server_score=by_server[t.server], tool_score=ts,
                    score=combined_score(by_server[t.server], ts, self.server_weight))
                for t, ts in zip(tools, tool_sims, strict=True)]
        hits.sort(key=lambda h: (-h.score, -h.tool_score, h.tool.qualified_name))
        return [h for h in hits if h.score > 0][:k], spent_servers + spent_tools


def load_retriever(spec: str, base_url: str | None = None, *, persist: bool = True) -> ToolRetriever:
    """The retriever named by ``spec`` (one of ``RETRIEVERS``); RetrieverError otherwise. ``persist`` off keeps an
    embedded model's vectors in memory only (``bench retrieval`` times a cold index that way)."""
    if spec == "bm25":
        return ToolRetriever(backend=Bm25Similarity(), spec=spec)
    if spec in ("local", "hybrid", "local:gemma", "hybrid:gemma"):
        embedder: TextEmbedder = GemmaEmbedder() if spec.endswith(":gemma") else OnnxEmbedder()
        local = LocalEmbeddingSimilarity(embedder=embedder, persist=persist)
        try:
            embedder.load()
        except WeightsError as exc:
            raise RetrieverError(f"--retriever {spec}: {' '.join(str(exc).split())}") from None
        backend: Similarity = local if spec.startswith("local") else HybridSimilarity([Bm25Similarity(), local])
        return ToolRetriever(backend=backend, spec=spec, described=True, server_weight=SERVER_WEIGHT)
    provider, sep, model = spec.partition(":")
    if provider == "openai" and sep:
        if not model:
            raise RetrieverError("--retriever openai: needs an embedding model name, "
                                 "e.g. openai:text-embedding-3-small")
        return ToolRetriever(backend=EmbeddingSimilarity(model=model, base_url=base_url), spec=spec)
    raise RetrieverError(f"unknown retriever {spec!r} (known: {', '.join(RETRIEVERS)})")


async def probe(retriever: ToolRetriever) -> None:
    """Check the backend answers usably before a run (raises ProviderError with one clear message)."""
    await retriever.backend.similarities("probe", ["a probe document"])
