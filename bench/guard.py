"""What the process guard costs: start-and-stop time of one stdio server with and without it.

Run: python bench/guard.py [ROUNDS]. Prints the median and spread of ``open_toolbox`` (start, list tools, one call,
close) for a cold-started stdio server, guarded (the default) and unguarded (``MCPTRIALS_GUARD=0``).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

from mcptrials.model import ServerSpec
from mcptrials.servers.toolbox import open_toolbox

SERVER = Path(__file__).resolve().parents[1] / "tests" / "robustness" / "hostile_server.py"


async def once() -> float:
    spec = ServerSpec(name="hostile", command=sys.executable, args=[str(SERVER)])
    with tempfile.TemporaryDirectory() as box:
        t0 = time.perf_counter()
        async with open_toolbox([spec], Path(box)) as toolbox:
            await toolbox.call("hostile__echo", {"text": "x"})
        return time.perf_counter() - t0


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    times: dict[str, list[float]] = {"guarded": [], "unguarded": []}
    for _ in range(rounds):  # interleaved, so a change in the machine's load hits both alike
        for label, value in (("guarded", "1"), ("unguarded", "0")):
            os.environ["MCPTRIALS_GUARD"] = value
            times[label].append(anyio.run(once))
    for label, got in times.items():
        print(f"{label:10s} median {statistics.median(got):.3f} s  min {min(got):.3f} s  max {max(got):.3f} s"
              f"  ({rounds} rounds)")
    gaps = [a - b for a, b in zip(times["guarded"], times["unguarded"], strict=True)]
    print(f"added by the guard: median {statistics.median(gaps) * 1000:.0f} ms per server start+stop")


if __name__ == "__main__":
    main()
