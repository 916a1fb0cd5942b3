"""Source-level server evolution: an LLM edits a copy of a server's code, and the edit is validated.

One round follows MCPEvol-Bench §3: anchor every tool in the source (Python with ``ast``,
JavaScript/TypeScript with tree-sitter) so the model
sees only the code that defines and implements tools; let the model choose a mutation operator
(O1-O11) and express it as hunks; apply the hunks to a copy of the tree; compile, start and list
the mutated server; check the interface change against the operator; run model-written test
cases. A round that fails any step is rejected whole and never leaves a half-applied version.

Modules (import them directly; this package imports nothing):

- ``tree``: source trees: which files, how to copy them, how to start the server they hold.
- ``anchor``: find each tool's definition and implementation (decorators, dispatch, split files).
- ``anchor_js``: the same for JavaScript/TypeScript (register calls, switch, if-blocks, imported
  handlers), plus their syntax check and documentation-free code shape.
- ``hunks``: the hunk format, parsing it from a reply, applying it all-or-nothing.
- ``replies`` / ``prompts``: JSON out of model replies; prompt text files and their rendering.
- ``steps``: the three model steps (select an operator, apply it as hunks, write test cases).
- ``validate``: compile, start, classify against the operator, run the test cases.
- ``mutate``: one evolution round with retries, versions on disk, and multi-round lineages.
- ``record``: an accepted round's interface change as a plan (``served_by: source``), so
  ``run --lineages`` remaps tasks with the code interface lineages use.
- ``script``: a scripted model that answers each step with canned replies (tests, dry runs).
"""
