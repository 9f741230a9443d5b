"""A JSON key given twice in one object of our own formats: one message, ``FILE:LINE: duplicate key 'x' in a
JSON object``, from every reader (session 30, f40). Before, io/pref_jsonl said ``key x appears twice in the
object`` (its own hook), and the judgment JSON lines (zelo_fit -J, zelo_pairs add, zelo_agree) and the zelo_pairs
state files kept the last value silently (Python's json). zbench's own files keep Python's last-wins (zbench reads
them with json.loads: tests/test_hostile_inputs.py). Oracle: the files' own bytes (the key is there twice)."""
from __future__ import annotations

import pytest

from cli_harness import check_contract, digest_tree, run_inproc

MSG = "duplicate key {!r} in a JSON object"


def _one_line(res, script: str) -> str:
    assert check_contract(res, script=script, expect={2}) == [], res.stderr
    return res.stderr


def test_preference_lines(ws):
    """pref_aggregate -P and zelo_compare -P read zelo_eval -q's preference lines (io/pref_jsonl)."""
    lines = (ws / "prefs.jsonl").read_text().splitlines()
    lines[2] = lines[2].replace('"sample": 0', '"sample": 0, "sample": 0')
    (ws / "dup.jsonl").write_text("\n".join(lines) + "\n")
    for script, argv in (("pref_aggregate", ["-P", "dup.jsonl"]), ("zelo_compare", ["-P", "dup.jsonl"])):
        res = run_inproc(script, argv, ws)
        assert _one_line(res, script) == f"{script}: dup.jsonl:3: {MSG.format('sample')}\n"


JUDGMENTS = ('{"qid": "q1", "doc_a": "d1", "doc_b": "d2", "score": 1}\n'
             '{"qid": "q1", "doc_a": "d2", "doc_b": "d3", "score": 1, "score": 0}\n')


@pytest.mark.parametrize("argv", [["zelo_fit", "-J", "dup.jsonl"],
                                  ["zelo_agree", "-J", "dup.jsonl", "-J", "j.jsonl", "-l", "pair"],
                                  ["zelo_plot", "matrix", "-J", "dup.jsonl", "-o", "m.svg"]],
                         ids=["fit", "agree", "plot"])
def test_judgment_lines(ws, argv):
    """The judgment JSON lines (zelo_fit's own format, zelo_judge's output) kept the second score silently."""
    if argv[0] == "zelo_plot":
        pytest.importorskip("matplotlib")
    (ws / "dup.jsonl").write_text(JUDGMENTS)
    res = run_inproc(argv[0], argv[1:], ws)
    assert _one_line(res, argv[0]) == f"{argv[0]}: dup.jsonl:2: {MSG.format('score')}\n"


def test_judgments_added_to_a_state(ws):
    """zelo_pairs add: refused, the state unchanged (it took the last score before)."""
    (ws / "dup.jsonl").write_text('{"qid": "1037798", "doc_a": "x", "doc_b": "y", "score": 0, "score": 1}\n')
    before = digest_tree(ws, ignore=())
    res = run_inproc("zelo_pairs", ["add", "--state", "s.json", "-J", "dup.jsonl"], ws)
    assert _one_line(res, "zelo_pairs") == f"zelo_pairs: dup.jsonl:1: {MSG.format('score')}\n"
    assert digest_tree(ws, ignore=()) == before


def test_a_state_file(ws):
    """A zelo_pairs state edited by hand with a key twice (the tournament's "f": the last one was taken)."""
    text = (ws / "s.json").read_text()
    assert text.count('"f": 9,') == 1
    (ws / "s.json").write_text(text.replace('"f": 9,', '"f": 9, "f": 11,'))
    before = digest_tree(ws, ignore=())
    res = run_inproc("zelo_pairs", ["status", "--state", "s.json"], ws)
    assert _one_line(res, "zelo_pairs") == f"zelo_pairs: s.json: not a zelo_pairs state file ({MSG.format('f')})\n"
    assert digest_tree(ws, ignore=()) == before


def test_the_same_lines_once_are_read(ws):
    """Guard: the files without the repeat are taken (the refusals above are of the repeat)."""
    (ws / "one.jsonl").write_text(JUDGMENTS.replace(', "score": 0}', "}"))
    res = run_inproc("zelo_fit", ["-J", "one.jsonl", "-Q"], ws)
    assert res.returncode == 0, res.stderr
