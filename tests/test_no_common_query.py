"""Runs with no query in common, and ``--list-measures`` with other arguments (session 23, e32).

* A runs x measures table (``zelo_eval -o text|markdown|latex|wide-csv``) or a comparison (``zelo_compare``)
  over runs with no query in common exited 0 with ``nan`` cells and a warning: now exit 2, one line naming the
  measure (a mean over no query is no number; ``zelo_plot systems|pairs`` refused it already). With ``-c`` the
  missing queries count as 0 (trec_eval ``-c``): AP by hand, X retrieves q1's one relevant document at rank 1
  (AP 1) and nothing of q2 (0), Y the reverse: both means 0.5.
* ``--list-measures`` lists and exits 0 whatever else the line holds, as click's ``--help`` (documented).
"""
from __future__ import annotations

import json

import pytest

from cli_harness import run_module_inproc

QRELS = "q1 0 d1 1\nq2 0 d1 1\n"
RUN_X = "q1 Q0 d1 1 3 X\n"
RUN_Y = "q2 Q0 d1 1 3 Y\n"


@pytest.fixture()
def disjoint(tmp_path):
    for name, text in (("q.txt", QRELS), ("X.run", RUN_X), ("Y.run", RUN_Y)):
        (tmp_path / name).write_text(text)
    return tmp_path


MESSAGE = ("map: no query has a value for every run (X.run, Y.run; 2 quer(y/ies), each lacking for some run): "
           "nothing to average or test; -c counts a query a run lacks as 0\n")


@pytest.mark.parametrize("module, fmt", [("eval", "text"), ("eval", "wide-csv"), ("eval", "latex"),
                                         ("compare", "jsonl"), ("compare", "text")])
def test_no_common_query_is_refused(disjoint, module, fmt):
    res = run_module_inproc(module, ["-R", "q.txt", "-m", "map", "-o", fmt, "X.run", "Y.run"], cwd=disjoint)
    prog = "zelo_eval" if module == "eval" else "zelo_compare"
    assert (res.returncode, res.stdout, res.stderr) == (2, "", f"{prog}: {MESSAGE}")


@pytest.mark.parametrize("source", ["-R", "-P"])
def test_no_common_query_every_test_one_line(disjoint, source):
    """With the Tukey HSD among the tests the refusal was preceded by numpy's two RuntimeWarnings ("Mean of empty
    slice", stats/tukey.py took the runs' means before looking at the query count): four lines on stderr, where
    docs/exit-codes.md promises one (found by tools/fuzz_compare.py, session 25)."""
    (disjoint / "pq.tsv").write_text("run\tqid\tmeasure\tvalue\nX.run\tq1\tmap\t1.0\nY.run\tq2\tmap\t1.0\n")
    given = ["-R", "q.txt", "-m", "map", "X.run", "Y.run"] if source == "-R" else ["-P", "pq.tsv"]
    res = run_module_inproc("compare", [*given, "--tests", "t,wilcoxon,sign,randomization,bootstrap,tukey",
                                        "--resamples", "20", "-o", "jsonl"], cwd=disjoint)
    message = MESSAGE if source == "-R" else MESSAGE.replace("(X.run, Y.run; ", "(").replace("map:", "pq.tsv: map:")
    assert (res.returncode, res.stdout, res.stderr) == (2, "", f"zelo_compare: {message}")


def test_no_common_query_api_warns_nothing():
    import warnings

    import pandas as pd

    import pref_eval
    from pref_eval.errors import UsageError

    df = pd.DataFrame([["A", "1", "m", 0.5], ["B", "2", "m", 0.25]], columns=["run", "qid", "measure", "value"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UsageError, match="no query has a value for every run"):
            pref_eval.compare(df, tests="tukey", resamples=20)


def test_complete_counts_the_missing_queries(disjoint):
    res = run_module_inproc("compare", ["-R", "q.txt", "-m", "map", "-c", "--tests", "t", "-o", "jsonl", "X.run",
                                        "Y.run"], cwd=disjoint)
    rec = json.loads(res.stdout.splitlines()[0])
    # differences 1 - 0 and 0 - 1: one win, one loss, mean 0
    assert res.returncode == 0, res.stderr
    assert (rec["n_queries"], rec["mean_diff"], rec["wins"], rec["losses"]) == (2, 0.0, 1, 1)
    res = run_module_inproc("eval", ["-R", "q.txt", "-m", "map", "-c", "-o", "wide-csv", "X.run", "Y.run"],
                            cwd=disjoint)
    assert res.returncode == 0 and res.stdout.splitlines()[1:] == ["a,X.run,0.5,", "b,Y.run,0.5,"], res.stdout


def test_preference_pairs_without_a_common_query_refused(tmp_path):
    (tmp_path / "pp.tsv").write_text("runi\trunj\tqid\tmeasure\tvalue\nA\tB\tq1\trpp\t0.5\nA\tC\tq2\trpp\t0.5\n")
    res = run_module_inproc("compare", ["-P", "pp.tsv"], cwd=tmp_path)
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr == ("zelo_compare: pp.tsv: rpp: no query has a value for every pair (2 quer(y/ies), each "
                          "lacking for some pair): nothing to average or test\n")


@pytest.mark.parametrize("module, argv", [("eval", ["-R", "q.txt", "-m", "map", "X.run", "Y.run"]),
                                          ("eval", ["-R", "nofile", "-m", "nosuchmeasure", "--output", "out.txt"]),
                                          ("trec", ["q.txt", "X.run"])])
def test_list_measures_lists_and_exits_like_help(disjoint, module, argv):
    alone = run_module_inproc(module, ["--list-measures"], cwd=disjoint)
    res = run_module_inproc(module, ["--list-measures", *argv], cwd=disjoint)
    assert res.returncode == alone.returncode == 0 and res.stdout == alone.stdout and "map" in res.stdout
    assert not (disjoint / "out.txt").exists()
