"""mcptrials: a lab for benchmarking LLM agents on MCP servers.

The Python API mirrors the CLI::

    import mcptrials
    tasks = mcptrials.load_tasks()                       # the bundled suite (or task files)
    mcptrials.run_tasks(tasks[:3], agent="reference", db="r.db")   # other agents need model="..."
    mcptrials.build_report("r.db")["summary"]            # what `mcptrials report --format json` prints
    mcptrials.read_episodes("r.db", outcome="failed")    # stored episodes, whole, as Episode objects

The API's names never shadow a subpackage: ``mcptrials.run``, ``mcptrials.report``,
``mcptrials.export`` and ``mcptrials.evolve`` are plain packages.
"""

import importlib.metadata as _metadata

try:
    __version__ = _metadata.version("mcptrials")
except _metadata.PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0+unknown"
from mcptrials.api import (
    build_report,
    evolve_server,
    export_results,
    load_servers,
    load_tasks,
    read_episodes,
    read_scores,
    run_tasks,
    score,
    write_report,
)
from mcptrials.model import Episode, Score, ServerSpec, Task

__all__ = ["Episode", "Score", "ServerSpec", "Task", "__version__", "build_report", "evolve_server", "export_results",
           "load_servers", "load_tasks", "read_episodes", "read_scores", "run_tasks", "score", "write_report"]

del _metadata  # the namespace holds the API and the subpackages only
