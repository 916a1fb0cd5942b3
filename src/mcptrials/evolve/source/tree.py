"""Source trees of MCP servers (Python, or JavaScript run by node): which files belong, how to copy and start them.

A source tree is a folder holding a server's code (for a bundled server: its module, the
package modules it imports, the data files it names, under their package paths; for a package
installed from PyPI: its top-level package; for an npm server: its package folder, with a
``node_modules`` link to the dependencies it was installed with). A ``SourceServer`` says how
to start the server held by a tree; ``at(root)`` points the same entry at another tree, so
version ``vk`` runs from ``vk``'s own copy and never from the installed package.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

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


JS_SUFFIXES = frozenset({".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx"})
"""Files read as JavaScript or TypeScript source."""


def script_files(root: Path) -> list[Path]:
    """The tree's JavaScript and TypeScript files (declaration files left out), in a stable order."""
    return [p for p in iter_files(root) if p.suffix in JS_SUFFIXES and not p.name.endswith(".d.ts")]


def copy_tree(source: Path, dest: Path) -> None:
    """Copy a source tree to ``dest`` (which must not exist), leaving caches behind.

    A ``node_modules`` link at the top (an npm server's installed dependencies) is linked again,
    never copied, so every version imports the same dependencies.
    """
    if dest.exists():
        raise FileExistsError(f"{dest} already exists")
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(*SKIPPED_DIRS, "*.pyc"))
    modules = source / "node_modules"
    if modules.is_symlink():
        (dest / "node_modules").symlink_to(modules.readlink())


Runtime = Literal["python", "node"]


class SourceServer(BaseModel):
    """How to start the MCP server a source tree holds: a module run with ``-m``, or a script file (Python or node)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    root: Path
    module: str | None = None
    script: str | None = None
    runtime: Runtime = "python"
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    description: str = ""

    @model_validator(mode="after")
    def _one_entry(self) -> SourceServer:
        if (self.module is None) == (self.script is None):
            raise ValueError("a source server needs exactly one of module or script")
        if self.runtime == "node" and self.script is None:
            raise ValueError("a node server is started from a script file")
        return self

    def entry(self) -> dict[str, str | None]:
        """What identifies the entry point across copies of the tree: runtime, module or script, npm package name."""
        return {"runtime": self.runtime, "module": self.module, "script": self.script,
                "package": _package_name(self.root) if self.runtime == "node" else None}

    def entry_text(self) -> str:
        """The entry point in words, for messages: ``python -m x``, ``node dist/index.js (package p)``."""
        return describe_entry(self.entry())

    def at(self, root: Path) -> SourceServer:
        """The same server, started from another copy of its tree."""
        return self.model_copy(update={"root": Path(root)})

    def spec(self, version: str = "v0") -> ServerSpec:
        """The spec that starts this tree's server over stdio, importing from the tree first."""
        root = self.root.resolve()
        if self.runtime == "node":
            assert self.script is not None
            return ServerSpec(name=self.name, command=shutil.which("node") or "node",
                              args=[str(root / self.script), *self.args], env=dict(self.env),
                              source_path=str(root), version=version)
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
    """The source tree of a configured server, for source-level evolution.

    Bundled servers and packages installed in site-packages are copied into ``dest`` (their
    own folders hold much more than the server); a script, a ``source_path`` or an npm package
    folder is used where it is.
    """
    if "bundled" in spec.tags:
        return bundled_source(spec.name, dest)
    found = locate_source(spec)
    if found.runtime == "node":
        modules = node_modules_of(found.root)
        copy_tree(found.root, dest)
        if modules is not None:
            (dest / "node_modules").symlink_to(modules)
        return found.at(dest)
    if found.module is not None and not spec.source_path:
        top = found.module.split(".")[0]
        dest.mkdir(parents=True, exist_ok=True)
        copy_tree(found.root / top, dest / top)
        return found.at(dest)
    return found


def locate_source(spec: ServerSpec) -> SourceServer:
    """Where a configured stdio server's code is and how it is started, without copying anything.

    Recognised: ``python -m module`` (with ``source_path``, or a module importable here, e.g.
    installed from PyPI), ``python script.py``, a console script that imports its server from a
    package (``mcp-server-time``), ``node script.js``, and an npm bin link or script (``mcp-server-memory``).
    """
    if "bundled" in spec.tags and spec.args[:1] == ["-m"] and len(spec.args) >= 2:
        return SourceServer(name=spec.name, root=_package_root(), module=spec.args[1], args=spec.args[2:])
    if spec.transport != "stdio" or not spec.command:
        raise ValueError(f"server {spec.name!r}: source mode needs a stdio server started by a command; "
                         "use --mode interface")
    env = dict(spec.env)
    command = Path(spec.command).name
    if spec.args[:1] == ["-m"] and len(spec.args) >= 2:
        module, rest = spec.args[1], spec.args[2:]
        root = Path(spec.source_path) if spec.source_path else _installed_root(module)
        if root is None:
            raise ValueError(f"server {spec.name!r}: module {module!r} is not importable here (give 'source_path' "
                             "in the config, or use --mode interface)")
        return SourceServer(name=spec.name, root=root, module=module, args=rest, env=env)
    script = next((a for a in spec.args if Path(a).suffix == ".py"), None)
    if script is not None and command.startswith("python"):
        path = _absolute(script, spec.cwd)
        at = spec.args.index(script)
        return SourceServer(name=spec.name, root=path.parent, script=path.name, args=spec.args[at + 1:], env=env)
    js = next((a for a in spec.args if Path(a).suffix in JS_SUFFIXES), None)
    if command in {"node", "nodejs"} and js is not None:
        return _node_server(spec.name, _absolute(js, spec.cwd), spec.args[spec.args.index(js) + 1:], env)
    launcher = Path(shutil.which(spec.command) or spec.command)
    if launcher.is_file():
        target = launcher.resolve()
        if target.suffix in JS_SUFFIXES or _shebang(target).endswith("node"):
            return _node_server(spec.name, target, list(spec.args), env)
        launched = _console_script_module(target)
        root = _installed_root(launched) if launched else None
        if launched and root is not None:
            return SourceServer(name=spec.name, root=root, module=launched, args=list(spec.args), env=env)
    raise ValueError(f"server {spec.name!r}: cannot find its Python or JavaScript source (give 'source_path' in "
                     "the config, run it as `python -m module`, `node file.js` or an installed bin, or use "
                     "--mode interface)")


def _absolute(path: str, cwd: str | None) -> Path:
    return (Path(path) if Path(path).is_absolute() else Path(cwd or ".") / path).resolve()


def _shebang(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            first = handle.readline(200).decode("utf-8", errors="replace").strip()
    except OSError:
        return ""
    return first.removeprefix("#!").split()[-1] if first.startswith("#!") and first[2:].split() else ""


def _console_script_module(path: Path) -> str | None:
    """The package a pip console script starts (``from mcp_server_time import main``), if it has a ``__main__``."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError):
        return None
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            return node.module
    return None


def _installed_root(module: str) -> Path | None:
    """The folder ``module`` is imported from here (site-packages for a PyPI install), when it runs with ``-m``."""
    import importlib.util

    top = module.split(".")[0]
    try:
        found = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if found is None or not found.submodule_search_locations:
        return None
    package = Path(next(iter(found.submodule_search_locations))).resolve()
    return package.parent if (package / "__main__.py").is_file() or module != top else None


def _node_server(name: str, script: Path, args: list[str], env: dict[str, str]) -> SourceServer:
    """An npm server: its package folder (the nearest ``package.json`` above the script) as the tree."""
    package = next((p for p in script.parents if (p / "package.json").is_file()), script.parent)
    return SourceServer(name=name, root=package, script=script.relative_to(package).as_posix(), runtime="node",
                        args=args, env=env)


def node_modules_of(root: Path) -> Path | None:
    """The ``node_modules`` folder a package at ``root`` resolves its imports from (its own, else an ancestor's)."""
    for folder in [root, *root.parents]:
        candidate = folder / "node_modules"
        if candidate.is_dir() and (folder != root or any(candidate.iterdir())):
            return candidate.resolve()
    return None


def _package_name(root: Path) -> str | None:
    """The ``name`` in the tree's ``package.json`` (None when it has none)."""
    import json

    try:
        name = json.loads((root / "package.json").read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError, AttributeError):
        return None
    return name if isinstance(name, str) else None


def describe_entry(entry: dict[str, str | None]) -> str:
    """An entry point (as ``SourceServer.entry`` gives it, or a manifest records it) in words."""
    runtime = entry.get("runtime") or "python"
    text = f"{runtime} -m {entry.get('module')}" if entry.get("module") else f"{runtime} {entry.get('script')}"
    return text + (f" (package {entry['package']})" if entry.get("package") else "")
