"""Look at stored results: the `mcptrials view` web app and the `mcptrials show` terminal view (read-only)."""
