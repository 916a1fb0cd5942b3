"""A research paper index with citation links, plus downloading papers into the workspace to read them.

Metadata (abstracts, authors, citations) is shipped data. ``download_paper`` writes the full text
of a paper as a plain-text file inside the episode sandbox; ``read_paper`` reads such a file back,
so reading requires downloading first. Key numbers are only in the full text.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import PurePosixPath
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import SandboxError, confined, load_data, sandbox, serve

DYNAMISM = "stateful_write"
CATEGORY = "knowledge"
DESCRIPTION = "Research paper index: search, details, citations, download full text into the workspace, read it."

mcp = MCPServer("papers", log_level="WARNING")

Field_ = Literal["machine learning", "climate science", "transportation", "geoscience", "recreation", "ecology",
                 "human-computer interaction", "astronomy"]
Section = Literal["all", "abstract", "introduction", "method", "experiments", "results", "conclusion", "references"]
SECTION_TITLES = {"abstract": "Abstract", "introduction": "1 Introduction", "method": "2 Method",
                  "experiments": "3 Experiments", "results": "4 Results", "conclusion": "5 Conclusion",
                  "references": "References"}
OPENERS = {
    "machine learning": "Language models and learning systems are increasingly judged by what they can do, not "
                        "only by what they predict.",
    "climate science": "Weather and climate risks depend on details that coarse models and simple rules miss.",
    "transportation": "Rail and public transport networks run close to capacity, so small changes in operations "
                      "have large effects on travellers.",
    "geoscience": "Long, careful records of the Earth's surface reveal change that single surveys cannot.",
    "recreation": "Visitors to protected areas concentrate at a few places and times.",
    "ecology": "Roads and visitors shape how wildlife uses protected landscapes.",
    "human-computer interaction": "Assistants that act for people must get everyday details exactly right.",
    "astronomy": "Dark skies are a resource that depends on weather, the Moon and human light.",
}


@cache
def _index() -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in load_data("papers.json")["papers"]}


def _paper(paper_id: str) -> dict[str, Any]:
    key = paper_id.strip()
    key = re.sub(r"^(arxiv:)", "", key, flags=re.IGNORECASE)
    paper = _index().get(key)
    if paper is None:
        raise ToolError(f"unknown paper id {paper_id!r}; ids look like 2403.03019 (find them with search_papers)")
    return paper


def _brief(p: dict[str, Any]) -> dict[str, Any]:
    return {"paper_id": p["id"], "title": p["title"], "authors": p["authors"], "year": p["year"],
            "venue": p["venue"], "citation_count": p["citation_count"]}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower())) - {"the", "of", "a", "an", "and", "for", "in", "on", "with",
                                                            "to", "from", "by", "paper", "papers"}


def _full_text(p: dict[str, Any]) -> str:
    refs = [_index()[r] for r in p["references"]]
    intro = OPENERS[p["field"]] + f" This paper studies {p['keywords'][0]}"
    intro += f" in the context of {p['keywords'][1]}." if len(p["keywords"]) > 1 else "."
    if refs:
        intro += " It builds on " + "; ".join(f"{r['title']} [{i + 1}]" for i, r in enumerate(refs)) + "."
    results = " ".join(p["findings"])
    lines = [
        p["title"], ", ".join(p["authors"]), f"{p['venue']}, {p['year']}. arXiv:{p['id']}", "",
        "Abstract", p["abstract"], "",
        "1 Introduction", intro, "",
        "2 Method", p["method"], "",
        "3 Experiments", p["dataset"], "",
        "4 Results", results, "",
        "5 Conclusion", f"We presented work on {p['keywords'][0]}. {p['findings'][0]}", "",
        "References",
        *[f"[{i + 1}] {', '.join(r['authors'][:2])}. {r['title']}. {r['venue']}, {r['year']}. arXiv:{r['id']}"
          for i, r in enumerate(refs)],
    ]
    if not refs:
        lines.append("(no references within this index)")
    return "\n".join(lines) + "\n"


def _relative(path: Any) -> str:
    return PurePosixPath(path.relative_to(sandbox())).as_posix()


def _confined(path: str, *, must_exist: bool = False) -> Any:
    try:
        return confined(path, must_exist=must_exist)
    except SandboxError as exc:
        raise ToolError(f"refused: {exc}") from exc
    except FileNotFoundError as exc:
        raise ToolError(f"{exc}; download the paper first with download_paper") from exc


# --------------------------------------------------------------------------- metadata tools


@mcp.tool()
def search_papers(
    query: Annotated[str | None, Field(description="Keywords matched against titles, abstracts, keywords and "
                                                   "field; may be omitted when a filter is given")] = None,
    year_from: Annotated[int | None, Field(ge=1990, le=2030)] = None,
    year_to: Annotated[int | None, Field(ge=1990, le=2030)] = None,
    field: Field_ | None = None,
    sort_by: Literal["relevance", "citations", "newest"] = "relevance",
    limit: Annotated[int, Field(ge=1, le=25)] = 10,
) -> dict[str, Any]:
    """Search the paper index. Filter by publication year and research field; sort by relevance, citations or
    date. Each hit has its paper_id, which the other tools take."""
    terms = _words(query or "")
    if not terms and not (field or year_from or year_to):
        raise ToolError("give a query with at least one keyword, or a field or year filter")
    hits = []
    for p in _index().values():
        if (year_from and p["year"] < year_from) or (year_to and p["year"] > year_to):
            continue
        if field and p["field"] != field:
            continue
        title = _words(p["title"])
        body = _words(p["abstract"] + " " + " ".join(p["keywords"]) + " " + p["field"])
        score = 3 * len(terms & title) + len(terms & body)
        if terms and score == 0:
            continue
        hits.append((score, p))
    order = {
        "relevance": lambda h: (-h[0], -h[1]["citation_count"], h[1]["id"]),
        "citations": lambda h: (-h[1]["citation_count"], h[1]["id"]),
        "newest": lambda h: (-h[1]["year"], h[1]["id"]),
    }
    hits.sort(key=order[sort_by])
    return {"query": query or "", "total": len(hits), "papers": [_brief(p) for _, p in hits[:limit]]}


@mcp.tool()
def get_paper_details(paper_id: str) -> dict[str, Any]:
    """Metadata and abstract of one paper, with counts of references and citing papers."""
    p = _paper(paper_id)
    out = _brief(p) | {"field": p["field"], "keywords": p["keywords"], "abstract": p["abstract"],
                       "reference_count": len(p["references"]), "cited_by_count_in_index": len(p["cited_by"])}
    out["downloaded"] = confined(f"papers/{p['id']}.txt").exists()
    return out


@mcp.tool()
def get_citations(
    paper_id: str,
    limit: Annotated[int, Field(ge=1, le=50)] = 20,
) -> dict[str, Any]:
    """Papers in the index that cite the given paper, newest first."""
    p = _paper(paper_id)
    citing = sorted((_index()[c] for c in p["cited_by"]), key=lambda x: (-x["year"], x["id"]))
    return {"paper_id": p["id"], "title": p["title"], "count": len(citing),
            "citing_papers": [_brief(c) for c in citing[:limit]]}


@mcp.tool()
def get_references(paper_id: str) -> dict[str, Any]:
    """Papers in the index that the given paper cites."""
    p = _paper(paper_id)
    return {"paper_id": p["id"], "title": p["title"], "count": len(p["references"]),
            "references": [_brief(_index()[r]) for r in p["references"]]}


@mcp.tool()
def get_author_papers(
    author: Annotated[str, Field(description="Full or partial author name, e.g. 'Okafor'")],
) -> dict[str, Any]:
    """All papers in the index with a matching author, oldest first."""
    needle = author.strip().lower()
    if len(needle) < 3:
        raise ToolError("give at least three letters of the author's name")
    hits = sorted((p for p in _index().values() if any(needle in a.lower() for a in p["authors"])),
                  key=lambda p: (p["year"], p["id"]))
    if not hits:
        raise ToolError(f"no papers by an author matching {author!r}")
    names = sorted({a for p in hits for a in p["authors"] if needle in a.lower()})
    return {"author_query": author, "matched_authors": names, "count": len(hits),
            "papers": [_brief(p) for p in hits]}


# --------------------------------------------------------------------------- workspace tools


@mcp.tool()
def download_paper(
    paper_id: str,
    directory: Annotated[str, Field(description="Folder inside the workspace")] = "papers",
    filename: Annotated[str | None, Field(description="File name; defaults to <paper_id>.txt")] = None,
) -> dict[str, Any]:
    """Download a paper's full text into the workspace as a text file and return its relative path."""
    p = _paper(paper_id)
    name = filename or f"{p['id']}.txt"
    if "/" in name or "\\" in name:
        raise ToolError("filename must be a bare file name; put folders in 'directory'")
    target = _confined(f"{directory.strip().rstrip('/')}/{name}" if directory.strip() not in ("", ".") else name)
    text = _full_text(p)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return {"paper_id": p["id"], "path": _relative(target), "bytes": len(text.encode()),
            "sha256": hashlib.sha256(text.encode()).hexdigest()[:16]}


@mcp.tool()
def read_paper(
    path: Annotated[str, Field(description="Workspace-relative path returned by download_paper")],
    section: Section = "all",
    max_chars: Annotated[int, Field(ge=200, le=20000)] = 6000,
) -> dict[str, Any]:
    """Read a downloaded paper from the workspace, whole or one section."""
    target = _confined(path, must_exist=True)
    if not target.is_file():
        raise ToolError(f"{path!r} is not a file")
    text = target.read_text(encoding="utf-8", errors="replace")
    if section != "all":
        heading = SECTION_TITLES[section]
        lines = text.splitlines()
        if heading not in lines:
            raise ToolError(f"section {section!r} not found in {path!r}")
        start = lines.index(heading) + 1
        end = next((i for i in range(start, len(lines)) if lines[i] in SECTION_TITLES.values()), len(lines))
        text = "\n".join(lines[start:end]).strip()
    truncated = len(text) > max_chars
    return {"path": _relative(target), "section": section, "text": text[:max_chars], "truncated": truncated}


@mcp.tool()
def list_downloaded_papers(directory: str = "papers") -> dict[str, Any]:
    """Text files already downloaded into a workspace folder."""
    folder = _confined(directory)
    if not folder.exists():
        return {"directory": directory, "count": 0, "files": []}
    files = sorted(f for f in folder.rglob("*.txt") if f.is_file())
    return {"directory": directory, "count": len(files),
            "files": [{"path": _relative(f), "bytes": f.stat().st_size} for f in files]}


@mcp.tool()
def delete_downloaded_paper(path: str) -> dict[str, Any]:
    """Permanently delete a downloaded paper file from the workspace."""
    target = _confined(path, must_exist=True)
    if not target.is_file():
        raise ToolError(f"{path!r} is not a file")
    rel = _relative(target)
    target.unlink()
    return {"deleted": rel}


if __name__ == "__main__":
    serve(mcp)
