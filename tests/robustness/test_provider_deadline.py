"""A provider that drips bytes times out on the request's overall deadline, not never."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from mcptrials.models.base import Message, ProviderError
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.models.retry import RetryPolicy


@pytest.fixture
def dripping_endpoint() -> Iterator[str]:
    """An HTTP endpoint that answers 200 with a long body, one byte every 0.2 s (each read is quick)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    stop = threading.Event()

    def drip(conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            try:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
                while not stop.is_set():
                    conn.sendall(b" ")
                    time.sleep(0.2)
            except OSError:
                return

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=drip, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    listener.close()


async def test_a_dripping_provider_times_out_on_the_overall_deadline(dripping_endpoint: str) -> None:
    model = OpenAIModel(model="drip", base_url=dripping_endpoint, api_key="sk-test", timeout=1.5,
                        retry=RetryPolicy(max_retries=1, base_delay=0.01))
    t0 = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        await model.generate([Message(role="user", content="hi")], [])
    elapsed = time.monotonic() - t0
    assert caught.value.kind == "timeout"
    assert "overall request deadline" in caught.value.message
    assert 2.9 < elapsed < 6  # two attempts of 1.5 s each (one retry), never the drip's length
    assert model.stats.by_kind == {"timeout": 1}
