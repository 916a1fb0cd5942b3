"""The ``local`` provider: an embedded llama.cpp model that needs no server and no network.

``local:default`` (or just ``local:``) runs the pinned default GGUF assembled from its PyPI
data packages; ``local:/path/model.gguf`` runs any other GGUF file. The prompt is rendered
with the model's own chat template (read from the GGUF metadata) with the tool list passed
in, and tool calls are read back from the text by ``toolcall_parse``.

With ``constrained=True`` the model first writes a few tokens freely; when they open a tool
call (JSON, a fence or a ``<tool_call>`` tag) the reply is generated again under a grammar
built from the tools' JSON schemas, so the call it writes always names an offered tool and
has schema-valid arguments, while a plain-text answer stays possible. A grammar that also
allowed free text would cost far more per token in llama.cpp, hence the two steps.

llama.cpp is imported lazily, so this module loads without the ``local`` extra; the model
itself is loaded on first use. Inference runs in a worker thread behind one process-wide
lock, since a llama context serves one generation at a time.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import anyio

from mcptrials.model import ToolCallRequest, Usage
from mcptrials.models.base import (
    EpisodeContext,
    Message,
    ModelResponse,
    ProviderError,
    SamplingSettings,
    ToolSchema,
)
from mcptrials.models.toolcall_grammar import call_schema
from mcptrials.models.toolcall_parse import ParsedCall, distinct_calls, parse_output, repeats_call, starts_call
from mcptrials.models.weights import DEFAULT_FILENAME, DEFAULT_SHA256, WeightsError, default_model_path

DEFAULT_SPEC = "default"
INSTALL_HINT = "pip install 'mcptrials[local]'"
PROBE_TOKENS = 4
"""Free tokens generated to decide whether a constrained reply is a tool call."""
TOP_K = 40
MIN_P = 0.05

Decoding = Literal["free", "grammar"]


@dataclass(frozen=True)
class RawCompletion:
    """What llama.cpp wrote for one prompt, before tool calls are read out of it."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None
    decoding: Decoding = "free"
    stopped_on_repeat: bool = False


class _Engine:
    """One loaded llama.cpp model and its context; the process holds at most one."""

    def __init__(self, path: Path, n_ctx: int, n_threads: int, seed: int) -> None:
        from mcptrials.models.llama_probe import ensure_llama_runs

        ensure_llama_runs(path, n_threads)  # a build that crashes on this CPU is caught in a child, not here
        try:
            from llama_cpp import Llama
        except ImportError as exc:  # the extra is not installed
            raise ProviderError(
                "model_not_found",
                f"the local provider needs llama-cpp-python; install it with {INSTALL_HINT}",
            ) from exc
        self.key = (str(path), n_ctx, n_threads)
        try:
            self.llama = Llama(
                model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, seed=seed, verbose=False
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ProviderError("model_not_found", f"llama.cpp could not load {path}: {exc}") from exc
        template = self.llama.metadata.get("tokenizer.chat_template")
        if not template:
            self.llama.close()
            raise ProviderError(
                "model_not_found",
                f"{path} carries no tokenizer.chat_template in its metadata; the local provider needs one",
            )
        self.template: str = template
        model = self.llama._model
        self.eos_token: str = model.token_get_text(self.llama.token_eos())
        bos = self.llama.token_bos()
        self.bos_token: str = model.token_get_text(bos) if bos != -1 else ""

    def close(self) -> None:
        self.llama.close()


_LOCK = threading.Lock()
"""Serialises every use of the process's llama context, loading included."""
_ENGINE: _Engine | None = None


@atexit.register
def _close_engine() -> None:
    """Free the model before interpreter teardown, when llama.cpp's own finaliser would fail noisily."""
    global _ENGINE
    with _LOCK:
        if _ENGINE is not None:
            _ENGINE.close()
            _ENGINE = None


def _engine_for(path: Path, n_ctx: int, n_threads: int, seed: int) -> _Engine:
    """Return the process's engine for this file and context size, replacing any other one.

    Call with ``_LOCK`` held.
    """
    global _ENGINE
    key = (str(path), n_ctx, n_threads)
    if _ENGINE is not None and _ENGINE.key == key:
        return _ENGINE
    if _ENGINE is not None:
        _ENGINE.close()
        _ENGINE = None
    _ENGINE = _Engine(path, n_ctx, n_threads, seed)
    return _ENGINE


class LocalModel:
    """A ChatModel backed by an in-process llama.cpp model, greedy and seeded by default."""

    def __init__(
        self,
        spec_rest: str = "",
        *,
        n_ctx: int = 8192,
        n_threads: int = 2,
        temperature: float = 0.0,
        top_p: float = 0.95,
        seed: int = 0,
        max_tokens: int = 1024,
        constrained: bool = False,
        cache_dir: Path | None = None,
    ) -> None:
        rest = spec_rest.strip()
        self._default = rest in ("", DEFAULT_SPEC)
        self._path: Path | None = None if self._default else Path(rest).expanduser()
        if self._path is not None and not self._path.is_file():
            raise ProviderError("model_not_found", f"no GGUF file at {self._path}")
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.temperature = temperature
        self.top_p = top_p
        self.seed = seed
        self.max_tokens = max_tokens
        self.constrained = constrained
        self._cache_dir = cache_dir
        self._sha256: str | None = DEFAULT_SHA256 if self._default else None

    @classmethod
    def from_spec(
        cls, spec_rest: str, *, sampling: SamplingSettings | None = None, constrained: bool = False
    ) -> LocalModel:
        """Build the model from the part of a spec after ``local:`` and the run's sampling settings.

        Unset sampling fields keep this provider's deterministic defaults (greedy, seed 0).
        """
        sampling = sampling or SamplingSettings()
        options: dict[str, Any] = {"constrained": constrained}
        if sampling.temperature is not None:
            options["temperature"] = sampling.temperature
        if sampling.top_p is not None:
            options["top_p"] = sampling.top_p
        if sampling.seed is not None:
            options["seed"] = sampling.seed
        if sampling.max_tokens is not None:
            options["max_tokens"] = sampling.max_tokens
        return cls(spec_rest, **options)

    # ------------------------------------------------------------------ protocol

    @property
    def spec(self) -> str:
        return f"local:{DEFAULT_SPEC}" if self._default else f"local:{self._path}"

    def for_episode(self, context: EpisodeContext) -> LocalModel:
        return self

    def settings(self) -> dict[str, Any]:
        """Every knob that can change what the model writes, including the exact weights."""
        return {
            "provider": "local",
            "model_path": str(self._path) if self._path else f"<cache>/{DEFAULT_FILENAME}",
            "sha256": self.sha256(),
            "n_ctx": self.n_ctx,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "top_k": TOP_K,
            "min_p": MIN_P,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "constrained": self.constrained,
            "probe_tokens": PROBE_TOKENS if self.constrained else 0,
            # The template comes from the GGUF itself, so the weights' sha256 pins it too.
            "chat_format": "gguf:tokenizer.chat_template",
        }

    async def generate(self, messages: list[Message], tools: list[ToolSchema]) -> ModelResponse:
        """Render, generate and parse in a worker thread; raise ProviderError on load or context failure."""
        return await anyio.to_thread.run_sync(self._respond, messages, tools)

    # ------------------------------------------------------------------ blocking work

    def model_path(self) -> Path:
        """Return the GGUF to load, assembling the default one on first use."""
        if self._path is not None:
            return self._path
        try:
            return default_model_path(self._cache_dir)
        except WeightsError as exc:
            raise ProviderError("model_not_found", str(exc)) from exc

    def sha256(self) -> str:
        """Return the SHA-256 of the weights: pinned for the default model, hashed once otherwise."""
        if self._sha256 is None:
            assert self._path is not None
            from mcptrials import activity

            digest = hashlib.sha256()
            with activity.note(f"checking the SHA-256 of {self._path.name}"), self._path.open("rb") as handle:
                while chunk := handle.read(8 * 1024 * 1024):
                    digest.update(chunk)
            self._sha256 = digest.hexdigest()
        return self._sha256

    def check_build(self, notify: Callable[[str], None] | None = None) -> None:
        """Make sure llama.cpp runs this model here without loading it in this process (``llama_probe``).

        Raises ``LlamaBuildError`` when the build crashed in the child, ``ProviderError`` when the
        weights are missing or llama.cpp refused them.
        """
        from mcptrials.models.llama_probe import ensure_llama_runs

        ensure_llama_runs(self.model_path(), self.n_threads, notify)

    def load(self) -> None:
        """Load the model now rather than on the first call, to fail fast and time loading apart."""
        with _LOCK:
            self._engine()

    def complete(self, messages: list[Message], tools: list[ToolSchema]) -> RawCompletion:
        """Render the prompt and generate, returning the unparsed text (blocking; used by benches too)."""
        with _LOCK:
            engine = self._engine()
            tokens = self._render(engine, messages, tools)
            budget = self.n_ctx - len(tokens)
            if budget <= 0:
                raise ProviderError(
                    "context_overflow",
                    f"the prompt has {len(tokens)} tokens but the context holds {self.n_ctx}",
                )
            max_tokens = min(self.max_tokens, budget)
            if self.constrained and tools:
                probe = self._run(engine, tokens, min(PROBE_TOKENS, max_tokens))
                if starts_call(probe["choices"][0]["text"]):
                    grammar = self._grammar(tools)
                    return self._finish(self._run(engine, tokens, max_tokens, grammar=grammar), "grammar")
            repeat = _RepeatWatch(engine.llama, len(tokens))
            result = self._run(engine, tokens, max_tokens, stopping=repeat)
            return self._finish(result, "free", stopped_on_repeat=repeat.fired)

    def _respond(self, messages: list[Message], tools: list[ToolSchema]) -> ModelResponse:
        raw = self.complete(messages, tools)
        parsed = parse_output(raw.text, known_tools={tool.name for tool in tools})
        calls = distinct_calls(parsed.calls) if raw.stopped_on_repeat else parsed.calls
        return ModelResponse(
            text=parsed.text,
            tool_calls=_requests(calls, len(messages)),
            usage=Usage(prompt_tokens=raw.prompt_tokens, completion_tokens=raw.completion_tokens),
            finish_reason="tool_calls" if calls else raw.finish_reason,
        )

    def _engine(self) -> _Engine:
        return _engine_for(self.model_path(), self.n_ctx, self.n_threads, self.seed)

    def _run(
        self,
        engine: _Engine,
        tokens: list[int],
        max_tokens: int,
        *,
        grammar: Any = None,
        stopping: Callable[[Any, Any], bool] | None = None,
    ) -> Any:
        """One llama.cpp completion with this model's sampling settings."""
        from llama_cpp import StoppingCriteriaList

        try:
            return engine.llama.create_completion(
                prompt=tokens,
                max_tokens=max_tokens,
                temperature=self.temperature,
                top_p=self.top_p,
                top_k=TOP_K,
                min_p=MIN_P,
                seed=self.seed,
                stop=[engine.eos_token] if engine.eos_token else [],
                grammar=grammar,
                stopping_criteria=StoppingCriteriaList([stopping]) if stopping else None,
            )
        except (ValueError, RuntimeError) as exc:  # prompt too long for the context, decode failure
            raise ProviderError("bad_request", f"llama.cpp refused the request: {exc}") from exc

    @staticmethod
    def _finish(result: Any, decoding: Decoding, *, stopped_on_repeat: bool = False) -> RawCompletion:
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        return RawCompletion(
            text=choice["text"],
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            finish_reason=choice.get("finish_reason"),
            decoding=decoding,
            stopped_on_repeat=stopped_on_repeat,
        )

    def _render(self, engine: _Engine, messages: list[Message], tools: list[ToolSchema]) -> list[int]:
        """Render the conversation through the model's own chat template and tokenize it."""
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        # Typed as Any: llama-cpp's TypedDict message types add nothing over our own conversion.
        formatter: Any = Jinja2ChatFormatter(
            template=engine.template, eos_token=engine.eos_token, bos_token=engine.bos_token
        )
        rendered = formatter(
            messages=[_chat_message(m) for m in messages],
            tools=[_tool_entry(t) for t in tools] or None,
        )
        return list(engine.llama.tokenize(rendered.prompt.encode("utf-8"), add_bos=False, special=True))

    def _grammar(self, tools: list[ToolSchema]) -> Any:
        """Compile the tool-call schema into a llama.cpp grammar."""
        from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf

        def supported(schema: dict[str, Any]) -> bool:
            try:
                json_schema_to_gbnf(json.dumps(schema))
            except Exception:  # the converter raises assorted errors on schemas it cannot handle
                return False
            return True

        return LlamaGrammar.from_json_schema(json.dumps(call_schema(tools, supported=supported)), verbose=False)


class _RepeatWatch:
    """A llama.cpp stopping criterion that ends a reply once it repeats a complete tool call.

    Small models sometimes write the same call over and over until the token limit; the
    first copies are kept and the loop is cut short.
    """

    def __init__(self, llama: Any, prompt_length: int) -> None:
        self._llama = llama
        self._start = prompt_length
        self.fired = False

    def __call__(self, input_ids: Any, logits: Any) -> bool:
        new = [int(t) for t in input_ids[self._start:]]
        if not new or b"}" not in self._llama.detokenize(new[-1:]):
            return False
        text = self._llama.detokenize(new).decode("utf-8", errors="replace")
        self.fired = self.fired or repeats_call(text)
        return self.fired


def _chat_message(message: Message) -> dict[str, Any]:
    """Convert a provider-neutral message into the dict shape chat templates expect."""
    entry: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        entry["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": call.arguments if call.arguments is not None else (call.raw_arguments or ""),
                },
            }
            for call in message.tool_calls
        ]
    if message.tool_call_id is not None:
        entry["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        entry["name"] = message.name
    return entry


def _tool_entry(tool: ToolSchema) -> dict[str, Any]:
    """Describe a tool in the OpenAI function shape that chat templates iterate over."""
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
    }


def _requests(calls: list[ParsedCall], turn: int) -> list[ToolCallRequest]:
    """Turn parsed calls into requests with ids that are unique within one conversation."""
    return [
        ToolCallRequest(id=f"call_{turn}_{index}", name=call.name, arguments=call.arguments,
                        raw_arguments=call.raw_arguments)
        for index, call in enumerate(calls)
    ]
