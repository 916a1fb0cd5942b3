"""mcptrials: a lab for benchmarking LLM agents on MCP servers."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mcptrials")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
