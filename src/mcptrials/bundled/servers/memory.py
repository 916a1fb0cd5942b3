"""A knowledge-graph memory: entities with observations, joined by named relations.

The graph lives in ``memory/graph.json`` inside the sandbox (a task may ship one as a
fixture); it starts empty otherwise. Entity names are unique and matched exactly.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from mcptrials.bundled.servers._runtime import serve
from mcptrials.bundled.servers._workspace import read_state, relative, workspace_path, write_state, write_text

DYNAMISM = "stateful_write"
CATEGORY = "data"
DESCRIPTION = "Long-term memory as a knowledge graph of entities, observations and relations."

mcp = MCPServer("memory", log_level="WARNING")

STATE = "memory/graph.json"


class Entity(BaseModel):
    """A node of the graph."""

    name: Annotated[str, Field(min_length=1, description="Unique name, e.g. 'Dana Whitfield'")]
    entityType: Annotated[str, Field(min_length=1, description="Kind of thing, e.g. 'person', 'project'")]
    observations: Annotated[list[str], Field(description="Facts about the entity")] = []


class Relation(BaseModel):
    """A directed, named edge between two entities (use active voice, e.g. 'leads')."""

    source: Annotated[str, Field(alias="from", description="Name of the source entity")]
    target: Annotated[str, Field(alias="to", description="Name of the target entity")]
    relationType: Annotated[str, Field(min_length=1, description="e.g. 'works_on', 'leads'")]

    model_config = {"populate_by_name": True}


class ObservationBatch(BaseModel):
    """Observations to add to (or remove from) one entity."""

    entityName: str
    contents: Annotated[list[str], Field(min_length=1)]


def _graph() -> dict[str, Any]:
    data = read_state(STATE, lambda: {"entities": [], "relations": []})
    data.setdefault("entities", [])
    data.setdefault("relations", [])
    return data


def _names(graph: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in graph["entities"]}


def _edge(r: Relation) -> dict[str, str]:
    return {"from": r.source, "to": r.target, "relationType": r.relationType}


def _subgraph(graph: dict[str, Any], names: set[str]) -> dict[str, Any]:
    return {"entities": [e for e in graph["entities"] if e["name"] in names],
            "relations": [r for r in graph["relations"] if r["from"] in names or r["to"] in names]}


@mcp.tool()
def create_entities(entities: Annotated[list[Entity], Field(min_length=1)]) -> dict[str, Any]:
    """Create new entities. Names that already exist are skipped and reported."""
    graph = _graph()
    known = _names(graph)
    created, skipped = [], []
    for entity in entities:
        if entity.name in known:
            skipped.append(entity.name)
            continue
        record = {"name": entity.name, "entityType": entity.entityType,
                  "observations": list(dict.fromkeys(entity.observations))}
        graph["entities"].append(record)
        known[entity.name] = record
        created.append(record)
    write_state(STATE, graph)
    return {"created": created, "skipped_existing": skipped}


@mcp.tool()
def create_relations(relations: Annotated[list[Relation], Field(min_length=1)]) -> dict[str, Any]:
    """Link existing entities with named relations. Both ends must already exist."""
    graph = _graph()
    known = _names(graph)
    missing = sorted({n for r in relations for n in (r.source, r.target) if n not in known})
    if missing:
        raise ToolError(f"unknown entities {missing}; create them with create_entities first")
    created = []
    for relation in relations:
        edge = _edge(relation)
        if edge not in graph["relations"]:
            graph["relations"].append(edge)
            created.append(edge)
    write_state(STATE, graph)
    return {"created": created}


@mcp.tool()
def add_observations(observations: Annotated[list[ObservationBatch], Field(min_length=1)]) -> dict[str, Any]:
    """Add facts to existing entities."""
    graph = _graph()
    known = _names(graph)
    results = []
    for batch in observations:
        entity = known.get(batch.entityName)
        if entity is None:
            raise ToolError(f"no entity named {batch.entityName!r}; create it with create_entities first")
        added = [c for c in batch.contents if c not in entity["observations"]]
        entity["observations"].extend(added)
        results.append({"entityName": batch.entityName, "added": added})
    write_state(STATE, graph)
    return {"results": results}


@mcp.tool()
def delete_entities(entityNames: Annotated[list[str], Field(min_length=1)]) -> dict[str, Any]:
    """Delete entities and every relation that touches them."""
    graph = _graph()
    doomed = set(entityNames)
    found = [e["name"] for e in graph["entities"] if e["name"] in doomed]
    graph["entities"] = [e for e in graph["entities"] if e["name"] not in doomed]
    graph["relations"] = [r for r in graph["relations"] if r["from"] not in doomed and r["to"] not in doomed]
    write_state(STATE, graph)
    return {"deleted": found, "not_found": sorted(doomed - set(found))}


@mcp.tool()
def delete_observations(deletions: Annotated[list[ObservationBatch], Field(min_length=1)]) -> dict[str, Any]:
    """Remove specific observations from entities."""
    graph = _graph()
    known = _names(graph)
    removed = []
    for batch in deletions:
        entity = known.get(batch.entityName)
        if entity is None:
            raise ToolError(f"no entity named {batch.entityName!r}")
        entity["observations"] = [o for o in entity["observations"] if o not in batch.contents]
        removed.append({"entityName": batch.entityName, "remaining": len(entity["observations"])})
    write_state(STATE, graph)
    return {"results": removed}


@mcp.tool()
def delete_relations(relations: Annotated[list[Relation], Field(min_length=1)]) -> dict[str, Any]:
    """Remove relations."""
    graph = _graph()
    edges = [_edge(r) for r in relations]
    before = len(graph["relations"])
    graph["relations"] = [r for r in graph["relations"] if r not in edges]
    write_state(STATE, graph)
    return {"deleted": before - len(graph["relations"])}


@mcp.tool()
def read_graph() -> dict[str, Any]:
    """Return the whole knowledge graph."""
    return _graph()


@mcp.tool()
def search_nodes(
    query: Annotated[str, Field(description="Text matched against names, types and observations")],
) -> dict[str, Any]:
    """Find entities whose name, type or observations contain the query, with their relations."""
    graph = _graph()
    q = query.lower().strip()
    names = {e["name"] for e in graph["entities"]
             if q in e["name"].lower() or q in e["entityType"].lower()
             or any(q in o.lower() for o in e["observations"])}
    return _subgraph(graph, names)


@mcp.tool()
def open_nodes(names: Annotated[list[str], Field(min_length=1)]) -> dict[str, Any]:
    """Fetch entities by exact name, with the relations that touch them."""
    graph = _graph()
    found = _subgraph(graph, set(names))
    found["not_found"] = sorted(set(names) - {e["name"] for e in found["entities"]})
    return found


@mcp.tool()
def export_graph(
    path: Annotated[str, Field(description="Workspace file to write, e.g. 'notes/memory.md'")],
    format: Literal["json", "markdown"] = "markdown",
) -> dict[str, Any]:
    """Write the knowledge graph to a workspace file as JSON or as a readable markdown outline."""
    target = workspace_path(path)
    graph = _graph()
    if format == "json":
        text = json.dumps(graph, indent=1, ensure_ascii=False) + "\n"
    else:
        lines = ["# Memory", ""]
        for entity in graph["entities"]:
            lines.append(f"## {entity['name']} ({entity['entityType']})")
            lines += [f"- {o}" for o in entity["observations"]]
            lines += [f"- {r['relationType']} -> {r['to']}" for r in graph["relations"]
                      if r["from"] == entity["name"]]
            lines.append("")
        text = "\n".join(lines)
    write_text(target, text)
    return {"path": relative(target), "entities": len(graph["entities"]),
            "relations": len(graph["relations"])}


if __name__ == "__main__":
    serve(mcp)
