"""What every code a report or diff prints means: failure codes, operators O1-O11, patterns P1-P18, error kinds."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Code:
    """One code with its family, short name and a sentence saying what it means."""

    code: str
    family: str
    name: str
    meaning: str


FAILURE_MEANINGS: dict[str, str] = {
    "missing_effect": "No successful call of any tool that does the required job (a tool-effect checkpoint unmet).",
    "wrong_arguments": "A tool that does the job was called, but never with the arguments the task needs.",
    "missing_value": "A value the task needs never appeared (in a tool result or the final answer).",
    "wrong_state": "The sandbox after the episode (file, JSON record, database row) is not what the task needs.",
    "minefield": "The agent did something the task forbids (a harmful or unwanted effect): the episode fails.",
    "order_violation": "Required steps happened in the wrong order (the spec's partial order).",
    "no_answer": "The agent ended without a final answer where one was needed.",
    "max_turns": "The episode ran out of model turns before the agent finished.",
    "budget": "The episode hit its token budget (--max-episode-tokens) before the agent finished.",
    "agent_error": "The agent loop stopped itself, e.g. the same tool calls repeated --max-repeats turns in a row.",
}

ERROR_KIND_MEANINGS: dict[str, str] = {
    "tool_error": "The server answered the call with an error (is_error): usually bad arguments or a refused action.",
    "unknown_tool": "The agent named a tool no server offers.",
    "invalid_arguments": "The agent's arguments were not a JSON object.",
    "protocol_error": "The server answered with an MCP/JSON-RPC error.",
    "timeout": "No answer within the per-call timeout, though the server still answered other requests: the call "
               "asked for too much (the agent's, scored).",
    "server_crash": "The server process or connection died during the call (infrastructure, not the agent).",
    "server_unavailable": "The server had already died or never started (infrastructure, not the agent).",
    "replay_miss": "Under replay, a call the recorded world never answered.",
    "server_unresponsive": "No answer within the per-call timeout, nor to a request after it: the server is stuck "
                           "(infrastructure, not the agent).",
}


def all_codes() -> list[Code]:
    """Every code, in the order a legend lists them: failure codes, tool error kinds, O1-O11, P1-P18."""
    from mcptrials.evolve.operators import OPERATORS
    from mcptrials.evolve.patterns import PATTERNS, pattern_sort_key

    codes = [Code(c, "failure code", c.replace("_", " "), m) for c, m in FAILURE_MEANINGS.items()]
    codes += [Code(c, "tool error kind", c.replace("_", " "), m) for c, m in ERROR_KIND_MEANINGS.items()]
    codes += [Code(op.id, f"operator ({op.level.value} level)", op.name, op.summary) for op in OPERATORS.values()]
    codes += [Code(p.id, "evolution pattern", p.name, p.definition + (
        f" (combines {', '.join(sorted(p.parts, key=pattern_sort_key))})" if p.parts else ""))
        for p in sorted(PATTERNS.values(), key=lambda p: pattern_sort_key(p.id))]
    return codes


def explain(code: str) -> Code | None:
    """The code named (case-insensitive; ``o3``, ``P14``, ``missing_effect``), or None."""
    wanted = code.strip().lower().replace("-", "_")
    return next((c for c in all_codes() if c.code.lower() == wanted), None)
