"""User and server text in rich output: always literal, never read as markup, control characters shown.

Task ids, categories, tool descriptions, model names and everything a server or a model sent may contain
``[/x]`` or ``[red]X[/red]``; rich reads such text in a string as markup (crashing on an unmatched closing
tag, or silently hiding a tag). The rule: a rich string holds only our own markup; anything else enters as
:func:`plain` (a ``Text``) or through :class:`PlainTable`, whose string cells and title are plain text.
"""

from __future__ import annotations

import re
from typing import Any

from rich.table import Table
from rich.text import Text

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain(value: object, style: str = "") -> Text:
    """``value`` as literal rich Text: never markup, and terminal control characters (escape sequences a
    server could send) shown as ``\\x1b``, not obeyed."""
    return Text(_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value)), style=style)


class PlainTable(Table):
    """A rich table whose string title and string cells are literal text (see the module docstring)."""

    def __init__(self, *headers: Any, title: str | Text | None = None, **options: Any) -> None:
        super().__init__(*headers, title=plain(title) if isinstance(title, str) else title, **options)

    def add_row(self, *renderables: Any, **options: Any) -> None:
        """Add a row; ``str`` cells become :func:`plain` text, other renderables (styled ``Text``) pass as given."""
        super().add_row(*(plain(c) if isinstance(c, str) else c for c in renderables), **options)
