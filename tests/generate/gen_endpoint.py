"""A scripted generation model behind the fake OpenAI endpoint: it answers each stage by the request's content.

Stages are told apart by their system prompt. The goals it writes come from recipes (a goal and
the calls that carry it out, later calls taking values out of earlier results); the explorer
turns of a known goal follow its recipe, call by call, and then answer with values read from
the last result. Chains whose tools have no recipe get a low solvability score, as a careful
reviewer would give a task it cannot see how to do. ``faults`` makes chosen stages reply with
malformed text (every time, or the first N times).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from fake_openai import FakeOpenAI, Reply, completion

STAGE_MARKERS = {
    "synthesise": "You write test tasks for AI agents",
    "quality": "You review candidate test tasks",
    "fuzz": "You turn precise test tasks",
    "goal": "You invent realistic requests",
    "keypoints": "You write grading key points",
}


@dataclass
class Step:
    tool: str
    args: dict[str, Any]
    """Values ``$key`` are read from the previous result (the first field of that name); ``$re:PATTERN`` by regex."""


@dataclass
class Recipe:
    goal: str
    steps: list[Step]


def weather_recipe(tool: str) -> Recipe | None:
    extra = {"weather__get_forecast": {"days": 2}, "weather__get_historical_weather": {"date": "2026-04-10"},
             "weather__get_hourly_forecast": {"hours": 3}}
    if tool not in {"weather__get_current_weather", "weather__get_forecast", "weather__get_alerts",
                    "weather__get_air_quality", "weather__get_historical_weather", "weather__get_hourly_forecast"}:
        return None
    what = tool.split("__get_")[1].replace("_", " ")
    return Recipe(f"Find the weather location for Denver, then report the {what} there with its main figures.",
                  [Step("weather__search_locations", {"query": "Denver"}),
                   Step(tool, {"location": "$id", **extra.get(tool, {})})])


def parks_recipe(tool: str) -> Recipe | None:
    if tool not in {"parks__get_park_details", "parks__get_campgrounds", "parks__get_visitor_centers",
                    "parks__get_alerts"}:
        return None
    what = tool.split("__get_")[1].replace("_", " ")
    return Recipe(f"Find Bryce Canyon National Park, then tell me its {what} with the main details.",
                  [Step("parks__search_parks", {"query": "Bryce", "limit": 1}),
                   Step(tool, {"park_code": "$park_code"})])


def git_recipe(repo: str) -> Recipe:
    return Recipe(f"In the git repository at {repo}, show me the latest commit: who wrote it and its message.",
                  [Step("git__git_log", {"repo_path": repo, "max_count": 1}),
                   Step("git__git_show", {"repo_path": repo, "revision": r"$re:([0-9a-f]{40})"})])


def git_author_recipe(repo: str) -> Recipe:
    return Recipe(f"Who made the most recent commit in the git repository at {repo}, and when?",
                  [Step("git__git_log", {"repo_path": repo, "max_count": 1})])


TIME_RECIPE = Recipe("What time is it in Tokyo when it is 09:30 in New York? Tell me the Tokyo time.",
                     [Step("time__convert_time", {"source_timezone": "America/New_York", "time": "09:30",
                                                  "target_timezone": "Asia/Tokyo"})])


def _find_key(data: Any, key: str) -> Any:
    if isinstance(data, dict):
        if key in data and not isinstance(data[key], dict | list):
            return data[key]
        for value in data.values():
            found = _find_key(value, key)
            if found is not None:
                return found
    if isinstance(data, list):
        for value in data:
            found = _find_key(value, key)
            if found is not None:
                return found
    return None


def _leaves(data: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(data, dict):
        return [x for k, v in data.items() for x in _leaves(v, k)]
    if isinstance(data, list):
        return [x for v in data[:2] for x in _leaves(v, prefix)]
    if isinstance(data, str | int | float) and not isinstance(data, bool) and len(str(data)) <= 60:
        return [(prefix, data)]
    return []


def resolve(args: dict[str, Any], previous: str) -> dict[str, Any]:
    try:
        data = json.loads(previous)
    except ValueError:
        data = None
    out = {}
    for key, value in args.items():
        if isinstance(value, str) and value.startswith("$re:"):
            match = re.search(value[4:], previous)
            value = match.group(1) if match else "missing"
        elif isinstance(value, str) and value.startswith("$"):
            value = _find_key(data, value[1:]) if data is not None else None
            value = "missing" if value is None else value
        out[key] = value
    return out


def answer_from(result: str) -> str:
    try:
        data = json.loads(result)
    except ValueError:
        lines = [line.strip() for line in result.splitlines() if line.strip()][:4]
        return "Here is what I found: " + "; ".join(lines) + "."
    facts = [f"{k.replace('_', ' ')}: {v}" for k, v in _leaves(data) if k and not k.endswith("id")][:5]
    return "Here is what I found. " + "; ".join(facts) + "."


@dataclass
class GenModel:
    """The scripted replies; ``recipes`` by anchor server (explore) and the chain recipe makers (chains)."""

    explore_recipes: dict[str, Recipe | list[Recipe]] = field(default_factory=dict)
    chain_makers: list[Any] = field(default_factory=lambda: [weather_recipe, parks_recipe])
    faults: dict[str, int] = field(default_factory=dict)
    """stage -> how many malformed replies to give first (a large number: always)."""
    provider_error: set[str] = field(default_factory=set)
    """Stages answered with HTTP 400 (a provider error no retry fixes)."""
    fuzz_reply: str | None = None
    """A fixed rewrite to give instead of a faithful one."""
    goals: dict[str, Recipe] = field(default_factory=dict)
    seen: Counter[str] = field(default_factory=Counter)

    def stage(self, request: dict[str, Any]) -> str:
        if request.get("tools"):
            return "explorer"
        system = request["messages"][0]["content"]
        return next((s for s, marker in STAGE_MARKERS.items() if marker in system), "unknown")

    def __call__(self, request: dict[str, Any]) -> Reply:
        stage = self.stage(request)
        self.seen[stage] += 1
        if stage in self.provider_error:
            return Reply(status=400, body={"error": {"message": f"scripted refusal at {stage}"}})
        if self.faults.get(stage, 0) > 0:
            self.faults[stage] -= 1
            return completion({"synthesise": "Sure! Here is a task: check the weather.",
                               "quality": json.dumps({"solvability": 11, "utility": "high"}),
                               "fuzz": "{\"prompt\": \"\"}", "goal": "{\"goal\": 42}",
                               "keypoints": "{\"points\": []}"}.get(stage, "not json"))
        user = request["messages"][1]["content"] if len(request["messages"]) > 1 else ""
        if stage == "explorer":
            return self.explore(request)
        if stage == "synthesise":
            return completion(json.dumps(self.synthesise(user)))
        if stage == "quality":
            goal = user.split("Task:\n", 1)[1].split("\n", 1)[0].strip()
            known = goal in self.goals
            return completion("```json\n" + json.dumps({"solvability": 10 if known else 6, "utility": 7,
                                                        "reason": "clear" if known else "unclear inputs"}) + "\n```")
        if stage == "fuzz" and self.fuzz_reply is not None:
            return completion(json.dumps({"prompt": self.fuzz_reply}))
        if stage == "fuzz":
            goal = user.split("Precise task:\n", 1)[1].split("\n\nValues", 1)[0].strip()
            return completion(json.dumps({"prompt": "Quick favour, please. " + goal.replace("Find ", "look up ")}))
        if stage == "goal":
            return completion(json.dumps(self.goal(user)))
        if stage == "keypoints":
            return completion(json.dumps({"key_points": ["Names the item asked about", "States the figures found"]}))
        return completion("I cannot help with that.")

    def synthesise(self, user: str) -> dict[str, Any]:
        tools = re.findall(r"^\d+\. (\S+) -> (\S+)", user, re.MULTILINE)
        chain = [tools[0][0], *(t for _, t in tools)] if tools else []
        recipe = None
        if len(chain) == 2:
            recipe = next((r for make in self.chain_makers if (r := make(chain[1])) is not None
                           and r.steps[0].tool == chain[0]), None)
        if recipe is None:
            return {"task": f"Use the tools {' then '.join(chain)} to get something done for me today.",
                    "dependency_analysis": "The first result feeds the second call.", "servers": []}
        self.goals[recipe.goal] = recipe
        return {"task": recipe.goal, "servers": [],
                "dependency_analysis": f"{chain[0]} gives the identifier that {chain[1]} needs as its input."}

    def goal(self, user: str) -> dict[str, Any]:
        anchor = re.search(r"Anchor tool:\n- (\w+?)__", user)
        server = anchor.group(1) if anchor else ""
        found = self.explore_recipes.get(server) or next(iter(self.explore_recipes.values()))
        options = found if isinstance(found, list) else [found]
        recipe = next((r for r in options if r.goal not in self.goals), options[0])  # a new goal while there is one
        self.goals[recipe.goal] = recipe
        return {"goal": recipe.goal, "servers": [recipe.steps[0].tool.split("__")[0]], "why": "scripted"}

    def explore(self, request: dict[str, Any]) -> Reply:
        messages = request["messages"]
        goal = next(m["content"] for m in messages if m["role"] == "user")
        recipe = self.goals.get(goal.strip())
        results = [m["content"] for m in messages if m["role"] == "tool"]
        if recipe is None:
            return completion("GIVE UP: I do not know how to do this.")
        if len(results) < len(recipe.steps):
            step = recipe.steps[len(results)]
            return completion(tool_calls=[(step.tool, resolve(step.args, results[-1] if results else ""))])
        return completion(answer_from(results[-1]))


def endpoint(model: GenModel) -> FakeOpenAI:
    return FakeOpenAI(responder=model)
