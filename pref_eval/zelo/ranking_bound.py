"""How precisely can m comparisons rank K items? Cramér–Rao bounds for a design.

Model (Bradley–Terry): P(j beats i) = p_ij = sigma(x_j - x_i); a judgment of the pair is the mean of
``c`` votes, whose Fisher information about x_i - x_j is c p_ij (1 - p_ij) <= c/4. A design is a set
E of m distinct pairs, each judged once (a pair read twice reads the same judgment and adds nothing).
Its Fisher information matrix is the weighted Laplacian

    L = sum_{(i,j) in E} w_ij (e_i - e_j)(e_i - e_j)',    w_ij = c p_ij (1 - p_ij),

and by the Cramér–Rao inequality an unbiased estimate of x_i - x_j has variance at least
(e_i - e_j)' L^+ (e_i - e_j) = R_ij, the effective resistance between i and j in the network with
conductances w (Ghosh, Boyd & Saberi, "Minimizing effective resistance of a graph", SIAM Review
50(1), 2008; Shah et al., "Estimation from pairwise comparisons: sharp minimax bounds with
topology dependence", JMLR 17, 2016, build their Bradley–Terry lower bounds on the same Laplacian).

Two lower bounds that hold for *every* design with m pairs (adaptive or not), whatever the truth:

* **all pairs (A-optimality)** -- sum_{i<j} R_ij = K trace(L^+) = K sum_{k>=2} 1/mu_k (Klein &
  Randić, "Resistance distance", J. Math. Chem. 12, 1993), and by the inequality of arithmetic
  and harmonic means sum_{k>=2} 1/mu_k >= (K-1)^2 / trace(L), trace(L) = 2 sum w <= m c / 2:

      mean_{i<j} R_ij >= 4 (K - 1) / (m c).

* **adjacent pairs** -- for the K-1 pairs next to each other in any order (the pairs Kendall's
  tau is decided on). With d_i = sum_j w_ij (weighted degree), the edge (i, j) is in parallel
  with the rest of the network, R_ij = 1 / (w_ij + 1/R'_ij), and the stars of i and j without
  that edge are two disjoint cuts, so by Nash-Williams' inequality (Lyons & Peres, "Probability
  on Trees and Networks", 2016, Sec. 2.5) R'_ij >= 1/(d_i - w_ij) + 1/(d_j - w_ij) >= 1/d_i + 1/d_j.
  Hence R_ij >= g(d_i, d_j) = 1 / (c/4 + H(d_i, d_j)) with H(a, b) = ab/(a + b); g is jointly
  convex and decreasing, so by Jensen's inequality over the K-1 adjacent pairs (each mean
  degree <= sum_i d_i / (K-1) <= m c / (2 (K-1))):

      mean over adjacent pairs of R_ij >= 1 / (c/4 + m c / (4 (K - 1))).

* **pairs weighted by how uncertain their order is** -- with weights omega_ij = 4 p_ij (1 - p_ij)
  at the true scores (1 for equal items, -> 0 for pairs whose order is clear; Kendall's tau is
  lost on the former) and M = sum_{i<j} omega_ij (e_i - e_j)(e_i - e_j)' their Laplacian,
  sum_{i<j} omega_ij R_ij = trace(L^+ M), and by the Cauchy–Schwarz inequality
  trace(M^1/2) = trace(L^+1/2 M^1/2 L^1/2) <= sqrt(trace(L^+ M)) sqrt(trace(L)), so

      sum omega_ij R_ij / sum omega_ij >= trace(M^1/2)^2 / (m c/2) / sum omega_ij

  (the A-optimality bound of Pukelsheim, "Optimal Design of Experiments", 1993, Sec. 6, for the
  design "all the information trace(L) may carry, spread optimally"; with omega = 1 it is the
  all-pairs bound above).

:func:`design_variances` computes R for a given design (the achieved values the bounds are
compared with); :func:`mean_information` is E[p(1-p)] for a random pair when x ~ N(0, sigma^2).
"""
from __future__ import annotations

import numpy as np

from .. import libm


def adjacent_variance_bound(K: int, m: int, votes: int = 3) -> float:
    """Lower bound on the mean R_ij over the K-1 adjacent pairs of any order: 1/(c/4 + m c/(4(K-1)))."""
    if K < 2 or m < 1 or votes < 1:
        raise ValueError("need K >= 2, m >= 1, votes >= 1")
    return 1.0 / (votes / 4.0 + m * votes / (4.0 * (K - 1)))


def pair_variance_bound(K: int, m: int, votes: int = 3) -> float:
    """Lower bound on the mean R_ij over all K(K-1)/2 pairs: 4(K-1)/(m c)."""
    if K < 2 or m < 1 or votes < 1:
        raise ValueError("need K >= 2, m >= 1, votes >= 1")
    return 4.0 * (K - 1) / (m * votes)


def _laplacian(K: int, t: np.ndarray, i: np.ndarray, j: np.ndarray, w: np.ndarray, trials: int) -> np.ndarray:
    L = np.zeros((trials, K, K))
    np.add.at(L, (t, i, j), -w)
    np.add.at(L, (t, j, i), -w)
    np.add.at(L, (t, i, i), w)
    np.add.at(L, (t, j, j), w)
    return L


def _uncertainty_weights(truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(omega over the upper triangle (trials, K(K-1)/2), its Laplacian (trials, K, K))."""
    trials, K = truth.shape
    iu, ju = np.triu_indices(K, 1)
    p = 1.0 / (1.0 + libm.exp(truth[:, iu] - truth[:, ju]))
    om = 4.0 * p * (1.0 - p)
    t = np.repeat(np.arange(trials), len(iu))
    return om, _laplacian(K, t, np.tile(iu, trials), np.tile(ju, trials), om.ravel(), trials)


def weighted_variance_bound(truth: np.ndarray, m: int, votes: int = 3) -> np.ndarray:
    """Per trial of ``truth`` (trials, K): the lower bound trace(M^1/2)^2 / (m c/2) / sum omega on the
    omega-weighted mean R_ij of any design of ``m`` pairs (module docstring)."""
    truth = np.atleast_2d(np.asarray(truth, dtype=float))
    if m < 1 or votes < 1:
        raise ValueError("need m >= 1, votes >= 1")
    om, M = _uncertainty_weights(truth)
    ev = np.linalg.eigvalsh(M)
    ev = np.where(ev > 1e-12 * ev.max(axis=1, keepdims=True), ev, 0.0)  # the null vector 1 exactly 0
    return np.sqrt(ev).sum(axis=1) ** 2 / (m * votes / 2.0) / om.sum(axis=1)


def mean_information(sigma: float) -> float:
    """E[p(1-p)] with p = sigma(x_i - x_j) and x_i, x_j independent N(0, sigma^2): the integral of
    phi(d / s) / s * 1/(2 + e^d + e^-d) over d, s = sqrt(2) sigma (adaptive quadrature)."""
    from scipy import integrate

    if sigma < 0 or not np.isfinite(sigma):
        raise ValueError("sigma must be finite and >= 0")
    if sigma == 0:
        return 0.25
    s = np.sqrt(2.0) * sigma
    f = lambda d: float(libm.exp(-0.5 * (d / s) ** 2) / (s * np.sqrt(2 * np.pi))  # noqa: E731
                        / (2.0 + libm.exp(d) + libm.exp(-d)))
    return float(2.0 * integrate.quad(f, 0.0, 40.0 + 12.0 * s, epsabs=1e-13, epsrel=1e-11, limit=200)[0])


def design_variances(truth: np.ndarray, a: np.ndarray, b: np.ndarray, votes: int = 3) -> dict:
    """Achieved Cramér–Rao variances of designs: per trial, the mean R_ij over adjacent pairs of the
    true order (``adjacent``), over all pairs (``pairs``), weighted by omega (``weighted``), the
    number of distinct pairs (``m``) and the total Fisher information (``information``, sum of w
    over distinct pairs).

    ``truth`` is (trials, K); ``a``, ``b`` are (trials, n) judged pairs (repeats count once).
    A disconnected design has infinite variances.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    truth = np.asarray(truth, dtype=float)
    trials, K = truth.shape
    a = np.asarray(a, dtype=np.int64).reshape(trials, -1)
    b = np.asarray(b, dtype=np.int64).reshape(trials, -1)
    t = np.repeat(np.arange(trials), a.shape[1])
    lo, hi = np.minimum(a, b).ravel(), np.maximum(a, b).ravel()
    keep = lo != hi
    key = np.unique((t[keep] * K + lo[keep]) * K + hi[keep])
    t, i, j = key // (K * K), (key // K) % K, key % K
    p = 1.0 / (1.0 + libm.exp(-(truth[t, j] - truth[t, i])))
    w = votes * p * (1.0 - p)
    L = _laplacian(K, t, i, j, w, trials)
    connected = np.array([connected_components(coo_matrix((np.ones((t == r).sum()), (i[t == r], j[t == r])),
                                                          shape=(K, K)), directed=False)[0] == 1
                          for r in range(trials)])
    # L^+ = (L + 11'/K)^-1 - 11'/K for a connected design (the 11'/K part cancels in R);
    # a disconnected one gets L + I, only to keep the inverse finite (its R are set to inf below)
    c = connected[:, None, None]
    from ..blas import one_blas_thread

    with one_blas_thread():  # a batch of small inverses (pref_eval.blas)
        G = np.linalg.inv(L + np.where(c, 1.0 / K, 0.0) + np.where(c, 0.0, 1.0) * np.eye(K))
    diag = np.diagonal(G, axis1=1, axis2=2)
    R = diag[:, :, None] + diag[:, None, :] - 2.0 * G
    order = np.argsort(-truth, axis=1, kind="stable")
    rows = np.arange(trials)[:, None]
    adjacent = R[rows, order[:, :-1], order[:, 1:]].mean(axis=1)
    iu = np.triu_indices(K, 1)
    pairs = R[:, iu[0], iu[1]].mean(axis=1)
    om, _ = _uncertainty_weights(truth)
    weighted = (om * R[:, iu[0], iu[1]]).sum(axis=1) / om.sum(axis=1)
    for v in (adjacent, pairs, weighted):
        v[~connected] = np.inf
    return {"adjacent": adjacent, "pairs": pairs, "weighted": weighted, "m": np.bincount(t, minlength=trials),
            "information": np.bincount(t, weights=w, minlength=trials)}


def known_scores_wins(truth: np.ndarray, dense: np.ndarray, a: np.ndarray | None = None,
                      b: np.ndarray | None = None) -> np.ndarray:
    """Expected win totals of the complete matrix for an oracle that knows the true scores: (T, K).

    ``truth`` (T, K) true scores; ``dense`` (T, K, K) the complete judged matrix of
    :func:`pref_eval.zelo.simulate.recovery` (``dense[t, i, j]`` = judged P(j better than i));
    ``a``, ``b`` (T, m) the pairs whose judgments the oracle has read (None: none). With every pair
    judged once the Bradley–Terry fit orders the documents by their wins w_k = Σ_j y_kj (its score
    equations Σ_j σ(x_k − x_j) + prior (2σ(x_k) − 1) = w_k are increasing in x_k), so the dense fit's
    order is w's order; given x, the best prediction of w_k is

        E[w_k | x, read judgments] = Σ_{j read} y_kj + Σ_{j not read} σ(x_k − x_j).
    """
    truth = np.asarray(truth, dtype=float)
    T, K = truth.shape
    P = 1.0 / (1.0 + libm.exp(truth[:, None, :] - truth[:, :, None]))  # P[t, k, j] = σ(x_k − x_j)
    E = P.copy()
    if a is not None and b is not None:
        rows = np.arange(T)[:, None]
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        # y_kj (k beats j) = dense[t, j, k]
        E[rows, a, b] = dense[rows, b, a]
        E[rows, b, a] = dense[rows, a, b]
    E[:, np.arange(K), np.arange(K)] = 0.0
    return E.sum(axis=2)
