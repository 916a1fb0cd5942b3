"""Code hunks (MCPEvol-Bench Appendix H.1): the edit format the model writes, parsed and applied.

A hunk names a file of the tree and says what to change in it:

- ``old_code`` non-empty: replace that exact text with ``new_code`` (empty ``new_code`` deletes
  it). When ``old_code`` occurs more than once, ``anchor_code`` picks the occurrence: the first
  one at or after the anchor, else the nearest one before it.
- ``old_code`` empty: insert ``new_code`` on the line after the line where ``anchor_code`` ends;
  the anchor must occur exactly once. A file that does not exist yet may be created by a hunk
  with neither ``old_code`` nor ``anchor_code``.

Matching is exact (whitespace and indentation included). Hunks apply in order, each to the
text the previous ones left. ``apply_hunks`` is all-or-nothing: every hunk is applied in
memory first, and the edited copy of the tree appears at its destination only when all of
them succeeded.
"""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator

from mcptrials.evolve.source.replies import ReplyError, extract_json
from mcptrials.evolve.source.tree import SKIPPED_DIRS, copy_tree, iter_files

HUNK_LIST_KEYS = ("hunks", "diff_hunks", "changes", "edits")
"""Keys under which a reply object may carry its list of hunks."""


class Hunk(BaseModel):
    """One edit of one file: replace ``old_code``, or insert ``new_code`` after ``anchor_code``."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    file_name: str = Field(validation_alias=AliasChoices("file_name", "file", "path", "filename"))
    old_code: str = ""
    new_code: str = ""
    anchor_code: str = ""

    @field_validator("old_code", "new_code", "anchor_code", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value


class HunkError(ValueError):
    """A hunk that cannot be applied; ``index`` is its position in the list (0-based)."""

    def __init__(self, index: int | None, reason: str) -> None:
        where = f"hunk {index + 1}: " if index is not None else ""
        super().__init__(f"{where}{reason}")
        self.index = index
        self.reason = reason


# --------------------------------------------------------------------------- parsing


def hunks_from_value(value: Any) -> list[Hunk]:
    """Read hunks from a parsed reply: a list of hunks, or an object holding one under a known key."""
    if isinstance(value, dict):
        key = next((k for k in HUNK_LIST_KEYS if isinstance(value.get(k), list)), None)
        if key is None:
            raise HunkError(None, f"the reply object has no list of hunks (looked for {', '.join(HUNK_LIST_KEYS)}; "
                                  f"found keys {sorted(value)[:10]})")
        value = value[key]
    if not isinstance(value, list):
        raise HunkError(None, f"expected a list of hunks, got a JSON {type(value).__name__}")
    if not value:
        raise HunkError(None, "the list of hunks is empty")
    hunks: list[Hunk] = []
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise HunkError(index, f"expected an object with file_name/old_code/new_code, got {type(item).__name__}")
        try:
            hunks.append(Hunk.model_validate(item))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "hunk"
            raise HunkError(index, f"{field}: {first['msg']}") from None
    return hunks


def parse_hunks(text: str) -> list[Hunk]:
    """Parse the hunks out of a model reply (JSON, possibly fenced or wrapped in prose)."""
    try:
        value = extract_json(text)
    except ReplyError as exc:
        raise HunkError(None, str(exc)) from None
    return hunks_from_value(value)


# --------------------------------------------------------------------------- locating


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)


def _safe_relative(name: str) -> str:
    cleaned = name.strip().replace("\\", "/")
    while cleaned.startswith("./"):
        cleaned = cleaned[2:]
    if not cleaned or cleaned.endswith("/"):
        raise ValueError(f"file_name {name!r} does not name a file")
    if cleaned.startswith("/") or (len(cleaned) > 1 and cleaned[1] == ":"):
        raise ValueError(f"file_name {name!r} is absolute; give a path inside the server's tree")
    parts = cleaned.split("/")
    if ".." in parts:
        raise ValueError(f"file_name {name!r} leaves the server's tree ('..' is not allowed)")
    if any(p in SKIPPED_DIRS or p.startswith(".") for p in parts):
        raise ValueError(f"file_name {name!r} points into a cache, environment or hidden folder")
    return "/".join(p for p in parts if p)


def resolve_file(root: Path, file_name: str, known: list[str]) -> tuple[str, bool]:
    """Map a hunk's ``file_name`` to a path relative to ``root``; the flag says it exists.

    Tried in turn: the path as given; the path with leading folders dropped (models often
    prefix the server name); the one tree file whose path ends with the given one. Absolute
    paths, ``..`` and paths that resolve outside the tree are refused with ``ValueError``.
    """
    rel = _safe_relative(file_name)
    existing = set(known)
    parts = rel.split("/")
    found: str | None = None
    for drop in range(len(parts)):
        candidate = "/".join(parts[drop:])
        if candidate in existing:
            found = candidate
            break
    if found is None:
        matches = [k for k in known if k.endswith("/" + rel) or k == rel]
        if len(matches) > 1:
            raise ValueError(f"file_name {file_name!r} matches several files: {', '.join(matches[:5])}")
        found = matches[0] if matches else None
    target = found or rel
    resolved = (root / target).resolve()
    base = root.resolve()
    if base not in resolved.parents:
        raise ValueError(f"file_name {file_name!r} resolves outside the server's tree")
    return target, found is not None


def _occurrences(text: str, needle: str) -> list[int]:
    found, start = [], text.find(needle)
    while start >= 0:
        found.append(start)
        start = text.find(needle, start + 1)
    return found


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _not_found_hint(text: str, needle: str) -> str:
    """Say how close the file comes to ``needle``, to help the model fix its hunk."""
    first = next((line.strip() for line in needle.splitlines() if line.strip()), "")
    if not first:
        return ""
    lines = text.splitlines()
    same = [i + 1 for i, line in enumerate(lines) if line.strip() == first]
    if same:
        return (f"; its first line {first[:60]!r} occurs at line {same[0]}, but what follows differs "
                "(check indentation, whitespace and the exact original text)")
    close = difflib.get_close_matches(first, [line.strip() for line in lines], n=1, cutoff=0.75)
    if close:
        number = next(i + 1 for i, line in enumerate(lines) if line.strip() == close[0])
        return f"; the nearest line is {number}: {close[0][:80]!r}"
    return f"; its first line {first[:60]!r} does not occur in the file either"


def _unique(text: str, needle: str, what: str, file: str) -> int:
    places = _occurrences(text, needle)
    if not places:
        raise ValueError(f"{what} not found in {file}{_not_found_hint(text, needle)}")
    if len(places) > 1:
        lines = ", ".join(str(_line_of(text, p)) for p in places[:6])
        raise ValueError(f"{what} occurs {len(places)} times in {file} (lines {lines}); make it unique")
    return places[0]


def _replace(text: str, hunk: Hunk, file: str) -> str:
    places = _occurrences(text, hunk.old_code)
    if not places:
        raise ValueError(f"old_code not found in {file}{_not_found_hint(text, hunk.old_code)}")
    chosen = places[0]
    if len(places) > 1:
        lines = ", ".join(str(_line_of(text, p)) for p in places[:6])
        if not hunk.anchor_code:
            raise ValueError(f"old_code is ambiguous: it occurs {len(places)} times in {file} (lines {lines}); "
                             "give anchor_code to say which one")
        anchor = _unique(text, hunk.anchor_code, "anchor_code", file)
        after = [p for p in places if p >= anchor]
        chosen = after[0] if after else places[-1]
    return text[:chosen] + hunk.new_code + text[chosen + len(hunk.old_code):]


def _insert(text: str, hunk: Hunk, file: str) -> str:
    if not hunk.anchor_code:
        raise ValueError(f"old_code is empty, so anchor_code must give the line(s) to insert after in {file}")
    start = _unique(text, hunk.anchor_code, "anchor_code", file)
    end = start + len(hunk.anchor_code)
    if not hunk.anchor_code.endswith("\n"):
        newline = text.find("\n", end)
        end = len(text) if newline < 0 else newline + 1
    head = text[:end] if text[:end].endswith("\n") or not text[:end] else text[:end] + "\n"
    body = hunk.new_code if hunk.new_code.endswith("\n") else hunk.new_code + "\n"
    return head + body + text[end:]


def _apply_one(text: str, hunk: Hunk, file: str) -> str:
    if hunk.old_code == hunk.new_code:
        raise ValueError("the hunk changes nothing (old_code equals new_code)")
    if hunk.old_code:
        return _replace(text, hunk, file)
    return _insert(text, hunk, file)


def plan_edits(root: Path, hunks: list[Hunk]) -> dict[str, str]:
    """Apply hunks in memory; return the new text of every changed file (relative path -> text).

    Raises ``HunkError`` naming the first hunk that cannot be applied and why.
    """
    if not hunks:
        raise HunkError(None, "there are no hunks to apply")
    known = [p.relative_to(root).as_posix() for p in iter_files(root)]
    texts: dict[str, str] = {}
    originals: dict[str, str | None] = {}
    for index, hunk in enumerate(hunks):
        try:
            rel, exists = resolve_file(root, hunk.file_name, [*known, *texts])
            if rel not in texts:
                if exists:
                    texts[rel] = originals[rel] = _read(root / rel)
                elif hunk.old_code or hunk.anchor_code:
                    raise ValueError(f"file {hunk.file_name!r} does not exist in the server's tree "
                                     f"(files: {', '.join(known[:8])}{' ...' if len(known) > 8 else ''})")
                else:
                    if not hunk.new_code.strip():
                        raise ValueError(f"new file {rel} would be empty")
                    texts[rel], originals[rel] = "", None
            texts[rel] = (_apply_one(texts[rel], hunk, rel) if texts[rel] or hunk.old_code or hunk.anchor_code
                          else hunk.new_code)
        except ValueError as exc:
            raise HunkError(index, str(exc)) from None
    return {rel: text for rel, text in texts.items() if text != originals[rel]}


def apply_hunks(root: Path, hunks: list[Hunk], dest: Path) -> list[str]:
    """Write a copy of the tree at ``root`` to ``dest`` with every hunk applied; return changed files.

    Nothing is left at ``dest`` when any hunk fails (``HunkError``) or writing fails: the copy
    is built beside ``dest`` and renamed into place only once it is complete.
    """
    edits = plan_edits(root, hunks)
    if not edits:
        raise HunkError(None, "the hunks leave every file as it was")
    if dest.exists():
        raise FileExistsError(f"{dest} already exists")
    partial = dest.with_name(dest.name + ".partial")
    if partial.exists():
        shutil.rmtree(partial)
    try:
        copy_tree(root, partial)
        for rel, text in edits.items():
            _write(partial / rel, text)
        os.replace(partial, dest)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return sorted(edits)
