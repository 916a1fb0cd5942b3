"""A release check as Markdown (for a pull request, also what the terminal shows) and as JSON."""

from __future__ import annotations

import json

from mcptrials.release.check import AgentResult, ReleaseCheck

_BADGE = {"compatible": "✅", "compatible-with-warnings": "⚠️", "breaking": "❌", "incomplete": "❔"}


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(text.replace("|", "\\|").split()) or "–"


def _code(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names) or "–"


def _rate(counts: dict[str, int]) -> str:
    rate = AgentResult.rate(counts)
    scored = counts["passed"] + counts["failed"]
    text = "–" if rate is None else f"{100 * rate:.0f} % ({counts['passed']}/{scored})"
    return text + (f", {counts['infra_error']} infra" if counts["infra_error"] else "")


def to_markdown(check: ReleaseCheck, exit_code: int) -> str:
    """The summary a pull request shows: verdict, interface changes, references, agents, reasons."""
    lines = [f"## Release check: `{check.server}` {check.old} → {check.new}", "",
             f"**Verdict: {_BADGE[check.verdict]} {check.verdict}** (exit code {exit_code})", ""]
    tools = f"{check.old_tools if check.old_tools is not None else '?'} → " \
            f"{check.new_tools if check.new_tools is not None else '?'}"
    lines += [f"Tools: {tools}. Patterns: {', '.join(check.patterns) or 'none'}. "
              f"Tasks using `{check.server}`: {len(check.tasks)}.", ""]
    if check.changes:
        lines += ["### Interface changes", "", "| tool | status | patterns | changes | breaking | tasks touched |",
                  "|---|---|---|---|---|---|"]
        for c in check.changes:
            name = f"`{c.old_name}` → `{c.tool}`" if c.status == "replaced" else f"`{c.tool}`"
            lines.append(f"| {name} | {c.status} | {', '.join(c.patterns) or '–'} | {_cell('; '.join(c.changes))} "
                         f"| {'yes' if c.breaking else 'no'} | {_code(c.tasks)} |")
        lines.append("")
    if check.references:
        lines += ["### Reference plans", "", "| task | old release | new release | reason |", "|---|---|---|---|"]
        for r in check.references:
            lines.append(f"| `{r.task}` | {r.old} | {r.new} | {_cell('; '.join(r.reasons)[:300])} |")
        lines.append("")
    if check.agents:
        lines += ["### Agents on both releases", "",
                  "| agent | model | old release | new release | worse on new | better on new |",
                  "|---|---|---|---|---|---|"]
        for a in check.agents:
            model = a.model if a.model != "none" else "–"
            lines.append(f"| {a.agent} | {model} | {_rate(a.old)} | {_rate(a.new)} | {_code(a.regressions)} "
                         f"| {_code(a.fixes)} |")
        lines.append("")
    if check.findings:
        lines += ["### Why", ""]
        lines += [f"- **{f.level}**: {_cell(f.text)}" for f in check.findings]
        lines.append("")
    if not check.tasks:
        lines += [f"No task uses `{check.server}`: only the interface was compared (give `--tasks`).", ""]
    if check.db:
        lines += [f"Episodes and refreshes: `{check.db}` (`mcptrials report --db {check.db}`).", ""]
    return "\n".join(lines)


def to_json(check: ReleaseCheck, exit_code: int) -> str:
    """The check as indented JSON, with its verdict and exit code."""
    return json.dumps({**check.as_dict(), "exit_code": exit_code}, indent=2, ensure_ascii=False) + "\n"
