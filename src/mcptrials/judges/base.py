"""What every judge shares: the protocol, the registry, and one careful way to ask a model.

A judge is built by a factory (``rubric_judge(model, repeats=5)``) and returns an object with a
``name``, a ``version`` and an async ``judge(task, episode, tier1, tools=None) -> Score | None``
(None: the judge has nothing to say about this episode, e.g. Tier-2 on a passing one).

``JudgeModel.ask`` is the only place a judge talks to a model. It renders nothing itself; it
takes the finished prompt, looks it up in the judgment cache by (judge, version, prompt hash),
calls the model on a miss, reads a JSON object out of the reply however it is wrapped (code
fences, prose before or after), validates it, asks again when the reply is malformed (two
more times by default) and, when it never gets a usable reply, returns an error instead of
raising. Tokens and cost of every request are summed into the answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from string import Template
from typing import Any, Protocol, runtime_checkable

from mcptrials.model import Episode, Score, Task, ToolInfo, Usage, stable_hash
from mcptrials.models.base import ChatModel, Message, ProviderError

JUDGE_ERROR = "judge_error"
"""The failure code of a judged score whose model never gave a usable reply."""

SCORER_PREFIX = "judge:"
"""Judged scores are stored under ``judge:<name>`` so they never collide with rule scorers."""


@runtime_checkable
class Judge(Protocol):
    """A model-based scorer that runs after the deterministic Tier-1 verdict."""

    name: str
    version: str

    async def judge(self, task: Task, episode: Episode, tier1: Score,
                    tools: Mapping[str, ToolInfo] | None = None) -> Score | None:
        """Judge one episode; None when this judge does not apply to it."""
        ...


class JudgmentCache(Protocol):
    """Where judgments are kept between runs (the result store implements it)."""

    def get_judgment(self, judge: str, version: str, prompt_hash: str) -> dict[str, Any] | None: ...

    def put_judgment(self, judge: str, version: str, prompt_hash: str, data: dict[str, Any]) -> None: ...


class MalformedReply(ValueError):
    """A reply that holds no usable JSON object (or one missing what the judge needs)."""


def prompt_text(name: str) -> str:
    """The text of a prompt file shipped beside the judges."""
    return resources.files("mcptrials.judges").joinpath("prompts", name).read_text("utf-8")


def render(name: str, **values: Any) -> str:
    """Fill a prompt file's ``$placeholders`` (JSON braces in the prompt stay as they are)."""
    return Template(prompt_text(name)).substitute({k: str(v) for k, v in values.items()})


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def extract_json(text: str) -> dict[str, Any]:
    """The first JSON object in a reply: inside a code fence, or the first balanced ``{...}``.

    Raises ``MalformedReply`` when there is none.
    """
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for chunk in candidates:
        start = chunk.find("{")
        while start != -1:
            try:
                value, _ = decoder.raw_decode(chunk, start)
            except json.JSONDecodeError:
                start = chunk.find("{", start + 1)
                continue
            if isinstance(value, dict):
                return value
            start = chunk.find("{", start + 1)
    raise MalformedReply("the reply holds no JSON object")


def as_bool(value: Any, key: str) -> bool:
    """A yes/no field, accepting true/false, "yes"/"no" and 1/0."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in {"true", "yes", "y", "1", "pass", "passed"}:
        return True
    if isinstance(value, str) and value.strip().lower() in {"false", "no", "n", "0", "fail", "failed"}:
        return False
    raise MalformedReply(f"{key!r} must be true or false, got {value!r}")


def as_score(value: Any, key: str, low: int = 1, high: int = 10) -> float:
    """A number on ``[low, high]`` (a numeric string is accepted)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise MalformedReply(f"{key!r} must be a number from {low} to {high}, got {value!r}") from None
    if not low <= number <= high:
        raise MalformedReply(f"{key!r} must be from {low} to {high}, got {number:g}")
    return number


@dataclass
class Answer:
    """What one ``ask`` produced: the validated JSON (or an error), its cost, and where it came from."""

    data: dict[str, Any] | None
    usage: Usage
    prompt_hash: str
    requests: int = 0
    cached: bool = False
    error: str | None = None
    raw: str = ""

    @property
    def ok(self) -> bool:
        return self.data is not None


@dataclass
class JudgeModel:
    """A chat model used as a judge, with the judgment cache and the malformed-reply policy."""

    chat: ChatModel
    cache: JudgmentCache | None = None
    retries: int = 2
    requests: int = field(default=0, init=False)

    @property
    def spec(self) -> str:
        return self.chat.spec

    def prompt_hash(self, system: str, user: str) -> str:
        return stable_hash({"model": self.chat.spec, "system": system, "user": user})

    async def ask(self, judge: str, version: str, system: str, user: str,
                  validate: Callable[[dict[str, Any]], dict[str, Any]]) -> Answer:
        """Ask once per prompt (cached), re-asking a malformed reply up to ``retries`` times."""
        digest = self.prompt_hash(system, user)
        if self.cache is not None:
            hit = self.cache.get_judgment(judge, version, digest)
            if hit is not None:
                return Answer(data=hit["data"], usage=Usage.model_validate(hit.get("usage", {})), prompt_hash=digest,
                              cached=True, raw=hit.get("raw", ""))
        messages = [Message(role="system", content=system), Message(role="user", content=user)]
        usage = Usage()
        problem = "no reply"
        raw = ""
        requests = 0
        for _ in range(self.retries + 1):
            requests += 1
            self.requests += 1
            try:
                response = await self.chat.generate(messages, [])
            except ProviderError as exc:
                if exc.fatal:
                    raise
                return Answer(data=None, usage=usage, prompt_hash=digest, requests=requests,
                              error=f"provider {exc.kind}: {exc.message}", raw=raw)
            usage = usage + response.usage
            raw = response.text
            try:
                data = validate(extract_json(raw))
            except MalformedReply as exc:
                problem = str(exc)
                messages = [*messages, Message(role="assistant", content=raw),
                            Message(role="user", content=prompt_text("malformed_reply.txt").replace(
                                "$problem", problem))]
                continue
            if self.cache is not None:
                self.cache.put_judgment(judge, version, digest, {
                    "data": data, "usage": usage.model_dump(), "raw": raw, "model": self.chat.spec})
            return Answer(data=data, usage=usage, prompt_hash=digest, requests=requests, raw=raw)
        return Answer(data=None, usage=usage, prompt_hash=digest, requests=requests,
                      error=f"malformed reply after {requests} request(s): {problem}", raw=raw[:2000])


def judge_usage_detail(model: JudgeModel, answers: list[Answer]) -> tuple[dict[str, float], dict[str, Any]]:
    """The ``values`` and ``detail`` entries every judged score carries: tokens, cost, cache use."""
    usage = sum((a.usage for a in answers), Usage())
    values = {"judge_prompt_tokens": float(usage.prompt_tokens),
              "judge_completion_tokens": float(usage.completion_tokens),
              "judge_cost_usd": usage.cost_usd}
    detail = {"judge_model": model.spec, "requests": sum(a.requests for a in answers),
              "cached": sum(a.cached for a in answers), "prompt_hashes": [a.prompt_hash for a in answers],
              "usage": usage.model_dump()}
    return values, detail


def error_score(name: str, version: str, episode: Episode, model: JudgeModel, answers: list[Answer],
                message: str) -> Score:
    """A judged score that records a judge error instead of a verdict."""
    values, detail = judge_usage_detail(model, answers)
    return Score(episode_id=episode.id, scorer=SCORER_PREFIX + name, scorer_version=version, passed=None,
                 values=values, failure_codes=[JUDGE_ERROR], detail={**detail, "error": message})


# --------------------------------------------------------------------------- registry

JudgeFactory = Callable[..., Judge]
_REGISTRY: dict[str, JudgeFactory] = {}
JUDGE_NAMES = ("tier2", "keypoints", "rubric", "errors")


def register(name: str) -> Callable[[JudgeFactory], JudgeFactory]:
    """Register a judge factory under a name (``--judges NAME``)."""
    def wrap(factory: JudgeFactory) -> JudgeFactory:
        _REGISTRY[name] = factory
        return factory
    return wrap


def judge_factories() -> dict[str, JudgeFactory]:
    """Every registered judge factory by name (importing the bundled judges registers them)."""
    import mcptrials.judges.errors
    import mcptrials.judges.keypoints
    import mcptrials.judges.rubric
    import mcptrials.judges.tier2  # noqa: F401

    return dict(_REGISTRY)


class JudgeSpecError(ValueError):
    """An unknown judge name or bad judge option."""


def build_judges(model: JudgeModel, names: str | list[str] | None = None, rubric_repeats: int = 5) -> list[Judge]:
    """The judges named (comma-separated or a list; default all), each on ``model``."""
    factories = judge_factories()
    if names is None:
        chosen = list(JUDGE_NAMES)
    else:
        chosen = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    unknown = [n for n in chosen if n not in factories]
    if unknown:
        raise JudgeSpecError(f"unknown judge(s) {', '.join(unknown)} (known: {', '.join(sorted(factories))})")
    if rubric_repeats < 1:
        raise JudgeSpecError("--rubric-repeats must be at least 1")
    return [factories[n](model, repeats=rubric_repeats) if n == "rubric" else factories[n](model) for n in chosen]
