"""A notes server whose server object and tools live in separate modules."""
