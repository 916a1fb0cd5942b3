"""Prompt text files beside this module, loaded once and filled in by placeholder name."""

from __future__ import annotations

import hashlib
import re
from functools import cache
from importlib import resources

_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


@cache
def load_prompt(name: str) -> str:
    """The text of ``prompts/<name>.txt`` (``operators/O5`` names a file in a subfolder)."""
    folder = resources.files("mcptrials.evolve.source").joinpath("prompts")
    path = folder.joinpath(*f"{name}.txt".split("/"))
    return path.read_text(encoding="utf-8")


def render(name: str, **values: str) -> str:
    """Fill ``{placeholder}`` slots of a prompt; braces that name no given value are left alone.

    Raises ``KeyError`` when a value is passed for a slot the prompt does not have, or a
    lowercase slot the prompt has is left without a value, so templates and callers stay in step.
    """
    text = load_prompt(name)
    slots = set(_PLACEHOLDER.findall(text))
    unused = set(values) - slots
    missing = slots - set(values)
    if unused or missing:
        raise KeyError(f"prompt {name!r}: unused values {sorted(unused)}, unfilled slots {sorted(missing)}")
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def prompt_hash(name: str) -> str:
    """A short SHA-256 of a prompt file, recorded with every version it helped make."""
    return hashlib.sha256(load_prompt(name).encode("utf-8")).hexdigest()[:16]
