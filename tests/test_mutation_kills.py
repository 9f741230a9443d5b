"""Checks that kill the mutants of the number-producing code that the rest of the suite let through.

Session 20 (m29) mutated ``pref_eval/measures``, ``run_preferences``, ``stats`` and ``zelo/fit.py`` one token
at a time (``<``/``<=``, ``+``/``-``, constants 0/1/2, slice bounds ±1, ``log2``/``log``, ``maximum``/``minimum``,
``"left"``/``"right"``, ...) and ran the tests that execute the mutated line (NOTES.md, session 20, m29). Each
test below fails on one surviving mutant (named in its docstring) and takes its expected values from outside
the project: trec_eval 10.0's output (the binary built from https://github.com/usnistgov/trec_eval), scipy,
statsmodels, or a hand-worked example.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cli_harness import run_module_inproc


def _trec(args: list[str], cwd) -> str:
    res = run_module_inproc("trec", [str(a) for a in args], cwd)
    assert res.returncode == 0, res.stderr
    return res.stdout


# trec_eval 10.0: trec_eval -q -m all_prefs -R qrels_prefs qrels run, qrels q1: a 2, b 1, c 0; the run retrieves b
# only. By hand: the preferences are a>b, a>c, b>c (3 possible); b>c is fulfilled (b retrieved, c not), a>b is
# violated (b retrieved above the unretrieved a), a>c has neither retrieved: 1 fulfilled (prefs_simp 1/3); no pair
# with both retrieved (simp_ret 0); of the 2 pairs with one retrieved, 1 fulfilled (simp_imp 0.5).
ONE_LINE_RUN_PREFS = """\
prefs_num_prefs_poss  \tq1\t3
prefs_num_prefs_ful   \tq1\t1
prefs_num_prefs_ful_ret\tq1\t0
prefs_simp            \tq1\t0.3333
prefs_pair            \tq1\t0.3333
prefs_avgjg           \tq1\t0.3333
prefs_avgjg_Rnonrel   \tq1\t0.4000
prefs_simp_ret        \tq1\t0.0000
prefs_pair_ret        \tq1\t0.0000
prefs_avgjg_ret       \tq1\t0.0000
prefs_avgjg_Rnonrel_ret\tq1\t0.5000
prefs_simp_imp        \tq1\t0.5000
prefs_pair_imp        \tq1\t0.5000
prefs_avgjg_imp       \tq1\t0.5000
"""


def test_prefs_of_a_run_with_one_line(tmp_path):
    """Mutant ``prefs_counts.retrieval_ranks``: ``len(run.qid) == 0`` -> ``== 1`` (a one-line run read as empty)."""
    (tmp_path / "qrels").write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\n")
    (tmp_path / "run").write_text("q1 Q0 b 1 1.0 r\n")
    out = _trec(["-q", "-m", "all_prefs", "-R", "qrels_prefs", "qrels", "run"], tmp_path)
    assert [ln for ln in out.splitlines(keepends=True) if "\tq1\t" in ln] == ONE_LINE_RUN_PREFS.splitlines(True)


@pytest.mark.parametrize("option", [{"alpha": 0.0}, {"alpha": 1.0}, {"confidence": 0.0}, {"confidence": 1.0}])
def test_stats_compare_refuses_a_level_outside_the_open_interval(option):
    """Mutants ``stats.compare._params``: ``0 < confidence < 1`` -> ``<= 1`` (and the other three bounds). A
    confidence of 1 is an infinite t interval (scipy: ``stats.t.ppf(1.0, df)`` is inf); the documented range
    of ``alpha`` and ``confidence`` is the open interval (0, 1), as the command line's."""
    from scipy import stats as sps

    from pref_eval.errors import UsageError
    from pref_eval.stats import compare

    assert np.isinf(sps.t.ppf(1.0, 3))
    df = pd.DataFrame({"run": ["A"] * 4 + ["B"] * 4, "qid": list("1234") * 2, "measure": "map",
                       "value": [0.1, 0.2, 0.3, 0.4, 0.05, 0.1, 0.2, 0.1]})
    with pytest.raises(UsageError, match="alpha|confidence"):
        compare(df, tests=("t",), **option)
