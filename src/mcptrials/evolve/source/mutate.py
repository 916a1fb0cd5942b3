"""One LLM-driven evolution round of a Python server's source, and lineages of such rounds.

A round tries up to ``max_attempts`` times; an attempt runs these steps and stops at the first
that fails:

1. select   the model picks an operator and target tools (JSON);
2. apply    the model writes hunks against the anchored source (JSON);
3. patch    the hunks are applied to a staging copy of the parent tree, all or nothing;
4. compile  every changed file is byte-compiled;
5. start    the staged server is started over stdio from its own copy and lists its tools;
6. classify old and new tool lists are diffed and checked against the operator (for a DESC
            operator, the code must also be unchanged once docstrings, descriptions and
            annotations are set aside);
7. test     the model writes test calls; they run against the staged server and must pass.

An accepted attempt becomes ``out_dir/<version>/`` (``tree/``, ``tools.json``,
``manifest.json``, and ``plan.yaml``: the interface change in plan vocabulary, ``served_by:
source``, see ``record.py``) in one rename, so ``run --lineages out_dir`` serves each version from
its tree and remaps tasks through its plan chain; a rejected one leaves nothing but its reason, which the next
attempt is shown. A round whose attempts all fail is skipped and writes no version.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mcptrials.evolve.changes import DiffReport
from mcptrials.evolve.operators import OPERATORS, Level
from mcptrials.evolve.plan import PlanError, dump_plan
from mcptrials.evolve.source.anchor import anchor_tree
from mcptrials.evolve.source.hunks import Hunk, HunkError, apply_hunks
from mcptrials.evolve.source.record import PLAN, round_plan
from mcptrials.evolve.source.steps import (
    Application,
    Selection,
    Step,
    StepRejected,
    apply_operator,
    prompt_hashes,
    select_operator,
    write_test_cases,
)
from mcptrials.evolve.source.tree import SourceServer, copy_tree, describe_entry, locate_source
from mcptrials.evolve.source.validate import (
    TestResult,
    classify,
    compile_files,
    coverage_problems,
    describe_changes,
    docs_only_problems,
    list_tools,
    run_cases,
    started,
)
from mcptrials.model import ServerSpec, stable_hash
from mcptrials.models.base import ChatModel
from mcptrials.safety.tempdirs import temp_prefix
from mcptrials.servers.toolbox import Limits

TREE = "tree"
MANIFEST = "manifest.json"
TOOLS = "tools.json"
STAGING = ".staging"


class RoundSettings(BaseModel):
    """Knobs of a round; recorded in every manifest."""

    model_config = ConfigDict(extra="forbid")

    max_attempts: int = Field(default=3, ge=1)
    operators: list[str] | None = None
    """Operator ids the model may choose from (None: all eleven)."""
    max_test_cases: int = Field(default=12, ge=1)
    start_timeout: float = 30.0
    call_timeout: float = 20.0

    def limits(self) -> Limits:
        """The server-layer limits for starting and calling the mutated server."""
        return Limits(call_timeout=self.call_timeout, start_timeout=self.start_timeout)


class Rejection(BaseModel):
    """One failed attempt: which step failed and why, with what the model had chosen so far."""

    model_config = ConfigDict(extra="forbid")

    attempt: int
    step: Step
    reason: str
    operator: str | None = None
    target_tools: list[str] = Field(default_factory=list)

    def feedback(self) -> str:
        """The line shown to the model on the next attempt."""
        chosen = f" (operator {self.operator} on {', '.join(self.target_tools) or 'no target'})" \
            if self.operator else ""
        return f"attempt {self.attempt}{chosen} failed at step '{self.step}': {self.reason}"


class SourceVersionManifest(BaseModel):
    """What one source version is, how it was made from its parent, and the evidence it works."""

    model_config = ConfigDict(extra="forbid")

    version: str
    parent: str | None = None
    server: str
    entry: dict[str, Any]
    operator: str | None = None
    operator_name: str | None = None
    target_tools: list[str] = Field(default_factory=list)
    rationale: str = ""
    summary: str = ""
    details: dict[str, Any] = Field(default_factory=dict)
    tool_list_hash: str
    tool_count: int
    plan: str | None = None
    """The version's plan (``vK/plan.yaml``): what changed, for remapping tasks."""
    patterns: list[str] = Field(default_factory=list)
    diff: DiffReport | None = None
    hunks: list[Hunk] = Field(default_factory=list)
    changed_files: list[str] = Field(default_factory=list)
    tests: list[TestResult] = Field(default_factory=list)
    rejected_attempts: list[Rejection] = Field(default_factory=list)
    model: str | None = None
    tester_model: str | None = None
    settings: dict[str, Any] = Field(default_factory=dict)
    prompt_hashes: dict[str, str] = Field(default_factory=dict)


@dataclass
class RoundOutcome:
    """The result of one round: the new version when accepted, and every rejected attempt."""

    accepted: bool
    version: str | None = None
    manifest: SourceVersionManifest | None = None
    server: SourceServer | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)


# --------------------------------------------------------------------------- files


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _entry(server: SourceServer) -> dict[str, Any]:
    from mcptrials.model import _masked_args

    return {**server.entry(), "args": _masked_args(server.args)}


def version_server(server: SourceServer, out_dir: Path | str, version: str) -> SourceServer:
    """The server of ``version`` in a lineage folder, run from that version's own tree."""
    return server.at(Path(out_dir) / version / TREE)


def version_spec(upstream: ServerSpec, out_dir: Path | str, version: str) -> ServerSpec:
    """The spec that runs ``version`` of a source lineage: the configured entry point, started from the version's tree.

    The entry point and arguments come from the configured server (as when it was evolved), so
    secrets in them are never read back from the manifest; a lineage evolved from another entry
    point is refused.
    """
    tree = Path(out_dir) / version / TREE
    if not tree.is_dir():
        raise ValueError(f"{out_dir} has no source tree for version {version!r} (expected {tree})")
    entry = read_manifest(out_dir, version).entry
    server = locate_source(upstream)
    recorded = {key: entry.get(key, "python" if key == "runtime" else None) for key in server.entry()}
    if recorded != server.entry():
        raise ValueError(f"{out_dir}: version {version} of {upstream.name!r} was evolved from entry point "
                         f"{describe_entry(recorded)}, but the configured server starts {server.entry_text()}")
    return server.at(tree).spec(version)


def read_manifest(out_dir: Path | str, version: str) -> SourceVersionManifest:
    """Load the manifest of one version of a lineage folder."""
    path = Path(out_dir) / version / MANIFEST
    return SourceVersionManifest.model_validate_json(path.read_text(encoding="utf-8"))


def read_tools(out_dir: Path | str, version: str) -> list[dict[str, Any]]:
    """Load the tool list recorded for one version of a lineage folder."""
    data = json.loads((Path(out_dir) / version / TOOLS).read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


def _publish(staged: Path, final: Path) -> None:
    if final.exists():
        raise FileExistsError(f"version folder {final} already exists")
    final.parent.mkdir(parents=True, exist_ok=True)
    os.replace(staged, final)


async def init_version(server: SourceServer, out_dir: Path | str, version: str = "v0",
                       settings: RoundSettings | None = None) -> RoundOutcome:
    """Copy the original tree in as the lineage's first version, after starting it once for its tools."""
    out_dir = Path(out_dir)
    settings = settings or RoundSettings()
    staging = out_dir / STAGING / version
    shutil.rmtree(staging, ignore_errors=True)
    staging.parent.mkdir(parents=True, exist_ok=True)
    try:
        copy_tree(server.root, staging / TREE)
        staged = server.at(staging / TREE)
        tools = await list_tools(staged, settings.limits())
        manifest = SourceVersionManifest(version=version, server=server.name, entry=_entry(server),
                                         tool_list_hash=stable_hash(tools), tool_count=len(tools),
                                         settings=settings.model_dump())
        _write_json(staging / TOOLS, tools)
        _write_json(staging / MANIFEST, manifest.model_dump(mode="json"))
        _publish(staging, out_dir / version)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return RoundOutcome(accepted=True, version=version, manifest=manifest,
                        server=version_server(server, out_dir, version), tools=tools)


# --------------------------------------------------------------------------- one attempt


@dataclass
class _Attempt:
    """What one attempt has produced so far (kept for the rejection record)."""

    selection: Selection | None = None
    application: Application | None = None


async def _attempt(parent: SourceServer, parent_tools: list[dict[str, Any]], staging: Path, model: ChatModel,
                   tester: ChatModel, settings: RoundSettings, feedback: list[str],
                   state: _Attempt) -> tuple[list[dict[str, Any]], DiffReport, list[str], list[TestResult]]:
    anchors = anchor_tree(parent.root)
    state.selection = selection = await select_operator(model, parent, parent_tools, settings.operators, feedback)
    state.application = application = await apply_operator(model, parent, parent_tools, anchors, selection, feedback)
    try:
        changed = apply_hunks(parent.root, application.hunks, staging / TREE)
    except HunkError as exc:
        raise StepRejected("patch", str(exc)) from None
    compile_files(staging / TREE, changed)
    op = OPERATORS[selection.operator]
    code_problems: list[str] = []
    if op.level is Level.DESC:
        found = docs_only_problems(parent.root, staging / TREE, changed)
        code_problems = [f"{op.label} may only change documentation: " + "; ".join(found)] if found else []
    staged = parent.at(staging / TREE)
    with tempfile.TemporaryDirectory(prefix=temp_prefix("round")) as sandbox:
        async with started(staged, Path(sandbox), settings.limits()) as (toolbox, new_tools):
            diff = classify(op, parent_tools, new_tools, selection.target_tools, code_problems)
            touched = {t.tool for t in diff.tools} | {t.old_name for t in diff.tools if t.old_name}
            cases = await write_test_cases(
                tester, parent, selection, application.summary, describe_changes(diff),
                [t for t in new_tools if t["name"] in touched], [t for t in parent_tools if t["name"] in touched],
                settings.max_test_cases)
            problems = coverage_problems(cases, diff, new_tools)
            if problems:
                raise StepRejected("test", "; ".join(problems))
            results = await run_cases(toolbox, parent.name, cases)
    failed = [r for r in results if not r.passed]
    if failed:
        lines = [f"{r.case.name or r.case.tool} ({r.case.tool} {json.dumps(r.case.arguments)[:120]}) expected "
                 f"{r.case.expect}, got {r.outcome}: {r.detail[:160]}" for r in failed[:4]]
        raise StepRejected("test", f"{len(failed)} of {len(results)} test calls failed: " + "; ".join(lines))
    return new_tools, diff, changed, results


# --------------------------------------------------------------------------- a round


async def evolve_round(parent: SourceServer, out_dir: Path | str, version: str, model: ChatModel, *,
                       parent_version: str | None = None, parent_tools: list[dict[str, Any]] | None = None,
                       tester: ChatModel | None = None, settings: RoundSettings | None = None) -> RoundOutcome:
    """Run one round on ``parent``'s tree; on success write ``out_dir/<version>/`` and return it.

    ``parent_tools`` is the parent's tool list when already known (else the parent is started
    once to list it). ``tester`` writes the test cases (default: ``model``). Provider errors
    from either model propagate: they are infrastructure failures, not rejected mutations.
    """
    out_dir = Path(out_dir)
    settings = settings or RoundSettings()
    tester = tester or model
    if (out_dir / version).exists():
        raise FileExistsError(f"version folder {out_dir / version} already exists")
    if parent_tools is None:
        parent_tools = await list_tools(parent, settings.limits())
    rejections: list[Rejection] = []
    for attempt in range(1, settings.max_attempts + 1):
        staging = out_dir / STAGING / f"{version}-a{attempt}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        state = _Attempt()
        try:
            new_tools, diff, changed, results = await _attempt(
                parent, parent_tools, staging, model, tester, settings, [r.feedback() for r in rejections], state)
            selection, application = state.selection, state.application
            assert selection is not None and application is not None
            op = OPERATORS[selection.operator]
            try:
                plan = round_plan(diff, parent_tools, new_tools, op.id, application.details, version=version,
                                  parent=parent_version, server=parent.name,
                                  summary=application.summary or selection.rationale)
            except PlanError as exc:
                raise StepRejected("classify", f"the change cannot be recorded as a plan: {exc}") from None
            (staging / PLAN).write_text(dump_plan(plan), encoding="utf-8")
            manifest = SourceVersionManifest(
                version=version, parent=parent_version, server=parent.name, entry=_entry(parent),
                operator=op.id, operator_name=op.name, target_tools=selection.target_tools,
                rationale=selection.rationale, summary=application.summary, details=application.details,
                tool_list_hash=stable_hash(new_tools), tool_count=len(new_tools), plan=f"{version}/{PLAN}",
                patterns=diff.patterns,
                diff=diff, hunks=application.hunks, changed_files=changed, tests=results,
                rejected_attempts=rejections, model=model.spec, tester_model=tester.spec,
                settings=settings.model_dump(), prompt_hashes=prompt_hashes(op.id))
            _write_json(staging / TOOLS, new_tools)
            _write_json(staging / MANIFEST, manifest.model_dump(mode="json"))
            _publish(staging, out_dir / version)
            return RoundOutcome(accepted=True, version=version, manifest=manifest,
                                server=version_server(parent, out_dir, version), tools=new_tools,
                                rejections=rejections)
        except StepRejected as exc:
            chosen = state.selection
            rejections.append(Rejection(attempt=attempt, step=exc.step, reason=exc.reason,
                                        operator=chosen.operator if chosen else None,
                                        target_tools=chosen.target_tools if chosen else []))
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            _remove_if_empty(out_dir / STAGING)
    return RoundOutcome(accepted=False, rejections=rejections)


def _remove_if_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):
        folder.rmdir()


# --------------------------------------------------------------------------- lineages


class LineageRound(BaseModel):
    """One round of a lineage: the version it made, or why it was skipped."""

    model_config = ConfigDict(extra="forbid")

    round: int
    parent: str
    version: str | None = None
    operator: str | None = None
    target_tools: list[str] = Field(default_factory=list)
    patterns: list[str] = Field(default_factory=list)
    rejections: list[Rejection] = Field(default_factory=list)


async def evolve_source(server: SourceServer, model: ChatModel, rounds: int, out_dir: Path | str, *,
                        tester: ChatModel | None = None, settings: RoundSettings | None = None) -> list[LineageRound]:
    """Evolve a server's source for ``rounds`` rounds: ``v0`` is the original, each accepted round adds one.

    A skipped round adds no version; the next round starts again from the last accepted one.
    ``out_dir/lineage.json`` lists every round. The paper's middle and late stages are the
    versions after three and five accepted rounds.
    """
    out_dir = Path(out_dir)
    settings = settings or RoundSettings()
    current = await init_version(server, out_dir, "v0", settings)
    assert current.server is not None and current.version is not None
    parent, parent_version, tools, made = current.server, current.version, current.tools, 0
    history: list[LineageRound] = []
    for number in range(1, rounds + 1):
        version = f"v{made + 1}"
        outcome = await evolve_round(parent, out_dir, version, model, parent_version=parent_version,
                                     parent_tools=tools, tester=tester, settings=settings)
        record = LineageRound(round=number, parent=parent_version, rejections=outcome.rejections)
        if outcome.accepted and outcome.server is not None and outcome.manifest is not None:
            made += 1
            parent, parent_version, tools = outcome.server, version, outcome.tools
            record = record.model_copy(update={"version": version, "operator": outcome.manifest.operator,
                                               "target_tools": outcome.manifest.target_tools,
                                               "patterns": outcome.manifest.patterns})
        history.append(record)
        _write_json(out_dir / "lineage.json", {"server": server.name, "entry": _entry(server),
                                               "rounds": [r.model_dump(mode="json") for r in history]})
    return history
