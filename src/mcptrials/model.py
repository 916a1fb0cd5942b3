"""The one data model every pipeline stage shares: servers, tools, tasks, episodes, scores.

Every model is a pydantic v2 model that round-trips through JSON and carries a
``schema_version`` so stored files and database rows stay readable as the model grows.
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_serializer,
    model_validator,
)

from mcptrials.safety.urls import MASK, masked_urls, public_url

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


SERVER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""What a server may be called: letters, digits, ``.``, ``_`` and ``-``, starting with a letter or digit, at most 64
characters, and never the separator ``__`` (a name is shown, logged and part of tool names; it is never a path)."""


def server_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a server (one phrase), or None when it can."""
    if not SERVER_NAME.fullmatch(name):
        return "a server name is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"
    if SEPARATOR in name:
        return f"a server name must not contain {SEPARATOR!r}"
    return None


VERSION_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+@~-]{0,63}")
"""What a server version may be called (``v3``, ``2025.7.1``, ``1.4.0-rc1``): no spaces, no commas (``--versions``
splits on them), at most 64 characters."""


def version_label_problem(label: object) -> str | None:
    """Why ``label`` cannot label a server version (one phrase), or None when it can."""
    if not isinstance(label, str) or not VERSION_LABEL.fullmatch(label):
        return ("a version label is 1-64 letters, digits, '.', '_', '+', '@', '~' or '-', starting with a letter "
                "or digit")
    return None


def version_sort_key(label: str) -> tuple[Any, ...]:
    """Order of server versions in every table: lineage stages ``v0, v1, ...`` by round, then other labels
    (releases) in natural order, so ``0.9.0`` comes before ``0.10.0`` and ``2025.3.28`` before ``2025.7.1``."""
    if label[:1] == "v" and label[1:].isdigit():
        return (0, int(label[1:]), ())
    return (1, 0, tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
                        for part in re.split(r"(\d+)", label) if part))


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
    transport: Literal["stdio", "http", "sse"] = "stdio"
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
    faketime: bool = True
    """A stdio server's clock is frozen at the task's ``now`` through libfaketime (``false`` opts out)."""
    reuse: bool | None = None
    """May one process serve many episodes (``servers.pool``)? None: decided by kind (bundled read-only: yes)."""
    instructions: str | None = None
    """What the agent is told about this server, instead of the ``instructions`` its ``initialize`` gives."""

    @field_validator("name")
    @classmethod
    def _safe_name(cls, name: str) -> str:
        problem = server_name_problem(name)
        if problem:
            raise ValueError(problem)
        return name

    _versions: dict[str, Any] = PrivateAttr(default_factory=dict)
    """The versions its servers config declares, by label (``servers.versions.DeclaredVersion``; never stored)."""

    _expanded: dict[str, str] = PrivateAttr(default_factory=dict)
    """Values that ``${VAR}`` references in the config expanded to -> the reference (never stored)."""

    def with_expanded(self, expanded: dict[str, str]) -> ServerSpec:
        """Remember which values came from ``${VAR}`` expansion, so ``public_view`` shows the reference instead."""
        self._expanded = {value: ref for value, ref in expanded.items() if len(value) >= MIN_SECRET_CHARS}
        return self

    def public_view(self) -> dict[str, Any]:
        """Return the spec with env and header values masked, safe to store or print.

        Also masked: a URL's password and query values, the value of a secret-named command-line
        flag (``--api-key X``, ``--token=X``), and anywhere in command, args, url and cwd, a value that a
        ``${VAR}`` of the config expanded to (shown as ``${VAR}``).
        """
        data = self.model_dump()
        if self._expanded:
            for key in ("command", "url", "cwd", "source_path"):
                data[key] = _unexpanded(data[key], self._expanded)
            data["args"] = [_unexpanded(a, self._expanded) for a in data["args"]]
        data["env"] = dict.fromkeys(self.env, MASK)
        data["headers"] = dict.fromkeys(self.headers, MASK)
        data["url"] = public_url(data["url"])
        data["args"] = _masked_args(data["args"])
        if self.faketime:  # the default stays out of the record, so earlier runs keep their keys
            del data["faketime"]
        if self.instructions is None:
            del data["instructions"]
        return data


MIN_SECRET_CHARS = 6
"""Expanded values shorter than this are left alone in stored records (a ``1`` or ``on`` is no secret)."""


def _unexpanded(text: str | None, expanded: dict[str, str]) -> str | None:
    """``text`` with every expanded value (longest first) replaced by the reference it came from."""
    if not text:
        return text
    for value in sorted(expanded, key=len, reverse=True):
        if value in text:
            text = text.replace(value, expanded[value])
    return text


_SECRET_FLAG = re.compile(r"^--?[\w-]*(key|token|secret|password|passwd|auth|credential)[\w-]*$", re.IGNORECASE)
_SECRET_ASSIGNMENT = re.compile(r"^-{0,2}[\w-]*(key|token|secret|password|passwd|auth|credential)[\w-]*$",
                                re.IGNORECASE)
"""The name part of a ``NAME=value`` argument whose value is a secret (``--token=X``, ``-e GITHUB_TOKEN=X``)."""


def _masked_args(args: list[str]) -> list[str]:
    """``args`` with the value of each secret-named flag masked (``--api-key X``, ``--api-key=X``,
    ``API_TOKEN=X``) and the password and query values of URLs in them."""
    out: list[str] = []
    for arg in args:
        flag, eq, _ = arg.partition("=")
        if eq and _SECRET_ASSIGNMENT.match(flag):
            out.append(f"{flag}={MASK}")
        elif out and _SECRET_FLAG.match(out[-1]) and not arg.startswith("-"):
            out.append(MASK)
        else:
            out.append(masked_urls(arg))
    return out


class ToolInfo(_Model):
    """One tool as a server lists it, plus the qualified name the agent sees."""

    server: str
    name: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    output_schema: dict[str, Any] | None = None
    read_only: bool | None = None
    """The server's ``readOnlyHint`` for the tool (None when it gave none); a replay needs to know what writes."""

    @property
    def qualified_name(self) -> str:
        return qualified_name(self.server, self.name)

    @property
    def schema_hash(self) -> str:
        return stable_hash({"name": self.name, "description": self.description, "input": self.input_schema})


# --------------------------------------------------------------------------- tasks


Scalar = str | int | float
"""A value a spec names: text, or a number compared as a number."""


class Fact(_Model):
    """A value that must be stated bound to its label, e.g. label ``actual EPS`` with value 4.36.

    ``label`` and ``value`` may list alternatives: any label names the fact, any value is right.
    Values compare normalised (numbers, dates, times, case); ``tol`` is an absolute tolerance
    on numbers (without it, a number matches when the text rounds it correctly).

    The fact holds only when its label is bound to a right value and to no other value of the
    same kind: "5, or possibly 7", "5 ... actually 7" fail as ambiguous claims. ``range``: the
    value may be given as a range ("12 to 14"). ``unit``: the unit of a numeric value ("C", "km",
    "min", "kg", ...); the answer may then state it in another unit of the same quantity,
    converted ("54 F", "8.1 mi", "1 h 35 min").
    """

    label: str | list[str]
    value: Scalar | list[Scalar]
    tol: float | None = None
    range: bool = False
    unit: str | None = None

    @property
    def labels(self) -> list[str]:
        return [self.label] if isinstance(self.label, str) else list(self.label)

    @property
    def values(self) -> list[Scalar]:
        return list(self.value) if isinstance(self.value, list) else [self.value]

    @model_validator(mode="after")
    def _not_empty(self) -> Fact:
        if not self.labels or not all(str(x).strip() for x in self.labels):
            raise ValueError("a fact needs a non-empty label")
        if not self.values:
            raise ValueError("a fact needs at least one value")
        return self


_MATCHER_KINDS = ("equals", "regex", "contains", "contains_all", "one_of", "approx", "facts", "absent")


class Matcher(_Model):
    """A per-value predicate; exactly one of the matcher keys must be set.

    ``facts`` (label-bound values) and ``absent`` (values that must not be stated) read a
    text value; ``contains`` compares normalised (numbers as numbers, dates as dates); an item of
    ``contains_all`` may be a list of alternatives, any one of which will do.
    """

    equals: Any = None
    regex: str | None = None
    contains: str | int | float | None = None
    contains_all: list[str | int | float | list[str | int | float]] | None = None
    one_of: list[Any] | None = None
    approx: float | None = None
    facts: list[Fact] | None = None
    absent: list[Scalar] | None = None
    tol: float = 0.0
    case: Literal["sensitive", "insensitive"] = "sensitive"

    @model_validator(mode="after")
    def _exactly_one(self) -> Matcher:
        set_keys = [k for k in _MATCHER_KINDS if k in self.model_fields_set]
        if len(set_keys) != 1:
            raise ValueError(f"a matcher needs exactly one of {', '.join(_MATCHER_KINDS)} (got {set_keys or 'none'})")
        if self.regex is not None:
            _compile_regex(self.regex)
        return self

    @property
    def kind(self) -> str:
        set_keys = self.model_fields_set
        for kind in _MATCHER_KINDS:  # (a plain loop: read for every record a state checkpoint selects)
            if kind in set_keys:
                return kind
        raise ValueError("a matcher with no kind")

    @model_serializer(mode="plain")
    def _compact(self) -> dict[str, Any]:
        """Write only the matcher that is set (plus ``tol`` and ``case`` where they matter)."""
        value = getattr(self, self.kind)
        if self.kind == "facts":
            value = [f.model_dump(exclude_none=True) for f in value]
        out: dict[str, Any] = {self.kind: value}
        if self.kind == "approx":
            out["tol"] = self.tol
        if self.case != "sensitive":
            out["case"] = self.case
        return out


def _compile_regex(pattern: str) -> None:
    import re

    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"invalid regex {pattern!r}: {exc}") from None


def _argument_paths(predicates: dict[str, Any]) -> dict[str, Any]:
    """Check that every key of an argument predicate is a name or an argument path (``a.b``, ``items[].id``)."""
    from mcptrials.jsonpath import argument_path_problem

    for key in predicates:
        problem = argument_path_problem(key)
        if problem is not None:
            raise ValueError(problem)
    return predicates


ArgumentPredicates = Annotated[dict[str, Any], AfterValidator(_argument_paths)]
"""``must_include``: argument name or path -> the value it must equal (after normalisation)."""
ArgumentMatchers = Annotated[dict[str, Matcher], AfterValidator(_argument_paths)]
"""``must_match``: argument name or path -> the matcher its value must meet."""


class EffectMember(_Model):
    """One tool of an equivalence set with its own argument predicates (its own parameter names).

    A predicate's key is an argument name or a path into the arguments: ``a.b``, ``items[0].id``,
    ``entities[].name`` (any element of ``entities``); the predicate holds when some value the path
    reaches meets it.
    """

    tool: str
    must_include: ArgumentPredicates = Field(default_factory=dict)
    must_match: ArgumentMatchers = Field(default_factory=dict)


class ToolEffectCheckpoint(_Model):
    """Some tool of an equivalence set was called successfully with arguments meeting its predicates.

    ``tools`` share ``must_include``/``must_match``; each of ``members`` carries its own (a tool
    whose parameters are named differently). Arguments are compared as the server sees them.
    """

    id: str
    kind: Literal["tool_effect"] = "tool_effect"
    tools: list[str] = Field(default_factory=list)
    must_include: ArgumentPredicates = Field(default_factory=dict)
    must_match: ArgumentMatchers = Field(default_factory=dict)
    members: list[EffectMember] = Field(default_factory=list)
    description: str = ""

    @model_validator(mode="after")
    def _some_tool(self) -> ToolEffectCheckpoint:
        if not self.tools and not self.members:
            raise ValueError(f"checkpoint {self.id!r} names no tool (give tools or members)")
        return self

    def all_members(self) -> list[EffectMember]:
        """Every member of the equivalence set with the predicates it is held to."""
        shared = [EffectMember.model_construct(tool=t, must_include=dict(self.must_include),  # (validated here)
                                               must_match=dict(self.must_match)) for t in self.tools]
        return shared + list(self.members)

    @property
    def tool_names(self) -> list[str]:
        return list(dict.fromkeys(m.tool for m in self.all_members()))


class _TextChecks(_Model):
    """Checks on a text: normalised values present, label-bound facts, values that must be absent, patterns.

    A ``contains`` item that is a list is met by any of its values (``[invite, invitation]``).
    Each ``regex`` (Python ``re`` syntax, searched anywhere in the text, ``case`` respected) must match.
    """

    contains: list[Scalar | list[Scalar]] = Field(default_factory=list)
    mode: Literal["all", "any"] = "all"
    facts: list[Fact] = Field(default_factory=list)
    absent: list[Scalar] = Field(default_factory=list)
    regex: list[str] = Field(default_factory=list)
    case: Literal["sensitive", "insensitive"] = "insensitive"

    @field_validator("regex")
    @classmethod
    def _valid_patterns(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            _compile_regex(pattern)
        return patterns

    def has_text_checks(self) -> bool:
        return bool(self.contains or self.facts or self.absent or self.regex)


class ValueCheckpoint(_TextChecks):
    """Values appear in a tool result, the final message (an answer check), or either.

    ``contains`` values compare normalised; ``facts`` must be stated next to their labels;
    ``absent`` values must not be stated. On ``final_message`` this checks the answer.
    """

    id: str
    kind: Literal["value_produced"] = "value_produced"
    source: Literal["tool_result", "final_message", "any"] = "any"
    tools: list[str] = Field(default_factory=list)
    description: str = ""

    @model_validator(mode="after")
    def _something(self) -> ValueCheckpoint:
        if not self.has_text_checks():
            raise ValueError(f"value checkpoint {self.id!r} needs contains, facts, absent or regex")
        return self


class ConclusionCheckpoint(_Model):
    """The conclusion the answer draws: which options it asserts a role of, or yes/no on one question.

    ``role`` lists phrases that assert the role ("cheapest", "can be reserved", "beat"),
    ``opposite`` phrases that assert its negation ("most expensive" is not one: "fully booked",
    "closed", "missed"). With ``options`` (every option the task knows; a list item gives one
    option's aliases, its first name is its name), ``holds`` names the options the role holds
    for (empty: none of them): the answer must assert it of each of them and of no other. Without
    options, ``holds`` is true or false: the answer must say yes (assert the role) or no (deny
    it, or assert the opposite), and not both. Negation is read ("X is not available", "none of
    them", "not X but Y"); "the former"/"the latter" name the options they point back to.
    ``required: false``: an answer may leave the question open, but a conclusion it draws must
    be right.
    """

    id: str
    kind: Literal["conclusion"] = "conclusion"
    role: list[str] = Field(min_length=1)
    opposite: list[str] = Field(default_factory=list)
    options: list[str | list[str]] = Field(default_factory=list)
    holds: bool | list[str] = True
    required: bool = True
    description: str = ""

    @property
    def option_names(self) -> list[list[str]]:
        """Each option's names (its first is its name)."""
        return [[o] if isinstance(o, str) else list(o) for o in self.options]

    @model_validator(mode="after")
    def _coherent(self) -> ConclusionCheckpoint:
        if not all(str(r).strip() for r in [*self.role, *self.opposite]):
            raise ValueError(f"conclusion {self.id!r}: role and opposite phrases must not be empty")
        if self.options:
            if isinstance(self.holds, bool):
                raise ValueError(f"conclusion {self.id!r}: with options, holds lists the options the role holds for")
            names = {n.casefold() for names in self.option_names for n in names}
            unknown = [h for h in self.holds if h.casefold() not in names]
            if unknown:
                raise ValueError(f"conclusion {self.id!r}: holds names {unknown}, which are not options")
        elif not isinstance(self.holds, bool):
            raise ValueError(f"conclusion {self.id!r}: without options, holds is true (yes) or false (no)")
        return self


class Count(_Model):
    """How many records must meet a state check: at least ``min``, at most ``max``."""

    min: int = Field(default=0, ge=0)
    max: int | None = Field(default=None, ge=0)

    def admits(self, n: int) -> bool:
        return n >= self.min and (self.max is None or n <= self.max)


class StateCheckpoint(_TextChecks):
    """What must be true of the episode sandbox after the agent stopped: a file, a JSON value, a DB row.

    ``path`` is relative to the sandbox. Text files are checked with ``contains``/``facts``/
    ``absent``; JSON files select records with ``json_path`` (``$.messages[*]``); SQLite files
    with ``query``. Records are kept when they meet ``where``; the checkpoint holds when some
    kept record meets ``match`` (or exactly ``count`` do), or the query returns ``rows``.

    A check with ``match`` counts a created, sent, booked or appended item exactly once by
    default: the same item written twice fails (``duplicate_write``). ``count`` says otherwise:
    a number (exactly), or ``{min: 1}`` (any number of them, at least one).
    """

    id: str
    kind: Literal["state"] = "state"
    path: str = Field(min_length=1)
    exists: bool = True
    format: Literal["auto", "text", "json", "sqlite"] = "auto"
    json_path: str | None = None
    query: str | None = None
    where: dict[str, Matcher] = Field(default_factory=dict)
    match: dict[str, Matcher] = Field(default_factory=dict)
    count: int | Count | None = None
    rows: list[list[Any]] | None = None
    ordered: bool = False
    description: str = ""

    @property
    def file_format(self) -> str:
        if self.format != "auto":
            return self.format
        suffix = self.path.rsplit(".", 1)[-1].lower() if "." in self.path else ""
        return {"json": "json", "db": "sqlite", "sqlite": "sqlite", "sqlite3": "sqlite"}.get(suffix, "text")

    @model_validator(mode="after")
    def _coherent(self) -> StateCheckpoint:
        from pathlib import PurePosixPath

        pure = PurePosixPath(self.path)
        if pure.is_absolute() or ".." in pure.parts or "\x00" in self.path:
            raise ValueError(f"state checkpoint {self.id!r}: path {self.path!r} must be relative to the sandbox")
        fmt = self.file_format
        records = bool(self.where or self.match or self.count is not None)
        if fmt == "sqlite" and not self.query and self.exists:
            raise ValueError(f"state checkpoint {self.id!r}: a SQLite file needs a query")
        if fmt != "sqlite" and (self.query or self.rows is not None):
            raise ValueError(f"state checkpoint {self.id!r}: query/rows are for SQLite files")
        if fmt == "text" and (records or self.json_path):
            raise ValueError(f"state checkpoint {self.id!r}: where/match/count/json_path need a JSON or SQLite file")
        if fmt != "text" and self.has_text_checks():
            raise ValueError(f"state checkpoint {self.id!r}: contains/facts/absent/regex are for text files; "
                             "use match")
        if isinstance(self.count, int) and self.count < 0:
            raise ValueError(f"state checkpoint {self.id!r}: count must be at least 0")
        if not self.exists and (records or self.has_text_checks() or self.query):
            raise ValueError(f"state checkpoint {self.id!r}: a file that must be absent has nothing to match")
        return self


Checkpoint = Annotated[ToolEffectCheckpoint | ValueCheckpoint | StateCheckpoint | ConclusionCheckpoint,
                       Field(discriminator="kind")]


class Minefield(_Model):
    """An effect that must not happen: a successful call of one of ``tools`` meeting the predicates."""

    tools: list[str] = Field(min_length=1)
    must_include: ArgumentPredicates = Field(default_factory=dict)
    must_match: ArgumentMatchers = Field(default_factory=dict)
    description: str = ""


class Complexity(_Model):
    """How hard a task is structurally: chain depth, servers crossed, branching."""

    chain_depth: int = 0
    cross_server: bool = False
    branching: int = 0


class Grounding(_Model):
    """Which assertions of the answer need no source: values the task allows it to state freely."""

    allow: list[Scalar] = Field(default_factory=list)


JudgeName = Literal["keypoints", "rubric"]
JUDGE_NAMES: tuple[str, ...] = ("keypoints", "rubric")
"""The judges a task may name as its verdict (``TaskSpec.judges``)."""


class TaskSpec(_Model):
    """What a trajectory must achieve (checkpoints), must avoid (minefields) and in what order.

    ``judges``: the model judges whose verdict the task's is (``keypoints``, ``rubric``). A task
    that names judges may have no checkpoint: its verdict is then judged only (Tier-1 records none).

    ``grounding``: every figure, date, time and code the final answer asserts must come from the
    prompt, a tool result the agent saw, or simple arithmetic over them (false turns this off;
    ``{allow: [...]}`` names values that need no source). ``repeats``: the task allows the same
    write twice with the same arguments (by default that is a ``duplicate_write``).
    """

    checkpoints: list[Checkpoint] = Field(default_factory=list)
    judges: list[JudgeName] = Field(default_factory=list)
    minefields: list[Minefield] = Field(default_factory=list)
    partial_order: list[tuple[str, str]] = Field(default_factory=list)
    complexity: Complexity | None = None
    grounding: bool | Grounding = True
    repeats: bool = False

    @model_validator(mode="after")
    def _order_names_checkpoints(self) -> TaskSpec:
        ids = [c.id for c in self.checkpoints]
        if len(set(ids)) != len(ids):
            raise ValueError(f"checkpoint ids must be unique, got {ids}")
        for before, after in self.partial_order:
            for cid in (before, after):
                if cid not in ids:
                    raise ValueError(f"partial_order names unknown checkpoint {cid!r} (known: {ids})")
        if len(set(self.judges)) != len(self.judges):
            raise ValueError(f"judges must be named once each, got {self.judges}")
        return self

    @property
    def judge_only(self) -> bool:
        """Whether the verdict is the judges' alone: no deterministic checkpoint decides it."""
        return not self.checkpoints and bool(self.judges)


class PlannedCall(_Model):
    """One step of a reference plan: a qualified tool and its arguments."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)

    @field_validator("tool")
    @classmethod
    def _qualified(cls, value: str) -> str:
        split_qualified(value)
        return value


with warnings.catch_warnings():  # ``copy`` is the task format's key; a field of that name hides BaseModel.copy
    warnings.filterwarnings("ignore", message='Field name "copy"', category=UserWarning)

    class _CopyField(BaseModel):
        copy: dict[str, str] = Field(default_factory=dict)  # type: ignore[assignment]


class Fixtures(_Model, _CopyField):
    """Files put into the episode sandbox before any server starts.

    ``files``: sandbox-relative path -> text. ``copy``: sandbox-relative destination -> a file or
    folder copied byte for byte (a relative source is read from the folder of the task file).
    ``path_map``: an absolute path prefix the prompt names (``/root/data/``) -> the sandbox-relative
    folder it stands for (``.`` for the sandbox itself); the prompt the agent sees and the
    arguments of its calls are rewritten to the sandbox's real path.
    """

    files: dict[str, str] = Field(default_factory=dict)
    path_map: dict[str, str] = Field(default_factory=dict)

    @field_validator("files")
    @classmethod
    def _files_inside_sandbox(cls, files: dict[str, str]) -> dict[str, str]:
        from mcptrials.safety.paths import fixture_paths_problem

        problem = fixture_paths_problem(files)
        if problem is not None:
            raise ValueError(problem)  # reported at fixtures.files
        return files

    @model_validator(mode="after")
    def _inside_sandbox(self) -> Fixtures:
        from mcptrials.safety.paths import fixture_paths_problem, sandbox_path_problem

        problem = fixture_paths_problem([*self.files, *self.copy]) if self.copy else None
        if problem is not None:
            raise ValueError(f"copy: {problem}")
        for dest, source in self.copy.items():
            if not source.strip() or "\x00" in source:
                raise ValueError(f"copy {dest!r}: the source path is empty or has a NUL byte")
        for prefix, rel in self.path_map.items():
            if not prefix.startswith("/") or "\x00" in prefix:
                raise ValueError(f"path_map {prefix!r}: the key must be an absolute path prefix (e.g. /root/data/)")
            if rel.strip() not in {".", "./"}:
                problem = sandbox_path_problem(rel)
                if problem is not None:
                    raise ValueError(f"path_map {prefix!r}: {problem}")
        return self

    def has_any(self) -> bool:
        """Whether the fixtures put anything into the sandbox."""
        return bool(self.files or self.copy)

    def hash_view(self) -> dict[str, Any]:
        """What the fixtures put in a sandbox, for hashes: copied sources by their bytes' sha256, not their path."""
        from mcptrials.fixtures import tree_digest

        view: dict[str, Any] = {"files": self.files}
        if self.copy:
            view["copy"] = {dest: tree_digest(source) for dest, source in self.copy.items()}
        if self.path_map:
            view["path_map"] = self.path_map
        return view


ChainStratum = Literal["short", "medium", "long"]


def chain_stratum(steps: int) -> ChainStratum:
    """Classify a reference plan length: short 1-2, medium 3-4, long 5+ steps."""
    if steps <= 2:
        return "short"
    if steps <= 4:
        return "medium"
    return "long"


class ElicitationRule(_Model):
    """One answer to a server's elicitation: when ``match`` (a regex, case-insensitive) is found in its message."""

    match: str = ".*"
    action: Literal["accept", "decline", "cancel"] = "accept"
    content: dict[str, Any] = Field(default_factory=dict)

    @field_validator("match")
    @classmethod
    def _valid_match(cls, value: str) -> str:
        _compile_regex(value)
        return value


class Task(_Model):
    """One benchmark task: the request the agent sees and the spec its trajectory is scored on."""

    schema_version: int = SCHEMA_VERSION
    id: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    concrete_prompt: str | None = None
    dependency_analysis: str | None = None
    dependencies: list[tuple[str, str]] = Field(default_factory=list)
    """(producer, consumer) pairs of qualified tools: the consumer takes the producer's output (MCP-Bench's
    dependency chains); the rule metric ``dependency_compliance_rate`` checks the agent kept that order."""
    servers: list[str] = Field(min_length=1)
    category: str = "uncategorised"
    now: datetime | None = None
    fixtures: Fixtures = Field(default_factory=Fixtures)
    spec: TaskSpec
    reference: list[PlannedCall] = Field(default_factory=list)
    reference_answer: str | None = None
    key_points: list[str] = Field(default_factory=list)
    provenance: dict[str, Any] = Field(default_factory=dict)
    distractors: list[str] = Field(default_factory=list)
    """Qualified ``server__tool`` names of other servers' tools added to the task's offer."""
    elicitation: list[ElicitationRule] = Field(default_factory=list)
    """How the client answers a server's elicitation requests (first rule whose ``match`` fits; else decline)."""

    @field_validator("now")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("'now' needs a timezone offset, e.g. 2026-04-13T09:00:00+08:00")
        return value

    @model_validator(mode="after")
    def _distractors_elsewhere(self) -> Task:
        if not self.spec.checkpoints and not self.spec.judges:
            raise ValueError(f"spec.checkpoints of task {self.id!r} is empty: give a checkpoint, or name the judges "
                             f"whose verdict it is in spec.judges ({', '.join(JUDGE_NAMES)})")
        for name in self.distractors:
            if split_qualified(name)[0] in self.servers:
                raise ValueError(f"distractor {name!r} is on one of the task's own servers")
        return self

    @property
    def chain_length(self) -> ChainStratum:
        return chain_stratum(len(self.reference))

    def visible_hash(self) -> str:
        """Hash of what the agent's run depends on (not the spec, which only scoring reads)."""
        return stable_hash({
            "prompt": self.prompt,
            "servers": self.servers,
            "now": self.now.isoformat() if self.now else None,
            "fixtures": self.fixtures.hash_view(),
            **({"distractors": self.distractors} if self.distractors else {}),  # part of the offer
            **({"elicitation": [r.model_dump() for r in self.elicitation]} if self.elicitation else {}),
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
    "timeout",           # no answer within the per-call timeout, from a server that still answers (the call's fault)
    "server_crash",      # the server process or connection died
    "server_unavailable",# the server had already died or never started
    "replay_miss",       # under replay, a call the recorded world never answered (the agent left it)
    "server_unresponsive",  # no answer within the per-call timeout, nor to a request after it: the server is stuck
]
INFRA_ERROR_KINDS: frozenset[str] = frozenset({"server_unresponsive", "server_crash", "server_unavailable"})


class ModelTurn(_Model):
    """One model call: what it said, which tools it asked for, what it cost."""

    kind: Literal["model"] = "model"
    index: int
    text: str = ""
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    finish_reason: str | None = None
    role: Literal["agent", "judge", "compressor", "router", "reflection", "plan", "memory"] = "agent"
    """Who the call served: the agent's own turn, a judge, or a helper step of an agent design
    (planner compression, copilot routing, the reflection / plan / memory modules)."""


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
    started_s: float | None = None
    """When the call was sent, in seconds since the episode's trajectory began (a turn's calls overlap)."""
    replay: Literal["exact", "normalised", "live", "miss"] | None = None
    """Under replay, how the call was answered: a recorded call matched exactly or normalised, live, or not."""
    events: list[dict[str, Any]] = Field(default_factory=list)
    """What the server asked of the client during the call (sampling, elicitation, roots) and its progress."""
    attachments: list[dict[str, Any]] = Field(default_factory=list)
    """Images and audio the call returned: kind, mime type, size and sha256 key in the run's blob store."""


Step = Annotated[ModelTurn | ToolCallRecord, Field(discriminator="kind")]

Termination = Literal["done", "max_turns", "budget", "infra_error", "agent_error"]


class InfraError(_Model):
    """An infrastructure failure that invalidates an episode without blaming the agent."""

    kind: str
    message: str
    server: str | None = None


class ServerIdentity(_Model):
    """The world a recording came from: a server's tool-list hash and what it said it was at ``initialize``.

    ``replay_of`` names the recorded run(s) a replayed server answered from (None when live).
    """

    tools_hash: str
    name: str | None = None
    version: str | None = None
    replay_of: list[str] | None = None


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
    """Schema hash of every tool offered to the agent, by qualified name (so also what was offered)."""
    state: dict[str, Any] = Field(default_factory=dict)
    started_at: datetime | None = None
    duration_s: float = 0.0
    servers: dict[str, ServerIdentity] = Field(default_factory=dict)
    """Per server of the episode, the identity of the world it answered from (the recording's key)."""
    instructions: dict[str, str] = Field(default_factory=dict)
    """Per server, the instructions the agent's system prompt carried (its ``initialize`` ones or the config's)."""

    @property
    def offered_tools(self) -> list[str]:
        """Qualified names of every tool the agent could call (directly, or through a copilot's route)."""
        return sorted(self.tool_hashes)

    @property
    def offered_count(self) -> int:
        return len(self.tool_hashes)

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
    "missing_effect", "wrong_arguments", "missing_value", "wrong_state", "minefield", "order_violation",
    "no_answer", "max_turns", "budget", "ambiguous_claim", "wrong_value", "wrong_conclusion", "ungrounded_claim",
    "duplicate_write",
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
