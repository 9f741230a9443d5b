"""The pair genie's bound on Kendall tau against the dense matrix (pref_eval.zelo.tau_bound): each step
checked against an outside oracle (scipy's tau_b, quadrature, the logistic cdf, a brute-force Bayes-optimal
estimator for K = 3)."""
import itertools
import math
import re

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit

from pref_eval.zelo.tau_bound import (
    REVEALS,
    concave_majorant,
    pair_probabilities,
    pair_values,
    row_posterior,
    row_terms,
    tau_bound,
)


def test_step1_tau_b_is_at_most_the_pair_sum_with_ties_counted_once():
    """scipy's tau_b of a strict estimate against a target with ties is at most (S + n_ties) / N,
    S the sum of sign products over the pairs the target orders; with bit-equal ties at most (S + n_ties/2) / N."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        K = int(rng.integers(3, 12))
        target = rng.integers(0, int(rng.integers(2, K + 1)), K).astype(float)  # ties
        est = rng.normal(size=K) + rng.uniform(0, 3) * target  # strict, correlated
        iu = np.triu_indices(K, 1)
        s = np.sign(target[:, None] - target[None, :])[iu]
        a = np.sign(est[:, None] - est[None, :])[iu]
        N, ties = len(s), int((s == 0).sum())
        S = float((a * s).sum())
        tau_b = stats.kendalltau(est, target).statistic
        if ties == N:
            continue  # scipy: nan
        assert tau_b <= (S + ties / 2) / N + 1e-12
        assert tau_b <= (S + ties) / N + 1e-12


def test_step3_the_vote_is_the_sign_of_the_logistic_latent_variable():
    """A Bradley–Terry vote P(k beats j) = sigma(x_k - x_j) is 1[x_k - x_j + L > 0], L standard logistic
    (numpy's logistic draws, scipy's logistic cdf): the genie's observation x_k + L determines the vote."""
    assert np.allclose(stats.logistic.cdf(np.linspace(-6, 6, 41)), expit(np.linspace(-6, 6, 41)))
    rng = np.random.default_rng(1)
    for d in (-2.0, -0.3, 0.0, 0.7, 2.5):
        v = (d + rng.logistic(size=200_000) > 0).mean()
        assert abs(v - expit(d)) < 4 * np.sqrt(expit(d) * (1 - expit(d)) / 200_000)


def test_row_posterior_against_quadrature():
    rng = np.random.default_rng(2)
    sigma = 0.8
    x = np.array([0.3, -1.1])
    obs = x[:, None] + rng.logistic(size=(2, 9))
    a, lp = row_posterior(x, obs, sigma, grid=61)
    w = np.exp(lp - lp.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    for i in range(2):
        dens = lambda t, i=i: np.exp(-0.5 * (t / sigma) ** 2 + stats.logistic.logpdf(obs[i] - t).sum())  # noqa: E731
        z = integrate.quad(dens, -15, 15, points=[x[i]], limit=200)[0]
        mean = integrate.quad(lambda t, dens=dens: t * dens(t), -15, 15, points=[x[i]], limit=200)[0] / z
        second = integrate.quad(lambda t, dens=dens: t * t * dens(t), -15, 15, points=[x[i]], limit=200)[0] / z
        smooth = integrate.quad(lambda t, dens=dens, i=i: expit(3 * (t - x[i])) * dens(t), -15, 15, points=[x[i]],
                                limit=200)[0] / z
        assert (w[i] * a[i]).sum() == pytest.approx(mean, abs=1e-6)
        assert (w[i] * a[i] ** 2).sum() == pytest.approx(second, abs=1e-6)
        assert (w[i] * expit(3 * (a[i] - x[i]))).sum() == pytest.approx(smooth, abs=1e-6)


def _exact_q(a, b, opp_k, opp_l, rev_k, rev_l, C, votes):
    """P(votes (w_k - w_l) > 0) and P(< 0) given x_k = a, x_l = b: the unrevealed terms' counts by
    convolving scipy's binomial pmfs (independent of tau_bound's code)."""
    def pmf(x, opps, rev):
        out = np.array([1.0])
        for j, xo in enumerate(opps):
            if not rev[j]:
                p = 1.0 / (1.0 + np.exp(xo - x))
                out = np.convolve(out, [math.comb(votes, v) * p**v * (1 - p) ** (votes - v) for v in range(votes + 1)])
        return out
    pk, pl = pmf(a, opp_k, rev_k), pmf(b, opp_l, rev_l)
    diff = np.convolve(pk, pl[::-1])  # T_k - T_l from -(len(pl) - 1)
    vals = np.arange(len(diff)) - (len(pl) - 1) + C
    return diff[vals > 0].sum(), diff[vals < 0].sum()


def test_pair_probabilities_against_double_quadrature():
    """The genie's P(w_k > w_l) and P(w_k < w_l) on the grids against scipy's dblquad of prior x likelihoods x
    the exact conditional probability, for one configuration with K = 5 (3 opponents, one term revealed)."""
    rng = np.random.default_rng(3)
    sigma, votes = 1.0, 3
    xk, xl = np.array([0.2]), np.array([-0.1])
    opp = np.array([[0.5, -0.4, 1.2]])
    obs_k, obs_l = xk[:, None] + rng.logistic(size=(1, 6)), xl[:, None] + rng.logistic(size=(1, 3))
    s_kl, C = np.array([2]), np.array([1])
    rev_k, rev_l = np.array([True, False, False]), np.array([False, False, False])
    ak, lpk = row_posterior(xk, obs_k, sigma, grid=81)
    al, lpl = row_posterior(xl, obs_l, sigma, grid=81)
    tk = row_terms(ak, opp, ~rev_k, votes, exact=True)
    tl = row_terms(al, opp, ~rev_l, votes, exact=True)
    pp, pm, p0, edge = pair_probabilities(ak, lpk, al, lpl, s_kl, C, tk, tl, votes, exact=True)
    assert edge[0] < 1e-4

    def logistic_logpdf(x):  # scipy.stats.logistic.logpdf written out (its per-call overhead was most of the test)
        return -np.abs(x) - 2 * np.log1p(np.exp(-np.abs(x)))

    assert np.allclose(logistic_logpdf(obs_k[0] - 0.3), stats.logistic.logpdf(obs_k[0] - 0.3), rtol=1e-14, atol=0)

    def dens(b, a):
        return np.exp(-0.5 * (a / sigma) ** 2 - 0.5 * (b / sigma) ** 2 + logistic_logpdf(obs_k[0] - a).sum()
                      + logistic_logpdf(obs_l[0] - b).sum()
                      + 2 * np.log(expit(a - b)) + 1 * np.log(expit(b - a)))
    lim = dict(epsabs=1e-9, epsrel=1e-6)
    z = integrate.dblquad(dens, -6, 6, -6, 6, **lim)[0]
    qp = integrate.dblquad(lambda b, a: dens(b, a) * _exact_q(a, b, opp[0], opp[0], rev_k, rev_l, 1, votes)[0],
                           -6, 6, -6, 6, **lim)[0] / z
    qm = integrate.dblquad(lambda b, a: dens(b, a) * _exact_q(a, b, opp[0], opp[0], rev_k, rev_l, 1, votes)[1],
                           -6, 6, -6, 6, **lim)[0] / z
    assert pp[0] == pytest.approx(qp, abs=2e-4)
    assert pm[0] == pytest.approx(qm, abs=2e-4)
    assert p0[0] == pytest.approx(1 - qp - qm, abs=3e-4)


def test_normal_approximation_close_to_exact_at_K25():
    """The normal sum with a continuity correction against the exact convolution, same draws."""
    r = pair_values(25, 0.6, [(8, 8), (2, 5)], 60, reveal="best")
    e = pair_values(25, 0.6, [(8, 8), (2, 5)], 60, reveal="best", exact=True)
    assert np.abs(r["h"] - e["h"]).max() < 0.01
    assert np.abs(r["h"].mean(axis=0) - e["h"].mean(axis=0)).max() < 0.002


def test_value_grows_with_the_budget_and_every_term_revealed_is_certainty():
    """More judgments never lower the genie's value (paired Monte Carlo: no drop beyond 3 standard errors);
    with every term of both rows revealed, the totals are known: h = 1."""
    K = 10
    combos = [(0, 0), (1, 1), (2, 2), (4, 4), (6, 6), (K - 2, K - 2)]
    for rule in ("none", "best"):
        h = pair_values(K, 1.0, combos, 300, reveal=rule, seed=4)["h"]
        for c in range(1, len(combos) - 1):
            d = h[:, c] - h[:, c - 1]
            assert d.mean() > -3 * d.std(ddof=1) / np.sqrt(len(d))
        if rule == "best":
            assert np.allclose(h[:, -1], 1.0)
    # the seeded draws are the same for every rule: with no judgment the rules agree (up to the order of a sum)
    vals = [pair_values(K, 1.0, [(0, 0)], 50, reveal=r, seed=4)["h"] for r in REVEALS]
    assert all(np.allclose(vals[0], v, rtol=0, atol=1e-12) for v in vals[1:])


def test_bayes_optimal_estimator_below_the_bound_K3():
    """K = 3, the design {(0, 1)} fixed: the Bayes-optimal strict order given that judgment, by brute force
    (Gauss–Hermite quadrature over the scores, every dense matrix enumerated), reaches an expected
    mean over pairs of a (P+ - P-) + P0 -- at least its tau_b (step 1) -- below the genie's bound for this
    design, the mean of f(0, 0) (pair (0, 1)) and twice f(1, 0) (pairs (0, 2), (1, 2): one judgment in one row)."""
    sigma, votes = 1.0, 3
    nodes, weights = np.polynomial.hermite_e.hermegauss(30)
    weights = weights / weights.sum()
    X = np.stack(np.meshgrid(nodes, nodes, nodes, indexing="ij"), -1).reshape(-1, 3) * sigma
    W = np.einsum("i,j,k->ijk", weights, weights, weights).ravel()
    pairs = [(0, 1), (0, 2), (1, 2)]
    pm = [stats.binom.pmf(np.arange(votes + 1)[None, :], votes, expit(X[:, i] - X[:, j])[:, None]) for i, j in pairs]
    joint = np.einsum("p,pa,pb,pc->abc", W, *pm)  # P(s01, s02, s12)
    value = 0.0
    for s01 in range(votes + 1):
        pF = joint[s01].sum()
        probs = {}
        for (i, j) in pairs:
            acc = np.zeros(3)
            for s02, s12 in itertools.product(range(votes + 1), repeat=2):
                s = {(0, 1): s01, (0, 2): s02, (1, 2): s12}
                w = [sum(s[(k, m)] if k < m else votes - s[(m, k)] for m in range(3) if m != k) for k in range(3)]
                acc[int(np.sign(w[i] - w[j])) + 1] += joint[s01, s02, s12]
            probs[(i, j)] = acc / pF  # P(<), P(=), P(>)
        best = -np.inf
        for order in itertools.permutations(range(3)):
            rank = {d: r for r, d in enumerate(order)}
            tot = sum((1 if rank[i] < rank[j] else -1) * (probs[(i, j)][2] - probs[(i, j)][0]) + probs[(i, j)][1]
                      for i, j in pairs)
            best = max(best, tot / 3)
        value += pF * best
    h = pair_values(3, sigma, [(0, 0), (1, 0)], 2000, reveal="best", exact=True, seed=5)["h"]
    per = (h[:, 0] + 2 * h[:, 1]) / 3
    bound, se = per.mean(), per.std(ddof=1) / np.sqrt(len(per))
    assert value <= bound + 3 * se
    assert value > 0.3  # the brute force is not degenerate


def test_concave_majorant_by_hand():
    # concave already: the value itself
    v, i, j, al = concave_majorant([0, 1, 2, 3, 4], np.array([0.0, 0.35, 0.6, 0.72, 0.8]), 2)
    assert v == pytest.approx(0.6)
    # a convex kink at 2: the chord from 0 to 4
    assert concave_majorant([0, 1, 2, 3, 4], np.array([0.0, 0.05, 0.1, 0.5, 0.8]), 2)[0] == pytest.approx(0.4)
    # between computed budgets g is at most the next value: g(1) <= g(2), g(3) <= g(4) are points
    assert concave_majorant([0, 2, 4], np.array([0.0, 0.6, 0.8]), 2)[0] == pytest.approx(0.7)
    assert concave_majorant([0, 2, 4], np.array([0.0, 0.6, 0.8]), 3)[0] == pytest.approx(0.8)
    # beyond the last budget g <= 1 at last + 1: the chord from (1, 0.9) to (3, 1)
    assert concave_majorant([0, 2], np.array([0.5, 0.9]), 2.5)[0] == pytest.approx(0.975)
    with pytest.raises(ValueError):
        concave_majorant([2, 4], np.array([0.1, 0.2]), 3)


def test_arguments_refused():
    for kw in (dict(reveal="oracle"), dict(samples=0), dict(sigma=0.0), dict(K=2)):
        args = dict(K=6, sigma=1.0, combos=[(1, 1)], samples=5) | kw
        with pytest.raises(ValueError):
            pair_values(**args)
    with pytest.raises(ValueError):
        pair_values(6, 1.0, [(5, 1)], 5)  # at most K - 2 judgments per row besides the pair's own
    with pytest.raises(ValueError):
        tau_bound(6, 1.0, 24, 5, budgets=[0, 3])  # 4m/K = 16 is not among them


def test_tau_bound_reduced_and_seeded():
    a = tau_bound(12, 0.6, 48, 150, seed=0)
    b = tau_bound(12, 0.6, 48, 150, seed=0)
    assert a["bound"] == b["bound"] and a["at"] == 16.0
    assert a["bound"] >= a["even"] - 1e-12  # the majorant is never below the value at the mean budget
    assert 0 < a["se"] < 0.05 and a["edge"] < 1e-3


def test_bench_tau_bound_reduced(recovery_bench):
    # in this process (session 22, s31): the bench's process is tested by test_zelo_ranking_bound.py's
    # test_bench_table_reduced
    out = recovery_bench("--tau-bound", "--trials", "3", "--K", "25", "--sigma", "0.6", "--bound-samples", "100")
    rows = [line.strip(" |").split(" | ") for line in out.splitlines() if line.startswith("| 25 |")]
    assert len(rows) == 1 and len(rows[0]) == 10
    genie = [float(v) for v in rows[0][5].split(" / ")]
    assert len(genie) == len(REVEALS) and all(0 < v <= 1 for v in genie)
    bound, se = (float(v) for v in rows[0][6].split(" ± "))
    assert bound >= genie[REVEALS.index("best")] - 1e-3
    assert float(rows[0][9]) >= genie[REVEALS.index("random")] - 0.05  # twice the budget: no lower, up to noise
    with pytest.raises(SystemExit) as refused:  # the refusal in this process too (s30)
        recovery_bench("--tau-bound", "--oracle", "--trials", "1", "--K", "6")
    assert refused.value.code == 2


@pytest.mark.slow
def test_docs_tau_bound_table_is_the_bench_output(recovery_bench):
    """The K = 25, σ = 0.6 row of the tau-bound table in docs/zelo_simulate-ranking-bounds.md is the bench's (the
    genie's 4,000
    Monte Carlo pairs per cell and rule: the three K = 25 rows took 7 min at load 4, so one row is rerun here;
    the bench reproduces the rest). The bench runs in this process (``recovery_bench`` in tests/conftest.py:
    its strategies' simulations are shared with the recovery tables' tests)."""
    from conftest import ROOT, assert_rows_close

    doc = (ROOT / "docs" / "zelo_simulate-ranking-bounds.md").read_text()
    block = doc.split("<!-- recovery-tau-bound:begin -->\n")[1].split("<!-- recovery-tau-bound:end -->")[0]
    m = re.search(r"--trials (\d+) --seed (\d+) --bound-samples (\d+)", block)
    assert m
    out = recovery_bench("--tau-bound", "--trials", m[1], "--seed", m[2], "--bound-samples", m[3], "--K", "25",
                         "--sigma", "0.6")
    old = [r for r in block.splitlines() if r.startswith("| 25 | 0.6 |")]
    new = [r for r in out.splitlines() if r.startswith("| 25 |")]
    assert len(old) == 1
    assert_rows_close(old, new, r" \| | / | ± ")
