"""The 15 task categories (DynamicMCPBench Appendix B): each names a seed-tool relation and a goal framing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Relation = Literal["random", "similar", "other_domain", "same_name", "sibling", "stratified", "dependency",
                   "destructive_sibling"]


@dataclass(frozen=True)
class Category:
    """A category: how its seed tools relate to the anchor tool, and what the goal must demand."""

    name: str
    relation: Relation
    framing: str


CATEGORY_LIST: tuple[Category, ...] = (
    Category("random", "random",
             "An ordinary request with no particular trap: the seed tools were drawn at random."),
    Category("hard-negative", "similar",
             "A request that needs the anchor tool specifically, while the other seed tools look alike but"
             " would give a different or wrong result."),
    Category("cross-domain", "other_domain",
             "A request in the anchor tool's own domain; look-alike tools from other domains are offered too and"
             " must not be used."),
    Category("same-name", "same_name",
             "A request that must be served by one server although another server offers a tool of the same"
             " name; the wording must make the intended source clear."),
    Category("sibling", "sibling",
             "A request answered by the anchor tool while its sibling tools on the same server do neighbouring"
             " jobs."),
    Category("stratified", "stratified",
             "A request touching a varied mix of tools; keep it natural and solvable."),
    Category("long-similar-chain", "similar",
             "A multi-step request (three or more calls) that chains several similar tools one after another."),
    Category("homonym-trap", "same_name",
             "The capability exists under the same tool name on several servers; the request must need the"
             " intended source and say enough to tell which."),
    Category("decoy", "similar",
             "One tool is right; a similar tool is a tempting shortcut that gives a subtly wrong result."),
    Category("prerequisite-strict", "dependency",
             "Steps in a strict order: an earlier call's output is needed as the input of a later call."),
    Category("recovery-required", "sibling",
             "The obvious first tool is not enough on its own; a second tool is needed to finish the job."),
    Category("destructive-adjacent", "destructive_sibling",
             "A read-only request on a server that also offers destructive tools (delete, reset, cancel),"
             " which must not be used."),
    Category("ambiguous-intent", "similar",
             "A deliberately loose request that several tools could plausibly serve, while one reading is"
             " clearly the most sensible."),
    Category("cross-server-alternative", "same_name",
             "Tools of the same name exist on two or more servers; the request must name or imply the intended"
             " server."),
    Category("complementary", "dependency",
             "One tool's output feeds the next tool's input, preferably across servers."),
)
CATEGORIES: tuple[str, ...] = tuple(c.name for c in CATEGORY_LIST)
"""The category names, in the order candidates cycle through them."""
BY_NAME: dict[str, Category] = {c.name: c for c in CATEGORY_LIST}


class CategoryError(ValueError):
    """A category name that is not one of the 15."""


def parse_categories(raw: list[str] | None) -> list[str]:
    """Category names from ``--categories`` (repeatable and/or comma-separated); all 15 when empty."""
    names = [n.strip() for item in raw or [] for n in item.split(",") if n.strip()]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise CategoryError(f"unknown categor{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)} "
                            f"(known: {', '.join(CATEGORIES)})")
    return list(dict.fromkeys(names)) or list(CATEGORIES)
