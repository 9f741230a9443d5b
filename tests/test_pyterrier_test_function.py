"""PyTerrier's ``pt.Experiment(..., test=scipy.stats.ttest_rel)``: a test given as a function.

PyTerrier (``pyterrier/_evaluation/_rendering.py``, ``RenderFromPerQuery``) calls the function as
``test_fn(system_values, baseline_values)[1]`` per measure. Here ``tests=`` takes scipy.stats' ``ttest_rel`` and
``wilcoxon`` themselves (by identity) as 't' / 'wilcoxon', whose p-values are checked against scipy's live, and
refuses any other function with the reason (its numbers are not ours to vouch for).
"""
from __future__ import annotations

import functools
import warnings
from pathlib import Path

import numpy as np
import pytest

import pref_eval
from pref_eval.errors import UsageError

ROOT = Path(__file__).resolve().parent.parent
QRELS = str(ROOT / "qrels" / "dl19-sample.qrels")
RUNS = {n: str(ROOT / "runs" / f"{n}.run") for n in ("bm25", "dense", "rerank")}
stats = pytest.importorskip("scipy.stats")


@pytest.fixture(scope="module")
def per_query():
    pq = pref_eval.evaluate(QRELS, {**RUNS, "copy": RUNS["bm25"]}, ["map", "ndcg_cut.10", "P.5"])
    return pq.rename(columns={"run": "name"})  # pt.Experiment(perquery=True)'s shape


@pytest.mark.parametrize("given", [stats.ttest_rel, stats.wilcoxon, [stats.wilcoxon], ("sign", stats.ttest_rel)])
def test_scipy_paired_tests_give_pt_experiments_p_values(per_query, given):
    """Each system's p-value against the baseline is scipy's ``test_fn(system, baseline)[1]`` (PyTerrier's call),
    NaN where scipy's is (a run equal to the baseline: no difference to test)."""
    records = pref_eval.compare(per_query, baseline="bm25", tests=given, correction="none").records
    fns = [f for f in (given if isinstance(given, (list, tuple)) else [given]) if callable(f)]
    for fn in fns:
        ours_name = {"ttest_rel": "t", "wilcoxon": "wilcoxon"}[fn.__name__]
        for m in ("map", "ndcg_cut_10", "P_5"):
            v = per_query[per_query.measure == m].pivot(index="qid", columns="name", values="value")
            for system in ("dense", "rerank", "copy"):
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # scipy's on the copy (no difference)
                    theirs = fn(v[system].to_numpy(), v["bm25"].to_numpy())[1]
                row = records[(records.measure == m) & (records.test == ours_name) & (records.run_a == system)]
                assert len(row) == 1, (m, system, fn)
                np.testing.assert_allclose(float(row.p_value.iloc[0]), theirs, rtol=1e-9, atol=1e-15)
    assert set(records.test) == {"t" if f is stats.ttest_rel else f if isinstance(f, str) else "wilcoxon"
                                 for f in (given if isinstance(given, (list, tuple)) else [given])}


def test_compare_runs_takes_them_too():
    """``compare_runs(tests=[scipy.stats.ttest_rel])`` is ``tests='t'``: the same report."""
    kw = dict(qrels=QRELS, runs=list(RUNS.values()), measures=["map"], baseline="bm25.run")
    assert (pref_eval.compare_runs(tests=[stats.ttest_rel, stats.wilcoxon], **kw)
            == pref_eval.compare_runs(tests="t,wilcoxon", **kw))
    assert pref_eval.compare_runs(tests=stats.ttest_rel, **kw) == pref_eval.compare_runs(tests="t", **kw)


def _ttest_rel(a, b):
    return stats.ttest_rel(a, b)


_ttest_rel.__name__ = "ttest_rel"  # named as scipy's, not scipy's: refused (identity, not name)


@pytest.mark.parametrize("fn,why", [
    (stats.ttest_ind, r"scipy.stats.ttest_ind is not taken: not a paired test"),
    (stats.mannwhitneyu, r"scipy.stats.mannwhitneyu is not taken: not a paired test"),
    (functools.partial(stats.wilcoxon, zero_method="pratt"),
     r"functools.partial\(scipy.stats.wilcoxon, ...\) is not taken: its keywords \(zero_method\) may change the "
     r"p-values; write 'wilcoxon' with this function's options"),
    (lambda a, b: (0.0, 0.01), r"<lambda> is not taken: pref_eval computes each test itself and cannot vouch"),
    (np.mean, r"numpy.mean is not taken: pref_eval computes each test itself"),
    (_ttest_rel, r"_ttest_rel is not taken: pref_eval computes each test itself"),
])
def test_other_functions_are_refused_saying_why(per_query, fn, why):
    for call in (lambda: pref_eval.compare(per_query, baseline="bm25", tests=fn),
                 lambda: pref_eval.compare(per_query, baseline="bm25", tests=["t", fn]),
                 lambda: pref_eval.compare_runs(qrels=QRELS, runs=list(RUNS.values()), measures=["map"],
                                                tests=[fn])):
        with pytest.raises(UsageError, match=r"^tests: the function .*" + why) as e:
            call()
        msg = str(e.value)
        assert "a function is taken only when it is scipy.stats.ttest_rel or scipy.stats.wilcoxon itself" in msg
        assert "\n" not in msg


def test_pt_experiments_test_keyword_says_functions_are_taken(per_query):
    with pytest.raises(UsageError, match=r"unknown option 'test' \(PyTerrier's pt.Experiment keyword; here: tests "
                                         r"\(.*scipy.stats.ttest_rel / wilcoxon themselves are taken too\)"):
        pref_eval.compare(per_query, baseline="bm25", test=stats.ttest_rel)
