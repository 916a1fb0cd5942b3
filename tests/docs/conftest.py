"""The docs tests share tests/docs/markdown_blocks.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
