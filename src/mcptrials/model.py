"""The one data model every pipeline stage shares: servers, tools, tasks, episodes, scores.

Every model is a pydantic v2 model that round-trips through JSON and carries a
``schema_version`` so stored files and database rows stay readable as the model grows.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_serializer, model_validator

SCHEMA_VERSION = 1
SEPARATOR = "__"
"""Joins a server name and a tool name into the qualified name the agent sees."""


def qualified_name(server: str, tool: str) -> str:
    """Return the namespaced name ``server__tool`` under which an agent sees a tool."""
    return f"{server}{SEPARATOR}{tool}"


def split_qualified(name: str) -> tuple[str, str]:
    """Split ``server__tool`` at the first separator; raise ValueError when there is none."""
    server, sep, tool = name.partition(SEPARATOR)
    if not sep or not server or not tool:
        raise ValueError(f"{name!r} is not a qualified tool name (expected server{SEPARATOR}tool)")
    return server, tool


def stable_hash(value: Any) -> str:
    """Return a short SHA-256 of a JSON-serialisable value, independent of key order."""
    blob = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


# --------------------------------------------------------------------------- servers


class ServerSpec(_Model):
    """How to reach one MCP server, as read from a user's ``mcpServers`` config."""

    schema_version: int = SCHEMA_VERSION
    name: str
    transport: Literal["stdio", "http"] = "stdio"
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    category: str | None = None
    tags: list[str] = Field(default_factory=list)
    dynamism: Literal["static", "live_read", "stateful_write"] = "static"
    source_path: str | None = None
    version: str = "v0"
    fixtures: dict[str, str] = Field(default_factory=dict)

    def public_view(self) -> dict[str, Any]:
        """Return the spec with env and header values masked, safe to store or print."""
        data = self.model_dump()
        data["env"] = dict.fromkeys(self.env, "***")
        data["headers"] = dict.fromkeys(self.headers, "***")
        return data


class ToolInfo(_Model):
    """One tool as a server lists it, plus the qualified name the agent sees."""

    server: str
    name: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    output_schema: dict[str, Any] | None = None

    @property
    def qualified_name(self) -> str:
        return qualified_name(self.server, self.name)

    @property
    def schema_hash(self) -> str:
        return stable_hash({"name": self.name, "description": self.description, "input": self.input_schema})


# --------------------------------------------------------------------------- tasks


class Matcher(_Model):
    """A per-argument predicate; exactly one of the matcher keys must be set."""

    equals: Any = None
    regex: str | None = None
    contains: str | None = None
    contains_all: list[str] | None = None
    one_of: list[Any] | None = None
    approx: float | None = None
    tol: float = 0.0
    case: Literal["sensitive", "insensitive"] = "sensitive"

    @model_validator(mode="after")
    def _exactly_one(self) -> Matcher:
        set_keys = [k for k in ("equals", "regex", "contains", "contains_all", "one_of", "approx")
                    if k in self.model_fields_set]
        if len(set_keys) != 1:
            raise ValueError(
                "a matcher needs exactly one of equals, regex, contains, contains_all, one_of, approx"
                f" (got {set_keys or 'none'})"
            )
        return self

    @property
    def kind(self) -> str:
        return next(k for k in ("equals", "regex", "contains", "contains_all", "one_of", "approx")
                    if k in self.model_fields_set)

    @model_serializer(mode="plain")
    def _compact(self) -> dict[str, Any]:
        """Write only the matcher that is set (plus ``tol`` and ``case`` where they matter)."""
        out: dict[str, Any] = {self.kind: getattr(self, self.kind)}
        if self.kind == "approx":
            out["tol"] = self.tol
        if self.case != "sensitive":
            out["case"] = self.case
        return out


class ToolEffectCheckpoint(_Model):
    """Some tool of an equivalence set was called successfully with arguments meeting the predicates."""

    id: str
    kind: Literal["tool_effect"] = "tool_effect"
    tools: list[str] = Field(min_length=1)
    must_include: dict[str, Any] = Field(default_factory=dict)
    must_match: dict[str, Matcher] = Field(default_factory=dict)
    description: str = ""


class ValueCheckpoint(_Model):
    """Demanded substrings appear in a tool result, the final message, or either."""

    id: str
    kind: Literal["value_produced"] = "value_produced"
    source: Literal["tool_result", "final_message", "any"] = "any"
    contains: list[str] = Field(min_length=1)
    mode: Literal["all", "any"] = "all"
    case: Literal["sensitive", "insensitive"] = "insensitive"
    tools: list[str] = Field(default_factory=list)
    description: str = ""


Checkpoint = Annotated[ToolEffectCheckpoint | ValueCheckpoint, Field(discriminator="kind")]


class Minefield(_Model):
    """An effect that must not happen: a successful call of one of ``tools`` meeting the predicates."""

    tools: list[str] = Field(min_length=1)
    must_include: dict[str, Any] = Field(default_factory=dict)
    must_match: dict[str, Matcher] = Field(default_factory=dict)
    description: str = ""


class Complexity(_Model):
    """How hard a task is structurally: chain depth, servers crossed, branching."""

    chain_depth: int = 0
    cross_server: bool = False
    branching: int = 0


class TaskSpec(_Model):
    """What a trajectory must achieve (checkpoints), must avoid (minefields) and in what order."""

    checkpoints: list[Checkpoint] = Field(min_length=1)
    minefields: list[Minefield] = Field(default_factory=list)
    partial_order: list[tuple[str, str]] = Field(default_factory=list)
    complexity: Complexity | None = None

    @model_validator(mode="after")
    def _order_names_checkpoints(self) -> TaskSpec:
        ids = [c.id for c in self.checkpoints]
        if len(set(ids)) != len(ids):
            raise ValueError(f"checkpoint ids must be unique, got {ids}")
        for before, after in self.partial_order:
            for cid in (before, after):
                if cid not in ids:
                    raise ValueError(f"partial_order names unknown checkpoint {cid!r} (known: {ids})")
        return self


class PlannedCall(_Model):
    """One step of a reference plan: a qualified tool and its arguments."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)

    @field_validator("tool")
    @classmethod
    def _qualified(cls, value: str) -> str:
        split_qualified(value)
        return value


class Fixtures(_Model):
    """Files copied into the episode sandbox before any server starts."""

    files: dict[str, str] = Field(default_factory=dict)


ChainStratum = Literal["short", "medium", "long"]


def chain_stratum(steps: int) -> ChainStratum:
    """Classify a reference plan length: short 1-2, medium 3-4, long 5+ steps."""
    if steps <= 2:
        return "short"
    if steps <= 4:
        return "medium"
    return "long"


class Task(_Model):
    """One benchmark task: the request the agent sees and the spec its trajectory is scored on."""

    schema_version: int = SCHEMA_VERSION
    id: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    concrete_prompt: str | None = None
    dependency_analysis: str | None = None
    servers: list[str] = Field(min_length=1)
    category: str = "uncategorised"
    now: datetime | None = None
    fixtures: Fixtures = Field(default_factory=Fixtures)
    spec: TaskSpec
    reference: list[PlannedCall] = Field(default_factory=list)
    key_points: list[str] = Field(default_factory=list)
    provenance: dict[str, Any] = Field(default_factory=dict)

    @field_validator("now")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("'now' needs a timezone offset, e.g. 2026-04-13T09:00:00+08:00")
        return value

    @property
    def chain_length(self) -> ChainStratum:
        return chain_stratum(len(self.reference))

    def visible_hash(self) -> str:
        """Hash of what the agent's run depends on (not the spec, which only scoring reads)."""
        return stable_hash({
            "prompt": self.prompt,
            "servers": self.servers,
            "now": self.now.isoformat() if self.now else None,
            "fixtures": self.fixtures.model_dump(),
        })


# --------------------------------------------------------------------------- episodes


class Usage(_Model):
    """Token counts and cost of one model call or a sum of them."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
        )


class ToolCallRequest(_Model):
    """A tool call as the model asked for it; ``arguments`` is None when its JSON did not parse."""

    id: str
    name: str
    arguments: dict[str, Any] | None = None
    raw_arguments: str | None = None


ErrorKind = Literal[
    "tool_error",        # the server answered is_error=True
    "unknown_tool",      # the agent named a tool no server offers
    "invalid_arguments", # the agent's arguments were not a JSON object
    "protocol_error",    # the server answered with an MCP/JSON-RPC error
    "timeout",           # no answer within the per-call timeout
    "server_crash",      # the server process or connection died
    "server_unavailable",# the server had already died or never started
]
INFRA_ERROR_KINDS: frozenset[str] = frozenset({"timeout", "server_crash", "server_unavailable"})


class ModelTurn(_Model):
    """One model call: what it said, which tools it asked for, what it cost."""

    kind: Literal["model"] = "model"
    index: int
    text: str = ""
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    finish_reason: str | None = None
    role: Literal["agent", "judge", "compressor"] = "agent"


class ToolCallRecord(_Model):
    """One executed tool call with its arguments, result or error, and latency."""

    kind: Literal["tool"] = "tool"
    index: int
    call_id: str
    turn: int
    name: str
    server: str | None = None
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    content: str = ""
    structured_content: Any = None
    is_error: bool = False
    error_kind: ErrorKind | None = None
    latency_s: float = 0.0
    truncated: bool = False
    result_bytes: int = 0


Step = Annotated[ModelTurn | ToolCallRecord, Field(discriminator="kind")]

Termination = Literal["done", "max_turns", "budget", "infra_error", "agent_error"]


class InfraError(_Model):
    """An infrastructure failure that invalidates an episode without blaming the agent."""

    kind: str
    message: str
    server: str | None = None


class Episode(_Model):
    """One agent attempt at one task, stored whole so any scorer can grade it later."""

    schema_version: int = SCHEMA_VERSION
    id: str
    run_id: str
    task_id: str
    version: str = "v0"
    agent: str
    model: str
    attempt: int
    seed: int = 0
    config_hash: str
    steps: list[Step] = Field(default_factory=list)
    final_answer: str = ""
    termination: Termination = "done"
    infra_error: InfraError | None = None
    agent_error: str | None = None
    usage: Usage = Field(default_factory=Usage)
    tool_hashes: dict[str, str] = Field(default_factory=dict)
    started_at: datetime | None = None
    duration_s: float = 0.0

    @property
    def tool_calls(self) -> list[ToolCallRecord]:
        return [s for s in self.steps if isinstance(s, ToolCallRecord)]

    @property
    def model_turns(self) -> list[ModelTurn]:
        return [s for s in self.steps if isinstance(s, ModelTurn) and s.role == "agent"]

    def key(self) -> tuple[str, str, str, str, int, str]:
        """The resume key: an episode with this key is never run twice."""
        return (self.task_id, self.version, self.agent, self.model, self.attempt, self.config_hash)


# --------------------------------------------------------------------------- scores

FailureCode = Literal[
    "missing_effect", "wrong_arguments", "missing_value", "minefield", "order_violation",
    "no_answer", "max_turns", "budget",
]


class CheckpointResult(_Model):
    """The verdict on one checkpoint, with the call that met it or why none did."""

    id: str
    passed: bool
    matched_step: int | None = None
    failure: FailureCode | None = None
    detail: str = ""


class Score(_Model):
    """A scorer's verdict on one episode."""

    schema_version: int = SCHEMA_VERSION
    episode_id: str
    scorer: str
    scorer_version: str
    passed: bool | None
    value: float | None = None
    values: dict[str, float] = Field(default_factory=dict)
    checkpoints: list[CheckpointResult] = Field(default_factory=list)
    failure_codes: list[str] = Field(default_factory=list)
    detail: dict[str, Any] = Field(default_factory=dict)
