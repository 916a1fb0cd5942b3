"""The generation ledger: every model reply and every candidate's outcome, stored as it is made.

A SQLite file beside the output (``tasks.jsonl`` -> ``tasks.gen.db``). A model call is keyed by
a hash of its request (model spec, settings, messages, tools); a re-run that makes the same
request gets the stored reply and pays for nothing. A finished candidate (kept or dropped) is
keyed by the run's arguments and its index, so a re-run skips it entirely.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptrials.model import Usage
from mcptrials.models.base import ChatModel, EpisodeContext, Message, ModelResponse, ToolSchema

_NOT_IN_KEY = frozenset({"retry", "timeout", "price_per_mtok", "base_url"})
"""Model settings that cannot change a reply (where it is sent, how it is retried and priced)."""


def request_key(spec: str, settings: dict[str, Any], messages: list[Message], tools: list[ToolSchema]) -> str:
    """A full SHA-256 of one model request (independent of key order)."""
    kept = {k: v for k, v in settings.items() if k not in _NOT_IN_KEY}
    blob = json.dumps({"model": spec, "settings": kept, "messages": [m.model_dump() for m in messages],
                       "tools": [t.model_dump() for t in tools]}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class LedgerError(Exception):
    """The ledger file cannot be used (damaged, or not a SQLite database): one line naming it."""


class Ledger:
    """The SQLite store of replies and candidates (one connection, committed after every write).

    A damaged ledger stops generation with ``LedgerError``; a stored reply or candidate that cannot be read is
    treated as not stored (asked or made again).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise LedgerError(f"{path}: cannot open the generation ledger ({exc})") from None
        self._sql("PRAGMA journal_mode=WAL")
        self._sql("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT, response TEXT, created REAL)")
        self._sql("CREATE TABLE IF NOT EXISTS candidates (key TEXT PRIMARY KEY, record TEXT, created REAL)")

    def _sql(self, statement: str, args: tuple[Any, ...] = ()) -> Any:
        """The first row of ``statement``'s result; a damaged file is one ``LedgerError`` naming it."""
        try:
            return self.db.execute(statement, args).fetchone()
        except sqlite3.DatabaseError as exc:
            raise LedgerError(f"{self.path}: the generation ledger is damaged or not a SQLite database ({exc}); "
                              "move it away to start afresh (its stored replies are then asked again)") from None

    def reply(self, key: str) -> ModelResponse | None:
        row = self._sql("SELECT response FROM replies WHERE key = ?", (key,))
        try:
            return ModelResponse.model_validate_json(row[0]) if row else None
        except ValueError:  # an unreadable stored reply is asked again (and replaced)
            return None

    def put_reply(self, key: str, model: str, response: ModelResponse) -> None:
        self._sql("INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?)",
                  (key, model, response.model_dump_json(), time.time()))

    def spent(self) -> tuple[int, Usage]:
        """Every reply the ledger holds (all runs of this output): how many, and their summed usage."""
        count, prompt, completion, cost = self._sql(
            "SELECT count(*), sum(json_extract(response, '$.usage.prompt_tokens')),"
            " sum(json_extract(response, '$.usage.completion_tokens')),"
            " sum(json_extract(response, '$.usage.cost_usd')) FROM replies WHERE json_valid(response)")
        return count, Usage(prompt_tokens=prompt or 0, completion_tokens=completion or 0, cost_usd=cost or 0.0)

    def candidate(self, key: str) -> dict[str, Any] | None:
        row = self._sql("SELECT record FROM candidates WHERE key = ?", (key,))
        try:
            found = json.loads(row[0]) if row else None
        except (ValueError, TypeError):  # an unreadable stored candidate is made again (and replaced)
            return None
        return found if isinstance(found, dict) else None

    def put_candidate(self, key: str, record: dict[str, Any]) -> None:
        self._sql("INSERT OR REPLACE INTO candidates VALUES (?, ?, ?)",
                  (key, json.dumps(record, default=str), time.time()))

    def close(self) -> None:
        self.db.close()


@dataclass
class Spend:
    """Requests, tokens and cost: fresh ones (paid now) and replayed ones (read from the ledger)."""

    requests: int = 0
    replayed: int = 0
    usage: Usage = field(default_factory=Usage)
    replayed_usage: Usage = field(default_factory=Usage)

    def as_dict(self, ledger: Ledger) -> dict[str, Any]:
        """This invocation's requests (new and replayed) and the ledger's totals over every run (what was paid)."""
        paid, total = ledger.spent()
        return {"model_requests": self.requests, "replayed_from_ledger": self.replayed,
                "new_prompt_tokens": self.usage.prompt_tokens, "new_completion_tokens": self.usage.completion_tokens,
                "new_cost_usd": round(self.usage.cost_usd, 6), "ledger_requests": paid,
                "prompt_tokens": total.prompt_tokens, "completion_tokens": total.completion_tokens,
                "cost_usd": round(total.cost_usd, 6)}


@dataclass
class LedgerChat:
    """A ``ChatModel`` that answers from the ledger when it can and stores every fresh reply at once.

    Provider errors are never stored, so a re-run asks again.
    """

    inner: ChatModel
    ledger: Ledger
    spend: Spend = field(default_factory=Spend)

    @property
    def spec(self) -> str:
        return self.inner.spec

    def settings(self) -> dict[str, Any]:
        return self.inner.settings()

    def for_episode(self, context: EpisodeContext) -> LedgerChat:
        return self

    async def generate(self, messages: list[Message], tools: list[ToolSchema]) -> ModelResponse:
        key = request_key(self.inner.spec, self.inner.settings(), messages, tools)
        stored = self.ledger.reply(key)
        if stored is not None:
            self.spend.replayed += 1
            self.spend.replayed_usage = self.spend.replayed_usage + stored.usage
            return stored
        response = await self.inner.generate(messages, tools)
        self.ledger.put_reply(key, self.inner.spec, response)
        self.spend.requests += 1
        self.spend.usage = self.spend.usage + response.usage
        return response
