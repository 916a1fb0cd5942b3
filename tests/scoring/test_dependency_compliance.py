"""MCP-Bench's rule metric dependency compliance: a consumer's first call comes after a successful producer call."""

from __future__ import annotations

from mcptrials.model import Episode, Task, ToolCallRecord, ToolInfo
from mcptrials.scoring.rules import score_rules


def _call(i: int, name: str, error: bool = False) -> ToolCallRecord:
    server, tool = name.split("__")
    return ToolCallRecord(index=i, call_id=f"c{i}", turn=i, name=name, server=server, tool=tool, arguments={},
                          is_error=error)


def _episode(*calls: ToolCallRecord) -> Episode:
    return Episode(id="e", run_id="r", task_id="t", agent="react", model="m", attempt=1, config_hash="h",
                   steps=list(calls))


TASK = Task(id="t", prompt="p", servers=["a", "b"], spec={"checkpoints": [], "judges": ["rubric"]},
            dependencies=[("a__search", "a__fetch"), ("a__fetch", "b__summarise"), ("a__search", "b__never")])
TOOLS = {n: ToolInfo(server=n.split("__")[0], name=n.split("__")[1]) for n in
         ("a__search", "a__fetch", "b__summarise", "b__never")}


def test_kept_order_counts_and_unreached_edges_do_not() -> None:
    score = score_rules(_episode(_call(0, "a__search"), _call(1, "a__fetch"), _call(2, "b__summarise")), TOOLS, TASK)
    assert score.values["dependency_compliance_rate"] == 1.0  # b__never was not called: not counted


def test_consumer_before_producer_or_after_a_failed_producer_breaks_the_edge() -> None:
    early = _episode(_call(0, "a__fetch"), _call(1, "a__search"), _call(2, "b__summarise"))
    assert score_rules(early, TOOLS, TASK).values["dependency_compliance_rate"] == 0.5
    failed = _episode(_call(0, "a__search", error=True), _call(1, "a__fetch"), _call(2, "b__summarise"))
    assert score_rules(failed, TOOLS, TASK).values["dependency_compliance_rate"] == 0.5


def test_no_task_or_no_dependency_reached_gives_no_rate() -> None:
    episode = _episode(_call(0, "a__search"))
    assert "dependency_compliance_rate" not in score_rules(episode, TOOLS).values
    assert "dependency_compliance_rate" not in score_rules(episode, TOOLS, TASK).values
