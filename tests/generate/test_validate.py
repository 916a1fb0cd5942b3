"""``validate``: a distilled task is kept only when its reference passes, the spec discriminates, and it
judges the mechanically made right and wrong alternatives right."""

from __future__ import annotations

from distill_traces import GIT, bundled, draft_of, reference_trace

from mcptrials.bundled.world import bundled_servers
from mcptrials.generate.distill import distill
from mcptrials.generate.validate import reworded, validate
from mcptrials.model import Matcher, StateCheckpoint, ValueCheckpoint


async def test_a_distilled_booking_passes_with_right_and_wrong_alternatives() -> None:
    source = bundled("cal-006")
    task = distill(draft_of(source), await reference_trace(source))
    result = await validate(task, bundled_servers())
    assert result.passed, result.reasons
    expects = {a.expect for a in result.alternatives}
    assert expects == {"accept", "reject"}
    assert all(r.right for r in result.results) and len(result.results) == len(result.alternatives)
    assert result.check is not None and result.check.discrimination is not None
    ids = {a.id for a in result.alternatives}
    assert {"gen-reworded", "gen-dropped-write"} <= ids


async def test_a_spec_its_own_reference_fails_is_dropped_with_the_reason() -> None:
    source = bundled("cal-006")
    task = distill(draft_of(source), await reference_trace(source))
    broken = [c.model_copy(update={"match": {**c.match, "start": Matcher(equals="2026-04-20T11:00+08:00")}})
              if isinstance(c, StateCheckpoint) and "start" in c.match else c for c in task.spec.checkpoints]
    task = task.model_copy(update={"spec": task.spec.model_copy(update={"checkpoints": broken})})
    result = await validate(task, bundled_servers())
    assert not result.passed and "does not pass its own spec" in result.reasons[0]


async def test_a_spec_nothing_can_be_made_wrong_for_is_dropped() -> None:
    source = bundled("fin-001")
    task = distill(draft_of(source), await reference_trace(source))
    loose = [ValueCheckpoint(id="answer", source="final_message", contains=["EPS"])]
    task = task.model_copy(update={"spec": task.spec.model_copy(update={"checkpoints": loose})})
    result = await validate(task, bundled_servers())
    assert not result.passed
    assert any("no wrong alternative" in r or "accepted the reject-expected" in r for r in result.reasons)


async def test_a_git_task_validates_on_the_third_party_server() -> None:
    from distill_traces import explorer

    from mcptrials.generate.draft import TaskDraft
    from mcptrials.generate.trace import pursue
    from mcptrials.model import Fixtures

    draft = TaskDraft(id="git-2", goal="Create a branch named release/1.2 from main and switch to it.",
                      servers=["git"], category="baseline", method="explore",
                      fixtures=Fixtures(files={"README.md": "# Demo\n"}))
    model = explorer([[("git__git_create_branch", {"repo_path": ".", "branch_name": "release/1.2",
                                                    "base_branch": "main"})],
                      [("git__git_checkout", {"repo_path": ".", "branch_name": "release/1.2"})]],
                     "Created release/1.2 from main and checked it out.")
    task = distill(draft, await pursue({"git": GIT}, draft, model))
    result = await validate(task, {"git": GIT})
    assert result.passed, result.reasons
    assert any(a.expect == "reject" for a in result.alternatives)


def test_a_reworded_answer_keeps_every_value_in_another_format() -> None:
    answer = "Booked for 2026-04-20 at 10:00. The deposit is 2400 EUR."
    text = reworded(answer, 2026)
    assert "20 April 2026" in text and "2,400" in text and "10:00 am" in text
    assert text.index("2,400") < text.index("20 April")  # sentences reordered


async def test_a_task_whose_only_checked_figure_is_a_zero_keeps_its_read_and_gets_a_wrong_answer() -> None:
    source = bundled("weather-001")  # "0% chance of rain": the high beside it is not asked
    task = distill(draft_of(source), await reference_trace(source))
    [answer] = [c for c in task.spec.checkpoints if isinstance(c, ValueCheckpoint)]
    assert answer.contains == [[0, "no rain"]] and not answer.facts
    assert [s.tool for s in task.reference] and all(s.tool.startswith("weather__") for s in task.reference)
    result = await validate(task, bundled_servers())
    assert result.passed, result.reasons
    assert "gen-wrong-value" in {a.id for a in result.alternatives}


def test_a_decoy_never_holds_another_spelling_the_spec_accepts_for_the_value() -> None:
    from mcptrials.generate.validate import _decoy
    from mcptrials.generate.values import values_in

    pool = values_in('{"line": "Shanghai-Kunming HSR", "via": "Changsha", "from": "Shanghai Hongqiao"}', year=2026)
    forms = ("shanghai hongqiao", "shanghai", "hongqiao")
    picked = _decoy("Shanghai Hongqiao", "name", pool, {"shanghai hongqiao"}, forms)
    assert picked is not None and "shanghai" not in str(picked).casefold()  # it still makes a wrong answer
    assert _decoy("Shanghai Hongqiao", "name", pool, {"shanghai hongqiao"}) == "Shanghai-Kunming HSR"
