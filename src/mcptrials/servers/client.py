"""The client side of an episode's MCP sessions: roots, sampling, elicitation, progress, media.

A server may ask the client for things during a call: its roots (the episode sandbox), a model
completion (sampling, answered by the configured model and recorded with its tokens), user input
(elicitation, answered from the task's rules and declined otherwise). Each request and every
progress notification is recorded as an event of the call it happened in; images and audio a tool
returns are stored in the run's blob store and shown to the agent as a placeholder naming the blob.
"""

from __future__ import annotations

import json
import re
import time
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp_types as types

from mcptrials.model import ElicitationRule
from mcptrials.servers.blobs import BlobStore

EVENT_TEXT_CAP = 4_000
"""Longest text kept per field of a recorded event (a sampling prompt can be large)."""
PROGRESS_EVENTS_CAP = 100
"""Progress notifications recorded per call; later ones still extend the timeout and are only counted."""
SAMPLING_PER_CALL = 20
"""Sampling requests answered per tool call; a server asking more often (a loop) is refused, which bounds spend."""


@dataclass
class ClientSetup:
    """What the client answers with in one episode; shared by all its servers."""

    sampling_model: Any = None
    """A ``ChatModel`` answering ``sampling/createMessage`` (read when a request comes: a session started
    ahead of its episode gets the episode's model when the episode first calls it)."""
    declare_sampling: bool | None = None
    """Whether the client declares sampling at start-up (None: when there is a sampling model)."""
    elicitation: list[ElicitationRule] = field(default_factory=list)
    blobs: BlobStore | None = None
    expose_resources: bool = False
    """Offer each server's resources and prompts to the agent as ``read_resource``/``get_prompt`` tools."""


@dataclass
class ClientOptions:
    """A run's client settings (``run --sampling-model``, ``--resources-as-tools``, the blob store)."""

    sampling_model: Any = None
    """The ``ChatModel`` answering sampling; None: the model under test."""
    blobs: BlobStore | None = None
    expose_resources: bool = False

    def settings(self) -> dict[str, Any]:
        """What can change a score (the blob store's place cannot)."""
        return {**({"sampling_model": self.sampling_model.settings()} if self.sampling_model is not None else {}),
                **({"expose_resources": True} if self.expose_resources else {})}

    def for_episode(self, model: Any, elicitation: list[ElicitationRule]) -> ClientSetup:
        """The setup of one episode whose model under test is ``model``."""
        return ClientSetup(sampling_model=self.sampling_model or model, elicitation=list(elicitation),
                           blobs=self.blobs, expose_resources=self.expose_resources)

    def for_run(self, model: Any) -> ClientSetup:
        """The setup servers started ahead of their episode get: the run's capabilities, no episode's answers."""
        return ClientSetup(declare_sampling=(self.sampling_model or model) is not None, blobs=self.blobs,
                           expose_resources=self.expose_resources)


NO_EPISODE: tuple[ClientSetup, str | None] = (ClientSetup(), None)
current_client: ContextVar[tuple[ClientSetup, str | None]] = ContextVar("current_client", default=NO_EPISODE)
"""The running episode's client setup and id; the runner sets it, ``open_toolbox`` reads it, and a call
made from an episode rebinds a (pooled) session to that episode's setup."""


def _cap(text: str) -> str:
    return text if len(text) <= EVENT_TEXT_CAP else text[:EVENT_TEXT_CAP] + f"...[{len(text)} chars]"


@dataclass
class ClientSide:
    """One server session's client callbacks and the events they record."""

    server: str
    sandbox: Path
    setup: ClientSetup
    events: list[dict[str, Any]] = field(default_factory=list)
    call_mark: int = 0
    """Where the events of the calls in progress begin (set by the connection when a call starts)."""
    _t0: float = field(default_factory=time.perf_counter)

    def _record(self, kind: str, **data: Any) -> dict[str, Any]:
        event = {"kind": kind, "t": round(time.perf_counter() - self._t0, 4), **data}
        self.events.append(event)
        return event

    def note(self, event: dict[str, Any]) -> None:
        """Record an event the connection saw (a task's course), stamped like the callbacks' own."""
        self._record(**event)

    def take_events(self, since: int) -> list[dict[str, Any]]:
        """The events recorded from position ``since`` on."""
        return self.events[since:]

    async def list_roots(self, context: Any) -> types.ListRootsResult:
        self._record("roots", roots=[self.sandbox.as_uri()])
        return types.ListRootsResult(roots=[types.Root.model_validate({"uri": self.sandbox.as_uri(),
                                                                      "name": "sandbox"})])

    async def sampling(self, context: Any, params: types.CreateMessageRequestParams) -> Any:
        from mcptrials.models.base import Message, ProviderError

        model = self.setup.sampling_model
        messages = ([Message(role="system", content=params.system_prompt)] if params.system_prompt else [])
        messages += [Message(role=m.role, content=_sampling_text(m.content)) for m in params.messages]
        asked = [{"role": m.role, "content": _cap(m.content)} for m in messages]
        if model is None:
            self._record("sampling", messages=asked, error="no sampling model configured")
            return types.ErrorData(code=-1, message="this client has no model for sampling")
        asked_before = sum(e["kind"] == "sampling" for e in self.events[self.call_mark:])
        if asked_before >= SAMPLING_PER_CALL:
            if asked_before == SAMPLING_PER_CALL:  # the first refusal is recorded, the ones after it are not
                self._record("sampling", messages=asked[-1:], error=f"refused: over {SAMPLING_PER_CALL} in one call")
            return types.ErrorData(code=-1, message=f"sampling refused: more than {SAMPLING_PER_CALL} requests "
                                                    "in one tool call")
        try:
            reply = await model.generate(messages, [])
        except Exception as exc:  # a provider or model failure is the server's tool failing, not the run
            message = exc.message if isinstance(exc, ProviderError) else f"{type(exc).__name__}: {exc}"
            self._record("sampling", messages=asked, model=model.spec, error=message)
            return types.ErrorData(code=-1, message=f"sampling failed: {message}")
        self._record("sampling", messages=asked, model=model.spec, reply=_cap(reply.text),
                     prompt_tokens=reply.usage.prompt_tokens, completion_tokens=reply.usage.completion_tokens,
                     cost_usd=reply.usage.cost_usd)
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=reply.text),
                                         model=model.spec, stop_reason="endTurn")

    async def elicitation(self, context: Any, params: Any) -> types.ElicitResult:
        message = getattr(params, "message", "") or ""
        schema = getattr(params, "requested_schema", None)
        mode = getattr(params, "mode", None) or "form"
        rule_at = None if mode == "url" else next(
            (i for i, rule in enumerate(self.setup.elicitation) if re.search(rule.match, message, re.IGNORECASE)),
            None)
        if rule_at is None:
            self._record("elicitation", message=_cap(message), mode=mode, action="decline", rule=None)
            return types.ElicitResult(action="decline")
        rule = self.setup.elicitation[rule_at]
        content = rule.content if rule.action == "accept" else None
        problem = _schema_problem(content, schema) if content is not None else None
        self._record("elicitation", message=_cap(message), mode=mode, action=rule.action, rule=rule_at,
                     content=content, **({"schema_problem": problem} if problem else {}))
        return types.ElicitResult(action=rule.action, content=content)

    def progress(self, extend: Any) -> Any:
        """A progress callback for one call: records each notification and calls ``extend()``."""
        recorded = 0
        overflow: dict[str, Any] = {}

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            nonlocal recorded, overflow
            extend()
            if recorded < PROGRESS_EVENTS_CAP:
                recorded += 1
                self._record("progress", progress=progress, total=total, message=_cap(message or ""))
            elif not overflow:
                overflow = self._record("progress", not_recorded=1, last_progress=progress)
            else:
                overflow["not_recorded"] += 1
                overflow["last_progress"] = progress
        return on_progress

    def media(self, blocks: list[Any]) -> list[dict[str, Any]]:
        """Store each image/audio block's bytes; return the attachments (kind, mime, bytes, sha256)."""
        found = []
        for block in blocks:
            kind = getattr(block, "type", None)
            if kind in {"image", "audio"}:
                data = getattr(block, "data", "") or ""
                try:
                    stored = self.setup.blobs.put_base64(data) if self.setup.blobs is not None else None
                except OSError:  # the blob store cannot be written: the placeholder still says what it was
                    stored = None
                item: dict[str, Any] = {"kind": kind, "mime_type": getattr(block, "mime_type", None)}
                if stored is not None:
                    item["sha256"], item["bytes"] = stored
                else:
                    item["b64_chars"] = len(data)
                found.append(item)
        return found


def _sampling_text(content: Any) -> str:
    blocks = content if isinstance(content, list) else [content]
    parts = []
    for block in blocks:
        kind = getattr(block, "type", None)
        parts.append(block.text if kind == "text" else f"[{kind} content not shown]")
    return "\n".join(parts)


def _schema_problem(content: dict[str, Any], schema: Any) -> str | None:
    """Why ``content`` does not fit the requested schema (recorded: the task author's rule is at fault)."""
    if schema is None:
        return None
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    data = schema.model_dump(by_alias=True, exclude_none=True) if hasattr(schema, "model_dump") else dict(schema)
    try:
        error = next(iter(Draft202012Validator(data).iter_errors(content)), None)
    except (SchemaError, TypeError, ValueError) as exc:
        return f"the requested schema is not usable: {exc}"[:300]
    return None if error is None else error.message


_TEXT_MIME = ("text/", "application/json", "application/xml", "application/yaml", "application/javascript")


def resource_text(resource: Any) -> str:
    """What the agent reads of a resource's contents: its text; a text-typed blob decoded; else a placeholder."""
    import base64
    import binascii

    text = getattr(resource, "text", None)
    if text is not None:
        return str(text)
    blob = getattr(resource, "blob", None) or ""
    mime = getattr(resource, "mime_type", None) or ""
    if mime.startswith(_TEXT_MIME) or mime.endswith(("+json", "+xml")):
        try:
            return base64.b64decode(blob, validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            pass
    return f"[binary resource {getattr(resource, 'uri', '?')}: {mime or '?'}, {len(blob)} b64 chars]"


def media_placeholder(attachment: dict[str, Any]) -> str:
    """The text an agent that cannot see media reads in place of an image or audio block."""
    size = f"{attachment['bytes']} bytes" if "bytes" in attachment else f"{attachment.get('b64_chars', 0)} b64 chars"
    key = f", blob {attachment['sha256'][:12]}" if "sha256" in attachment else ""
    return f"[{attachment['kind']}: {attachment.get('mime_type') or '?'}, {size}{key}]"


def media_for_model(model: Any, attachments: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The attachments ``model`` accepts (its ``media`` kinds), with their bytes from the episode's blob store."""
    import base64

    kinds = set(getattr(model, "media", ()) or ())
    blobs = current_client.get()[0].blobs
    if not kinds or blobs is None:
        return []
    out = []
    for item in attachments:
        if item.get("kind") in kinds and "sha256" in item:
            try:
                data = base64.b64encode(blobs.get(item["sha256"])).decode("ascii")
            except OSError:
                continue
            out.append({"kind": item["kind"], "mime_type": item.get("mime_type") or "", "data": data})
    return out


def _short(value: Any, n: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def event_lines(events: list[dict[str, Any]]) -> list[str]:
    """What a server asked of the client during a call, one line each: roots, sampling, elicitation, in order
    (progress notifications as one closing line)."""
    lines: list[str] = []
    progress = [e for e in events if e.get("kind") == "progress"]
    for e in events:
        kind = e.get("kind")
        if kind == "roots":
            lines.append(f"roots asked: {', '.join(map(str, e.get('roots') or [])) or '(none given)'}")
        elif kind == "sampling":
            asked = " / ".join(_short(m.get("content", ""), 80) for m in e.get("messages") or []
                               if isinstance(m, dict))
            said = f"error: {_short(e['error'])}" if e.get("error") else f"replied {_short(e.get('reply', ''))!r}"
            lines.append(f"sampling ({e.get('model') or 'no model'}): asked {asked!r} → {said}")
        elif kind == "task":
            lines.append(f"task {e.get('task_id')}: {' → '.join(map(str, e.get('statuses') or []))}")
        elif kind == "elicitation":
            content = f" {_short(e['content'])}" if e.get("content") else ""
            lines.append(f"elicitation {_short(e.get('message', ''))!r} → {e.get('action')}{content}")
        elif kind != "progress":
            lines.append(f"{kind}: {_short({k: v for k, v in e.items() if k not in {'kind', 't'}})}")
    if progress:
        last: dict[str, Any] = next((e for e in reversed(progress) if "progress" in e), {})
        count = sum("progress" in e for e in progress) + sum(int(e.get("not_recorded", 0)) for e in progress)
        total = f"/{last['total']}" if last.get("total") is not None else ""
        lines.append(f"progress: {count} notification(s), last {last.get('progress', '?')}{total}")
    return lines
