"""Exit 0 when this machine's llama.cpp build runs the default model: load it and generate a few tokens.

CI runs it in a child process: a llama-cpp-python wheel that pip cached on a machine with another CPU
(built with -march=native) dies here with SIGILL, and .ci/run then rebuilds it portably.
"""

from mcptrials.models.base import Message
from mcptrials.models.local import LocalModel

model = LocalModel(max_tokens=4)
model.complete([Message(role="user", content="Say hi.")], [])
print("llama.cpp build runs on this CPU")
