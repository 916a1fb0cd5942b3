"""Time the report and exports on a store of N episodes: report --format json|html, export --format inspect|jsonl.

    python bench/report.py [--episodes 5000] [--db PATH]

The store is grown from a small real run the way bench/viewer.py grows it (copied episodes of
scripted-reference and stale runs on v0 and v5, five model names, five attempts). Prints the
wall time of each command (a fresh `mcptrials` process, as a user runs it) and the output size.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MCPTRIALS = str(Path(sys.executable).parent / "mcptrials")


def _viewer_bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_viewer", Path(__file__).with_name("viewer.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def size_of(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=5000)
    parser.add_argument("--db", type=Path, help="Reuse/keep the store here (grown when missing).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        work = Path(tmp)
        db = args.db or work / "bench.db"
        if not db.exists():
            viewer = _viewer_bench()
            seed = work / "seed.db"
            viewer.seed_run(seed)
            viewer.grow(seed, db, args.episodes)
        jobs = {
            "report --format json": (["report", "--format", "json"], work / "report.json"),
            "report --format html": (["report", "--format", "html", "--out", str(work / "report.html")],
                                     work / "report.html"),
            "export --format inspect": (["export", "--format", "inspect", "--out", str(work / "logs")], work / "logs"),
            "export --format jsonl": (["export", "--format", "jsonl", "--out", str(work / "e.jsonl")],
                                      work / "e.jsonl"),
        }
        for label, (cmd, out) in jobs.items():
            t0 = time.perf_counter()
            done = subprocess.run([MCPTRIALS, *cmd, "--db", str(db)], capture_output=True, text=True, check=True)
            elapsed = time.perf_counter() - t0
            if label == "report --format json":
                out.write_text(done.stdout)
            print(f"{label:<26} {elapsed:6.2f} s  {size_of(out) / 1e6:7.2f} MB")


if __name__ == "__main__":
    main()
