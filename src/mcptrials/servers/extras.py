"""What a server offers besides callable tools: resources, prompts, and tools this client cannot call.

Resources and prompts are listed at start-up; with ``expose_resources`` the agent gets two more tools
per server that has them, ``read_resource`` and ``get_prompt``. A tool that requires task augmentation
(``execution.taskSupport: required``) is offered and called as a task (``servers.task_calls``); only
when the client cannot make such calls is it left out, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcptrials.model import ToolInfo

READ_RESOURCE = "read_resource"
GET_PROMPT = "get_prompt"
_LISTED = 30
"""Most resources/prompts named in the description of the exposing tool."""


class ExtrasError(ValueError):
    """A bad ``read_resource``/``get_prompt`` call (shown to the agent as a tool error)."""


@dataclass
class Extras:
    """One server's resources, resource templates and prompts, and the tools left out."""

    resources: list[dict[str, Any]] = field(default_factory=list)
    templates: list[dict[str, Any]] = field(default_factory=list)
    prompts: list[dict[str, Any]] = field(default_factory=list)
    not_offered: dict[str, str] = field(default_factory=dict)
    """Tool name -> why it is not offered."""
    exposed: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    task_required: set[str] = field(default_factory=set)
    """Tools called as tasks (``execution.taskSupport: required``)."""

    def admit(self, tools: list[Any], tasks: bool = True) -> list[Any]:
        """The listed tools this client can call (``tasks``: it can make task-augmented calls); the others go to
        ``not_offered``."""
        kept = []
        for tool in tools:
            execution = getattr(tool, "execution", None)
            if execution is not None and getattr(execution, "task_support", None) == "required":
                if not tasks:
                    self.not_offered[tool.name] = "requires task-augmented calls, which this client cannot make"
                    continue
                self.task_required.add(tool.name)
            kept.append(tool)
        return kept

    async def discover(self, client: Any, server: str) -> None:
        """List resources, templates and prompts where the server declares them.

        A listing that fails leaves its part empty and is noted in ``problems``: the tools still work.
        """
        caps = client.server_capabilities
        if getattr(caps, "resources", None) is not None:
            try:
                listing = await client.list_resources()
                self.resources = [{"uri": str(r.uri), "name": r.name, "mime_type": r.mime_type,
                                   "description": r.description} for r in listing.resources]
            except Exception as exc:
                self.problems.append(f"resources/list failed: {type(exc).__name__}: {exc}"[:300])
            try:
                templates = await client.list_resource_templates()
                self.templates = [{"uri_template": t.uri_template, "name": t.name, "description": t.description}
                                  for t in templates.resource_templates]
            except Exception:  # optional: some servers answer method-not-found
                self.templates = []
        if getattr(caps, "prompts", None) is not None:
            try:
                listing = await client.list_prompts()
                self.prompts = [{"name": p.name, "description": p.description,
                                 "arguments": [{"name": a.name, "required": bool(a.required)}
                                               for a in p.arguments or []]}
                                for p in listing.prompts]
            except Exception as exc:
                self.problems.append(f"prompts/list failed: {type(exc).__name__}: {exc}"[:300])

    def as_tools(self, server: str, taken: set[str]) -> list[ToolInfo]:
        """``read_resource``/``get_prompt`` for the agent, when the server has any and no tool has the name."""
        tools = []
        if (self.resources or self.templates) and READ_RESOURCE not in taken:
            names = [r["uri"] for r in self.resources[:_LISTED]] + [t["uri_template"] for t in self.templates[:5]]
            tools.append(ToolInfo(server=server, name=READ_RESOURCE, read_only=True,
                                  description=f"Read one of the server's resources by URI. Available: "
                                              f"{', '.join(names)}",
                                  input_schema={"type": "object", "properties": {"uri": {"type": "string"}},
                                                "required": ["uri"]}))
        if self.prompts and GET_PROMPT not in taken:
            names = [p["name"] for p in self.prompts[:_LISTED]]
            tools.append(ToolInfo(server=server, name=GET_PROMPT, read_only=True,
                                  description=f"Get one of the server's prompt templates, filled in. Available: "
                                              f"{', '.join(names)}",
                                  input_schema={"type": "object", "properties": {
                                      "name": {"type": "string"},
                                      "arguments": {"type": "object", "additionalProperties": {"type": "string"}}},
                                      "required": ["name"]}))
        self.exposed = {t.name for t in tools}
        return tools

    def handles(self, tool: str, exposing: bool) -> bool:
        return exposing and tool in self.exposed

    async def call(self, client: Any, tool: str, arguments: dict[str, Any]) -> str:
        """Read a resource or get a prompt; the text the agent reads."""
        from mcptrials.servers.client import resource_text
        from mcptrials.servers.connection import render_content

        if tool == READ_RESOURCE:
            uri = arguments.get("uri")
            if not isinstance(uri, str) or not uri:
                raise ExtrasError("read_resource needs a 'uri' string")
            result = await client.read_resource(uri)
            return "\n".join(resource_text(item) for item in result.contents)
        name = arguments.get("name")
        if not isinstance(name, str) or not name:
            raise ExtrasError("get_prompt needs a 'name' string")
        args = arguments.get("arguments") or {}
        if not isinstance(args, dict):
            raise ExtrasError("get_prompt: 'arguments' must be an object of strings")
        result = await client.get_prompt(name, {str(k): str(v) for k, v in args.items()})
        return "\n".join(f"{m.role}: {render_content([m.content])}" for m in result.messages)

    def summary(self) -> dict[str, Any]:
        """For ``servers list``/``check``: what the server offers besides its tools."""
        return {"resources": self.resources, "resource_templates": self.templates, "prompts": self.prompts,
                "not_offered": self.not_offered, "problems": self.problems}
