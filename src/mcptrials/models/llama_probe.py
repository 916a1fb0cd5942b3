"""Make sure this machine's llama.cpp build runs before the main process loads it.

A llama-cpp-python build compiled for another CPU, or compiled natively under a hypervisor
that reports features it does not fully provide, can die inside ggml with SIGILL or SIGSEGV
the first time it computes. In the runner that would take the whole run down with no word of
why. So before the first load in a process, a child process loads the library and the model and
generates two tokens; if the child dies, ``LlamaBuildError`` says so in one line and names the
command that rebuilds llama.cpp portably.

A pass is remembered in the cache folder (``$MCPTRIALS_CACHE``, else ``~/.cache/mcptrials``),
keyed by the llama-cpp-python version, the identity (path, size, mtime) of its shared libraries,
this CPU's feature flags and the model file, so the check costs nothing the next time.
``MCPTRIALS_LLAMA_PROBE=0`` skips it. ``MCPTRIALS_LLAMA_MODULE`` names a module the child imports
in place of ``llama_cpp`` (used by the tests to stand in a build that crashes).

The child runs ``CHILD_CODE`` with ``python -c``: it imports nothing of mcptrials.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from mcptrials.models.base import ProviderError
from mcptrials.models.weights import cache_root

EXIT_CODE = 4
"""The exit code of a command stopped because the embedded model's llama.cpp build does not run here."""
MODULE_ENV = "MCPTRIALS_LLAMA_MODULE"
SKIP_ENV = "MCPTRIALS_LLAMA_PROBE"
CACHE_FILE = "llama-probe.json"
TIMEOUT_S = 600.0
KEPT_PASSES = 32
_LOAD_FAILED = 10
"""Child exit: llama.cpp refused the file with a Python error (not a crash; the main load says why)."""
_NOT_INSTALLED = 11
_LIBRARY_SUFFIXES = (".so", ".dylib", ".dll")

CHILD_CODE = f"""
import importlib, os, sys
name = os.environ.get({MODULE_ENV!r}) or "llama_cpp"
try:
    module = importlib.import_module(name)
except ImportError as exc:
    print(f"cannot import {{name}}: {{exc}}", flush=True)
    sys.exit({_NOT_INSTALLED})
try:
    llama = module.Llama(model_path=sys.argv[1], n_ctx=512, n_threads=int(sys.argv[2]), seed=0, verbose=False)
except (ValueError, RuntimeError, OSError) as exc:
    print((str(exc).splitlines() or [type(exc).__name__])[0], flush=True)
    sys.exit({_LOAD_FAILED})
llama.create_completion(prompt="Say hi.", max_tokens=2, temperature=0.0)
llama.close()
"""
"""The child: import llama.cpp, load the model, write two tokens; exit 0, or die trying."""


class LlamaBuildError(ProviderError):
    """The llama.cpp build crashed (or hung) in the probe: loading it here would kill this process."""

    def __init__(self, message: str) -> None:
        super().__init__("model_not_found", message)


_checked: set[str] = set()
_checked_lock = threading.Lock()


def module_name() -> str:
    """The module that provides llama.cpp: ``llama_cpp`` unless $MCPTRIALS_LLAMA_MODULE names another."""
    return os.environ.get(MODULE_ENV) or "llama_cpp"


def rebuild_command() -> str:
    """The pip command that rebuilds the installed llama-cpp-python for any x86-64 CPU."""
    try:
        pin = f"llama-cpp-python=={metadata.version('llama_cpp_python')}"
    except metadata.PackageNotFoundError:
        pin = "llama-cpp-python"
    return f'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --no-cache-dir --force-reinstall --no-deps {pin}'


def ensure_llama_runs(model_path: Path, n_threads: int = 2,
                      notify: Callable[[str], None] | None = None) -> None:
    """Return once this build is known to run ``model_path`` here; raise LlamaBuildError if it crashed.

    Does nothing when llama.cpp is not installed (loading then fails with the install hint), when
    $MCPTRIALS_LLAMA_PROBE is 0, or when the same build, CPU and model passed before.
    ``notify`` is told, in one line, when the probe actually has to run.
    """
    if os.environ.get(SKIP_ENV, "").strip() in {"0", "off", "no", "false"}:
        return
    name = module_name()
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return
    key = probe_key(name, spec, model_path)
    with _checked_lock:
        if key in _checked:
            return
        if key in _load_passes():
            _checked.add(key)
            return
        if notify is not None:
            notify("checking once that the embedded model's llama.cpp build runs on this machine")
        _probe(model_path, n_threads)
        _remember(key, name)
        _checked.add(key)


def probe_key(name: str, spec: Any, model_path: Path) -> str:
    """A digest of everything a pass depends on: build, libraries, CPU, model file."""
    try:
        version = metadata.version("llama_cpp_python") if name == "llama_cpp" else ""
    except metadata.PackageNotFoundError:
        version = ""
    parts = {"module": name, "version": version, "libraries": _libraries(spec), "cpu": cpu_flags(),
             "machine": platform.machine(), "python": sys.version.split()[0], "model": _identity(model_path)}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def cpu_flags() -> str:
    """This CPU's model and feature flags (Linux: /proc/cpuinfo), hashed."""
    found = platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            lines = handle.read(200_000).splitlines()
    except OSError:
        lines = []
    picked = [line.split(":", 1)[1].strip() for line in lines
              if line.split(":", 1)[0].strip() in {"flags", "model name", "Features", "CPU part"}]
    if picked:
        found = "|".join(sorted(set(picked)))
    return hashlib.sha256(found.encode()).hexdigest()[:16]


def _identity(path: Path) -> list[Any]:
    try:
        stat = path.stat()
    except OSError:
        return [str(path)]
    return [str(path.resolve()), stat.st_size, stat.st_mtime_ns]


def _libraries(spec: Any) -> list[list[Any]]:
    """Path, size and mtime of each shared library in the module's package (or of the module file)."""
    locations = list(spec.submodule_search_locations or [])
    if not locations:
        return [_identity(Path(spec.origin))] if spec.origin else []
    found = []
    for root in locations:
        for path in sorted(Path(root).rglob("*")):
            name = path.name
            if path.is_file() and any(s in name for s in _LIBRARY_SUFFIXES):
                found.append(_identity(path))
            if len(found) >= 64:
                break
    if not found and spec.origin:
        found.append(_identity(Path(spec.origin)))
    return found


def _cache_file() -> Path:
    return cache_root() / CACHE_FILE


def _load_passes() -> dict[str, Any]:
    try:
        data = json.loads(_cache_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    passes = data.get("passed") if isinstance(data, dict) else None
    return passes if isinstance(passes, dict) else {}


def _remember(key: str, name: str) -> None:
    """Add a pass to the cache file (written whole, then renamed into place); a failure to write is harmless."""
    passes = _load_passes()
    passes[key] = {"module": name, "at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    kept = dict(list(passes.items())[-KEPT_PASSES:])
    target = _cache_file()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=target.parent, prefix=".llama-probe-", suffix=".json",
                                         delete=False, encoding="utf-8") as handle:
            json.dump({"passed": kept}, handle, indent=1)
        os.replace(handle.name, target)
    except OSError:
        return


def _probe(model_path: Path, n_threads: int) -> None:
    """Run the child; raise LlamaBuildError if it crashed, ProviderError if llama.cpp refused the file."""
    # -P: a llama_cpp.py in the current folder is not imported in place of the real one
    command = [sys.executable, "-P", "-c", CHILD_CODE, str(model_path), str(max(1, n_threads))]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S,
                              stdin=subprocess.DEVNULL, errors="replace")
    except subprocess.TimeoutExpired:
        raise LlamaBuildError(
            f"the embedded model's llama.cpp build did not finish a two-token test in {TIMEOUT_S:.0f}s on this "
            f"machine; if it keeps hanging, rebuild it portably: {rebuild_command()}") from None
    if done.returncode == 0:
        return
    said = _last_line(done.stdout)
    if done.returncode == _LOAD_FAILED:
        raise ProviderError("model_not_found", f"llama.cpp could not load {model_path}: {said}")
    if done.returncode == _NOT_INSTALLED:
        raise ProviderError("model_not_found", f"the local provider needs llama-cpp-python ({said}); "
                                               "install it with pip install 'mcptrials[local]'")
    raise LlamaBuildError(f"the embedded model's llama.cpp build crashed on this CPU ({describe_exit(done.returncode)}"
                          f"{': ' + _last_line(done.stderr) if done.returncode > 0 and done.stderr.strip() else ''}); "
                          f"rebuild it portably: {rebuild_command()}")


def describe_exit(returncode: int) -> str:
    """``SIGSEGV`` for a child killed by signal 11, ``exit 1`` for a plain failure."""
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    if returncode > 128:  # a shell in between reports a signal as 128 + N
        try:
            return signal.Signals(returncode - 128).name
        except ValueError:
            pass
    return f"exit {returncode}"


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""
