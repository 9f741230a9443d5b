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


@pytest.mark.parametrize("run", ["q1 Q0 b 1 1.0 r\n", "q1 Q0 b 1 1.0 r\nq2 Q0 b 1 1.0 r\n"],
                         ids=["one-line", "extra-query-after"])
def test_prefs_of_a_run_with_one_line(tmp_path, run):
    """Mutants of ``prefs_counts.retrieval_ranks``: ``len(run.qid) == 0`` -> ``== 1`` (a one-line run read as
    empty); ``np.minimum(loc, nq - 1)`` -> ``nq - 0`` (IndexError on a run query sorting after every judged
    one; trec_eval ignores the query: the same lines as without it)."""
    (tmp_path / "qrels").write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\n")
    (tmp_path / "run").write_text(run)
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


# trec_eval 10.0: trec_eval -q -m qrels_jg -R qrels_jg qrels run, qrels q1: a 2, b 1, c 0 and q2: a 1, b 0 (one
# judgment group each), the run q1: b, a. trec_eval prints these q1 lines, then refuses the run ("result qid 'q2'
# not found in qrels", exit 4: docs/differences.md); zelo_trec warns and averages over q1.
JG_Q1 = """\
map_avgjg             \tq1\t1.0000
P_avgjg_5             \tq1\t0.4000
P_avgjg_10            \tq1\t0.2000
P_avgjg_15            \tq1\t0.1333
P_avgjg_20            \tq1\t0.1000
P_avgjg_30            \tq1\t0.0667
P_avgjg_100           \tq1\t0.0200
P_avgjg_200           \tq1\t0.0100
P_avgjg_500           \tq1\t0.0040
P_avgjg_1000          \tq1\t0.0020
Rprec_mult_avgjg_0.20 \tq1\t1.0000
Rprec_mult_avgjg_0.40 \tq1\t1.0000
Rprec_mult_avgjg_0.60 \tq1\t1.0000
Rprec_mult_avgjg_0.80 \tq1\t1.0000
Rprec_mult_avgjg_1.00 \tq1\t1.0000
Rprec_mult_avgjg_1.20 \tq1\t0.6667
Rprec_mult_avgjg_1.40 \tq1\t0.6667
Rprec_mult_avgjg_1.60 \tq1\t0.5000
Rprec_mult_avgjg_1.80 \tq1\t0.5000
Rprec_mult_avgjg_2.00 \tq1\t0.5000
"""


def test_qrels_jg_with_one_run_query_before_a_judged_one(tmp_path):
    """Mutant ``jg.judgment_groups``: ``max(nq - 1, 0)`` -> ``max(nq - 1, 1)`` (IndexError when the run has one
    query and a judged query sorts after it)."""
    (tmp_path / "qrels").write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 a 1\nq2 0 b 0\n")
    (tmp_path / "run").write_text("q1 Q0 b 1 1.0 r\nq1 Q0 a 2 0.5 r\n")
    out = _trec(["-q", "-m", "qrels_jg", "-R", "qrels_jg", "qrels", "run"], tmp_path)
    lines = out.splitlines(keepends=True)
    assert [ln for ln in lines if "\tq1\t" in ln] == JG_Q1.splitlines(True)
    # the mean over the one query both have is that query's value
    assert [ln.replace("\tall\t", "\tq1\t") for ln in lines if "\tall\t" in ln][2:] == JG_Q1.splitlines(True)


def test_label_fraction_random_keeps_the_stated_number_of_labels():
    """Mutant ``sampling.sample_labels``: ``rng.choice(..., replace=False)`` -> ``replace=True`` (repeated draws
    drop fewer labels). pref_eval.py's --label_fraction keeps max(int(n·f), 1) of a query's n relevant
    documents (random.sample, without replacement): 8 relevant, f = 0.25 -> 2 kept, whatever the seed."""
    from pref_eval.io.qrels import qrels_from_lines
    from pref_eval.run_preferences.data import prepare_qrels
    from pref_eval.run_preferences.sampling import sample_labels

    q = qrels_from_lines(b"".join(b"q1 0 d%d 1\n" % i for i in range(8)) + b"q1 0 n 0\nq2 0 e 1\n", "qrels")
    pq = prepare_qrels(q)
    for seed in range(10):
        q2, pq2 = sample_labels(q, pq, 0.25, "random", np.random.default_rng(seed), [], None, None)
        assert sorted(pq2.qrels.qid.tolist()) == [b"q1", b"q1", b"q2"], seed
        assert len(q2.qid) == 4  # the non-relevant judgment stays


def test_compare_differences_default_alpha_is_0_05():
    """Mutant ``stats.compare.compare_differences``: default ``alpha=0.05`` -> ``0.1``. The differences below
    have scipy's paired t-test p = 0.064 (between the two): not significant at the documented 0.05."""
    from scipy import stats as sps

    from pref_eval.stats import compare_differences

    d = np.array([0.3, 0.1, 0.4, -0.1, 0.5, 0.2, -0.2, 0.3])
    p = sps.ttest_1samp(d, 0.0).pvalue
    assert 0.05 < p < 0.1
    rec = compare_differences(d, tests="t").iloc[0]
    assert rec["p_value"] == pytest.approx(p, rel=1e-12)
    assert not rec["significant"]


def test_rbo_ext_refuses_orderings_of_two_lengths():
    """Mutant ``orderings.rbo_ext``: ``k = min(len(a), len(b))`` -> ``max`` survived: two lengths were cut to the
    shorter one without a word, a number that is not Webber et al.'s extrapolated RBO for uneven lists (their
    eq. 32 takes the longer list's tail into account: ``rbo_prefix``); the function is for one length (its
    docstring), and now says so, as ``tau_ap_b`` does."""
    from pref_eval.stats import rbo_ext

    with pytest.raises(ValueError, match="differ in length"):
        rbo_ext(list("abc"), list("ab"), 0.9)
    with pytest.raises(ValueError, match="differ in length"):
        rbo_ext(list("a"), list("ab"), 0.9)
    # Webber et al. 2010's equal-length case, worked by hand: [a, b] vs [b, a], p = 0.5 -> overlap 0 at depth 1,
    # 2 at depth 2: (1 - p)/p * (0 + 2/2 * p^2) + 2/2 * p^2 = 0.25 + 0.25
    assert rbo_ext(list("ab"), list("ba"), 0.5) == pytest.approx(0.5)


def test_paired_t_test_default_interval_is_95_percent():
    """Mutant ``stats.paired.t_test``: default ``confidence=0.95`` -> ``1.9`` (every caller passed it). The
    default interval is scipy's ``ttest_1samp(d, 0).confidence_interval()`` (0.95)."""
    from scipy import stats as sps

    from pref_eval.stats import t_test

    d = np.array([0.3, 0.1, 0.4, -0.1, 0.5, 0.2, -0.2, 0.3])
    ref = sps.ttest_1samp(d, 0.0).confidence_interval()
    got = t_test(d)
    assert got["ci_low"][0] == pytest.approx(ref.low, rel=1e-12)
    assert got["ci_high"][0] == pytest.approx(ref.high, rel=1e-12)


@pytest.mark.parametrize("extra", ["", "8 x y\n"], ids=["one-topic", "judged-topic-after-the-run"])
def test_pgc_chain_puts_the_sinks_in_reverse_removal_order(tmp_path, extra):
    """Mutant ``pgc.ideal_ranking``: the tail list s2 sorted by ``-step`` -> ``+step`` (removal order, not its
    reverse). Luo, Clarke & Smucker (SIGIR 2021), greedy: judgments a>b, b>c, run a, b, c. c is the only sink
    (front of s2), then b, then a: ideal a, b, c, the run itself; overlaps at depths 1-3: 1, 2, 3 (the mutant's
    ideal c, b, a gives 0, 1, 3). Mutant ``pgc.preference_graph``: ``max(r.nq - 1, 0)`` -> ``max(r.nq - 1, 1)``
    (IndexError when a judged topic the run lacks sorts after the run's only topic; it is not evaluated)."""
    import pref_eval

    (tmp_path / "prefs").write_text("7 a b\n7 b c\n" + extra)
    (tmp_path / "run").write_text("7 Q0 a 1 3 r\n7 Q0 b 2 2 r\n7 Q0 c 3 1 r\n")
    (tmp_path / "qrels").write_text("7 0 a 1\n")
    p = 0.8
    overlap = [1, 2] + [3] * 998
    want = sum(p ** i * overlap[i] / (i + 1) for i in range(1000)) / sum(p ** i for i in range(1000))
    df = pref_eval.evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), ["PGC"], judgments=str(tmp_path / "prefs"))
    assert float(df.value[0]) == pytest.approx(want, abs=1e-14)


def test_paired_t_test_of_one_query_has_scipys_degrees_of_freedom():
    """Mutant ``stats.paired.t_test``: ``df = max(n - 1, 0)`` -> ``max(n + 1, 0)`` for fewer than 2 queries.
    scipy's ``ttest_1samp`` of one value: df 0, statistic and p nan."""
    import warnings

    from scipy import stats as sps

    from pref_eval.stats import t_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sps.ttest_1samp(np.array([[0.3], [0.1]]), 0.0, axis=-1)
    got = t_test(np.array([[0.3], [0.1]]))
    assert got["df"].tolist() == ref.df.tolist() == [0, 0]
    assert np.isnan(got["statistic"]).all() and np.isnan(ref.statistic).all()
    assert np.isnan(got["p_value"]).all() and np.isnan(ref.pvalue).all()


def test_preferences_do_not_warn_about_a_run_that_lacks_only_some_topics(tmp_path, monkeypatch):
    """Mutant ``run_preferences.evaluate._vectors``: ``not r.present.any()`` -> ``not r.present.all()`` (a run
    missing one topic was reported as sharing none with the qrels). By hand: b.run retrieves topic 1's relevant
    d1 at rank 1 as a.run does (RPP 0) and nothing for topic 2 (a.run is preferred: 1); mean 0.5. No warning:
    b.run shares topic 1 with the qrels (PrefEvalWarning is an error in the suite)."""
    import pref_eval

    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.qrels").write_text("1 0 d1 1\n2 0 d2 1\n")
    (tmp_path / "a.run").write_text("1 Q0 d1 1 1 a\n2 Q0 d2 1 1 a\n")
    (tmp_path / "b.run").write_text("1 Q0 d1 1 1 b\n")
    df = pref_eval.api.preferences("q.qrels", ["a.run", "b.run"], ["rpp"], per_query=True)
    assert [(str(q), v) for q, v in zip(df["qid"], df["value"], strict=True)] == [("1", 0.0), ("2", 1.0),
                                                                                  ("all", 0.5)]


@pytest.mark.parametrize("parts", [2, 5])
def test_fit_in_blocks_with_doc_rank_is_the_fit_with_doc_ids(parts):
    """Mutant ``fit.fit_bt_parallel``: a block's ranks ``rank[offsets[q0]:...]`` -> ``rank[offsets[q0] - 1:...]``
    (no caller in the package passes ``doc_rank`` with several blocks; the docstring says ``doc_ids`` gives
    the same order as ``doc_rank=id_ranks(doc_ids)``). Metamorphic, not an outside oracle: the one-block fit's
    numbers are checked against choix / statsmodels in tests/test_zelo_fit.py."""
    from pref_eval.zelo.fit import fit_bt_parallel, id_ranks

    rng = np.random.default_rng(5)
    sizes = rng.integers(2, 9, 7)
    q = np.repeat(np.arange(len(sizes)), sizes * 3)
    a = (rng.random(len(q)) * sizes[q]).astype(np.int64)
    b = (rng.random(len(q)) * sizes[q]).astype(np.int64)
    s = rng.random(len(q)).round(2)
    docs = [[f"d{(3 * i) % n}-{i}" for i in range(n)] for n in sizes]
    want = fit_bt_parallel(sizes, q, a, b, s, prior=0.5, doc_ids=docs, parts=1)
    got = fit_bt_parallel(sizes, q, a, b, s, prior=0.5, doc_rank=id_ranks(docs), parts=parts)
    np.testing.assert_array_equal(got.score, want.score)
    np.testing.assert_array_equal(got.se, want.se)


def test_mle_loglik_is_the_maximum_scipy_finds():
    """Mutant ``fit.fit_bt`` (prior 0, the per-SCC path): ``ll_e = wuv·log σ(d) + wvu·log σ(−d)`` -> ``−``
    (the reported log-likelihood; the scores were right). Oracle: scipy.optimize maximises the module
    docstring's l(x) = Σ W[i, j] log σ(x_i − x_j) (W[b, a] += w·s, W[a, b] += w·(1 − s)) over the same
    judgments, one strongly connected component of 4 documents."""
    from scipy.optimize import minimize
    from scipy.special import log_expit

    from pref_eval.zelo.fit import fit_bt

    a = np.array([0, 1, 2, 3, 0, 1])
    b = np.array([1, 2, 3, 0, 2, 3])
    s = np.array([0.3, 0.4, 0.8, 0.5, 0.6, 0.1])
    w = np.array([1.0, 2.0, 1.0, 1.0, 3.0, 1.0])
    res = fit_bt(np.array([4]), np.zeros(6, dtype=np.int64), a, b, s, w, prior=0.0)

    def neg_ll(x):
        x = np.concatenate([[0.0], x])  # the first score fixed: the likelihood is shift-invariant
        d = x[a] - x[b]
        return -float(np.sum(w * (1 - s) * log_expit(d) + w * s * log_expit(-d)))

    opt = minimize(neg_ll, np.zeros(3), method="BFGS", options={"gtol": 1e-10})
    assert res.loglik[0] == pytest.approx(-opt.fun, rel=1e-9)
    x = res.score - res.score[0]
    np.testing.assert_allclose(x[1:], opt.x, atol=1e-5)


def test_significant_is_strictly_below_alpha():
    """Mutant ``stats.compare._assemble``: ``padj < alpha`` -> ``<=``. docs/zelo_compare.md: ``significant`` =
    ``p_adjusted < --alpha`` (statsmodels' ``multipletests`` rejects at ``<=``; the two differ only at equality).
    Five positive differences: scipy's exact binomial test p = 2/2^5 = 0.0625, a double exactly."""
    from scipy import stats as sps

    from pref_eval.stats import compare_differences

    d = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    assert sps.binomtest(5, 5, 0.5).pvalue == 0.0625
    rec = compare_differences(d, tests="sign", alpha=0.0625).iloc[0]
    assert rec["p_adjusted"] == 0.0625 and not rec["significant"]
    rec = compare_differences(d, tests="sign", alpha=0.0625 + 1e-12).iloc[0]
    assert rec["significant"]


def test_a_preference_measure_requested_twice_is_refused():
    """Mutant ``run_preferences.names.resolve``: ``keys.count(k) > 1`` -> ``> 2`` (a measure named exactly twice
    was computed twice)."""
    from pref_eval.errors import UsageError
    from pref_eval.run_preferences.names import resolve

    with pytest.raises(UsageError, match="requested twice: rpp"):
        resolve(["rpp", "invrpp", "rpp"], None)
    assert [m.key for m in resolve(["rpp", "invrpp"], None)] == [m.key for m in resolve(["rpp"], None)] + [
        m.key for m in resolve(["invrpp"], None)]
