"""Source trees of Python MCP servers: which files belong, how to copy them, how to start them.

A source tree is a folder holding a server's code (for a bundled server: its module, the
package modules it imports, the data files it names, under their package paths). A
``SourceServer`` says how to start the server held by a tree; ``at(root)`` points the same
entry at another tree, so version ``vk`` runs from ``vk``'s own copy and never from the
installed package.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

import mcptrials
from mcptrials.model import ServerSpec

SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".venv", "venv", "node_modules", ".mypy_cache",
                          ".ruff_cache", ".pytest_cache", "site-packages"})
"""Folders never read, copied or edited as part of a source tree."""


def iter_files(root: Path) -> Iterator[Path]:
    """Every file of the tree (skipping caches and environments), in a stable order."""
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part in SKIPPED_DIRS or part.startswith(".") for part in rel.parts):
            continue
        if path.is_file():
            yield path


def python_files(root: Path) -> list[Path]:
    """The tree's ``.py`` files, in a stable order."""
    return [p for p in iter_files(root) if p.suffix == ".py"]


def copy_tree(source: Path, dest: Path) -> None:
    """Copy a source tree to ``dest`` (which must not exist), leaving caches behind."""
    if dest.exists():
        raise FileExistsError(f"{dest} already exists")
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(*SKIPPED_DIRS, "*.pyc"))


class SourceServer(BaseModel):
    """How to start the MCP server a source tree holds: a module run with ``-m``, or a script file."""

    model_config = ConfigDict(extra="forbid")

    name: str
    root: Path
    module: str | None = None
    script: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    description: str = ""

    @model_validator(mode="after")
    def _one_entry(self) -> SourceServer:
        if (self.module is None) == (self.script is None):
            raise ValueError("a source server needs exactly one of module or script")
        return self

    def at(self, root: Path) -> SourceServer:
        """The same server, started from another copy of its tree."""
        return self.model_copy(update={"root": Path(root)})

    def spec(self, version: str = "v0") -> ServerSpec:
        """The spec that starts this tree's server over stdio, importing from the tree first."""
        root = self.root.resolve()
        inherited = os.environ.get("PYTHONPATH", "")
        path = os.pathsep.join(p for p in (str(root), self.env.get("PYTHONPATH", ""), inherited) if p)
        env = {"PYTHONDONTWRITEBYTECODE": "1", **self.env, "PYTHONPATH": path}
        if self.module is not None:
            args = ["-m", self.module, *self.args]
        else:
            assert self.script is not None
            args = [str(root / self.script), *self.args]
        return ServerSpec(name=self.name, command=sys.executable, args=args, env=env,
                          source_path=str(root), version=version)

    def module_origin(self) -> Path | None:
        """Where the entry module is found with this tree's import path (None when not found).

        Used to make sure a copied server runs its copy, not an installed module of the same
        name. Only the parent packages are imported, never the server module itself.
        """
        if self.module is None:
            assert self.script is not None
            return (self.root / self.script).resolve()
        probe = ("import importlib.util, sys\n"
                 "spec = importlib.util.find_spec(sys.argv[1])\n"
                 "print(spec.origin if spec and spec.origin else '')")
        spec = self.spec()
        env = {**os.environ, **spec.env}
        done = subprocess.run([sys.executable, "-c", probe, self.module], env=env, cwd=str(self.root),
                              capture_output=True, text=True, timeout=60, check=False)
        origin = done.stdout.strip()
        return Path(origin).resolve() if done.returncode == 0 and origin else None


# --------------------------------------------------------------------------- bundled servers


def _package_root() -> Path:
    """The folder that holds the installed ``mcptrials`` package."""
    return Path(mcptrials.__file__).resolve().parent.parent


def _module_file(root: Path, module: str) -> Path | None:
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imported_modules(path: Path, module: str) -> set[str]:
    """Absolute names of modules a file imports (relative imports resolved), submodules included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _strings(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def copy_module_closure(module: str, dest: Path, *, package: str = "mcptrials",
                        data_package: str | None = "mcptrials.bundled.data") -> list[Path]:
    """Copy ``module`` and every module of ``package`` it imports, transitively, into ``dest``.

    Package ``__init__`` files along each path come too, so imports work from the copy. Files
    of ``data_package`` whose names appear as string literals in a copied module are copied as
    data. Returns the copied files relative to ``dest``.
    """
    root = _package_root()
    todo, seen = [module], set[str]()
    files: set[Path] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = _module_file(root, name)
        if path is None:
            continue
        files.add(path)
        parts = name.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))
        todo.extend(m for m in _imported_modules(path, name) if m == package or m.startswith(package + "."))
    if data_package is not None:
        data_dir = root.joinpath(*data_package.split("."))
        names = set().union(*(_strings(p) for p in files if p.suffix == ".py"))
        present = {p.name for p in data_dir.iterdir() if p.is_file()} if data_dir.is_dir() else set()
        wanted = [data_dir / n for n in sorted(names & present) if not n.endswith(".py")]
        if wanted:
            files.update(wanted)
            init = _module_file(root, data_package)
            files.update(p for p in [init] if p is not None)
            todo = [".".join(data_package.split(".")[:i]) for i in range(1, data_package.count(".") + 1)]
            files.update(p for p in (_module_file(root, m) for m in todo) if p is not None)
    copied: list[Path] = []
    for path in sorted(files):
        rel = path.relative_to(root)
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
        copied.append(rel)
    return copied


def bundled_source(name: str, dest: Path, description: str = "") -> SourceServer:
    """Copy bundled server ``name`` (its module, the modules it imports, its data) into ``dest``."""
    module = f"mcptrials.bundled.servers.{name}"
    if _module_file(_package_root(), module) is None:
        raise ValueError(f"no bundled server named {name!r}")
    dest.mkdir(parents=True, exist_ok=True)
    copy_module_closure(module, dest)
    if not description:
        text = (dest / "mcptrials" / "bundled" / "servers" / f"{name}.py").read_text(encoding="utf-8")
        description = _module_description(text)
    return SourceServer(name=name, root=dest, module=module, description=description)


def _module_description(text: str) -> str:
    """The ``DESCRIPTION`` constant of a bundled server, else its module docstring's first line."""
    tree = ast.parse(text)
    for node in tree.body:
        if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "DESCRIPTION"
                                                 for t in node.targets)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            return node.value.value
    doc = ast.get_docstring(tree) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def source_server_for(spec: ServerSpec, dest: Path) -> SourceServer:
    """The source tree of a configured server, for source-level evolution (Python servers only)."""
    if "bundled" in spec.tags:
        return bundled_source(spec.name, dest)
    if spec.transport != "stdio" or not spec.command:
        raise ValueError(f"server {spec.name!r}: source mode needs a stdio Python server; use --mode interface")
    if spec.args[:1] == ["-m"] and len(spec.args) >= 2 and spec.source_path:
        return SourceServer(name=spec.name, root=Path(spec.source_path), module=spec.args[1], args=spec.args[2:],
                            env=dict(spec.env))
    script = next((a for a in spec.args if a.endswith(".py")), None)
    if script is None:
        raise ValueError(f"server {spec.name!r}: cannot find its Python source (give 'source_path' in the config, "
                         "or use --mode interface)")
    path = Path(script) if Path(script).is_absolute() else Path(spec.cwd or ".") / script
    at = spec.args.index(script)
    return SourceServer(name=spec.name, root=path.parent.resolve(), script=path.name, args=spec.args[at + 1:],
                        env=dict(spec.env))
