"""The document-state programme's bound on E[tau against the true order] (pref_eval.zelo.tau_documents) against
outside oracles: matrix algebra on random designs (the Schur-complement and derivative steps), quadrature (the
hinge means), exact enumeration of the randomised rounding, exact Bayes values for K = 2 and an adaptive K = 3
design, simulated random cycles, and the certificate recomputed from perturbed multipliers."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit, ndtr

from pref_eval.zelo import tau_documents as td

pytest.importorskip("scs")

TINY = {"n_mu": 7, "n_alpha": 4, "n_t": 9}


def test_schur_step_and_the_pair_term_on_random_designs():
    # v_kl >= 1/(alpha_k + omega_kl) + 1/(alpha_l + omega_kl) (step 3), and step 4's derivative bound
    rng = np.random.default_rng(0)
    K, sigma = 8, 0.7
    for _ in range(6):
        J = np.eye(K) / sigma**2
        for i, j in itertools.combinations(range(K), 2):
            if rng.random() < 0.5:
                w = rng.gamma(2.0, 0.4)
                J[i, i] += w
                J[j, j] += w
                J[i, j] -= w
                J[j, i] -= w
        S = np.linalg.inv(J)
        for k, l in itertools.combinations(range(K), 2):
            a, b, w = J[k, k], J[l, l], -J[k, l]
            v = S[k, k] + S[l, l] - 2 * S[k, l]
            assert v >= 1 / (a + w) + 1 / (b + w) - 1e-12
            for d in (0.0, 0.1, 0.4, 1.5):
                assert (td.h_value(d, 1 / (a + w) + 1 / (b + w))
                        <= td.h_value(d, 1 / a + 1 / b) + td.PHI1 * w * (1 / a + 1 / b) + 1e-12)
    assert td.PHI1 == pytest.approx(max(stats.norm.pdf(z) * z for z in np.linspace(0, 4, 40001)), abs=1e-9)


def test_hinge_mean_by_quadrature_and_monotone():
    for mu, var, t in ((0.3, 0.2, 0.0), (-1.0, 0.05, 0.4), (2.0, 1.0, -0.5), (0.1, 0.0, 0.0)):
        if var > 0:
            q = integrate.quad(lambda x: max(x - t, 0.0) * stats.norm.pdf(x, mu, np.sqrt(var)), -20, 20,
                               points=[t], limit=200)[0]
        else:
            q = max(mu - t, 0.0)
        assert td.hinge_mean(mu, var, t) == pytest.approx(q, abs=1e-9)
    m = np.linspace(-2, 2, 50)
    assert np.all(np.diff(td.hinge_mean(m, 0.3, 0.2)) > 0)
    assert np.all(np.diff(td.hinge_mean(0.2, np.linspace(0, 1, 50), 0.5)) > 0)


def test_randomised_rounding_step_by_exact_enumeration():
    # h(d) <= E h(rounded d) + phi(1) delta^2 / (2 V), each mu rounded to a neighbour with its mean kept
    rng = np.random.default_rng(1)
    delta = 0.3
    for _ in range(300):
        mk, ml, V = rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(0.01, 1.0)
        exp = 0.0
        outs = []
        for m in (mk, ml):
            lo = np.floor(m / delta) * delta
            p = (m - lo) / delta
            outs.append(((lo, 1 - p), (lo + delta, p)))
        for (a, pa), (b, pb) in itertools.product(*outs):
            exp += pa * pb * td.h_value(a - b, V)
        assert td.h_value(mk - ml, V) <= exp + td.PHI1 * delta**2 / (2 * V) + 1e-12


def test_certificate_rests_on_numpy_not_on_the_solver():
    P = td.states(10, 0.6, 40, **TINY)
    r = td.solve(P)
    assert r["status"] == "solved"
    assert r["bound"] >= r["value"] - 1e-6
    assert r["bound"] - r["value"] < 1e-3
    C, mats, b, n_eq = td.constraint_matrices(P)
    # any feasible point is below the bound: independent documents with the solver's marginal law
    p1 = np.clip(r["P1"], 0, None)
    p1 /= p1.sum()
    if np.all(P["A"] @ p1 <= P["b"] + 1e-9):
        X = np.zeros_like(C)
        X[0, 0] = 1
        X[1:, 0] = X[0, 1:] = p1
        X[1:, 1:] = np.outer(p1, p1) * (P["K"] - 1) / P["K"] + np.diag(p1) / P["K"]
        assert np.sum(C * X) <= r["bound"] + 1e-9
    # worse multipliers give a valid, larger bound; dropping the semidefinite part still certifies something
    rng = np.random.default_rng(2)
    y = np.concatenate([rng.normal(0, 1, n_eq), rng.uniform(0, 1, len(mats) - n_eq)])
    assert td.certify(C, mats, b, n_eq, y)["bound"] >= r["bound"] - 1e-6


def _bayes_k2(sigma: float, votes: int) -> float:
    sd = np.sqrt(2) * sigma
    tot = 0.0
    for s in range(votes + 1):
        def f(d, s=s):
            return np.sign(d) * stats.binom.pmf(s, votes, expit(d)) * stats.norm.pdf(d, 0, sd)
        tot += abs(integrate.quad(f, -12 * sd, 0)[0] + integrate.quad(f, 0, 12 * sd)[0])
    return tot


@pytest.mark.parametrize("sigma", [0.6, 1.5])
def test_bound_holds_for_the_exact_bayes_value_k2(sigma):
    exact = _bayes_k2(sigma, 3)
    r = td.document_bound(2, sigma, 1, **TINY)
    assert exact <= r["bound"]


def test_bound_holds_for_an_adaptive_design_k3_by_enumeration():
    # K = 3, sigma = 0.8: read (0, 1); if 0 won at least 2 of 3 votes read (0, 2), else (1, 2)
    sigma, c = 0.8, 3
    g = np.linspace(-5 * sigma, 5 * sigma, 61)
    X = np.stack(np.meshgrid(g, g, g, indexing="ij"), axis=-1).reshape(-1, 3)
    prior = stats.norm.pdf(X, 0, sigma).prod(axis=1)
    prior /= prior.sum()
    pairs = ((0, 1), (0, 2), (1, 2))
    sign = {p: np.sign(X[:, p[0]] - X[:, p[1]]) for p in pairs}
    lik = {(p, s): stats.binom.pmf(s, c, expit(X[:, p[0]] - X[:, p[1]])) for p in pairs for s in range(c + 1)}

    def value(w):
        return sum(abs(np.sum(w * sign[p])) for p in pairs) / 3

    adaptive = sum(value(prior * lik[(0, 1), s1] * lik[(0, 2) if s1 >= 2 else (1, 2), s2])
                   for s1 in range(c + 1) for s2 in range(c + 1))
    assert adaptive <= td.document_bound(3, sigma, 2, votes=c, **TINY)["bound"]


def test_grid_laws_lie_between_independent_documents_and_the_bound():
    K, sigma, m = 10, 0.6, 40
    ind = td.independent_value(K, sigma, m, **TINY)
    g = td.grid_value(K, sigma, m, **TINY)
    b = td.document_bound(K, sigma, m, **TINY)
    assert ind <= g["value"] + 1e-4  # independent documents are one of the laws the programme allows
    assert g["value"] <= b["bound"] + 1e-6  # a law on the grid points is one the cells cover
    assert g["bound"] >= g["value"] - 1e-6


def test_bound_is_above_simulated_random_cycles():
    from pref_eval.zelo.simulate import recovery

    K, sigma = 10, 0.6
    for cycles in (4, 8):
        r = recovery(K, sigma, cycles, 20, seed=0)
        assert float(r["tau_truth"].mean()) < td.document_bound(K, sigma, cycles * K, **TINY)["bound"]


def test_refusals():
    with pytest.raises(ValueError):
        td.states(10, 0.6, 40, n_mu=1)
    with pytest.raises(ValueError):
        td.states(10, 0.6, 40, alphas=[1.5, 2.0])  # alpha >= 1/sigma^2 always: the grid starts at 1
    with pytest.raises(ValueError):
        td.budget(1, 4, 0.6)
    assert td.budget(50, 200, 0.6) == pytest.approx(1 / 0.36 + 6)
    assert td.h_value(0.0, 0.0) == 0.0 and td.h_value(0.1, 0.0) == 1.0
    assert td.h_value(0.3, 0.2) == pytest.approx(2 * ndtr(0.3 / np.sqrt(0.2)) - 1)
