"""Exit 0 when this machine's llama.cpp build runs the default model: load it and generate a few tokens.

.ci/run starts it as its own process and rebuilds llama-cpp-python portably on any other exit: a
wheel pip cached from a native build dies here with SIGILL or SIGSEGV, or the package's own probe
(mcptrials/models/llama_probe.py) catches the crash in a child and raises LlamaBuildError (exit 1).
"""

from mcptrials.models.base import Message
from mcptrials.models.local import LocalModel

model = LocalModel(max_tokens=4)
model.complete([Message(role="user", content="Say hi.")], [])
print("llama.cpp build runs on this CPU")
