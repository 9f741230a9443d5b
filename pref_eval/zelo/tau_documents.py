"""A bound on E[tau against the true order] over *document* states: the programme whose pair law is a mixture
of product laws, relaxed to a semidefinite programme.

Setting (as :mod:`pref_eval.zelo.tau_consistency`): truth x ~ N(0, sigma^2 I_K); a judgment of (i, j) is ``votes``
Bernoulli(sigma(x_i - x_j)) votes; a design reads m judgments, chosen one by one or in batches, adaptively or not,
and outputs a strict order. Steps 1-2 of that module (tau as a sum over pairs; the Pólya–Gamma genie G, whose
posterior is exactly N(mu, J^-1), J = I/sigma^2 + sum omega_t u_t u_t') give, for every design and estimator,

    E[tau_b against the true order] <= mean over pairs k < l of E h(mu_k - mu_l, v_kl),
    h(d, v) = |2 Phi(d / sqrt v) - 1|,  v_kl = (e_k - e_l)' J^-1 (e_k - e_l).

That module then relaxed each pair on its own (a law of (mu_kl, v_kl) per pair), which lets precision be aimed
at single pairs. Here the relaxation keeps that a pair's two posteriors are those of two *documents* of the same
realisation:

3. *Document states* (rigorous). Let alpha_k = J_kk = 1/sigma^2 + d_k (d_k the omega-weighted degree of k) and
   omega_kl the omegas of the pair's own judgments. The marginal posterior covariance of (x_k, x_l) is the inverse
   of a Schur complement of J, which is <= the 2 x 2 block J_SS = [[alpha_k, -omega_kl], [-omega_kl, alpha_l]]
   <= diag(alpha_k + omega_kl, alpha_l + omega_kl) (the difference omega [[1, 1], [1, 1]] is positive
   semidefinite). Hence v_kl >= V(omega_kl), V(w) = 1/(alpha_k + w) + 1/(alpha_l + w), and h decreases in v.
4. *The pair's own judgments* (rigorous). |dh/dv| = phi(z) |z| / v <= phi(1) / v (z = d / sqrt v), and
   |V'(w)| / V(w) <= max(1/(alpha_k + w), 1/(alpha_l + w)) <= 1/alpha_k + 1/alpha_l, so
   h(d, V(omega)) <= h(d, 1/alpha_k + 1/alpha_l) + phi(1) omega_kl (1/alpha_k + 1/alpha_l); summed over the pairs
   the last terms are phi(1) sum_k d_k / alpha_k = phi(1) sum_k (1 - 1/(sigma^2 alpha_k)): a document term.
5. *Constraints on a document's state* (rigorous). The posteriors average to the prior: the mixture over G and k
   of N(mu_k, Sigma_kk) is N(0, sigma^2), and Sigma_kk >= 1/alpha_k, so the mixture of N(mu_k, 1/alpha_k) is
   smaller in the convex order than N(0, sigma^2) (a Gaussian with a smaller variance is a mean-preserving
   contraction): E (mu_k + Z/sqrt(alpha_k) - t)_+ <= E (X - t)_+ and the same for (t - .)_+ for every t, and
   E[mu_k^2 + 1/alpha_k] <= sigma^2. The budget: the mean of alpha_k is 1/sigma^2 + 2W/K with E[W] <= m votes/4
   (each omega has mean <= votes/4 whatever was chosen), so E[mean alpha] <= beta = 1/sigma^2 + m votes/(2K).
6. *Grid* (rigorous). mu and alpha are rounded at random to their neighbouring grid points, independently per
   document and keeping their means (mu first given alpha's rounding: alpha, then mu); values beyond the grid go to
   cells (|mu| > R: h <= 1 with anything; alpha above the top point: alpha = inf in the objective, the top point in
   the budget). Costs, each checked by exact enumeration in the tests:
   - mu, objective: with hbar(y) = 2 Phi(y / sqrt V) - 1 (odd, smooth, h = |hbar| >= hbar,
     |hbar''| <= 2 phi(1)/V), h(d) >= h(d0) + hbar'(d0)(d - d0) - phi(1)(d - d0)^2/V for d0 >= 0, so
     h(d0) <= E h(rounded d) + phi(1) delta^2/(2V) (the rounding error of d has mean 0 and variance <= delta^2/2).
     Where that cost is >= 1 the pair counts h <= 1 instead (a choice by the rounded alphas only; capping the
     bound at 1 inside the expectation would not be a bound).
   - alpha, objective: f(alpha_k, alpha_l) = g(1/alpha_k + 1/alpha_l), g(v) = h(d, v), |g'| <= phi(1)/v,
     g'' >= -C3/(2 v^2) (C3 = max phi(z) z (z^2 - 3) = 0.1496), v >= 1/alpha: the Hessian is >= -(C3 + 2 phi(1))
     diag(1/alpha^2), so f <= E f(rounded) + (C3 + 2 phi(1))(rho_k + rho_l)/2, rho = (a_(j+1) - a_j)^2/(4 a_j^2)
     for the interval [a_j, a_(j+1)] (the largest of the two next to a grid point): a document term.
   - constraints: a hinge mean is convex and 1-Lipschitz in mu with second derivative <= 1/sqrt(2 pi var), and
     convex in alpha with second derivative <= 3 phi(0)/4 a_j^-5/2; 1/alpha is convex (chord gap
     (a_j^-1/2 - a_(j+1)^-1/2)^2); mu^2 rises by the rounding's variance <= delta^2/4. Each grid state's coefficient
     is lowered by these amounts, so the rounded law still meets every constraint; the budget is linear in alpha
     and exact.
7. *Exchangeable documents, relaxed* (rigorous). Let q be the empirical law of the K documents' rounded states
   in a realisation. The law of the states of a random pair of distinct documents is (K E[q q'] - diag E[q])/(K - 1),
   and with P1 = E[q], P2 = E[q q']: P2 >= 0, P2 1 = P1, diag P2 >= P1/K (each q_s is 0 or >= 1/K) and
   P2 - P1 P1' = Cov(q) is positive semidefinite. The exact set of (P1, P2) (mixtures of q q') is replaced by
   these constraints: the semidefinite programme

       maximise   K/(K - 1) <H, P2> + sum_s (lin_s - H_ss/(K - 1)) P1_s
       subject to X = [[1, P1'], [P1, P2]] >= 0 (semidefinite), X >= 0 (entrywise), P2 1 = P1,
                  diag P2 >= P1/K, A P1 <= b (step 5),

   whose optimum bounds E[tau against the true order] for every design of m judgments and every estimator.

The programme is solved by SCS (O'Donoghue, Chu, Parikh & Boyd, "Conic optimization via operator splitting and
homogeneous self-dual embedding", JOTA 169, 2016; an optional dependency) and its bound does not rest on the
solver's word: for multipliers y (those of the inequalities clipped at 0) and S = sum y_i A_i - C, any split
S = Z + N with N >= 0 entrywise gives <C, X> <= b'y - <Z, X> <= b'y + 2 max(0, -lambda_min(Z)) for every feasible
X (trace X <= 2), checked in numpy (:func:`certify`).

With ``envelope=False`` the states are the grid points themselves (no cells): that programme is *not* a bound; its
optimum is the value of laws that meet every constraint above, so no argument from these constraints can prove
less than it (as ``value`` in :func:`pref_eval.zelo.tau_consistency.consistency_lp`). :func:`independent_value`
gives the same for independent documents on a finer grid.

What it does not give: the dense fit's order (the goal of #16) needs the revealed terms of the win totals, which
no step above controls (see :mod:`pref_eval.zelo.tau_consistency`).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import libm

PHI1 = math.exp(-0.5) / math.sqrt(2.0 * math.pi)  # max_z phi(z)|z| = phi(1)


def h_value(d: np.ndarray | float, v: np.ndarray | float) -> np.ndarray:
    """h(d, v) = |2 Phi(d / sqrt v) - 1|, with h(d, 0) = 1 for d != 0 and h(0, 0) = 0."""
    from scipy.special import ndtr

    d = np.abs(np.asarray(d, dtype=float))
    v = np.asarray(v, dtype=float)
    pos = v > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(pos, d / np.sqrt(np.where(pos, v, 1.0)), np.where(d > 0, np.inf, 0.0))
    return 2.0 * ndtr(z) - 1.0


def hinge_mean(mu: np.ndarray | float, var: np.ndarray | float, t: float) -> np.ndarray:
    """E (mu + sqrt(var) Z - t)_+ for Z ~ N(0, 1): (mu - t) Phi(z) + sd phi(z), z = (mu - t)/sd; (mu - t)_+ at var 0.
    Increases with mu and with var."""
    from scipy.special import ndtr

    mu = np.asarray(mu, dtype=float)
    sd = np.sqrt(np.asarray(var, dtype=float))
    d = mu - t
    pos = sd > 0
    s = np.where(pos, sd, 1.0)
    with np.errstate(invalid="ignore", over="ignore"):
        z = np.where(np.isfinite(d), d / s, np.sign(d) * np.inf)
        phi = libm.exp(-0.5 * np.minimum(z * z, 1e300)) / np.sqrt(2.0 * np.pi)
        val = np.where(np.isfinite(d), d * ndtr(z) + s * phi, np.where(d > 0, np.inf, 0.0))
    return np.where(pos, val, np.maximum(d, 0.0))


def budget(K: int, m: int, sigma: float, votes: int = 3) -> float:
    """beta = 1/sigma^2 + m votes/(2K): the bound on E[mean over documents of alpha_k] (module docstring, step 5)."""
    if K < 2 or m < 0 or votes < 1 or not sigma > 0:
        raise ValueError("need K >= 2, m >= 0, votes >= 1, sigma > 0")
    return 1.0 / sigma**2 + m * votes / (2.0 * K)


def _c3() -> float:
    """max over z >= sqrt 3 of phi(z) z (z^2 - 3) (about 0.149), on a fine grid plus a margin above its error."""
    z = np.linspace(np.sqrt(3.0), 8.0, 200_001)
    return float(np.max(libm.exp(-z * z / 2) / np.sqrt(2 * np.pi) * z * (z * z - 3))) + 1e-6


def states(K: int, sigma: float, m: int, votes: int = 3, *, n_mu: int = 21, mu_range: float | None = None,
           n_alpha: int = 9, alpha_top: float = 15.0, alphas: np.ndarray | None = None, n_t: int = 21,
           envelope: bool = True) -> dict:
    """The finite programme's data (module docstring, steps 3-6): ``H`` (pair objective), ``lin`` (document
    objective), ``A``, ``b`` (A P1 <= b: the budget, the hinges at ``n_t`` points in +-3 sigma and the second
    moment), ``K``, the states ``mu_lo``, ``mu_hi`` (equal for a grid point), ``alpha``, the alpha rounding's
    ``rho`` (its cost to a pair is (C3 + 2 phi(1)) (rho_k + rho_l)/2, in ``lin``) and the ``grid`` (mu, alpha).

    mu: ``n_mu`` grid points evenly in +-``mu_range`` (default 3.5 sigma) plus, with ``envelope``, an outer cell on
    each side; alpha: the geometric grid 1/sigma^2 .. ``alpha_top``/sigma^2 of ``n_alpha`` points (``alphas``: the
    grid in units of 1/sigma^2 instead, from 1) plus, with ``envelope``, a top cell above it (alpha = inf in the
    objective, the top grid point in the budget). With ``envelope`` the grid points are the targets of the
    randomised rounding of step 6, whose costs are added; with ``envelope=False`` each state is a grid point and
    nothing is added: not a bound.
    """
    if min(n_mu, n_alpha) < 2 or n_t < 1 or alpha_top <= 1 or K < 2:
        raise ValueError("need n_mu, n_alpha >= 2, n_t >= 1, alpha_top > 1, K >= 2")
    s2 = sigma**2
    R = 3.5 * sigma if mu_range is None else float(mu_range)
    if not R > 0:
        raise ValueError("mu_range must be > 0")
    c = np.linspace(-R, R, n_mu)
    delta = c[1] - c[0]
    a = np.geomspace(1.0, alpha_top, n_alpha) if alphas is None else np.asarray(alphas, dtype=float)
    if a.ndim != 1 or a.size < 2 or a[0] != 1.0 or np.any(np.diff(a) <= 0):
        raise ValueError("alphas must increase from 1 (alpha >= 1/sigma^2 always)")
    a = a / s2
    # per alpha grid point, the largest over its two neighbouring intervals [a_j, a_j+1] of: rho = Var/a_j^2 of the
    # rounding, the chord gap of 1/alpha, and the hinge mean's rise (its second derivative in alpha is at most
    # 3 phi(0)/4 a_j^-5/2); the top cell is not rounded
    da = np.diff(a)
    per = np.stack([da**2 / (4 * a[:-1] ** 2), (1 / np.sqrt(a[:-1]) - 1 / np.sqrt(a[1:])) ** 2,
                    0.5 * 3 / (4 * np.sqrt(2 * np.pi)) * a[:-1] ** -2.5 * da**2 / 4])
    adj = np.maximum(np.concatenate([per, np.zeros((3, 1))], axis=1), np.concatenate([np.zeros((3, 1)), per], axis=1))
    if envelope:
        inner = np.concatenate([[False], np.ones(n_mu, bool), [False]])
        mu_lo = np.concatenate([[-np.inf], c, [R]])
        mu_hi = np.concatenate([[-R], c, [np.inf]])
        alpha = np.append(a, np.inf)
        a_budget = np.append(a, a[-1])
        rho, gap, arise = (np.append(x, 0.0) for x in adj)
    else:
        inner = np.ones(n_mu, bool)
        mu_lo = mu_hi = c
        alpha = a_budget = a
        rho = gap = arise = np.zeros(a.size)
    im, ia = (g.ravel() for g in np.meshgrid(np.arange(mu_lo.size), np.arange(alpha.size), indexing="ij"))
    lo, hi, al, ab, inn = mu_lo[im], mu_hi[im], alpha[ia], a_budget[ia], inner[im]
    var = 1.0 / al
    V = var[:, None] + var[None, :]
    both = inn[:, None] & inn[None, :]
    d = np.where(both, np.where(inn, lo, 0.0)[:, None] - np.where(inn, lo, 0.0)[None, :], np.inf)
    if envelope:
        # step 6: h <= E h(rounded) + phi(1) E(rounding error of d)^2 / V with E(..)^2 <= delta^2/2 (not capped at 1:
        # the mean of a capped bound is not a bound); where that cost is 1 or more, the bound h <= 1 instead
        corr = PHI1 * delta**2 / (2.0 * np.where(V > 0, V, 1.0))
        use = both & (V > 0) & (corr < 1.0)
        H = np.where(use, h_value(d, V) + np.where(use, corr, 0.0), 1.0)
    else:
        H = np.where(both, h_value(d, V), 1.0)
    # step 4's term, the alpha rounding's cost to it (chord gap of 1/alpha) and to the objective ((C3 + 2 phi(1)) rho)
    lin = PHI1 * 2.0 / (K - 1) * (1.0 - var / s2 + gap[ia] / s2) + (_c3() + 2 * PHI1) * rho[ia]
    # a hinge's mean is convex in mu with second derivative <= 1/sqrt(2 pi var) and 1-Lipschitz: rounding mu raises
    # it by at most min(delta/2, delta^2/(8 sqrt(2 pi var))) on average; rounding alpha by at most ``arise``
    with np.errstate(divide="ignore"):
        mslack = np.minimum(delta / 2.0, np.where(var > 0, delta**2 / (8.0 * np.sqrt(2 * np.pi * np.where(
            var > 0, var, 1.0))), np.inf))
    slack = (np.where(inn, mslack, 0.0) + arise[ia]) if envelope else np.zeros(lo.size)
    rows, rhs = [ab], [budget(K, m, sigma, votes)]
    for t in np.linspace(-3 * sigma, 3 * sigma, n_t):
        rows.append(hinge_mean(lo, var, t) - slack)
        rhs.append(float(hinge_mean(0.0, s2, t)))
        rows.append(hinge_mean(-hi, var, -t) - slack)
        rhs.append(float(hinge_mean(0.0, s2, -t)))
    low_abs = np.where((lo <= 0) & (hi >= 0), 0.0, np.minimum(np.abs(lo), np.abs(hi)))
    rows.append(low_abs**2 + var - (np.where(inn, delta**2 / 4.0, 0.0) + gap[ia]) * envelope)
    rhs.append(s2)
    return {"H": H, "lin": lin, "A": np.array(rows), "b": np.array(rhs), "K": K, "mu_lo": lo, "mu_hi": hi,
            "alpha": al, "rho": rho[ia], "grid": (c, a)}


def _svec(W: np.ndarray) -> np.ndarray:
    """SCS's vectorisation of a symmetric matrix: the lower triangle column by column, off-diagonals times sqrt 2
    (so <W, X> = svec(W) . svec(X))."""
    n = W.shape[0]
    r, c = np.tril_indices(n)
    order = np.lexsort((r, c))
    r, c = r[order], c[order]
    return W[r, c] * np.where(r == c, 1.0, np.sqrt(2.0))


def _smat(x: np.ndarray, n: int) -> np.ndarray:
    r, c = np.tril_indices(n)
    order = np.lexsort((r, c))
    r, c = r[order], c[order]
    W = np.zeros((n, n))
    W[r, c] = x / np.where(r == c, 1.0, np.sqrt(2.0))
    W[c, r] = W[r, c]
    return W


def constraint_matrices(P: dict) -> tuple[np.ndarray, list[np.ndarray], np.ndarray, int]:
    """The programme of step 7 in the form max <C, X> s.t. <A_i, X> = b_i (the first ``n_eq``), <A_i, X> <= b_i
    (the rest), X >= 0 entrywise, X semidefinite. Returns (C, [A_i], b, n_eq), all matrices symmetric (n+1)^2."""
    H, lin, K = P["H"], P["lin"], P["K"]
    n = H.shape[0]
    N = n + 1

    def sym(M: np.ndarray) -> np.ndarray:
        return (M + M.T) / 2.0

    C = np.zeros((N, N))
    C[1:, 1:] = H * K / (K - 1)
    C[1:, 0] = (lin - np.diag(H) / (K - 1)) / 2.0
    C[0, 1:] = C[1:, 0]
    mats, b = [], []
    M = np.zeros((N, N))
    M[0, 0] = 1.0
    mats.append(M)
    b.append(1.0)
    for s in range(n):
        M = np.zeros((N, N))
        M[s + 1, 1:] = 1.0
        M[s + 1, 0] = -1.0
        mats.append(sym(M))
        b.append(0.0)
    n_eq = len(mats)
    for row, rhs in zip(P["A"], P["b"], strict=True):
        M = np.zeros((N, N))
        M[1:, 0] = row
        mats.append(sym(M))
        b.append(float(rhs))
    for s in range(n):
        M = np.zeros((N, N))
        M[s + 1, 0] = 1.0 / K
        M[s + 1, s + 1] = -1.0
        mats.append(sym(M))
        b.append(0.0)
    return C, mats, np.array(b), n_eq


def certify(C: np.ndarray, mats: list[np.ndarray], b: np.ndarray, n_eq: int, y: np.ndarray,
            Z: np.ndarray | None = None) -> dict:
    """A bound on max <C, X> over the programme of :func:`constraint_matrices` from multipliers ``y`` (one per
    constraint; those of the inequalities are clipped at 0) and, optionally, a semidefinite part ``Z`` of the slack:
    S = sum y_i A_i - C, N = max(S - Z, 0) entrywise (Z = 0 without one), Z' = S - N; since every feasible X is
    semidefinite and entrywise nonnegative with trace <= 2, <C, X> <= b'y - <Z', X> - <N, X> <= b'y + 2 max(0,
    -lambda_min(Z')). Returns ``bound``, ``dual`` (b'y) and ``lambda_min``. Pure numpy: the solver is not trusted."""
    y = np.asarray(y, dtype=float).copy()
    y[n_eq:] = np.maximum(y[n_eq:], 0.0)
    S = -C.copy()
    for yi, M in zip(y, mats, strict=True):
        if yi != 0.0:
            S += yi * M
    Zs = np.zeros_like(S) if Z is None else Z
    Zp = S - np.maximum(S - Zs, 0.0)
    lam = float(np.linalg.eigvalsh(Zp)[0])
    # eigvalsh is backward stable: allow N * eps * norm for its rounding
    lam -= Zp.shape[0] * np.finfo(float).eps * float(np.abs(Zp).sum())
    dual = float(b @ y)
    return {"bound": dual + 2.0 * max(0.0, -lam), "dual": dual, "lambda_min": lam}


def solve(P: dict, *, eps: float = 1e-6, max_iters: int = 100_000) -> dict:
    """Solve the programme of :func:`constraint_matrices` with SCS and certify it (:func:`certify`): ``bound``
    (certified), ``value`` (the solver's primal objective: its laws meet the constraints to ``eps``), ``status``,
    ``P1`` and ``P2``."""
    import scipy.sparse as sp

    try:
        import scs
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise RuntimeError("the document-state programme needs the optional package scs (pip install scs)") from e
    C, mats, b, n_eq = constraint_matrices(P)
    N = C.shape[0]
    nv = N * (N + 1) // 2
    A_rows = sp.csr_matrix(np.array([_svec(M) for M in mats]))
    eye = sp.identity(nv, format="csr")
    A = sp.vstack([A_rows, -eye, -eye]).tocsc()
    rhs = np.concatenate([b, np.zeros(2 * nv)])
    cone = {"z": n_eq, "l": len(mats) - n_eq + nv, "s": [N]}
    solver = scs.SCS({"A": A, "b": rhs, "c": -_svec(C)}, cone, eps_abs=eps, eps_rel=eps, max_iters=max_iters,
                     verbose=False)
    sol = solver.solve()
    y = sol["y"]
    Z = _smat(y[len(mats) + nv:], N)
    cert = certify(C, mats, b, n_eq, y[:len(mats)], Z)
    X = _smat(sol["x"], N)
    return {**cert, "value": float(np.sum(C * X)), "status": sol["info"]["status"], "P1": X[1:, 0], "P2": X[1:, 1:]}


def document_bound(K: int, sigma: float, m: int, votes: int = 3, **grid: Any) -> dict:
    """Upper bound on E[tau_b against the true order] for any design of m judgments and any estimator with a strict
    order (module docstring): :func:`solve` on :func:`states` with cells (``envelope=True``). ``grid``: the
    keyword arguments of :func:`states` and ``eps``."""
    eps = grid.pop("eps", 1e-6)
    return solve(states(K, sigma, m, votes, envelope=True, **grid), eps=eps)


def grid_value(K: int, sigma: float, m: int, votes: int = 3, **grid: Any) -> dict:
    """The programme with grid points for states (``envelope=False``): ``value`` is attained (to the solver's
    tolerance) by laws that meet every constraint, so no argument from these constraints proves less. Not a
    bound."""
    eps = grid.pop("eps", 1e-6)
    return solve(states(K, sigma, m, votes, envelope=False, **grid), eps=eps)


def independent_value(K: int, sigma: float, m: int, votes: int = 3, *, iters: int = 300, **grid: Any) -> float:
    """The largest mean pair objective of *independent* documents with a common law on the grid points that meets
    the constraints of step 5 (P2 = E[q q'] of independent draws is feasible for step 7), by Frank–Wolfe with
    HiGHS for the linear steps: a value the relaxation reaches (its optimum is at least this), not a bound."""
    from scipy.optimize import linprog

    P = states(K, sigma, m, votes, envelope=False, **grid)
    H, lin, A, b = P["H"], P["lin"], P["A"], P["b"]
    n = H.shape[0]
    eq = np.ones((1, n))

    def best(g: np.ndarray) -> np.ndarray:
        r = linprog(-g, A_ub=A, b_ub=b, A_eq=eq, b_eq=[1.0], bounds=(0, None), method="highs")
        if r.status != 0:
            raise RuntimeError(f"linear programme failed: {r.message}")
        return r.x

    p = best(lin)
    for _ in range(iters):
        g = 2.0 * H @ p + lin
        d = best(g) - p
        gap = float(g @ d)
        if gap < 1e-9:
            break
        q = float(d @ H @ d)
        p = p + (1.0 if q >= 0 else min(1.0, -gap / (2.0 * q))) * d
    return float(p @ H @ p + lin @ p)
