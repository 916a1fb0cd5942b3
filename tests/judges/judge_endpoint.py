"""A local OpenAI-compatible endpoint that answers like a judge model, chosen by the prompt it receives.

Every request body is kept; ``replies`` (a queue) overrides the scripted answers, e.g. to send
malformed replies first.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fake_openai import FakeOpenAI, Reply

PROMPT_TOKENS = 1000
COMPLETION_TOKENS = 100


def body(text: str, prompt_tokens: int = PROMPT_TOKENS, completion_tokens: int = COMPLETION_TOKENS) -> dict[str, Any]:
    return {"id": "chatcmpl-judge", "object": "chat.completion", "created": 0, "model": "judge",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


def scripted_judge(request: dict[str, Any]) -> str:
    """A plausible reply for whichever judge sent ``request``."""
    system = request["messages"][0]["content"]
    user = request["messages"][1]["content"]
    if "rule-based checker" in system:
        return '```json\n{"achieved": true, "evidence_steps": [1], "reason": "same effect another way"}\n```'
    if "## Key points a complete solution meets" in user:
        block = user.split("## Key points a complete solution meets")[1].split("##")[0]
        n = sum(1 for line in block.splitlines() if line[:1].isdigit())
        points = [{"index": i + 1, "met": True, "reason": "shown"} for i in range(max(n, 1))]
        return "Here is my grading: " + json.dumps({"key_points": points, "success": True, "reason": "all met"})
    if "impartial evaluator" in system:
        keys = system.rsplit("keyed exactly:", 1)[1].strip().split(", ")
        return json.dumps({k: {"score": 7, "reason": "fine"} for k in keys}) + "\nThat is all."
    if "diagnose why" in system:
        return json.dumps({"primary_category": "sem_param_err", "confidence": 0.8, "evidence": "step 1",
                           "analysis": "wrong value"})
    if "grading key points" in system or "write grading key points" in user:
        return json.dumps({"key_points": ["States the actual EPS", "States the expected EPS"]})
    return "I do not know."


class JudgeEndpoint(FakeOpenAI):
    """The test endpoint answering as a judge; ``replies`` takes plain reply texts, sent first."""

    def __init__(self, responder: Callable[[dict[str, Any]], str] = scripted_judge) -> None:
        super().__init__(lambda request: Reply(body=body(responder(request))))

    @property  # type: ignore[override]
    def replies(self) -> list[Reply]:
        return self._queued

    @replies.setter
    def replies(self, items: list[Any]) -> None:
        self._queued = [item if isinstance(item, Reply) else Reply(body=body(item)) for item in items]

    def __enter__(self) -> JudgeEndpoint:
        super().__enter__()
        return self
