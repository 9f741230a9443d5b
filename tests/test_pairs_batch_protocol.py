"""zelo_pairs next / add and zelo_judge --state on the faults of a batch loop (session 23, j32).

* A state file cut short (a full disk, an interrupted copy) or edited into bad JSON is refused in one line
  naming ``file:line`` (it was ``file: not a zelo_pairs state file (... line 702 column 14 ...)``), by every
  command that reads it, the file and the store left alone.
* ``add`` of a file none of whose judgments is of a pair the state asked for (the answers to another state, a
  typo'd topic) is refused, the state unchanged (it was accepted with a warning, "0 used", and the state
  rewritten). A file with some usable judgments, or with judgments of pairs already judged, is still taken
  with its warning (docs/zelo_pairs.md); the same batch twice changes nothing.

Oracle: the line of the fault is where the file was cut (counted by hand: the number of newlines before the
cut, plus one); "unchanged" is the state's bytes.
"""
from __future__ import annotations

import json

import pytest

from cli_harness import run_module_inproc

QRELS = "qrels/dl19-sample.qrels"
INIT = {"tournament": ["--k", "3"], "adaptive": ["--strategy", "adaptive"],
        "ranking": ["--strategy", "adaptive", "--goal", "ranking", "--cycles", "1"]}


def _pairs(*args):
    return run_module_inproc("pairs", [str(a) for a in args])


def _state(tmp_path, kind):
    st = tmp_path / f"{kind}.json"
    assert _pairs("init", "--state", st, "--qrels", QRELS, "--seed", "0", *INIT[kind], "-Q").returncode == 0
    return st


@pytest.mark.parametrize("kind", sorted(INIT))
def test_a_state_cut_short_is_refused_naming_its_line(tmp_path, kind):
    st = _state(tmp_path, kind)
    text = st.read_text()
    cut = text[:len(text) // 2]
    st.write_text(cut)
    line = cut.count("\n") + 1
    for args in (["next", "--state", st], ["add", "--state", st, "-J", "judgments/dl19-sample.judge"],
                 ["status", "--state", st], ["result", "--state", st]):
        res = _pairs(*args)
        assert res.returncode == 2 and res.stdout == "", args
        assert res.stderr.startswith(f"zelo_pairs: {st}:{line}: not a zelo_pairs state file (JSON: "), res.stderr
        assert res.stderr.endswith("; the file does not end with '}': cut short?)\n") and res.stderr.count("\n") == 1
    (tmp_path / "q.tsv").write_text("1037798\tq\n")
    (tmp_path / "d.tsv").write_text("d\tx\n")
    res = run_module_inproc("judge", ["--state", str(st), "--queries", str(tmp_path / "q.tsv"), "--docs",
                                      str(tmp_path / "d.tsv"), "--judge", "cmd:true", "--store",
                                      str(tmp_path / "s.sqlite")])
    assert res.returncode == 2 and res.stderr.startswith(f"zelo_judge: {st}:{line}: not a zelo_pairs state file")
    assert st.read_text() == cut and not (tmp_path / "s.sqlite").exists()


def test_a_state_edited_into_bad_json_or_emptied(tmp_path):
    st = _state(tmp_path, "tournament")
    lines = st.read_text().splitlines(keepends=True)
    lines[6] = lines[6].replace(",", ",,")  # line 7: '"k": 3,,'
    st.write_text("".join(lines))
    res = _pairs("next", "--state", st)
    assert res.returncode == 2 and res.stderr == (f"zelo_pairs: {st}:7: not a zelo_pairs state file (JSON: Expecting "
                                                  "property name enclosed in double quotes, column 9)\n")
    st.write_text("\n")
    res = _pairs("next", "--state", st)
    assert res.returncode == 2 and res.stderr == f"zelo_pairs: {st}: not a zelo_pairs state file: the file is empty\n"


@pytest.mark.parametrize("kind", sorted(INIT))
def test_add_of_answers_to_no_requested_pair_is_refused_state_unchanged(tmp_path, kind):
    st = _state(tmp_path, kind)
    batch = tmp_path / "batch.txt"
    assert _pairs("next", "--state", st, "-o", batch).returncode == 0
    asked = [x.split() for x in batch.read_text().splitlines() if not x.startswith("#")]
    before = st.read_bytes()
    stray = tmp_path / "stray.jsonl"  # the answers to another state: its topic's documents, pairs never asked
    t = asked[0][0]
    stray.write_text(json.dumps({"qid": t, "doc_a": "nosuch1", "doc_b": "nosuch2", "score": 1}) + "\n"
                     + json.dumps({"qid": "no-such-topic", "doc_a": "a", "doc_b": "b", "score": 0}) + "\n")
    res = _pairs("add", "--state", st, "-J", stray)
    assert res.returncode == 2 and res.stdout == "" and res.stderr.count("\n") == 1
    assert res.stderr.startswith(f"zelo_pairs: {stray}: none of its 2 judgments is of a pair {st} asked for")
    assert res.stderr.endswith(f"nothing was added, {st} is unchanged\n")
    assert st.read_bytes() == before
    # the batch's own answers are taken; the same file again changes nothing; a file with one requested pair
    # besides the stray ones is taken with its warning
    def answers(rows):
        return "".join(json.dumps({"qid": q, "doc_a": a, "doc_b": b, "score": 1}) + "\n" for q, a, b in rows)
    good = tmp_path / "good.jsonl"
    good.write_text(answers(asked[:-1]))
    assert _pairs("add", "--state", st, "-J", good).returncode == 0
    once = st.read_bytes()
    again = _pairs("add", "--state", st, "-J", good)
    assert again.returncode == 0 and "already added" in again.stderr and st.read_bytes() == once
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(answers(asked[-1:]) + stray.read_text())
    res = _pairs("add", "--state", st, "-J", mixed)
    assert res.returncode == 0 and "and 2 of pairs not requested" in res.stderr and "; 1 used" in res.stderr
