"""A bound on E[tau] that does not give away the other scores: the Pólya–Gamma genie and Bayes consistency.

Setting (as :mod:`pref_eval.zelo.tau_bound`): truth x ~ N(0, sigma^2 I_K); a judgment of the pair (i, j) is
``votes`` votes, each Bernoulli(sigma(x_i - x_j)) given x; a design reads m distinct judgments, chosen one
by one or in batches, adaptively or not, and outputs a strict order (a_kl its signs).

**The bound on E[tau against the true order]** (every step rigorous):

1. *tau as a sum over pairs.* With a strict order and no ties in x, tau_b = tau_a = mean over pairs of
   a_kl s_kl, s_kl = sign(x_k - x_l); given the design's information F, E[a s | F] <= |P+ - P-|, so
   E[tau] <= mean over pairs of E |P(Delta > 0 | F) - P(Delta < 0 | F)|, Delta = x_k - x_l.
2. *The Pólya–Gamma genie.* For a judgment with s of c votes and psi = x_i - x_j,
   sigma(psi)^s sigma(-psi)^(c - s) = 2^-c e^(kappa psi) E[exp(-omega psi^2 / 2)], kappa = s - c/2,
   omega ~ PG(c, 0) (Polson, Scott & Windle, "Bayesian inference for logistic models using Pólya–Gamma
   latent variables", JASA 108, 2013, Theorem 1). Draw, for every judgment read, omega ~ PG(c, psi)
   independently of the votes given x (the joint law of (s, omega) given x is
   2^-c e^(kappa psi - omega psi^2 / 2) p(omega | PG(c, 0)), whose omega-marginal is the votes' law), and
   give the omegas to a genie G besides F. Given G the likelihood is exp(kappa psi - omega psi^2 / 2) per
   judgment, Gaussian in x, so the posterior is exactly N(mu, Sigma), Sigma^-1 = J = I/sigma^2 + sum
   omega_t u_t u_t' (u_t = e_i - e_j) -- also for adaptive designs, whose choices are functions of what
   they read (the likelihood principle). |P+ - P-| is convex in the posterior and P(.|F) = E[P(.|G) | F], so
   E|P+ - P-|(F) <= E|P+ - P-|(G) = E|2 Phi(mu_kl / sqrt(v_kl)) - 1|, mu_kl, v_kl the posterior mean and
   variance of Delta (Blackwell, "Comparison of experiments", 1951). Unlike the logistic domination of
   :mod:`pref_eval.zelo.tau_bound` (1/3 per vote), a Pólya–Gamma variable carries
   E[omega | psi] = c tanh(psi/2) / (2 psi) <= c/4, the Bernoulli vote's own Fisher information at psi = 0.
3. *Bayes consistency.* For every pair, the mixture over G of N(mu_kl, v_kl) is the prior N(0, 2 sigma^2)
   (the posterior averages to the prior), and v_kl <= 2 sigma^2 (J >= I / sigma^2).
4. *A precision budget.* By Cauchy–Schwarz, v_kl = u'J^-1 u >= (u'u)^2 / u'Ju = 4 / iota_kl with
   iota_kl = 2/sigma^2 + d_k + d_l + 2 omega_kl (d the omega-weighted degrees). Summed over the pairs the
   omegas count 2K times, so the mean over pairs of iota is 2/sigma^2 + 4W/(K - 1), W the sum of the
   omegas read, and E[W] <= m c/4 (each judgment's omega has mean <= c/4 given the design's past and x,
   whatever the choice). Hence the mean over pairs of E[1/v_kl] is at most
   b = (2/sigma^2 + m c/(K - 1)) / 4 (:func:`pair_budget`).
5. *A linear programme per pair.* Psi(beta) = the largest E|2 Phi(mu / sqrt v) - 1| over the laws of
   (mu, v) that satisfy 3 and E[1/v] <= beta. Each pair's law is feasible at beta_kl = E[1/v_kl], Psi is
   concave and nondecreasing (the value of a linear programme in its right-hand side), so
   E[tau] <= mean Psi(beta_kl) <= Psi(mean beta_kl) <= Psi(b) (Jensen).

:func:`consistency_lp` imposes the consistency through finitely many smooth test functions (fewer
constraints: a larger value, still a bound) and bounds the programme by its dual: multipliers (y, z >= 0)
with y_0 + sum_t y_t E[g_t | mu, v] + z/v >= h(mu, v) for every (mu, v) give E h <= y_0 + sum_t y_t E[g_t]
+ z b for every feasible law. The multipliers are found on a grid and checked on a finer, wider one; the
largest violation is added (a numerical certificate: checked on a grid, not proved between its points).

**What this does not give** (why the true order, and why no cell of #16 is excluded). The goal of #16 is
the order of the dense matrix's win totals w, not of x. w_k - w_l = revealed terms + unrevealed terms: the
revealed terms are judgments the design has read, and how many of them a pair has (D_k + D_l, 16 on average
for m = 4K) is the design's choice; no step above controls that. :func:`dense_surrogate` computes the same
programme in a linear-Gaussian surrogate of the totals -- w_k - w_l ~ a Delta + noise, a = (K - 2) e + 1/2
with e = E[p(1 - p)] at the prior, each unrevealed term a Gaussian of variance e/c, the revealed ones known
and carrying D/2 of each row's slope -- which is *not* a bound in the model (the linearisation and the
Gaussian terms are not proved); it says what this route could give if those steps were.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np


def pg_mean(psi: np.ndarray | float, votes: int = 1) -> np.ndarray:
    """E[omega] for omega ~ PG(votes, psi): votes tanh(psi/2) / (2 psi), votes/4 at psi = 0 (Polson et al. 2013);
    the C library's ``tanh`` (:mod:`pref_eval.libm`: numpy's own differs in last bits by CPU kind)."""
    from ..libm import tanh

    psi = np.abs(np.asarray(psi, dtype=float))
    small = psi < 1e-6
    safe = np.where(small, 1.0, psi)
    return votes * np.where(small, 0.25 - psi**2 / 48.0, tanh(safe / 2.0) / (2.0 * safe))


def pair_budget(K: int, m: int, sigma: float, votes: int = 3) -> float:
    """Upper bound on the mean over pairs of E[1/v_kl] for any design of m judgments (module docstring, step 4):
    (2/sigma^2 + m votes/(K - 1)) / 4."""
    if K < 2 or m < 0 or votes < 1 or not sigma > 0:
        raise ValueError("need K >= 2, m >= 0, votes >= 1, sigma > 0")
    return (2.0 / sigma**2 + m * votes / (K - 1)) / 4.0


def _h(mu: np.ndarray, var: np.ndarray) -> np.ndarray:
    from scipy.special import ndtr

    return np.abs(2.0 * ndtr(mu / np.sqrt(var)) - 1.0)


def consistency_lp(prior_var: float, budget: float, v_max: float, *, scale: float = 1.0, noise_var: float = 0.0,
                   n_mu: int = 481, n_v: int = 60, n_t: int = 41, smooth: float = 0.1, box: float = 5.0,
                   primal: bool = False) -> dict:
    """An upper bound on Psi(budget): the largest E|2 Phi(mu / sqrt(s)) - 1|, s = scale v + noise_var, over laws
    of (mu, v) with v in (0, v_max], E[1/v] <= budget, and the mixture of N(mu, s) equal to N(0, prior_var)
    (module docstring, step 5; with scale 1 and no noise the target is the sign of Delta ~ N(0, prior_var)).

    The consistency is imposed through ``n_t`` test functions g_t(X) = Phi((t - X)/r), t evenly in +-4 sd,
    r = ``smooth`` sd: E[g_t | mu, s] = Phi((t - mu)/sqrt(s + r^2)), and under the prior Phi(t/sqrt(prior_var +
    r^2)) (fewer constraints than the whole law: a larger value, still a bound). The bound is the dual:
    multipliers y_0, y_t (|y_t| <= ``box``), z >= 0 with y_0 + sum_t y_t Phi((t - mu)/sqrt(s + r^2)) + z/v >= h
    on a grid of ``n_mu`` x ``n_v`` points (mu in +-8 sd, v from 1/(500 budget) to v_max), minimising
    y_0 + sum_t y_t E_prior[g_t] + z budget; any such multipliers bound E h for every feasible law. The dual
    constraint is then checked on a grid twice as fine over mu in +-12 sd and v down to 1/(5000 budget), at
    |mu| -> infinity, and below that v against h <= 1 (each test term is monotone in v); its largest violation
    (``violation``) is added (``bound``): a numerical certificate, checked on a grid, not between its points.
    With ``primal`` also ``value`` and ``atoms`` (mu, v, weight > 1e-4): the optimum over laws on a coarser grid
    (121 x 40) that meet the same constraints. The programme's own optimum lies between ``value`` and
    ``bound``, so no argument from these constraints alone can prove less than ``value``.
    """
    from scipy.optimize import linprog
    from scipy.special import ndtr

    if not (prior_var > 0 and v_max > 0 and scale > 0 and noise_var >= 0 and smooth > 0 and box > 0):
        raise ValueError("need prior_var, v_max, scale, smooth, box > 0 and noise_var >= 0")
    if scale * v_max + noise_var > prior_var * (1 + 1e-12):
        raise ValueError("the posterior variance cannot exceed the prior's: need scale v_max + noise_var <= prior_var")
    if budget < 1.0 / v_max:
        raise ValueError(f"budget {budget} is below 1/v_max = {1.0 / v_max}: no law is feasible")
    if min(n_mu, n_v, n_t) < 3:
        raise ValueError("need n_mu, n_v, n_t >= 3")
    sd = float(np.sqrt(prior_var))
    r2 = (smooth * sd) ** 2
    ts = np.linspace(-4 * sd, 4 * sd, n_t)
    rhs = np.concatenate([[1.0], ndtr(ts / np.sqrt(prior_var + r2)), [budget]])

    def tests(mu: np.ndarray, v: np.ndarray) -> np.ndarray:
        return ndtr((ts[None, :] - mu[:, None]) / np.sqrt(scale * v + noise_var + r2)[:, None])

    v_min = 1.0 / (500.0 * budget)
    M, V = (g.ravel() for g in np.meshgrid(np.linspace(-8 * sd, 8 * sd, n_mu), np.geomspace(v_min, v_max, n_v),
                                           indexing="ij"))
    G = np.hstack([np.ones((M.size, 1)), tests(M, V), (1.0 / V)[:, None]])
    res = linprog(rhs, A_ub=-G, b_ub=-_h(M, scale * V + noise_var), bounds=[(None, None), *[(-box, box)] * n_t,
                  (0, None)], method="highs")
    if res.status != 0:
        raise RuntimeError(f"linear programme failed: {res.message}")
    x = res.x
    fm = np.linspace(-12 * sd, 12 * sd, 3 * (n_mu - 1) + 1)
    worst = -np.inf
    for v in np.geomspace(v_min / 10.0, v_max, 3 * n_v):
        vv = np.full_like(fm, v)
        f = x[0] + tests(fm, vv) @ x[1:-1] + x[-1] / v
        worst = max(worst, float(np.max(_h(fm, scale * vv + noise_var) - f)),
                    1.0 - (x[0] + x[-1] / v), 1.0 - (x[0] + x[1:-1].sum() + x[-1] / v))  # |mu| -> infinity
    # v in (0, v_c), v_c = v_min/10, below the checked range: h <= 1, z/v >= z/v_c, and each term y_t Phi((t - mu) /
    # sqrt(scale v + noise_var + r^2)) is monotone in v, so at least the smaller of its values at v = 0 and v = v_c
    v_c = v_min / 10.0
    lo = np.minimum(tests(fm, np.zeros_like(fm)) * x[1:-1], tests(fm, np.full_like(fm, v_c)) * x[1:-1]).sum(axis=1)
    worst = max(worst, float(np.max(1.0 - (x[0] + lo + x[-1] / v_c))))
    out = {"bound": float(res.fun) + max(worst, 0.0), "dual": float(res.fun), "violation": worst,
           "multipliers": x}
    if primal:
        pm, pv = (g.ravel() for g in np.meshgrid(np.linspace(-5 * sd, 5 * sd, 121), np.geomspace(v_min * 10, v_max, 40),
                                                 indexing="ij"))
        a_eq = np.vstack([np.ones_like(pm), tests(pm, pv).T])
        p = linprog(-_h(pm, scale * pv + noise_var), A_ub=(1.0 / pv)[None, :], b_ub=[budget], A_eq=a_eq,
                    b_eq=rhs[:-1], bounds=(0, None), method="highs")
        if p.status != 0:
            raise RuntimeError(f"linear programme failed: {p.message}")
        keep = p.x > 1e-4
        out["value"] = float(-p.fun)
        out["atoms"] = np.column_stack([pm[keep], pv[keep], p.x[keep]])
    return out


def truth_tau_bound(K: int, sigma: float, m: int, votes: int = 3, **grid: Any) -> dict:
    """Upper bound on E[tau_b against the true order] for any design of m distinct judgments of ``votes`` votes and
    any estimator with a strict order (module docstring): :func:`consistency_lp` at prior variance 2 sigma^2 and
    the budget of :func:`pair_budget`. Returns its dict with ``budget``."""
    b = pair_budget(K, m, sigma, votes)
    out = consistency_lp(2 * sigma**2, b, 2 * sigma**2, **grid)
    out["budget"] = b
    return out


def gaussian_value(prior_var: float, var: float) -> float:
    """E|2 Phi(mu / sqrt(var)) - 1| for mu ~ N(0, prior_var - var), by quadrature: the value of a fixed
    posterior variance (a Gaussian design whose posterior variance does not depend on what it read)."""
    from scipy import integrate
    from scipy.special import ndtr

    if not 0 < var <= prior_var:
        raise ValueError("need 0 < var <= prior_var")
    q = prior_var - var
    if q <= 0:
        return 0.0
    sq = np.sqrt(q)

    def f(z: float) -> float:
        return abs(2.0 * ndtr(sq * z / np.sqrt(var)) - 1.0) * math.exp(-z * z / 2.0) / np.sqrt(2.0 * np.pi)

    return float(2.0 * integrate.quad(f, 0.0, 12.0, limit=200)[0])


def mean_pq(sigma: float) -> float:
    """e = E[p(1 - p)] with p = sigma(x_i - x_j), x_i - x_j ~ N(0, 2 sigma^2) (Gauss–Hermite, 80 nodes)."""
    from scipy.special import expit

    z, w = np.polynomial.hermite_e.hermegauss(80)
    p = expit(np.sqrt(2.0) * sigma * z)
    return float((w * p * (1 - p)).sum() / w.sum())


def surrogate_terms(K: int, sigma: float, revealed: float, votes: int = 3) -> dict:
    """The linear-Gaussian surrogate of w_k - w_l (module docstring; not a bound): slope a = (K - 2) e + 1/2,
    prior variance a^2 2 sigma^2 + (2(K - 2) + 4) e / votes; with ``revealed`` = D_k + D_l terms read, the
    unrevealed slope a_u = (K - 2 - D/2) e + 1/2 and noise (2(K - 2) - D + 4) e / votes."""
    e = mean_pq(sigma)
    n = K - 2
    if not 0 <= revealed <= 2 * n:
        raise ValueError(f"revealed must be within 0..{2 * n}")
    a = n * e + 0.5
    return {"prior_var": a * a * 2 * sigma**2 + (2 * n + 4) * e / votes, "scale": ((n - revealed / 2) * e + 0.5) ** 2,
            "noise_var": (2 * n - revealed + 4) * e / votes}


def dense_surrogate(K: int, sigma: float, m: int, votes: int = 3, **grid: Any) -> dict:
    """The programme of :func:`consistency_lp` for the dense totals in the linear-Gaussian surrogate, each pair
    with the mean 4m/K revealed terms (module docstring): *not* a bound in the model. Also ``uniform``, the
    value of a design whose pair variance is everywhere the harmonic-mean floor 1/budget (:func:`gaussian_value`
    in the surrogate): what the same precision gives without allocating it pair by pair."""
    b = pair_budget(K, m, sigma, votes)
    t = surrogate_terms(K, sigma, min(4.0 * m / K, 2.0 * (K - 2)), votes)
    v_max = min(2 * sigma**2, (t["prior_var"] - t["noise_var"]) / t["scale"])
    out = consistency_lp(t["prior_var"], b, v_max, scale=t["scale"], noise_var=t["noise_var"], **grid)
    out["uniform"] = gaussian_value(t["prior_var"], t["scale"] / b + t["noise_var"])
    out["budget"] = b
    return out
