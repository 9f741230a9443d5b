"""diag(H^-1) for a stack of symmetric positive definite matrices, the same bits on every CPU.

zelo_fit's standard errors are square roots of the diagonal of inverted per-block Fisher informations
(:func:`pref_eval.zelo.fit._dense_cov_diag`). LAPACK's ``potrf``/``potri`` (and numpy's ``inv``) run OpenBLAS's
kernels, which OpenBLAS picks per kind of CPU (``OPENBLAS_CORETYPE``: SkylakeX on an AVX-512 CPU, Haswell on an
AVX2 one): on the shipped samples 4-9 SEs of 79-95 differed in their last bits between the two (session 24).
Every block therefore goes through our own Cholesky factorisation: A = U'U (upper, the upper triangle read),
W = U^-1 row by row from the bottom (each row's sums over the rows below it, from the last one up),
(A^-1)_ii = sum over k >= i of W_ik^2, k ascending -- each multiplication, subtraction, division and square
root rounded once, in the same order, in the compiled kernel (``pref_eval/_kernels.c`` ``inv_diag``, built
without fused multiply-adds; blocked for the caches -- panels of 64 rows, 4 x 16 tiles -- without changing
any element's sequence of operations, and vectorised element by element, SSE2 / AVX2 / AVX-512 chosen at run
time: the same bits) and in :func:`_numpy_inverse_diag` (vectorised over the stack): the same bits either way
and on every x86-64 CPU. Before session 25 blocks of more than 256 documents took LAPACK's ``potrf``/``potri``
(their last bits followed OpenBLAS's kernels); the compiled kernel takes less CPU than LAPACK's there at 300
and 1,000 documents and about as much at 3,000 (NOTES.md, session 25, c35), the numpy path (without the
kernels) about 0.9 s CPU a block of 1,000 documents. A matrix that is not positive definite (a pivot <= 0) takes the
Moore-Penrose inverse (numpy's, kernel-dependent), as before.
"""
from __future__ import annotations

import numpy as np


def own_inverse_diag(H: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(dg, ok)`` for a stack H (B x m x m): ``dg[k]`` = diag(H_k^-1) by our own Cholesky where ``ok[k]``, and
    ``ok[k]`` False where H_k is not positive definite (``dg[k]`` then undefined). The compiled kernel when
    built, else numpy: the same bits."""
    from .compiled import available, inv_diag

    B, m = H.shape[0], H.shape[1]
    if m == 0 or B == 0:
        return np.zeros((B, m)), np.ones(B, dtype=bool)
    if available():
        return inv_diag(H)
    return _numpy_inverse_diag(np.asarray(H, dtype=np.float64))


def _numpy_inverse_diag(H: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The compiled ``inv_diag``'s operations in numpy, one column (Cholesky), row (W) or column (sums) of every
    matrix of the stack per step: the same bits."""
    B, m, _ = H.shape
    A = H.copy()
    ok = np.ones(B, dtype=bool)
    with np.errstate(all="ignore"):
        for j in range(m):
            d = A[:, j, j]
            ok &= d > 0
            r = np.sqrt(np.where(ok, d, 1.0))
            A[:, j, j] = r
            A[:, j, j + 1:] /= r[:, None]
            row = A[:, j, j + 1:]
            # a_ik -= a_ji a_jk for k >= i > j (the strictly lower part is updated too, and never read)
            A[:, j + 1:, j + 1:] -= row[:, :, None] * row[:, None, :]
        U = np.triu(A)
        W = np.zeros_like(U)
        T = np.zeros_like(U)  # row i's running sums, over the rows j below it from the last one up
        for j in range(m - 1, -1, -1):
            r = U[:, j, j]
            W[:, j, j] = 1.0 / r
            W[:, j, j + 1:] = T[:, j, j + 1:] / r[:, None]
            if j:
                T[:, :j, j:] -= U[:, :j, j, None] * W[:, j, None, j:]
        dg = np.zeros((B, m))
        for k in range(m):
            dg[:, :k + 1] += W[:, :k + 1, k] * W[:, :k + 1, k]
    return dg, ok
