"""Tool implementations, looked up by name through the HANDLERS table."""

from __future__ import annotations

from typing import Any

BOOKS = ["Dune", "Emma", "Ulysses", "Middlemarch"]


def find_book(arguments: dict[str, Any]) -> Any:
    phrase = str(arguments["phrase"]).lower()
    return [title for title in BOOKS if phrase in title.lower()]


def count_books(arguments: dict[str, Any]) -> Any:
    return len(BOOKS)


HANDLERS = {
    "find_book": find_book,
    "count_books": count_books,
}
