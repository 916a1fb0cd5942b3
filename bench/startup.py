"""Start-up time of the bundled servers: each alone, and five at once as in a 5-server episode.

Measured twice in one run: cold (a fresh interpreter per server) and through the warm fork
server (the default). Goals: each server under 1.5 s; a 5-server episode's servers under 2 s.

    python bench/startup.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import anyio

from mcptrials.bundled.world import bundled_servers
from mcptrials.servers import forkserver
from mcptrials.servers.toolbox import open_toolbox

FIVE = ["rail", "weather", "maps", "files", "calendar"]


async def timed(specs: list, sandbox: Path) -> float:
    t0 = time.perf_counter()
    async with open_toolbox(specs, sandbox) as box:
        elapsed = time.perf_counter() - t0
        if box.failures:
            raise SystemExit(f"failed to start: {box.failures}")
    return elapsed


async def measure(repeat: int) -> dict[str, list[float]]:
    specs = bundled_servers()
    out: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        box = Path(tmp) / "sandbox"
        box.mkdir()
        for _ in range(repeat):
            for name, spec in specs.items():
                out.setdefault(name, []).append(await timed([spec], box))
            out.setdefault("5 servers at once", []).append(await timed([specs[n] for n in FIVE], box))
    return out


def main(repeat: int) -> None:
    t0 = time.perf_counter()
    forkserver.shared()
    warmup = time.perf_counter() - t0
    warm = anyio.run(measure, repeat)
    os.environ["MCPTRIALS_FORKSERVER"] = "0"
    cold = anyio.run(measure, repeat)
    print(f"median of {repeat} starts, seconds (fork server warm-up, once per run: {warmup:.2f} s)")
    print(f"{'server':<20}{'cold':>8}{'forked':>8}")
    for name in warm:
        print(f"{name:<20}{statistics.median(cold[name]):>8.2f}{statistics.median(warm[name]):>8.2f}")
    worst = max(statistics.median(v) for k, v in warm.items() if k != "5 servers at once")
    print(f"slowest single server (forked): {worst:.2f} s, goal < 1.5 s; "
          f"5 servers at once (forked): {statistics.median(warm['5 servers at once']):.2f} s, goal < 2 s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    main(parser.parse_args().repeat)
