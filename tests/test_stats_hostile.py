"""The paired tests, corrections and orderings on hostile inputs (session 17, s26), against live oracles.

n = 1, 2, 3 topics; all differences zero; one non-zero difference; every |d| tied; -0.0; float noise of
1e-17; NaN / inf values; different query sets; two identical systems; 50 systems; orderings of two items,
all tied. Oracles: scipy.stats (ttest_1samp, wilcoxon with every zero_method / method, binomtest,
permutation_test, bootstrap, kendalltau), statsmodels (multipletests) and hand-worked values written here.
"""
from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from cli_harness import run_module_inproc
from scipy import stats
from statsmodels.stats.multitest import multipletests

from pref_eval.errors import UsageError
from pref_eval.stats import compare, compare_differences, compare_orderings, paired
from pref_eval.stats.correction import STATSMODELS_NAMES, adjust

CASES = {
    "n2": [0.3, 0.1],
    "n2_opposite_tied": [0.2, -0.2],
    "n3": [0.3, -0.1, 0.2],
    "all_zero": [0.0, 0.0, 0.0],
    "one_nonzero": [0.0, 0.0, 0.0, 0.2],
    "all_tied": [0.1] * 6,
    "all_abs_tied": [0.1, -0.1, 0.1, 0.1, -0.1, 0.1],
    "signed_zeros": [-0.0, 0.0, 0.1, 0.2],
}


def _same(ours, ref, rel=1e-12):
    ours, ref = float(ours), float(ref)
    assert (math.isnan(ours) and math.isnan(ref)) or ours == pytest.approx(ref, rel=rel, abs=1e-300), (ours, ref)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's warnings on degenerate samples (all ties, zero variance)
        yield


@pytest.mark.parametrize("name", list(CASES))
def test_t_sign_randomization_bootstrap_on_degenerate_rows(name):
    d = np.array(CASES[name])
    D = d[None, :]
    o = stats.ttest_1samp(d, 0.0)
    r = paired.t_test(D)
    _same(r["statistic"][0], o.statistic)
    _same(r["p_value"][0], o.pvalue)
    k, n = int((d > 0).sum()), int((d != 0).sum())  # -0.0 != 0 is False: a signed zero is a tie
    s = paired.sign_test(D)
    _same(s["p_value"][0], stats.binomtest(k, n).pvalue if n else math.nan)
    # exact randomization = permutation_test of |mean| over all 2^n sign flips, "greater"
    ref = stats.permutation_test((d,), lambda x, axis: np.abs(np.mean(x, axis=axis)), permutation_type="samples",
                                 alternative="greater", n_resamples=np.inf).pvalue
    _same(paired.randomization_test(D, resamples=1 << d.size)["p_value"][0], ref)
    # scipy on the differences in tenths (integers: exact resampled sums, so exact ties of the bootstrap means
    # with the mean, which ours finds within 1e-12 on the decimals: docs/differences-stats.md 5), scaled back
    tenths = np.round(d * 10)
    for method in ("percentile", "basic", "BCa"):
        b = paired.bootstrap_test(D, resamples=199, seed=4, ci_method=method)
        ci = stats.bootstrap((tenths,), np.mean, n_resamples=199, rng=4, method=method).confidence_interval
        if np.ptp(d) == 0 and method == "BCa":  # constant: scipy nan (0/0 acceleration), ours the point
            assert math.isnan(ci.low) and b["ci_low"][0] == b["ci_high"][0] == d.mean()
            continue
        _same(b["ci_low"][0], ci.low / 10, rel=1e-9)
        _same(b["ci_high"][0], ci.high / 10, rel=1e-9)


@pytest.mark.parametrize("name", list(CASES))
def test_wilcoxon_every_zero_method_and_method_on_degenerate_rows(name):
    """Equal to a one-row scipy call; where ours takes the sign-flip distribution (pratt/zsplit zeros, tied |d|
    under method="exact": docs/differences-stats.md 2), equal to scipy's PermutationMethod(n_resamples=inf)."""
    d = np.array(CASES[name])
    for zm in ("wilcox", "pratt", "zsplit"):
        for method in ("auto", "exact", "asymptotic"):
            r = paired.wilcoxon_test(d[None, :], zero_method=zm, method=method)
            ref_method = stats.PermutationMethod(n_resamples=np.inf) if r["method_used"][0] == "permutation" \
                else r["method_used"][0]
            o = stats.wilcoxon(d, zero_method=zm, method=ref_method)
            _same(r["statistic"][0], o.statistic)
            _same(r["p_value"][0], o.pvalue, rel=1e-12)
            if method == "asymptotic":  # with the continuity correction (API only)
                rc = paired.wilcoxon_test(d[None, :], zero_method=zm, method=method, correction=True)
                _same(rc["p_value"][0], stats.wilcoxon(d, zero_method=zm, method=method, correction=True).pvalue)
            if method == "auto":  # auto decides as a one-row scipy call decides
                _same(r["p_value"][0], stats.wilcoxon(d, zero_method=zm).pvalue, rel=1e-12)


def test_bootstrap_interval_of_constant_differences_is_the_point():
    """Was: BCa gave nan for 20 differences of 0.1 (0/0, as scipy) but (0.0999..., 0.1000...) for 6 of them
    (round-off made the jackknife acceleration finite). Every method now gives the point; percentile and basic
    equal scipy's there."""
    for d in (np.full(6, 0.1), np.full(20, 0.1), np.zeros(5)):
        for method in ("BCa", "percentile", "basic"):
            b = paired.bootstrap_test(d[None, :], resamples=99, seed=1, ci_method=method)
            assert b["ci_low"][0] == pytest.approx(d.mean(), abs=1e-15) == b["ci_high"][0], (d, method)
        ci = stats.bootstrap((d,), np.mean, n_resamples=99, rng=1, method="percentile").confidence_interval
        assert (ci.low, ci.high) == pytest.approx((d.mean(), d.mean()), abs=1e-15)


def test_one_topic_and_its_zero():
    """n = 1: scipy's t is nan (df = 0), its exact Wilcoxon p = 1; a single zero difference (scipy refuses the
    permutation of one observation) gets p = 1 (hand-worked: both sign flips give R+ = 0), as n = 2, 3 zeros do
    in scipy."""
    r = paired.wilcoxon_test(np.array([[0.2]]))
    assert r["p_value"][0] == stats.wilcoxon([0.2]).pvalue == 1.0
    assert paired.wilcoxon_test(np.array([[0.0]]))["p_value"][0] == 1.0
    assert stats.wilcoxon([0.0, 0.0]).pvalue == 1.0
    assert math.isnan(paired.t_test(np.array([[0.2]]))["p_value"][0])
    assert paired.sign_test(np.array([[0.2]]))["p_value"][0] == stats.binomtest(1, 1).pvalue == 1.0
    assert paired.randomization_test(np.array([[0.2]]), resamples=2)["p_value"][0] == 1.0  # both flips: |0.2|


def test_float_noise_of_1e_17_is_a_tie():
    """Decision (docs/differences-stats.md 3): differences are rounded to 12 decimals, so 1e-17 is a zero
    difference -- scipy on the raw values ranks it and counts it as a sign. compare_differences rounds as
    compare() does (before session 17 it tested the raw matrix: sign test n = 4 here, not 1)."""
    raw = np.array([1e-17, -1e-17, 2e-17, 0.0, 0.1])
    rounded = np.round(raw, 12)
    assert (rounded[:4] == 0).all()
    rec = compare_differences(raw, tests="t,wilcoxon,sign", correction="none").set_index("test")
    assert rec.loc["sign", "p_value"] == stats.binomtest(1, 1).pvalue == 1.0
    assert stats.binomtest(3, 4).pvalue != 1.0  # scipy on the raw signs
    assert rec.loc["wilcoxon", "p_value"] == stats.wilcoxon(rounded).pvalue
    assert rec.loc["wilcoxon", "p_value"] != stats.wilcoxon(raw).pvalue
    assert rec.loc["t", "p_value"] == pytest.approx(stats.ttest_1samp(rounded, 0).pvalue, rel=1e-12)
    assert rec.loc["sign", "ties"] == 4
    # compare(): two runs 1e-17 apart on every topic are identical runs
    df = pd.DataFrame([(r, str(q), "m", q / 10 + (1e-17 if r == "A" else 0.0)) for q in range(1, 9) for r in "AB"],
                      columns=["run", "qid", "measure", "value"])
    rec = compare(df, tests="t,sign").records.set_index("test")
    assert rec.loc["t", "ties"] == 8 and math.isnan(rec.loc["t", "p_value"]) and math.isnan(rec.loc["sign", "p_value"])


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, None, "nan"])
def test_non_finite_values_are_refused_by_the_api(bad):
    """Was: NaN / None read as a missing query (silently 0 with complete=True); inf gave inf mean differences
    and meaningless p-values. Now one UsageError naming the cell, as the
    per-query file reader refuses them (the CLI test below)."""
    rows = [("A", "1", "m", 0.5), ("B", "1", "m", 0.3), ("A", "2", "m", bad), ("B", "2", "m", 0.1),
            ("A", "3", "m", 0.2), ("B", "3", "m", 0.1)]
    df = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    for complete in (False, True):
        with pytest.raises(UsageError, match=r"run 'A', query '2', measure 'm' is not a finite number"):
            compare(df, complete=complete)
    if bad is not None and bad != "nan":
        with pytest.raises(UsageError, match="expected finite numbers"):
            compare_differences(np.array([0.1, bad, 0.2]))
        pref = pd.DataFrame([("A", "B", "1", "rpp", 0.5), ("A", "B", "2", "rpp", bad)],
                            columns=["run", "run_b", "qid", "measure", "value"])
        from pref_eval.stats import compare_preferences

        with pytest.raises(UsageError, match="pair 'A' / 'B', query '2', measure 'rpp' is not a finite"):
            compare_preferences(pref)


def test_a_difference_that_overflows_is_refused():
    """Finite values whose difference is inf (1e308 - -1e308) were tested as inf (randomization p = 0)."""
    df = pd.DataFrame([("A", "1", "m", 1e308), ("B", "1", "m", -1e308), ("A", "2", "m", 0.2), ("B", "2", "m", 0.1)],
                      columns=["run", "qid", "measure", "value"])
    with pytest.raises(UsageError, match=r"runs 'A' and 'B' on query '1' overflows"):
        compare(df)
    df.loc[1, "value"] = 1e308  # equal huge values: difference 0, tested
    assert compare(df, tests="sign").records["ties"].iloc[0] == 1


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "NaN"])
def test_non_finite_values_are_refused_by_the_cli(tmp_path, text):
    per = tmp_path / "p.tsv"
    per.write_text(f"run\tqid\tmeasure\tvalue\nA\t1\tm\t0.5\nB\t1\tm\t0.3\nA\t2\tm\t{text}\nB\t2\tm\t0.1\n")
    out = run_module_inproc("compare", ["-P", str(per)], ".", timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert f"p.tsv:4: expected a finite number in column 'value', got '{text}'" in out.stderr, out.stderr


def test_identical_systems_and_disjoint_query_sets_through_the_cli(tmp_path):
    per = tmp_path / "p.tsv"
    per.write_text("run\tqid\tmeasure\tvalue\n" + "".join(f"{r}\t{q}\tm\t{q / 10}\n" for q in range(1, 7) for r in "AB")
                   + "C\t7\tm\t0.5\n")
    tests = "t,wilcoxon,sign,randomization,bootstrap,tukey"
    out = run_module_inproc("compare", ["-P", str(per), "A", "B", "--tests", tests, "-o", "jsonl"], ".", timeout=120)
    assert out.returncode == 0, out.stderr
    rows = {r["test"]: r for r in map(json.loads, out.stdout.splitlines())}
    assert not any(r["significant"] for r in rows.values())
    # scipy: t nan (0/0), Wilcoxon of six zeros 1 (permutation), binomtest undefined without trials -> null
    assert rows["t"]["p_value"] is None and rows["sign"]["p_value"] is None
    assert rows["wilcoxon"]["p_value"] == stats.wilcoxon([0.0] * 6).pvalue == 1.0
    assert rows["randomization"]["p_value"] == rows["bootstrap"]["p_value"] == rows["tukey"]["p_value"] == 1.0
    # C shares no query with A and B: every query of the three-run comparison is left out -- refused (session
    # 23; was nan records, exit 0)
    out = run_module_inproc("compare", ["-P", str(per), "-o", "jsonl"], ".", timeout=120)
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith(f"zelo_compare: {per}: m: no query has a value for every run"), out.stderr
    assert all(json.loads(x)["n_queries"] == 0 and json.loads(x)["p_value"] is None for x in out.stdout.splitlines())
    out = run_module_inproc("compare", ["-P", str(per), "C"], ".", timeout=120)
    assert out.returncode == 2 and out.stderr == "zelo_compare: need at least two runs to compare\n", out.stderr


def test_bootstrap_shift_p_value_with_few_topics_is_hand_worked():
    """A property of the shift method (documented in docs/zelo_compare.md): with differences 0.3, 0.1, 0.2 every
    bootstrap mean lies in [0.1, 0.3], so |mean* - 0.2| >= 0.2 never happens and p = 1/(B + 1) -- 'significant'
    where the t-test (scipy: 0.074), the sign test (0.25) and the randomization test (0.25) are not."""
    d = np.array([[0.3, 0.1, 0.2]])
    B = 999
    assert paired.bootstrap_test(d, resamples=B, seed=0)["p_value"][0] == 1 / (B + 1)
    assert round(stats.ttest_1samp(d[0], 0).pvalue, 3) == 0.074  # the figure docs/zelo_compare.md quotes
    assert paired.randomization_test(d, resamples=8)["p_value"][0] == 0.25 == stats.binomtest(3, 3).pvalue


@pytest.mark.parametrize("ps", [[0.03], [0.0, 0.0, 1.0], [1.0, 1.0], [math.nan, 0.01, 0.04], [math.nan, math.nan],
                                [0.01, 0.01, 0.01, 0.02], [1e-300, 0.5, 0.9999999]])
def test_corrections_on_degenerate_families(ps):
    p = np.array(ps)
    ok = np.isfinite(p)
    for method, sm in STATSMODELS_NAMES.items():
        out = adjust(p, method)
        assert np.array_equal(np.isnan(out), ~ok)  # nan stays nan and is not counted in the family
        if ok.any():
            np.testing.assert_allclose(out[ok], multipletests(p[ok], method=sm)[1], rtol=1e-14)


def test_fifty_systems_every_pair_equals_scipy_and_statsmodels():
    rng = np.random.default_rng(17)
    R, Q = 50, 20
    X = np.round(rng.beta(2, 4, (R, Q)) + np.linspace(0, 0.2, R)[:, None], 3)
    df = pd.DataFrame([(f"r{i:02d}", f"q{j:02d}", "m", X[i, j]) for i in range(R) for j in range(Q)],
                      columns=["run", "qid", "measure", "value"])
    rec = compare(df, tests="t,wilcoxon").records
    assert len(rec) == 2 * R * (R - 1) // 2
    for test in ("t", "wilcoxon"):
        sub = rec[rec.test == test]
        np.testing.assert_allclose(sub.p_adjusted, multipletests(sub.p_value, method="holm")[1], rtol=1e-14)
    sub = rec[rec.test == "wilcoxon"].iloc[::37]
    for a, b, p in zip(sub.run_a, sub.run_b, sub.p_value, strict=True):
        assert p == stats.wilcoxon(np.round(X[int(a[1:])] - X[int(b[1:])], 12)).pvalue


def test_orderings_two_items_all_tied_and_nan():
    r = compare_orderings({"a": 2, "b": 1}, {"a": 1, "b": 2})
    assert (r["kendall_tau_b"], r["kendall_p"]) == tuple(stats.kendalltau([2, 1], [1, 2]))  # (-1, 1)
    assert r["tau_ap_b_given_a"] == r["tau_ap_a_given_b"] == -1.0 and r["swapped"] == [("a", "b")]
    # A all tied: tau_b undefined (scipy nan); tau_AP(B|A) with a tied reference counts every pair half-correct
    # (C(i) = (i-1)/2, hand-worked: 0); tau_AP(A|B) is the expected value over random orders of A: 0
    r = compare_orderings({"a": 1, "b": 1, "c": 1}, {"a": 3, "b": 2, "c": 1})
    assert math.isnan(r["kendall_tau_b"]) and math.isnan(stats.kendalltau([1, 1, 1], [3, 2, 1]).statistic)
    assert r["tau_ap_b_given_a"] == 0.0 and r["tau_ap_a_given_b"] == pytest.approx(0.0) and r["ties_a"] == 3
    # ties in both: tau_b as scipy's
    a, b = {"a": 2, "b": 2, "c": 1, "d": 0}, {"a": 1, "b": 0, "c": 0, "d": -1}
    r = compare_orderings(a, b)
    assert r["kendall_tau_b"] == pytest.approx(stats.kendalltau(list(a.values()), list(b.values())).statistic,
                                               rel=1e-15)
    with pytest.raises(ValueError, match="ordering B: the score of system 'b' is NaN"):
        compare_orderings({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": math.nan, "c": 3})


def _integer_hundredths(rng, n, trial):
    k = rng.integers(-60, 61, n) if trial % 3 else rng.integers(-5, 6, n) * 10  # many sums exactly 0
    return k, np.round(k / 100, 12)


def test_randomization_and_bootstrap_counts_equal_integer_arithmetic():
    """Oracle: the same sign vectors / resamples counted on the differences in hundredths (integers, exact).
    Was: an observed sum mathematically 0 but computed as 5.6e-17 (0.3 + 0.3 - 0.5 + 0.1 - 0.2) missed the flips
    whose sum was computed as 2.8e-17: exact p = 0.9375 instead of 1 (8 of 1,500 random rows; the bootstrap's
    |mean* - mean| >= |mean| 10 of 1,500). scipy's permutation_test, whose tolerance is relative to the
    observed value only, gets such rows wrong too (it is not the oracle here)."""
    import itertools

    rng = np.random.default_rng(1)
    B = 200
    for trial in range(300):
        n = int(rng.integers(2, 11))
        k, d = _integer_hundredths(rng, n, trial)
        S = np.array(list(itertools.product((1, -1), repeat=n)))
        assert paired.randomization_test(d, resamples=1 << n)["p_value"][0] == (np.abs(S @ k) >= abs(k.sum())).mean()
        idx = np.random.default_rng(7).integers(0, n, (B, n))  # the draw of scipy.stats.bootstrap(rng=7)
        C = np.stack([np.bincount(r, minlength=n) for r in idx])
        count = (np.abs(C @ k - k.sum()) >= abs(k.sum())).sum()  # |mean* - mean| >= |mean|, times n
        assert paired.bootstrap_test(d, resamples=B, seed=7, ci_method="percentile")["p_value"][0] == \
            (count + 1) / (B + 1), d


def test_randomised_tukey_counts_equal_integer_arithmetic():
    """Oracle: the same within-query permutations (numpy's ``permuted`` on the same stream) of the values in
    thousandths, ranges and differences of run sums counted with integers. Was: a permuted range equal to a
    small difference of means near 0.3-0.4 was missed by round-off (12 of 300 random matrices differed)."""
    from pref_eval.stats.tukey import randomised_tukey_hsd

    rng = np.random.default_rng(2)
    B = 300
    for _ in range(150):
        R, Q = int(rng.integers(2, 5)), int(rng.integers(2, 8))
        K = rng.integers(0, 11, (R, Q)) * 10 + 300
        perm = np.random.default_rng(5).permuted(np.broadcast_to(K, (B, R, Q)).copy(), axis=1)
        sums = perm.sum(axis=2)
        ranges = sums.max(axis=1) - sums.min(axis=1)
        tot = K.sum(axis=1)
        diff = np.abs(tot[:, None] - tot[None, :])
        P = ((ranges[None, None, :] >= diff[:, :, None]).sum(axis=2) + 1) / (B + 1)
        np.fill_diagonal(P, 1.0)
        np.testing.assert_array_equal(randomised_tukey_hsd(np.round(K / 1000, 12), resamples=B, seed=5), P)


def test_randomised_tukey_of_two_runs_is_the_randomization_test_within_monte_carlo_error():
    """With two runs a within-query permutation is a sign flip of that query's difference and the range of the
    two means is |mean difference|: the Tukey p estimates the exact randomization p (hand-worked identity;
    exact p by enumeration, = scipy's permutation_test in the tests above). 4 standard errors; seeded."""
    from pref_eval.stats.tukey import randomised_tukey_hsd

    rng = np.random.default_rng(3)
    X = np.round(rng.beta(2, 4, (2, 12)), 3)
    X[1] += 0.05
    B = 20_000
    exact = paired.randomization_test(paired.differences(X[0], X[1]), resamples=1 << 12)["p_value"][0]
    p = randomised_tukey_hsd(X, resamples=B, seed=1)[0, 1]
    assert abs(p - exact) < 4 * math.sqrt(exact * (1 - exact) / B), (p, exact)
    np.testing.assert_array_equal(p, randomised_tukey_hsd(X, resamples=B, seed=1)[0, 1])  # same seed, same bits


def test_d_z_of_equal_differences_is_undefined_whatever_the_other_pairs():
    """Cohen's d_z = mean / sd: a pair whose runs are 0.1 apart on every one of 55 queries has sd 0 (by hand: every
    deviation from the mean is 0), so d_z is undefined (nan, effect.py's rule for sd = 0). numpy's sd of that row is
    the round-off of its mean, whose bits follow the matrix's layout: d_z was -1.8e15 for the pair alone and -1.4e15
    beside two other pairs (session 26, f36: fuzz_compare 201:133, a preference file's constant row)."""
    import pandas as pd

    import pref_eval
    from pref_eval.stats.effect import effect_sizes

    row = np.full(55, -0.1)
    for D in (row[None], np.stack([row, row + 0.3, np.linspace(0, 1, 55)]),
              np.asfortranarray(np.stack([row, row, row]))):
        e = effect_sizes(D)
        assert np.isnan(e["d_z"][0]) and e["losses"][0] == 55
    values = np.round(np.linspace(0.2, 0.9, 55), 2)
    frame = pd.DataFrame([(r, str(q), "m", float(v)) for r, shift in (("a", 0.0), ("b", 0.1), ("c", 0.35))
                          for q, v in enumerate(np.round(values + shift, 2))],
                         columns=["run", "qid", "measure", "value"])
    for runs in (["a", "b"], ["a", "b", "c"]):
        recs = pref_eval.compare(frame, tests="t", runs=runs).records
        ab = recs[(recs.run_a == "a") & (recs.run_b == "b")]
        assert np.isnan(float(ab.d_z.iloc[0])), runs
