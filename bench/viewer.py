"""Viewer page load times on a store of 5,000 episodes (goal: every page under 1 s).

The store is grown from a real run: a scripted reference model (react) and the stale agent play
10 bundled tasks on v0 and v5 (real servers), then their episodes and scores are copied under 100
task ids x 5 models x 2 versions x 5 attempts (plus the task definitions), written through the store's
API. `mcptrials view` is started on it and each page is fetched over HTTP several times.

    python bench/viewer.py [--episodes 5000] [--repeats 5] [--db PATH] [--browser /usr/bin/chromium]

With ``--browser`` each page is also loaded in headless Chromium (Playwright) and the time to its
``load`` event is printed: server render, transfer, parse, layout and the page's CSS/JS.
"""

from __future__ import annotations

import argparse
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from mcptrials.store.db import Store

MCPTRIALS = str(Path(sys.executable).parent / "mcptrials")
MODELS = ["openai:gpt-4o-mini", "anthropic:claude-x", "vllm:qwen-32b", "local:", "openai:gpt-4.1"]


def seed_run(db: Path) -> None:
    """A small real run: 10 bundled tasks at v0 and v5, scripted reference (react) and stale agent."""
    for args in (["--model", "scripted:reference"], ["--agent", "stale"]):
        subprocess.run([MCPTRIALS, "run", *args, "--stages", "v0,v5", "--limit", "10", "--db", str(db)],
                       check=True, capture_output=True, text=True)


def grow(seed: Path, db: Path, target: int) -> int:
    """Copy the seed run's episodes into ``db`` until it holds ``target`` episodes; returns the count."""
    src = Store(seed)
    episodes = list(src.episodes())
    scores = src.scores()
    tasks = src.tasks()
    src.close()
    rng = random.Random(7)
    by_version: dict[str, list] = {}
    for e in episodes:
        by_version.setdefault(e.version, []).append(e)
    versions = sorted(by_version)
    attempts = 5
    n_tasks = max(1, target // (len(MODELS) * len(versions) * attempts))
    out = Store(db)
    count = 0
    t0 = time.perf_counter()
    for t in range(n_tasks):
        base = rng.choice(by_version[versions[0]]).task_id
        task_id = f"{base}-x{t:03d}"
        out.save_tasks([task.model_copy(update={"id": task_id}) for (tid, _), task in tasks.items() if tid == base])
        for m, model in enumerate(MODELS):
            run_id = f"bench-{model}"
            for version in versions:
                pool = [e for e in by_version[version] if e.task_id == base] or by_version[version]
                for attempt in range(attempts):
                    template = rng.choice(pool)
                    new_id = f"{t:03d}{m}{version}{attempt}-{template.id[:8]}"
                    agent = template.agent
                    episode = template.model_copy(update={"id": new_id, "run_id": run_id, "task_id": task_id,
                                                          "model": model, "attempt": attempt, "agent": agent})
                    copied = [s.model_copy(update={"episode_id": new_id}) for s in scores.get(template.id, {}).values()]
                    out.save_episode(episode, copied)
                    count += 1
    for model in MODELS:
        out.save_run(f"bench-{model}", "bench", {"model": model, "note": "copied episodes for bench/viewer.py"})
    print(f"wrote {count} episodes ({n_tasks} tasks x {len(MODELS)} models x {len(versions)} versions x "
          f"{attempts} attempts) in {time.perf_counter() - t0:.1f} s")
    out.close()
    return count


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def browser_times(base: str, pages: dict[str, str], repeats: int, executable: str) -> dict[str, list[float]]:
    """Time to the ``load`` event of each page in headless Chromium."""
    from playwright.sync_api import sync_playwright

    times: dict[str, list[float]] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(base + "/")
        for name, path in pages.items():
            for _ in range(repeats):
                t = time.perf_counter()
                page.goto(base + path, wait_until="load")
                times.setdefault(name, []).append(time.perf_counter() - t)
        browser.close()
    return times


def measure(db: Path, repeats: int, browser: str | None = None) -> dict[str, dict[str, list[float]]]:
    port = free_port()
    proc = subprocess.Popen([MCPTRIALS, "view", "--db", str(db), "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            deadline = time.monotonic() + 60
            while True:
                try:
                    client.get("/")
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            store = Store(db)
            ids = [e.id for e, _ in zip(store.episodes(), range(2000), strict=False)]
            store.close()
            a = next(i for i in ids if "v0" in i)
            b = next(i for i in ids if "v5" in i)
            pages = {
                "runs": "/", "matrix": "/matrix", "matrix page 2": "/matrix?page=2",
                "matrix failed": "/matrix?outcome=failed", "matrix by code": "/matrix?code=missing_effect",
                "matrix one model": f"/matrix?model={MODELS[0]}", "episodes": "/episodes",
                "episodes page 30": "/episodes?page=30", "episode": f"/episode/{a}",
                "episode (prefix)": f"/episode/{b[:8]}",
                "diff": f"/diff?a={a}&b={b}",
            }
            times: dict[str, list[float]] = {}
            for name, path in pages.items():
                for _ in range(repeats):
                    t = time.perf_counter()
                    response = client.get(path)
                    times.setdefault(name, []).append(time.perf_counter() - t)
                    if response.status_code != 200:
                        raise SystemExit(f"{path}: HTTP {response.status_code}")
            out = {"HTTP": times}
            if browser:
                out["Chromium load"] = browser_times(base, pages, repeats, browser)
            return out
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--db", type=Path, help="Reuse/keep the store here (grown when missing).")
    parser.add_argument("--browser", help="Also time each page's load in this Chromium (e.g. /usr/bin/chromium).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "bench.db"
        if not db.exists():
            seed = Path(tmp) / "seed.db"
            t0 = time.perf_counter()
            seed_run(seed)
            print(f"seed run (10 tasks x v0,v5 x 2 agents, real servers): {time.perf_counter() - t0:.1f} s")
            grow(seed, db, args.episodes)
        print(f"store: {db} ({db.stat().st_size / 1e6:.1f} MB)")
        results = measure(db, args.repeats, args.browser)
    for how, times in results.items():
        worst = 0.0
        print(f"\n{how}: {'page':<20} {'median':>9} {'max':>9}   (over {args.repeats} loads)")
        for name, values in times.items():
            worst = max(worst, max(values))
            print(f"{'':<{len(how) + 2}}{name:<20} {statistics.median(values) * 1000:>7.0f} ms "
                  f"{max(values) * 1000:>7.0f} ms")
        print(f"slowest ({how}): {worst * 1000:.0f} ms -> {'OK' if worst < 1 else 'OVER'} the 1 s goal")


if __name__ == "__main__":
    main()
