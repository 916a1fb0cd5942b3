"""Measure the embedded default model's speed on this machine: prompt and generation tokens per second.

One run locates (and if needed assembles) the default GGUF, loads it the way the ``local``
provider does (n_ctx 8192, 2 threads by default), evaluates a prompt of about
``--prompt-tokens`` tokens in one batch, then decodes ``--gen-tokens`` tokens one at a time
with greedy sampling. The load average is printed too, since other work on a 2-core machine
changes the figures a lot.

    python bench/local_speed.py [--prompt-tokens 1024] [--gen-tokens 128] [--threads 2] [--fresh-cache]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from mcptrials.models.weights import default_model_path

FILLER = (
    "The rail service lists every train between two stations with its departure time, arrival "
    "time, seat classes and price. Tickets can be searched by date and booked by id. "
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt-tokens", type=int, default=1024)
    parser.add_argument("--gen-tokens", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--fresh-cache", action="store_true",
                        help="assemble the GGUF into a new temporary cache to time assembly and checksum")
    args = parser.parse_args()
    print("command:", " ".join([sys.executable, *sys.argv]))
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    from llama_cpp import Llama

    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        path = default_model_path(Path(scratch) if args.fresh_cache else None)
        what = "assembled and verified" if args.fresh_cache else "located (assembled if absent)"
        print(f"weights: {what} in {time.perf_counter() - start:.2f} s -> {path}")

        start = time.perf_counter()
        llm = Llama(model_path=str(path), n_ctx=args.n_ctx, n_threads=args.threads, seed=0, verbose=False)
        print(f"load: {time.perf_counter() - start:.2f} s (n_ctx={args.n_ctx}, n_threads={args.threads})")

        text = FILLER * (args.prompt_tokens // 30 + 1)
        tokens = llm.tokenize(text.encode(), add_bos=False)[: args.prompt_tokens]
        llm.reset()
        start = time.perf_counter()
        llm.eval(tokens)
        prompt_s = time.perf_counter() - start

        start = time.perf_counter()
        for _ in range(args.gen_tokens):
            token = llm.sample(temp=0.0)
            llm.eval([token])
        gen_s = time.perf_counter() - start
        llm.close()

    print(f"prompt: {len(tokens)} tokens in {prompt_s:.2f} s = {len(tokens) / prompt_s:.1f} tokens/s")
    print(f"generation: {args.gen_tokens} tokens in {gen_s:.2f} s = {args.gen_tokens / gen_s:.1f} tokens/s")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
