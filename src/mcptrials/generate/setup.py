"""Turn ``mcptrials generate`` options into the servers and the ``GenerateConfig`` to use, or one clear error."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from mcptrials.generate.categories import CategoryError, parse_categories
from mcptrials.generate.command import GenerateError, read_fixtures
from mcptrials.generate.pipeline import CHAIN_CATEGORIES, DEFAULT_NOW, GenerateConfig
from mcptrials.model import ServerSpec


def configure(specs: dict[str, ServerSpec], only: list[str] | None, method: str, n: int, seed: int,
              categories: list[str] | None, distractors: int, max_candidates: int | None, min_solvability: float,
              min_utility: float, max_turns: int, retries: int, now: str | None,
              fixtures: Path | None) -> tuple[dict[str, ServerSpec], GenerateConfig]:
    """The chosen servers and the configuration; ``GenerateError`` names the bad option."""
    if method not in {"chains", "explore"}:
        raise GenerateError(f"unknown method {method!r} (chains, explore)")
    wanted = [s.strip() for item in only or [] for s in item.split(",") if s.strip()]
    unknown = [s for s in wanted if s not in specs]
    if unknown:
        raise GenerateError(f"--server: no server {', '.join(unknown)} in the config "
                            f"(known: {', '.join(sorted(specs))})")
    chosen = {name: spec for name, spec in specs.items() if not wanted or name in wanted}
    try:
        names = parse_categories(categories) if categories or method == "explore" else list(CHAIN_CATEGORIES)
    except CategoryError as exc:
        raise GenerateError(str(exc)) from None
    try:
        clock = datetime.fromisoformat(now or DEFAULT_NOW)
    except ValueError:
        raise GenerateError(f"--now {now!r} is not an ISO 8601 date-time") from None
    if clock.tzinfo is None:
        raise GenerateError(f"--now {now!r} needs a UTC offset, e.g. 2026-04-13T09:00:00+08:00")
    config = GenerateConfig(method=method, n=n, categories=names, seed=seed,  # type: ignore[arg-type]
                            distractors=distractors, max_candidates=max_candidates, min_solvability=min_solvability,
                            min_utility=min_utility, max_turns=max_turns, retries=retries, now=clock,
                            fixtures=read_fixtures(fixtures))
    return chosen, config
