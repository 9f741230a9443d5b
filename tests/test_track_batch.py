"""A track organizer's batch, session 22 (k31): bad runs named alike by zelo_eval and zelo_compare, orderings
refused before any warning, ``-o topics`` in the other table formats, ``--keep-going`` in preference mode and
the pool's per-run contribution report. Oracles: the runs alone (what leaving a bad run out must give),
hand-worked values, pandas computed live."""
from __future__ import annotations

from pathlib import Path

import pytest

from cli_harness import ROOT, run_inproc
from test_track_runs import BAD, GOOD, OTHER, QRELS, THIRD


def _files(tmp_path: Path) -> Path:
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "good.run").write_text(GOOD)
    (tmp_path / "other.run").write_text(OTHER)
    (tmp_path / "third.run").write_text(THIRD)
    for name, text in BAD.items():
        (tmp_path / name).write_text(text)
    return tmp_path


# -- bad runs named by the path as given (what the user typed), in the order given, by both commands

NAMES = ["--name", "dup.run=X", "--name", "none.run=Y", "--name", "short.run=Z"]
RUNS = ["good.run", "dup.run", "./none.run", "other.run", "short.run", "third.run"]


@pytest.mark.slow  # scipy's import in zelo_compare: ~2 s
def test_bad_runs_named_alike_by_zelo_eval_and_zelo_compare(tmp_path):
    """n30: zelo_compare named them by their --name labels (X, Y, Z) and listed them reads first; zelo_eval by path
    in the order given. Both now say the paths as typed (``./none.run``), with the file's line where one is bad."""
    ws = _files(tmp_path)
    ev = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-o", "tsv", "--keep-going", *NAMES, *RUNS], ws)
    co = run_inproc("zelo_compare", ["-R", "q.txt", "-m", "map", "--tests", "t", "-o", "csv", "--keep-going",
                                     *NAMES, *RUNS], ws)
    assert ev.returncode == co.returncode == 2
    tail = ": 3 of 6 runs {} (--keep-going; their errors above): dup.run, ./none.run, short.run"
    assert ev.stderr.splitlines()[-1] == "zelo_eval" + tail.format("not evaluated")
    assert co.stderr.splitlines()[-1] == "zelo_compare" + tail.format("not compared")
    # the error lines: the same set (zelo_compare reads every run before evaluating: read errors come first)
    assert sorted(x.split(": ", 1)[1] for x in ev.stderr.splitlines()[:-1]) == \
        sorted(x.split(": ", 1)[1] for x in co.stderr.splitlines()[:-1])
    assert "./none.run: no queries with both results" in co.stderr and "Y:" not in co.stderr
    assert "dup.run:2: duplicate document a" in co.stderr and "short.run:1: expected" in co.stderr


def test_zelo_compare_keep_going_messages_name_paths_not_labels(tmp_path):
    ws = _files(tmp_path)
    argv = ["-R", "q.txt", "-m", "map", "--tests", "t", "-o", "csv", "--keep-going", "--name", "dup.run=X"]
    res = run_inproc("zelo_compare", [*argv, "--baseline", "X", "good.run", "dup.run", "other.run"], ws)
    assert res.returncode == 2 and res.stdout == b""
    assert res.stderr.splitlines()[-1] == ("zelo_compare: baseline 'X' could not be evaluated (--keep-going: "
                                           "dup.run left out, its error above); nothing written")
    res = run_inproc("zelo_compare", [*argv, "good.run", "dup.run"], ws)
    assert res.returncode == 2 and res.stderr.splitlines()[-1] == (
        "zelo_compare: fewer than two runs left to compare (--keep-going): dup.run could not be evaluated; "
        "nothing written")


# -- zelo_compare --orderings: a format it cannot write is refused before anything is read or warned

def test_orderings_latex_refused_before_any_warning(tmp_path):
    """n30: with orderings of different systems the 'left out' warning came first, then the refusal."""
    a, b = (str(ROOT / "tests/data/stats" / n) for n in ("order_a.tsv", "order_top3.txt"))
    ok = run_inproc("zelo_compare", ["--orderings", a, b, "-o", "csv"], tmp_path)
    assert ok.returncode == 0 and "warning" in ok.stderr  # the two files do hold different systems
    res = run_inproc("zelo_compare", ["--orderings", a, b, "-o", "latex"], tmp_path)
    assert res.returncode == 2 and res.stdout == b""
    assert res.stderr == "zelo_compare: --orderings supports -o text, markdown, csv or jsonl\n"
    res = run_inproc("zelo_compare", ["--orderings", "missing.tsv", b, "-o", "latex"], tmp_path)
    assert res.stderr == "zelo_compare: --orderings supports -o text, markdown, csv or jsonl\n"
