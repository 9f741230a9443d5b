"""Adaptive whole-ranking pairs (pref_eval.zelo.adaptive: ranking_batch, greedy_matching,
posterior_covariance) and recovery --strategy adaptive against random cycles."""
import math
import subprocess
import sys

import numpy as np
import pytest

from pref_eval.zelo.adaptive import (
    adaptive_ranking_pairs,
    discordance_reduction,
    rowsum_reduction,
    greedy_matching,
    posterior_covariance,
    ranking_batch,
)
from pref_eval.zelo.fit import fit_bt
from pref_eval.zelo.simulate import default_batch, recovery


def _greedy_by_hand(key, i, j):
    used, out = set(), []
    for c in np.argsort(key, kind="stable"):
        if np.isfinite(key[c]) and i[c] not in used and j[c] not in used:
            used |= {i[c], j[c]}
            out.append(c)
    return sorted(out)


def test_greedy_matching_is_the_sequential_greedy():
    rng = np.random.default_rng(0)
    Q, K, C = 30, 9, 25
    i = rng.integers(0, K, (Q, C))
    j = (i + rng.integers(1, K, (Q, C))) % K
    key = np.argsort(rng.random((Q, C)), axis=1).astype(float)
    key[rng.random((Q, C)) < 0.2] = np.inf
    chosen = greedy_matching(key, i, j, K)
    for q in range(Q):
        assert np.flatnonzero(chosen[q]).tolist() == _greedy_by_hand(key[q], i[q], j[q])


def test_posterior_covariance_gives_the_fit_standard_errors():
    rng = np.random.default_rng(1)
    Q, K, n = 3, 7, 20
    a = rng.integers(0, K, (Q, n))
    b = (a + rng.integers(1, K, (Q, n))) % K
    s = rng.random((Q, n))
    q = np.repeat(np.arange(Q), n)
    fit = fit_bt(np.full(Q, K), q, a.ravel(), b.ravel(), s.ravel(), compute_se=True)
    x = fit.score.reshape(Q, K)
    cov = posterior_covariance(x, a, b)
    C = np.eye(K) - 1.0 / K  # the fit reports SEs of the centred scores
    se = np.sqrt(np.diagonal(C @ cov @ C, axis1=1, axis2=2))
    np.testing.assert_allclose(se, fit.se.reshape(Q, K), rtol=1e-4)


def test_ranking_batch_by_hand():
    # equal gaps and variances: adjacent pairs tie on P; closer first, then higher up: (0,1), (2,3)
    x = np.array([[3.0, 2.0, 1.0, 0.0]])
    cov = np.eye(4)[None]
    judged = np.zeros((1, 4, 4), dtype=bool)
    assert ranking_batch(x, cov, judged, 2, window=3) == [[(0, 1), (2, 3)]]
    # (0, 1) judged: (1, 2) first; (2, 3), (0, 2), (1, 3) share a document with it; (0, 3) is free
    judged[0, 0, 1] = judged[0, 1, 0] = True
    assert ranking_batch(x, cov, judged, 2, window=3) == [[(1, 2), (0, 3)]]
    assert ranking_batch(x, cov, judged, 2, window=1) == [[(1, 2)]]
    assert ranking_batch(x, cov, judged, 1, window=3) == [[(1, 2)]]
    # a pair whose order is uncertain beats a clear one
    x = np.array([[0.0, 0.1, 5.0]])
    assert ranking_batch(x, np.eye(3)[None], np.zeros((1, 3, 3), bool), 1, window=2) == [[(1, 0)]]
    # the one-query helper with standard errors is the same choice
    assert adaptive_ranking_pairs(x[0], np.ones(3), np.zeros((3, 3), bool), 1, 2) == [(1, 0)]


def test_ranking_batch_properties():
    rng = np.random.default_rng(2)
    Q, K = 20, 11
    x = rng.normal(0, 1, (Q, K))
    A = rng.normal(0, 1, (Q, K, K))
    cov = A @ A.transpose(0, 2, 1) / K + np.eye(K)
    judged = rng.random((Q, K, K)) < 0.3
    judged |= judged.transpose(0, 2, 1)
    for window in (1, 3, 10):
        for q, pairs in enumerate(ranking_batch(x, cov, judged, 4, window)):
            assert len(pairs) <= 4
            docs = [d for p in pairs for d in p]
            assert len(docs) == len(set(docs))
            pos = np.argsort(np.argsort(-x[q], kind="stable"))
            for a, b in pairs:
                assert not judged[q, a, b] and 1 <= abs(pos[a] - pos[b]) <= window


def test_recovery_adaptive_seeded_and_within_budget():
    r1 = recovery(12, 1.5, 3, trials=4, seed=5, strategy="adaptive", design=True)
    r2 = recovery(12, 1.5, 3, trials=4, seed=5, strategy="adaptive", design=True)
    for k in r1:
        np.testing.assert_array_equal(r1[k], r2[k])
    assert (r1["distinct_pairs"] == 36).all()  # every pair of the budget distinct (none read twice)
    with pytest.raises(ValueError):
        recovery(12, 1.5, 3, trials=2, strategy="adaptive", start="spiral")


def test_adaptive_with_4_cycles_budget_reaches_8_cycles_at_k25_sigma3():
    """The goal in a cell where it is reached (docs table, 100 trials): here 30 trials, same seeds."""
    r8 = recovery(25, 3.0, 8, trials=30, seed=0)
    ra = recovery(25, 3.0, 4, trials=30, seed=0, strategy="adaptive")
    assert ra["tau_dense"].mean() > r8["tau_dense"].mean()


def test_recovery_adaptive_batch_window_start_honoured_and_checked():
    base = recovery(16, 1.5, 3, trials=3, seed=2, strategy="adaptive")
    other = recovery(16, 1.5, 3, trials=3, seed=2, strategy="adaptive", batch=default_batch(16) // 4)
    assert not np.array_equal(other["tau_dense"], base["tau_dense"])  # the batch size is honoured
    # the default batch is default_batch(K): passing it explicitly gives the same arrays
    same = recovery(16, 1.5, 3, trials=3, seed=2, strategy="adaptive", batch=default_batch(16))
    for k in base:
        np.testing.assert_array_equal(base[k], same[k])
    small = recovery(16, 1.5, 3, trials=3, seed=2, strategy="adaptive", batch=3, design=True)
    assert (small["distinct_pairs"] == 48).all()  # the whole budget, no pair twice
    for bad in ({"batch": 0}, {"batch": 1.5}, {"window": 0}, {"window": True}, {"criterion": "entropy"}):
        with pytest.raises(ValueError):
            recovery(16, 1.5, 3, trials=2, strategy="adaptive", **bad)


def _simulate(*args):
    return subprocess.run([sys.executable, "-m", "pref_eval.cli.simulate", *args], capture_output=True, text=True)


def test_recovery_cli_adaptive_options_seeded_and_refused_for_cycles():
    args = ["recovery", "--K", "12", "--sigma", "1", "--cycles", "2", "--trials", "3", "--seed", "7",
            "--strategy", "adaptive", "--window", "3", "--start", "cycle", "--batch", "2", "--criterion", "uncertainty"]
    r1 = _simulate(*args)
    assert r1.returncode == 0, r1.stderr
    assert r1.stdout.startswith("K\tsigma\tcycles")
    from cli_harness import run_inproc
    from conftest import ROOT

    # the same seed again, in this process (a second process cost ~1 s CPU; session 22, s31), and the variants
    same = run_inproc("zelo_simulate", args, ROOT)
    assert same.returncode == 0 and same.stdout.decode() == r1.stdout
    rows = {}
    for opt, val in (("--window", "1"), ("--start", "matching"), ("--batch", "6"), ("--criterion", "discordance"),
                     ("--criterion", "rowsum")):
        changed = list(args)
        changed[changed.index(opt) + 1] = val
        res = run_inproc("zelo_simulate", changed, ROOT)
        assert res.returncode == 0, res.stderr
        rows[opt + val] = res.stdout.decode()
    assert sum(out != r1.stdout for out in rows.values()) >= 4  # the options are honoured
    # refusals of each option with --strategy cycles and of bad values: tests/test_fuzz_options.py
    r = run_inproc("zelo_simulate", ["recovery", "--K", "6", "--sigma", "1", "--cycles", "1", "--trials", "1",
                                     "--criterion", "discordance"], ROOT)  # in this process (s30)
    assert r.returncode == 2 and r.stdout == b""
    assert r.stderr.count("\n") == 1 and "--criterion applies only to --strategy adaptive" in r.stderr


def test_discordance_reduction_against_direct_update_and_quadrature():
    """Each candidate's score recomputed independently: the covariance after the judgment by inverting
    the information matrix plus w u u' (numpy), the expected drop of every pair's error probability
    by numerical integration over the preposterior mean (scipy.integrate.quad)."""
    from scipy.integrate import quad
    from scipy.stats import norm

    rng = np.random.default_rng(3)
    K = 5
    x = rng.normal(0, 1, K)
    a, b = np.array([0, 1, 2, 3, 0, 2]), np.array([1, 2, 3, 4, 3, 4])
    C = posterior_covariance(x[None], a[None], b[None])[0]
    i, j = np.triu_indices(K, 1)
    got = discordance_reduction(x[None], C[None], i[None], j[None], reach=K)[0]
    for c, (ci, cj) in enumerate(zip(i, j, strict=True)):
        u = np.zeros(K)
        u[ci], u[cj] = 1.0, -1.0
        p = 1 / (1 + np.exp(x[cj] - x[ci]))
        C2 = np.linalg.inv(np.linalg.inv(C) + p * (1 - p) * np.outer(u, u))
        want = 0.0
        for k, m2 in zip(i, j, strict=True):
            s2 = C[k, k] + C[m2, m2] - 2 * C[k, m2]
            s2n = C2[k, k] + C2[m2, m2] - 2 * C2[k, m2]
            d, gap = s2 - s2n, abs(x[k] - x[m2])
            if d <= 1e-14:
                continue
            # E over m' ~ N(gap, d) of 2 phi(0)/s' * max(-m', 0): the linearised chance-of-flip gain
            want += quad(lambda m, gap=gap, d=d, s2n=s2n: 2 * norm.pdf(0) / np.sqrt(s2n) * (-m)
                         * norm.pdf(m, gap, np.sqrt(d)), -np.inf, 0)[0]
        assert got[c] == pytest.approx(want, rel=1e-6, abs=1e-12)
    # only the live candidates are scored, each exactly as in the full computation, in any chunking
    live = np.arange(len(i)) % 3 != 0
    part = discordance_reduction(x[None], C[None], i[None], j[None], reach=K, live=live[None], chunk=2)[0]
    assert np.array_equal(part[live], got[live]) and np.all(part[~live] == -np.inf)


def _c_exp(t):
    """The C library's exp (Python's math) elementwise: the adaptive strategies' ``exp`` since session 23
    (pref_eval.libm; numpy's own differs in last bits on an AVX-512 CPU)."""
    return np.frompyfunc(math.exp, 1, 1)(t).astype(np.float64)


def _plain_terms(delta, s2, gap):
    """Every term of the criterion as the plain expression, evaluated everywhere (the implementation before
    zero terms were skipped): 2φ(0)/s′ (√δ φ(z) − |Δ| Φ(−z)), δ clipped below 0.999 s², z = |Δ|/√δ."""
    from scipy.special import ndtr

    delta = np.minimum(delta, 0.999 * s2)
    sd = np.sqrt(np.maximum(delta, 1e-300))
    z = gap / sd
    with np.errstate(over="ignore"):
        t = ((z * -0.5) * z)
    return 2.0 / np.sqrt(2.0 * np.pi) / np.sqrt(s2 - delta) * (_c_exp(t) * sd / np.sqrt(2.0 * np.pi)
                                                               - ndtr(-z) * gap)


def _plain_discordance(x, cov, i, j, reach):
    """discordance_reduction written plainly: every band pair of every candidate gathered and evaluated."""
    Q, K = x.shape
    rows = np.arange(Q)[:, None]
    order = np.argsort(-x, axis=1, kind="stable")
    d_max = min(reach, K - 1)
    kk = np.concatenate([order[:, :-d] for d in range(1, d_max + 1)], axis=1)
    ll = np.concatenate([order[:, d:] for d in range(1, d_max + 1)], axis=1)
    dg = np.diagonal(cov, axis1=1, axis2=2)
    s2 = np.maximum(dg[rows, kk] + dg[rows, ll] - 2.0 * cov[rows, kk, ll], 1e-12)
    gap = np.abs(x[rows, kk] - x[rows, ll])
    p = 1.0 / (1.0 + _c_exp(x[rows, j] - x[rows, i]))
    var = dg[rows, i] + dg[rows, j] - 2.0 * cov[rows, i, j]
    denom = 1.0 / np.maximum(p * (1.0 - p), 1e-300) + var
    out = np.empty(i.shape)
    zs = []
    for q in range(Q):
        cu = cov[q, i[q], :] - cov[q, j[q], :]
        dk = cu[:, kk[q]] - cu[:, ll[q]]
        delta = dk * dk / denom[q][:, None]
        # summed as laid out in the implementation, C order (numpy's pairwise sums follow the memory layout)
        out[q] = np.ascontiguousarray(_plain_terms(delta, s2[q], gap[q])).sum(axis=1)
        zs.append(gap[q] / np.sqrt(np.maximum(np.minimum(delta, 0.999 * s2[q]), 1e-300)))
    return out, np.concatenate([z.ravel() for z in zs])


def test_discordance_reduction_equals_the_plain_formula_to_the_bit():
    """The fast path (band pairs as slices of C u in the order of x, terms that are exactly 0 -- z > 42, where
    exp(−z²/2) and Φ(−z) underflow -- left unevaluated) gives the plain formula's scores to the bit, which is
    what keeps the rounds of zelo_pairs states and the recovery tables unchanged. Inputs with ties (|Δ| = 0),
    well separated scores (z far beyond 40), every z around the cut (37-42), a covariance so small that δ
    falls below 1e-300, and few judgments (δ clipped at 0.999 s²)."""
    rng = np.random.default_rng(11)
    K, Q = 40, 6
    a = rng.integers(0, K, (Q, 3 * K))
    b = (a + rng.integers(1, K, (Q, 3 * K))) % K
    x = rng.normal(0, 1.5, (Q, K))
    x[1] = np.round(x[1] * 2) / 2  # ties
    x[2] = np.arange(K) * 0.5  # far apart: z far beyond the cut
    cov = posterior_covariance(x, a, b)
    cov[3] *= 1e-160  # δ below 1e-300
    a[4, :] = a[4, 0]
    cov[4] = posterior_covariance(x[4:5], a[4:5, :5], b[4:5, :5])[0]  # few judgments: δ clipped
    x[5] *= np.linspace(0.2, 30, K)  # z over the whole range
    i, j = np.triu_indices(K, 1)
    i, j = np.tile(i, (Q, 1)), np.tile(j, (Q, 1))
    want, z = _plain_discordance(x, cov, i, j, 15)
    assert ((z > 37) & (z < 42)).sum() > 50 and (z > 42).mean() > 0.1 and (z == 0).sum() > 100  # covered
    for chunk in (1, 7, 64):
        got = discordance_reduction(x, cov, i, j, 15, chunk=chunk)
        assert got.tobytes() == want.tobytes()
    live = rng.random(i.shape) < 0.6
    got = discordance_reduction(x, cov, i, j, 15, live=live)
    assert np.array_equal(got[live], want[live]) and np.all(got[~live] == -np.inf)


def test_expected_drop_equals_the_plain_formula_and_zero_terms_underflow():
    from scipy.special import ndtr

    from pref_eval.zelo.adaptive import _NDTR_ZERO, _ZERO_TERM_Z2, _expected_drop

    z = np.concatenate([np.linspace(_NDTR_ZERO, 100, 1000), np.geomspace(100, 1e300, 1000), [np.inf]])
    with np.errstate(over="ignore"):
        assert np.all(ndtr(-z) == 0) and np.all(np.exp((z * -0.5) * z) == 0)
    assert _ZERO_TERM_Z2 > _NDTR_ZERO**2
    rng = np.random.default_rng(2)
    s2 = rng.random((30, 200)) + 1e-3
    delta = s2 * rng.random((30, 200)) ** 8 * 1.01
    gap = np.where(rng.random((30, 200)) < 0.1, 0.0, rng.random((30, 200)) * 3)
    want = np.ascontiguousarray(_plain_terms(delta, s2, gap)).sum(axis=1)
    assert _expected_drop(delta.copy(), s2, gap).tobytes() == want.tobytes()
    frozen = delta.copy()
    frozen.flags.writeable = False
    assert _expected_drop(frozen, s2, gap).tobytes() == want.tobytes()


def test_ranking_batch_discordance_properties():
    rng = np.random.default_rng(1)
    Q, K = 3, 12
    x = rng.normal(0, 1, (Q, K))
    a = np.tile(np.arange(0, K, 2), (Q, 1))
    b = a + 1
    cov = posterior_covariance(x, a, b)
    judged = np.zeros((Q, K, K), dtype=bool)
    judged[np.arange(Q)[:, None], a, b] = judged[np.arange(Q)[:, None], b, a] = True
    out = ranking_batch(x, cov, judged, 4, window=3, criterion="discordance")
    assert out == ranking_batch(x, cov, judged, 4, window=3, criterion="discordance")  # deterministic
    for q, pairs in enumerate(out):
        assert len(pairs) == 4
        docs = [d for p in pairs for d in p]
        assert len(docs) == len(set(docs))
        pos = np.argsort(np.argsort(-x[q], kind="stable"))
        for p0, p1 in pairs:
            assert not judged[q, p0, p1] and 1 <= abs(pos[p0] - pos[p1]) <= 3
    with pytest.raises(ValueError):
        ranking_batch(x, cov, judged, 4, criterion="entropy")
    rs = ranking_batch(x, cov, judged, 4, window=3, criterion="rowsum")
    assert rs == ranking_batch(x, cov, judged, 4, window=3, criterion="rowsum")
    for q, pairs in enumerate(rs):
        assert len(pairs) == 4 and len({d for p in pairs for d in p}) == 8
        pos = np.argsort(np.argsort(-x[q], kind="stable"))
        assert all(not judged[q, p0, p1] and 1 <= abs(pos[p0] - pos[p1]) <= 3 for p0, p1 in pairs)
    # two documents: the one pair there is
    assert ranking_batch(np.array([[0.3, 0.0]]), np.eye(2)[None], np.zeros((1, 2, 2), bool), 1, window=1,
                         criterion="rowsum") == [[(0, 1)]]


def test_recovery_rowsum_criterion_seeded_honoured_and_within_budget():
    r1 = recovery(16, 0.6, 3, trials=4, seed=3, strategy="adaptive", criterion="rowsum", design=True)
    r2 = recovery(16, 0.6, 3, trials=4, seed=3, strategy="adaptive", criterion="rowsum", design=True)
    for k in r1:
        np.testing.assert_array_equal(r1[k], r2[k])
    assert (r1["distinct_pairs"] == 48).all()
    d = recovery(16, 0.6, 3, trials=4, seed=3, strategy="adaptive", design=True)
    assert not np.array_equal(d["tau_dense"], r1["tau_dense"])  # the criterion is honoured


def test_rowsum_reduction_against_an_explicit_linear_gaussian_model():
    """Each candidate's score recomputed from the model written out: the unknowns are the scores
    (covariance C / votes) and the noise of every unjudged judgment (variance p(1 − p) / votes); the
    wins difference w_k − w_l and the candidate's judgment are linear in them (gradients by finite
    differences), the variance of w_k − w_l, its covariance with the judgment, and the expected drop
    of the error probability by numerical integration (scipy.integrate.quad)."""
    from scipy.integrate import quad
    from scipy.stats import norm

    rng = np.random.default_rng(4)
    K, votes = 5, 3
    x = rng.normal(0, 1, K)
    a, b = np.array([0, 1, 2, 3]), np.array([1, 2, 3, 4])
    C = posterior_covariance(x[None], a[None], b[None])[0]
    judged = np.zeros((K, K), dtype=bool)
    judged[a, b] = judged[b, a] = True
    sig = lambda t: 1 / (1 + np.exp(-t))  # noqa: E731
    free = [(u, v) for u, v in zip(*np.triu_indices(K, 1), strict=True) if not judged[u, v]]
    # unknowns: x (K), then the noise of each free pair (u < v): y_uv = σ(x_u − x_v) + e_uv
    cov = np.zeros((K + len(free), K + len(free)))
    cov[:K, :K] = C / votes
    for n, (u, v) in enumerate(free):
        cov[K + n, K + n] = sig(x[u] - x[v]) * (1 - sig(x[u] - x[v])) / votes

    def grad(f):
        h = 1e-6
        return np.array([(f(x + h * np.eye(K)[m]) - f(x - h * np.eye(K)[m])) / (2 * h) for m in range(K)])

    def wins_coef(k):  # the unjudged part of w_k = Σ_j y_kj as a linear form in the unknowns
        g = grad(lambda z: sum(sig(z[k] - z[j]) for j in range(K) if j != k and not judged[k, j]))
        e = [1.0 if u == k else -1.0 if v == k else 0.0 for u, v in free]
        return np.concatenate([g, e])

    mu = np.array([sum(sig(x[k] - x[j]) for j in range(K) if j != k) for k in range(K)])
    ci, cj = (np.array(t) for t in zip(*free, strict=True))
    got = rowsum_reduction(x[None], C[None], judged[None], ci[None], cj[None], votes, reach=K)[0]
    for c, (u, v) in enumerate(free):
        y = np.concatenate([grad(lambda z, u=u, v=v: sig(z[u] - z[v])), np.eye(len(free))[c]])
        want = 0.0
        for k, m2 in zip(*np.triu_indices(K, 1), strict=True):
            d = wins_coef(k) - wins_coef(m2)
            s2 = d @ cov @ d
            delta = (d @ cov @ y) ** 2 / (y @ cov @ y)
            gap = abs(mu[k] - mu[m2])
            want += quad(lambda m, gap=gap, d=delta, s2n=s2 - delta: 2 * norm.pdf(0) / np.sqrt(s2n) * (-m)
                         * norm.pdf(m, gap, np.sqrt(d)), -np.inf, 0)[0]
        assert got[c] == pytest.approx(want, rel=1e-5, abs=1e-10)
    # y_vu = 1 − y_uv: the same information either way round
    rev = rowsum_reduction(x[None], C[None], judged[None], cj[None], ci[None], votes, reach=K)[0]
    np.testing.assert_allclose(rev, got, rtol=1e-12)
