"""An outdoor-gear shop's SQLite database: customers, products, orders and order items.

The database file lives in the episode sandbox (``shop/shop.db``), built from the shipped
seed rows on first use, so every write stays inside one episode. Reads run on a read-only
connection; writes may only insert, update or delete rows, never change the schema or
attach other database files.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import load_data, serve
from mcptrials.bundled.servers._workspace import fresh_temp, relative, workspace_path, write_text

DYNAMISM = "stateful_write"
CATEGORY = "data"
DESCRIPTION = "SQLite database of a small outdoor-gear shop: customers, products, orders, order items."

mcp = MCPServer("shopdb", log_level="WARNING",
                instructions="The shop database. Use SQLite SQL. Prices are in EUR.")

DB_REL = "shop/shop.db"
SCHEMA = """
CREATE TABLE customers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    city TEXT,
    country TEXT,
    joined TEXT
);
CREATE TABLE products (
    id INTEGER PRIMARY KEY,
    sku TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    category TEXT NOT NULL,
    price REAL NOT NULL CHECK (price >= 0),
    stock INTEGER NOT NULL DEFAULT 0 CHECK (stock >= 0)
);
CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    order_date TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'shipped', 'delivered', 'cancelled', 'returned'))
);
CREATE TABLE order_items (
    order_id INTEGER NOT NULL REFERENCES orders(id),
    product_id INTEGER NOT NULL REFERENCES products(id),
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    unit_price REAL NOT NULL,
    PRIMARY KEY (order_id, product_id)
);
"""
TABLES = ("customers", "products", "orders", "order_items")
READ_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
WRITE_ACTIONS = READ_ACTIONS | {sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE,
                                sqlite3.SQLITE_TRANSACTION}


def _build(target: Path) -> None:
    """Create the database from the shipped seed rows, atomically."""
    seed = load_data("shopdb.json")
    fd, tmp = fresh_temp(target)  # an empty file of our own: no planted link to write through
    os.close(fd)
    con = sqlite3.connect(tmp)
    try:
        con.execute("PRAGMA journal_mode = MEMORY")
        con.executescript(SCHEMA)
        for table in TABLES:
            rows = seed[table]
            columns = list(rows[0])
            marks = ", ".join("?" for _ in columns)
            con.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})",
                            [tuple(r[c] for c in columns) for r in rows])
        con.commit()
    finally:
        con.close()
    os.replace(tmp, target)


def _database() -> Path:
    target = workspace_path(DB_REL)
    if not target.exists():
        _build(target)
    return target


def _connect(*, write: bool) -> sqlite3.Connection:
    path = _database()
    if write:
        con = sqlite3.connect(path)
        con.execute("PRAGMA foreign_keys = ON")
        con.execute("PRAGMA journal_mode = MEMORY")  # no '-journal' file: a link planted on its name goes unused
    else:
        con = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    allowed = WRITE_ACTIONS if write else READ_ACTIONS

    def authorize(action: int, *_: Any) -> int:
        return sqlite3.SQLITE_OK if action in allowed else sqlite3.SQLITE_DENY

    con.set_authorizer(authorize)
    return con


def _single_statement(query: str) -> str:
    text = query.strip().rstrip(";").strip()
    if not text:
        raise ToolError("the query is empty")
    if ";" in re.sub(r"'(?:[^']|'')*'", "''", text):
        raise ToolError("only one SQL statement per call")
    return text


def _first_keyword(text: str) -> str:
    cleaned = re.sub(r"^(\s*(--[^\n]*\n|/\*.*?\*/))*", "", text, flags=re.S).lstrip()
    match = re.match(r"[A-Za-z]+", cleaned)
    return match.group(0).upper() if match else ""


def _rows(cursor: sqlite3.Cursor, limit: int) -> dict[str, Any]:
    columns = [d[0] for d in cursor.description or []]
    fetched = cursor.fetchmany(limit + 1)
    rows = [dict(zip(columns, row, strict=True)) for row in fetched[:limit]]
    return {"columns": columns, "rows": rows, "row_count": len(rows), "truncated": len(fetched) > limit}


@mcp.tool()
def list_tables() -> dict[str, Any]:
    """List the tables in the shop database with their row counts."""
    con = _connect(write=False)
    try:
        names = [r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        con.set_authorizer(None)
        return {"tables": [{"name": n, "rows": con.execute(f'SELECT COUNT(*) FROM "{n}"').fetchone()[0]}
                           for n in names]}
    finally:
        con.close()


@mcp.tool()
def describe_table(table: Annotated[str, Field(description="Table name, e.g. 'orders'")]) -> dict[str, Any]:
    """Columns of a table (name, type, nullability, primary key, default) and its foreign keys."""
    con = _connect(write=False)
    con.set_authorizer(None)
    try:
        known = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        if table not in known:
            raise ToolError(f"no table named {table!r}; tables: {', '.join(sorted(known))}")
        columns = [{"name": r[1], "type": r[2], "not_null": bool(r[3]), "default": r[4],
                    "primary_key": bool(r[5])} for r in con.execute(f'PRAGMA table_info("{table}")')]
        keys = [{"column": r[3], "references": f"{r[2]}({r[4]})"}
                for r in con.execute(f'PRAGMA foreign_key_list("{table}")')]
        count = con.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
        return {"table": table, "columns": columns, "foreign_keys": keys, "row_count": count}
    finally:
        con.close()


@mcp.tool()
def read_query(
    query: Annotated[str, Field(description="One SELECT (or WITH ... SELECT) statement")],
    limit: Annotated[int, Field(ge=1, le=500, description="Maximum rows to return")] = 100,
) -> dict[str, Any]:
    """Run a read-only SQL query (SELECT) against the shop database and return the rows.

    Only a single SELECT statement is accepted; anything that would modify data is refused.
    Results come back as a list of row objects keyed by column name, at most ``limit`` rows
    (``truncated`` tells whether more rows matched).
    """
    text = _single_statement(query)
    if _first_keyword(text) not in {"SELECT", "WITH"}:
        raise ToolError("read_query only runs SELECT statements; use write_query to change data")
    con = _connect(write=False)
    try:
        return _rows(con.execute(text), limit)
    except sqlite3.Error as exc:
        raise ToolError(f"SQL error: {exc}") from None
    finally:
        con.close()


@mcp.tool()
def write_query(query: str) -> dict[str, Any]:
    """Execute an INSERT, UPDATE or DELETE statement. Changes are saved immediately."""
    text = _single_statement(query)
    keyword = _first_keyword(text)
    if keyword not in {"INSERT", "UPDATE", "DELETE", "REPLACE"}:
        raise ToolError("write_query only runs INSERT, UPDATE or DELETE; schema changes are not allowed")
    con = _connect(write=True)
    try:
        cursor = con.execute(text)
        con.commit()
        result: dict[str, Any] = {"statement": keyword, "rows_affected": cursor.rowcount}
        if keyword in {"INSERT", "REPLACE"}:
            result["last_row_id"] = cursor.lastrowid
        return result
    except sqlite3.Error as exc:
        con.rollback()
        raise ToolError(f"SQL error: {exc}") from None
    finally:
        con.close()


@mcp.tool()
def export_query(
    query: Annotated[str, Field(description="One SELECT statement")],
    path: Annotated[str, Field(description="Workspace-relative file to write, e.g. 'exports/lisbon.csv'")],
    format: Literal["csv", "json"] = "csv",
) -> dict[str, Any]:
    """Save the result of a SELECT query to a file in the workspace as CSV or JSON."""
    target = workspace_path(path)
    text = _single_statement(query)
    if _first_keyword(text) not in {"SELECT", "WITH"}:
        raise ToolError("export_query only runs SELECT statements")
    con = _connect(write=False)
    try:
        result = _rows(con.execute(text), 10000)
    except sqlite3.Error as exc:
        raise ToolError(f"SQL error: {exc}") from None
    finally:
        con.close()
    if format == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(result["columns"])
        writer.writerows([row[c] for c in result["columns"]] for row in result["rows"])
        content = buffer.getvalue()
    else:
        content = json.dumps(result["rows"], indent=1, ensure_ascii=False) + "\n"
    if target.is_dir():
        raise ToolError(f"{path!r} is a folder")
    write_text(target, content)
    return {"path": relative(target), "format": format, "rows_written": result["row_count"],
            "columns": result["columns"]}


@mcp.tool()
def reset_database(confirm: Annotated[bool, Field(description="Must be true")] = False) -> dict[str, Any]:
    """Throw away every change and rebuild the database from the original seed data."""
    if not confirm:
        raise ToolError("set confirm=true to discard all changes to the shop database")
    target = workspace_path(DB_REL)
    if target.exists():
        target.unlink()
    _build(target)
    return {"reset": True, "path": relative(target)}


if __name__ == "__main__":
    serve(mcp)
