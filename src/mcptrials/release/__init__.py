"""The release check for server authors: old and new release of a server, side by side.

Modules (import them directly):

- ``install``: published releases (npm, PyPI) and git refs of a server, installed into a user cache.
- ``sources``: the old and new release as server specs, from two configs, two package versions or a git ref.
- ``touched``: the tasks each interface change touches.
- ``check``: the whole check (tool diff, reference refresh, agents on both releases) and its verdict.
- ``render``: the verdict as a terminal summary, JSON and Markdown for a pull request.

It sits after ``report`` in the pipeline: it uses servers, evolve, run, replay and store, and nothing
imports it but the command line.
"""
