"""Server evolution: operators, schema diffs and patterns, plans, the mutation proxy, lineages.

Modules (import them directly; this package imports nothing so ``import mcptrials.evolve`` stays
cheap):

- ``operators``: the 11 mutation operators O1-O11 as data, each able to check a diff.
- ``changes`` / ``diff`` / ``patterns``: compare two tool lists, label changes with P1-P18.
- ``plan``: declarative evolution plans (YAML/JSON) and plan chains.
- ``interface``: apply a plan chain to an upstream tool list, producing servable tools.
- ``mapping``: rewrite old calls and tool-name sets into an evolved interface.
- ``proxy``: the MCP server that serves an evolved interface in front of a real server.
- ``lineage``: seeded multi-round evolution written to disk as versions v0..vN.
"""
