"""A local OpenAI-compatible endpoint that answers like a judge model, chosen by the prompt it receives.

Every request body is kept; ``replies`` (a queue) overrides the scripted answers, e.g. to send
malformed replies first.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

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


class JudgeEndpoint:
    """Serve on 127.0.0.1; ``requests`` keeps every body, ``replies`` (strings) are sent first."""

    def __init__(self, responder: Callable[[dict[str, Any]], str] = scripted_judge) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: list[str] = []
        self.responder = responder
        self._lock = threading.Lock()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                request = json.loads(raw or b"{}")
                with endpoint._lock:
                    endpoint.requests.append(request)
                    text = endpoint.replies.pop(0) if endpoint.replies else None
                if text is None:
                    text = endpoint.responder(request)
                data = json.dumps(body(text)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> JudgeEndpoint:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
