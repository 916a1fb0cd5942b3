"""``python -m mcptrials``: the same command line as the ``mcptrials`` script, for a checkout run without installing."""

from mcptrials.cli import main

main()
