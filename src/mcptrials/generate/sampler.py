"""Anchor and seed tools for a goal, by the category's tool relation (DynamicMCPBench's sampler, simplified).

An anchor tool is drawn first; the seed set around it follows the category's relation:
``random`` (uniform), ``similar`` (closest descriptions by word overlap, near-duplicates
dropped), ``other_domain`` (similar tools on servers of another domain), ``same_name`` (the same
tool name on other servers, then the nearest names), ``sibling`` (the anchor's server),
``destructive_sibling`` (a read tool beside its server's destructive tools), ``dependency``
(a dependency chain from the anchor) and ``stratified`` (one seed from each base relation in
turn). Simplified from the paper: similarity is word overlap, not embeddings, and a server's
domain is its ``category`` (else its tags, else its name).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mcptrials.generate.categories import Category, Relation
from mcptrials.generate.dependencies import Edge, is_destructive, pick_chain, words
from mcptrials.generate.draft import Rejected
from mcptrials.model import ServerSpec, ToolInfo

NEAR_DUPLICATE = 0.9
"""Word overlap above which two tools count as the same tool listed twice."""
COMPLEXITY_SIZES = (2, 4, 6)
"""Seed-set sizes of the simple, medium and hard levels, swept across candidates."""


@dataclass(frozen=True)
class Seed:
    """The tools a goal is built around: the anchor first."""

    anchor: ToolInfo
    tools: tuple[ToolInfo, ...]

    @property
    def servers(self) -> list[str]:
        return list(dict.fromkeys(t.server for t in self.tools))


def similarity(a: ToolInfo, b: ToolInfo) -> float:
    """Jaccard overlap of the words of two tools' names and descriptions."""
    wa, wb = set(words(f"{a.name} {a.description}")), set(words(f"{b.name} {b.description}"))
    return len(wa & wb) / len(wa | wb) if wa | wb else 0.0


def _domain(spec: ServerSpec | None, server: str) -> str:
    if spec is not None and spec.category:
        return spec.category
    tags = [t for t in (spec.tags if spec else []) if t != "bundled"]
    return tags[0] if tags else server


def _nearest(anchor: ToolInfo, pool: Sequence[ToolInfo], k: int) -> list[ToolInfo]:
    scored = [(similarity(anchor, t), t.qualified_name, t) for t in pool]
    scored = [s for s in scored if s[0] < NEAR_DUPLICATE]
    return [t for _, _, t in sorted(scored, key=lambda s: (-s[0], s[1]))[:k]]


class Sampler:
    """Draws seeds over one tool surface; every draw is a function of the ``rng`` it is given."""

    def __init__(self, tools: Sequence[ToolInfo], specs: Mapping[str, ServerSpec], edges: Sequence[Edge]) -> None:
        self.tools = sorted(tools, key=lambda t: t.qualified_name)
        self.specs = specs
        self.edges = list(edges)
        self.by_name: dict[str, list[ToolInfo]] = {}
        for t in self.tools:
            self.by_name.setdefault(t.name, []).append(t)

    def _others(self, anchor: ToolInfo) -> list[ToolInfo]:
        return [t for t in self.tools if t.qualified_name != anchor.qualified_name]

    def _related(self, relation: Relation, anchor: ToolInfo, k: int, rng: random.Random) -> list[ToolInfo]:
        others = self._others(anchor)
        if relation == "random":
            return rng.sample(others, min(k, len(others)))
        if relation == "similar":
            return _nearest(anchor, others, k)
        if relation == "other_domain":
            home = _domain(self.specs.get(anchor.server), anchor.server)
            return _nearest(anchor, [t for t in others if _domain(self.specs.get(t.server), t.server) != home], k)
        if relation == "same_name":
            same = [t for t in others if t.name == anchor.name]
            near = _nearest(anchor, [t for t in others if t.server != anchor.server and t not in same], k)
            return (same + near)[:k]
        if relation in {"sibling", "destructive_sibling"}:
            siblings = [t for t in others if t.server == anchor.server]
            first = [t for t in siblings if is_destructive(t)] if relation == "destructive_sibling" else []
            rest = [t for t in siblings if t not in first]
            return (first + rng.sample(rest, len(rest)))[:k]
        if relation == "dependency":
            onward = [e for e in self.edges if e.source == anchor.qualified_name]
            chain = pick_chain(onward, rng, k + 1, prefer_cross=True) if onward else None
            names = list(chain.tools[1:]) if chain else []
            return [t for t in others if t.qualified_name in names]
        bases: list[Relation] = ["random", "similar", "other_domain", "same_name", "sibling"]
        picked: list[ToolInfo] = []
        for i in range(k * len(bases)):
            if len(picked) == k:
                break
            for t in self._related(bases[i % len(bases)], anchor, k, rng):
                if t not in picked:
                    picked.append(t)
                    break
        return picked

    def _anchors(self, relation: Relation) -> list[ToolInfo]:
        if relation == "same_name":
            return [t for t in self.tools if len({x.server for x in self.by_name[t.name]}) > 1]
        if relation == "destructive_sibling":
            risky = {t.server for t in self.tools if is_destructive(t)}
            return [t for t in self.tools if t.server in risky and not is_destructive(t)]
        if relation == "dependency":
            sources = {e.source for e in self.edges}
            return [t for t in self.tools if t.qualified_name in sources]
        if relation == "other_domain":
            domains = {_domain(self.specs.get(t.server), t.server) for t in self.tools}
            return self.tools if len(domains) > 1 else []
        return [t for t in self.tools if not is_destructive(t)] or self.tools

    def sample(self, category: Category, size: int, rng: random.Random) -> Seed:
        """An anchor and ``size - 1`` related tools; ``Rejected`` at stage ``sample`` when none fit."""
        anchors = self._anchors(category.relation)
        if not anchors:
            why = {"same_name": "no tool name is offered by two servers",
                   "destructive_sibling": "no server offers both read and destructive tools",
                   "dependency": "no dependency between tools was found",
                   "other_domain": "all servers are of one domain"}.get(category.relation, "no tools")
            raise Rejected("sample", f"{category.name}: {why}")
        anchor = rng.choice(anchors)
        related = self._related(category.relation, anchor, max(size - 1, 1), rng)
        if not related and category.relation != "random":
            raise Rejected("sample", f"{category.name}: no tool relates to the anchor {anchor.qualified_name}")
        return Seed(anchor, (anchor, *related))
