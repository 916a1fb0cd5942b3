"""Token prices: a table shipped with the package, overridable by the user, applied per model turn."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from mcptrials.model import Usage
from mcptrials.safety.loading import bounded, load_document


class PriceError(ValueError):
    """A price file that cannot be used."""


@dataclass(frozen=True)
class Price:
    """USD per million input and output tokens."""

    input: float = 0.0
    output: float = 0.0

    def cost(self, usage: Usage) -> float:
        return (usage.prompt_tokens * self.input + usage.completion_tokens * self.output) / 1_000_000


def _parse(data: object, source: str) -> dict[str, Price]:
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise PriceError(f"{source}: expected {{\"models\": {{name: {{\"input\": USD, \"output\": USD}}}}}}")
    table = {}
    for name, entry in data["models"].items():
        try:
            table[name] = Price(input=float(entry["input"]), output=float(entry["output"]))
        except (TypeError, KeyError, ValueError):
            raise PriceError(f"{source}: model {name!r}: needs numeric 'input' and 'output' (USD per 1M tokens)") \
                from None
    return table


def load_prices(override: str | Path | None = None) -> dict[str, Price]:
    """The shipped table, with entries from ``override`` (a JSON file) taking precedence."""
    shipped = resources.files("mcptrials.models").joinpath("prices.json").read_text("utf-8")
    table = _parse(json.loads(shipped), "prices.json")
    if override:
        path = Path(override)
        table.update(_parse(bounded(load_document, PriceError, path, "price file", yaml=False), str(path)))
    return table


def price_for(model: str, table: dict[str, Price]) -> Price:
    """The price of ``model``: an exact entry, else the longest entry it starts with, else free."""
    name = model.rsplit("/", 1)[-1]
    if name in table:
        return table[name]
    matches = [key for key in table if name.startswith(key)]
    return table[max(matches, key=len)] if matches else Price()
