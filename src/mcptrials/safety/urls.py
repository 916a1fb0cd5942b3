"""The one masking of every URL that is shown or stored: its password and every query value become ``***``.

The result store's ``--db`` address, a server's or a model's URL, a URL inside a command-line argument: all
go through ``masked_url`` before they reach a terminal, a report, the viewer, a log or a stored record.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit

MASK = "***"
URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>]+")
"""A URL inside a command-line argument (``https://host/mcp?key=X``, ``--upstream-url=http://u:pw@host``)."""


def masked_url(url: str) -> str:
    """``url`` with its password and every query value masked, its fragment dropped (a token in a URL is a secret).

    A text without ``://`` is a file path (a SQLite store), returned as written; a URL too broken to parse is
    masked whole.
    """
    if "://" not in url:
        return url
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return MASK
    if password is None and not parts.query and not parts.fragment:
        return url
    head = url.split("#", 1)[0].split("?", 1)[0]
    if password is not None:
        head = head.replace(parts.netloc, f"{parts.username}:{MASK}@{parts.netloc.rsplit('@', 1)[1]}", 1)
    query = urlencode([(k, MASK) for k, _ in parse_qsl(parts.query, keep_blank_values=True)], safe="*")
    return f"{head}?{query}" if query else head


def public_url(url: str | None) -> str | None:
    """``url`` safe to store or print (None stays None)."""
    return masked_url(url) if url else url


def masked_urls(text: str) -> str:
    """``text`` with each URL in it that has a password or a query masked (others left exactly as written)."""
    def mask(match: re.Match[str]) -> str:
        url = match.group()
        return url if "@" not in url and "?" not in url else masked_url(url)

    return URL_IN_TEXT.sub(mask, text) if "://" in text else text
