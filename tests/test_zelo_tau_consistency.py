"""The Pólya–Gamma genie's bound on E[tau] (pref_eval.zelo.tau_consistency) against outside oracles: the
Pólya–Gamma series and Laplace transform of Polson, Scott & Windle (2013), scipy's binomial pmf, direct
matrix algebra, quadrature and exact Bayes computations for K = 2 and K = 3 (an adaptive design), and
simulated designs."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import comb, expit, ndtr

from pref_eval.zelo import tau_consistency as tc

SMALL = {"n_mu": 161, "n_v": 30}  # a coarser grid for speed; its certificate is checked all the same


@pytest.mark.parametrize("psi", [0.0, 1e-8, 0.3, 1.0, 4.0, -2.5])
def test_pg_mean_is_the_series_mean(psi):
    # PG(b, c) = 1/(2 pi^2) sum_k g_k / ((k - 1/2)^2 + c^2/(4 pi^2)), g_k ~ Gamma(b, 1) (Polson et al. 2013, eq. 1)
    n = 200_000
    k = np.arange(1, n + 1)
    series = (1.0 / (2 * np.pi**2)) * (np.sum(1.0 / ((k - 0.5) ** 2 + psi**2 / (4 * np.pi**2))) + 1.0 / n)
    for votes in (1, 3):
        assert tc.pg_mean(psi, votes) == pytest.approx(votes * series, abs=1e-8)
        assert tc.pg_mean(psi, votes) <= votes / 4 + 1e-15


def test_pg_augmentation_gives_the_votes_likelihood():
    # C(c, s) 2^-c e^(kappa psi) E[exp(-omega psi^2/2)], omega ~ PG(c, 0), E[exp(-omega t)] = cosh(sqrt(t/2))^-c
    c = 3
    for psi in (-2.0, -0.4, 0.0, 0.7, 3.0):
        for s in range(c + 1):
            aug = comb(c, s) * 2.0**-c * np.exp((s - c / 2) * psi) / np.cosh(psi / 2) ** c
            assert aug == pytest.approx(stats.binom.pmf(s, c, expit(psi)), rel=1e-12)
    # the Laplace transform itself, by sampling the series (truncated at 400 terms: omega a little too small)
    rng = np.random.default_rng(0)
    kk = np.arange(1, 401)
    w = (rng.gamma(c, 1.0, (20_000, kk.size)) / (kk - 0.5) ** 2).sum(axis=1) / (2 * np.pi**2)
    for psi in (0.5, 1.5):
        mc = np.exp(-w * psi**2 / 2)
        assert abs(mc.mean() - np.cosh(psi / 2) ** -c) < 4 * mc.std() / np.sqrt(w.size) + 2e-3


def test_pair_budget_identity_and_cauchy_schwarz():
    # mean over pairs of u'Ju = 2/sigma^2 + 4W/(K - 1) exactly, and u'J^-1 u >= 4/u'Ju, on random weighted designs
    rng = np.random.default_rng(1)
    K, sigma = 9, 0.8
    for _ in range(5):
        J = np.eye(K) / sigma**2
        W = 0.0
        for i, j in itertools.combinations(range(K), 2):
            if rng.random() < 0.4:
                w = rng.gamma(2.0, 0.3)
                u = np.zeros(K)
                u[i], u[j] = 1, -1
                J += w * np.outer(u, u)
                W += w
        S = np.linalg.inv(J)
        iota, v = [], []
        for i, j in itertools.combinations(range(K), 2):
            u = np.zeros(K)
            u[i], u[j] = 1, -1
            iota.append(u @ J @ u)
            v.append(u @ S @ u)
        assert np.mean(iota) == pytest.approx(2 / sigma**2 + 4 * W / (K - 1), rel=1e-12)
        assert np.all(np.array(v) >= 4 / np.array(iota) - 1e-12)
    assert tc.pair_budget(100, 400, 0.6) == pytest.approx((2 / 0.36 + 1200 / 99) / 4)


def test_gaussian_value_by_monte_carlo():
    rng = np.random.default_rng(2)
    mu = rng.normal(0, np.sqrt(0.72 - 0.2), 400_000)
    mc = np.abs(2 * ndtr(mu / np.sqrt(0.2)) - 1)
    assert tc.gaussian_value(0.72, 0.2) == pytest.approx(mc.mean(), abs=4 * mc.std() / np.sqrt(mu.size))
    assert tc.gaussian_value(0.72, 0.72) == 0.0


def test_lp_without_information_is_zero_and_grows_with_the_budget():
    # budget 1/v_max forces v = v_max = the prior's variance, hence mu = 0 and h = 0
    assert tc.consistency_lp(0.72, 1 / 0.72, 0.72)["bound"] < 0.05
    b = [tc.consistency_lp(0.72, beta, 0.72, **SMALL)["bound"] for beta in (2.0, 4.0, 8.0)]
    assert b[0] < b[1] < b[2] < 1.0


@pytest.mark.parametrize("beta", [2.0, pytest.param(5.0, marks=pytest.mark.slow)])
def test_lp_is_at_least_every_fixed_gaussian_design(beta):
    """beta = 2 in the suite; beta = 5 (4 s) is marked slow (``pytest -m slow`` runs both)."""
    # the law mu ~ N(0, P - 1/beta), v = 1/beta is feasible: Psi >= its value; and value <= bound
    r = tc.consistency_lp(0.72, beta, 0.72, primal=True)
    fixed = tc.gaussian_value(0.72, 1 / beta)
    assert r["bound"] >= r["value"] - 1e-9
    assert r["value"] >= fixed - 0.01  # the primal's grid holds the Gaussian law only approximately
    assert r["bound"] >= fixed
    assert r["violation"] < 0.01  # the certificate is nearly feasible everywhere it is checked


def _bayes_k2(sigma: float, votes: int) -> float:
    """E|P(Delta > 0 | s) - P(Delta < 0 | s)| for one judgment of the only pair, by quadrature."""
    sd = np.sqrt(2) * sigma
    tot = 0.0
    for s in range(votes + 1):
        def f(d, s=s):
            return np.sign(d) * stats.binom.pmf(s, votes, expit(d)) * stats.norm.pdf(d, 0, sd)
        tot += abs(integrate.quad(f, -12 * sd, 0)[0] + integrate.quad(f, 0, 12 * sd)[0])
    return tot


@pytest.mark.parametrize("sigma,votes", [(0.6, 3), (1.5, 3), pytest.param(0.6, 40, marks=pytest.mark.slow)])  # s30
def test_bound_holds_for_the_exact_bayes_value_k2(sigma, votes):
    exact = _bayes_k2(sigma, votes)
    bound = tc.truth_tau_bound(2, sigma, 1, votes=votes, **SMALL)["bound"]
    assert exact <= bound
    assert bound < 1.0


def test_bound_holds_for_an_adaptive_design_k3_by_enumeration():
    # K = 3, sigma = 0.8, 3 votes: read (0, 1); if 0 won at least 2 votes read (0, 2), else (1, 2).
    # Bayes-optimal E[tau against the truth] = mean over pairs of E|P+ - P-|, on a grid over x
    # (61 points per axis: within 1e-3 of 81).
    from conftest import bayes_tau_k3

    sigma, c = 0.8, 3
    adaptive, full = bayes_tau_k3(sigma, c)
    assert adaptive <= tc.truth_tau_bound(3, sigma, 2, votes=c, **SMALL)["bound"]
    # and the non-adaptive reading of all three pairs, m = 3
    assert adaptive < full <= tc.truth_tau_bound(3, sigma, 3, votes=c, **SMALL)["bound"]


def test_bound_is_above_simulated_random_cycles():
    from pref_eval.zelo.simulate import recovery

    K, sigma = 25, 0.6
    for cycles in (4, 8):
        r = recovery(K, sigma, cycles, 20, seed=0)
        bound = tc.truth_tau_bound(K, sigma, cycles * K, **SMALL)["bound"]
        assert float(r["tau_truth"].mean()) < bound


def test_surrogate_terms_and_refusals():
    t = tc.surrogate_terms(50, 0.6, 16)
    e = tc.mean_pq(0.6)
    assert e == pytest.approx(np.mean(expit(d := np.random.default_rng(3).normal(0, 0.6 * np.sqrt(2), 400_000))
                                      * expit(-d)), abs=1e-3)
    assert t["scale"] == pytest.approx(((48 - 8) * e + 0.5) ** 2)
    assert t["noise_var"] == pytest.approx((96 - 16 + 4) * e / 3)
    with pytest.raises(ValueError):
        tc.surrogate_terms(10, 0.6, 17)
    with pytest.raises(ValueError):
        tc.consistency_lp(0.72, 1.0, 0.72)  # budget below 1/v_max
    with pytest.raises(ValueError):
        tc.consistency_lp(0.72, 4.0, 0.8)  # posterior variance above the prior's
    with pytest.raises(ValueError):
        tc.pair_budget(1, 4, 0.6)


def _bench(*args):
    import subprocess
    import sys

    from conftest import ROOT

    return subprocess.run([sys.executable, str(ROOT / "bench" / "recovery_adaptive.py"), *args],
                          capture_output=True, text=True, check=True, cwd=ROOT).stdout


@pytest.mark.slow  # 9-17 s: the suite stays near 5 minutes; CI runs -m slow
def test_bench_tau_lp_reduced():
    out = _bench("--tau-lp", "--trials", "3", "--K", "25", "--sigma", "0.6")
    rows = [r for r in out.splitlines() if r.startswith("| 25 | 0.6 |")]
    assert len(rows) == 1
    cells = rows[0].strip(" |").split(" | ")
    assert len(cells) == 8 and cells[4] in ("not excluded", "**excluded**")
    bound, value = float(cells[3].split()[0]), float(cells[3].split(" / ")[1])
    assert all(float(v) < bound for v in cells[2].split(" / "))  # the designs' tau against the truth
    assert bound - 0.01 < value <= bound


@pytest.mark.slow
def test_docs_tau_lp_table_is_the_bench_output(recovery_bench):
    """The K = 25 rows of the Pólya–Gamma genie's table in docs/zelo_simulate-ranking-bounds.md are the bench's
    (run in this
    process by ``recovery_bench``, tests/conftest.py: the simulations are the recovery tables' K = 25 rows')."""
    import re

    from conftest import ROOT, assert_rows_close

    doc = (ROOT / "docs" / "zelo_simulate-ranking-bounds.md").read_text()
    block = doc.split("<!-- recovery-tau-lp:begin -->\n")[1].split("<!-- recovery-tau-lp:end -->")[0]
    m = re.search(r"--tau-lp --trials (\d+) --seed (\d+)", block)
    assert m
    out = recovery_bench("--tau-lp", "--trials", m[1], "--seed", m[2], "--K", "25")
    old = [r for r in block.splitlines() if r.startswith("| 25 |")]
    new = [r for r in out.splitlines() if r.startswith("| 25 |")]
    assert len(old) == 3
    assert_rows_close([r.replace("(", "").replace(")", "") for r in old],
                      [r.replace("(", "").replace(")", "") for r in new], r" \| | / | ")
