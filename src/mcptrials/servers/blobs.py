"""A content-addressed blob store beside the result DB: images and audio that tools return, kept as files."""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class BlobStore:
    """Files under ``root/<first two hex digits>/<sha256>``; the same bytes are stored once."""

    root: Path

    @classmethod
    def beside(cls, db: str | Path) -> BlobStore:
        """The store of a result DB: ``<db>.blobs/`` next to a DB file (``./mcptrials-blobs`` for a DB URL)."""
        text = str(db)
        if "://" in text and not text.startswith("sqlite"):
            return cls(Path("mcptrials-blobs"))
        return cls(Path(f"{text.split(':///', 1)[-1]}.blobs"))

    def path(self, key: str) -> Path:
        return self.root / key[:2] / key

    def put(self, data: bytes) -> str:
        """Store ``data`` (atomically, once); return its sha256 key."""
        key = hashlib.sha256(data).hexdigest()
        target = self.path(key)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".part-")
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, target)
        return key

    def put_base64(self, data: str) -> tuple[str, int] | None:
        """Decode and store base64 ``data``; (key, size) or None when it is not valid base64."""
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return None
        return self.put(raw), len(raw)

    def get(self, key: str) -> bytes:
        return self.path(key).read_bytes()
