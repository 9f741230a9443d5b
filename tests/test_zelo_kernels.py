"""The zELO fit's scipy-free kernels give scipy's bits (pref_eval/zelo/kernels.py, issue #13 start-up).

scipy is the oracle, called live: expit/log_expit against scipy.special, the CSR product against
scipy.sparse, strongly connected components against scipy.sparse.csgraph; and the whole fit with every
kernel on its small path against the fit with every kernel on scipy's path.
"""
from __future__ import annotations

import numpy as np
import pytest

from pref_eval.zelo import kernels

scipy_special = pytest.importorskip("scipy.special")


@pytest.fixture(autouse=True)
def _python_kernels(monkeypatch):
    """These tests are about the Python and scipy paths: the compiled kernels (pref_eval/_kernels.c,
    used first when built; tests/test_zelo_ckernels.py) are switched off here."""
    monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")


def _bits(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64)).view(np.int64)


def _arguments(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    special = [0.0, -0.0, 1e-300, -1e-300, 5e-324, 36.0, -36.0, 37.5, -37.5, 700.0, -700.0, 709.7, -709.7,
               709.8, -709.8, 745.2, -745.2, 800.0, -800.0, np.inf, -np.inf]
    parts = [rng.standard_normal(1000) * s for s in (1e-8, 0.01, 1.0, 4.0, 30.0, 400.0)]
    return np.concatenate([np.array(special), *parts])


@pytest.mark.parametrize("seed", range(4))
def test_expit_and_log_expit_are_scipys_bits(seed):
    x = _arguments(seed)
    for lo in range(0, len(x), kernels.SMALL_ELEMENTS):
        chunk = x[lo:lo + kernels.SMALL_ELEMENTS]
        with np.errstate(over="ignore"):
            assert np.array_equal(_bits(kernels.expit(chunk)), _bits(scipy_special.expit(chunk)))
            assert np.array_equal(_bits(kernels.log_expit(chunk)), _bits(scipy_special.log_expit(chunk)))
    nan = kernels.expit(np.array([np.nan]))
    assert np.isnan(nan).all() and np.isnan(kernels.log_expit(np.array([np.nan]))).all()


def _pattern(rng, n: int, m: int):
    pairs = {tuple(sorted(rng.choice(n, 2, replace=False))) for _ in range(m)}
    u = np.array([p[0] for p in pairs], dtype=np.int64)
    v = np.array([p[1] for p in pairs], dtype=np.int64)
    idx = np.arange(n)
    return np.concatenate([u, v, idx]), np.concatenate([v, u, idx]), len(u)


@pytest.mark.parametrize("seed", range(5))
def test_laplacian_product_is_scipys_csr_product(seed, monkeypatch):
    sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    rows, cols, m = _pattern(rng, n, int(rng.integers(n, 8 * n)))
    values = rng.standard_normal(len(rows)) * 10 ** rng.uniform(-6, 6, len(rows))
    p = rng.standard_normal(n) * 10 ** rng.uniform(-6, 6, n)
    small = kernels.Laplacian(n, rows, cols)
    small.set_values(values)
    assert small._csr is None
    ref = sparse.csr_matrix((values, (rows, cols)), shape=(n, n))
    ref.sort_indices()
    assert np.array_equal(_bits(small.matvec(p)), _bits(ref @ p))
    monkeypatch.setattr(kernels, "SMALL_NNZ", 0)
    big = kernels.Laplacian(n, rows, cols)
    big.set_values(values)
    assert big._csr is not None and np.array_equal(_bits(big.matvec(p)), _bits(small.matvec(p)))


@pytest.mark.parametrize("seed", range(8))
def test_strong_components_equal_scipys(seed):
    csgraph = pytest.importorskip("scipy.sparse.csgraph")
    sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    m = int(rng.integers(0, 3 * n))
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    got = kernels.strong_components(n, src, dst)
    g = sparse.coo_matrix((np.ones(m), (src, dst)), shape=(n, n)).tocsr()
    _, ref = csgraph.connected_components(g, directed=True, connection="strong")
    # same partition: the pairs (label, scipy label) are a bijection
    pairs = set(zip(got.tolist(), ref.tolist(), strict=True))
    assert len(pairs) == len(set(got.tolist())) == len(set(ref.tolist()))
    # labels in order of first node
    _, first = np.unique(got, return_index=True)
    assert np.array_equal(np.sort(first), first) and got[0] == 0
    assert np.array_equal(kernels._first_occurrence_labels(np.asarray(ref, dtype=np.int64)), got)


def test_strong_components_of_a_long_chain_and_a_long_cycle():
    n = 5000  # deeper than Python's recursion limit
    chain = kernels.strong_components(n, np.arange(n - 1), np.arange(1, n))
    assert np.array_equal(chain, np.arange(n))
    cycle = kernels.strong_components(n, np.arange(n), (np.arange(n) + 1) % n)
    assert not cycle.any()


def _judgments(seed: int, nq: int = 6):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 40, nq)
    q, a, b, s = [], [], [], []
    for qi, k in enumerate(sizes):
        strength = rng.standard_normal(k) * 2
        for _ in range(int(k) * 3):
            i, j = rng.choice(k, 2, replace=False)
            q.append(qi)
            a.append(i)
            b.append(j)
            pb = 1 / (1 + np.exp(strength[i] - strength[j]))
            s.append(float(rng.random() < pb) if rng.random() < 0.8 else 0.5)
    return sizes, np.array(q), np.array(a), np.array(b), np.array(s)


@pytest.mark.parametrize("prior", [0.5, 0.0])
@pytest.mark.parametrize("seed", range(3))
def test_fit_on_small_paths_equals_fit_on_scipy_paths(seed, prior, monkeypatch):
    from pref_eval.zelo.fit import fit_bt

    data = _judgments(seed)
    small = fit_bt(*data, prior=prior)
    for name in ("SMALL_ELEMENTS", "SMALL_NNZ", "SMALL_EDGES"):
        monkeypatch.setattr(kernels, name, -1)
    big = fit_bt(*data, prior=prior)
    for field in ("score", "se", "component", "level", "n_components", "iterations", "loglik", "grad_max"):
        assert np.array_equal(_bits(getattr(small, field)), _bits(getattr(big, field))), field
