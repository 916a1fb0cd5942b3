"""The viewer on a store another process is writing (never blocks it, always answers), and tool-result images."""

from __future__ import annotations

import json
import struct
import threading
from pathlib import Path

import httpx
import pytest
from browser import Chromium

from mcptrials.servers.blobs import BlobStore
from mcptrials.store.db import Store

from .conftest import cli, start_view, stop_view
from .copies import clone, copy_store

pytestmark = pytest.mark.slow


def test_pages_stay_up_while_a_run_writes(run_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    store, episodes, scores = copy_store(run_db, db)
    served = start_view(db)
    errors: list[BaseException] = []
    written = 60

    def writer() -> None:
        try:
            for n in range(written):
                base = episodes[n % len(episodes)]
                store.save_episode(*clone(base, scores[base.id], f"live{n:04d}", attempt=100 + n))
        except BaseException as exc:
            errors.append(exc)

    try:
        thread = threading.Thread(target=writer)
        thread.start()
        seen: list[httpx.Response] = []
        with httpx.Client(base_url=served.url, timeout=30) as client:
            while thread.is_alive() or not seen:
                for path in ("/matrix", "/episodes", "/"):
                    response = client.get(path)
                    assert response.status_code == 200, (path, response.text[:500])
                seen.append(response)
            thread.join()
            assert errors == []  # the viewer never locked the writer out
            final = client.get("/matrix").text
            assert f"{len(episodes) + written} episodes" in final
            # a re-score that turns a pass into a failure shows at once (the matrix is not served stale)
            passed = next(e for e in episodes if scores[e.id]["effects"].passed)
            flipped = scores[passed.id]["effects"].model_copy(update={
                "passed": False, "value": 0.0, "failure_codes": ["wrong_arguments"]})
            before = client.get("/matrix?outcome=failed&code=wrong_arguments").text
            store.replace_scores([(passed, [flipped])])
            after = client.get("/matrix?outcome=failed&code=wrong_arguments").text
        assert "No episodes match" in before or f'data-task="{passed.task_id}"' not in before
        assert f'data-task="{passed.task_id}"' in after and "wrong_arguments" in after
    finally:
        stop_view(served)
        store.close()


EVERYTHING = Path.home() / ".cache" / "mcptrials-npm" / "node_modules" / ".bin" / "mcp-server-everything"
IMAGE_TASK = {"id": "img-001", "prompt": "Fetch the tiny test image and say what it shows.", "servers": ["everything"],
              "category": "media", "reference": [{"tool": "everything__get-tiny-image", "args": {}}],
              "spec": {"checkpoints": [{"id": "image", "kind": "tool_effect",
                                        "tools": ["everything__get-tiny-image"]}]}}


def test_tool_result_images_are_shown(tmp_path: Path, chromium: Chromium) -> None:
    """A real run against the reference `everything` MCP server (npm): its image lands in the blob store and
    the episode page draws it."""
    if not EVERYTHING.exists():
        pytest.skip(f"{EVERYTHING} is not installed (.ci/run installs @modelcontextprotocol/server-everything)")
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"everything": {"command": str(EVERYTHING), "args": ["stdio"]}}}))
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(IMAGE_TASK) + "\n")
    db = tmp_path / "media.db"
    cli("run", "--servers", str(servers), "--tasks", str(tasks), "--model", "scripted:reference", "--db", str(db))
    store = Store(db)
    episode = next(store.episodes())
    store.close()
    call = episode.tool_calls[0]
    assert call.attachments and call.attachments[0]["kind"] == "image"
    stored = BlobStore.beside(db).get(call.attachments[0]["sha256"])
    served = start_view(db)
    try:
        page = chromium.open(f"{served.url}/episode/{episode.id}")
        image = page.locator(f"#step-{call.index} figure.media img")
        assert image.count() == 1
        image.scroll_into_view_if_needed()
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
        width, height = struct.unpack(">II", stored[16:24])  # the PNG's own size, from its IHDR chunk
        assert image.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [width, height]
        assert httpx.get(f"{served.url}/blob/{call.attachments[0]['sha256']}?type=image/png").content == stored
        chromium.screenshot(page, "episode_with_image")
        assert httpx.get(f"{served.url}/blob/{'0' * 64}").status_code == 404
        assert httpx.get(f"{served.url}/blob/..%2F..%2Fetc%2Fpasswd").status_code == 404
        assert chromium.blocked == []
    finally:
        stop_view(served)
