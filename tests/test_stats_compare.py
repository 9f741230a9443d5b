"""compare() / compare_differences(): records equal direct scipy + statsmodels
calls on the same per-query vectors; families, baseline, query sets."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from pref_eval.errors import UsageError
from pref_eval.stats import compare, compare_differences


def _long(X, runs, measures, qids):
    rows = []
    for i, r in enumerate(runs):
        for j, m in enumerate(measures):
            for k, q in enumerate(qids):
                if not np.isnan(X[i, j, k]):
                    rows.append((r, q, m, float(X[i, j, k])))
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


@pytest.fixture()
def table():
    rng = np.random.default_rng(12)
    R, M, Q = 5, 2, 30
    X = np.round(rng.beta(2, 4, (R, M, Q)) + np.linspace(0, 0.1, R)[:, None, None], 4)
    runs = [f"r{i}" for i in range(R)]
    return X, runs, ["ndcg", "ap"], [f"q{k}" for k in range(Q)]


def test_records_equal_scipy_and_statsmodels(table):
    X, runs, measures, qids = table
    res = compare(_long(X, runs, measures, qids), tests="t,wilcoxon,sign")
    rec = res.records
    assert len(rec) == 2 * 10 * 3
    assert list(rec.columns[:12]) == ["measure", "run_a", "run_b", "test", "n_queries", "mean_diff",
                                      "statistic", "p_value", "p_adjusted", "correction", "ci_low", "ci_high"]
    for j, m in enumerate(measures):
        for test, fn in (("t", lambda x, y: stats.ttest_rel(x, y).pvalue),
                         ("wilcoxon", lambda x, y: stats.wilcoxon(np.round(x - y, 12)).pvalue),
                         ("sign", lambda x, y: stats.binomtest(int((np.round(x - y, 12) > 0).sum()),
                                                               int((np.round(x - y, 12) != 0).sum())).pvalue)):
            fam = rec[(rec.measure == m) & (rec.test == test)]
            assert len(fam) == 10
            oracle = []
            for a, b in zip(fam.run_a, fam.run_b, strict=False):
                x, y = X[runs.index(a), j], X[runs.index(b), j]
                oracle.append(fn(x, y))
            np.testing.assert_allclose(fam.p_value, oracle, rtol=1e-9)
            np.testing.assert_allclose(fam.p_adjusted, multipletests(oracle, method="holm")[1], rtol=1e-9)
            assert set(fam.correction) == {"holm"}
        t = rec[(rec.measure == m) & (rec.test == "t")].iloc[0]
        x, y = X[runs.index(t.run_a), j], X[runs.index(t.run_b), j]
        ci = stats.ttest_rel(x, y).confidence_interval()
        assert (t.ci_low, t.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-9)
        assert t.mean_diff == pytest.approx(np.mean(x - y))
    # pairs in run order, tests in --tests order
    first = rec.iloc[:3]
    assert list(first.test) == ["t", "wilcoxon", "sign"] and set(first.run_a) == {"r0"} and set(first.run_b) == {"r1"}
    assert res.means.loc["r3", "ap"] == pytest.approx(X[3, 1].mean())


@pytest.mark.parametrize("correction,sm", [("bonferroni", "bonferroni"), ("bh", "fdr_bh")])
def test_other_corrections_per_family(table, correction, sm):
    X, runs, measures, qids = table
    res = compare(_long(X, runs, measures, qids), tests="t", correction=correction)
    for m in measures:
        fam = res.records[res.records.measure == m]
        np.testing.assert_allclose(fam.p_adjusted, multipletests(fam.p_value, method=sm)[1], rtol=1e-12)


def test_baseline_mode(table):
    X, runs, measures, qids = table
    res = compare(_long(X, runs, measures, qids), tests="t", baseline="r2")
    rec = res.records
    assert len(rec) == 2 * 4
    assert set(rec.run_b) == {"r2"} and list(rec.run_a[:4]) == ["r0", "r1", "r3", "r4"]
    fam = rec[rec.measure == "ndcg"]
    np.testing.assert_allclose(fam.p_adjusted, multipletests(fam.p_value, method="holm")[1])
    with pytest.raises(UsageError):
        compare(_long(X, runs, measures, qids), baseline="nope")


def test_query_set_intersection_and_complete(table):
    X, runs, measures, qids = table
    X = X.copy()
    X[1, 0, 3] = np.nan  # r1 lacks q3 for ndcg
    df = _long(X, runs, measures, qids)
    res = compare(df, tests="t")
    assert res.n_queries == {"ndcg": 29, "ap": 30}
    assert res.dropped_queries["ndcg"] == ["q3"]
    fam = res.records[(res.records.measure == "ndcg") & (res.records.run_a == "r0") & (res.records.run_b == "r2")]
    keep = [k for k in range(30) if k != 3]
    assert fam.p_value.iloc[0] == pytest.approx(stats.ttest_rel(X[0, 0, keep], X[2, 0, keep]).pvalue, rel=1e-9)
    resc = compare(df, tests="t", complete=True)
    assert resc.n_queries["ndcg"] == 30
    x1 = np.nan_to_num(X[1, 0])
    fam = resc.records[(resc.records.measure == "ndcg") & (resc.records.run_a == "r0") & (resc.records.run_b == "r1")]
    assert fam.p_value.iloc[0] == pytest.approx(stats.ttest_rel(X[0, 0], x1).pvalue, rel=1e-9)


def test_seeded_resampling_reproducible(table):
    X, runs, measures, qids = table
    df = _long(X, runs, measures, qids)
    a = compare(df, tests="randomization,bootstrap,tukey", resamples=2000, seed=5).records
    b = compare(df, tests="randomization,bootstrap,tukey", resamples=2000, seed=5).records
    c = compare(df, tests="randomization,bootstrap,tukey", resamples=2000, seed=6).records
    assert a.to_csv().encode() == b.to_csv().encode()
    assert a.to_csv() != c.to_csv()
    tk = a[a.test == "tukey"]
    assert set(tk.correction) == {"tukey-hsd"} and (tk.p_value == tk.p_adjusted).all()


def test_test_differences_for_preference_vectors():
    rng = np.random.default_rng(3)
    D = np.round(rng.normal(0.1, 0.5, (3, 20)), 3)
    rec = compare_differences(D, labels=["A:B", "A:C", "solo"], measure="rpp", tests="t,sign")
    assert list(rec.run_a) == ["A", "A", "A", "A", "solo", "solo"]
    assert rec.run_b.iloc[0] == "B" and pd.isna(rec.run_b.iloc[-1])
    t = rec[rec.test == "t"]
    np.testing.assert_allclose(t.p_value, [stats.ttest_1samp(d, 0).pvalue for d in D], rtol=1e-12)
    np.testing.assert_allclose(t.p_adjusted, multipletests(t.p_value, method="holm")[1])
    with pytest.raises(UsageError):
        compare_differences(D, tests="tukey")


def test_bad_arguments(table):
    X, runs, measures, qids = table
    df = _long(X, runs, measures, qids)
    for kwargs in ({"tests": "t,foo"}, {"correction": "hs"}, {"alpha": 1.5}, {"measures": ["nope"]},
                   {"runs": ["r0"]}, {"resamples": 0}):
        with pytest.raises(UsageError):
            compare(df, **kwargs)
