"""Headless Chromium for tests: find the system browser, open offline pages, save screenshots as artifacts.

Usage in a test module (the fixtures are re-exported by tests/conftest.py)::

    def test_page(chromium: Chromium) -> None:
        page = chromium.open("http://127.0.0.1:8123/")      # or a file:// URL
        assert page.locator("h1").inner_text() == "Runs"
        chromium.screenshot(page, "runs")                    # -> $MCPTRIALS_ARTIFACTS/<test module>/runs.png
        assert chromium.blocked == []                        # nothing tried to leave the machine

Every page is offline: any request to a host other than localhost/127.0.0.1/::1 (or file:/data:/blob:) is
aborted and its URL recorded in `Chromium.blocked`. Without a Chromium the fixture skips with the reason.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, Playwright, Route

REPO = Path(__file__).resolve().parents[2]
_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "[::1]"}


def find_chromium() -> str | None:
    """The Chromium executable to drive: $MCPTRIALS_CHROMIUM, /usr/bin/chromium, or one on PATH."""
    explicit = os.environ.get("MCPTRIALS_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).is_file() else None
    if Path("/usr/bin/chromium").is_file():
        return "/usr/bin/chromium"
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def artifacts_dir(*parts: str) -> Path:
    """Where test artifacts go: $MCPTRIALS_ARTIFACTS or `.artifacts/` in the repo (git-ignored); created."""
    root = Path(os.environ.get("MCPTRIALS_ARTIFACTS") or REPO / ".artifacts")
    path = root.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def skip_reason() -> str | None:
    """Why browser tests cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[dev]')"
    if find_chromium() is None:
        return ("no Chromium found (looked at $MCPTRIALS_CHROMIUM, /usr/bin/chromium, and "
                + ", ".join(_CANDIDATES) + " on PATH); install Debian's `chromium` package")
    return None


class Chromium:
    """One launched headless browser; pages it opens are offline and sized for readable screenshots."""

    def __init__(self, executable: str, artifacts: Path, *, width: int = 1400, height: int = 900) -> None:
        from playwright.sync_api import sync_playwright

        self.executable = executable
        self.artifacts = artifacts
        self.blocked: list[str] = []
        self.console_errors: list[str] = []
        self._pw_cm = sync_playwright()
        self._pw: Playwright = self._pw_cm.start()
        try:
            self._browser: Browser = self._pw.chromium.launch(
                executable_path=executable, headless=True, args=["--no-sandbox", "--disable-gpu"])
        except Exception:
            self._pw_cm.__exit__(None, None, None)
            raise
        self._context: BrowserContext = self._browser.new_context(viewport={"width": width, "height": height})
        self._context.route("**/*", self._guard)

    def _guard(self, route: Route) -> None:
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in ("file", "data", "blob", "about") or (parts.hostname or "") in _LOCAL_HOSTS:
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort("internetdisconnected")

    def open(self, url: str, *, wait: str = "load", timeout_ms: float = 15_000) -> Page:
        """A new page at `url` (http(s) or file://), loaded; console errors are collected in `console_errors`."""
        page = self._context.new_page()
        page.on("console", lambda msg: self.console_errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda exc: self.console_errors.append(str(exc)))
        page.goto(url, wait_until=wait, timeout=timeout_ms)  # type: ignore[arg-type]
        return page

    def screenshot(self, page: Page, name: str, *, full_page: bool = True) -> Path:
        """Save a PNG of `page` as an artifact named `name` and return its path."""
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "page"
        path = self.artifacts / f"{safe}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    def close(self) -> None:
        try:
            self._context.close()
            self._browser.close()
        finally:
            self._pw_cm.__exit__(None, None, None)


@pytest.fixture(scope="module")
def chromium(request: Any) -> Iterator[Chromium]:
    """A headless system Chromium for this test module; skips with the reason when none is usable."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    module = request.module.__name__.rsplit(".", 1)[-1]
    exe = find_chromium()
    assert exe is not None
    browser = Chromium(exe, artifacts_dir(module))
    try:
        yield browser
    finally:
        browser.close()
