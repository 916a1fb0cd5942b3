"""Importers of the published benchmarks' files (MCP-Bench, LiveMCPBench, MCPEvol-Bench, DynamicMCPBench).

Each module reads one format and returns an ``Imported``: tasks, a server config and a mapping table of
what mapped, what was dropped and why. Their data is read from the user's checkout, never shipped here.
"""

from __future__ import annotations

from mcptrials.imports.common import Imported, ImportError_, MappingRow, write_import

FORMATS = ("mcp-bench", "livemcpbench", "mcpevol", "dynamicmcpbench")


def import_benchmark(fmt: str, source: str, out: str, store: str | None = None) -> Imported:
    """Read ``source`` in format ``fmt`` and write the task file, server config and mapping table into ``out``."""
    from pathlib import Path

    if fmt == "mcp-bench":
        from mcptrials.imports.mcp_bench import read_mcp_bench as reader
    elif fmt == "livemcpbench":
        from mcptrials.imports.livemcpbench import read_livemcpbench as reader
    elif fmt == "mcpevol":
        from mcptrials.imports.mcpevol import read_mcpevol as reader
    elif fmt == "dynamicmcpbench":
        from mcptrials.imports.dynamicmcpbench import read_dynamicmcpbench as reader
    else:
        raise ImportError_(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    src = Path(source).expanduser()
    if not src.exists():
        raise ImportError_(f"{source}: no such file or folder")
    imported = reader(src)
    if store is not None and imported.episodes:
        from mcptrials.imports.traces import store_traces

        saved = store_traces(imported, store)
        imported.row("store", store, "mapped", f"{saved} recorded episode(s) written, for run --replay {store}")
    elif store is not None:
        imported.row("store", store, "dropped", "no recorded trace to write (only dynamicmcpbench ships traces)")
    write_import(imported, Path(out).expanduser())
    return imported


__all__ = ["FORMATS", "ImportError_", "Imported", "MappingRow", "import_benchmark", "write_import"]
