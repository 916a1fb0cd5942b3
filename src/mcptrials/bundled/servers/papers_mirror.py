"""A second, smaller paper index: a mirror that copies part of the main archive, with less detail.

It shares tool names with the ``papers`` server (``search_papers``, ``get_paper_details``) but holds
fewer papers, no abstracts and citation counts frozen at the date each paper was mirrored. It also
lists a few recent preprints that the main index does not have yet.
"""

from __future__ import annotations

import re
from datetime import date
from functools import cache
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import load_data, serve

DYNAMISM = "static"
CATEGORY = "knowledge"
DESCRIPTION = "Paper mirror: a smaller copy of the paper index with PDF links, BibTeX and recent additions."

mcp = MCPServer("papers_mirror", log_level="WARNING")


@cache
def _index() -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in load_data("papers_mirror.json")["papers"]}


def _paper(paper_id: str) -> dict[str, Any]:
    paper = _index().get(paper_id.strip())
    if paper is None:
        raise ToolError(f"paper {paper_id!r} is not in this mirror")
    return paper


@mcp.tool()
def search_papers(
    query: str,
    limit: Annotated[int, Field(ge=1, le=10)] = 5,
) -> dict[str, Any]:
    """Search papers."""
    terms = set(re.findall(r"[a-z0-9]+", query.lower())) - {"the", "of", "a", "and", "for", "in", "on"}
    hits = []
    for p in _index().values():
        words = set(re.findall(r"[a-z0-9]+", (p["title"] + " " + " ".join(p["keywords"])).lower()))
        score = len(terms & words)
        if score:
            hits.append((-score, p["id"], p))
    hits.sort(key=lambda h: h[:2])
    return {"results": [{"id": p["id"], "title": p["title"], "year": p["year"], "authors": p["authors"]}
                        for *_, p in hits[:limit]]}


@mcp.tool()
def get_paper_details(paper_id: str) -> dict[str, Any]:
    """Mirror record of a paper: title, first authors, venue, citation count as of mirroring, PDF link."""
    return dict(_paper(paper_id))


@mcp.tool()
def get_bibtex(paper_id: str) -> str:
    """A BibTeX entry for citing the paper."""
    p = _paper(paper_id)
    first = p["authors"][0].split()[-1].lower()
    word = re.findall(r"[a-z]+", p["title"].lower())[0]
    key = f"{first}{p['year']}{word}"
    authors = " and ".join(p["authors"])
    return (f"@article{{{key},\n  title = {{{p['title']}}},\n  author = {{{authors}}},\n"
            f"  journal = {{{p['venue']}}},\n  year = {{{p['year']}}},\n  eprint = {{{p['id']}}},\n"
            f"  archivePrefix = {{arXiv}}\n}}")


@mcp.tool()
def list_recent_additions(
    since: Annotated[str, Field(description="YYYY-MM-DD; papers mirrored on or after this day")],
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
) -> dict[str, Any]:
    """Papers added to the mirror on or after a date, newest first."""
    try:
        day = date.fromisoformat(since.strip())
    except ValueError as exc:
        raise ToolError(f"since must be YYYY-MM-DD, got {since!r}") from exc
    hits = sorted((p for p in _index().values() if date.fromisoformat(p["mirrored_on"]) >= day),
                  key=lambda p: (p["mirrored_on"], p["id"]), reverse=True)
    return {"since": day.isoformat(), "count": len(hits),
            "papers": [{"id": p["id"], "title": p["title"], "mirrored_on": p["mirrored_on"]} for p in hits[:limit]]}


if __name__ == "__main__":
    serve(mcp)
