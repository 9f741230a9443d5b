"""Mutation testing, round 2 (session 21, v30): tests that kill mutants the suite let survive, each against
an outside oracle (scipy, hand-worked values, trec_eval 10.0's documented behaviour). NOTES.md "Session 21"
(v30) lists the mutants sampled and how the survivors were classified; round 1 is tests/test_mutation_kills.py."""
from __future__ import annotations

import numpy as np
import pytest


def _scc_loglik_gradient(x: np.ndarray, a: np.ndarray, b: np.ndarray, s: np.ndarray, w: np.ndarray,
                         docs: list[int]) -> np.ndarray:
    """Central finite differences of scipy's log-likelihood of the judgments inside ``docs`` (the module
    docstring's l(x) = Σ W[i, j] log σ(x_i − x_j), W[b, a] += w·s, W[a, b] += w·(1 − s)) at ``x``."""
    from scipy.special import log_expit

    sel = np.isin(a, docs) & np.isin(b, docs)

    def ll(xx: np.ndarray) -> float:
        d = xx[a[sel]] - xx[b[sel]]
        return float(np.sum(w[sel] * (1 - s[sel]) * log_expit(d) + w[sel] * s[sel] * log_expit(-d)))

    h = 1e-6
    out = np.zeros(len(docs))
    for k, i in enumerate(docs):
        e = np.zeros_like(x)
        e[i] = h
        out[k] = (ll(x + e) - ll(x - e)) / (2 * h)
    return out


@pytest.mark.parametrize("max_iter", [0, 1, 2])
def test_mle_grad_max_is_the_largest_scc_gradient(max_iter):
    """Mutants of ``fit.fit_bt``'s prior-0 path: ``np.maximum.at(gmax_q, ...)`` -> ``minimum.at`` (reads the
    initial 0), ``gm = gm / up`` -> ``* up`` (the per-SCC weight scaling not undone), and of
    ``_newton_blocks``' last ``gmax`` (the gradient before the last step). ``grad_max`` is documented as the
    largest |gradient| of the log-likelihood, which for prior 0 is fitted per strongly connected component
    on its own judgments (fit.py's docstring). Oracle: finite differences of scipy's log-likelihood of each
    SCC's judgments at the returned scores, stopped early (``max_iter``) so the gradient is far from 0.
    Query 0: SCC {0, 1, 2} (weights ~10: scaled by 1/8 inside the fit), SCC {3, 4} (weights ~0.3: scaled by
    4), a judgment between them (0 beats 3: outside both SCCs) and document 5 alone; query 1: one SCC of 4."""
    from pref_eval.zelo.fit import fit_bt

    q = np.array([0] * 7 + [1] * 5)
    a = np.array([0, 1, 2, 0, 3, 3, 0, 0, 1, 2, 3, 0])
    b = np.array([1, 2, 0, 2, 4, 4, 3, 1, 2, 3, 0, 2])
    s = np.array([0.2, 0.7, 0.4, 0.9, 0.3, 0.6, 0.0, 0.1, 0.8, 0.35, 0.5, 0.95])
    w = np.array([10, 12, 9, 11, 0.3, 0.25, 5, 40, 37, 44, 41, 39.0])
    sizes = np.array([6, 4])
    res = fit_bt(sizes, q, a, b, s, w, prior=0.0, max_iter=max_iter, compute_se=False)
    assert not res.converged.any()
    x0, x1 = res.score[:6], res.score[6:]
    sel0 = q == 0
    g_a = _scc_loglik_gradient(x0, a[sel0], b[sel0], s[sel0], w[sel0], [0, 1, 2])
    g_b = _scc_loglik_gradient(x0, a[sel0], b[sel0], s[sel0], w[sel0], [3, 4])
    g_1 = _scc_loglik_gradient(x1, a[~sel0], b[~sel0], s[~sel0], w[~sel0], [0, 1, 2, 3])
    assert np.abs(g_a).max() != pytest.approx(np.abs(g_b).max(), rel=0.1)  # the max is not either by chance
    want = [max(np.abs(g_a).max(), np.abs(g_b).max()), np.abs(g_1).max()]
    np.testing.assert_allclose(res.grad_max, want, rtol=1e-6)


def test_mle_grad_max_at_convergence_is_below_tol():
    """The converged prior-0 fit: ``grad_max`` <= tol·max(1, H_ii) (fit.py's "Stopping") and the finite-
    difference gradient of scipy's log-likelihood at the scores is ~0 (the fit is the maximum)."""
    from pref_eval.zelo.fit import fit_bt

    a = np.array([0, 1, 2, 3, 0, 1])
    b = np.array([1, 2, 3, 0, 2, 3])
    s = np.array([0.3, 0.4, 0.8, 0.5, 0.6, 0.1])
    w = np.array([1.0, 2.0, 1.0, 1.0, 3.0, 1.0])
    res = fit_bt(np.array([4]), np.zeros(6, dtype=np.int64), a, b, s, w, prior=0.0)
    assert res.converged[0]
    g = _scc_loglik_gradient(res.score, a, b, s, w, [0, 1, 2, 3])
    assert np.abs(g).max() < 1e-7
    assert 0 <= res.grad_max[0] <= 1e-9 * 8


def test_a_pair_on_exactly_two_lines_keeps_its_last_value(tmp_path):
    """Mutant ``rank_aggregation._repeats``: ``len(lines) < 2`` -> ``<= 2`` (a file of exactly two lines, both
    the same (query, runi, runj), was taken as free of repeats and its two values summed). Oracle: the rule of
    pref_aggregate.py (diazf/pref_eval: its per-query dict keyed by ``runi:runj`` keeps a pair's last value),
    worked by hand: the last line says B beats A (rpp −0.3); the sum 0.9 − 0.3 would say A beats B."""
    import json

    from cli_harness import run_module_inproc

    p = tmp_path / "p.jsonl"
    p.write_text("".join(json.dumps({"qid": "1", "runi": "A", "runj": "B", "sample": 0, "type": "preference",
                                     "rpp": v}) + "\n" for v in (0.9, -0.3)))
    r = run_module_inproc("aggregate", ["-P", str(p), "-q"])
    assert r.returncode == 0, r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert out[0]["rpp"] == ["B", "A"]
    assert out[1]["rpp"] == {"type": "preference", "mc4": ["B", "A"], "borda": ["B", "A"]}


def test_qrels_jg_duplicate_names_the_first_line_that_repeats():
    """Mutant ``io.prefs._check_jg_duplicates``: ``np.argmin(hi)`` -> ``argmax`` (of two duplicated judgments
    the later one was named). Hand-worked: lines 1 and 3 judge (q1, group 0, dB), lines 2 and 4 (q1, 0, dA);
    read top to bottom, line 3 is the first that repeats an earlier one (the refusal is one line, file:line)."""
    from pref_eval.errors import InputError
    from pref_eval.io.prefs import qrels_jg_from_bytes

    with pytest.raises(InputError, match=r"^jg:3: duplicate judgment for query q1 judgment group 0 document dB "
                                         r"\(first at line 1\)$"):
        qrels_jg_from_bytes(b"q1 0 dB 1\nq1 0 dA 1\nq1 0 dB 0\nq1 0 dA 2\n", "jg")


def test_too_wide_column_across_chunks_names_the_wide_line(monkeypatch):
    """Mutant ``io.tokenize.split_lines``: the part holding the widest field found by ``max`` -> ``min`` (the
    refusal of a column too wide to store named a line of the narrowest part). Chunks of 4 KiB: the 3,000-byte
    field on line 2 is within every chunk's budget, the whole column (3,000 bytes x 100,002 lines = 300 MB) is
    over max(64 MB, 4 x 0.4 MB): the refusal names line 2 (hand-counted)."""
    from pref_eval.errors import InputError
    from pref_eval.io import tokenize

    monkeypatch.setattr(tokenize, "CHUNK", 1 << 12)
    data = b"x 1\n" + b"w" * 3000 + b" 1\n" + b"x 1\n" * 100_000
    with pytest.raises(InputError, match=r"^f:2: a field of 3000 bytes: every field"):
        tokenize.split_lines(data, "f", min_fields=2, max_fields=2, expected="two fields")


def test_score_refused_without_line_numbers_names_its_row():
    """Mutant ``io.numbers.decimal_floats``: ``line_of`` without line numbers ``i + 1`` -> ``i - 1`` (the
    refusal named line 0 for the second token). Hand-counted: the second token is on line 2."""
    from pref_eval.errors import InputError
    from pref_eval.io.numbers import decimal_floats

    with pytest.raises(InputError, match=r"^f:2: "):
        decimal_floats(np.array([b"1.5", b"x"]), "f")
    np.testing.assert_array_equal(decimal_floats(np.array([b"1.5", b"-2e1"]), "f"), [1.5, -20.0])


@pytest.mark.parametrize("damping", [1.5, 2.0, 0.0])
def test_damping_outside_the_unit_interval_is_refused(damping):
    """Mutant ``rank_aggregation.stationary``: ``0 < damping <= 1.0`` -> ``<= 2.0`` (a damping of 1.5 made
    ``(1 − α)P + α/n`` a matrix with negative entries, not a Markov chain). docs/pref_aggregate.md and the
    message: ``--damping`` in (0, 1]. α = 1 (the uniform chain) is accepted: its stationary distribution is
    uniform (hand-worked)."""
    from pref_eval.errors import UsageError
    from pref_eval.rank_aggregation import stationary

    P = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    with pytest.raises(UsageError, match=r"^damping must be in \(0, 1\]"):  # the keyword (a Python caller)
        stationary(P, damping)
    np.testing.assert_allclose(stationary(P, 1.0), [1 / 3] * 3)



def test_line_search_of_one_query_does_not_stop_the_others():
    """Mutant ``fit._line_search``: ``if not todo.any(): break`` -> ``todo.all()`` (once one query's step was
    accepted the others stopped halving: marked stalled, left unfitted -- query 2 here got scores 2.7 away and
    ``converged`` False). Oracle: scipy.optimize maximises each query's log-posterior (fit.py's docstring:
    l(x) + prior·Σ(log σ(x_i) + log σ(−x_i)), prior 0.5) on its own; the joint fit must reach it per query.
    Three queries of 4 documents, weights 1 to 1e5, near-perfect and perfect judgments (numpy seed 0)."""
    from scipy.optimize import minimize
    from scipy.special import log_expit

    from pref_eval.zelo.fit import fit_bt

    q = np.repeat(np.arange(3), 6)
    a = np.array([1, 1, 2, 3, 0, 3, 2, 1, 2, 2, 1, 1, 2, 2, 2, 1, 3, 1])
    b = np.array([2, 0, 3, 0, 3, 1, 3, 2, 0, 1, 3, 0, 3, 3, 1, 0, 0, 2])
    s = np.array([0.999, 1.0, 0.5, 0.0, 0.01, 0.5, 0.01, 0.999, 0.999, 1.0, 0.999, 0.0, 0.5, 0.5, 0.01, 0.0, 0.01,
                  0.0])
    w = np.array([1e3, 1e3, 1e5, 50, 1e5, 1e3, 1e5, 1, 1e5, 1e5, 1, 50, 1e3, 1, 1e3, 1e3, 1e5, 1e5])
    res = fit_bt(np.array([4, 4, 4]), q, a, b, s, w, prior=0.5, compute_se=False)
    assert res.converged.all()
    for k in range(3):
        sel = q == k

        def neg_post(x, sel=sel):
            d = x[a[sel]] - x[b[sel]]
            return -float(np.sum(w[sel] * (1 - s[sel]) * log_expit(d) + w[sel] * s[sel] * log_expit(-d))
                          + 0.5 * np.sum(log_expit(x) + log_expit(-x)))

        opt = minimize(neg_post, np.zeros(4), method="BFGS", options={"gtol": 1e-9, "maxiter": 10000})
        np.testing.assert_allclose(res.score[4 * k:4 * k + 4], opt.x - opt.x.mean(), atol=1e-4)


@pytest.mark.parametrize("a", [100.5, 101.0, 137.25])
def test_log_beta_of_a_half_series_against_scipy(a):
    """Mutant ``stats.special._log_beta_a_half``: the asymptotic series' coefficient −399/262144 doubled (an
    error of ~1.5e-13 at a = 100.5, the first a the series serves; the tests compared p-values at 1e-12).
    Oracle: scipy.special.betaln(a, 1/2) (Cephes' lbeta), equal to ours to 2.2e-16 at these a."""
    from scipy.special import betaln

    from pref_eval.stats.special import _log_beta_a_half

    assert abs(_log_beta_a_half(a) - betaln(a, 0.5)) <= 2e-15


def test_num_rel_negative_zero_z_scores_sum_to_zero(tmp_path):
    """zelo_trec printed `Znum_rel all -0.0000` where trec_eval 10.0 prints 0.0000 (found by
    tools/fuzz_trec_eval.py --case 53:811, stored as tests/data/trec_eval_generated/fuzzc_53_811): num_rel's own
    summary (m_num_rel.c) summed the -0.0 z-scores (value below the mean, stddev 1e400 read as inf) without
    trec_eval's accumulator, which starts at +0.0. trec_eval 10.0's output on these files, byte for byte."""
    from cli_harness import run_inproc

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 b 1 2 r\n1 Q0 a 2 1 r\n")
    (tmp_path / "z").write_text("1 num_rel 1.5 1e400\n1 map 0.75 1e400\n")
    p = run_inproc("zelo_trec", ["-q", "-m", "num_rel", "-m", "map", "-Z", "z", "q", "r"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode().splitlines() == [
        f"Z{'num_rel':<22}\t1\t-0.0000", f"Z{'map':<22}\t1\t-0.0000",
        f"Z{'num_rel':<22}\tall\t0.0000", f"Z{'map':<22}\tall\t0.0000"]
