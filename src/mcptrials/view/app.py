"""The `mcptrials view` web app: server-rendered pages over a result store, read-only, offline.

Pages: runs (``/``), the task x (model, agent, version) matrix (``/matrix``), a filtered episode list
(``/episodes``), one episode (``/episode/ID``), two episodes side by side (``/diff?a=ID&b=ID``).
Every request reads the store afresh through its engine (never writing), so the app can watch a
store that a run is filling.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, FileSystemLoader, select_autoescape
from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from mcptrials.report.headline import pass_headline
from mcptrials.store.db import Store
from mcptrials.store.run_status import run_states
from mcptrials.view import queries
from mcptrials.view.align import align, checkpoint_table
from mcptrials.view.episode import FINAL, build, pretty
from mcptrials.view.hosts import HostCheck, known_host_names

HERE = Path(__file__).parent
MATRIX_PAGE = 40
"""Task rows per matrix page."""
LIST_PAGE = 100
"""Episodes per list page."""
_BLOB_KEY = re.compile(r"^[0-9a-f]{64}$")
PAGE_POLICY = ("default-src 'self'; img-src 'self' data:; script-src 'self'; style-src 'self'; object-src 'none';"
               " base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
"""Pages run only the viewer's own script: text a tool or model put in the store can never run as script."""
BLOB_POLICY = "sandbox; default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'"
"""A tool's media opened on its own (an SVG can carry script) is shown in a sandbox, never in the viewer's origin."""
SNAPSHOT_TTL = 10.0
"""Seconds the episode rows behind the matrix and lists are reused while the store's fingerprint holds."""


@dataclass
class Snapshot:
    """Every episode's light row and the task facts, as read at one moment."""

    key: tuple[Any, ...]
    at: float
    meta: dict[str, queries.TaskMeta]
    rows: list[queries.EpisodeRow]
    choices: dict[str, list[str]]


def _templates() -> Environment:
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["pretty"] = pretty
    env.filters["pct"] = lambda x: "–" if x is None else f"{100 * x:.0f}%"
    env.filters["secs"] = lambda x: f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s"
    env.filters["short"] = lambda text, n=80: text if len(text) <= n else text[: n - 1] + "…"
    env.filters["when"] = lambda iso: str(iso).replace("T", " ").removesuffix("+00:00")
    env.filters["model"] = queries.model_label
    env.filters["settings"] = settings_rows
    env.globals["FINAL"] = FINAL
    env.globals["headline"] = pass_headline
    return env


class Viewer:
    """The pages of one store."""

    def __init__(self, store: Store, blobs: Path | None = None) -> None:
        self.store = store
        self.blobs = blobs
        self.env = _templates()
        self._snapshot: Snapshot | None = None
        self._lock = threading.Lock()

    def snapshot(self) -> Snapshot:
        """The rows of every episode: re-read when the store changed (or the last read is old)."""
        key = queries.fingerprint(self.store)
        with self._lock:
            cached = self._snapshot
            if cached is not None and cached.key == key and time.monotonic() - cached.at < SNAPSHOT_TTL:
                return cached
            meta = queries.task_meta(self.store)
            rows = queries.all_rows(self.store)
            self._snapshot = Snapshot(key, time.monotonic(), meta, rows, queries.filter_choices(rows, meta))
            return self._snapshot

    def page(self, name: str, request: Request, status: int = 200, **context: Any) -> HTMLResponse:
        html = self.env.get_template(name).render(request=request, url=_url, store_url=self.store.url, **context)
        return HTMLResponse(html, status_code=status, headers={"Content-Security-Policy": PAGE_POLICY})

    # -- pages ---------------------------------------------------------------------------

    def runs(self, request: Request) -> Response:
        return self.page("runs.html", request, runs=queries.run_summaries(self.store))

    def run(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        config = queries.run_config(self.store, run_id)
        if config is None:
            return self.page("error.html", request, 404, message=f"no run {run_id!r} in this store")
        state = next((s for s in run_states(self.store) if s.id == run_id), None)
        return self.page("run.html", request, run_id=run_id, config=config, raw=pretty(config), state=state)

    def matrix(self, request: Request) -> Response:
        filters = queries.Filters.from_query(request.query_params)
        snap = self.snapshot()
        grid = queries.matrix(queries.select_rows(snap.rows, filters, snap.meta))
        narrowed = bool(filters.outcome or filters.code)  # the footer's rate is over every outcome of the columns
        footer = queries.matrix(queries.select_rows(snap.rows, replace(filters, outcome="", code=""), snap.meta)
                                ).totals if narrowed else grid.totals
        page, pages, start = _paginate(request, len(grid.tasks), MATRIX_PAGE)
        # cell links: the filters, plus the cell's task and column (encoded once per column, not per cell)
        keep = {k: v for k, v in filters.query().items() if k not in {"task", "model", "agent", "version"}}
        column_query = {col: urlencode({"model": col[0], "agent": col[1], "version": col[2]}) for col in grid.columns}
        return self.page("matrix.html", request, filters=filters, choices=snap.choices,
                         grid=grid, tasks=grid.tasks[start:start + MATRIX_PAGE], meta=snap.meta, page=page, pages=pages,
                         footer=footer, narrowed=narrowed,
                         base_query=urlencode(keep), column_query=column_query,
                         spans=[queries.header_spans(grid.columns, depth) for depth in (1, 2)])

    def episodes(self, request: Request) -> Response:
        filters = queries.Filters.from_query(request.query_params)
        snap = self.snapshot()
        rows = queries.select_rows(snap.rows, filters, snap.meta)
        page, pages, start = _paginate(request, len(rows), LIST_PAGE)
        return self.page("episodes.html", request, filters=filters, choices=snap.choices,
                         rows=rows[start:start + LIST_PAGE], total=len(rows), meta=snap.meta, page=page, pages=pages)

    def not_found(self, request: Request, exc: queries.EpisodeLookupError) -> Response:
        """The error page for an episode that is not there (404) or cannot be read (422)."""
        if isinstance(exc, queries.EpisodeReadError):
            return self.page("error.html", request, 422, message=str(exc), heading="Cannot show this episode")
        return self.page("error.html", request, 404, message=str(exc))

    def episode(self, request: Request) -> Response:
        try:
            view = build(queries.load_episode(self.store, request.path_params["episode_id"]))
        except queries.EpisodeLookupError as exc:
            return self.not_found(request, exc)
        siblings = [r for r in queries.sibling_rows(self.store, view.episode.task_id) if r.id != view.episode.id]
        return self.page("episode.html", request, view=view, ep=view.episode, siblings=siblings)

    def diff(self, request: Request) -> Response:
        a_ref, b_ref = request.query_params.get("a", ""), request.query_params.get("b", "")
        try:
            a = build(queries.load_episode(self.store, a_ref))
            b = build(queries.load_episode(self.store, b_ref)) if b_ref else None
        except queries.EpisodeLookupError as exc:
            return self.not_found(request, exc)
        siblings = [r for r in queries.sibling_rows(self.store, a.episode.task_id) if r.id != a.episode.id]
        if b is None:
            return self.page("diff_pick.html", request, a=a, siblings=siblings)
        return self.page("diff.html", request, a=a, b=b, rows=align(a, b), checkpoints=checkpoint_table(a, b),
                         same_task=a.episode.task_id == b.episode.task_id, siblings=siblings)

    def blob(self, request: Request) -> Response:
        key = request.path_params["key"]
        if self.blobs is None or not _BLOB_KEY.match(key):
            raise HTTPException(404)
        path = self.blobs / key[:2] / key
        if not path.is_file():
            raise HTTPException(404)
        mime = request.query_params.get("type", "")
        safe = mime if re.fullmatch(r"(image|audio)/[\w.+-]+", mime) else "application/octet-stream"
        return FileResponse(path, media_type=safe, headers={"Cache-Control": "max-age=86400, immutable",
                                                            "Content-Security-Policy": BLOB_POLICY,
                                                            "X-Content-Type-Options": "nosniff"})


    def http_error(self, request: Request, exc: Exception) -> Response:
        """Unknown paths and methods get the viewer's error page, not a bare status line."""
        code = exc.status_code if isinstance(exc, HTTPException) else 500
        message = {404: f"no page at {request.url.path}", 405: f"{request.method} is not allowed here"}
        return self.page("error.html", request, code, message=message.get(code, str(exc)),
                         heading="Not found" if code == 404 else "Cannot do that")

    def failure(self, request: Request, exc: Exception) -> Response:
        """A page that failed: one clear line (a store busy or unreadable just now), never a traceback."""
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        if isinstance(exc, SQLAlchemyError):
            return self.page("error.html", request, 503, heading="The store cannot be read just now",
                             message=f"reading {self.store.url} failed: {first}; reload the page to try again")
        return self.page("error.html", request, 500, heading="This page failed",
                         message=f"{type(exc).__name__}: {first}")


def settings_rows(config: Any, prefix: str = "") -> list[tuple[str, str]]:
    """A run's recorded settings as (dotted name, value) rows: nested objects flattened, lists and scalars as
    compact text (``agent.max_turns``, ``servers.rail.command``)."""
    if isinstance(config, dict) and config:
        return [row for key, value in config.items()
                for row in settings_rows(value, f"{prefix}.{key}" if prefix else str(key))]
    if config is None or config == {}:
        return [(prefix, "—")]
    text = config if isinstance(config, str) else json.dumps(config, ensure_ascii=False, default=str)
    return [(prefix, text)]


def _url(path: str, params: dict[str, Any] | None = None, **more: Any) -> str:
    """A local URL with query parameters (empty ones dropped)."""
    merged = {k: v for k, v in {**(params or {}), **more}.items() if v not in (None, "")}
    return path + ("?" + urlencode(merged) if merged else "")


def _paginate(request: Request, count: int, size: int) -> tuple[int, int, int]:
    pages = max(1, math.ceil(count / size))
    try:
        page = min(max(1, int(request.query_params.get("page", "1"))), pages)
    except ValueError:
        page = 1
    return page, pages, (page - 1) * size


def create_app(store: Store, blobs: Path | None = None, *, host: str = "127.0.0.1",
               allow_hosts: Sequence[str] = ()) -> Starlette:
    """The web app over ``store``; ``blobs`` is the folder of tool-result media (a BlobStore root).

    ``host`` is the address the app is served on: requests naming another host are refused (``HostCheck``).
    """
    viewer = Viewer(store, blobs)
    return Starlette(middleware=[Middleware(HostCheck, names=known_host_names(host, allow_hosts))], routes=[
        Route("/", viewer.runs),
        Route("/run/{run_id:path}", viewer.run),
        Route("/matrix", viewer.matrix),
        Route("/episodes", viewer.episodes),
        Route("/episode/{episode_id}", viewer.episode),
        Route("/diff", viewer.diff),
        Route("/blob/{key}", viewer.blob),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ], exception_handlers={HTTPException: viewer.http_error, SQLAlchemyError: viewer.failure,
                           Exception: viewer.failure})


def open_store(db: str) -> tuple[Store, Path | None]:
    """The store at ``db`` (checked to exist by the caller) and the folder of media a run keeps beside it."""
    store = Store(db, read_only=True)
    if "://" not in db:
        return store, Path(f"{Path(db).expanduser()}.blobs")  # may appear later, while a run writes
    return store, None


def check_port(host: str, port: int) -> None:
    """Raise OSError with a clear message when ``host:port`` cannot be listened on."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise OSError(f"cannot listen on {host}:{port} ({exc.strerror}); give another --port") from None


def serve(app: Starlette, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Serve ``app`` until interrupted."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning")
