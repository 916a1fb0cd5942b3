"""Tool definitions only: names, descriptions and input schemas as plain dicts."""

from __future__ import annotations

from typing import Any

FIND_BOOK = "find_book"

TOOL_DEFINITIONS: list[dict[str, Any]] = [
    {
        "name": FIND_BOOK,
        "description": "Find books whose title contains a phrase.",
        "inputSchema": {
            "type": "object",
            "properties": {"phrase": {"type": "string", "description": "Part of a title."}},
            "required": ["phrase"],
        },
    },
    {
        "name": "count_books",
        "description": "Count the books on the shelf.",
        "inputSchema": {"type": "object", "properties": {}},
    },
]
