"""A bound on the Kendall tau against the dense matrix that a design of m pairs can reach: the pair genie.

The setting is :func:`pref_eval.zelo.simulate.recovery`: truth x ~ N(0, sigma^2 I_K); the dense
matrix judges every pair once, y_kj = (votes for k among c)/c, each vote Bernoulli(sigma(x_k - x_j)),
independent given x; the target is the order of the dense Bradley–Terry fit, which is the order of
the win totals w_k = sum_j y_kj (equal totals get equal scores up to float noise;
``tests/test_zelo_ranking_bound.py``). A design reads m distinct judgments of that matrix (chosen
one by one or in batches, adaptively or not) and outputs a strict order (a_kl = its signs).

The argument, step by step, and how far each step is rigorous:

1. **tau as a sum over pairs** (rigorous). With s_kl = sign(w_k - w_l), N = K(K-1)/2, n_2 the pairs
   with equal totals and S the sum of a_kl s_kl over the other pairs, the measured tau_b is at most
   (S + n_2)/N: scipy's tau_b is S'/sqrt(N (N - e)) when e of the tied pairs have bit-equal fitted
   scores (S' adds the float-noise signs of the others, each <= 1), and S'/sqrt(N (N - e)) <=
   (S' + e/2)/N whenever |S'| <= N - e. Hence, with P+, P-, P0 the probabilities of w_k > w_l,
   w_k < w_l, w_k = w_l given the design's final information F (a is a function of F),

       E[tau] <= mean over pairs of E[h(F)],   h = |P+ - P-| + P0 = 1 - 2 min(P+, P-).

2. **a genie per pair** (rigorous). For the pair (k, l) give the estimator G, more than F: all other
   true scores x_-kl, every judgment outside rows k and l, and the judgment of (k, l) itself. h is a
   convex function of (P+, P-) and P(.|F) = E[P(.|G) | F], so E h(F) <= E h(G) by Jensen's inequality
   (more information never lowers the expected value of a convex function of the posterior:
   Blackwell, "Comparison of experiments", Proc. Second Berkeley Symposium, 1951). Given x_-kl the
   judgments outside rows k, l are independent of (x_k, x_l, rows k and l), so only rows k and l
   matter. The adaptivity of the design does not change the posterior: its choices are functions of
   what it has read, so given its history the law of (x, unread judgments) is the prior conditioned
   on the read values at the read pairs (the likelihood principle).

3. **logistic domination** (rigorous). A vote for k over j is 1[Z > 0] with Z = x_k - x_j + L, L
   standard logistic: the latent-variable form of Bradley–Terry (P(Z > 0) = sigma(x_k - x_j); the
   logistic counterpart of Thurstone's model). Observing Z is more informative than the vote, a
   function of Z (Blackwell, "Equivalent comparisons of experiments", Ann. Math. Statist. 24, 1953),
   and with x_j known Z + x_j = x_k + L is one logistic location observation of x_k whoever the
   opponent is. So after n_k judgments of row k the genie knows x_k through c n_k iid observations
   x_k + L: for the scores, the choice of opponents no longer matters.

4. **the budget** (rigorous when the numbers of judgments per document do not depend on the
   judgments read). sum over pairs of (D_k + D_l) = (K - 1) sum_k D_k = 2m(K - 1), D the degrees, so
   the mean over pairs of D_k + D_l is 4m/K (16 for m = 4K). With f(n_k, n_l) the genie's value at
   fixed budgets, g(b) its largest value over the splits n_k + n_l = b and g-hat the least concave
   majorant of g, the mean over pairs of f(D_k, D_l) is at most g-hat(4m/K) (Jensen).
   :func:`tau_bound` evaluates g at some budgets (the even split; at 4m/K also the uneven ones next to
   it) and bounds g between them by the next value (g is nondecreasing) and by 1 beyond the last.
   A design that gives more judgments to documents whose order is in doubt makes D depend on what it
   read; then "per pair at most f(D_k, D_l)" fails (stopping when the posterior is decisive beats a
   fixed sample size of the same mean) and this step is not proved.

5. **the revealed terms** (not rigorous). A judgment of (k, j) also reveals the term y_kj of w_k
   exactly, and an adaptive design chooses which terms it reveals. The genie reveals the terms of
   its n_k judgments under a stated rule (``reveal``): ``"none"`` (the judgments tell about the scores
   only), ``"random"`` (n_k random opponents), ``"nearest"`` (each judgment to the unjudged opponent
   nearest to the running estimate of x_k from the observations so far: a rule the genie can follow),
   ``"best"`` (the n_k opponents nearest to the *true* x_k: the largest variances p(1 - p) removed
   from the unrevealed sum, an oracle's choice) and ``"best2"`` (2 n_k of them, more than the budget
   can reveal). The supremum over the choices a design can make is at least the value of every
   rule it can follow (``random``, ``nearest``), so those columns are *lower* bounds on what any
   completion of this argument can give; ``best`` is the lead's proposal for its value, not proved.

What it shows is in docs/zelo_simulate-ranking-bounds.md ("A bound on τ itself?"), computed by
``bench/recovery_adaptive.py --tau-bound``.

Numerics: x_k and x_l on grids of ``grid`` points, truth +- 8 posterior standard deviations (the
weight on the grid's edges is reported and is below 1e-3); the joint posterior is the product of the
two rows' posteriors and the likelihood of the pair's own judgment; the unrevealed part of
c (w_k - w_l) given (x_k, x_l) is a sum of independent binomials, taken as normal with a continuity
correction (c (w_k - w_l) is an integer) or exactly (``exact=True``, by convolution: slower). Monte
Carlo over x, observations and matrix, seeded; the rules see the same draws.
"""
from __future__ import annotations

import numpy as np

from .. import libm
from ..seeds import stream_seed

REVEALS = ("none", "random", "nearest", "best", "best2")


def _log_logistic_pdf(z: np.ndarray) -> np.ndarray:
    """log of the standard logistic density e^-z / (1 + e^-z)^2."""
    a = np.abs(z)
    return -a - 2.0 * libm.log1p(libm.exp(-a))


def sum_pmf(p: np.ndarray, mask: np.ndarray, votes: int) -> np.ndarray:
    """pmf of T = sum over the last axis (the terms where ``mask``) of Binomial(votes, p): (..., votes n + 1)."""
    from scipy.special import comb

    n = p.shape[-1]
    s = np.arange(votes + 1)
    pm = comb(votes, s) * p[..., None] ** s * (1.0 - p[..., None]) ** (votes - s)
    out: np.ndarray = np.zeros(p.shape[:-1] + (votes * n + 1,))
    out[..., 0] = 1.0
    for j in range(n):
        new = np.zeros_like(out)
        for v in range(votes + 1):
            new[..., v:] += out[..., : out.shape[-1] - v] * pm[..., j, v][..., None]
        out = np.where(mask[..., j][..., None], new, out)
    return out


def row_posterior(center: np.ndarray, obs: np.ndarray, sigma: float, grid: int = 61,
                  width: float = 8.0) -> tuple[np.ndarray, np.ndarray]:
    """Grid and unnormalised log posterior of a score x ~ N(0, sigma^2) after the logistic location
    observations ``obs`` (B, n) of it (each x + L, L standard logistic):

        log p(a | obs) = -a^2 / (2 sigma^2) + sum_i log f(obs_i - a) + const,  f(z) = e^-z / (1 + e^-z)^2.

    The grid is ``center`` +- ``width`` posterior standard deviations (Fisher information n/3 of
    n observations plus 1/sigma^2), ``grid`` points; returns (a (B, grid), log posterior (B, grid)).
    """
    n = obs.shape[1]
    sd = 1.0 / np.sqrt(1.0 / sigma**2 + n / 3.0)
    a = center[:, None] + width * sd * np.linspace(-1.0, 1.0, grid)[None, :]
    lp = -0.5 * (a / sigma) ** 2
    if n:
        lp = lp + _log_logistic_pdf(obs[:, None, :] - a[:, :, None]).sum(axis=2)
    return a, lp


def row_terms(a: np.ndarray, opponents: np.ndarray, unrevealed: np.ndarray, votes: int,
              exact: bool = False) -> tuple[np.ndarray, np.ndarray] | np.ndarray:
    """The unrevealed terms of a row given its score on the grid ``a`` (B, G): each is Binomial(votes, p)
    with p = sigma(a - x_j), ``opponents`` (B, n) the x_j, ``unrevealed`` (n,) or (B, n) which terms.
    Returns (mean, variance) of their vote count T (each (B, G)), or with ``exact`` its pmf (B, G, votes n + 1)."""
    from scipy.special import expit

    if unrevealed.ndim == 1 and not exact:  # the same terms in every sample: only those are evaluated
        p = expit(a[:, :, None] - opponents[:, None, np.flatnonzero(unrevealed)])
        return p.sum(axis=2) * votes, (p * (1.0 - p)).sum(axis=2) * votes
    p = expit(a[:, :, None] - opponents[:, None, :])
    u = np.broadcast_to(unrevealed if unrevealed.ndim == 1 else unrevealed[:, None, :], p.shape)
    if exact:
        return sum_pmf(p, u, votes)
    return (p * u).sum(axis=2) * votes, (p * (1.0 - p) * u).sum(axis=2) * votes


def pair_probabilities(a_k: np.ndarray, lp_k: np.ndarray, a_l: np.ndarray, lp_l: np.ndarray, s_kl: np.ndarray,
                       C: np.ndarray, terms_k: tuple[np.ndarray, np.ndarray] | np.ndarray,
                       terms_l: tuple[np.ndarray, np.ndarray] | np.ndarray, votes: int, exact: bool = False,
                       scratch: np.ndarray | None = None) -> tuple:
    """(P+, P-, P0) = P(w_k > w_l), P(w_k < w_l), P(w_k = w_l) given the genie's information, per sample.

    The joint posterior of (x_k, x_l) on the grids is the product of the rows' posteriors (``lp``)
    and the likelihood of the pair's own judgment, ``s_kl`` of ``votes`` votes for k:
    sigma(a - b)^s_kl sigma(b - a)^(votes - s_kl). Given (x_k, x_l) = (a, b),
    votes (w_k - w_l) = C + T_k - T_l, C known (revealed terms and the pair's judgment), T the
    unrevealed vote counts (:func:`row_terms`): normal with a continuity correction
    (P+ = Phi((mu - 1/2)/s), P- = Phi((-1/2 - mu)/s)), or by their exact pmfs.
    ``scratch``: optional work space of shape (4, B, G_k, G_l) (or larger in B), reused across calls
    (fresh arrays of this size cost page faults on every call).
    """
    from scipy.special import ndtr

    shape = (len(s_kl), a_k.shape[1], a_l.shape[1])
    if scratch is None or scratch.shape[0] < 4 or scratch.shape[1] < shape[0] or scratch.shape[2:] != shape[1:]:
        scratch = np.empty((4, *shape))
    d, lw, mu, sd = (scratch[i, : shape[0]] for i in range(4))
    # s log sigma(d) + (votes - s) log sigma(-d) = s d + votes log sigma(-d)  (log sigma(d) - log sigma(-d) = d),
    # -log sigma(-d) = max(d, 0) + log1p(exp(-|d|))
    np.subtract(a_k[:, :, None], a_l[:, None, :], out=d)
    np.abs(d, out=lw)
    np.negative(lw, out=lw)
    lw[...] = libm.log1p(libm.exp(lw))
    lw += np.maximum(d, 0.0, out=mu)
    lw *= -float(votes)
    d *= s_kl[:, None, None]
    lw += d
    lw += lp_k[:, :, None]
    lw += lp_l[:, None, :]
    lw -= lw.max(axis=(1, 2), keepdims=True)
    lw[...] = libm.exp(lw)
    w = lw
    w /= w.sum(axis=(1, 2), keepdims=True)
    if exact:
        if not isinstance(terms_k, np.ndarray):  # row_terms(..., exact=True): the pmf array
            raise RuntimeError("internal error: exact row terms are not a pmf array")
        pk, cdf_l = terms_k, np.cumsum(terms_l, axis=2)  # pmf of T_k on k's grid; P(T_l <= u) on l's
        S = cdf_l.shape[2]
        tt = np.arange(pk.shape[2])

        def shifted(off):
            # P(T_l <= t + off) for every t: (B, G_l, support of T_k)
            idx = tt[None, :] + off[:, None]
            val = np.take_along_axis(cdf_l, np.clip(idx, 0, S - 1)[:, None, :].repeat(cdf_l.shape[1], 1), 2)
            return np.where(idx[:, None, :] < 0, 0.0, val)

        # P(T_k - T_l >= 1 - C) = sum_t pmf_k(t) P(T_l <= t + C - 1); P(T_k - T_l <= -1 - C) likewise
        Pp = np.einsum("bat,bct->bac", pk, shifted(C - 1))
        Pm = np.einsum("bat,bct->bac", pk, 1.0 - shifted(C))
        pp = (w * Pp).sum(axis=(1, 2))
        pm = (w * Pm).sum(axis=(1, 2))
    else:
        np.subtract((C[:, None] + terms_k[0])[:, :, None], terms_l[0][:, None, :], out=mu)
        np.add(terms_k[1][:, :, None], terms_l[1][:, None, :], out=sd)
        np.maximum(sd, 1e-18, out=sd)
        np.sqrt(sd, out=sd)
        np.subtract(mu, 0.5, out=d)  # P+ = Phi((mu - 1/2) / sd)
        d /= sd
        ndtr(d, out=d)
        d *= w
        pp = d.sum(axis=(1, 2))
        np.subtract(-0.5, mu, out=mu)  # P- = Phi((-1/2 - mu) / sd)
        mu /= sd
        ndtr(mu, out=mu)
        mu *= w
        pm = mu.sum(axis=(1, 2))
    edge = np.maximum(w[:, [0, -1], :].sum(axis=(1, 2)), w[:, :, [0, -1]].sum(axis=(1, 2)))
    return pp, pm, np.clip(1.0 - pp - pm, 0.0, 1.0), edge


def _reveal_order(reveal: str, x_row: np.ndarray, opponents: np.ndarray, obs: np.ndarray, sigma: float,
                  rng_perm: np.ndarray) -> np.ndarray:
    """The order in which a row's terms are revealed: (B, n opponents) indices into ``opponents``."""
    B, n = opponents.shape
    if reveal in ("best", "best2"):  # nearest to the true score: the largest p(1 - p), an oracle's choice
        return np.argsort(np.abs(x_row[:, None] - opponents), axis=1, kind="stable")
    if reveal in ("random", "none"):
        return rng_perm
    # "nearest": judgment i goes to the unrevealed opponent nearest to the running estimate of x from the
    # 3i observations so far (their mean shrunk to the prior: a function of what the genie knows)
    order = np.empty((B, n), dtype=np.int64)
    taken = np.zeros((B, n), dtype=bool)
    votes = obs.shape[1] // n if n else 1
    rows = np.arange(B)
    for i in range(n):
        seen = obs[:, : votes * i]
        est = seen.sum(axis=1) / (votes * i + (np.pi**2 / 3.0) / sigma**2)
        dist = np.where(taken, np.inf, np.abs(est[:, None] - opponents))
        j = np.argmin(dist, axis=1)
        order[:, i] = j
        taken[rows, j] = True
    return order


def pair_values(K: int, sigma: float, combos: list[tuple[int, int]], samples: int, *, seed: int = 0,
                votes: int = 3, reveal: str = "best", grid: int = 61, batch: int = 200,
                exact: bool = False) -> dict:
    """The genie's value h = |P+ - P-| + P0 for the pair (0, 1) at fixed budgets, per Monte Carlo sample.

    ``combos``: budgets (n_k, n_l), the judgments of row k and of row l besides the pair's own (which
    the genie gets free). ``reveal``: which terms the judgments reveal (module docstring, step 5).
    Returns ``h`` (samples, len(combos)), ``h_no_ties`` (|P+ - P-|: ties counted 0 instead of 1),
    ``p_tie`` (P0) and ``edge`` (the largest posterior weight on a grid edge: the grid holds the
    posterior when it is small). Seeded: the same arguments give the same numbers, and the rules see the same
    draws (scores, noise, the pair's judgment), so their differences are paired.
    """
    if reveal not in REVEALS:
        raise ValueError(f"unknown reveal rule {reveal!r}; expected one of {', '.join(REVEALS)}")
    if K < 3 or samples < 1 or votes < 1 or grid < 3 or not sigma > 0 or batch < 1:
        raise ValueError("need K >= 3, samples >= 1, votes >= 1, grid >= 3, sigma > 0, batch >= 1")
    combos = [(int(a), int(b)) for a, b in combos]
    if not combos or any(min(a, b) < 0 or max(a, b) > K - 2 for a, b in combos):
        raise ValueError(f"budgets must be within 0..{K - 2} judgments per row besides the pair's own")
    mult = 2 if reveal == "best2" else 1
    rng = np.random.default_rng(stream_seed(seed, K, int(round(sigma * 1000)), votes))  # the same draws for every rule
    nopp = K - 2
    H = np.empty((samples, len(combos)))
    H0 = np.empty_like(H)
    P0 = np.empty_like(H)
    edge = 0.0
    scratch = np.empty((4, min(batch, samples), grid, grid))  # pair_probabilities' work space, reused
    for start in range(0, samples, batch):
        B = min(batch, samples - start)
        x = rng.normal(0.0, sigma, (B, K))
        xo = x[:, 2:]  # the other documents' scores, known to the genie
        noise = rng.logistic(size=(2, B, votes * nopp))  # row r's i-th judgment: votes from noise[r, :, 3i:3i+3]
        s_kl = (x[:, 0:1] - x[:, 1:2] + rng.logistic(size=(B, votes)) > 0).sum(axis=1)  # votes for k over l
        perm = np.argsort(rng.random((2, B, nopp)), axis=2)
        states = []
        for r in (0, 1):
            obs = x[:, r : r + 1] + noise[r]  # x_r + L: what Z + x_j tells of x_r, whoever the opponent
            order = _reveal_order(reveal, x[:, r], xo, obs[:, : votes * nopp], sigma, perm[r])
            xo_ord = np.take_along_axis(xo, order, axis=1)
            # the i-th revealed term's votes are 1[Z > 0] with the same noise as the i-th observation
            vc = (obs.reshape(B, nopp, votes) - xo_ord[:, :, None] > 0).sum(axis=2)
            states.append((obs, xo_ord, vc))
        cache: dict[tuple[int, int], tuple] = {}
        for ci, (nk, nl) in enumerate(combos):
            row = []
            for r, n in ((0, nk), (1, nl)):
                if (r, n) not in cache:
                    obs, xo_ord, vc = states[r]
                    a, lp = row_posterior(x[:, r], obs[:, : votes * n], sigma, grid)
                    nrev = 0 if reveal == "none" else min(nopp, mult * n)
                    terms = row_terms(a, xo_ord, np.arange(nopp) >= nrev, votes, exact)
                    cache[(r, n)] = (a, lp, vc[:, :nrev].sum(axis=1), terms)
                row.append(cache[(r, n)])
            (ak, lpk, ck, tk), (al, lpl, cl, tl) = row
            C = ck - cl + 2 * s_kl - votes
            pp, pm, p0, e = pair_probabilities(ak, lpk, al, lpl, s_kl, C, tk, tl, votes, exact, scratch)
            edge = max(edge, float(e.max()))
            H0[start : start + B, ci] = np.abs(pp - pm)
            H[start : start + B, ci] = np.abs(pp - pm) + p0
            P0[start : start + B, ci] = p0
    return {"h": H, "h_no_ties": H0, "p_tie": P0, "edge": edge, "combos": combos}


def concave_majorant(budgets: list[int], values: np.ndarray, at: float) -> tuple[float, int, int, float]:
    """An upper bound on g-hat(at), the least concave majorant of a nondecreasing g <= 1, from its values
    at the integer ``budgets`` (sorted, starting at 0): between two computed budgets g is at most the next
    value, beyond the last it is at most 1. Returns (value, i, j, alpha): the chord alpha g_i + (1 - alpha) g_j
    (index len(budgets) stands for the point (last + 1, 1))."""
    b = [int(v) for v in budgets]
    if b != sorted(b) or b[0] != 0 or len(set(b)) != len(b):
        raise ValueError("budgets must be distinct, sorted, starting at 0")
    # points: (b_i, g_i); (b_{i-1} + 1, g_i) (g nondecreasing); (b_last + 1, 1)
    pts = [(float(b[i]), float(values[i]), i) for i in range(len(b))]
    pts += [(float(b[i - 1] + 1), float(values[i]), i) for i in range(1, len(b)) if b[i - 1] + 1 < b[i]]
    pts.append((float(b[-1] + 1), 1.0, len(b)))
    best = (-np.inf, -1, -1, 0.0)
    for u, gu, i in pts:
        for v, gv, j in pts:
            if u <= at <= v:
                alpha = 1.0 if v == u else (v - at) / (v - u)
                val = alpha * gu + (1 - alpha) * gv
                if val > best[0]:
                    best = (val, i, j, alpha)
    return best


def tau_bound(K: int, sigma: float, m: int, samples: int, *, seed: int = 0, votes: int = 3, reveal: str = "best",
              grid: int = 61, budgets: list[int] | None = None, splits: int = 4) -> dict:
    """The pair genie's bound on E[tau] for designs of ``m`` distinct pairs (module docstring), with its
    Monte Carlo standard error.

    g(b) is computed at the budgets ``budgets`` (default: the even ones up to 32, the odd ones within 3 of
    4m/K, and a few up to 2(K - 2)) with the split n_k = floor(b/2), n_l = b - n_k, and at b = 4m/K
    (rounded up) also at the ``splits`` uneven splits next to it (g there is the best split); the bound is
    :func:`concave_majorant` at 4m/K. Returns ``bound``, ``se``, ``g`` (the computed g), ``budgets``,
    ``at`` (4m/K), ``even`` (the even split's value at ``at``), ``p_tie`` (mean P0 there) and ``edge``.
    """
    at = 4.0 * m / K
    b0 = int(np.ceil(at))
    if budgets is None:
        wide = (2 * n for n in (20, 24, 32, 48, 64, 98) if n <= K - 2)
        near = (b for b in range(b0 - 3, b0 + 4) if 0 <= b <= 2 * (K - 2))
        budgets = [*range(0, 2 * min(K - 2, 16) + 1, 2), *near, *wide, 2 * (K - 2)]
    budgets = sorted({int(v) for v in budgets} | {0})
    if budgets[-1] > 2 * (K - 2) or b0 not in budgets:
        raise ValueError(f"budgets must be at most 2 (K - 2) and include 4m/K rounded up ({b0})")
    combos = [(v // 2, v - v // 2) for v in budgets]
    extra = [(b0 // 2 - d, b0 - b0 // 2 + d) for d in range(1, splits + 1)
             if b0 // 2 - d >= 0 and b0 - b0 // 2 + d <= K - 2]
    r = pair_values(K, sigma, combos + extra, samples, seed=seed, votes=votes, reveal=reveal, grid=grid)
    h = r["h"]
    g = h[:, : len(combos)].mean(axis=0)
    cols = list(range(len(combos)))
    i0 = budgets.index(b0)
    best = max([i0, *range(len(combos), len(combos) + len(extra))], key=lambda c: h[:, c].mean())
    cols[i0] = best
    g[i0] = h[:, best].mean()
    val, i, j, alpha = concave_majorant(budgets, g, at)
    col = lambda idx: np.ones(samples) if idx == len(budgets) else h[:, cols[idx]]  # noqa: E731
    per = alpha * col(i) + (1 - alpha) * col(j)
    return {"bound": float(val), "se": float(per.std(ddof=1) / np.sqrt(samples)), "g": g, "budgets": budgets,
            "at": at, "even": float(h[:, i0].mean()), "p_tie": float(r["p_tie"][:, i0].mean()), "edge": r["edge"]}
