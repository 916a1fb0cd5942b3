"""Distil a recorded trace into a task spec that says what must be true, never which call spelled it how.

Deterministic, no model. From the trace:

- **state**: every change of the sandbox that a write call explains becomes a ``state``
  checkpoint at the field where the fact belongs (``statediff``);
- **tool_effect**: a write whose effect the sandbox does not show (the server keeps its state
  elsewhere) becomes a tool-effect checkpoint on the arguments that identify *what* was
  affected (values from the goal or from earlier results), with same-server siblings of the
  same verb as its equivalence set;
- **answer**: when the goal asks for information, the values of the explorer's answer that a
  read result grounds (and the goal did not already give) must be stated; values of one kind
  that could be swapped are bound to labels (``facts``);
- **minefields**: destructive tools the trace never used, limited to the items the trace
  touched (any use of them when the task writes nothing);
- **partial order**: only between write checkpoints whose calls pass a result value on;
- **reference**: the successful calls needed (writes, and reads whose results reach a later
  call, a checked value or the answer); the explorer's answer is the reference answer.

A trace from which nothing checkable follows is ``Rejected("distill", why)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mcptrials.generate.answercheck import answer_checkpoint, given_by_goal, whole_field
from mcptrials.generate.conclusions import conclusions, figure_words
from mcptrials.generate.draft import Rejected, TaskDraft, Trace
from mcptrials.generate.statediff import Grounded, GroundedRaw, WriteCall, distil_state
from mcptrials.generate.values import (
    Value,
    argument_leaves,
    grounded_in,
    leaves,
    parse_json,
    values_in,
    word_in,
)
from mcptrials.model import (
    Complexity,
    Matcher,
    Minefield,
    PlannedCall,
    Task,
    TaskSpec,
    ToolEffectCheckpoint,
    ToolInfo,
    ValueCheckpoint,
    split_qualified,
)
from mcptrials.scoring.answers import normalise_text, states
from mcptrials.scoring.matchers import effective_arguments, is_path_parameter, normalise_path, values_equal
from mcptrials.scoring.state import StateCheckpoint

DISTILLER = "distill/1"

_WRITE_VERBS = {"write", "create", "add", "update", "edit", "delete", "remove", "send", "complete", "book", "cancel",
                "move", "publish", "unpublish", "archive", "insert", "set", "append", "reset", "store", "download",
                "rename", "import", "export", "commit", "checkout", "push", "merge", "upload", "save", "post", "put",
                "patch", "modify", "replace", "mark", "clear", "drop", "purge", "destroy", "erase", "truncate",
                "overwrite", "apply", "submit", "schedule", "reserve", "assign", "enable", "disable", "copy",
                "register", "invite", "reply", "forward", "transfer", "pay", "order", "stage", "tag", "star",
                "flag", "restore", "undo", "approve", "reject", "new", "make", "mkdir", "touch"}
_READ_VERBS = {"get", "list", "read", "search", "find", "show", "describe", "query", "fetch", "lookup", "look",
               "status", "log", "diff", "count", "check", "view", "browse", "inspect", "convert", "calculate",
               "compute", "compare", "summarize", "summarise", "explain", "validate", "preview", "tree", "stat",
               "info", "current", "resolve", "estimate", "forecast", "history", "download_url"}
_DESTRUCTIVE = {"delete", "remove", "drop", "destroy", "purge", "erase", "truncate", "overwrite", "wipe", "clear",
                "reset", "cancel", "unpublish"}
_VERB_CLASSES = [{"create", "add", "new", "insert", "make", "register"},
                 {"update", "edit", "modify", "set", "patch", "change", "append"},
                 {"delete", "remove", "drop", "destroy", "erase", "purge"}, {"send", "post", "submit"},
                 {"move", "rename"}, {"book", "reserve", "schedule"}, {"write", "save", "store", "put"}]
_ASKS = re.compile(r"\?|\b(what|which|who|whom|whose|when|where|why|how|whether|tell|report|list|show|give me|"
                   r"let me know|find out|summari[sz]e|compare|look up|answer|explain|check if|check whether|"
                   r"solve|compute|calculate|work out|figure out|"
                   r"is there|are there)\b", re.IGNORECASE)


def _tokens(name: str) -> list[str]:
    tool = name.split("__", 1)[-1]
    tool = re.sub(r"([a-z])([A-Z])", r"\1_\2", tool).lower()
    return [t for t in re.split(r"[^a-z0-9]+", tool) if t]


def verb_of(name: str) -> str | None:
    """The first word of a tool's name that says whether it reads or writes (``git_create_branch``: create)."""
    return next((t for t in _tokens(name) if t in _WRITE_VERBS or t in _READ_VERBS), None)


def is_write(name: str) -> bool:
    """Whether a tool's name says it changes state."""
    verb = verb_of(name)
    return verb is not None and verb in _WRITE_VERBS and verb not in _READ_VERBS


def is_destructive(name: str) -> bool:
    """Whether a tool's name says it destroys something (delete, remove, drop, overwrite, ...)."""
    return any(t in _DESTRUCTIVE for t in _tokens(name))


def asks_information(goal: str) -> bool:
    """Whether the goal asks to be told something (a question, or report / list / tell me ...)."""
    return bool(_ASKS.search(goal))


@dataclass
class _Call:
    position: int
    name: str
    server: str
    args: dict[str, Any]
    raw_args: dict[str, Any]
    result: str
    write: bool


def _calls(trace: Trace) -> list[_Call]:
    out: list[_Call] = []
    for record in trace.episode.tool_calls:
        if record.is_error or record.tool is None or record.arguments is None:
            continue
        info = trace.tools.get(record.name)
        args = effective_arguments(record.arguments, info.input_schema if info else None) or {}
        out.append(_Call(len(out), record.name, record.server or split_qualified(record.name)[0], args,
                         dict(record.arguments), record.content, is_write(record.name)))
    return out


def _defaults(info: ToolInfo | None) -> dict[str, Any]:
    props = (info.input_schema or {}).get("properties", {}) if info else {}
    return {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}


def _significant(value: Any) -> bool:
    """An argument value specific enough that finding it in a result shows where it came from."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return abs(value) >= 10 or not float(value).is_integer()
    return isinstance(value, str) and len(value.strip()) >= 3


def _stated(value: Any, text: str) -> bool:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return states(text, value)
    needle = normalise_text(str(value))
    return word_in(needle, normalise_text(text))


def _path_tail_in(path: str, texts: list[str]) -> bool:
    """Whether some text names the path or its tail after a folder (``feature/login`` in ``refs/heads/...``)."""
    parts = path.split("/")
    tails = ["/".join(parts[i:]) for i in range(1, len(parts)) if len("/".join(parts[i:])) >= 3]
    return any(re.search(r"(?<![\w/.-])" + re.escape(tail) + r"(?![\w/-])", text) for tail in tails for text in texts)


def _computations_are_reads(calls: list[_Call], answer: str, goal: str, year: int | None) -> None:
    """A write-named call whose result gives the answer a value nothing else gave is a computation, not a write.

    (``add_time``, ``download`` a price history: what matters is the value they return.) Its
    result is then read like any other. Only calls whose effect the sandbox does not show are passed in.
    """
    stated = values_in(answer, year=year)
    for call in calls:
        if not call.write:
            continue
        others = [c.result for c in calls if c is not call]
        args_text = " ".join(str(v) for v in argument_leaves(call.raw_args))
        if any(grounded_in(v, call.result) and not grounded_in(v, goal) and not grounded_in(v, args_text)
               and not any(grounded_in(v, r) for r in others) for v in stated):
            call.write = False


def dependencies(calls: list[_Call], goal: str) -> dict[int, set[int]]:
    """For each call, the earlier calls whose results gave it an argument value the goal did not."""
    deps: dict[int, set[int]] = {c.position: set() for c in calls}
    for j, call in enumerate(calls):
        for value in argument_leaves(call.raw_args):
            if not _significant(value) or _stated(value, goal):
                continue
            source = next((i for i in range(j - 1, -1, -1) if _stated(value, calls[i].result)), None)
            if source is not None:
                deps[call.position].add(calls[source].position)
    return deps


# --------------------------------------------------------------------------- tool effects, minefields


def _siblings(call: _Call, tools: dict[str, ToolInfo], params: set[str]) -> list[str]:
    """Other tools of the same server, same verb class and a shared object word, that take the same parameters."""
    verb = verb_of(call.name)
    klass = next((c for c in _VERB_CLASSES if verb in c), {verb})
    objects = {t for t in _tokens(call.name) if t not in _WRITE_VERBS and t not in _READ_VERBS}
    out = []
    for name, info in sorted(tools.items()):
        if name == call.name or info.server != call.server:
            continue
        other_objects = {t for t in _tokens(name) if t not in _WRITE_VERBS and t not in _READ_VERBS}
        props = set((info.input_schema or {}).get("properties", {}))
        if verb_of(name) in klass and (objects & other_objects or not objects) and params <= props:
            out.append(name)
    return out


_NOTHING = re.compile(r"(?i)\b(?:no|none|nothing|zero|not any)\b")


def _found_nothing(result: str) -> bool:
    """Whether a read's result is a list, or holds lists, and every one of them is empty ("alerts": [])."""
    doc = parse_json(result)
    if isinstance(doc, list):
        return not doc
    lists = [v for v in doc.values() if isinstance(v, list)] if isinstance(doc, dict) else []
    return bool(lists) and not any(lists)


def empty_reads(calls: list[_Call], answer: str, tools: dict[str, ToolInfo]) -> list[ToolEffectCheckpoint]:
    """The reads whose results held nothing where the answer reports that nothing ("no weather warnings"):
    only asking that source tells, so one of its reads (any arguments) must be made. A read of the same
    server that names the same thing (another verb) counts too."""
    clauses = [c.lower() for c in re.split(r"[.;!?\n]", answer) if _NOTHING.search(c)]
    reads = [c for c in calls if not c.write]
    out: list[ToolEffectCheckpoint] = []
    for call in reads:
        objects = {t for t in _tokens(call.name) if t not in _READ_VERBS and len(t) >= 4}
        words = {w[:-1] if w.endswith("s") else w for w in {call.server.lower(), *objects}}
        if any(call.name in cp.tools for cp in out) or not _found_nothing(call.result) or not any(
                re.search(r"\b" + re.escape(w) + r"s?\b", c) for w in words for c in clauses):
            continue
        same = sorted(n for n, info in tools.items() if info.server == call.server and not is_write(n)
                      and objects & set(_tokens(n)))
        out.append(ToolEffectCheckpoint(id=f"read_{len(out) + 1}", tools=list(dict.fromkeys([call.name, *same])),
                                        description=f"the answer's 'none' rests on {call.name}, which found nothing"))
    return out


_HANDLE_KEYS = {"name", "result", "output", "out", "alias", "var", "variable", "save_as", "store_as", "into"}


def handles(calls: list[_Call], goal: str) -> dict[int, set[str]]:
    """Per write call, the arguments that only name what it stores for later calls: a value a later call
    passes back under another parameter (create_tensor name=A, then solve a=A). Any name would do there,
    unless the goal asks for that name ("stored as P_inv", "named totals")."""
    out: dict[int, set[str]] = {}
    for call in calls:
        if not call.write:
            continue
        for key, value in call.args.items():
            if key.lower() in _HANDLE_KEYS and isinstance(value, str) and value.strip() and not re.search(
                    r"(?i)\b(?:as|named|called)\s+['\"`]?" + re.escape(value.strip()) + r"(?![\w])", goal) and any(
                    later.position > call.position and any(
                        k != key and isinstance(v, str) and v == value for k, v in later.args.items())
                    for later in calls):
                out.setdefault(call.position, set()).add(key)
    return out


def stored_results(calls: list[_Call], goal: str) -> list[ToolEffectCheckpoint]:
    """For a computation read for its value (no write the sandbox shows), the name the goal
    asks its result to be stored under ("inverse(P) stored as P_inv") when nothing later passes it back: the user
    looks the result up by that name. A name an earlier call made (the input, P) or a later call passes back (an
    intermediate) is only a handle, the agent's to choose."""
    out: list[ToolEffectCheckpoint] = []
    for call in calls:
        if call.write:
            continue
        for key, value in call.args.items():
            if key.lower() not in _HANDLE_KEYS or not isinstance(value, str) or not value.strip() or not re.search(
                    r"(?i)\b(?:as|named|called)\s+['\"`]?" + re.escape(value.strip()) + r"(?![\w])", goal):
                continue
            passed = [c for c in calls if c is not call and any(isinstance(v, str) and v == value
                                                                 for v in c.args.values())]
            if not passed:
                out.append(ToolEffectCheckpoint(id=f"stored_{len(out) + 1}", tools=[call.name],
                                                must_include={key: value},
                                                description=f"{call.name} stores its result as the goal names it"))
    return out


def _written_texts(writes: list[WriteCall]) -> tuple[str, ...]:
    """The texts the trace's own writes gave (an observation, a note): the agent's wording, not a result's."""
    return tuple(v for w in writes for v in argument_leaves(w.args) if isinstance(v, str) and len(v) >= 6)


def _scalars(value: list[Any]) -> list[Any]:
    """The scalars of a list, or of a list of lists (a matrix's entries); none if it holds anything else."""
    flat = [x for v in value for x in (v if isinstance(v, list) else [v])]
    return flat if all(isinstance(x, str | int | float) and not isinstance(x, bool) for x in flat) else []


def _codes_of(value: Value) -> list[Any]:
    """A run of upper-case symbols ("AAPL MSFT NVDA") as its symbols, which any separator may join; else the value."""
    words = str(value.value).split()
    if value.kind == "name" and len(words) >= 2 and all(w.isupper() and len(w) <= 6 for w in words):
        return list(words)
    return [value.value]


def effect_checkpoint(call: _Call, cid: str, tools: dict[str, ToolInfo], grounded: Any,
                      handle_keys: set[str] | None = None) -> ToolEffectCheckpoint:
    """A tool-effect checkpoint for a write: predicates on what it affected, siblings as equivalents."""
    defaults = _defaults(tools.get(call.name))
    include: dict[str, Any] = {}
    match: dict[str, Matcher] = {}
    for key, value in call.args.items():
        if key in defaults and values_equal(defaults[key], value):
            continue
        if key in (handle_keys or set()):
            continue  # the name it stores a result under: the agent's to choose
        if is_path_parameter(key) and isinstance(value, str):
            include[key] = normalise_path(value)
        elif isinstance(value, int | float) and not isinstance(value, bool) and grounded(value):
            include[key] = value
        elif isinstance(value, str) and value.strip() and not any(ch.isspace() for ch in value.strip()) \
                and grounded(value):
            match[key] = Matcher(equals=value, case="insensitive")
        elif isinstance(value, list) and value and (flat := _scalars(value)):
            wanted = list(dict.fromkeys(v for v in flat if grounded(v)))
            if wanted:
                match[key] = Matcher(contains_all=wanted, case="insensitive")
        elif isinstance(value, str) and value.strip():
            salient: list[Any] = [x for v in values_in(value) if grounded(v.value) for x in _codes_of(v)]
            if salient:
                match[key] = Matcher(contains_all=salient[:12], case="insensitive")
    texts: dict[str, set[str]] = {k: {str(x) for x in m.contains_all or []} for k, m in match.items()
                                  if isinstance(call.args.get(k), str) and any(ch.isspace() for ch in call.args[k])}
    for key, needed in texts.items():  # a title repeating what the body must say: the body is where it belongs
        if any(other != key and needed <= more and len(str(call.args[other])) > len(str(call.args[key]))
               for other, more in texts.items()):
            del match[key]
    tools_ = [call.name, *_siblings(call, tools, set(include) | set(match))]
    return ToolEffectCheckpoint(id=cid, tools=tools_, must_include=include, must_match=match,
                                description=f"{call.name} with the arguments that name what it changes")


_NAMES = re.compile(r"(^|_)names?$|[a-z]Names?$")


def _named_items(args: Any) -> list[str]:
    """The names a call's arguments give items by, at any depth (``entityName``, ``names: [...]``)."""
    out: list[str] = []
    if isinstance(args, dict):
        for key, value in args.items():
            if isinstance(key, str) and _NAMES.search(key):
                out += [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str) and v]
            elif isinstance(value, dict | list):
                out += _named_items(value)
    elif isinstance(args, list):
        for item in args:
            out += _named_items(item)
    return out


_FORBIDDEN = re.compile(r"(?i)\b(?:don'?t|do not|never|not|no need to)\s+(\w+)")
"""A request ruling an action out: "Reply, don't forward", "tick it off (don't delete it)"."""


_NO_CHANGE = re.compile(r"(?i)\b(?:don'?t|do not|without|never)\s+(?:change|modify|touch|edit|alter)\w*\s+"
                        r"(?:anything|a thing|any\b)")
"""A request that says nothing may change ("just tell me, don't change anything"): every write is ruled out."""


def forbidden_verbs(request: str) -> set[str]:
    """The tool verbs a request rules out by name ("don't forward": forward)."""
    return {m.group(1).lower() for m in _FORBIDDEN.finditer(request) if m.group(1).lower() in _WRITE_VERBS}


def minefields(calls: list[_Call], tools: dict[str, ToolInfo], request: str = "") -> list[Minefield]:
    """Destructive tools the trace never used: on the items the trace touched, or at all when it wrote nothing;
    every write tool when the request says nothing may change, and tools of a verb it rules out (``request``)."""
    used = {c.name for c in calls}
    paths = {normalise_path(v) for c in calls for k, v in c.args.items() if isinstance(v, str)
             and is_path_parameter(k)} - {"."}  # the workspace itself is no item
    ids = {str(v) for c in calls for k, v in c.args.items() if isinstance(v, str | int) and not isinstance(v, bool)
           and (k.lower() == "id" or k.lower().endswith(("_id", "id", "_key")) or k.lower() in {"name", "key"})}
    names = {v for c in calls for v in _named_items(c.args)}  # items called by name: for a list of names only
    wrote = any(c.write for c in calls)
    servers = {c.server for c in calls}
    out: list[Minefield] = []
    ruled_out = forbidden_verbs(request)
    still = bool(_NO_CHANGE.search(request))
    for name, info in sorted(tools.items()):
        if name not in used and info.server in servers and verb_of(name) in ruled_out:
            out.append(Minefield(tools=[name], description=f"{name}: the request rules it out"))
            continue
        if name in used or not is_destructive(name):
            if name not in used and not wrote and still and info.server in servers and is_write(name):
                out.append(Minefield(tools=[name], description=f"{name}: the task changes nothing"))
            continue
        props = (info.input_schema or {}).get("properties", {})
        must: dict[str, Matcher] = {}
        for key, prop in props.items():
            if is_path_parameter(key) and paths:
                must[key] = Matcher(one_of=sorted(paths))
            elif (key.lower() == "id" or key.lower().endswith(("_id", "id", "_key")) or key.lower() in {
                    "name", "key"}) and ids:
                must[key] = Matcher(one_of=sorted(ids), case="insensitive")
            elif _NAMES.search(key) and isinstance(prop, dict) and prop.get("type") == "array" and names:
                must[f"{key}[*]"] = Matcher(one_of=sorted(names), case="insensitive")  # entityNames: any one named
        if must:
            for key, matcher in must.items():  # any one named item destroyed is a hit
                out.append(Minefield(tools=[name], must_match={key: matcher},
                                     description=f"{name} on an item the task is about"))
        elif not wrote:
            out.append(Minefield(tools=[name], description=f"{name}: the task changes nothing"))
        elif _wipes_everything(props):
            out.append(Minefield(tools=[name], description=f"{name}: destroys everything, not only what the task"
                                                           " changes"))
    return out


def _wipes_everything(props: dict[str, Any]) -> bool:
    """Whether a destructive tool names no item at all (reset_database(confirm)): it acts on the whole store,
    so a task that writes only some items never needs it."""
    return all(isinstance(p, dict) and p.get("type") == "boolean" for p in props.values())


# --------------------------------------------------------------------------- reference and complexity


def _needed(calls: list[_Call], deps: dict[int, set[int]], checked_values: list[Any],
            sources: set[int] | frozenset[int] = frozenset()) -> list[_Call]:
    """Writes, reads whose results ground a checked value, the ``sources`` of the answer, and every call these
    depend on; repeats dropped."""
    keep = {c.position for c in calls if c.write} | set(sources)
    for c in calls:
        if not c.write and any(_stated(v, c.result) for v in checked_values if v not in (None, "")):
            keep.add(c.position)
    frontier = list(keep)
    while frontier:
        for dep in deps.get(frontier.pop(), set()):
            if dep not in keep:
                keep.add(dep)
                frontier.append(dep)
    seen: set[str] = set()
    out = []
    for c in calls:
        key = repr((c.name, sorted(c.raw_args.items(), key=lambda kv: kv[0])))
        if c.position in keep and (c.write or key not in seen):
            out.append(c)
            seen.add(key)
    return out


def complexity(calls: list[_Call], deps: dict[int, set[int]]) -> Complexity:
    """Chain depth (longest data-dependency chain), cross-server, branching (widest fan-out beyond one)."""
    kept = {c.position for c in calls}
    depth: dict[int, int] = {}
    for c in calls:
        depth[c.position] = 1 + max((depth[d] for d in deps.get(c.position, set()) if d in depth), default=0)
    fan = {p: sum(p in deps.get(q, set()) for q in kept) for p in kept}
    return Complexity(chain_depth=max(depth.values(), default=0), cross_server=len({c.server for c in calls}) > 1,
                      branching=max(0, max(fan.values(), default=0) - 1))


def _checked_values(checkpoints: list[Any], every: bool = False) -> list[Any]:
    """The values the checkpoints check; only those specific enough to show where they came from unless
    ``every`` (a small figure, "0% chance of rain", is all an answer check may have)."""
    out: list[Any] = []
    for cp in checkpoints:
        if isinstance(cp, ValueCheckpoint):
            out += [x for item in cp.contains for x in (item if isinstance(item, list) else [item])]
            out += [v for f in cp.facts for v in f.values]
        elif isinstance(cp, StateCheckpoint):
            out += [x for item in cp.contains for x in (item if isinstance(item, list) else [item])]
            for m in [*cp.match.values(), *cp.where.values()]:
                value = getattr(m, m.kind)
                items = value if isinstance(value, list) and m.kind != "facts" else [value]
                out += [x for item in items for x in (item if isinstance(item, list) else [item])]
        elif isinstance(cp, ToolEffectCheckpoint):
            out += list(cp.must_include.values())
            for m in cp.must_match.values():
                value = getattr(m, m.kind)
                out += value if isinstance(value, list) else [value]
    return [v for v in out if isinstance(v, str | int | float) and not isinstance(v, bool)
            and (every or _significant(v))]


def _answer_sources(calls: list[_Call], answer: str, goal: str, year: int | None) -> set[int]:
    """The reads that show a figure, date, time or code the explorer's answer asserts and the goal does not
    give: they belong to the reference, since an answer is held to have a source for each."""
    asserted = [v for v in values_in(answer, year=year) if v.kind in {"number", "date", "time", "code"}
                and _significant(v.value) and not grounded_in(v, goal)]
    if not asserted:
        return set()
    out: set[int] = set()
    for c in calls:
        if c.write:
            continue
        numbers = [leaf for _path, leaf in leaves(parse_json(c.result))  # parsed once per result, not per value
                   if isinstance(leaf, int | float) and not isinstance(leaf, bool)]
        if any(grounded_in(v, c.result) or _rounds(v, numbers) for v in asserted):
            out.add(c.position)
    return out


def _rounds(value: Value, numbers: list[int | float]) -> bool:
    """Whether a result's numbers hold the one the text rounds to its own decimals (907 g for 907.185)."""
    if value.kind != "number" or not isinstance(value.value, int | float):
        return False
    digits = len(value.text.split(".")[1]) if "." in value.text else 0
    return any(round(n, digits) == value.value for n in numbers)


# --------------------------------------------------------------------------- the whole distillation


def distill(draft: TaskDraft, trace: Trace) -> Task:
    """The task a trace justifies: checkpoints, minefields, order, reference and answer; or Rejected."""
    answer = trace.episode.final_answer.strip()
    if not answer:
        raise Rejected("distill", "the explorer's answer is empty")
    calls = _calls(trace)
    if not calls:
        raise Rejected("distill", "the trace has no successful call")
    goal = draft.goal if not draft.prompt or draft.prompt == draft.goal else f"{draft.goal}\n{draft.prompt}"
    year = draft.now.year if draft.now else None
    today = draft.now.date() if draft.now else None
    read_results = [c.result for c in calls if not c.write]
    asked = draft.prompt or goal  # the request the agent reads: wording only the explorer's goal chose is not

    def grounding(position: int | None) -> tuple[Grounded, GroundedRaw]:
        """Whether a value comes from the goal or from a result read before ``position`` (any result: None)."""
        reads = [c.result for c in calls if not c.write and (position is None or c.position < position)]
        docs = [d for d in (parse_json(r) for r in reads) if d is not None]

        def grounded_value(v: Value) -> bool:
            in_reads = any(grounded_in(v, r) for r in reads)
            if v.kind == "name":  # a name the request gives, or a result holds as a field of its own (a person)
                return (in_reads and whole_field(v, docs)) or grounded_in(v, asked)
            if v.kind == "path" and _path_tail_in(str(v.value), [goal, *reads]):
                return True  # refs/heads/feature/login for the branch feature/login the goal names
            return in_reads or grounded_in(v, goal)

        def grounded_raw(value: Any) -> bool:
            return _stated(value, goal) or any(_stated(value, r) for r in reads) or given_by_goal(value, goal, today)

        return grounded_value, grounded_raw

    writes = [WriteCall(c.position, c.name, c.args, c.result) for c in calls if c.write]
    state = distil_state(trace.before, trace.after, writes, grounding, goal, year, asked=asked, today=today,
                         reads=lambda position: [c.result for c in calls if not c.write and c.position < position])
    checkpoints: list[Any] = list(state.checkpoints)
    _computations_are_reads([c for c in calls if c.position not in state.covered], answer, goal, year)
    read_results[:] = [c.result for c in calls if not c.write]
    effects: dict[int, str] = {}
    named_only = handles(calls, goal)
    for call in calls:
        if call.write and call.position not in state.covered:
            cid = f"effect_{len(effects) + 1}"
            checkpoints.append(effect_checkpoint(call, cid, trace.tools, grounding(call.position)[1],
                                                 named_only.get(call.position)))
            effects[call.position] = cid
    checkpoints += stored_results(calls, goal)
    asks = asks_information(draft.prompt or goal) or asks_information(goal) or not checkpoints
    if asks:
        check = answer_checkpoint(answer, goal, draft.prompt or "", read_results, year, fallback=not checkpoints,
                                  today=today, now=draft.now, written=_written_texts(writes))
        if check is None and not checkpoints:
            raise Rejected("distill", "the goal asks for information but the answer states no value a tool result"
                                      " supports")
        if check is not None:
            checkpoints.append(check)
        docs = [d for d in (parse_json(r) for r in read_results) if d is not None]
        checkpoints += conclusions(goal, answer, read_results, docs, year, asked=asked)
        checkpoints += empty_reads(calls, answer, trace.tools)
    if checkpoints:  # asked or not, what the answer says of the figures it gives (from any result) must hold
        checkpoints += figure_words(answer, [d for d in (parse_json(c.result) for c in calls) if d is not None])
    if not checkpoints:
        raise Rejected("distill", "nothing changed in a way a write explains and no result value reaches the answer")
    deps = dependencies(calls, goal)
    order = [(effects[i], effects[j]) for j in effects for i in sorted(deps.get(j, set())) if i in effects]
    sources = _answer_sources(calls, answer, goal, year)
    reference = _needed(calls, deps, _checked_values(checkpoints), sources) or \
        _needed(calls, deps, _checked_values(checkpoints, every=True))  # the read that says "0%" is needed too
    spec = TaskSpec(checkpoints=checkpoints, minefields=minefields(calls, trace.tools, asked),
                    partial_order=order, complexity=complexity(reference, deps))
    return Task(
        id=draft.id, prompt=draft.prompt or draft.goal, concrete_prompt=draft.goal,
        dependency_analysis=draft.dependency_analysis,
        servers=list(draft.servers), category=draft.category, now=draft.now, fixtures=draft.fixtures, spec=spec,
        reference=[PlannedCall(tool=c.name, args=c.raw_args) for c in reference], reference_answer=answer,
        provenance={**draft.provenance, "method": draft.method, "distiller": DISTILLER,
                    "trace": {"calls": len(trace.episode.tool_calls), "successful": len(calls),
                              "model": trace.episode.model}},
    )
