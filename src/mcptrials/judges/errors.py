"""Error types of failed episodes: MCPEvol-Bench's six classes and DynamicMCPBench's failure taxonomy.

Rules decide where the trace does, and the model is asked only otherwise:

- a minefield stepped on -> ``intent_tool_misalignment`` (a harmful or unasked-for action);
- the partial order broken -> ``planning_logic_error`` (acting before a precondition);
- the agent ran out of turns, budget, or was stopped for repeating itself ->
  ``planning_logic_error`` (a loop, or work never finished);
- a call of an unknown tool, arguments that are not JSON, or a call the server refused as
  breaking its schema, with a needed checkpoint never met -> ``specification_syntax_error``.

The failure-taxonomy label is read from the unmet checkpoints as the paper auto-classifies
it: an unmet value checkpoint is ``incomplete_aggregation``, a required tool never called
successfully ``tool_blindness`` (``server_attribution_error`` when a tool of that name was
called on another server), a required tool called with wrong arguments
``argument_hallucination``, a broken order ``order_violation``; a wrong sandbox state counts
as ``argument_hallucination`` when the writing tool was called and ``tool_blindness`` when not.
``wrong_branch`` and ``missing_prerequisite`` are not auto-classified (as in the paper).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mcptrials.judges.base import (
    SCORER_PREFIX,
    JudgeModel,
    MalformedReply,
    error_score,
    judge_usage_detail,
    register,
    render,
)
from mcptrials.judges.render import final_answer_text, tool_names, tools_text, trajectory_text
from mcptrials.model import Episode, Score, Task, ToolEffectCheckpoint, ToolInfo, split_qualified

NAME = "errors"
VERSION = "1"

ERROR_CLASSES = {
    "spec_syntax_err": "specification_syntax_error",
    "intent_misalign": "intent_tool_misalignment",
    "sem_param_err": "semantic_parameter_error",
    "plan_logic_err": "planning_logic_error",
    "op_redundancy": "operational_redundancy",
    "reason_obs_err": "reasoning_observation_error",
    "none": "none",
}
"""The judge's short codes (MCPEvol-Bench's output keys) and the class names reports use."""

TAXONOMY = ("incomplete_aggregation", "tool_blindness", "argument_hallucination", "server_attribution_error",
            "order_violation", "missing_prerequisite", "wrong_branch")

_SCHEMA_REFUSAL = re.compile(r"validation error|input should be|field required|missing (a )?required|"
                             r"required propert|unexpected keyword|invalid (argument|param)|is not of type|"
                             r"additional properties", re.IGNORECASE)


def syntax_violations(episode: Episode) -> list[int]:
    """Steps whose call broke the tool contract: unknown tool, non-JSON arguments, schema refusal."""
    out = []
    for call in episode.tool_calls:
        refused = call.is_error and _SCHEMA_REFUSAL.search(call.content or "")
        if call.error_kind in {"unknown_tool", "invalid_arguments"} or refused:
            out.append(call.index)
    return out


def rule_class(episode: Episode, tier1: Score) -> tuple[str, str] | None:
    """(error class, the rule that decided it), or None when the trace does not decide."""
    codes = set(tier1.failure_codes)
    if "minefield" in codes:
        return "intent_tool_misalignment", "minefield"
    if "order_violation" in codes:
        return "planning_logic_error", "order_violation"
    if episode.termination in {"max_turns", "budget"}:
        return "planning_logic_error", episode.termination
    if episode.termination == "agent_error" and "stuck" in (episode.agent_error or "").lower():
        return "planning_logic_error", "repeated_calls"
    if syntax_violations(episode) and codes & {"missing_effect", "wrong_arguments", "wrong_state"}:
        return "specification_syntax_error", "unknown_tool_or_schema"
    return None


def taxonomy_label(task: Task, episode: Episode, tier1: Score) -> str | None:
    """DynamicMCPBench's failure-taxonomy code from the unmet checkpoints (first cause in spec order)."""
    if "order_violation" in tier1.failure_codes and all(r.passed for r in tier1.checkpoints):
        return "order_violation"
    called = {c.name for c in episode.tool_calls if not c.is_error}
    called_tools = {split_qualified(n)[1] for n in called if "__" in n}
    for result in tier1.checkpoints:
        if result.passed:
            continue
        cp = next((c for c in task.spec.checkpoints if c.id == result.id), None)
        if result.failure == "missing_value":
            return "incomplete_aggregation"
        if result.failure == "wrong_arguments":
            return "argument_hallucination"
        if result.failure == "missing_effect" and isinstance(cp, ToolEffectCheckpoint):
            wanted = {split_qualified(n)[1] for n in cp.tool_names if "__" in n}
            return "server_attribution_error" if wanted & called_tools else "tool_blindness"
        if result.failure == "wrong_state":
            return "argument_hallucination" if called else "tool_blindness"
    return "order_violation" if "order_violation" in tier1.failure_codes else None


def _validate(data: dict[str, Any]) -> dict[str, Any]:
    code = str(data.get("primary_category", "")).strip().lower()
    long_names = {v: k for k, v in ERROR_CLASSES.items()}
    code = long_names.get(code, code)
    if code not in ERROR_CLASSES:
        raise MalformedReply(f"'primary_category' must be one of {', '.join(ERROR_CLASSES)}, got {code!r}")
    try:
        confidence = float(data.get("confidence", 0.5))
    except (TypeError, ValueError):
        confidence = 0.5
    return {"primary_category": code, "confidence": max(0.0, min(1.0, confidence)),
            "evidence": str(data.get("evidence", ""))[:1000], "analysis": str(data.get("analysis", ""))[:2000]}


class ErrorTypeJudge:
    """Gives every failed episode an error class (rules first) and a failure-taxonomy label."""

    name = NAME
    version = VERSION

    def __init__(self, model: JudgeModel | None) -> None:
        self.model = model

    async def judge(self, task: Task, episode: Episode, tier1: Score,
                    tools: Mapping[str, ToolInfo] | None = None) -> Score | None:
        if tier1.passed or tier1.passed is None or episode.infra_error is not None:
            return None
        taxonomy = taxonomy_label(task, episode, tier1)
        decided = rule_class(episode, tier1)
        base = {"taxonomy": taxonomy, "tier1_failure_codes": list(tier1.failure_codes)}
        if decided is not None or self.model is None:
            error_class, rule = decided or ("unclassified", "no rule applies and no judge model")
            return Score(episode_id=episode.id, scorer=SCORER_PREFIX + self.name, scorer_version=self.version,
                         passed=None, values={"judge_cost_usd": 0.0, "judge_prompt_tokens": 0.0,
                                              "judge_completion_tokens": 0.0},
                         detail={**base, "error_class": error_class, "decided_by": "rule", "rule": rule,
                                 "requests": 0, "cached": 0})
        hints = "; ".join([f"failed checks: {', '.join(tier1.failure_codes) or 'none'}"]
                          + [f"{r.id}: {r.detail}" for r in tier1.checkpoints if not r.passed])
        user = render("errors_user.txt", prompt=task.prompt, tools=tools_text(tool_names(episode, tools), tools),
                      answer=final_answer_text(episode), trajectory=trajectory_text(episode), hints=hints)
        answer = await self.model.ask(self.name, self.version, render("errors_system.txt"), user, _validate)
        if not answer.ok:
            score = error_score(self.name, self.version, episode, self.model, [answer], answer.error or "")
            score.detail.update(base)
            return score
        data = answer.data or {}
        values, detail = judge_usage_detail(self.model, [answer])
        return Score(episode_id=episode.id, scorer=SCORER_PREFIX + self.name, scorer_version=self.version,
                     passed=None, value=data["confidence"], values=values,
                     detail={**detail, **base, "error_class": ERROR_CLASSES[data["primary_category"]],
                             "decided_by": "judge", "evidence": data["evidence"], "analysis": data["analysis"]})


@register(NAME)
def error_type_judge(model: JudgeModel | None) -> ErrorTypeJudge:
    """The error-type classifier: rules from the trace, ``model`` where they do not decide."""
    return ErrorTypeJudge(model)
