"""A wrong ``--address`` fails in seconds with one line (Ray itself keeps retrying for minutes)."""

from __future__ import annotations

import socket
import time

import pytest

from mcptrials.run.executors import ExecutorError, make_executor


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("address", ["127.0.0.1:{port}", "no-port-given"])
def test_an_address_where_nothing_answers_fails_fast_and_clearly(address: str) -> None:
    pytest.importorskip("ray", reason="ray is not installed (pip install 'mcptrials[ray]')")
    address = address.format(port=_closed_port())
    start = time.monotonic()
    with pytest.raises(ExecutorError) as caught:
        make_executor("ray", address)
    assert time.monotonic() - start < 10
    assert address in str(caught.value) and "\n" not in str(caught.value)
