"""The fault suite's fixture: a marker every process a test starts inherits, and a final sweep of strays."""

from __future__ import annotations

import contextlib
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from faults import MARK_VAR, marked


@pytest.fixture
def mark(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh marker in this test's environment; whatever is still marked at the end is killed."""
    value = uuid.uuid4().hex
    monkeypatch.setenv(MARK_VAR, value)
    yield value
    for proc in marked(value):  # never leave strays behind, even when the test failed
        with contextlib.suppress(psutil.Error):
            proc.kill()
