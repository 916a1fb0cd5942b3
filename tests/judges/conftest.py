from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from judge_endpoint import JudgeEndpoint


@pytest.fixture
def judge_endpoint() -> Iterator[JudgeEndpoint]:
    with JudgeEndpoint() as endpoint:
        yield endpoint
