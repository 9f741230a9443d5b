"""The Bradley-Terry fit's compiled kernels (``pref_eval._kernels``, optional), as numpy functions.

``pref_eval/_kernels.c`` computes what scipy computes for the fit --
``scipy.special.expit`` / ``log_expit`` with the C library's ``exp`` and
``log1p``, the CSR product of ``scipy.sparse`` (one running sum from 0 per
row, in column order), strongly connected components -- and two fused passes
over the edges (:func:`objective`, :func:`gradient`) that do the additions of
numpy's ``bincount`` in the same order. So every result has the bits of the
scipy/numpy path, and ``zelo_fit`` imports no scipy (about a third of its time
on 400,000 judgments) and walks the edges once instead of a dozen times.
``tests/test_zelo_ckernels.py`` compares each with scipy and numpy live.

:func:`available` is False when the extension is not built (no C compiler at
install time) or ``PREF_EVAL_PURE_PYTHON`` is set; callers then use scipy.
"""
from __future__ import annotations


import numpy as np

from ..native import kernels


def _module():
    return kernels()


def available() -> bool:
    """True when the compiled kernels can be used."""
    return _module() is not None


def _f8(x) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float64)


def _i8(x) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.int64)


def expit(x: np.ndarray) -> np.ndarray:
    """sigma(x) = 1 / (1 + exp(-x)), elementwise (``scipy.special.expit``'s bits)."""
    x = _f8(x)
    out = np.empty(x.shape)
    _module().expit(x.reshape(-1), out.reshape(-1))
    return out


def log_expit(x: np.ndarray) -> np.ndarray:
    """log sigma(x): x - log1p(exp(x)) for x < 0, else -log1p(exp(-x)) (``scipy.special.log_expit``'s bits)."""
    x = _f8(x)
    out = np.empty(x.shape)
    _module().log_expit(x.reshape(-1), out.reshape(-1))
    return out


class CSR:
    """An n x n sparsity pattern of entries ``(rows[k], cols[k])`` (no duplicates) in CSR order,
    filled by :meth:`set_values` (values in the order of those entries) and multiplied by
    :meth:`matvec` (``scipy.sparse.csr_matrix @ p``'s bits)."""

    def __init__(self, n: int, rows: np.ndarray, cols: np.ndarray) -> None:
        self._order = stable_order(rows, n, cols, n)  # by row, then column (distinct entries)
        self._indices = cols[self._order].astype(np.int32 if n < 2**31 else np.int64)
        self._indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=self._indptr[1:])
        self._data = np.zeros(len(rows))
        self._mod = _module()  # looked up once per pattern: a fit multiplies thousands of times

    def set_values(self, values: np.ndarray) -> None:
        self._data = _f8(values[self._order])

    def matvec(self, p: np.ndarray) -> np.ndarray:
        out = np.empty(len(self._indptr) - 1)
        self._mod.csr_matvec(self._indptr, self._indices, self._data, _f8(p), out)
        return out


def cov_stack(sel: np.ndarray, starts: np.ndarray, eblock: np.ndarray, u: np.ndarray, v: np.ndarray, h: np.ndarray,
              pd: np.ndarray, deg: np.ndarray, sd: np.ndarray | None, m: int,
              mode: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(H, c, hd)``: the stack of :func:`pref_eval.zelo.fit._dense_cov_diag` for the blocks ``sel`` (each of
    ``m`` nodes from ``starts[sel[k]]``; the edges ``(u, v)`` of weight ``h`` in block ``eblock``), built in one
    pass per matrix instead of numpy's zeros, scatter, centring and scaling passes, with the same operations in
    the same order (``fit._stack_numpy``'s bits; ``mode`` 2: centred by ``-pd pd'/sd``, 1: scaled, 0: neither),
    its scales c and its diagonal hd (after scaling); u, v, eblock, starts int64 and h, pd, deg float64,
    contiguous."""
    B = len(sel)
    H = np.empty((B, m, m))
    c = np.empty(B)
    hd = np.empty((B, m))
    _module().cov_stack(_i8(sel), starts, eblock, u, v, h, pd, deg, _f8(np.zeros(B) if sd is None else sd), int(m),
                        int(mode), H, c, hd)
    return H, c, hd


def inv_diag(H: np.ndarray, level: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """``(dg, ok)``: diag(H_k^-1) of each matrix of the stack H (B x m x m, m >= 1) by our own Cholesky, and
    whether H_k is positive definite (:mod:`pref_eval.zelo.inverse_diag`). ``level``: the kernel's vector code,
    0 baseline (SSE2), 1 AVX2, 2 AVX-512, -1 the best this CPU runs (the same bits; ValueError when the CPU
    lacks the level asked for)."""
    B, m = H.shape[0], H.shape[1]
    dg = np.empty((B, m))
    ok = np.empty(B, dtype=np.int64)
    _module().inv_diag(_f8(H), int(m), dg, ok, int(level))
    return dg, ok.astype(bool)


def stable_order(hi: np.ndarray, nhi: int, lo: np.ndarray | None = None, nlo: int = 0) -> np.ndarray:
    """``np.lexsort((lo, hi))`` (``np.argsort(hi, kind="stable")`` without ``lo``) of keys in
    ``[0, nhi)`` and ``[0, nlo)``, by counting sorts: linear in the rows plus the key ranges. Key ranges
    far beyond the rows (counts of gigabytes for a few rows) take numpy's stable sorts: the same order."""
    if max(nhi, nlo) > 8 * len(hi) + (1 << 22):
        return np.argsort(_i8(hi), kind="stable") if lo is None else np.lexsort((_i8(lo), _i8(hi)))
    out = np.empty(len(hi), dtype=np.int64)
    _module().stable_order(_i8(hi), int(nhi), None if lo is None else _i8(lo), int(nlo), out)
    return out


def strong_components(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Component of each of n nodes in the digraph ``src[k] -> dst[k]`` (Tarjan 1972), numbered in
    the order components are completed (renumber to compare with another algorithm)."""
    order = stable_order(src, n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    labels = np.empty(n, dtype=np.int64)
    _module().scc(indptr, _i8(dst[order]), labels)
    return labels


def objective(x: np.ndarray, u: np.ndarray, v: np.ndarray, eblock: np.ndarray, nw: np.ndarray, wvu: np.ndarray,
              nblocks: int) -> np.ndarray:
    """``bincount(eblock, nw * log_expit(d) - wvu * d, minlength=nblocks)`` with d = x[u] - x[v], in one pass."""
    f = np.empty(nblocks)
    _module().bt_objective(_f8(x), u, v, eblock, nw, wvu, f)
    return f


def gradient(x: np.ndarray, u: np.ndarray, v: np.ndarray, wuv: np.ndarray, wvu: np.ndarray,
             nw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(bincount(u, r), bincount(v, r), nw * p * q)`` with p = expit(x[u] - x[v]), q = expit(x[v] - x[u])
    and r = wuv * q - wvu * p, in one pass over the edges."""
    n = len(x)
    gu, gv, h = np.empty(n), np.empty(n), np.empty(len(u))
    _module().bt_gradient(_f8(x), u, v, wuv, wvu, nw, gu, gv, h)
    return gu, gv, h


def gradient_diag(x: np.ndarray, u: np.ndarray, v: np.ndarray, wuv: np.ndarray, wvu: np.ndarray,
                  nw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`gradient` and ``(bincount(u, h), bincount(v, h))`` (the Hessian diagonal's two parts), in the
    same pass over the edges."""
    n = len(x)
    gu, gv, h, hu, hv = np.empty(n), np.empty(n), np.empty(len(u)), np.empty(n), np.empty(n)
    _module().bt_gradient(_f8(x), u, v, wuv, wvu, nw, gu, gv, h, hu, hv)
    return gu, gv, h, hu, hv
