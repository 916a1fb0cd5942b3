"""The generation prompts (files in ``prompts/``), their versions, and asking a model for checked JSON.

Asking reuses the judges' careful path (``JudgeModel.ask``): the JSON object is read out of the
reply however it is wrapped, validated, and a malformed reply is re-asked a bounded number of
times; a reply never made usable becomes ``Rejected`` at the asking stage, never a crash.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from string import Template
from typing import Any

from mcptrials.generate.draft import Rejected
from mcptrials.judges.base import JudgeModel, MalformedReply

VERSION = "1"


@cache
def prompt_text(name: str) -> str:
    """A prompt file of this package."""
    return resources.files("mcptrials.generate").joinpath("prompts", name).read_text("utf-8")


def render(name: str, **values: Any) -> str:
    """Fill a prompt file's ``$placeholders``."""
    return Template(prompt_text(name)).substitute({k: str(v) for k, v in values.items()})


def prompt_versions(*names: str) -> dict[str, str]:
    """A short content hash per prompt file: provenance records which wording made a task."""
    return {name: hashlib.sha256(prompt_text(name).encode()).hexdigest()[:12] for name in names}


def personas() -> list[str]:
    """The personas goal generation varies its phrasing with."""
    return [line.strip() for line in prompt_text("personas.txt").splitlines() if line.strip()]


async def ask(model: JudgeModel, stage: str, system: str, user: str,
              validate: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """The validated JSON reply of one stage, or ``Rejected(stage, why)`` after bounded retries."""
    answer = await model.ask(f"generate-{stage}", VERSION, system, user, validate)
    if not answer.ok or answer.data is None:
        raise Rejected(stage, answer.error or "no usable reply")
    return answer.data


def need_text(data: dict[str, Any], key: str, *, min_words: int = 1) -> str:
    """A non-empty text field (at least ``min_words`` words); ``MalformedReply`` otherwise."""
    value = data.get(key)
    if not isinstance(value, str) or len(value.split()) < min_words:
        raise MalformedReply(f"{key!r} must be a text of at least {min_words} word(s)")
    return value.strip()


def _leading_name(text: str) -> str:
    """``weather (live_read; travel)`` -> ``weather``, ``files__write_file`` -> ``files``: a server named loosely."""
    match = re.match(r"\s*[-*]?\s*([\w.-]+)", text)
    return match.group(1).split("__", 1)[0] if match else text


def need_names(data: dict[str, Any], key: str, allowed: list[str]) -> list[str]:
    """A list of names, each one of ``allowed`` (absent or empty: none)."""
    value = data.get(key) or []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise MalformedReply(f"{key!r} must be a list of names")
    value = [v if v in allowed else _leading_name(v) for v in value]
    unknown = [v for v in value if v not in allowed]
    if unknown:
        raise MalformedReply(f"{key!r} names unknown {', '.join(unknown)} (choose from {', '.join(allowed)})")
    return list(dict.fromkeys(value))
