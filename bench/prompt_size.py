"""Per-episode prompt size with the whole bundled pool (``--pool all``): react vs copilot.

For every bundled task it builds the exact first request each agent sends (system prompt,
the task, and the tool list: every tool of every server for react, ``route`` + ``execute``
for the copilot) in the OpenAI wire format, and the copilot's second request after one
``route`` of the task's prompt (top-k tool schemas in view). It prints characters of the
request body and, where the embedded model's weights are installed, tokens by its
tokenizer (Qwen2.5), as the median over tasks.

    python bench/prompt_size.py [--top-k 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
from types import SimpleNamespace

import anyio

from mcptrials.agents.base import tool_schemas
from mcptrials.agents.copilot import EXECUTE, ROUTE, render_hits
from mcptrials.agents.copilot import SYSTEM_PROMPT as COPILOT_PROMPT
from mcptrials.agents.react import SYSTEM_PROMPT as REACT_PROMPT
from mcptrials.agents.retrieval import load_retriever
from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.model import ToolCallRequest
from mcptrials.models.base import Message, ToolSchema
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.run.options import catalogue


def _tokenizer():  # type: ignore[no-untyped-def]
    """The embedded model's tokenizer, or None when its weights are not installed."""
    try:
        from llama_cpp import Llama

        from mcptrials.models.weights import default_model_path

        return Llama(model_path=str(default_model_path()), vocab_only=True, verbose=False)
    except Exception:
        return None


def _body(messages: list[Message], tools: list[ToolSchema]) -> str:
    return json.dumps(OpenAIModel(model="m")._request(messages, tools)[0])


async def measure(top_k: int) -> None:
    pool = await catalogue(bundled_servers())
    all_tools = tool_schemas(SimpleNamespace(tools=pool))  # type: ignore[arg-type]  # exactly what react offers
    retriever = load_retriever("bm25")
    tokenizer = _tokenizer()
    sizes: dict[str, list[int]] = {"react first request": [], "copilot first request": [],
                                   "copilot after one route": [], "react, --pool task": []}
    tokens: dict[str, list[int]] = {key: [] for key in sizes}
    tasks = bundled_tasks()
    for task in tasks:
        react = _body([Message(role="system", content=REACT_PROMPT), Message(role="user", content=task.prompt)],
                      all_tools)
        start = [Message(role="system", content=COPILOT_PROMPT), Message(role="user", content=task.prompt)]
        copilot = _body(start, [ROUTE, EXECUTE])
        hits, _ = await retriever.route(task.prompt, pool, top_k)
        call = ToolCallRequest(id="c0", name="route", arguments={"query": task.prompt})
        routed = _body([*start, Message(role="assistant", tool_calls=[call]),
                        Message(role="tool", tool_call_id="c0", name="route", content=render_hits(hits))],
                       [ROUTE, EXECUTE])
        own = tool_schemas(SimpleNamespace(tools=[t for t in pool if t.server in task.servers]))  # type: ignore[arg-type]
        react_task = _body([Message(role="system", content=REACT_PROMPT), Message(role="user", content=task.prompt)],
                           own)
        for key, body in zip(sizes, (react, copilot, routed, react_task), strict=True):
            sizes[key].append(len(body))
            if tokenizer is not None:
                tokens[key].append(len(tokenizer.tokenize(body.encode(), add_bos=False)))
    print(f"{len(tasks)} bundled tasks, pool of {len(pool)} tools (--pool all), copilot top-k {top_k}")
    print(f"{'request':28} {'median chars':>12} {'median tokens':>14}")
    for key in sizes:
        median_tokens = f"{statistics.median(tokens[key]):.0f}" if tokens[key] else "-"
        print(f"{key:28} {statistics.median(sizes[key]):>12.0f} {median_tokens:>14}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top-k", type=int, default=5)
    anyio.run(measure, parser.parse_args().top_k)


if __name__ == "__main__":
    main()
