"""Hunks parse from untidy replies, apply by exact match, and fail whole with a clear reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcptrials.evolve.source.hunks import Hunk, HunkError, apply_hunks, parse_hunks, plan_edits
from mcptrials.evolve.source.replies import ReplyError, extract_json

CODE = '''def first():
    return 1


def second():
    return 1


def third():
    return 3
'''


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "server.py").write_text(CODE, encoding="utf-8")
    (root / "pkg" / "other.py").write_text("VALUE = 1\n", encoding="utf-8")
    return root


def test_extract_json_from_fence_prose_and_bare_text() -> None:
    assert extract_json('{"a": 1}') == {"a": 1}
    assert extract_json('Here you go:\n```json\n[{"a": 1}]\n```\nThanks!') == [{"a": 1}]
    assert extract_json('Sure. {"a": 1, "b": [1, 2]} and also [3]') == {"a": 1, "b": [1, 2]}
    with pytest.raises(ReplyError, match="not JSON"):
        extract_json("I would rename the tool.")


def test_parse_hunks_accepts_paper_keys_and_aliases() -> None:
    reply = "```json\n" + json.dumps({"summary": "s", "diff_hunks": [
        {"path": "pkg/server.py", "old_code": "a", "new_code": None}]}) + "\n```"
    [hunk] = parse_hunks(reply)
    assert hunk == Hunk(file_name="pkg/server.py", old_code="a", new_code="", anchor_code="")
    with pytest.raises(HunkError, match="no list of hunks"):
        parse_hunks('{"summary": "nothing"}')
    with pytest.raises(HunkError, match="empty"):
        parse_hunks("[]")
    with pytest.raises(HunkError, match="hunk 1: file_name"):
        parse_hunks('[{"old_code": "x"}]')


def test_replace_insert_delete_in_order(tree: Path, tmp_path: Path) -> None:
    hunks = [
        Hunk(file_name="pkg/server.py", old_code="def third():\n    return 3\n",
             new_code="def third():\n    return 33\n"),
        Hunk(file_name="pkg/server.py", anchor_code="def third():\n    return 33\n",
             new_code="\n\ndef fourth():\n    return 4"),
        Hunk(file_name="src/pkg/other.py", old_code="VALUE = 1\n", new_code=""),
    ]
    changed = apply_hunks(tree, hunks, tmp_path / "out")
    assert changed == ["pkg/other.py", "pkg/server.py"]
    text = (tmp_path / "out" / "pkg" / "server.py").read_text(encoding="utf-8")
    assert text.endswith("def third():\n    return 33\n\n\ndef fourth():\n    return 4\n")
    assert (tmp_path / "out" / "pkg" / "other.py").read_text(encoding="utf-8") == ""
    assert (tree / "pkg" / "server.py").read_text(encoding="utf-8") == CODE


def test_ambiguous_old_code_needs_an_anchor(tree: Path) -> None:
    hunk = Hunk(file_name="pkg/server.py", old_code="    return 1\n", new_code="    return 2\n")
    with pytest.raises(HunkError, match=r"ambiguous: it occurs 2 times .*lines 2, 6"):
        plan_edits(tree, [hunk])
    anchored = hunk.model_copy(update={"anchor_code": "def second():\n"})
    edits = plan_edits(tree, [anchored])
    assert edits["pkg/server.py"].count("return 2") == 1
    assert "def second():\n    return 2\n" in edits["pkg/server.py"]


@pytest.mark.parametrize(("hunk", "reason"), [
    (Hunk(file_name="pkg/server.py", old_code="def first():\n  return 1\n", new_code="x"),
     "old_code not found in pkg/server.py; its first line 'def first():' occurs at line 1"),
    (Hunk(file_name="pkg/server.py", new_code="x = 1\n"), "anchor_code must give"),
    (Hunk(file_name="pkg/server.py", new_code="x = 1\n", anchor_code="    return 1\n"), "occurs 2 times"),
    (Hunk(file_name="pkg/missing.py", old_code="a", new_code="b"), "does not exist"),
    (Hunk(file_name="../outside.py", new_code="x = 1\n"), "leaves the server's tree"),
    (Hunk(file_name="/etc/passwd", old_code="root", new_code="x"), "absolute"),
    (Hunk(file_name="pkg/server.py", old_code="return 3", new_code="return 3"), "changes nothing"),
])
def test_refusals_name_the_hunk_and_the_reason(tree: Path, hunk: Hunk, reason: str) -> None:
    with pytest.raises(HunkError) as info:
        plan_edits(tree, [hunk])
    assert str(info.value).startswith("hunk 1: ")
    assert reason in str(info.value)


def test_failure_leaves_no_half_applied_copy(tree: Path, tmp_path: Path) -> None:
    good = Hunk(file_name="pkg/server.py", old_code="return 3", new_code="return 30")
    bad = Hunk(file_name="pkg/server.py", old_code="return 99", new_code="return 100")
    with pytest.raises(HunkError, match="hunk 2: old_code not found"):
        apply_hunks(tree, [good, bad], tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "out.partial").exists()
    assert (tree / "pkg" / "server.py").read_text(encoding="utf-8") == CODE


def test_new_file_and_suffix_resolution(tree: Path) -> None:
    edits = plan_edits(tree, [
        Hunk(file_name="pkg/extra.py", new_code="EXTRA = 2\n"),
        Hunk(file_name="server.py", old_code="return 3", new_code="return 4"),
        Hunk(file_name="myserver/pkg/other.py", old_code="VALUE = 1", new_code="VALUE = 5"),
    ])
    assert edits == {"pkg/extra.py": "EXTRA = 2\n", "pkg/server.py": CODE.replace("return 3", "return 4"),
                     "pkg/other.py": "VALUE = 5\n"}


def test_crlf_files_keep_their_line_endings(tmp_path: Path) -> None:
    root = tmp_path / "src"
    root.mkdir()
    (root / "a.py").write_bytes(b"x = 1\r\ny = 2\r\n")
    edits = plan_edits(root, [Hunk(file_name="a.py", old_code="y = 2", new_code="y = 3")])
    assert edits == {"a.py": "x = 1\r\ny = 3\r\n"}
