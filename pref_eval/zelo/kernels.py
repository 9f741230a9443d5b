"""The Bradley-Terry fit's numerical kernels, without scipy's import cost on small inputs.

``zelo_fit`` on a few hundred judgments spends more time importing scipy
(``scipy.special``, ``scipy.sparse``, ``scipy.sparse.csgraph``,
``scipy.linalg``: about four times ``import numpy``) than fitting (issue #13).
Each kernel here gives the same bits as the scipy function it stands for,
and uses scipy itself above a size where scipy's compiled loop pays for its
import:

* :func:`expit` / :func:`log_expit` -- ``scipy.special.expit`` (1 / (1 +
  exp(-x))) and ``log_expit`` (x - log1p(exp(x)) for x < 0, else
  -log1p(exp(-x))). scipy evaluates these formulas with the C library's
  ``exp``/``log1p``; so does Python's :mod:`math`, element by element, for
  arrays of at most ``SMALL_ELEMENTS`` values. (numpy's own ``exp`` is a
  different, vectorised implementation that differs in the last bit for a
  few per cent of arguments, so it is not used.)
* :class:`Laplacian` -- the matrix-vector product of a CSR matrix
  (``scipy.sparse.csr_matrix @ p``: per row, a running sum from 0 over the
  row's entries in column order). Up to ``SMALL_NNZ`` entries numpy does the
  same additions in the same order, one column position at a time.
* :func:`strong_components` -- strongly connected components
  (``scipy.sparse.csgraph.connected_components(connection="strong")``), an
  iterative Tarjan (1972) in Python up to ``SMALL_EDGES`` edges. Labels are
  renumbered in order of each component's first node, whichever way they
  were found.

When the optional compiled kernels are built (``pref_eval/_kernels.c``,
:mod:`.compiled`: the same formulas and orders of operations in C), they are
used first, at every size: then ``zelo_fit`` imports no scipy, on any input
(its standard errors take our own Cholesky, :mod:`.inverse_diag`).

``tests/test_zelo_kernels.py`` checks each one bit for bit against scipy (and
``tests/test_zelo_ckernels.py`` the compiled ones).
"""
from __future__ import annotations

import math

import numpy as np

SMALL_ELEMENTS = 4096
SMALL_NNZ = 8192
SMALL_EDGES = 8192


def _expit1(v: float) -> float:
    try:
        return 1.0 / (1.0 + math.exp(-v))
    except OverflowError:  # exp(-v) = inf: 1 / inf
        return 0.0


def _log_expit1(v: float) -> float:
    if v < 0:
        return v - math.log1p(math.exp(v))
    return -math.log1p(math.exp(-v))


def _elementwise(x: np.ndarray, compiled_name: str, one, scipy_name: str) -> np.ndarray:
    """``compiled.<compiled_name>(x)`` when built, else ``one`` per element (few elements), else
    ``scipy.special.<scipy_name>`` -- the same bits on every path (tests/test_zelo_kernels.py)."""
    from . import compiled

    x = np.asarray(x, dtype=np.float64)
    if compiled.available():
        return getattr(compiled, compiled_name)(x)
    if x.size <= SMALL_ELEMENTS:
        return np.fromiter(map(one, x.ravel().tolist()), np.float64, x.size).reshape(x.shape)
    import scipy.special

    return getattr(scipy.special, scipy_name)(x)


def expit(x: np.ndarray) -> np.ndarray:
    """sigma(x) = 1 / (1 + exp(-x)), elementwise; the bits of ``scipy.special.expit``."""
    return _elementwise(x, "expit", _expit1, "expit")


def log_expit(x: np.ndarray) -> np.ndarray:
    """log sigma(x), stable for large |x|, elementwise; the bits of ``scipy.special.log_expit``."""
    return _elementwise(x, "log_expit", _log_expit1, "log_expit")


class Laplacian:
    """A fixed sparsity pattern of n x n entries ``(rows[k], cols[k])`` (no duplicates), filled by
    :meth:`set_values` (values in the order of those entries) and multiplied by :meth:`matvec`."""

    def __init__(self, n: int, rows: np.ndarray, cols: np.ndarray) -> None:
        from . import compiled

        self.n = n
        nnz = len(rows)
        self._compiled = compiled.CSR(n, rows, cols) if compiled.available() else None
        if self._compiled is not None:
            return
        if nnz > SMALL_NNZ:
            from scipy.sparse import csr_matrix

            tag = np.arange(1, nnz + 1, dtype=np.float64)
            A = csr_matrix((tag, (rows, cols)), shape=(n, n))
            A.sort_indices()
            self._csr = A
            self._order = A.data.astype(np.int64) - 1
            return
        self._csr = None
        order = np.lexsort((cols, rows))  # CSR order: by row, then column
        self._order = order
        r, c = rows[order], cols[order]
        first = np.flatnonzero(np.r_[True, r[1:] != r[:-1]]) if nnz else np.zeros(0, dtype=np.int64)
        length = np.diff(np.append(first, nnz))
        pos = np.arange(nnz) - np.repeat(first, length)  # place of each entry in its row
        # entries by place in their row: every row's k-th entry is added at step k
        self._steps = [np.flatnonzero(pos == k) for k in range(int(length.max()) if nnz else 0)]
        self._rows = [r[s] for s in self._steps]
        self._cols = [c[s] for s in self._steps]
        self._data: list[np.ndarray] = []

    def set_values(self, values: np.ndarray) -> None:
        if self._compiled is not None:
            self._compiled.set_values(values)
            return
        data = values[self._order]
        if self._csr is not None:
            self._csr.data = data
        else:
            self._data = [data[s] for s in self._steps]

    def matvec(self, p: np.ndarray) -> np.ndarray:
        if self._compiled is not None:
            return self._compiled.matvec(p)
        if self._csr is not None:
            return self._csr @ p
        out = np.zeros(self.n)
        for rows, cols, data in zip(self._rows, self._cols, self._data, strict=True):
            out[rows] += data * p[cols]  # rows unique within a step: one sequential sum per row
        return out


def stable_order(hi: np.ndarray, nhi: int, lo: np.ndarray | None = None, nlo: int = 1) -> np.ndarray:
    """The stable order of rows by ``(hi, lo)``: ``np.lexsort((lo, hi))``, for integer keys in
    ``[0, nhi)`` and ``[0, nlo)`` (``lo`` None: by ``hi`` alone).

    A stable order is unique, so every way of computing it gives the same permutation: the
    compiled counting sorts (:func:`.compiled.stable_order`, linear time) when built, else numpy's
    stable sort of the combined key ``hi * nlo + lo`` (a lexsort when that could overflow).
    """
    from . import compiled

    if compiled.available():
        return compiled.stable_order(hi, nhi, lo, nlo)
    hi = np.asarray(hi, dtype=np.int64)
    if lo is None:
        return np.argsort(hi, kind="stable")
    lo = np.asarray(lo, dtype=np.int64)
    if max(nhi, 1) * max(nlo, 1) < 2**62:
        return np.argsort(hi * max(nlo, 1) + lo, kind="stable")
    return np.lexsort((lo, hi))


def strong_components(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Component label of each of n nodes in the digraph src[k] -> dst[k]; labels 0, 1, ... in
    order of each component's lowest node."""
    from . import compiled

    labels: np.ndarray | list[int]
    if compiled.available():
        labels = compiled.strong_components(n, src, dst)
    elif len(src) > SMALL_EDGES:
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        g = coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).tocsr()
        _, labels = connected_components(g, directed=True, connection="strong")
    else:
        labels = _tarjan(n, src, dst)
    return _first_occurrence_labels(np.asarray(labels, dtype=np.int64))


def _first_occurrence_labels(labels: np.ndarray) -> np.ndarray:
    if not len(labels):
        return labels
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inv.reshape(-1)]


def _tarjan(n: int, src: np.ndarray, dst: np.ndarray) -> list[int]:
    """Tarjan's strongly connected components, iterative (no recursion limit)."""
    order = np.argsort(src, kind="stable")
    heads = np.searchsorted(src[order], np.arange(n + 1)).tolist()
    adj = dst[order].tolist()
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    label = [-1] * n
    stack: list[int] = []
    counter = 0
    comps = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, heads[root])]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            node, nxt = work[-1]
            if nxt < heads[node + 1]:
                work[-1] = (node, nxt + 1)
                w = adj[nxt]
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, heads[w]))
                elif on_stack[w] and index[w] < low[node]:
                    low[node] = index[w]
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low[node] < low[parent]:
                    low[parent] = low[node]
            if low[node] == index[node]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    label[w] = comps
                    if w == node:
                        break
                comps += 1
    return label
