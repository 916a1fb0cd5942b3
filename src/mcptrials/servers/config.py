"""Load MCP server configs in the formats users already have.

Accepted shapes: Claude-style ``{"mcpServers": {...}}``, VS Code-style ``{"servers": {...}}`` (with
``${env:X}``, ``${input:X}``, ``${workspaceFolder}`` and ``envFile``), entries with ``type``,
``transport`` or Cline's ``transportType`` (``stdio`` | ``http`` | ``sse``), Windsurf's ``serverUrl``,
and ``${VAR}`` / ``${VAR:-default}`` expansion from the environment. The per-episode variables
``${MCPTRIALS_SANDBOX}``, ``${MCPTRIALS_NOW}`` and ``${MCPTRIALS_EPISODE}`` are kept as written and
expanded when each episode starts (``episode_spec``). Keys other clients write and mcptrials does not use
are accepted with one warning line per file.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from mcptrials.model import ServerSpec, server_name_problem
from mcptrials.safety.loading import DocumentError, load_document, read_text
from mcptrials.servers.versions import DeclaredVersion, VersionsError, check_label, declare, declared_versions
from mcptrials.servers.versions import parse_versions as parse_declared_versions

EPISODE_VARS = ("MCPTRIALS_SANDBOX", "MCPTRIALS_NOW", "MCPTRIALS_EPISODE")
"""Variables whose value is known only when an episode starts; they survive loading unexpanded."""
_VAR = re.compile(r"\$\{(?:(env|input):)?([A-Za-z_][A-Za-z0-9_.-]*)(?::-([^}]*))?\}")
_EPISODE_VAR = re.compile(r"\$\{(" + "|".join(EPISODE_VARS) + r")\}")
_TRANSPORTS: dict[str, Literal["stdio", "http", "sse"]] = {
    "stdio": "stdio", "http": "http", "streamable-http": "http", "streamable_http": "http", "streamableHttp": "http",
    "sse": "sse",
}
_KNOWN_KEYS = {"command", "args", "env", "cwd", "url", "headers", "type", "transport", "category", "tags",
               "dynamism", "source_path", "version", "fixtures", "disabled", "envFile", "description",
               "transportType", "serverUrl", "faketime", "reuse", "versions", "instructions"}
_FOREIGN_KEYS = {"autoApprove", "alwaysAllow", "timeout", "dev", "networkTimeout", "trust", "includeTools",
                 "excludeTools", "enabled", "name", "notes", "icon", "gallery", "startup_timeout_sec",
                 "tool_timeout_sec", "oauth", "auth", "roots"}
"""Keys other clients (Cline, Windsurf, VS Code, Cursor, Gemini CLI, Codex) write; ignored with a warning."""


class ConfigError(ValueError):
    """A server config that cannot be used; the message names the file, server and field."""


@dataclass
class Dialect:
    """What ``${...}`` can refer to while loading: the environment, VS Code inputs, the workspace folder."""

    environ: Mapping[str, str]
    inputs: Mapping[str, str] = field(default_factory=dict)
    workspace: Path | None = None
    input_help: dict[str, str] = field(default_factory=dict)
    """A VS Code ``inputs`` entry's description, by id (shown when its value is missing)."""
    expanded: dict[str, str] = field(default_factory=dict)
    """Each value a variable or input expanded to -> its ``${...}`` reference (stored records show the reference)."""


def _expand(value: Any, where: str, dialect: Dialect) -> Any:
    if isinstance(value, str):
        def sub(match: re.Match[str]) -> str:
            prefix, name, default = match.group(1), match.group(2), match.group(3)
            if name in EPISODE_VARS and prefix != "input":
                return f"${{{name}}}"  # expanded per episode
            if prefix == "input":
                if name in dialect.inputs:
                    dialect.expanded[dialect.inputs[name]] = f"${{input:{name}}}"
                    return dialect.inputs[name]
                if default is not None:
                    return default
                hint = f" ({dialect.input_help[name]})" if dialect.input_help.get(name) else ""
                raise ConfigError(f"{where}: ${{input:{name}}}{hint} has no value: give --input {name}=VALUE")
            if prefix is None and name == "workspaceFolder":
                if dialect.workspace is None:
                    raise ConfigError(f"{where}: ${{workspaceFolder}} needs a config file (it is the file's folder)")
                return str(dialect.workspace)
            if name in dialect.environ:
                dialect.expanded[dialect.environ[name]] = f"${{{name}}}"
                return dialect.environ[name]
            if default is not None:
                return default
            near = difflib.get_close_matches(name, EPISODE_VARS, n=1, cutoff=0.8)
            hint = f" (did you mean ${{{near[0]}}}?)" if near else ""
            raise ConfigError(f"{where}: environment variable ${{{name}}} is not set{hint}")
        return _VAR.sub(sub, value)
    if isinstance(value, list):
        return [_expand(v, where, dialect) for v in value]
    if isinstance(value, dict):
        return {k: _expand(v, f"{where}.{k}", dialect) for k, v in value.items()}
    return value


def _env_file(value: Any, where: str, dialect: Dialect) -> dict[str, str]:
    """The variables of a VS Code ``envFile`` (dotenv syntax; relative to the workspace folder)."""
    from dotenv import dotenv_values

    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: field 'envFile' must be a file path")
    path = Path(value)
    if not path.is_absolute():
        path = (dialect.workspace or Path.cwd()) / path
    try:
        text = read_text(path, "envFile")
    except DocumentError as exc:
        raise ConfigError(f"{where}: field 'envFile': {exc}") from None
    import io

    return {k: v for k, v in dotenv_values(stream=io.StringIO(text)).items() if v is not None}


def _foreign_keys(entry: dict[str, Any], where: str) -> list[str]:
    """Keys mcptrials does not use: a near-miss of one it uses is an error, anything else is ignored."""
    ignored = []
    for key in sorted(set(entry) - _KNOWN_KEYS):
        near = difflib.get_close_matches(key, sorted(_KNOWN_KEYS), n=1, cutoff=0.75)
        if key not in _FOREIGN_KEYS and near:
            raise ConfigError(f"{where}: unknown field {key!r} (did you mean {near[0]!r}?)")
        ignored.append(key)
    return ignored


def parse_server_entry(name: str, entry: Any, source: str, environ: Mapping[str, str] | None = None,
                       *, dialect: Dialect | None = None, ignored: list[str] | None = None) -> ServerSpec:
    """Turn one config entry into a ``ServerSpec``, or raise ``ConfigError`` naming the field.

    Keys other clients use are left out and appended to ``ignored`` (as ``key``).
    """
    where = f"{source}: server {name!r}"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected an object, got {type(entry).__name__}")
    dialect = dialect or Dialect(os.environ if environ is None else environ)
    if "versions" in entry:  # each version is the entry with its overrides, parsed on its own
        try:
            return parse_declared_versions(entry, where, lambda merged: parse_server_entry(
                name, merged, source, dialect=dialect, ignored=ignored))
        except VersionsError as exc:
            raise ConfigError(str(exc)) from None
    foreign = _foreign_keys(entry, where)
    if ignored is not None:
        ignored.extend(foreign)
    entry = _expand({k: v for k, v in entry.items() if k not in foreign}, where, dialect)
    if "serverUrl" in entry:  # Windsurf's name for the url
        if "url" in entry:
            raise ConfigError(f"{where}: both 'url' and 'serverUrl' are given; keep one")
        entry["url"] = entry.pop("serverUrl")
    kind = entry.get("type", entry.get("transport", entry.get("transportType")))
    if kind is None:
        kind = _url_kind(entry["url"]) if "url" in entry and "command" not in entry else "stdio"
    if kind not in _TRANSPORTS:
        raise ConfigError(f"{where}: field 'type' has unknown value {kind!r} (expected stdio, http or sse)")
    transport = _TRANSPORTS[kind]
    if transport == "stdio" and not entry.get("command"):
        raise ConfigError(f"{where}: field 'command' is missing (a stdio server needs a command)")
    if transport != "stdio" and not entry.get("url"):
        raise ConfigError(f"{where}: field 'url' is missing (an {transport} server needs a url)")
    if "envFile" in entry:
        entry["env"] = {**_env_file(entry["envFile"], where, dialect), **(entry.get("env") or {})}
    for key in ("env", "headers"):  # Node-based clients pass "PORT": 8080 or "DEBUG": true on as text
        if isinstance(entry.get(key), dict):
            entry[key] = {k: _scalar_text(v) for k, v in entry[key].items()}
    fields = {k: v for k, v in entry.items()
              if k not in {"type", "transport", "transportType", "disabled", "envFile", "description"}}
    if "version" in fields:
        try:
            fields["version"] = check_label(fields["version"], where)
        except VersionsError as exc:
            raise ConfigError(str(exc)) from None
    try:
        spec = ServerSpec(name=name, transport=transport, **fields).with_expanded(dialect.expanded)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"{where}: field {loc!r}: {first['msg']}") from None
    return declare(spec, {spec.version: DeclaredVersion(spec.version, spec)}) if "version" in fields else spec


def _url_kind(url: Any) -> str:
    """The transport of an entry with only a ``url``: SSE when its path ends in ``/sse`` (the usual
    convention, which clients that guess the transport follow), else streamable HTTP."""
    from urllib.parse import urlsplit

    path = urlsplit(url).path.rstrip("/") if isinstance(url, str) else ""
    return "sse" if path.endswith("/sse") else "http"


def _scalar_text(value: Any) -> Any:
    """A number or boolean as the text a Node-based client would pass on; anything else unchanged."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, int | float) else value


def _input_help(data: dict[str, Any]) -> dict[str, str]:
    """VS Code's top-level ``inputs``: id -> description."""
    inputs = data.get("inputs")
    if not isinstance(inputs, list):
        return {}
    return {str(i["id"]): str(i.get("description") or "") for i in inputs if isinstance(i, dict) and "id" in i}


def parse_servers(data: Any, source: str = "<config>", environ: Mapping[str, str] | None = None, *,
                  inputs: Mapping[str, str] | None = None, workspace: Path | None = None,
                  warn: Callable[[str], None] | None = None) -> dict[str, ServerSpec]:
    """Parse a whole config document into server specs keyed by name.

    ``warn`` receives one line naming the keys of other clients that were ignored (default: stderr).
    """
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a JSON object with 'mcpServers' or 'servers'")
    block = data.get("mcpServers", data.get("servers"))
    if block is None:
        raise ConfigError(f"{source}: no 'mcpServers' or 'servers' object found")
    if not isinstance(block, dict):
        raise ConfigError(f"{source}: 'mcpServers' must be an object mapping names to servers")
    dialect = Dialect(os.environ if environ is None else environ, inputs or {}, workspace, _input_help(data))
    specs: dict[str, ServerSpec] = {}
    ignored: dict[str, list[str]] = {}
    for name, entry in block.items():
        if isinstance(entry, dict) and entry.get("disabled"):
            continue
        if not isinstance(name, str):
            raise ConfigError(f"{source}: server name {name!r} is a {type(name).__name__}, not text; quote it")
        problem = server_name_problem(name)
        if problem:
            raise ConfigError(f"{source}: server {name!r}: {problem}")
        keys: list[str] = []
        specs[name] = parse_server_entry(name, entry, source, dialect=dialect, ignored=keys)
        for key in keys:
            ignored.setdefault(key, []).append(name)
    if not specs:
        raise ConfigError(f"{source}: no servers defined")
    if ignored:
        listed = "; ".join(f"{key} ({', '.join(names)})" for key, names in sorted(ignored.items()))
        (warn or _stderr)(f"{source}: ignored keys mcptrials does not use (other clients' settings): {listed}")
    return specs


def _stderr(line: str) -> None:
    sys.stderr.write(f"warning: {line}\n")


def load_servers(path: str | Path, environ: Mapping[str, str] | None = None, *,
                 inputs: Mapping[str, str] | None = None,
                 warn: Callable[[str], None] | None = None) -> dict[str, ServerSpec]:
    """Read a servers file (JSON, or YAML by extension) into server specs.

    ``${workspaceFolder}`` is the file's folder (the folder above it for ``.vscode/mcp.json``).
    """
    path = Path(path)
    try:
        data = load_document(path, "servers file")  # bounded: size, depth, YAML aliases, UTF-8
    except DocumentError as exc:
        raise ConfigError(str(exc)) from None
    base = path.parent.resolve()
    workspace = base.parent if base.name == ".vscode" else base
    specs = parse_servers(data, str(path), environ, inputs=inputs, workspace=workspace, warn=warn)
    for spec in specs.values():
        _relative_to(spec, base)
        for label, version in declared_versions(spec).items():  # a version's paths are the file's, too
            _relative_to(version.spec, base)
            if version.lineages and not Path(version.lineages).is_absolute():
                spec._versions[label] = replace(version, lineages=str(base / version.lineages))
    return specs


def _relative_to(spec: ServerSpec, base: Path) -> None:
    """Resolve ``spec``'s relative ``cwd`` against the config file's folder."""
    if spec.cwd and not Path(spec.cwd).is_absolute() and not spec.cwd.startswith("${"):
        spec.cwd = str(base / spec.cwd)


def episode_spec(spec: ServerSpec, values: Mapping[str, str]) -> ServerSpec:
    """``spec`` with ``${MCPTRIALS_SANDBOX}``/``${MCPTRIALS_NOW}``/``${MCPTRIALS_EPISODE}`` replaced by ``values``.

    A variable without a value (no ``now`` on the task) becomes the empty string.
    """
    def sub(value: Any) -> Any:
        if isinstance(value, str):
            return _EPISODE_VAR.sub(lambda m: values.get(m.group(1), ""), value)
        if isinstance(value, list):
            return [sub(v) for v in value]
        if isinstance(value, dict):
            return {k: sub(v) for k, v in value.items()}
        return value

    data = spec.model_dump()
    expanded = sub(data)
    return spec if expanded == data else ServerSpec.model_validate(expanded)


def uses_episode_vars(spec: ServerSpec) -> bool:
    """Whether any field of ``spec`` names a per-episode variable."""
    return bool(_EPISODE_VAR.search(json.dumps(spec.model_dump())))
