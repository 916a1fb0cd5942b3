"""An offline web: fetch and search a shipped corpus of pages, and publish pages of your own.

The corpus is about forty short pages (a company handbook, a shop, market news, recipes and
explainers) under reserved ``.example`` domains. Published pages are written to
``site/<slug>.html`` in the sandbox and served back at ``http://localhost.invalid/site/<slug>.html``.
"""

from __future__ import annotations

import html
import math
import re
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import load_data, now, serve
from mcptrials.bundled.servers._workspace import relative, workspace_path, write_text

DYNAMISM = "stateful_write"
CATEGORY = "web"
DESCRIPTION = "Offline web pages: fetch a URL, search the corpus, publish an HTML page to a local site."

mcp = MCPServer("web", log_level="WARNING")

LOCAL = "http://localhost.invalid/"
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
WORD = re.compile(r"[a-z0-9]+")


def _pages() -> dict[str, dict[str, Any]]:
    return {p["url"]: p for p in load_data("web_pages.json")["pages"]}


def _normalise(url: str) -> str:
    text = url.strip()
    if text.startswith(("http://", "https://")) and text.count("/") == 2:
        text += "/"
    return text


def _published_path(slug: str) -> str:
    if not SLUG.match(slug):
        raise ToolError(f"invalid slug {slug!r}: use lowercase letters, digits and hyphens ('q2-summary')")
    return f"site/{slug}.html"


def _local_page(url: str) -> dict[str, Any]:
    rest = url[len(LOCAL):]
    match = re.fullmatch(r"site/([a-z0-9][a-z0-9-]{0,63})\.html", rest)
    if not match:
        raise ToolError(f"404 not found: {url}")
    target = workspace_path(_published_path(match.group(1)))
    if not target.is_file():
        raise ToolError(f"404 not found: {url}")
    raw = target.read_text(encoding="utf-8")
    title = re.search(r"<title>(.*?)</title>", raw, re.S)
    body = re.sub(r"<[^>]+>", " ", raw.split("<body>", 1)[-1])
    text = html.unescape(" ".join(body.split()))
    return {"url": url, "title": html.unescape(title.group(1)) if title else "", "text": text,
            "links": re.findall(r'href="([^"]+)"', raw), "moved_to": None}


def _lookup(url: str) -> dict[str, Any]:
    key = _normalise(url)
    if key.startswith(LOCAL):
        return _local_page(key)
    page = _pages().get(key) or _pages().get(key.rstrip("/"))
    if page is None:
        raise ToolError(f"404 not found: {url} (this offline web only has the pages that search finds)")
    return page


def _tokens(text: str) -> list[str]:
    return WORD.findall(text.lower())


@mcp.tool()
def fetch_page(
    url: Annotated[str, Field(description="Full URL, e.g. 'https://handbook.northwind.example/'")],
    max_chars: Annotated[int, Field(ge=200, le=20000, description="Cut the text after this many characters")
                         ] = 4000,
) -> dict[str, Any]:
    """Fetch a web page and return its title, text and links.

    Pages that have moved answer with status 301 and a ``moved_to`` address instead of their
    old content; fetch that address to read on. Unknown addresses fail with 404.
    """
    page = _lookup(url)
    if page.get("moved_to"):
        return {"url": page["url"], "status": 301, "title": page["title"], "moved_to": page["moved_to"],
                "text": page["text"]}
    text = page["text"]
    return {"url": page["url"], "status": 200, "title": page["title"], "text": text[:max_chars],
            "truncated": len(text) > max_chars, "links": page["links"]}


@mcp.tool()
def search(
    query: str,
    limit: Annotated[int, Field(ge=1, le=20)] = 5,
    site: Annotated[str | None, Field(description="Only URLs containing this, e.g. 'kitchen'")] = None,
) -> dict[str, Any]:
    """Search the web for pages matching the query; returns ranked URLs, titles and snippets."""
    words = [w for w in _tokens(query) if len(w) > 1]
    if not words:
        raise ToolError("the query has no searchable words")
    pages = list(_pages().values())
    documents = {p["url"]: _tokens(p["title"] + " " + p["title"] + " " + p["text"]) for p in pages}
    count = len(documents)
    scored = []
    for page in pages:
        if site and site.lower() not in page["url"].lower():
            continue
        doc = documents[page["url"]]
        score = 0.0
        for word in set(words):
            tf = doc.count(word)
            if tf:
                df = sum(1 for d in documents.values() if word in d)
                score += (1 + math.log(tf)) * math.log(1 + count / df)
        if score > 0:
            scored.append((-round(score, 6), page["url"], page))
    scored.sort()
    results = []
    for negative, url, page in scored[:limit]:
        text = page["text"]
        first = min((text.lower().find(w) for w in words if w in text.lower()), default=0)
        start = max(0, first - 60)
        snippet = " ".join(text[start:start + 200].split())
        snippet = ("..." if start else "") + snippet + ("..." if start + 200 < len(text) else "")
        results.append({"url": url, "title": page["title"], "score": -negative, "snippet": snippet})
    return {"query": query, "results": results}


@mcp.tool()
def get_links(url: str) -> dict[str, Any]:
    """Links on a page."""
    page = _lookup(url)
    return {"url": page["url"], "links": page["links"]}


@mcp.tool()
def publish_page(
    slug: Annotated[str, Field(description="Short name for the page address, e.g. 'atlas-status'")],
    title: str,
    body: Annotated[str, Field(description="Page content as plain text; blank lines separate paragraphs, "
                                           "lines starting with '- ' become list items")],
    overwrite: bool = False,
) -> dict[str, Any]:
    """Publish a page on the local site. Returns its file path in the workspace and its URL."""
    rel = _published_path(slug)
    target = workspace_path(rel)
    if target.exists() and not overwrite:
        raise ToolError(f"a page with slug {slug!r} already exists; pass overwrite=true to replace it")
    blocks = []
    for block in [b for b in body.replace("\r\n", "\n").split("\n\n") if b.strip()]:
        lines = block.strip().split("\n")
        if all(line.startswith("- ") for line in lines):
            items = "".join(f"<li>{html.escape(line[2:].strip())}</li>" for line in lines)
            blocks.append(f"<ul>{items}</ul>")
        else:
            blocks.append(f"<p>{html.escape(' '.join(line.strip() for line in lines))}</p>")
    document = (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
                f"<meta name=\"published\" content=\"{now().isoformat(timespec='minutes')}\"></head>\n"
                f"<body><h1>{html.escape(title)}</h1>\n" + "\n".join(blocks) + "\n</body></html>\n")
    write_text(target, document)
    return {"path": relative(target), "url": LOCAL + rel, "bytes": len(document.encode())}


@mcp.tool()
def list_published() -> dict[str, Any]:
    """Pages published on the local site."""
    folder = workspace_path("site")
    if not folder.exists():
        return {"pages": []}
    pages = []
    for file in sorted(folder.glob("*.html")):
        slug = file.stem
        if SLUG.match(slug) and file.is_file() and not file.is_symlink():
            pages.append({"slug": slug, "path": f"site/{file.name}", "url": f"{LOCAL}site/{file.name}",
                          "title": _local_page(f"{LOCAL}site/{file.name}")["title"]})
    return {"pages": pages}


@mcp.tool()
def unpublish_page(slug: str) -> dict[str, Any]:
    """Take a published page down (deletes its file)."""
    target = workspace_path(_published_path(slug))
    if not target.is_file():
        raise ToolError(f"no published page with slug {slug!r}")
    target.unlink()
    return {"unpublished": slug}


if __name__ == "__main__":
    serve(mcp)
