"""The llama.cpp probe: a build that crashes on this CPU stops `run` with one line and exit code 4, no
traceback and nothing locked; a build that works passes once and is remembered."""

from __future__ import annotations

import importlib.util
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mcptrials.models import llama_probe
from mcptrials.models.base import ProviderError
from mcptrials.models.llama_probe import EXIT_CODE, LlamaBuildError, describe_exit, ensure_llama_runs
from mcptrials.models.local import LocalModel
from mcptrials.models.weights import WeightsError, cache_root, default_model_path

USER_CACHE = cache_root()
"""Where the default model's weights are assembled (read before any test points the cache elsewhere)."""

CRASHING = """
import os, signal
class Llama:
    def __init__(self, **kwargs):
        os.kill(os.getpid(), signal.{signal})
"""
WORKING = """
import os
with open(os.environ["PROBE_MARKER"], "a") as handle:
    handle.write("probed\\n")
class Llama:
    def __init__(self, **kwargs):
        self.kwargs = kwargs
    def create_completion(self, **kwargs):
        return {"choices": [{"text": "hi"}]}
    def close(self):
        pass
"""
REFUSING = """
class Llama:
    def __init__(self, **kwargs):
        raise ValueError("Failed to load model from file: " + kwargs["model_path"])
"""


def _fake_build(root: Path, name: str, source: str) -> Path:
    """A package standing in for llama_cpp, with a shared-library file whose identity is part of the key."""
    package = root / name
    (package / "lib").mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(source), encoding="utf-8")
    (package / "lib" / "libggml-cpu.so").write_bytes(b"\x7fELF not really")
    return package


@pytest.fixture
def probe_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private probe cache and a folder of fake builds on the children's import path."""
    fakes = tmp_path / "fakes"
    fakes.mkdir()
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(fakes), os.environ.get("PYTHONPATH")])))
    monkeypatch.syspath_prepend(str(fakes))  # found here (never imported here), as in a child
    monkeypatch.setenv("MCPTRIALS_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("MCPTRIALS_LLAMA_PROBE", raising=False)
    monkeypatch.setattr(llama_probe, "_checked", set())
    return fakes


def _gguf(tmp_path: Path) -> Path:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF not really")
    return path


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcptrials.cli", "run", *args], capture_output=True, text=True,
                          env={**env, "COLUMNS": "200"}, timeout=300)


def _assert_one_line(done: subprocess.CompletedProcess[str], signal_name: str) -> None:
    assert done.returncode == EXIT_CODE, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    errors = [line for line in done.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1, done.stderr
    line = errors[0]
    assert f"llama.cpp build crashed on this CPU ({signal_name})" in line
    assert 'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --no-cache-dir --force-reinstall --no-deps' in line


def _nothing_stored(db: Path) -> None:
    if not db.exists():
        return
    with sqlite3.connect(db) as conn:
        tables = {r[0] for r in conn.execute("select name from sqlite_master where type='table'")}
        for table in ("run_locks", "runs", "episodes"):
            if table in tables:
                assert conn.execute(f"select count(*) from {table}").fetchone()[0] == 0, table


@pytest.mark.parametrize("signal_name", ["SIGSEGV", "SIGILL"])
def test_a_crashing_build_stops_run_with_one_line_and_leaves_nothing(
        tmp_path: Path, probe_env: Path, signal_name: str) -> None:
    _fake_build(probe_env, "crashing_llama", CRASHING.format(signal=signal_name))
    db = tmp_path / "runs.db"
    env = {**os.environ, "MCPTRIALS_LLAMA_MODULE": "crashing_llama"}
    done = _run(["--model", f"local:{_gguf(tmp_path)}", "--agent", "react", "--task", "cal-001", "--db", str(db)],
                env)
    _assert_one_line(done, signal_name)
    _nothing_stored(db)
    again = _run(["--model", f"local:{_gguf(tmp_path)}", "--task", "cal-001", "--db", str(db)], env)
    _assert_one_line(again, signal_name)  # a crash is never remembered as a pass


def test_the_default_quick_start_reports_a_crashing_build(
        tmp_path: Path, probe_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`mcptrials run` with no options, as the README's quick start runs it."""
    monkeypatch.setenv("MCPTRIALS_CACHE", str(USER_CACHE))  # the default weights live in the user's cache
    try:
        default_model_path()
    except WeightsError as exc:
        pytest.skip(f"the default model's weights are not installed: {exc}")
    _fake_build(probe_env, "crashing_llama", CRASHING.format(signal="SIGSEGV"))
    db = tmp_path / "runs.db"
    done = _run(["--db", str(db)], {**os.environ, "MCPTRIALS_LLAMA_MODULE": "crashing_llama"})
    _assert_one_line(done, "SIGSEGV")
    _nothing_stored(db)


def test_in_process_load_is_guarded_too(tmp_path: Path, probe_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The API (and the judges) load through the same engine: the probe raises before llama.cpp is imported here."""
    _fake_build(probe_env, "crashing_llama", CRASHING.format(signal="SIGSEGV"))
    monkeypatch.setenv("MCPTRIALS_LLAMA_MODULE", "crashing_llama")
    with pytest.raises(LlamaBuildError, match=r"crashed on this CPU \(SIGSEGV\)") as info:
        LocalModel(str(_gguf(tmp_path))).load()
    assert info.value.fatal and "\n" not in str(info.value)
    assert "crashing_llama" not in sys.modules


def test_a_working_build_passes_once_and_the_pass_is_remembered(
        tmp_path: Path, probe_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = _fake_build(probe_env, "working_llama", WORKING)
    marker = tmp_path / "probed.txt"
    monkeypatch.setenv("PROBE_MARKER", str(marker))
    monkeypatch.setenv("MCPTRIALS_LLAMA_MODULE", "working_llama")
    model = _gguf(tmp_path)

    ensure_llama_runs(model)
    assert marker.read_text().count("probed") == 1
    assert (tmp_path / "cache" / "llama-probe.json").is_file()
    monkeypatch.setattr(llama_probe, "_checked", set())  # as a new process would start: only the file remembers
    ensure_llama_runs(model)
    assert marker.read_text().count("probed") == 1

    library = package / "lib" / "libggml-cpu.so"  # a rebuilt library: checked again
    library.write_bytes(b"\x7fELF rebuilt, a different size")
    monkeypatch.setattr(llama_probe, "_checked", set())
    ensure_llama_runs(model)
    assert marker.read_text().count("probed") == 2

    monkeypatch.setattr(llama_probe, "_checked", set())
    monkeypatch.setenv("MCPTRIALS_LLAMA_PROBE", "0")  # switched off: no child at all
    library.write_bytes(b"\x7fELF rebuilt once more, another size")
    ensure_llama_runs(model)
    assert marker.read_text().count("probed") == 2


def test_a_file_llama_cpp_refuses_is_a_load_error_not_a_crash(
        tmp_path: Path, probe_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_build(probe_env, "refusing_llama", REFUSING)
    monkeypatch.setenv("MCPTRIALS_LLAMA_MODULE", "refusing_llama")
    with pytest.raises(ProviderError) as info:
        ensure_llama_runs(_gguf(tmp_path))
    assert not isinstance(info.value, LlamaBuildError)
    assert "could not load" in str(info.value) and "Failed to load model" in str(info.value)
    assert not (tmp_path / "cache" / "llama-probe.json").exists()


def test_no_llama_module_means_no_probe(tmp_path: Path, probe_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPTRIALS_LLAMA_MODULE", "no_such_llama_module")
    ensure_llama_runs(_gguf(tmp_path))  # loading then fails with the install hint, not here


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_the_real_build_passes_with_the_default_model(tmp_path: Path, probe_env: Path) -> None:
    try:
        path = default_model_path(USER_CACHE)
    except WeightsError as exc:
        pytest.skip(f"the default model's weights are not installed: {exc}")
    ensure_llama_runs(path)
    assert (tmp_path / "cache" / "llama-probe.json").is_file()


def test_exit_status_names() -> None:
    assert describe_exit(-11) == "SIGSEGV"
    assert describe_exit(-4) == "SIGILL"
    assert describe_exit(132) == "SIGILL"
    assert describe_exit(1) == "exit 1"


CI_RUN = Path(__file__).parents[2] / ".ci" / "run"


def _ci_probe_block() -> str:
    """The lines of .ci/run from its install through the probe and rebuild."""
    lines = CI_RUN.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("export CMAKE_ARGS="))
    end = next(i for i, line in enumerate(lines) if i > start and line == "fi")
    return "\n".join(lines[start:end + 1])


@pytest.mark.parametrize(("first_exit", "rebuilt", "fixed"),
                         [(0, False, True), (132, True, True), (139, True, True), (1, True, True), (139, True, False)])
def test_ci_installs_portably_and_rebuilds_on_any_failed_probe(tmp_path: Path, first_exit: int,
                                                              rebuilt: bool, fixed: bool) -> None:
    """.ci/run's own lines, with `python` standing in: the first probe exits ``first_exit``; a rebuilt one passes
    when ``fixed``, else CI stops there."""
    log = tmp_path / "calls.log"
    cure = "yes" if fixed else ""
    fake = f"""
set -euo pipefail
python() {{
    echo "CMAKE_ARGS=$CMAKE_ARGS python $*" >> {log}
    case "$*" in
        *llama_probe.py*) if [ -n "{cure}" ] && grep -q -- "--force-reinstall" {log}; then return 0; fi
                          return {first_exit} ;;
    esac
}}
{_ci_probe_block()}
"""
    done = subprocess.run(["bash", "-c", fake], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "CMAKE_ARGS": "-DGGML_NATIVE=ON"})
    assert done.returncode == (0 if fixed else 1), done.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == 'CMAKE_ARGS=-DGGML_NATIVE=OFF python -m pip install -q -e .[dev,local]'
    reinstall = [c for c in calls if "--no-cache-dir --force-reinstall --no-deps llama-cpp-python==" in c]
    assert bool(reinstall) is rebuilt
    assert all(c.startswith("CMAKE_ARGS=-DGGML_NATIVE=OFF ") for c in calls)
    if rebuilt:
        assert f"probe exit {first_exit}" in done.stderr and calls[-1].endswith(".ci/llama_probe.py")
