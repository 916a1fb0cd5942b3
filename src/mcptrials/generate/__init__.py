"""Task generation: turn any set of MCP servers into a verified benchmark (``mcptrials generate``)."""
