"""Guards against hostile or broken input and runaway processes: safe loading, path checks, process cleanup."""
