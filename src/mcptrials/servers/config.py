"""Load MCP server configs in the formats users already have.

Accepted shapes: Claude-style ``{"mcpServers": {...}}``, VS Code-style ``{"servers": {...}}``,
entries with ``type`` or ``transport`` (``stdio`` | ``http``, also ``streamable-http``),
and ``${VAR}`` / ``${VAR:-default}`` expansion from the environment.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from mcptrials.model import ServerSpec

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_TRANSPORTS: dict[str, Literal["stdio", "http"]] = {
    "stdio": "stdio", "http": "http", "streamable-http": "http", "streamable_http": "http", "streamableHttp": "http",
}
_KNOWN_KEYS = {"command", "args", "env", "cwd", "url", "headers", "type", "transport", "category", "tags",
               "dynamism", "source_path", "version", "fixtures", "disabled", "envFile", "description"}


class ConfigError(ValueError):
    """A server config that cannot be used; the message names the file, server and field."""


def _expand(value: Any, where: str, environ: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        def sub(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name in environ:
                return environ[name]
            if default is not None:
                return default
            raise ConfigError(f"{where}: environment variable ${{{name}}} is not set")
        return _VAR.sub(sub, value)
    if isinstance(value, list):
        return [_expand(v, where, environ) for v in value]
    if isinstance(value, dict):
        return {k: _expand(v, f"{where}.{k}", environ) for k, v in value.items()}
    return value


def parse_server_entry(name: str, entry: Any, source: str,
                       environ: Mapping[str, str] | None = None) -> ServerSpec:
    """Turn one config entry into a ``ServerSpec``, or raise ``ConfigError`` naming the field."""
    where = f"{source}: server {name!r}"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected an object, got {type(entry).__name__}")
    unknown = set(entry) - _KNOWN_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {sorted(unknown)}")
    entry = _expand(entry, where, os.environ if environ is None else environ)
    kind = entry.get("type", entry.get("transport"))
    if kind is None:
        kind = "http" if "url" in entry and "command" not in entry else "stdio"
    if kind not in _TRANSPORTS:
        raise ConfigError(f"{where}: field 'type' has unknown value {kind!r} (expected stdio or http)")
    transport = _TRANSPORTS[kind]
    if transport == "stdio" and not entry.get("command"):
        raise ConfigError(f"{where}: field 'command' is missing (a stdio server needs a command)")
    if transport == "http" and not entry.get("url"):
        raise ConfigError(f"{where}: field 'url' is missing (an http server needs a url)")
    fields = {k: v for k, v in entry.items() if k not in {"type", "transport", "disabled", "envFile", "description"}}
    try:
        return ServerSpec(name=name, transport=transport, **fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"{where}: field {loc!r}: {first['msg']}") from None


def parse_servers(data: Any, source: str = "<config>",
                  environ: Mapping[str, str] | None = None) -> dict[str, ServerSpec]:
    """Parse a whole config document into server specs keyed by name."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a JSON object with 'mcpServers' or 'servers'")
    block = data.get("mcpServers", data.get("servers"))
    if block is None:
        raise ConfigError(f"{source}: no 'mcpServers' or 'servers' object found")
    if not isinstance(block, dict):
        raise ConfigError(f"{source}: 'mcpServers' must be an object mapping names to servers")
    specs: dict[str, ServerSpec] = {}
    for name, entry in block.items():
        if isinstance(entry, dict) and entry.get("disabled"):
            continue
        if "__" in name:
            raise ConfigError(f"{source}: server {name!r}: a server name must not contain '__'")
        specs[name] = parse_server_entry(name, entry, source, environ)
    if not specs:
        raise ConfigError(f"{source}: no servers defined")
    return specs


def load_servers(path: str | Path, environ: Mapping[str, str] | None = None) -> dict[str, ServerSpec]:
    """Read a servers file (JSON, or YAML by extension) into server specs."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read servers file ({exc.strerror})") from None
    try:
        if path.suffix in {".yaml", ".yml"}:
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except Exception as exc:  # yaml errors carry their own position text
        raise ConfigError(f"{path}: invalid YAML: {exc}") from None
    specs = parse_servers(data, str(path), environ)
    base = path.parent.resolve()
    for spec in specs.values():
        if spec.cwd and not Path(spec.cwd).is_absolute():
            spec.cwd = str(base / spec.cwd)
    return specs
