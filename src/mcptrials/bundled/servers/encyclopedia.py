"""A small offline encyclopedia of about sixty articles on places, travel, time, science and computing.

Titles resolve case-insensitively and through aliases ("UTC", "Peking"); ambiguous titles such
as "Mercury" lead to disambiguation pages that list the specific articles.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import cache
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import load_data, serve

DYNAMISM = "static"
CATEGORY = "knowledge"
DESCRIPTION = "Offline encyclopedia: search, articles, summaries, sections, links and related topics."

mcp = MCPServer("encyclopedia", log_level="WARNING")

STOP = {"the", "a", "an", "of", "in", "on", "and", "or", "to", "is", "it", "for", "by", "with", "as", "at",
        "from", "what", "which", "who", "how", "when", "was", "are", "its", "that", "this"}


def _key(title: str) -> str:
    return " ".join(title.strip().lower().replace("\u2013", "-").replace("\u2014", "-").split())


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower().replace("'", "")) if w not in STOP]


@cache
def _corpus() -> dict[str, Any]:
    articles = load_data("encyclopedia.json")["articles"]
    by_key: dict[str, dict[str, Any]] = {}
    for a in articles:
        by_key[_key(a["title"])] = a
    for a in articles:
        for alias in a.get("aliases", []):
            by_key.setdefault(_key(alias), a)
    docs = {a["title"]: Counter(_words(a["title"] + " " + a["summary"] + " " + " ".join(
        s["heading"] + " " + s["text"] for s in a["sections"]))) for a in articles}
    df: Counter[str] = Counter()
    for counts in docs.values():
        df.update(set(counts))
    backlinks: dict[str, list[str]] = {a["title"]: [] for a in articles}
    for a in articles:
        for link in a["links"]:
            backlinks[link].append(a["title"])
    return {"articles": articles, "by_key": by_key, "docs": docs, "df": df, "n": len(articles),
            "backlinks": backlinks}


def _article(title: str) -> dict[str, Any]:
    corpus = _corpus()
    found = corpus["by_key"].get(_key(title))
    if found is None:
        guesses = [t for t, _ in _rank(title)[:3]]
        hint = f"; did you mean {', '.join(repr(g) for g in guesses)}?" if guesses else ""
        raise ToolError(f"no article titled {title!r}{hint}")
    return found


def _rank(query: str) -> list[tuple[str, float]]:
    corpus = _corpus()
    terms = _words(query)
    scores = []
    for a in corpus["articles"]:
        counts = corpus["docs"][a["title"]]
        score = 0.0
        for term in terms:
            if counts[term]:
                idf = math.log(1 + corpus["n"] / corpus["df"][term])
                score += (1 + math.log(counts[term])) * idf
        title_words = set(_words(a["title"]))
        score += 2.5 * len(title_words & set(terms))
        if a["title"].lower() == query.strip().lower():
            score += 10
        if score > 0:
            scores.append((a["title"], round(score, 2)))
    scores.sort(key=lambda x: (-x[1], x[0]))
    return scores


def _first_sentence(text: str) -> str:
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    return match.group(1) if match else text


def _disambiguation(a: dict[str, Any]) -> dict[str, Any]:
    corpus = _corpus()
    return {"title": a["title"], "type": "disambiguation", "note": a["summary"],
            "options": [{"title": t, "summary": _first_sentence(corpus["by_key"][_key(t)]["summary"])}
                        for t in a["disambiguation"]]}


@mcp.tool()
def search(
    query: Annotated[str, Field(description="Keywords")],
    limit: Annotated[int, Field(ge=1, le=20)] = 5,
) -> dict[str, Any]:
    """Full-text search over article titles and bodies; returns titles with a one-line snippet."""
    ranked = _rank(query)
    corpus = _corpus()
    return {"query": query, "total": len(ranked),
            "results": [{"title": t, "score": s,
                         "snippet": _first_sentence(corpus["by_key"][_key(t)]["summary"])}
                        for t, s in ranked[:limit]]}


@mcp.tool()
def get_article(title: str) -> dict[str, Any]:
    """The full article: summary, every section's text, outgoing links and categories."""
    a = _article(title)
    if a.get("disambiguation"):
        return _disambiguation(a)
    return {"title": a["title"], "summary": a["summary"], "sections": a["sections"], "links": a["links"],
            "categories": a["categories"], "word_count": a["word_count"]}


@mcp.tool()
def get_summary(title: str) -> dict[str, Any]:
    """Just the lead paragraph of an article: a short answer to 'what is X'."""
    a = _article(title)
    if a.get("disambiguation"):
        return _disambiguation(a)
    return {"title": a["title"], "summary": a["summary"]}


@mcp.tool()
def get_sections(title: str) -> dict[str, Any]:
    """The section headings of an article, in order, with their word counts."""
    a = _article(title)
    if a.get("disambiguation"):
        return _disambiguation(a)
    return {"title": a["title"],
            "sections": [{"heading": s["heading"], "words": len(s["text"].split())} for s in a["sections"]]}


@mcp.tool()
def get_section(
    title: str,
    section: Annotated[str, Field(description="A heading exactly as listed by get_sections (any case)")],
) -> dict[str, Any]:
    """The text of a single section of an article."""
    a = _article(title)
    if a.get("disambiguation"):
        raise ToolError(f"{a['title']!r} is a disambiguation page; choose one of: {', '.join(a['disambiguation'])}")
    for s in a["sections"]:
        if s["heading"].lower() == section.strip().lower():
            return {"title": a["title"], "heading": s["heading"], "text": s["text"]}
    headings = ", ".join(s["heading"] for s in a["sections"])
    raise ToolError(f"{a['title']!r} has no section {section!r}; its sections are: {headings}")


@mcp.tool()
def get_links(
    title: str,
    direction: Literal["outgoing", "incoming", "both"] = "outgoing",
) -> dict[str, Any]:
    """Articles this article links to (outgoing), that link to it (incoming), or both."""
    a = _article(title)
    out: dict[str, Any] = {"title": a["title"]}
    if direction in ("outgoing", "both"):
        out["outgoing"] = a["links"]
    if direction in ("incoming", "both"):
        out["incoming"] = sorted(_corpus()["backlinks"][a["title"]])
    return out


@mcp.tool()
def related_topics(
    title: str,
    limit: Annotated[int, Field(ge=1, le=10)] = 5,
) -> dict[str, Any]:
    """Articles most related to this one, by shared links, categories and vocabulary."""
    a = _article(title)
    corpus = _corpus()
    mine = corpus["docs"][a["title"]]
    links = set(a["links"]) | set(corpus["backlinks"][a["title"]])
    scored = []
    for other in corpus["articles"]:
        if other["title"] == a["title"] or other.get("disambiguation"):
            continue
        theirs = corpus["docs"][other["title"]]
        shared = sum(min(mine[w], theirs[w]) * math.log(corpus["n"] / corpus["df"][w]) for w in mine if w in theirs)
        score = shared / 10 + 3 * (other["title"] in links) + 2 * len(set(a["categories"]) & set(other["categories"]))
        scored.append((round(score, 2), other["title"]))
    scored.sort(key=lambda x: (-x[0], x[1]))
    return {"title": a["title"], "related": [{"title": t, "score": s} for s, t in scored[:limit]]}


if __name__ == "__main__":
    serve(mcp)
