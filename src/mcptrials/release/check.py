"""The release check: does the new release of a server break what worked on the old one?

Four pieces of evidence, each from machinery the rest of mcptrials uses: the P1-P18 diff of the two
tool lists (``evolve.diff``) with the tasks each change touches; the tasks' reference plans refreshed
on both releases (``replay.refresh``: identical, drifted or broken on the new one, with the old one as
the baseline); the ``stale`` agent (the plans written for the old release, never re-read) and any
model on both releases (``run.runner``, stored as versions v0 = old and v1 = new); and a verdict:

- ``breaking``: the new release does not start, an interface change can make an old call fail
  (a tool or required argument gone, a new required argument, a narrower type or constraint), a
  reference that passed on the old release breaks on the new one, or an agent passes fewer of the
  tasks on the new release;
- ``compatible-with-warnings``: none of that, but the interface changed or a reference's results drifted;
- ``compatible``: the same tools, the same results, the same pass rates.

Infra failures (a server down, a provider error) leave the check ``incomplete`` unless it is already breaking.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from mcptrials.agents.base import Agent
from mcptrials.evolve.changes import Change, DiffReport
from mcptrials.evolve.diff import diff_tool_lists
from mcptrials.export.tool_list import wire_tool
from mcptrials.model import ServerSpec, Task, ToolInfo, stable_hash
from mcptrials.models.base import ChatModel
from mcptrials.release.sources import ReleaseError, ReleasePair
from mcptrials.release.touched import breaking, tasks_of_server, touched_tasks
from mcptrials.replay.refresh import RefreshStore, TaskRefresh, refresh
from mcptrials.run.runner import RunPlan, execute
from mcptrials.safety.secrets import redact, run_secrets, scrub
from mcptrials.servers.health import survey
from mcptrials.servers.toolbox import Limits
from mcptrials.store.db import Store, outcome_of

Verdict = Literal["compatible", "compatible-with-warnings", "breaking", "incomplete"]
Level = Literal["breaking", "warning", "incomplete"]
EXIT_CODES: dict[Verdict, int] = {"compatible": 0, "compatible-with-warnings": 0, "breaking": 1, "incomplete": 5}
"""Exit code of ``release-check`` per verdict: 1 fails the gate (2 is bad input, as everywhere)."""
VERSIONS = ("v0", "v1")
"""The version labels the old and new release are stored under."""


@dataclass
class ToolChange:
    """One tool's changes between the releases, their patterns and the tasks they touch."""

    tool: str
    old_name: str | None
    status: str
    patterns: list[str]
    changes: list[str]
    breaking: list[str]
    tasks: list[str]


@dataclass
class ReferenceResult:
    """A task's reference plan on the old release (passes or broken) and on the new one (identical, drifted, broken)."""

    task: str
    old: str
    new: str
    reasons: list[str]
    patterns: list[str]


@dataclass
class AgentResult:
    """One agent (and model) on both releases: outcome counts and the tasks that got worse or better."""

    agent: str
    model: str
    old: dict[str, int]
    new: dict[str, int]
    regressions: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)

    @staticmethod
    def rate(counts: dict[str, int]) -> float | None:
        """Passed over scored episodes (infra errors left out); None with none scored."""
        scored = counts["passed"] + counts["failed"]
        return counts["passed"] / scored if scored else None


@dataclass
class Finding:
    """One reason for the verdict."""

    level: Level
    text: str


@dataclass
class ReleaseCheck:
    """Everything the check found, and its verdict."""

    server: str
    source: str
    old: str
    new: str
    old_tools: int | None = None
    new_tools: int | None = None
    patterns: list[str] = field(default_factory=list)
    changes: list[ToolChange] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    references: list[ReferenceResult] = field(default_factory=list)
    agents: list[AgentResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    db: str = ""

    @property
    def verdict(self) -> Verdict:
        levels = {f.level for f in self.findings}
        if "breaking" in levels:
            return "breaking"
        if "incomplete" in levels:
            return "incomplete"
        return "compatible-with-warnings" if "warning" in levels else "compatible"

    def exit_code(self, fail_on_warnings: bool = False) -> int:
        """The code a CI gates on: 0 compatible, 1 breaking, 5 incomplete; warnings 0, or 1 when they fail the gate."""
        if fail_on_warnings and self.verdict == "compatible-with-warnings":
            return EXIT_CODES["breaking"]
        return EXIT_CODES[self.verdict]

    def as_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, **asdict(self)}


@dataclass
class CheckSettings:
    """How the agents run: the models (each with ``design``), attempts, concurrency and limits."""

    models: list[ChatModel] = field(default_factory=list)
    design: Agent | None = None
    stale: Agent | None = None
    attempts: int = 1
    concurrency: int = 4
    limits: Limits = field(default_factory=Limits)


Say = Callable[[str], None]


async def _tools(spec: ServerSpec, limits: Limits) -> tuple[list[ToolInfo], str | None]:
    found = (await survey([spec], limits))[spec.name]
    if found.needs_sandbox:
        return [], f"it needs {found.needs_sandbox}, which only a task's fixtures create"
    return found.tools, found.error


def _label(change: Change, direction: bool = True) -> str:
    """``param_promoted units (tightened)``: the kind, the parameter, and which way a contract moved."""
    return change.kind.value + (f" {change.param}" if change.param else "") \
        + (f" ({change.direction})" if direction and change.direction else "")


def tool_changes(report: DiffReport, server: str, tasks: list[Task]) -> list[ToolChange]:
    """The diff's tools with their breaking changes and the tasks each touches."""
    return [ToolChange(tool=d.tool, old_name=d.old_name, status=d.status, patterns=d.patterns,
                       changes=[_label(c) for c in d.changes],
                       breaking=[_label(c, direction=False) for c in d.changes if breaking(c)],
                       tasks=touched_tasks(d, server, tasks))
            for d in report.tools]


def _without_baseline(task: Task) -> Task:
    """The task with no refresh baseline of its own: the old release is the baseline here."""
    return task.model_copy(update={"provenance": {k: v for k, v in task.provenance.items() if k != "refresh"}})


def _scrubbed(items: list[TaskRefresh], secrets: frozenset[str]) -> list[TaskRefresh]:
    """The refreshes with every secret of the servers' configs masked in their reasons and results."""
    if not secrets:
        return items
    return [replace(i, reasons=[redact(r, secrets) for r in i.reasons],
                    results=[(redact(text, secrets), scrub(structured, secrets)) for text, structured in i.results])
            for i in items]


async def references(pair: ReleasePair, worlds: tuple[dict[str, ServerSpec], dict[str, ServerSpec]],
                     tasks: list[Task], old_tools: list[ToolInfo], store: Store,
                     concurrency: int, secrets: frozenset[str] = frozenset()) -> list[ReferenceResult]:
    """Refresh every task's reference on the old release (the baseline), then on the new one against it.

    Both refreshes are stored in ``store``, with the secrets of the servers' configs masked (a tool's error
    may quote one), as are the reasons returned.
    """
    clean = [_without_baseline(t) for t in tasks]
    before = _scrubbed(await refresh(worlds[0], clean, None, concurrency), secrets)
    store.save_tools(old_tools)  # the old schemas, so the new refresh names the patterns of a broken step
    saved = RefreshStore(store)
    saved.save(f"release-check {pair.server}@{pair.old.label}", before)
    after = _scrubbed(await refresh(worlds[1], [b.task or t for b, t in zip(before, clean, strict=True)],
                                    store, concurrency), secrets)
    saved.save(f"release-check {pair.server}@{pair.new.label}", after)
    return [ReferenceResult(task=t.id, old="broken" if b.verdict == "broken" else "passes", new=a.verdict,
                            reasons=a.reasons if b.verdict != "broken" else b.reasons, patterns=a.patterns)
            for t, b, a in zip(tasks, before, after, strict=True)]


def _outcomes(store: Store, plan: RunPlan) -> dict[str, list[str]]:
    """Each task's stored outcomes under exactly this plan's settings (this run's and earlier identical ones)."""
    base = stable_hash(plan.settings())
    wanted = {stable_hash([base, t.visible_hash()]): t.id for t in plan.tasks}
    scores = store.scores()
    out: dict[str, list[str]] = {t.id: [] for t in plan.tasks}
    for episode in store.episodes(agent=plan.agent.name, model=plan.model_spec, version=plan.version):
        if wanted.get(episode.config_hash) == episode.task_id:
            out[episode.task_id].append(outcome_of(episode, scores.get(episode.id, {}).get("effects")))
    return out


def _task_rate(outcomes: list[str]) -> float | None:
    scored = [o for o in outcomes if o != "infra_error"]
    return sum(o == "passed" for o in scored) / len(scored) if scored else None


async def agents(worlds: tuple[dict[str, ServerSpec], dict[str, ServerSpec]], tasks: list[Task],
                 settings: CheckSettings, store: Store, say: Say) -> list[AgentResult]:
    """The stale agent and every model on both releases, stored as v0 (old) and v1 (new)."""
    players: list[tuple[Agent, ChatModel | None]] = []
    if settings.stale is not None:
        players.append((settings.stale, None))
    if settings.design is not None:
        players += [(settings.design, chat) for chat in settings.models]
    results = []
    for agent, chat in players:
        per_version = []
        for version, world in zip(VERSIONS, worlds, strict=True):
            plan = RunPlan(servers=world, tasks=tasks, agent=agent, model=chat, attempts=settings.attempts,
                           concurrency=settings.concurrency, limits=settings.limits, version=version)

            def event(kind: str, _episode: object) -> None:
                if kind.startswith("warning:"):
                    say(f"warning: {kind[len('warning:'):]}")

            result = await execute(plan, store, event)
            outcomes = _outcomes(store, plan)
            counts = {k: sum(o == k for v in outcomes.values() for o in v) for k in ("passed", "failed", "infra_error")}
            who = agent.name if chat is None else f"{chat.spec} ({agent.name})"
            say(f"{who} on the {'old' if version == 'v0' else 'new'} release ({version}): "
                f"passed {counts['passed']} of {sum(counts.values())} ({result.skipped} already stored)")
            per_version.append((counts, outcomes))
        (old_counts, old_out), (new_counts, new_out) = per_version
        row = AgentResult(agent.name, chat.spec if chat is not None else "none", old_counts, new_counts)
        for task in tasks:
            before, now = _task_rate(old_out[task.id]), _task_rate(new_out[task.id])
            if before is not None and now is not None and now < before:
                row.regressions.append(task.id)
            elif before is not None and now is not None and now > before:
                row.fixes.append(task.id)
        results.append(row)
    return results


def findings(check: ReleaseCheck) -> list[Finding]:
    """The reasons for the verdict, breaking ones first."""
    out: list[Finding] = []
    for change in check.changes:
        where = f" (touches {', '.join(change.tasks)})" if change.tasks else ""
        name = change.tool if change.status != "replaced" else f"{change.old_name} -> {change.tool}"
        if change.breaking:
            out.append(Finding("breaking", f"tool {name}: {', '.join(change.breaking)} "
                                           f"[{', '.join(change.patterns)}]{where}"))
        else:
            patterns = ", ".join(change.patterns) or "unclassified"
            what = "added" if change.status == "added" else ", ".join(change.changes)
            out.append(Finding("warning", f"tool {name}: {what} [{patterns}]{where}"))
    for ref in check.references:
        if ref.old == "broken":
            out.append(Finding("warning", f"task {ref.task}: its reference already fails on the old release, so "
                                          f"this check cannot judge it ({'; '.join(ref.reasons)[:200]})"))
        elif ref.new == "broken":
            patterns = f" [{', '.join(ref.patterns)}]" if ref.patterns else ""
            out.append(Finding("breaking", f"task {ref.task}: its reference breaks on the new release{patterns}: "
                                           f"{'; '.join(ref.reasons)[:300]}"))
        elif ref.new == "drifted":
            out.append(Finding("warning", f"task {ref.task}: its reference's results changed, its spec still passes"))
    for row in check.agents:
        who = row.agent if row.model == "none" else f"{row.model} ({row.agent})"
        if row.regressions:
            out.append(Finding("breaking", f"{who} passes fewer tasks on the new release: "
                                           f"{', '.join(row.regressions)} got worse"))
        infra = row.old["infra_error"] + row.new["infra_error"]
        if infra:
            out.append(Finding("incomplete", f"{who}: {infra} episode(s) ended in an infra error (not scored; "
                                             "re-run the same command to retry them)"))
    order = {"breaking": 0, "incomplete": 1, "warning": 2}
    return sorted(out, key=lambda f: order[f.level])


async def check_release(pair: ReleasePair, world: dict[str, ServerSpec], tasks: list[Task], store: Store,
                        settings: CheckSettings, say: Say) -> ReleaseCheck:
    """Run the whole check of ``pair``; ``world`` holds the other servers the tasks use."""
    check = ReleaseCheck(server=pair.server, source=pair.source, old=pair.old.label, new=pair.new.label)
    old_tools, problem = await _tools(pair.old.spec, settings.limits)
    if problem is not None or not old_tools:
        raise ReleaseError(f"the old release ({pair.old.label}) of {pair.server!r} "
                           f"{'did not start: ' + problem if problem else 'lists no tools'}")
    check.old_tools = len(old_tools)
    new_tools, problem = await _tools(pair.new.spec, settings.limits)
    if problem is not None:
        check.findings = [Finding("breaking", f"the new release ({pair.new.label}) does not start: {problem}")]
        return check
    check.new_tools = len(new_tools)
    say(f"{pair.server}: {len(old_tools)} tools on {pair.old.label}, {len(new_tools)} on {pair.new.label}")
    report = diff_tool_lists([wire_tool(t) for t in old_tools], [wire_tool(t) for t in new_tools])
    mine = tasks_of_server(tasks, pair.server)
    check.tasks = [t.id for t in mine]
    check.patterns = report.patterns
    check.changes = tool_changes(report, pair.server, mine)
    worlds = ({**world, pair.server: pair.old.spec}, {**world, pair.server: pair.new.spec})
    if mine:
        say(f"refreshing {len(mine)} task reference(s) on both releases")
        secrets = run_secrets([*worlds[0].values(), pair.new.spec], settings.models)
        check.references = await references(pair, worlds, mine, old_tools, store, settings.concurrency, secrets)
        check.agents = await agents(worlds, mine, settings, store, say)
    check.findings = findings(check)
    return check
