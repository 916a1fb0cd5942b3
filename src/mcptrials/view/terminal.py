"""`mcptrials show EPISODE`: one stored episode in the terminal, steps in order with checkpoint verdicts."""

from __future__ import annotations

import json

from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.text import Text

from mcptrials.console_text import PlainTable
from mcptrials.console_text import plain as _t
from mcptrials.model import ToolCallRecord
from mcptrials.servers.client import event_lines
from mcptrials.view.episode import FINAL, EpisodeView, StepView

_RESULT_LINES = 12
_RESULT_CHARS = 1500
"""At most this much of a result or of a call's arguments is printed (the web page shows all of it)."""


def _clip(text: str, lines: int = _RESULT_LINES, chars: int = _RESULT_CHARS) -> str:
    kept = text.splitlines()
    out = "\n".join(kept[:lines])
    if len(out) > chars:
        out = out[:chars]
    if out == text:
        return text
    lines_left = f", {len(kept) - lines} more lines" if len(kept) > lines else ""
    return out + f"\n… ({len(text) - len(out)} more characters{lines_left}; `mcptrials view` shows it all)"


def _badges(met: list[str], missed: list[str]) -> Text:
    out = Text()
    for cid in met:
        out.append_text(_t(f" ✓ {cid}", "bold green"))
    for cid in missed:
        out.append_text(_t(f" ✗ {cid}", "bold red"))
    return out


def _panel(head: Text, meta: Text, parts: list[Text], width: int, border: str) -> Panel:
    """A step's panel: its facts in the title when they fit the terminal, else on the panel's first line."""
    title = head + meta
    if title.cell_len > width - 6:
        title, parts = head, [meta, *parts]
    return Panel(Group(*parts), title=title, title_align="left", border_style=border)


def _step(view: StepView, width: int = 100) -> Panel:
    step = view.step
    if isinstance(step, ToolCallRecord):
        head = Text(f"#{step.index} ", style="dim") + _t(step.name, "bold cyan")
        meta = Text()
        if step.is_error:
            meta.append(f"  {step.error_kind or 'error'}", style="bold red")
        meta.append(f"  {step.latency_s * 1000:.0f} ms", style="dim")
        meta += _badges(view.met, view.missed)
        args = _clip(view.arguments_json) if step.arguments is not None else "(did not parse)"
        body = [Text("arguments ", style="dim") + _t(args),
                Text("error " if step.is_error else "result ", style="dim")
                + _t(_clip(step.content), "red" if step.is_error else ""),
                *[_t(f"[{m.get('kind')} {m.get('mime_type')}, {m.get('bytes', '?')} B]", "magenta")
                  for m in view.media],
                *[Text("server ", style="dim") + _t(line, "yellow") for line in event_lines(step.events)]]
        return _panel(head, meta, body, width, "red" if step.is_error else "blue")
    head = Text(f"#{step.index} ", style="dim") + Text("model turn" if step.role == "agent" else f"{step.role} call",
                                                         style="bold magenta")
    meta = Text(f"  {step.usage.prompt_tokens} in / {step.usage.completion_tokens} out tokens,"
                f" {step.latency_s:.2f} s", style="dim")
    parts: list[Text] = [_t(_clip(step.text))] if step.text else []
    parts += [Text("→ ", style="dim") + _t(c.name, "cyan") + _t(" " + _clip(
        json.dumps(c.arguments, ensure_ascii=False, default=str) if c.arguments is not None
        else f"{c.raw_arguments or ''} (did not parse)")) for c in step.tool_calls]
    return _panel(head, meta, parts or [Text("(empty reply)", style="dim")], width, "magenta")


def print_episode(view: EpisodeView, console: Console) -> None:
    """Print an episode: header, prompt, every step, final answer, checkpoints, judges."""
    ep = view.episode
    colour = {"passed": "green", "failed": "red"}.get(view.bundle.outcome, "yellow")
    badge = (f" {view.bundle.outcome.upper()} ", f"bold white on {colour}")
    who = f"  {ep.model} · {ep.agent} · {ep.version} · attempt {ep.attempt}"
    console.print(Text.assemble(badge, " ", _t(ep.task_id, "bold"), _t(who)))
    console.print(_t(f"episode {ep.id} · run {ep.run_id} · ended {ep.termination} · {ep.usage.prompt_tokens} in"
                       f" / {ep.usage.completion_tokens} out tokens · {ep.duration_s:.2f} s", style="dim"))
    for problem in view.bundle.problems:
        console.print(_t(f"left out: {problem}", "yellow"))
    if ep.infra_error:
        console.print(_t(f"infrastructure error ({ep.infra_error.kind}): {ep.infra_error.message}", "yellow"))
    if view.task:
        console.print(Panel(_t(view.task.prompt), title="task prompt", title_align="left", border_style="dim"))
    for step in view.steps:
        console.print(_step(step, console.width))
    console.print(Panel(_t(ep.final_answer) if ep.final_answer else Text("(no final answer)", style="dim"),
                        title=Text("final answer") + _badges(view.final_met, view.final_missed), title_align="left"))
    _print_checkpoints(view, console)
    if view.failure_codes:
        console.print(_t("failure codes: " + ", ".join(view.failure_codes)))
    for judge in view.judges:
        verdict = "–" if judge.passed is None else ("pass" if judge.passed else "fail")
        console.print(_t(f"judge {judge.name}", "bold") + _t(
            f": {verdict}" + (f" (value {judge.value:.2f})" if judge.value is not None else "")))
        for where, reason in judge.reasons:
            console.print(_t(f"  {where} ", "dim") + _t(reason))


def _print_checkpoints(view: EpisodeView, console: Console) -> None:
    """Each checkpoint's verdict, where it was met or missed, and why: a table, or lines on a narrow terminal."""
    rows = []
    for cp in view.checkpoints:
        where = ", ".join("final answer" if a == FINAL else f"step {a[5:]}" for a in cp.anchors)
        rows.append((Text("✓", style="green") if cp.passed else Text("✗", style="red"), cp.id,
                     (("met at " if cp.passed else "missed at ") + where) if where else "–",
                     _t((f"[{cp.failure}] " if cp.failure else "") + cp.detail)))
    if not rows:
        why = "the episode ended in an infra error (the harness, not the agent)" if view.episode.infra_error \
            else "no checkpoint verdict is stored"
        console.print(Text(f"checkpoints: not scored: {why}", style="dim"))
        return
    if console.width < 72:
        console.print(Text("checkpoints", style="italic"))
        for mark, cid, where, detail in rows:
            console.print(mark + Text(" ") + _t(cid, "bold") + Text(f"  {where}", style="dim"))
            console.print(Padding(detail, (0, 0, 0, 4)))
        return
    table = PlainTable(title="checkpoints", title_justify="left", expand=True)
    table.add_column("", width=2)
    table.add_column("checkpoint", overflow="fold")
    table.add_column("where", ratio=1)
    table.add_column("detail", ratio=2)
    for mark, cid, where, detail in rows:
        table.add_row(mark, _t(cid), where, detail)
    console.print(table)
