"""Tools registered on the shared server object from another module."""

from __future__ import annotations

from notes_app.app import server

STOP_WORDS = {"a", "an", "the"}


def _words(text: str) -> list[str]:
    return [w for w in text.split() if w.lower() not in STOP_WORDS]


@server.tool(name="word_count", description="Count the words of a note, skipping articles.")
def count_words(text: str) -> int:
    return len(_words(text))


@server.tool()
async def title_case(text: str) -> str:
    """Capitalise every word of a note title."""
    return " ".join(w.capitalize() for w in text.split())
