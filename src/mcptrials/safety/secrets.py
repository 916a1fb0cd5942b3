"""Find the secret values a run was given and scrub them from anything about to be stored or shown.

``ServerSpec.public_view`` masks a spec's own record; this covers the rest: a server's stderr quoting its
token, an HTTP error naming a URL with a ``?token=``, a tool echoing its environment, a key in a model error.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from mcptrials.model import (
    _SECRET_ASSIGNMENT,
    _SECRET_FLAG,
    MASK,
    MIN_SECRET_CHARS,
    Episode,
    ServerSpec,
    ToolInfo,
)
from mcptrials.safety.urls import URL_IN_TEXT

_AUTH_SCHEME = re.compile(r"^(bearer|basic|token|apikey)\s+", re.IGNORECASE)


def _url_secrets(url: str | None) -> set[str]:
    if not url:
        return set()
    try:
        parts = urlsplit(url)
        found = {parts.password or ""} | {v for _, v in parse_qsl(parts.query, keep_blank_values=True)}
    except ValueError:
        return set()
    return found


_SECRET_NAME = re.compile(r"key|token|secret|pass|pwd|auth|credential|cookie|session|private|dsn", re.IGNORECASE)
"""Words in a variable's name that say its value is a secret (``GITHUB_TOKEN``, ``PGPASSWORD``, ``SENTRY_DSN``)."""


def _token_like(value: str) -> bool:
    """A value that looks generated (letters and digits, no spaces, not a path), as keys and tokens do."""
    return (len(value) >= 8 and not any(c.isspace() for c in value) and any(c.isdigit() for c in value)
            and any(c.isalpha() for c in value) and not value.startswith(("/", "./", "../", "~")))


def _secret_value(name: str, value: str) -> bool:
    """Whether the value of variable ``name`` is scrubbed from what servers and models say.

    Not every env or ``${VAR}`` value is a secret: scrubbing a ``TZ=Europe/Paris`` or a ``${HOME}`` path from
    tool results and answers would change scores (the runner scores the scrubbed episode). Stored records
    (``public_view``) still mask every env value.
    """
    return bool(_SECRET_NAME.search(name)) or _token_like(value)


def spec_secrets(spec: ServerSpec) -> set[str]:
    """The secret values of ``spec``: env values and ``${VAR}`` expansions that are secret by name or look
    like tokens, header values, URL passwords and query values (also in args), secret-named flags' values."""
    found: set[str] = {v for k, v in spec.env.items() if _secret_value(k, v)}
    found |= {v for v, ref in spec._expanded.items()  # an ``${input:X}`` is prompted for: always a secret
              if ref.startswith("${input:") or _secret_value(ref, v)}
    for value in spec.env.values():  # a JSON object of headers (the evolve proxy's upstream headers)
        if value.startswith("{"):
            with contextlib.suppress(ValueError):
                found |= {_AUTH_SCHEME.sub("", v) for v in json.loads(value).values() if isinstance(v, str)}
    for value in spec.headers.values():
        found |= {value, _AUTH_SCHEME.sub("", value)}
    found |= _url_secrets(spec.url)
    previous = ""
    for arg in spec.args:
        flag, eq, value = arg.partition("=")
        if eq and _SECRET_ASSIGNMENT.match(flag):
            found.add(value)
        elif _SECRET_FLAG.match(previous) and not arg.startswith("-"):
            found.add(arg)
        for url in URL_IN_TEXT.findall(arg):
            found |= _url_secrets(url)
        previous = arg
    return {s for s in found if len(s) >= MIN_SECRET_CHARS}


HIDDEN_VALUES = "hidden_values"
"""The key of ``hidden_values_digest`` beside a server's public view in a run's recorded settings."""


def hidden_values_digest(spec: ServerSpec, leave_out: Iterable[str] = ()) -> str | None:
    """A one-way digest of what ``spec.public_view`` masks (env and header values, ``${input:}``, ``${env:}`` and
    ``${VAR}`` expansions, URL passwords and queries, secret flags' values); None when it masks nothing.

    Put beside the public view in a run's settings, it keys stored results to the values a server really ran
    with (another ``--input tz=...`` is another configuration) without storing a secret: the digest is a slow
    salted hash (PBKDF2), so a short secret cannot be found from it by trying candidates quickly.
    """
    full = {k: v for k, v in spec.model_dump().items() if k not in set(leave_out)}
    shown = {k: v for k, v in spec.public_view().items() if k not in set(leave_out)}
    if spec.faketime:
        full.pop("faketime", None)
    if spec.instructions is None:
        full.pop("instructions", None)
    return None if full == shown else _slow_digest(json.dumps(full, sort_keys=True, default=str))


@functools.lru_cache(maxsize=256)
def _slow_digest(text: str) -> str:
    return hashlib.pbkdf2_hmac("sha256", text.encode(), b"mcptrials-server-values", 100_000).hex()[:32]


def model_secrets(model: Any) -> set[str]:
    """A chat model's API key (given or read from its key variable) and its base URL's password/query values.

    Wrappers (a judge's ``chat``, prompt-mode tools' ``inner``) are looked through.
    """
    for attr in ("chat", "inner"):
        if getattr(model, attr, None) is not None:
            return model_secrets(getattr(model, attr))
    found = {getattr(model, "api_key", None) or ""}
    key_env = getattr(model, "api_key_env", None)
    if key_env:
        found.add(os.environ.get(key_env, ""))
    endpoint = getattr(model, "endpoint", None)
    found |= _url_secrets(endpoint() if callable(endpoint) else None)
    return {s for s in found if len(s) >= MIN_SECRET_CHARS}


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (longest first) replaced by the mask."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def scrub(value: Any, secrets: frozenset[str] | set[str]) -> Any:
    """``value`` (JSON-like) with every string redacted; the same object when nothing needed it."""
    if not secrets:
        return value
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, list):
        items = [scrub(v, secrets) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, dict):
        pairs = {scrub(k, secrets): scrub(v, secrets) for k, v in value.items()}
        same = len(pairs) == len(value) and all(k in value and value[k] is v for k, v in pairs.items())
        return value if same else pairs
    return value


def run_secrets(servers: Iterable[ServerSpec], models: Iterable[Any]) -> frozenset[str]:
    """Every secret a run holds: its servers' and its models' (the agent's and any judge's)."""
    found: set[str] = set()
    for spec in servers:
        found |= spec_secrets(spec)
    for model in models:
        if model is not None:
            found |= model_secrets(model)
    return frozenset(found)


def scrub_episode(episode: Episode, secrets: frozenset[str]) -> Episode:
    """``episode`` with every secret masked wherever it appears (the same object when none does)."""
    if not secrets:
        return episode
    data = episode.model_dump(mode="json")
    clean = scrub(data, secrets)
    return episode if clean is data else Episode.model_validate(clean)


def scrub_tools(tools: dict[str, ToolInfo], secrets: frozenset[str]) -> dict[str, ToolInfo]:
    """``tools`` with every secret masked in their descriptions and schemas (the same dict when none appears).

    A server may put its token in what it lists (a description naming its endpoint with ``?key=``); the tool
    catalog is stored, so it is scrubbed like the episode.
    """
    if not secrets:
        return tools
    dumped = {q: t.model_dump(mode="json") for q, t in tools.items()}
    clean = {q: scrub(data, secrets) for q, data in dumped.items()}
    if all(clean[q] is data for q, data in dumped.items()):
        return tools
    return {q: ToolInfo.model_validate(data) for q, data in clean.items()}
