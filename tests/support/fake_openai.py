"""A local OpenAI-compatible Chat Completions endpoint for tests, served over real HTTP.

Tests queue replies (status, headers, body, delay); each POST takes the next one, and every
request body is kept for assertions.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted HTTP reply."""

    status: int = 200
    body: str | dict[str, Any] = ""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def anthropic_message(text: str = "", tool_uses: list[tuple[str, dict[str, Any]]] | None = None,
                      input_tokens: int = 11, output_tokens: int = 7) -> Reply:
    """A successful Anthropic Messages API reply with optional tool_use blocks."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": args}
                for i, (name, args) in enumerate(tool_uses or [])]
    return Reply(body={"id": "msg_test", "type": "message", "role": "assistant", "model": "fake", "content": content,
                       "stop_reason": "tool_use" if tool_uses else "end_turn", "stop_sequence": None,
                       "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}})


def completion(text: str = "", tool_calls: list[tuple[str, dict[str, Any] | str]] | None = None,
               prompt_tokens: int = 11, completion_tokens: int = 7) -> Reply:
    """A successful chat completion with optional tool calls (name, arguments)."""
    calls = [{"id": f"call_{i}", "type": "function",
              "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
             for i, (name, args) in enumerate(tool_calls or [])]
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = calls
    return Reply(body={
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "fake",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    })


class FakeOpenAI:
    """Serve queued replies on 127.0.0.1; use as a context manager."""

    def __init__(self, responder: Callable[[dict[str, Any]], Reply] | None = None, keep_alive: bool = False) -> None:
        """``keep_alive``: speak HTTP/1.1 and keep connections open, as real endpoints do."""
        self.replies: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        """The URL path of each request, in the order of ``requests``."""
        self.default: Reply | None = None
        self.responder = responder
        """Makes the reply from the request when none is queued (before ``default``)."""
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                request = json.loads(raw or b"{}")
                with fake._lock:
                    fake.requests.append(request)
                    fake.paths.append(self.path)
                    reply = fake.replies.pop(0) if fake.replies else None
                if reply is None and fake.responder is not None:
                    reply = fake.responder(request)
                if reply is None:
                    reply = fake.default
                if reply is None:
                    reply = Reply(status=500, body={"error": {"message": "no reply queued"}})
                if reply.delay:
                    time.sleep(reply.delay)
                body = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                data = body.encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
