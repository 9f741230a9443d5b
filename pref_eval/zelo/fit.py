"""Exact Bradley-Terry fit of pairwise judgments, vectorised over queries.

Model (Bradley & Terry 1952; zbench's "zELO"): per query, document i has a
score x_i on the natural-log scale and P(i beats j) = sigma(x_i - x_j).
From judgments (A, B, s, w) -- s in [0, 1] with 1 = B better, w a weight --
the win matrix is W[b, a] += w*s, W[a, b] += w*(1 - s), and the
log-likelihood is

    l(x) = sum_{i != j} W[i, j] * log sigma(x_i - x_j).

Two estimators:

* ``prior > 0`` (default 0.5): maximum a posteriori with a weak prior of
  *virtual games*: every document plays a virtual reference document of
  score 0 and is credited ``prior`` wins and ``prior`` losses against it,
  i.e. adds ``prior * (log sigma(x_i) + log sigma(-x_i))``. The objective is
  strictly concave, so every document -- also one that wins or loses every
  comparison, and every part of a disconnected comparison graph -- gets a
  finite, unique score. Scores are then centred to mean 0 per query.
* ``prior == 0``: the pure maximum-likelihood estimate, which exists only
  inside strongly connected components (SCCs) of the digraph i -> j iff
  W[i, j] > 0 (Zermelo 1929; Ford 1957). Each SCC of >= 2 documents is fitted
  on its own judgments and centred to mean 0; between SCCs the MLE is
  infinitely far apart, so only the order is known (``level``: the longest
  chain of SCCs that beat this one). Singleton SCCs get score 0, SE NaN.

The optimiser is Newton's method with backtracking, the Newton systems solved
by preconditioned conjugate gradients over edge lists (all queries / SCCs at
once as independent blocks).

Stopping: a block is done when (a) every gradient component satisfies
|g_i| <= tol * max(1, H_ii) (H the Fisher information below: the plain
gradient rule for weights ~1; relative to the curvature for large weights,
whose gradient carries rounding noise of ~eps * H_ii), and (b) the Newton step
delta = H^-1 g -- the distance to the optimum to first order -- satisfies
max |delta_i| <= STEP_TOL * max(1, max |x_i|); that last step is taken
(no line search) and the block stops.
(b) is scale-free: a document tied to the others by near-perfect pairs has a
tiny H_ii, and a gradient rule alone leaves it ~tol / H_ii from the optimum
(1e-2 for H_ii = 1e-7). The gradient is computed as
w_uv sigma(-d) - w_vu sigma(d) and the weights h from sigma(d) sigma(-d), not
from 1 - sigma(d), which would lose the relative precision of sigma(-d) for
large d. Not a change-in-loss rule.

Standard errors come from the observed Fisher information (for the logit
link equal to the expected one), I = L(h) with edge weights
h_ij = (W_ij + W_ji) p_ij (1 - p_ij) (+ 2 prior sigma(x)sigma(-x) on the
diagonal): the SE of the centred score x_i - mean(x) is
sqrt([C I^-1 C]_ii) with C = I - 11'/n; for the pure MLE it is the
Moore-Penrose inverse L^+ = (L + 11'/n)^-1 - 11'/n inside the SCC. With the
prior, C I^-1 C = S^+ for S = I - dd'/sum(d), d the prior's diagonal (S 1 = 0;
the Schur complement of the direction 1), computed like L^+; both are taken
of the matrix scaled by the power of 2 that brings its largest diagonal entry
into [1, 2) (M^+ = c (cM)^+), so that 11'/n is not lost beside large weights.

Input order: floating-point sums depend on the order of their terms, and the
documents' indices on the order in which a file names them. Given
``doc_rank`` (each document's rank among its query's documents in id order,
:func:`id_ranks`), :func:`fit_bt` and :func:`fit_bt_parallel` fit the
documents in id order and the judgments sorted by (query, A, B, score,
weight), and return the results in the caller's document order: the scores,
SEs and diagnostics of a judgment file then do not depend on the order of
its lines, not even in the last bits.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..records import record

ELO_FACTOR = 400.0 / np.log(10.0)


@record
class Edges:
    """Aggregated unordered pairs over all documents of all queries.

    ``u < v`` are global document indices; ``wuv`` = weight of u beating v,
    ``wvu`` of v beating u. ``offsets[q]:offsets[q+1]`` are query q's docs.
    """

    n: int
    offsets: np.ndarray
    u: np.ndarray
    v: np.ndarray
    wuv: np.ndarray
    wvu: np.ndarray


@record
class FitResult:
    """Per-document scores and per-query diagnostics.

    ``score``, ``se``: global document arrays (natural-log scale, centred per
    query, or per SCC when ``prior == 0``). ``component``/``level``: SCC label
    within the query and its level in the condensation (0 = beaten by no
    other SCC). Per-query arrays: ``n_docs``, ``n_judged``, ``n_components``
    (SCCs among judged documents), ``n_perfect`` (judged documents that won
    or lost every comparison), ``iterations``, ``loglik``, ``grad_max``,
    ``converged``, ``se_condition`` (the largest condition estimate of the
    matrices inverted for the SEs, :func:`_dense_cov_diag`; 0 without SEs).
    """

    score: np.ndarray
    se: np.ndarray
    component: np.ndarray
    level: np.ndarray
    n_docs: np.ndarray
    n_judged: np.ndarray
    n_components: np.ndarray
    n_perfect: np.ndarray
    iterations: np.ndarray
    loglik: np.ndarray
    grad_max: np.ndarray
    converged: np.ndarray
    se_condition: np.ndarray
    offsets: np.ndarray


def build_edges(
    sizes: Sequence[int] | np.ndarray,
    q: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    score: np.ndarray,
    weight: np.ndarray | None = None,
    *,
    weight_power: float = 1.0,
) -> Edges:
    """Aggregate judgments into per-pair win weights (vectorised).

    Judgment k adds ``w_k**weight_power * s_k`` wins to B over A and
    ``w_k**weight_power * (1 - s_k)`` to A over B: the weight scales the
    pair's strength W_ab + W_ba, the score sets the split. Self-pairs carry
    no information about differences and are dropped.
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    n = int(offsets[-1])
    q = np.asarray(q, dtype=np.int64)
    ga = offsets[q] + np.asarray(a, dtype=np.int64)
    gb = offsets[q] + np.asarray(b, dtype=np.int64)
    s = np.asarray(score, dtype=np.float64)
    w = np.ones_like(s) if weight is None else np.asarray(weight, dtype=np.float64)
    if weight_power != 1.0:
        from .. import libm

        w = libm.pow(w, weight_power)  # the C library's pow: numpy's own differs on an AVX-512 CPU
    keep = ga != gb
    ga, gb, s, w = ga[keep], gb[keep], s[keep], w[keep]
    u = np.minimum(ga, gb)
    v = np.maximum(ga, gb)
    win_u = np.where(ga == u, w * (1.0 - s), w * s)
    key = u * max(n, 1) + v
    uniq, inv = _unique_inverse(key, u, v, n)
    wuv = np.bincount(inv, win_u, minlength=len(uniq))
    wvu = np.bincount(inv, w - win_u, minlength=len(uniq))
    uu = uniq // max(n, 1)
    vv = uniq % max(n, 1)
    nz = (wuv + wvu) > 0
    return Edges(n, offsets, uu[nz], vv[nz], wuv[nz], wvu[nz])


def _unique_inverse(key: np.ndarray, u: np.ndarray, v: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` of ``key = u * n + v`` (0 <= u, v < n), from the stable
    order by (u, v) (:func:`.kernels.stable_order`: counting sorts when compiled)."""
    from .kernels import stable_order

    order = stable_order(u, n, v, n)
    ks = key[order]
    first = np.ones(len(ks), dtype=bool)
    np.not_equal(ks[1:], ks[:-1], out=first[1:])
    inv = np.empty(len(ks), dtype=np.int64)
    inv[order] = np.cumsum(first) - 1
    return ks[first], inv


def _log_sigmoid(d: np.ndarray) -> np.ndarray:
    """log sigma(d), stable for large |d| (scipy.special.log_expit's bits; :mod:`.kernels`)."""
    from .kernels import log_expit

    return log_expit(d)


def _sigmoid(d: np.ndarray) -> np.ndarray:
    """sigma(d) = 1 / (1 + exp(-d)) (scipy.special.expit's bits; :mod:`.kernels`)."""
    from .kernels import expit

    return expit(d)


def _segsum(x: np.ndarray, starts: np.ndarray) -> np.ndarray:
    return np.add.reduceat(x, starts) if len(x) else np.zeros(len(starts))


def _newton_blocks(
    n: int,
    starts: np.ndarray,
    sizes: np.ndarray,
    u: np.ndarray,
    v: np.ndarray,
    wuv: np.ndarray,
    wvu: np.ndarray,
    prior: float,
    centre: bool,
    tol: float,
    max_iter: int,
):
    """Maximise the (penalised) BT log-likelihood of independent blocks.

    Blocks are contiguous index ranges ``starts[k] : starts[k] + sizes[k]``
    (all non-empty); every edge lies inside one block. Returns
    ``(x, iterations per block, max |gradient| per block)``.
    """
    from . import compiled

    nb = len(starts)
    block = np.repeat(np.arange(nb), sizes)
    eblock = block[u] if len(u) else np.zeros(0, dtype=np.int64)
    nw = wuv + wvu
    x = np.zeros(n)
    iters = np.zeros(nb, dtype=np.int64)
    inv_size = 1.0 / sizes
    fused = compiled.available()  # one pass over the edges, the same operations in the same order
    if fused:
        u, v, eblock = (np.ascontiguousarray(a, dtype=np.int64) for a in (u, v, eblock))
        wuv, wvu, nw = (np.ascontiguousarray(a, dtype=np.float64) for a in (wuv, wvu, nw))

    def objective(xx):
        # log sigma(-d) = log sigma(d) - d: one log per edge
        if fused:
            f = compiled.objective(xx, u, v, eblock, nw, wvu, nb)
        else:
            d = xx[u] - xx[v]
            f = np.bincount(eblock, nw * _log_sigmoid(d) - wvu * d, minlength=nb)
        if prior > 0:
            f = f + prior * np.bincount(block, 2.0 * _log_sigmoid(xx) - xx, minlength=nb)
        return f

    def grad_hess(xx):
        """(gradient, Hessian weights h, prior's curvature pd, the Hessian's diagonal L(h) + pd)."""
        if fused:
            gu, gv, h, hu, hv = compiled.gradient_diag(xx, u, v, wuv, wvu, nw)
            g = gu - gv
        else:
            # sigma(-d) computed, not 1 - sigma(d): full relative precision on a near-perfect pair
            d = xx[u] - xx[v]
            p, pq = _sigmoid(d), _sigmoid(-d)
            r = wuv * pq - wvu * p
            g = np.bincount(u, r, minlength=n) - np.bincount(v, r, minlength=n)
            h = nw * p * pq
            hu, hv = np.bincount(u, h, minlength=n), np.bincount(v, h, minlength=n)
        pd = np.zeros(n)
        if prior > 0:
            sx = _sigmoid(xx)
            sxq = _sigmoid(-xx)
            g = g + prior * (sxq - sx)
            pd = 2.0 * prior * sx * sxq
        return g, h, pd, hu + hv + pd

    pattern = _laplacian_pattern(n, u, v)
    f = objective(x)
    gmax = np.zeros(nb)
    stalled = np.zeros(nb, dtype=bool)
    done = np.zeros(nb, dtype=bool)
    for it in range(max_iter + 1):
        g, h, pd, hdiag = grad_hess(x)
        gmax = np.maximum.reduceat(np.abs(g), starts)
        active = ~stalled & ~done
        if not active.any():
            break
        g = np.where(active[block], g, 0.0)
        gnorm = np.sqrt(_segsum(g * g, starts))
        # inexact Newton (Eisenstat-Walker style): loose early, tight near the optimum
        rtol = np.clip(np.minimum(0.1, np.sqrt(gnorm)), 1e-12, None)
        # hdiag: the Hessian's diagonal, from the gradient's pass, for the CG's matrix and the stopping rule
        delta = _block_cg(n, block, starts, inv_size, pattern, h, pd, g, centre, active, rtol=rtol, diag=hdiag)
        # done: the gradient is within ``tol`` and the Newton step -- the distance to the optimum, to first
        # order -- is below STEP_TOL of the block's scale (scale-free: a document whose Hessian entry is tiny
        # has a large step for a small gradient; module docstring, "Stopping")
        step = np.maximum.reduceat(np.abs(delta), starts)
        scale = np.maximum(1.0, np.maximum.reduceat(np.abs(x), starts))
        # |g_i| <= tol * max(1, H_ii): the absolute rule for weights ~1; relative to the curvature for large
        # weights, whose gradient holds rounding noise of eps * H_ii (weights 1e20 with a prior)
        gok = np.logical_and.reduceat(np.abs(g) <= tol * np.maximum(1.0, hdiag), starts)
        fin = active & gok & (step <= STEP_TOL * scale)
        if fin.any() and it < max_iter:  # that last step is taken without a line search (a full Newton step
            # this close is an ascent): the error left is of the order of its square, the rounding floor; not
            # after max_iter steps (--max-iter bounds the steps), where the error left is at most the step
            x = x + np.where(fin[block], delta, 0.0)
            if centre:
                x -= np.repeat(np.where(fin, _segsum(x, starts) * inv_size, 0.0), sizes)
            iters += fin
        done |= fin
        active &= ~done
        if not active.any() or it == max_iter:
            break
        iters += active
        delta = np.where(active[block], delta, 0.0)
        xnew, f, todo = _line_search(objective, x, delta, f, active, block)
        # a block with no ascent left at machine precision is done: its next
        # Newton step would be the same, so each block's result is the same
        # whichever other blocks are fitted with it (see fit_bt_parallel)
        stalled |= todo
        moved = active & ~todo
        x = xnew
        if centre:
            x -= np.repeat(np.where(moved, _segsum(x, starts) * inv_size, 0.0), sizes)
    g, _, _, _ = grad_hess(x)
    gmax = np.maximum.reduceat(np.abs(g), starts) if n else gmax
    return x, iters, gmax, done


STEP_TOL = 1e-13  # a fit stops when its Newton step is below this fraction of max(1, max |x_i|) (and |g| <= tol)


def _line_search(objective, x: np.ndarray, delta: np.ndarray, f: np.ndarray, active: np.ndarray,
                 block: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Backtracking line search per block (the objective is concave): step 1, halved while the objective falls
    by more than its rounding (1e-13 relative). Returns the new x, the blocks' objectives and the blocks that
    found no ascent in 60 halvings."""
    t = np.ones(len(f))
    todo = active.copy()
    xnew = x.copy()
    for _ls in range(60):
        cand = x + (t * todo)[block] * delta
        fc = objective(cand)
        ok = todo & (fc >= f - 1e-13 * (1.0 + np.abs(f)))
        if ok.any():
            sel = ok[block]
            xnew[sel] = cand[sel]
            f = np.where(ok, fc, f)
        todo &= ~ok
        if not todo.any():
            break
        t = np.where(todo, t * 0.5, t)
    return xnew, f, todo


def _scc_weight_scale(starts: np.ndarray, sizes: np.ndarray, eu: np.ndarray, nw: np.ndarray) -> np.ndarray:
    """Per block (SCC, nodes ``starts[k] : starts[k] + sizes[k]``): the power of 2 that brings the block's
    largest pair weight ``nw`` into [1, 2) (1 when it is there already; an exact float scaling)."""
    nb = len(starts)
    big = np.zeros(nb)
    if len(eu):
        np.maximum.at(big, np.repeat(np.arange(nb), sizes)[eu], nw)
    up = np.ones(nb)
    off = (big > 0) & ((big < 1.0) | (big >= 2.0))
    if off.any():
        _, ex = np.frexp(big[off])  # big = mant * 2**ex, mant in [0.5, 1): big * 2**(1 - ex) in [1, 2)
        up[off] = np.ldexp(1.0, 1 - ex)
    return up


def _laplacian_pattern(n: int, u: np.ndarray, v: np.ndarray):
    """Sparse structure of Laplacian(h) + diag over edges (u, v), built once.

    Returns ``(A, u, v)``: ``A.set_values(concatenate([-h, -h, diag]))`` fills
    it (edges are unique, u < v); ``A.matvec(p)`` is the CSR product
    (:class:`.kernels.Laplacian`).
    """
    from .kernels import Laplacian

    idx = np.arange(n)
    A = Laplacian(n, np.concatenate([u, v, idx]), np.concatenate([v, u, idx]))
    return A, u, v


def _block_cg(n, block, starts, inv_size, pattern, h, pd, rhs, centre, active, rtol=1e-12, max_cg=500, diag=None):
    """Solve A z = rhs blockwise by Jacobi-preconditioned CG.

    A = Laplacian(h) + diag(pd) (+ 11'/n_b per block when ``centre``).
    ``rtol`` may be an array (one relative tolerance per block); ``diag``: the diagonal of Laplacian(h) +
    diag(pd) if the caller has it (computed here as the caller would otherwise: the same bits; not changed).
    """
    A, u, v = pattern
    sizes = np.diff(np.append(starts, n))
    if diag is None:
        diag = np.bincount(u, h, minlength=n) + np.bincount(v, h, minlength=n) + pd
    A.set_values(np.concatenate([-h, -h, diag]))

    def matvec(p):
        out = A.matvec(p)
        if centre:
            out += np.repeat(_segsum(p, starts) * inv_size, sizes)
        return out

    if centre:
        diag = diag + np.repeat(inv_size, sizes)
    diag = np.where(diag > 0, diag, 1.0)
    z = np.zeros(n)
    r = rhs.copy()
    y = r / diag
    p = y.copy()
    ry = _segsum(r * y, starts)
    r0 = np.sqrt(_segsum(r * r, starts))
    live = active & (r0 > 0)
    kern = _cg_kernels(n, block)  # the elementwise updates in one pass each, the same operations
    for _ in range(max_cg):
        if not live.any():
            break
        ap = matvec(p)
        pap = _segsum(p * ap, starts)
        alpha = np.where(live & (pap > 0), ry / np.where(pap > 0, pap, 1.0), 0.0)
        if kern is not None:
            rr, rys = kern.step(alpha, p, ap, diag, z, r, y)
        else:
            ab = alpha[block]
            z += ab * p
            r -= ab * ap
            y = r / diag
            rr, rys = r * r, r * y
        rn = np.sqrt(_segsum(rr, starts))
        live &= rn > rtol * r0
        ry_new = _segsum(rys, starts)
        beta = np.where(live, ry_new / np.where(ry > 0, ry, 1.0), 0.0)
        if kern is not None:
            kern.direction(live, beta, y, p)
        else:
            p = np.where(live[block], y + beta[block] * p, 0.0)
        ry = ry_new
    return z


class _CGKernels:
    """The compiled elementwise updates of :func:`_block_cg` (``_kernels.cg_step``, ``cg_direction``): numpy's
    ``z += ab * p; r -= ab * ap; y = r / diag; r * r; r * y`` and ``np.where(live[block], y + beta[block] * p,
    0.0)`` with ``ab = alpha[block]``, element by element, without the temporaries."""

    def __init__(self, mod, n: int, block: np.ndarray) -> None:
        self._mod = mod
        self._block = np.ascontiguousarray(block, dtype=np.int64)
        self._rr = np.empty(n)
        self._ry = np.empty(n)

    def step(self, alpha, p, ap, diag, z, r, y):
        self._mod.cg_step(np.ascontiguousarray(alpha, dtype=np.float64), self._block, p, ap, diag, z, r, y,
                          self._rr, self._ry)
        return self._rr, self._ry

    def direction(self, live, beta, y, p) -> None:
        self._mod.cg_direction(live.astype(np.int64), np.ascontiguousarray(beta, dtype=np.float64), self._block,
                               y, p)


def _cg_kernels(n: int, block: np.ndarray) -> _CGKernels | None:
    from . import compiled

    mod = compiled._module()
    return None if mod is None else _CGKernels(mod, n, block)


def _scc(edges: Edges):
    """Strongly connected components of the win digraph (i -> j iff i beat j); labels in
    order of each component's first document (:func:`.kernels.strong_components`)."""
    from .kernels import strong_components

    n = edges.n
    src = np.concatenate([edges.u[edges.wuv > 0], edges.v[edges.wvu > 0]])
    dst = np.concatenate([edges.v[edges.wuv > 0], edges.u[edges.wvu > 0]])
    return strong_components(n, src, dst), src, dst


def _levels(labels: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Longest chain of SCCs above each SCC in the condensation DAG."""
    nl = int(labels.max()) + 1 if len(labels) else 0
    cs, cd = labels[src], labels[dst]
    keep = cs != cd
    cs, cd = cs[keep], cd[keep]
    lev = np.zeros(nl, dtype=np.int64)
    for _ in range(nl + 1):
        new = lev.copy()
        np.maximum.at(new, cd, lev[cs] + 1)
        if np.array_equal(new, lev):
            break
        lev = new
    return lev[labels]


def _dense_cov_diag(starts, sizes, u, v, h, pd, centre_pinv: bool, centre_out: bool,
                    n: int) -> tuple[np.ndarray, np.ndarray]:
    """Square roots of the diagonal of the (centred) inverse Fisher information, per block, and per block
    a condition estimate of the matrix inverted: max_i A_ii (A^-1)_ii (>= 1, <= cond(A) for a positive
    definite A; the SEs' relative rounding error is of the order of 1e-16 times it; inf when the computed
    inverse breaks that bound).

    Blocks are gathered by size into dense matrices H (Laplacian of ``h`` plus
    ``diag(pd)``; plus 11'/n_b when ``centre_pinv``). Only diag(H^-1) is
    needed: by our own Cholesky (:mod:`.inverse_diag`: the same bits on every
    CPU). A block whose matrix is not positive definite falls back to the
    Moore-Penrose inverse.
    """
    out = np.full(n, np.nan)
    cond = np.zeros(len(starts))
    if n == 0:
        return out, cond
    order = np.argsort(sizes, kind="stable")
    from . import compiled

    node_block = np.repeat(np.arange(len(starts)), sizes)
    fused = compiled.available() and int(np.min(sizes)) >= 1  # the stack in one pass per matrix (cov_stack)
    local = np.arange(n) - np.repeat(starts, sizes)
    deg = np.bincount(u, h, minlength=n) + np.bincount(v, h, minlength=n) + pd
    eblock = node_block[u] if len(u) else np.zeros(0, dtype=np.int64)
    chunk_cells = COV_CHUNK_CELLS
    if fused:
        starts, eblock, u, v = (np.ascontiguousarray(a, dtype=np.int64) for a in (starts, eblock, u, v))
        h, pd, deg = (np.ascontiguousarray(a, dtype=np.float64) for a in (h, pd, deg))
    i = 0
    while i < len(order):
        m = int(sizes[order[i]])
        nbk = max(1, chunk_cells // max(m * m, 1))
        sel = order[i:i + nbk]
        sel = sel[sizes[sel] == m]
        i += len(sel)
        B = len(sel)
        nodes = (starts[sel][:, None] + np.arange(m)[None, :]).ravel()
        if fused:
            sd = None
            if centre_out:
                sd = pd[nodes].reshape(B, m).sum(axis=1)
                sd = np.where(sd > 0, sd, np.inf)
            H, c, hd = compiled.cov_stack(sel, starts, eblock, u, v, h, pd, deg, sd, m,
                                          2 if centre_out else 1 if centre_pinv else 0)
        else:
            H, c = _stack_numpy(sel, starts, local, eblock, u, v, h, pd, deg, nodes, m, centre_pinv, centre_out)
            hd = np.diagonal(H, axis1=1, axis2=2).copy()
        dg = _inverse_diag(H)
        with np.errstate(invalid="ignore", over="ignore"):
            k = np.max(hd * dg, axis=1) if m else np.ones(B)
            cond[sel] = np.where(np.isfinite(k) & (np.min(hd * dg, axis=1) >= 1.0 - 1e-6), k, np.inf)
        if centre_pinv or centre_out:
            dg = (dg - 1.0 / m) * c[:, None]
        out[nodes] = dg.reshape(-1)
    return np.sqrt(np.maximum(out, 0.0)), cond


def _stack_numpy(sel: np.ndarray, starts: np.ndarray, local: np.ndarray, eblock: np.ndarray, u: np.ndarray,
                 v: np.ndarray, h: np.ndarray, pd: np.ndarray, deg: np.ndarray, nodes: np.ndarray, m: int,
                 centre_pinv: bool, centre_out: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_dense_cov_diag`'s stack H (B x m x m) of the blocks ``sel`` and its scales c, in numpy (without
    the compiled kernels; :func:`.compiled.cov_stack` computes the same bits in one pass per matrix)."""
    B = len(sel)
    pos = np.full(len(starts), -1, dtype=np.int64)
    pos[sel] = np.arange(B)
    nb_ = np.repeat(np.arange(B), m)
    ln = np.tile(np.arange(m), B)
    ein = pos[eblock] >= 0
    eb = pos[eblock[ein]]
    lu, lv, eh = local[u[ein]], local[v[ein]], h[ein]
    # flat indices into the stack (one index array, not three): the entries (k, i, j) of the edges, both
    # ways, and of the diagonal
    fuv = (eb * m + lu) * m + lv
    fvu = (eb * m + lv) * m + lu
    fdiag = (nb_ * m + ln) * m + ln
    c = np.ones(B)
    if centre_out:
        # C H^-1 C = S^+ with S = H - d d'/sum(d), d = pd: S 1 = 0 (L 1 = 0), and S^+ = c (cS)^+. No
        # cancellation when the pair weights dwarf the prior (weights 1e20: H^-1 is 11'/sum(d) + tiny)
        dv = pd[nodes].reshape(B, m)
        sd = dv.sum(axis=1)
        sd = np.where(sd > 0, sd, np.inf)  # sigma(x) underflowed (|x| > 745): no prior term to remove
        # S = L + diag(deg) - dv dv'/sd in one pass and the scatter: H = (-dv_i) (dv_j / sd) is
        # -(dv_i (dv_j / sd)) exactly, and -p - h_ij, -p + deg_i round as -h_ij - p, deg_i - p (the sums
        # of building L and then subtracting p: the same bits; a -0.0 where those give +0.0 is gone once
        # 1/m is added below)
        H = np.multiply(-dv[:, :, None], (dv / sd[:, None])[:, None, :])
        flat = H.reshape(-1)
        flat[fuv] -= eh  # (u, v) pairs are unique: no index twice
        flat[fvu] -= eh
        flat[fdiag] += deg[nodes]
    else:
        H = np.zeros((B, m, m))
        flat = H.reshape(-1)
        flat[fuv] = -eh  # (u, v) pairs are unique: plain assignment
        flat[fvu] = -eh
        flat[fdiag] = deg[nodes]
    if centre_pinv or centre_out:  # L^+ = c (cL)^+, cL's largest diagonal entry in [1, 2) beside 11'/m
        c = _diag_scale(H)
        H *= c[:, None, None]
        H += 1.0 / m
    return H, c


COV_CHUNK_CELLS = 4_000_000  # matrix cells (8 bytes each) per stack of _dense_cov_diag: blocks are independent


def _diag_scale(H: np.ndarray) -> np.ndarray:
    """Per matrix of the stack H (B x m x m): the power of 2 that brings its largest diagonal entry into [1, 2)
    (1 when it is 0): an exact scaling, so that the 11'/m of the pseudo-inverse is not lost beside H."""
    big = np.max(np.diagonal(H, axis1=1, axis2=2), axis=1) if H.shape[1] else np.zeros(len(H))
    c = np.ones(len(H))
    pos = big > 0
    _, ex = np.frexp(big[pos])
    c[pos] = np.ldexp(1.0, 1 - ex)
    return c


def _inverse_diag(H: np.ndarray) -> np.ndarray:
    """``diag(H_k^-1)`` for a stack of symmetric matrices H_k (B x m x m): our own Cholesky (the same bits on every
    CPU, with or without the compiled kernels: :mod:`.inverse_diag`); the pseudo-inverse of a matrix that is not
    positive definite on one BLAS thread (:mod:`pref_eval.blas`: the same bits with any number of cores;
    OpenBLAS's kernels, chosen per kind of CPU, can change their last bits: docs/zelo_fit.md, "Another
    machine")."""
    from ..blas import one_blas_thread
    from .inverse_diag import own_inverse_diag

    dg, ok = own_inverse_diag(H)
    if not ok.all():
        with one_blas_thread():
            for bad in np.flatnonzero(~ok):
                dg[bad] = np.diagonal(np.linalg.pinv(H[bad], hermitian=True))
    return dg


def _first_appearance_labels(labels: np.ndarray, qof: np.ndarray) -> np.ndarray:
    """Labels renumbered 0, 1, ... within each query in order of their first document (vectorised)."""
    if not len(labels):
        return np.zeros(0, dtype=np.int64)
    key = qof.astype(np.int64) * (int(labels.max()) + 1) + labels
    _, first_idx, inv = np.unique(key, return_index=True, return_inverse=True)
    lab_q = qof[first_idx]
    order = np.lexsort((first_idx, lab_q))
    rank_in_q = np.empty(len(order), dtype=np.int64)
    qstart = np.searchsorted(lab_q[order], lab_q[order], side="left")
    rank_in_q[order] = np.arange(len(order)) - qstart
    return rank_in_q[inv.ravel()]


def id_ranks(docs_per_query: Sequence[Sequence[str]]) -> np.ndarray:
    """Each document's rank among its query's documents in id order (code points = UTF-8 bytes),
    for ``doc_rank``: ``docs_per_query`` lists each query's document ids (the fit's order)."""
    sizes = np.array([len(d) for d in docs_per_query], dtype=np.int64)
    n = int(sizes.sum())
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    names = np.array([d for docs in docs_per_query for d in docs], dtype=str)
    qof = np.repeat(np.arange(len(sizes)), sizes)
    order = np.lexsort((names, qof))
    starts = np.repeat(np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - starts
    return rank


def _judgment_order(offsets: np.ndarray, q: np.ndarray, ca: np.ndarray, cb: np.ndarray, s: np.ndarray,
                    w: np.ndarray) -> np.ndarray:
    """``np.lexsort((w, s, cb, ca, q))``: the judgments by (query, A, B, score, weight), ties in input order.

    (query, A) is one index ``offsets[q] + ca`` below the number of documents and B one below the
    largest query's size: the stable order by (query, A, B) comes from :func:`.kernels.stable_order`
    (counting sorts when compiled), and only runs of equal (query, A, B) -- repeated judgments of a
    pair, few -- are then ordered by (score, weight) with a lexsort. A stable order is unique: the
    same permutation as the lexsort of all five keys.
    """
    from .kernels import stable_order

    n = int(offsets[-1])
    width = int(np.diff(offsets).max()) if len(offsets) > 1 else 1
    hi = offsets[q] + ca
    order = stable_order(hi, max(n, 1), cb, max(width, 1))
    hs, bs = hi[order], cb[order]
    same = (hs[1:] == hs[:-1]) & (bs[1:] == bs[:-1])
    if same.any():
        member = np.zeros(len(order), dtype=bool)
        member[1:] |= same
        member[:-1] |= same
        at = np.flatnonzero(member)
        sub = order[at]  # runs of one (query, A, B), each in input order
        order[at] = sub[np.lexsort((w[sub], s[sub], cb[sub], hi[sub]))]
    return order


def _canonical_fit(fitter, sizes, q, a, b, score, weight, doc_rank, options) -> FitResult:
    """``fitter`` on the documents in ``doc_rank`` order and the judgments sorted, results in the
    caller's document order (module docstring, "Input order")."""
    sizes = np.asarray(sizes, dtype=np.int64)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    rank = np.asarray(doc_rank, dtype=np.int64)
    q = np.asarray(q, dtype=np.int64)
    ca = rank[offsets[q] + np.asarray(a, dtype=np.int64)]
    cb = rank[offsets[q] + np.asarray(b, dtype=np.int64)]
    s = np.asarray(score, dtype=np.float64)
    w = np.ones(len(q)) if weight is None else np.asarray(weight, dtype=np.float64)
    order = _judgment_order(offsets, q, ca, cb, s, w)
    # the sorted copies replace the unsorted ones (a large fit holds one set of judgment arrays)
    ca, cb, s, w = ca[order], cb[order], s[order], w[order]
    qs = q[order]
    del order
    res = fitter(sizes, qs, ca, cb, s, w, **options)
    del qs, ca, cb, s, w
    qof = np.repeat(np.arange(len(sizes)), sizes)
    at = offsets[qof] + rank  # each document's place in the canonical result
    return FitResult(score=res.score[at], se=res.se[at], component=_first_appearance_labels(res.component[at], qof),
                     level=res.level[at], n_docs=res.n_docs, n_judged=res.n_judged, n_components=res.n_components,
                     n_perfect=res.n_perfect, iterations=res.iterations, loglik=res.loglik, grad_max=res.grad_max,
                     converged=res.converged, se_condition=res.se_condition, offsets=res.offsets)


def fit_bt(
    sizes: Sequence[int] | np.ndarray,
    q: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    score: np.ndarray,
    weight: np.ndarray | None = None,
    *,
    prior: float = 0.5,
    weight_power: float = 1.0,
    tol: float = 1e-9,
    max_iter: int = 100,
    compute_se: bool = True,
    doc_rank: np.ndarray | None = None,
) -> FitResult:
    """Fit Bradley-Terry scores for many queries at once.

    ``sizes[q]`` documents per query; judgment k is (``q[k]``, ``a[k]``,
    ``b[k]``, ``score[k]`` with 1 = b better, ``weight[k]``). See the module
    docstring for the model, the prior and the standard errors. ``doc_rank``
    (:func:`id_ranks`): a result independent of the order of the judgments and
    of the documents' indices (module docstring, "Input order").
    """
    if prior < 0:
        raise ValueError("prior must be >= 0")
    if doc_rank is not None:
        return _canonical_fit(fit_bt, sizes, q, a, b, score, weight, doc_rank,
                              {"prior": prior, "weight_power": weight_power, "tol": tol, "max_iter": max_iter,
                               "compute_se": compute_se})
    e = build_edges(sizes, q, a, b, score, weight, weight_power=weight_power)
    n, offsets = e.n, e.offsets
    nq = len(offsets) - 1
    qof = np.repeat(np.arange(nq), np.diff(offsets))
    labels, src, dst = _scc(e)
    level = _levels(labels, src, dst)
    wins = np.bincount(src, minlength=n)
    losses = np.bincount(dst, minlength=n)
    judged = (wins + losses) > 0
    perfect = judged & ((wins == 0) | (losses == 0))
    # component ids local to each query, in order of first document
    comp_local = _first_appearance_labels(labels, qof)
    n_components = np.bincount(qof[judged], minlength=nq) * 0
    if n:
        # distinct (query, component) pairs among judged documents (np.unique(axis=1) imports numpy.ma)
        qj, lj = qof[judged], labels[judged]
        o = np.lexsort((lj, qj))
        qj, lj = qj[o], lj[o]
        first = np.concatenate([[True], (qj[1:] != qj[:-1]) | (lj[1:] != lj[:-1])]) if len(o) else np.zeros(0, bool)
        n_components = np.bincount(qj[first], minlength=nq)

    score_out = np.zeros(n)
    se = np.full(n, np.nan)
    iters_q = np.zeros(nq, dtype=np.int64)
    gmax_q = np.zeros(nq)
    conv_q = np.ones(nq, dtype=bool)
    cond_q = np.zeros(nq)
    if prior > 0:
        sizes_arr = np.diff(offsets)
        nonempty = sizes_arr > 0
        starts = offsets[:-1][nonempty]
        bsz = sizes_arr[nonempty]
        if n:
            with np.errstate(over="ignore"):  # absurd weights (1e300): the warning names the query, not numpy
                x, it, gm, ok = _newton_blocks(n, starts, bsz, e.u, e.v, e.wuv, e.wvu, prior, False, tol, max_iter)
            iters_q[nonempty] = it
            gmax_q[nonempty] = gm
            conv_q[nonempty] = ok
            means = _segsum(x, starts) / bsz
            score_out = x - np.repeat(means, bsz)
            if compute_se:
                d = x[e.u] - x[e.v]
                h = (e.wuv + e.wvu) * _sigmoid(d) * _sigmoid(-d)
                pd = 2.0 * prior * _sigmoid(x) * _sigmoid(-x)
                se, cond_b = _dense_cov_diag(starts, bsz, e.u, e.v, h, pd, False, True, n)
                cond_q[nonempty] = cond_b
        d = score_out[e.u] - score_out[e.v]
        ll_e = e.wuv * _log_sigmoid(d) + e.wvu * _log_sigmoid(-d)
        loglik = np.bincount(qof[e.u], ll_e, minlength=nq) if len(e.u) else np.zeros(nq)
    else:
        inside = labels[e.u] == labels[e.v]
        csize = np.bincount(labels)
        multi = csize[labels] >= 2
        perm = np.lexsort((np.arange(n), labels))  # nodes grouped by SCC
        perm = perm[multi[perm]]
        m = len(perm)
        loglik = np.zeros(nq)
        if m:
            newidx = np.full(n, -1, dtype=np.int64)
            newidx[perm] = np.arange(m)
            lab_sorted = labels[perm]
            starts = np.flatnonzero(np.r_[True, lab_sorted[1:] != lab_sorted[:-1]])
            bsz = np.diff(np.append(starts, m))
            eu, ev = newidx[e.u[inside]], newidx[e.v[inside]]
            wuv, wvu = e.wuv[inside], e.wvu[inside]
            # The MLE inside an SCC does not change when its weights are multiplied by a constant, but the
            # absolute gradient tolerance would stop at once on tiny weights (1e-9: every score 0, SE 0 at
            # 1e-20), and huge ones (1e20) lose the 11'/n of L^+ = (L + 11'/n)^-1 - 11'/n. Each SCC is fitted
            # with its weights times the power of 2 (exact) that brings its largest pair weight into [1, 2);
            # its SEs are scaled back.
            up = _scc_weight_scale(starts, bsz, eu, wuv + wvu)
            ws = up[np.repeat(np.arange(len(starts)), bsz)][eu] if len(eu) else np.zeros(0)
            with np.errstate(over="ignore"):
                x, it, gm, ok = _newton_blocks(m, starts, bsz, eu, ev, wuv * ws, wvu * ws, 0.0, True, tol, max_iter)
            gm = gm / up
            score_out[perm] = x
            bq = qof[perm[starts]]
            np.maximum.at(iters_q, bq, it)
            np.maximum.at(gmax_q, bq, gm)
            np.logical_and.at(conv_q, bq, ok)
            d = x[eu] - x[ev]
            ll_e = wuv * _log_sigmoid(d) + wvu * _log_sigmoid(-d)
            loglik = np.bincount(qof[perm[eu]], ll_e, minlength=nq)
            if compute_se:
                h = (wuv + wvu) * ws * _sigmoid(d) * _sigmoid(-d)
                se_sub, cond_b = _dense_cov_diag(starts, bsz, eu, ev, h, np.zeros(m), True, False, m)
                np.maximum.at(cond_q, bq, cond_b)
                se[perm] = se_sub * np.sqrt(np.repeat(up, bsz))
    converged = conv_q
    return FitResult(
        score=score_out, se=se, component=comp_local, level=level,
        n_docs=np.diff(offsets), n_judged=np.bincount(qof[judged], minlength=nq),
        n_components=n_components, n_perfect=np.bincount(qof[perfect], minlength=nq),
        iterations=iters_q, loglik=loglik, grad_max=gmax_q, converged=converged, se_condition=cond_q,
        offsets=offsets,
    )


def fit_bt_parallel(sizes: Sequence[int] | np.ndarray, q: np.ndarray, a: np.ndarray, b: np.ndarray,
                    score: np.ndarray, weight: np.ndarray | None = None, *, jobs: int = 1,
                    scheduler: str | None = None, parts: int | None = None, doc_rank: np.ndarray | None = None,
                    doc_ids: Sequence[Sequence[str]] | None = None, keep_levels: bool = True, threads: int = 1,
                    **options: Any) -> FitResult:
    """:func:`fit_bt` on blocks of queries computed in parallel; the same result, bit for bit.

    Queries are independent (no edge crosses two queries, and every step of
    the fit -- Newton, line search, conjugate gradients, standard errors -- is
    taken per query), so the queries are cut into ``parts`` contiguous blocks
    of similar size, each fitted by :func:`fit_bt` in a worker process
    (:func:`pref_eval.parallel.ordered_map`) and the results put in place.
    Default ``parts``: ``jobs`` (16 with a scheduler), and at least one block
    per ``BLOCK_JUDGMENTS`` judgments (``SERIAL_BLOCK_JUDGMENTS`` when serial), so that a large fit holds
    the fit's temporaries for one block at a time (serially, blocks are cut one by one).
    ``doc_rank``: as :func:`fit_bt`; ``doc_ids`` (each query's document ids, a
    sequence of lists) instead gives the same order as ``doc_rank=id_ranks(doc_ids)``,
    computed for one block at a time (no array over all documents). The canonical order sorts by
    query first, so it is set up block by block (each block's judgments sorted, its results put
    back in the caller's document order): the same arrays reach :func:`fit_bt` as when all
    judgments are sorted at once, and a large fit holds no sorted copy of all of them.

    Memory: ``q``, ``a``, ``b`` may be any integer type (int16, int32), ``score`` a
    :class:`~.judgments.CodedColumn`, and ``score``, ``weight`` float32 or float64: each block is
    widened to int64 / float64 (decoded) on its own;
    per-query counts are taken a slice at a time (``np.bincount`` would widen all of ``q``),
    and each block's results are copied into the output arrays and dropped. ``keep_levels=False``:
    ``component`` and ``level`` are not gathered (returned with length 0), for a caller that uses neither
    (``zelo_fit`` with a prior > 0 writes neither: 16 bytes a document less).

    ``threads`` (with ``jobs == 1`` and no scheduler): the blocks are fitted on a pool of that many threads
    in this process (:func:`fit_bt_blocks`); the same result, bit for bit, with any number.
    """
    sizes, q, _, whole = _block_plan(sizes, q, jobs, scheduler, parts, doc_rank, doc_ids, threads)
    if whole:
        return fit_bt(sizes, q, a, b, score, weight, **options)
    return _gather_results(fit_bt_blocks(sizes, q, a, b, score, weight, jobs=jobs, scheduler=scheduler, parts=parts,
                                         doc_rank=doc_rank, doc_ids=doc_ids, threads=threads, **options),
                           sizes, keep_levels)


def _block_plan(sizes: Sequence[int] | np.ndarray, q: np.ndarray, jobs: int, scheduler: str | None, parts: int | None,
                doc_rank: np.ndarray | None, doc_ids: Sequence[Sequence[str]] | None, threads: int = 1
                ) -> tuple[np.ndarray, np.ndarray, int, bool]:
    """``(sizes, q, nparts, whole)`` shared by :func:`fit_bt_parallel` and :func:`fit_bt_blocks`: the arrays as
    numpy (``q`` integer), the number of blocks, and whether one :func:`fit_bt` call over everything does (no
    canonical order asked, and one block or one query). Serially (``jobs == 1``, no scheduler, no ``parts``
    given): blocks of at most about ``SERIAL_BLOCK_JUDGMENTS``; on ``threads``, also at least one block per
    thread while each gets ``THREAD_JUDGMENTS`` judgments, and a multiple of ``threads`` blocks (no thread
    left alone with the last one)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    q = np.asarray(q)
    if q.dtype.kind not in "iu":
        q = q.astype(np.int64)
    canonical = doc_rank is not None or doc_ids is not None
    nparts = parts or max(16 if scheduler else jobs, -(-len(q) // BLOCK_JUDGMENTS))
    if not parts and jobs == 1 and not scheduler:
        nparts = max(nparts, -(-len(q) // SERIAL_BLOCK_JUDGMENTS))
        use = min(threads, len(q) // THREAD_JUDGMENTS)
        if use > 1:
            nparts = max(nparts, use)
            nparts = -(-nparts // use) * use
    return sizes, q, nparts, not canonical and (nparts <= 1 or len(sizes) <= 1)


def fit_bt_blocks(sizes: Sequence[int] | np.ndarray, q: np.ndarray, a: np.ndarray, b: np.ndarray,
                  score: np.ndarray, weight: np.ndarray | None = None, *, jobs: int = 1,
                  scheduler: str | None = None, parts: int | None = None, doc_rank: np.ndarray | None = None,
                  doc_ids: Sequence[Sequence[str]] | None = None, threads: int = 1,
                  **options: Any) -> Iterator[FitResult]:
    """The blocks of :func:`fit_bt_parallel`, each block's :class:`FitResult` (its queries, in order) as it is
    reached, in query order: :func:`fit_bt_parallel` copies them into one result; a caller that writes each
    block and drops it (``zelo_fit -o FILE``) holds the results of one block at a time (of about ``threads + 1``
    with ``threads``: serially, the blocks are fitted on a pool of that many threads,
    :func:`pref_eval.parallel.ordered_threads`, each by the same :func:`fit_bt` call as on one thread)."""
    from ..parallel import ordered_results, ordered_threads, split_even
    from .judgments import CodedColumn

    sizes, q, nparts, whole = _block_plan(sizes, q, jobs, scheduler, parts, doc_rank, doc_ids, threads)
    if whole:
        yield fit_bt(sizes, q, a, b, score, weight, **options)
        return
    a = np.asarray(a)
    b = np.asarray(b)
    if not isinstance(score, CodedColumn):  # a CodedColumn is decoded a block at a time
        score = np.asarray(score)
    weight = None if weight is None else np.asarray(weight)
    rank = None if doc_rank is None else np.asarray(doc_rank, dtype=np.int64)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    nj = count_per_query(q, len(sizes))
    jstart = np.concatenate([[0], np.cumsum(nj)])
    order = None if is_sorted(q) else np.argsort(q, kind="stable")  # keeps each query's judgments in input order
    blocks = [(0, len(sizes))] if nparts <= 1 or len(sizes) <= 1 else split_even(nj + sizes, nparts)

    def pieces():  # slices of the caller's arrays (views when ``order`` is None), widened by _fit_piece
        for q0, q1 in blocks:
            sel = slice(jstart[q0], jstart[q1]) if order is None else order[jstart[q0]:jstart[q1]]
            # doc_ids: the block's ids, ranked by _fit_piece (in the worker)
            block_rank = (rank[offsets[q0]:offsets[q1]] if rank is not None
                          else list(doc_ids[q0:q1]) if doc_ids is not None else None)
            yield (sizes[q0:q1], (q[sel], q0), a[sel], b[sel], score[sel], None if weight is None else weight[sel],
                   block_rank, options)

    if jobs == 1 and not scheduler and (threads <= 1 or len(blocks) <= 1):  # one block in memory at a time
        yield from map(_fit_piece, pieces())
    elif jobs == 1 and not scheduler:
        from ..blas import pool_blas_limit

        with pool_blas_limit():  # held for the pool's life: the threads are the parallelism
            yield from ordered_threads(_fit_piece, pieces(), min(threads, len(blocks)))
    else:  # each block's result handed over as it is reached
        yield from ordered_results(_fit_piece, pieces(), jobs=jobs, scheduler=scheduler)


# judgments per block of a large fit: bounds the fit's temporaries (~300 bytes each; blocks of 500,000 held
# 190 MB of them on the 40 M-judgment bench, at no gain in CPU time)
BLOCK_JUDGMENTS = 250_000
# judgments per thread at least before a serial fit is cut into blocks for its threads (below, the threads'
# start and the blocks' fixed costs are not paid back)
THREAD_JUDGMENTS = 25_000
# judgments per block of a fit in this process (serially, on one thread or several): a block's largest
# temporaries (the covariance stack: 20 MB for 250 queries of 100 documents) stay below glibc's mmap threshold
# (32 MB with keep_freed_memory), so they come from the heap and are reused instead of faulted in again for
# each block; on threads, the threads' blocks are held at once (zelo_fit on 400,000 judgments, 2 threads: peak
# 137 MB instead of 235 MB with 250,000, sys time 0.15-0.18 s instead of 0.24-0.33 s; measured under load
# 3.4-3.7, session 16; on one thread (PREF_EVAL_THREADS=1) 114 MB instead of 128 MB, and 2.1 M judgments sys
# 0.27-0.32 s instead of 0.38-0.51 s, session 17). Processes (--jobs, a scheduler) keep BLOCK_JUDGMENTS.
SERIAL_BLOCK_JUDGMENTS = 100_000
_SLICE = 1 << 20  # entries per slice of :func:`count_per_query` and :func:`is_sorted`


def count_per_query(q: np.ndarray, nq: int) -> np.ndarray:
    """``np.bincount(q, minlength=nq)`` (int64) a slice at a time: bincount widens its input to int64,
    a temporary of 8 bytes per judgment for int32 or int16 ``q``."""
    out = np.zeros(nq, dtype=np.int64)
    for i in range(0, len(q), _SLICE):
        out += np.bincount(q[i:i + _SLICE], minlength=nq)
    return out


def is_sorted(q: np.ndarray) -> bool:
    """Whether ``q`` never decreases (``np.all(q[1:] >= q[:-1])``, a slice at a time)."""
    last = len(q) - 1
    return all(bool(np.all(q[i + 1:min(i + _SLICE, last) + 1] >= q[i:min(i + _SLICE, last)]))
               for i in range(0, max(last, 0), _SLICE))


def _fit_piece(piece) -> FitResult:
    """One block of :func:`fit_bt_parallel`: ``q`` given as (the block's query indices, the block's first
    query), the arrays widened to int64 / float64 here (each block on its own)."""
    sizes, (q, q0), a, b, score, weight, rank, options = piece
    if isinstance(rank, list):  # the block's document ids
        rank = id_ranks(rank)
    q = np.subtract(q, q0, dtype=np.int64)
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    if rank is not None:
        return _canonical_fit(fit_bt, sizes, q, a, b, score, weight, rank, options)
    return fit_bt(sizes, q, a, b, score, np.ones(len(q)) if weight is None else np.asarray(weight, dtype=np.float64),
                  **options)


def _gather_results(results, sizes: np.ndarray, keep_levels: bool = True) -> FitResult:
    """The blocks' results (an iterator, in query order) as one :class:`FitResult`, the same arrays as
    ``np.concatenate`` of each field: the output arrays are allocated once (each field's dtype from the
    first block) and each block is copied into place and dropped, so the blocks' results are not all
    held at once. Without ``keep_levels``, ``component`` and ``level`` have length 0."""
    names = [name for name in FitResult.__dataclass_fields__
             if name != "offsets" and (keep_levels or name not in ("component", "level"))]
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    cat: dict = {}
    nd = nq = 0
    for r in results:
        if not cat:
            cat = {name: np.empty(int(offsets[-1]) if name in _PER_DOC else len(sizes), dtype=getattr(r, name).dtype)
                   for name in names}
        k = len(r.n_docs)
        for name in names:
            at = nd if name in _PER_DOC else nq
            x = getattr(r, name)
            cat[name][at:at + len(x)] = x
        nd, nq = nd + int(r.n_docs.sum()), nq + k
    if nd != int(offsets[-1]) or nq != len(sizes):
        raise ValueError("the blocks' results do not cover every query")  # a bug, not bad input
    for name in ("component", "level"):
        cat.setdefault(name, np.zeros(0, dtype=np.int64))
    return FitResult(offsets=offsets, **cat)


_PER_DOC = ("score", "se", "component", "level")


def fit_threads() -> int:
    """Threads for the blocks of a serial fit (``zelo_fit`` without ``--jobs``/``--scheduler``): the
    environment's ``PREF_EVAL_THREADS`` (an integer >= 1) if set, else the usable CPUs, at most
    ``MAX_THREADS`` (each thread holds a block's temporaries). The output does not depend on it."""
    from ..parallel import env_threads

    return env_threads(MAX_THREADS)


MAX_THREADS = 4


def to_scale(x: np.ndarray, se: np.ndarray, scale: str = "logit",
             offset: float = 1500.0) -> tuple[np.ndarray, np.ndarray]:
    """Convert natural-log scores: ``logit`` unchanged, ``elo`` = x*400/ln 10 + offset."""
    if scale == "logit":
        return x, se
    if scale == "elo":
        return x * ELO_FACTOR + offset, se * ELO_FACTOR
    raise ValueError(f"unknown scale {scale!r}")
