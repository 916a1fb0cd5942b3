"""The generation pipeline: candidates made one by one, each kept as a verified task or dropped with a reason.

``chains`` (MCP-Bench §4): dependency chain -> precise task and dependency analysis -> quality
filter (solvability, utility) -> pursue, distill, validate -> fuzzed natural prompt -> key points.
``explore`` (DynamicMCPBench §3.3): category + persona + anchor and seed tools -> goal -> pursue,
distill, validate -> key points. Both end with distractors when asked. Candidate ``i`` draws
from its own seeded generator, so the candidates are a function of the seed and the model's
replies; every reply and every finished candidate is in the ledger, so a re-run resumes.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

import mcptrials
from mcptrials.generate.categories import BY_NAME, Category
from mcptrials.generate.dependencies import Chain, Edge, discover, pick_chain
from mcptrials.generate.draft import Method, Rejected, TaskDraft, Trace
from mcptrials.generate.ledger import Ledger, LedgerChat, LedgerError
from mcptrials.generate.prompting import ask, need_names, need_text, personas, prompt_versions, render
from mcptrials.generate.sampler import COMPLEXITY_SIZES, Sampler
from mcptrials.judges.base import JudgeModel, MalformedReply, as_score
from mcptrials.model import Fixtures, ServerSpec, Task, ToolInfo, stable_hash
from mcptrials.models.base import ChatModel, ProviderError
from mcptrials.scoring.answers import normalise_text, states

if TYPE_CHECKING:
    from mcptrials.generate.validate import Validation
    from mcptrials.tasks.alternatives import Alternative

STAGES: dict[str, tuple[str, ...]] = {
    "chains": ("discover", "synthesise", "quality", "explore", "distill", "validate", "fuzz", "keypoints",
               "distractors"),
    "explore": ("sample", "goal", "explore", "distill", "validate", "keypoints", "distractors"),
}
CHAIN_CATEGORIES = ("prerequisite-strict", "complementary", "long-similar-chain")
"""The categories a chain task takes when ``--categories`` is not given."""
PROMPTS = {"chains": ("synthesise_system.txt", "synthesise_user.txt", "quality_system.txt", "quality_user.txt",
                      "fuzz_system.txt", "fuzz_user.txt"),
           "explore": ("goal_system.txt", "goal_user.txt", "personas.txt")}
DEFAULT_NOW = "2026-04-13T09:00:00+08:00"


@dataclass
class GenerateConfig:
    """Every setting that shapes the candidates; all of it is hashed into the candidates' ledger keys."""

    method: Method
    n: int
    categories: list[str]
    seed: int = 0
    distractors: int = 0
    max_candidates: int | None = None
    min_solvability: float = 9.0
    min_utility: float = 5.0
    max_turns: int = 20
    retries: int = 2
    now: datetime = field(default_factory=lambda: datetime.fromisoformat(DEFAULT_NOW))
    fixtures: dict[str, str] = field(default_factory=dict)

    @property
    def budget(self) -> int:
        """How many candidates may be made at most."""
        return self.max_candidates or max(4 * self.n, 8)

    def key(self, model: str) -> str:
        return stable_hash({"method": self.method, "categories": self.categories, "seed": self.seed,
                            "distractors": self.distractors, "min_solvability": self.min_solvability,
                            "min_utility": self.min_utility, "max_turns": self.max_turns, "retries": self.retries,
                            "now": self.now.isoformat(), "fixtures": self.fixtures, "model": model,
                            "prompts": prompt_versions(*PROMPTS[self.method])})


@dataclass
class Distiller:
    """The distiller's three steps (``trace.pursue``, ``distill.distill``, ``validate.validate``)."""

    pursue: Callable[..., Awaitable[Trace]]
    distill: Callable[[TaskDraft, Trace], Task]
    validate: Callable[[Task, Mapping[str, ServerSpec]], Awaitable[Validation]]


def default_distiller() -> Distiller:
    from mcptrials.generate.distill import distill
    from mcptrials.generate.trace import pursue
    from mcptrials.generate.validate import validate

    return Distiller(pursue=pursue, distill=distill, validate=validate)


@dataclass
class World:
    """The configured servers, their tools and the dependency edges between them."""

    specs: dict[str, ServerSpec]
    tools: list[ToolInfo]
    edges: list[Edge]

    @classmethod
    async def load(cls, specs: Mapping[str, ServerSpec]) -> World:
        from mcptrials.servers.health import list_tools

        listing = await list_tools(list(specs.values()))
        tools = [t for name in sorted(listing) for t in listing[name]]
        return cls(dict(specs), tools, discover(tools))

    def tools_text(self, servers: Sequence[str]) -> str:
        return "\n".join(f"- {t.qualified_name}: {t.description.strip()}\n  input: "
                         f"{json.dumps(t.input_schema.get('properties', {}), sort_keys=True)[:1200]}"
                         for t in self.tools if t.server in servers)

    def servers_text(self, servers: Sequence[str]) -> str:
        return "\n".join(f"- {name} ({self.specs[name].dynamism}; {self.specs[name].category or 'no category'}): "
                         f"{', '.join(t.name for t in self.tools if t.server == name)}" for name in servers)


@dataclass
class Candidate:
    """One candidate on its way through the stages."""

    index: int
    id: str
    category: str
    passed: list[str] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)

    def record(self, outcome: str, *, stage: str | None = None, reason: str | None = None, task: Task | None = None,
               alternatives: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        return {"index": self.index, "id": self.id, "category": self.category, "outcome": outcome,
                "stage": stage, "reason": reason, "passed": self.passed, "detail": self.detail,
                "task": task.model_dump(mode="json", exclude_none=True) if task else None,
                "alternatives": alternatives or []}


EventHook = Callable[[str, dict[str, Any] | None], None]


class Generator:
    """Makes candidates for one configuration until ``n`` are kept or the candidate budget is spent."""

    def __init__(self, world: World, config: GenerateConfig, chat: ChatModel, ledger: Ledger,
                 distiller: Distiller | None = None, on_event: EventHook | None = None) -> None:
        self.world = world
        self.config = config
        self.chat = LedgerChat(chat, ledger)
        self.asker = JudgeModel(self.chat, cache=None, retries=config.retries)
        self.ledger = ledger
        self.distiller = distiller or default_distiller()
        self.on_event = on_event or (lambda _kind, _record: None)
        self.sampler = Sampler(world.tools, world.specs, world.edges)
        self.run_key = config.key(chat.spec)
        self.goals: dict[str, str] = {}
        """Normalised goals of earlier candidates -> their ids: a goal is pursued once."""

    async def run(self) -> list[dict[str, Any]]:
        """Every candidate record of this configuration, in order (stored ones replayed, new ones made)."""
        records: list[dict[str, Any]] = []
        kept = 0
        self.on_event("start", None)
        for index in range(self.config.budget):
            if kept >= self.config.n:
                break
            key = stable_hash([self.run_key, index])
            record = self.ledger.candidate(key)
            if record is None:
                record = await self._make(index)
                if not _transient(record):  # a provider or internal failure is tried again on a re-run
                    self.ledger.put_candidate(key, record)
                self.on_event("candidate", record)
            else:
                self.on_event("replayed", record)
            records.append(record)
            kept += record["outcome"] == "kept"
            if record["detail"].get("goal"):
                self.goals.setdefault(normalise_text(record["detail"]["goal"]), record["id"])
        return records

    async def _make(self, index: int) -> dict[str, Any]:
        config = self.config
        category = config.categories[index % len(config.categories)]
        cand = Candidate(index, f"{config.method}-s{config.seed}-{index:03d}", category)
        rng = random.Random(f"{config.seed}:{config.method}:{index}")
        try:
            make = self._chains if config.method == "chains" else self._explore
            task, alternatives = await make(cand, BY_NAME[category], rng)
        except Rejected as exc:
            return cand.record("dropped", stage=exc.stage, reason=exc.reason)
        except ProviderError as exc:
            if exc.fatal:
                raise
            return cand.record("dropped", stage=_next_stage(config.method, cand), reason=f"provider {exc.kind}: "
                               f"{exc.message[:200]}")
        except Exception as exc:  # a bug in one stage must not cost the other candidates
            from mcptrials.run.runner import FatalRunError

            if isinstance(exc, FatalRunError | LedgerError):  # the run cannot go on: stop it, not this candidate
                raise
            return cand.record("dropped", stage=_next_stage(config.method, cand),
                               reason=f"error: {type(exc).__name__}: {str(exc)[:300]}")
        return cand.record("kept", task=task, alternatives=alternatives)

    # ------------------------------------------------------------------ chains

    async def _chains(self, cand: Candidate, category: Category, rng: random.Random) -> tuple[Task, list[Any]]:
        length = rng.choice((2, 3, 3, 4))
        chain = pick_chain(self.world.edges, rng, length, prefer_cross=category.name == "complementary")
        if chain is None:
            raise Rejected("discover", "no dependency between the servers' tools was found")
        cand.detail["chain"] = list(chain.tools)
        cand.passed.append("discover")
        servers = chain.servers
        tools_text = self.world.tools_text(servers)
        synth = await ask(self.asker, "synthesise", render("synthesise_system.txt"),
                          render("synthesise_user.txt", category=category.name, framing=category.framing,
                                 chain=chain.describe(), tools=tools_text, fixtures=self._fixture_names(),
                                 now=self.config.now.isoformat()),
                          _synthesis_validator(list(self.world.specs)))
        goal, analysis = synth["task"], synth["dependency_analysis"]
        self._new_goal(cand, "synthesise", goal)
        servers = list(dict.fromkeys([*servers, *synth["servers"]]))
        cand.passed.append("synthesise")
        quality = await ask(self.asker, "quality", render("quality_system.txt"),
                            render("quality_user.txt", task=goal, analysis=analysis,
                                   tools=self.world.tools_text(servers)), _quality_validator)
        cand.detail["quality"] = quality
        if quality["solvability"] < self.config.min_solvability:
            raise Rejected("quality", f"solvability {quality['solvability']:g} < {self.config.min_solvability:g}")
        if quality["utility"] < self.config.min_utility:
            raise Rejected("quality", f"utility {quality['utility']:g} < {self.config.min_utility:g}")
        cand.passed.append("quality")
        draft = self._draft(cand, goal, servers, list(chain.tools), analysis, {"chain": chain_record(chain),
                                                                               "quality": quality})
        task, alternatives = await self._distil(cand, draft)
        values = _given_values(task, goal)
        names = sorted({t.qualified_name for t in self.world.tools if t.server in task.servers}
                       | {t.name for t in self.world.tools if t.server in task.servers and "_" in t.name})
        fuzzed = await ask(self.asker, "fuzz", render("fuzz_system.txt"),
                           render("fuzz_user.txt", task=goal, values=", ".join(map(str, values)) or "(none)",
                                  tool_names=", ".join(names)), _fuzz_validator(goal, values, names))
        task = task.model_copy(update={"prompt": fuzzed["prompt"], "concrete_prompt": goal,
                                       "dependency_analysis": analysis})
        cand.passed.append("fuzz")
        return await self._finish(cand, task, alternatives)

    # ------------------------------------------------------------------ explore

    async def _explore(self, cand: Candidate, category: Category, rng: random.Random) -> tuple[Task, list[Any]]:
        size = COMPLEXITY_SIZES[(cand.index // len(self.config.categories)) % len(COMPLEXITY_SIZES)]
        seed = self.sampler.sample(category, size, rng)
        persona = rng.choice(personas())
        cand.detail.update({"anchor": seed.anchor.qualified_name, "seed_tools": [t.qualified_name for t in seed.tools],
                            "persona": persona})
        cand.passed.append("sample")
        servers = seed.servers
        reply = await ask(self.asker, "goal", render("goal_system.txt"),
                          render("goal_user.txt", category=category.name, framing=category.framing, persona=persona,
                                 steps=max(1, size // 2 + 1), anchor=_tool_line(seed.anchor),
                                 seeds="\n".join(_tool_line(t) for t in seed.tools[1:]) or "(none)",
                                 servers=self.world.servers_text(servers), fixtures=self._fixture_names(),
                                 now=self.config.now.isoformat()),
                          _goal_validator(list(self.world.specs)))
        self._new_goal(cand, "goal", reply["goal"])
        cand.passed.append("goal")
        servers = list(dict.fromkeys([seed.anchor.server, *reply["servers"], *servers]))
        draft = self._draft(cand, reply["goal"], servers, [t.qualified_name for t in seed.tools], None,
                            {"anchor": seed.anchor.qualified_name, "persona": persona, "why": reply.get("why", "")})
        task, alternatives = await self._distil(cand, draft)
        return await self._finish(cand, task, alternatives)

    # ------------------------------------------------------------------ shared

    def _new_goal(self, cand: Candidate, stage: str, goal: str) -> None:
        cand.detail["goal"] = goal
        earlier = self.goals.get(normalise_text(goal))
        if earlier is not None:
            raise Rejected(stage, f"the same goal as {earlier}")

    def _fixture_names(self) -> str:
        return ", ".join(sorted(self.config.fixtures)) or "(none)"

    def _draft(self, cand: Candidate, goal: str, servers: list[str], seed_tools: list[str], analysis: str | None,
               extra: dict[str, Any]) -> TaskDraft:
        provenance = {"generator": "mcptrials.generate", "package_version": mcptrials.__version__,
                      "method": self.config.method, "model": self.chat.spec, "seed": self.config.seed,
                      "candidate": cand.index, "category": cand.category,
                      "prompts": prompt_versions(*PROMPTS[self.config.method]), **extra}
        return TaskDraft(id=cand.id, goal=goal, servers=servers, category=cand.category, method=self.config.method,
                         seed_tools=seed_tools, dependency_analysis=analysis, now=self.config.now,
                         fixtures=Fixtures(files=dict(self.config.fixtures)), provenance=provenance)

    async def _distil(self, cand: Candidate, draft: TaskDraft) -> tuple[Task, list[Alternative]]:
        trace = await self.distiller.pursue(self.world.specs, draft, self.chat, max_turns=self.config.max_turns)
        cand.passed.append("explore")
        task = self.distiller.distill(draft, trace)
        task = task.model_copy(update={"id": draft.id, "category": draft.category,
                                       "provenance": {**task.provenance, **draft.provenance}})
        cand.passed.append("distill")
        validation = await self.distiller.validate(task, self.world.specs)
        if not validation.passed:
            raise Rejected("validate", "; ".join(validation.reasons) or "the task failed validation")
        alternatives = [a.model_copy(update={"task": task.id}) for a in validation.alternatives]
        kinds = {a.expect for a in alternatives}
        if kinds != {"accept", "reject"}:
            missing = "correct" if "accept" not in kinds else "wrong"
            raise Rejected("validate", f"no {missing} alternative could be made for this task")
        cand.passed.append("validate")
        return task, alternatives

    async def _finish(self, cand: Candidate, task: Task, alternatives: list[Alternative]) -> tuple[Task, list[Any]]:
        from mcptrials.judges.keypoints import generate_key_points

        points = await generate_key_points(self.asker, task)
        if not points:
            raise Rejected("keypoints", f"no usable key points after {self.config.retries + 1} request(s) "
                                        "(malformed reply or provider error)")
        task = task.model_copy(update={"key_points": points})
        cand.passed.append("keypoints")
        if self.config.distractors:
            from mcptrials.run.offer import apply_distractors

            tasks, notes = apply_distractors([task], self.world.tools, self.config.distractors, self.config.seed)
            task = tasks[0]
            if len(task.distractors) < self.config.distractors:
                raise Rejected("distractors", notes.get(task.id) or "too few tools outside the task's servers")
        cand.passed.append("distractors")
        Task.model_validate(task.model_dump())  # the task format, exactly
        return task, [a.model_dump(exclude_defaults=True) for a in alternatives]


def chain_record(chain: Chain) -> dict[str, Any]:
    return {"tools": list(chain.tools), "edges": [{"from": e.source, "to": e.target, "param": e.param,
                                                   "evidence": e.evidence} for e in chain.edges]}


def _tool_line(tool: ToolInfo) -> str:
    return (f"- {tool.qualified_name}: {tool.description.strip()[:400]}\n  input: "
            f"{json.dumps(tool.input_schema.get('properties', {}), sort_keys=True)[:800]}")


_TRANSIENT = re.compile(r"^error: |\bprovider \w+: |\binfra error\b")


def _transient(record: dict[str, Any]) -> bool:
    """A drop no fault of the candidate's caused (provider trouble, a crashed stage): not stored as final."""
    return record["outcome"] == "dropped" and bool(_TRANSIENT.search(record["reason"] or ""))


def _next_stage(method: str, cand: Candidate) -> str:
    remaining = [s for s in STAGES[method] if s not in cand.passed]
    return remaining[0] if remaining else "finish"


def _synthesis_validator(servers: list[str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def validate(data: dict[str, Any]) -> dict[str, Any]:
        return {"task": need_text(data, "task", min_words=5),
                "dependency_analysis": need_text(data, "dependency_analysis", min_words=3),
                "servers": need_names(data, "servers", servers)}
    return validate


def _quality_validator(data: dict[str, Any]) -> dict[str, Any]:
    return {"solvability": as_score(data.get("solvability"), "solvability"),
            "utility": as_score(data.get("utility"), "utility"), "reason": str(data.get("reason", ""))[:500]}


def _goal_validator(servers: list[str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def validate(data: dict[str, Any]) -> dict[str, Any]:
        return {"goal": need_text(data, "goal", min_words=4), "servers": need_names(data, "servers", servers),
                "why": str(data.get("why", ""))[:300]}
    return validate


def _scalars(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _scalars(v)]
    if isinstance(value, list):
        return [x for v in value for x in _scalars(v)]
    return [value] if isinstance(value, str | int | float) and not isinstance(value, bool) else []


def _given_values(task: Task, goal: str) -> list[Any]:
    """Argument values of the reference plan that the precise goal states: the user must still give them."""
    found: list[Any] = []
    for step in task.reference:
        for value in _scalars(step.args):
            text = str(value).strip()
            if text and len(text) <= 80 and value not in found and states(goal, value):
                found.append(value)
    return found


def _fuzz_validator(goal: str, values: list[Any], tool_names: list[str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def validate(data: dict[str, Any]) -> dict[str, Any]:
        prompt = need_text(data, "prompt", min_words=4)
        lost = [v for v in values if not states(prompt, v)]
        if lost:
            raise MalformedReply(f"the rewrite dropped the value(s) {', '.join(map(str, lost))}")
        named = [n for n in tool_names if n.lower() in prompt.lower()]
        if named:
            raise MalformedReply(f"the rewrite names tool(s) {', '.join(named)}")
        if prompt.strip() == goal.strip():
            raise MalformedReply("the rewrite is the precise task unchanged")
        return {"prompt": prompt}
    return validate


# --------------------------------------------------------------------------- output and yield


def alternatives_path(out: Path) -> Path:
    """Where the kept alternatives go: ``tasks.jsonl`` -> ``tasks.alternatives.yaml``."""
    return out.with_name(f"{out.stem}.alternatives.yaml")


def ledger_path(out: Path) -> Path:
    """The ledger beside the output: ``tasks.jsonl`` -> ``tasks.gen.db``."""
    return out.with_name(f"{out.stem}.gen.db")


def write_outputs(records: Sequence[dict[str, Any]], out: Path) -> tuple[int, int]:
    """Write the kept tasks (JSONL, the task format) and their alternatives (YAML); (tasks, alternatives)."""
    kept = [r for r in records if r["outcome"] == "kept"]
    tasks = [Task.model_validate(r["task"]) for r in kept]
    alternatives = [a for r in kept for a in r["alternatives"]]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text("".join(t.model_dump_json(exclude_none=True) + "\n" for t in tasks), encoding="utf-8")
    tmp.replace(out)
    alt = alternatives_path(out)
    alt_tmp = alt.with_name(alt.name + ".tmp")
    alt_tmp.write_text(yaml.safe_dump({"alternatives": alternatives}, sort_keys=False, allow_unicode=True),
                       encoding="utf-8")
    alt_tmp.replace(alt)
    return len(tasks), len(alternatives)


def yield_report(method: str, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per stage: candidates that reached it, passed it, and were dropped there per reason."""
    order = list(STAGES[method]) + sorted({r["stage"] for r in records if r["stage"]} - set(STAGES[method]))
    stages = []
    for stage in order:
        dropped = Counter((r["reason"] or "")[:160] for r in records if r["stage"] == stage)
        passed = sum(stage in r["passed"] for r in records)
        stages.append({"stage": stage, "entered": passed + sum(dropped.values()), "passed": passed,
                       "dropped": dict(dropped.most_common())})
    per_category: dict[str, Counter[str]] = {}
    for r in records:
        per_category.setdefault(r["category"], Counter())[r["outcome"]] += 1
    return {"candidates": len(records), "kept": sum(r["outcome"] == "kept" for r in records), "stages": stages,
            "per_category": {k: dict(v) for k, v in sorted(per_category.items())},
            "dropped": [{"id": r["id"], "category": r["category"], "stage": r["stage"], "reason": r["reason"]}
                        for r in records if r["outcome"] == "dropped"]}
