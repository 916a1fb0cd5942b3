"""Rich tables that fit the terminal and never break an identifier (tool name, task id, code) mid-word.

Rich wraps a cell at spaces and, when a column is narrower than a word, folds the word where
the column ends, so a narrow terminal turns ``rail__search_trains`` into ``rail__sea`` /
``rch_trains``. Here identifier columns are kept on one line (``no_wrap``) in priority order
while the terminal has room for them plus a readable width for every other column; those
others (descriptions, values) wrap between words. Only a terminal too narrow for even the
identifiers falls back to rich's folding.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.table import Table
from rich.text import Text

from mcptrials.console_text import PlainTable

OTHER_MIN = 12
"""The most width kept for each other column (its longest word, up to this) when identifiers are kept whole."""
PROSE_MIN = 6
"""Width counted for a prose column (it wraps, and folds a long word) when identifiers are kept whole."""


def _cell_len(cell: object) -> int:
    if isinstance(cell, Text):
        return max((len(line) for line in cell.plain.splitlines()), default=0)
    if isinstance(cell, str):
        return max((len(line) for line in Text.from_markup(cell).plain.splitlines()), default=0)
    return 0


def _longest_word(cell: object) -> int:
    if isinstance(cell, Text):
        text = cell.plain
    elif isinstance(cell, str):
        text = Text.from_markup(cell).plain
    else:
        return 0
    return max((len(word) for word in text.split()), default=0)


def protect_ids(table: Table, ids: Sequence[str], width: int | None, prose: Iterable[str] = ()) -> Table:
    """Keep the ``ids`` columns of a filled table on one line, most important first, while they fit ``width``.

    ``prose`` columns (descriptions, values) are counted at ``PROSE_MIN``: they may wrap and fold.
    """
    by_name = {str(c.header): c for c in table.columns}
    floor = {name: min(OTHER_MIN, max(_longest_word(c) for c in [name, *column.cells]))
             for name, column in by_name.items()}  # rich's own minimum: a column's longest word
    floor.update({name: PROSE_MIN for name in prose if name in floor})
    budget = (width or 10**6) - (3 * len(table.columns) + 1)
    rest = sum(floor.values())
    for name in ids:
        column = by_name.get(name)
        if column is None:
            continue
        need = max([_cell_len(c) for c in column.cells] + [len(name)])
        if need + rest - floor[name] > budget:
            continue
        column.no_wrap = True
        budget -= need
        rest -= floor[name]
    return table


def fitted_table(title: str, columns: Sequence[str], rows: Iterable[Sequence[str | Text]], *,
                 ids: Sequence[str] = (), right: Iterable[str] = (), width: int | None = None) -> Table:
    """A table whose ``ids`` columns stay on one line (when the terminal allows); the others wrap at spaces.

    String cells and the title are plain text (a task id ``[/x]`` is shown, not read as markup).
    """
    right_cols = set(right)
    table = PlainTable(title=title, title_justify="left")
    for name in columns:
        table.add_column(name, justify="right" if name in right_cols else "left")
    for row in rows:
        table.add_row(*row)
    return protect_ids(table, ids, width)
