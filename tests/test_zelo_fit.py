"""Bradley-Terry fit against outside oracles: choix (exact MLE), scipy.optimize
(penalised objective), statsmodels GLM (standard errors)."""
from __future__ import annotations

import numpy as np
import pytest

from pref_eval.zelo.fit import ELO_FACTOR, fit_bt, to_scale

choix = pytest.importorskip("choix")


def _gen(Q, N, cycles, sigma, seed, votes=3):
    from pref_eval.zelo.simulate import cycle_judgments

    return cycle_judgments(Q, N, cycles, sigma, seed, votes)


def _dense_w(N, a, b, s, w=None):
    W = np.zeros((N, N))
    w = np.ones(len(a)) if w is None else w
    for ai, bi, si, wi in zip(a, b, s, w, strict=False):
        if ai != bi:
            W[bi, ai] += wi * si
            W[ai, bi] += wi * (1 - si)
    return W


def _scc_by_reachability(W):
    """SCCs from the transitive closure of W>0 (independent of scipy.csgraph)."""
    n = len(W)
    R = (W > 0) | np.eye(n, dtype=bool)
    for k in range(n):  # Warshall
        R = R | (R[:, [k]] & R[[k], :])
    both = R & R.T
    labels = -np.ones(n, dtype=int)
    c = 0
    for i in range(n):
        if labels[i] < 0:
            labels[both[i]] = c
            c += 1
    return labels


def test_pure_mle_equals_choix_inside_each_scc():
    sizes, q, a, b, s = _gen(30, 25, 4, 1.5, seed=3)
    res = fit_bt(sizes, q, a, b, s, prior=0.0, tol=1e-11)
    assert res.converged.all()
    checked = 0
    not_strong = 0
    for k in range(len(sizes)):
        m = q == k
        W = _dense_w(25, a[m], b[m], s[m])
        lab = _scc_by_reachability(W)
        x = res.score[res.offsets[k]:res.offsets[k + 1]]
        not_strong += lab.max() > 0
        # our component labels partition the documents exactly like reachability
        ours = res.component[res.offsets[k]:res.offsets[k + 1]]
        assert len(set(zip(lab, ours, strict=False))) == len(set(lab)) == len(set(ours))
        for c in np.unique(lab):
            idx = np.flatnonzero(lab == c)
            if len(idx) < 2:
                assert x[idx[0]] == 0.0
                continue
            ref = choix.ilsr_pairwise_dense(W[np.ix_(idx, idx)], alpha=0.0, tol=1e-14, max_iter=100000)
            ref = ref - ref.mean()
            np.testing.assert_allclose(x[idx] - x[idx].mean(), ref, atol=1e-6)
            assert abs(x[idx].mean()) < 1e-9
            checked += 1
    assert checked >= 30 and not_strong >= 10  # the data really has non-SCC queries


def test_strongly_connected_full_fit_equals_choix_dense_data():
    rng = np.random.default_rng(5)
    N, K = 15, 600
    a, b = rng.integers(0, N, K), rng.integers(0, N, K)
    truth = rng.normal(0, 1, N)
    s = (rng.random(K) < 1 / (1 + np.exp(-(truth[b] - truth[a])))).astype(float)
    res = fit_bt([N], np.zeros(K, int), a, b, s, prior=0.0)
    W = _dense_w(N, a, b, s)
    ref = choix.ilsr_pairwise_dense(W, alpha=0.0, tol=1e-14, max_iter=100000)
    np.testing.assert_allclose(res.score, ref - ref.mean(), atol=1e-6)
    assert res.n_components[0] == 1 and res.n_perfect[0] == 0


def test_prior_map_equals_scipy_optimize():
    from scipy.optimize import minimize

    sizes, q, a, b, s = _gen(4, 12, 2, 2.0, seed=11)
    alpha = 0.5
    res = fit_bt(sizes, q, a, b, s, prior=alpha, tol=1e-11)
    for k in range(4):
        m = q == k
        W = _dense_w(12, a[m], b[m], s[m])

        def negobj(x, W):
            d = x[:, None] - x[None, :]
            return -(np.sum(W * -np.logaddexp(0, -d)) + alpha * np.sum(-np.logaddexp(0, -x) - np.logaddexp(0, x)))

        def neggrad(x, W):
            d = x[:, None] - x[None, :]
            P = 1 / (1 + np.exp(-d))
            G = W * (1 - P)
            g = G.sum(1) - G.sum(0) + alpha * (1 - 2 / (1 + np.exp(-x)))
            return -g

        r = minimize(negobj, np.zeros(12), args=(W,), jac=neggrad, method="BFGS",
                     options={"gtol": 1e-12, "maxiter": 10000})
        x = res.score[res.offsets[k]:res.offsets[k + 1]]
        np.testing.assert_allclose(x, r.x - r.x.mean(), atol=1e-6)
        assert np.all(np.isfinite(x))
    # perfect-record documents exist and still get finite scores
    assert res.n_perfect.sum() > 0


def test_standard_errors_match_statsmodels_glm():
    import statsmodels.api as sm

    rng = np.random.default_rng(2)
    N, K = 8, 300
    a, b = rng.integers(0, N, K), rng.integers(0, N, K)
    truth = rng.normal(0, 1, N)
    s = (rng.random((K, 3)) < (1 / (1 + np.exp(-(truth[b] - truth[a]))))[:, None]).mean(1)
    res = fit_bt([N], np.zeros(K, int), a, b, s, prior=0.0)
    W = _dense_w(N, a, b, s)
    rows, y, n = [], [], []
    for i in range(N):
        for j in range(i + 1, N):
            tot = W[i, j] + W[j, i]
            if tot > 0:
                r = np.zeros(N)
                r[i], r[j] = 1, -1
                rows.append(r[1:])
                y.append(W[i, j] / tot)
                n.append(tot)
    glm = sm.GLM(np.array(y), np.array(rows), family=sm.families.Binomial(), var_weights=np.array(n)).fit(tol=1e-14)
    beta = np.r_[0.0, glm.params]
    np.testing.assert_allclose(res.score, beta - beta.mean(), atol=1e-6)
    cov = np.zeros((N, N))
    cov[1:, 1:] = glm.cov_params()
    C = np.eye(N) - 1.0 / N
    np.testing.assert_allclose(res.se, np.sqrt(np.diag(C @ cov @ C)), rtol=1e-6)


def test_weights_scale_pair_strength():
    # a judgment with weight 2 equals the same judgment given twice
    q = np.zeros(5, int)
    a = np.array([0, 1, 2, 0, 1])
    b = np.array([1, 2, 0, 2, 0])
    s = np.array([1.0, 0.0, 1.0, 0.5, 0.3])
    w = np.array([2.0, 1.0, 1.0, 1.0, 3.0])
    r1 = fit_bt([3], q, a, b, s, w, prior=0.0)
    rep = np.repeat(np.arange(5), w.astype(int))
    r2 = fit_bt([3], q[rep], a[rep], b[rep], s[rep], prior=0.0)
    np.testing.assert_allclose(r1.score, r2.score, atol=1e-9)
    np.testing.assert_allclose(r1.se, r2.se, atol=1e-9)
    # power 0 ignores weights
    r0 = fit_bt([3], q, a, b, s, w, prior=0.0, weight_power=0.0)
    r3 = fit_bt([3], q, a, b, s, prior=0.0)
    np.testing.assert_allclose(r0.score, r3.score, atol=1e-12)
    # power 2 squares them
    rp = fit_bt([3], q, a, b, s, w, prior=0.0, weight_power=2.0)
    rs = fit_bt([3], q, a, b, s, w**2, prior=0.0)
    np.testing.assert_allclose(rp.score, rs.score, atol=1e-12)


def test_diagnostics_perfect_records_and_disconnected():
    # query 0: d0 beats everyone (perfect), d1..d3 cycle; query 1: two separate pairs
    q = np.array([0, 0, 0, 0, 0, 0, 1, 1])
    a = np.array([0, 0, 0, 1, 2, 3, 0, 2])
    b = np.array([1, 2, 3, 2, 3, 1, 1, 3])
    s = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.5, 0.0])
    res = fit_bt([4, 4], q, a, b, s, prior=0.0)
    assert list(res.n_perfect) == [1, 2]
    assert list(res.n_components) == [2, 3]
    assert res.level[0] == 0 and all(res.level[1:4] == 1)
    # cycle d1>d3>d2>d1 (each once): all equal within the SCC
    np.testing.assert_allclose(res.score[1:4], 0.0, atol=1e-9)
    assert np.isnan(res.se[0])
    # with the prior everything is finite, the unbeaten document is on top
    rp = fit_bt([4, 4], q, a, b, s, prior=0.5)
    assert np.all(np.isfinite(rp.score)) and np.all(np.isfinite(rp.se))
    assert rp.score[0] > rp.score[1:4].max()
    assert abs(rp.score[:4].mean()) < 1e-12


def test_elo_scale():
    x, se = to_scale(np.array([0.0, 1.0]), np.array([0.1, 0.2]), "elo", 1500)
    np.testing.assert_allclose(x, [1500, 1500 + 400 / np.log(10)])
    np.testing.assert_allclose(se, np.array([0.1, 0.2]) * ELO_FACTOR)
