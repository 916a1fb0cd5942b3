"""``mcptrials release-check``: read the request, set the releases up, run the check, print and write the summary."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from rich.console import Console
from rich.markdown import Markdown

from mcptrials.agents.base import Agent
from mcptrials.model import ServerSpec, Task
from mcptrials.release.check import CheckSettings, ReleaseCheck, check_release
from mcptrials.release.render import to_json, to_markdown
from mcptrials.release.sources import (
    REGISTRIES,
    Registry,
    ReleaseError,
    ReleasePair,
    from_configs,
    from_git,
    from_package,
)
from mcptrials.release.touched import tasks_of_server

FORMATS = ("table", "markdown", "json")
FAIL_ON = ("breaking", "warnings")


@dataclass
class ReleaseCheckRequest:
    """What the command line was given."""

    old: Path | None = None
    new: Path | None = None
    servers: Path | None = None
    server: str | None = None
    package: str | None = None
    old_version: str | None = None
    new_version: str | None = None
    registry: str | None = None
    extras: list[str] = field(default_factory=list)
    git_ref: str | None = None
    new_git_ref: str | None = None
    tasks: list[Path] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    base_url: str | None = None
    stale: bool = True
    attempts: int = 1
    max_turns: int = 20
    concurrency: int = 4
    start_timeout: float = 30.0
    call_timeout: float = 60.0
    db: str | None = None
    markdown: Path | None = None
    fmt: str = "table"
    fail_on: str = "breaking"
    inputs: list[str] = field(default_factory=list)


def _modes(req: ReleaseCheckRequest) -> list[str]:
    given = {"--old/--new": req.old is not None or req.new is not None,
             "--package": any(v is not None for v in (req.package, req.old_version, req.new_version))
             or bool(req.extras),
             "--git-ref": req.git_ref is not None or req.new_git_ref is not None}
    return [name for name, on in given.items() if on]


def releases(req: ReleaseCheckRequest) -> tuple[ReleasePair, dict[str, ServerSpec]]:
    """The old and new release, and the servers config the other servers of the tasks come from."""
    from mcptrials.servers.commands import parse_inputs
    from mcptrials.servers.config import load_servers

    inputs = parse_inputs(req.inputs)
    modes = _modes(req)
    if len(modes) != 1:
        raise ReleaseError("give the releases one way: --old A.json --new B.json; or --servers CONFIG --package PKG "
                           "--old-version X --new-version Y; or --servers CONFIG --git-ref REF"
                           + (f" (got {' and '.join(modes)})" if modes else ""))
    if modes == ["--old/--new"]:
        if req.old is None or req.new is None:
            raise ReleaseError("--old and --new go together: the servers configs of the old and new release")
        if req.servers is not None:
            raise ReleaseError("--servers is for --package and --git-ref; with --old/--new the configs say it all")
        world = load_servers(req.old, inputs=inputs)
        pair = from_configs(world, load_servers(req.new, inputs=inputs), req.server, req.old.name, req.new.name)
        return pair, world
    if req.servers is None:
        raise ReleaseError(f"{modes[0]} needs --servers: the config that starts the server")
    world = load_servers(req.servers, inputs=inputs)
    if modes == ["--package"]:
        if not (req.package and req.old_version and req.new_version):
            raise ReleaseError("--package needs --old-version and --new-version")
        if req.registry is not None and req.registry not in REGISTRIES:
            raise ReleaseError(f"unknown registry {req.registry!r} (npm, pypi)")
        registry: Registry | None = "npm" if req.registry == "npm" else "pypi" if req.registry == "pypi" else None
        return from_package(world, req.server, req.package, req.old_version, req.new_version, registry,
                            tuple(req.extras)), world
    if req.git_ref is None:
        raise ReleaseError("--new-git-ref needs --git-ref (the old release)")
    return from_git(world, req.server, req.git_ref, req.new_git_ref), world


def tasks_for(req: ReleaseCheckRequest, server: str, world: dict[str, ServerSpec]) -> list[Task]:
    """The tasks that use the server: of ``--tasks``, else of the bundled suite (when its servers are configured)."""
    from mcptrials.tasks.loader import check_servers, load_tasks

    if req.tasks:
        chosen = tasks_of_server(load_tasks(*req.tasks), server)
        if not chosen:
            raise ReleaseError(f"no task of {', '.join(map(str, req.tasks))} uses server {server!r}")
        problems = check_servers(chosen, world)
        if problems:
            raise ReleaseError("; ".join(problems[:3]) + (f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""))
        return chosen
    from mcptrials.bundled.world import bundled_tasks

    return [t for t in tasks_of_server(bundled_tasks(), server) if set(t.servers) <= set(world)]


def default_db(pair: ReleasePair) -> str:
    """A store named after the check, in the temp folder: the same check again resumes it."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{pair.server}-{pair.old.label}-{pair.new.label}")[:120]
    folder = Path(tempfile.gettempdir()) / "mcptrials-release-check"
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / f"{name}.db")


def settings_for(req: ReleaseCheckRequest) -> CheckSettings:
    """The agents: ``stale`` unless turned off, and react with each ``--model``."""
    from mcptrials.models.registry import load_model
    from mcptrials.run.options import DesignOptions, build_agent
    from mcptrials.servers.toolbox import Limits

    def agent(name: str) -> Agent:
        return build_agent(name, DesignOptions(), max_turns=req.max_turns, max_episode_tokens=None, max_repeats=3)

    return CheckSettings(
        models=[load_model(spec, base_url=req.base_url) for spec in req.models],
        design=agent("react") if req.models else None,
        stale=agent("stale") if req.stale else None,
        attempts=req.attempts, concurrency=req.concurrency,
        limits=Limits(call_timeout=req.call_timeout, start_timeout=req.start_timeout))


def run_release_check(req: ReleaseCheckRequest, out: Console, err: Console) -> int:
    """The whole command; its exit code. Bad input raises ``ReleaseError`` (or the loaders' own errors)."""
    from mcptrials.store.db import Store
    from mcptrials.store.engine import display_url

    if req.fmt not in FORMATS:
        raise ReleaseError(f"unknown format {req.fmt!r} ({', '.join(FORMATS)})")
    if req.fail_on not in FAIL_ON:
        raise ReleaseError(f"unknown --fail-on {req.fail_on!r} ({', '.join(FAIL_ON)})")
    if req.markdown is not None and req.markdown.is_dir():
        raise ReleaseError(f"--markdown {req.markdown}: is a folder (give the file to write, e.g. release-check.md)")
    pair, world = releases(req)
    tasks = tasks_for(req, pair.server, world)
    settings = settings_for(req)
    db = req.db or default_db(pair)
    store = Store(db)

    def say(line: str) -> None:
        err.print(line, markup=False, highlight=False)

    try:
        check: ReleaseCheck = anyio.run(check_release, pair, world, tasks, store, settings, say)
    finally:
        store.close()
    check.db = display_url(db)
    code = check.exit_code(req.fail_on == "warnings")
    text = to_markdown(check, code)
    if req.markdown is not None:
        try:
            req.markdown.parent.mkdir(parents=True, exist_ok=True)
            req.markdown.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ReleaseError(f"--markdown {req.markdown}: cannot write ({exc.strerror})") from None
    if req.fmt == "json":
        out.file.write(to_json(check, code))
    elif req.fmt == "markdown":
        out.file.write(text)
    else:
        out.print(Markdown(text))
    return code
