"""Per-call latency of a tool call through mcptrials' server layer vs a bare ``mcp`` client.

Both talk to the same stdio server (the example rail server); calls alternate in blocks so
machine noise hits both alike. Prints medians and their ratio, measured in this one run.

    python bench/overhead.py [--calls 400]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from mcptrials.model import ServerSpec
from mcptrials.servers.toolbox import open_toolbox

ARGS = {"city": "Beijing"}
SERVER = ["-m", "mcptrials.examples.trains_server"]


async def main(calls: int, block: int) -> None:
    layer: list[float] = []
    bare: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        sandbox = Path(tmp) / "sandbox"
        sandbox.mkdir()
        spec = ServerSpec(name="rail", command=sys.executable, args=SERVER)
        params = StdioServerParameters(command=sys.executable, args=SERVER)
        async with open_toolbox([spec], sandbox) as box, Client(params, cache=None) as client:
            for _ in range(20):  # warm both paths
                await box.call("rail__get_station_codes", ARGS)
                await client.call_tool("get_station_codes", ARGS)
            while len(layer) < calls:
                for _ in range(block):
                    t0 = time.perf_counter()
                    await client.call_tool("get_station_codes", ARGS)
                    bare.append(time.perf_counter() - t0)
                for _ in range(block):
                    t0 = time.perf_counter()
                    _, _, out = await box.call("rail__get_station_codes", ARGS)
                    layer.append(time.perf_counter() - t0)
                    assert not out.is_error, out.content
    b, m = statistics.median(bare), statistics.median(layer)
    print(f"calls per path: {len(layer)} (blocks of {block}, alternating)")
    print(f"bare mcp Client      median {b * 1e3:.3f} ms   mean {statistics.mean(bare) * 1e3:.3f} ms")
    print(f"mcptrials Toolbox    median {m * 1e3:.3f} ms   mean {statistics.mean(layer) * 1e3:.3f} ms")
    print(f"ratio (median, layer / bare): {m / b:.3f}   goal <= 1.15")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--block", type=int, default=20)
    ns = parser.parse_args()
    anyio.run(main, ns.calls, ns.block)
