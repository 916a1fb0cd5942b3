"""What every importer shares: the mapping table, server names, reading their JSON, writing the output folder."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from mcptrials.model import Episode, Task, ToolInfo, server_name_problem
from mcptrials.safety.loading import DocumentError, load_document, load_jsonl

Status = Literal["mapped", "partial", "dropped"]


class ImportError_(ValueError):  # (trailing underscore: ``ImportError`` is a builtin)
    """A source that cannot be imported: missing file, not the format it was said to be."""


@dataclass
class MappingRow:
    """One line of the mapping table: an item of their format and what became of it here."""

    kind: str
    name: str
    status: Status
    reason: str = ""
    needs: str = ""
    """What running it takes beyond this machine: ``api key: X``, ``network``, ``network to install``."""


@dataclass
class Imported:
    """An importer's result: tasks and servers to write, the mapping table, extra files, recorded episodes."""

    fmt: str
    source: str
    tasks: list[dict[str, Any]] = field(default_factory=list)
    servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    rows: list[MappingRow] = field(default_factory=list)
    files: dict[str, Any] = field(default_factory=dict)
    """Further files to write into the output folder (relative path -> JSON data)."""
    episodes: list[Episode] = field(default_factory=list)
    tools: list[ToolInfo] = field(default_factory=list)
    written: list[str] = field(default_factory=list)

    def row(self, kind: str, name: str, status: Status, reason: str = "", needs: str = "") -> None:
        self.rows.append(MappingRow(kind, name, status, reason, needs))

    def counts(self) -> dict[str, dict[str, int]]:
        """Per kind, how many items mapped, partly mapped and were dropped."""
        out: dict[str, dict[str, int]] = {}
        for r in self.rows:
            out.setdefault(r.kind, {"mapped": 0, "partial": 0, "dropped": 0})[r.status] += 1
        return out

    def table(self) -> dict[str, Any]:
        """The mapping table as JSON: counts per kind and every row."""
        return {"format": self.fmt, "source": self.source, "counts": self.counts(),
                "files": self.written, "rows": [asdict(r) for r in self.rows]}


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def server_name(raw: str) -> str:
    """Their server name as one of ours: ``Paper Search`` -> ``paper-search``, ``@a/b`` -> ``a-b``."""
    name = _UNSAFE.sub("-", raw.strip().lower()).strip("-._")
    name = re.sub(r"_{2,}", "_", name)[:64].strip("-._") or "server"
    if server_name_problem(name):
        raise ImportError_(f"cannot name a server after {raw!r}")
    return name


def read_json(path: Path, what: str) -> Any:
    """A JSON document of theirs, or one clear error naming the file."""
    if not path.is_file():
        raise ImportError_(f"{path}: no such file ({what})")
    try:
        return load_document(path)
    except DocumentError as exc:
        raise ImportError_(f"{path}: {exc}") from None


def read_jsonl(path: Path, what: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file, one per non-empty line, or one error naming the line."""
    if not path.is_file():
        raise ImportError_(f"{path}: no such file ({what})")
    try:
        items = load_jsonl(path, what)
    except DocumentError as exc:
        raise ImportError_(str(exc)) from None
    return [expect(item, dict, f"{path}:{number}") for number, item in items]


def expect(value: Any, kind: type, where: str) -> Any:
    """``value`` when it is a ``kind``, else an ImportError naming where."""
    if not isinstance(value, kind):
        raise ImportError_(f"{where}: expected a JSON {kind.__name__}, got {type(value).__name__}")
    return value


def stdio_needs(command: str | None, args: list[str]) -> str:
    """``network to install`` for a server a package runner fetches on start (npx, uvx, git+https), else ''."""
    launcher = Path(command or "").name
    if launcher in {"npx", "uvx", "bunx", "pnpx"} or (launcher == "uv" and args[:2] == ["tool", "run"]):
        return "network to install"
    if any(a.startswith(("git+", "https://", "http://")) for a in args):
        return "network"
    return ""


def write_import(imported: Imported, out: Path) -> None:
    """Write ``tasks.jsonl``, ``servers.json``, the further files and ``mapping.json`` into ``out``.

    Every task is validated here; one that does not validate is dropped with its first error in the table.
    """
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for data in imported.tasks:
        try:
            task = Task.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            imported.row("task", str(data.get("id")), "dropped", f"does not validate: {where}: {first['msg']}")
            continue
        lines.append(task.model_dump_json(exclude_unset=True))
    _write(out, "tasks.jsonl", "".join(line + "\n" for line in lines), imported)
    _write(out, "servers.json", json.dumps({"mcpServers": imported.servers}, indent=2) + "\n", imported)
    for name, data in imported.files.items():
        _write(out, name, data if isinstance(data, str) else json.dumps(data, indent=2) + "\n", imported)
    imported.written.append("mapping.json")
    (out / "mapping.json").write_text(json.dumps(imported.table(), indent=2) + "\n", "utf-8")


def _write(out: Path, name: str, text: str, imported: Imported) -> None:
    path = out / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    imported.written.append(name)
