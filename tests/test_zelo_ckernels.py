"""The compiled kernels (pref_eval/_kernels.c) give scipy's bits: expit, log_expit, the CSR
product and strongly connected components, compared with scipy live on random inputs."""
from __future__ import annotations

import contextlib
import os

import numpy as np
import pytest

try:
    from pref_eval import _kernels as K
except ImportError:  # not built
    K = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("module", ["_kernels", "_jsonl"])
def test_built_when_a_compiler_works(tmp_path, module):
    """A checkout or install where the C compiler setuptools would call works must have built both optional
    extensions (they are optional only without one: README). Without one -- a real install with no compiler, or
    the same simulated with ``CC=/bin/false`` at install and test time (session 30) -- this skips, as the checks of
    the compiled paths do."""
    import importlib

    from conftest import c_compiler_works

    if not c_compiler_works(tmp_path):
        pytest.skip("no working C compiler: the pure-Python / scipy paths are used")
    try:
        importlib.import_module(f"pref_eval.{module}")
    except ImportError:
        pytest.fail(f"pref_eval.{module} is not built: run `pip install .` (or `python setup.py build_ext --inplace`)")


# (PREF_EVAL_PURE_PYTHON switches the package off its kernels: the tests comparing both paths through it skip)
needs = pytest.mark.skipif(K is None or bool(os.environ.get("PREF_EVAL_PURE_PYTHON")),
                           reason="pref_eval._kernels not built or switched off")


@needs
def test_expit_and_log_expit_bits_equal_scipy():
    from scipy.special import expit, log_expit

    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(200_000) * s for s in (1, 5, 40, 800)] +
                       [np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, -1e-310, 709.8, -709.8, 745.2,
                                  -745.2, 37.0, -37.0])])
    out = np.empty_like(x)
    K.expit(x, out)
    assert np.array_equal(out.view(np.int64), expit(x).view(np.int64))
    K.log_expit(x, out)
    assert np.array_equal(out.view(np.int64), log_expit(x).view(np.int64))
    with pytest.raises(ValueError):
        K.expit(x, out[:-1])
    with pytest.raises(TypeError):
        K.expit(x.astype(np.float32), out)


@needs
def test_csr_matvec_bits_equal_scipy():
    from scipy.sparse import csr_matrix

    rng = np.random.default_rng(1)
    n = 5000
    key = np.unique(rng.integers(0, n * n, 40_000))
    r, c = key // n, key % n
    A = csr_matrix((rng.standard_normal(len(r)) * rng.choice([1e-8, 1.0, 1e8], len(r)), (r, c)), shape=(n, n))
    A.sort_indices()
    p = rng.standard_normal(n)
    out = np.empty(n)
    K.csr_matvec(A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data, p, out)
    assert np.array_equal(out, A @ p)
    with pytest.raises(ValueError):
        K.csr_matvec(A.indptr.astype(np.int64), A.indices.astype(np.int64) + n, A.data, p, out)


@needs
@pytest.mark.parametrize("m", [0, 3000, 20_000, 60_000])
def test_scc_partition_equals_scipy(m):
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    rng = np.random.default_rng(m)
    n = 10_000
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    G = csr_matrix((np.ones(m), (r, c)), shape=(n, n))
    count, want = connected_components(G, directed=True, connection="strong")
    got = np.empty(n, dtype=np.int64)
    assert K.scc(G.indptr.astype(np.int64), G.indices.astype(np.int64), got) == count
    # the same partition: each scipy label meets exactly one of ours
    assert len(set(zip(want.tolist(), got.tolist(), strict=True))) == count


@needs
def test_fused_objective_and_gradient_equal_the_numpy_composition():
    from scipy.special import expit, log_expit

    from pref_eval.zelo.fit import build_edges
    from pref_eval.zelo.simulate import cycle_judgments

    sizes, q, a, b, s = cycle_judgments(40, 30, 3, 1.0, 3)
    e = build_edges(sizes, q, a, b, s)
    rng = np.random.default_rng(2)
    x = rng.standard_normal(e.n) * 3
    nb = len(sizes)
    eblock = np.repeat(np.arange(nb), sizes)[e.u]
    nw = e.wuv + e.wvu
    d = x[e.u] - x[e.v]
    want = np.bincount(eblock, nw * log_expit(d) - e.wvu * d, minlength=nb)
    got = np.empty(nb)
    K.bt_objective(x, e.u, e.v, eblock, nw, e.wvu, got)
    assert np.array_equal(got, want)
    p, pq = expit(d), expit(-d)
    r = e.wuv * pq - e.wvu * p
    gu, gv, h = np.empty(e.n), np.empty(e.n), np.empty(len(d))
    K.bt_gradient(x, e.u, e.v, e.wuv, e.wvu, nw, gu, gv, h)
    assert np.array_equal(gu, np.bincount(e.u, r, minlength=e.n))
    assert np.array_equal(gv, np.bincount(e.v, r, minlength=e.n))
    assert np.array_equal(h, nw * p * pq)
    # with hu, hv: the Hessian diagonal's parts bincount(u, h), bincount(v, h) (zelo_fit's Newton steps take
    # them from this pass), the other outputs unchanged
    gu2, gv2, h2, hu, hv = (np.empty(k) for k in (e.n, e.n, len(d), e.n, e.n))
    K.bt_gradient(x, e.u, e.v, e.wuv, e.wvu, nw, gu2, gv2, h2, hu, hv)
    assert np.array_equal(hu, np.bincount(e.u, h, minlength=e.n))
    assert np.array_equal(hv, np.bincount(e.v, h, minlength=e.n))
    assert np.array_equal(gu2, gu) and np.array_equal(gv2, gv) and np.array_equal(h2, h)
    with pytest.raises(TypeError, match="hu and hv go together"):
        K.bt_gradient(x, e.u, e.v, e.wuv, e.wvu, nw, gu2, gv2, h2, hu)
    with pytest.raises(ValueError, match="differ in length"):
        K.bt_gradient(x, e.u, e.v, e.wuv, e.wvu, nw, gu2, gv2, h2, hu, hv[:-1])
    with pytest.raises(ValueError):
        K.bt_objective(x, e.u, e.v, eblock + nb, nw, e.wvu, got)


@needs
@pytest.mark.parametrize("prior", [0.5, 0.0])
def test_fit_with_compiled_kernels_equals_the_scipy_path(prior, monkeypatch):
    """The whole fit (scores, SEs, diagnostics) has the same bits with the compiled kernels as
    with scipy's (PREF_EVAL_PURE_PYTHON=1; above the Python kernels' small sizes, so scipy's)."""
    from pref_eval.zelo import kernels
    from pref_eval.zelo.fit import fit_bt
    from pref_eval.zelo.simulate import cycle_judgments

    sizes, q, a, b, s = cycle_judgments(60, 40, 2, 1.0, 11)
    w = np.random.default_rng(3).integers(1, 4, len(q)).astype(float)
    got = fit_bt(sizes, q, a, b, s, w, prior=prior)
    monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
    for name in ("SMALL_ELEMENTS", "SMALL_NNZ", "SMALL_EDGES"):
        monkeypatch.setattr(kernels, name, 0)
    want = fit_bt(sizes, q, a, b, s, w, prior=prior)
    for field in ("score", "se", "component", "level", "iterations", "loglik", "grad_max", "n_components"):
        g, x = getattr(got, field), getattr(want, field)
        assert np.array_equal(g, x, equal_nan=g.dtype.kind == "f"), field


@needs
@pytest.mark.parametrize("m, nhi, nlo", [(0, 1, 1), (1, 1, 1), (50_000, 300, 7), (50_000, 40_000, 40_000)])
def test_stable_order_equals_lexsort(m, nhi, nlo):
    """The counting sorts give numpy's stable orders (ties by many repeated keys in input order)."""
    from pref_eval.zelo import compiled

    rng = np.random.default_rng(m + nhi)
    hi, lo = rng.integers(0, nhi, m), rng.integers(0, nlo, m)
    assert np.array_equal(compiled.stable_order(hi, nhi, lo, nlo), np.lexsort((lo, hi)))
    assert np.array_equal(compiled.stable_order(hi, nhi), np.argsort(hi, kind="stable"))
    with pytest.raises(ValueError):
        compiled.stable_order(hi, nhi, lo + nlo, nlo) if m else K.stable_order(np.zeros(1, np.int64), 0, None, 0,
                                                                                  np.empty(1, np.int64))


@pytest.mark.parametrize("pure", [False, True])
def test_judgment_order_and_edge_keys_equal_numpy(pure, monkeypatch):
    """The fit's canonical judgment order is np.lexsort of (query, A, B, score, weight) and its edge
    keys np.unique's, with the compiled counting sorts and without (many repeated pairs, equal and
    different scores and weights, -0.0 and 0.0)."""
    from pref_eval.zelo.fit import _judgment_order, _unique_inverse

    if pure:
        monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
    elif K is None:
        pytest.skip("pref_eval._kernels not built")
    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 9, 300)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    q = rng.integers(0, len(sizes), 40_000)
    a, b = (rng.integers(0, 1 << 30, len(q)) % sizes[q] for _ in range(2))
    s = rng.choice([0.0, -0.0, 0.5, 1.0, 1 / 3], len(q))
    w = rng.choice([1.0, 2.0, 0.5], len(q))
    want = np.lexsort((w, s, b, a, q))
    assert np.array_equal(_judgment_order(offsets, q, a, b, s, w), want)
    ga, gb = offsets[q] + a, offsets[q] + b
    u, v = np.minimum(ga, gb), np.maximum(ga, gb)
    n = int(offsets[-1])
    uniq, inv = _unique_inverse(u * n + v, u, v, n)
    wu, wi = np.unique(u * n + v, return_inverse=True)
    assert np.array_equal(uniq, wu) and np.array_equal(inv, wi.ravel())


@needs
@pytest.mark.parametrize("centre", [False, True])
def test_cg_updates_equal_the_numpy_updates(centre, monkeypatch):
    """_block_cg with the compiled elementwise updates (cg_step, cg_direction) gives the bits of its
    numpy updates: the same Newton directions for blocks of 1 to 300 documents, some inactive."""
    from pref_eval.zelo import fit as F

    rng = np.random.default_rng(8)
    sizes = np.concatenate([[1, 2, 7, 8, 9, 129, 300], rng.integers(1, 40, 60)])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    n = int(sizes.sum())
    block = np.repeat(np.arange(len(sizes)), sizes)
    key = np.unique(rng.integers(0, n, 6 * n) * n + rng.integers(0, n, 6 * n))
    u, v = key // n, key % n
    keep = (u < v) & (block[u] == block[v])
    u, v = u[keep], v[keep]
    h = rng.random(len(u)) * 10.0 ** rng.integers(-3, 3, len(u))
    pd = np.where(centre, 0.0, rng.random(n) * 0.1)
    rhs = rng.standard_normal(n)
    active = rng.random(len(sizes)) < 0.8
    rhs = np.where(active[block], rhs, 0.0)
    rtol = np.full(len(sizes), 1e-10)

    def solve():
        pattern = F._laplacian_pattern(n, u, v)
        return F._block_cg(n, block, starts, 1.0 / sizes, pattern, h, pd, rhs, centre, active, rtol=rtol)

    got = solve()
    monkeypatch.setattr(F, "_cg_kernels", lambda n, block: None)
    want = solve()
    assert np.array_equal(got, want) and np.abs(got).sum() > 0
    with pytest.raises(ValueError):
        K.cg_direction(np.ones(2, np.int64), np.ones(2), np.full(3, 2, np.int64), np.ones(3), np.ones(3))


@needs
def test_indices_out_of_range_are_refused_before_any_write():
    """Every kernel that indexes by an argument checks the indices first (ValueError, no memory touched
    outside the arrays): block numbers of cg_step/cg_direction, node numbers of scc."""
    i64 = np.int64
    p = np.array([2.0, 3.0])
    with pytest.raises(ValueError, match="cg_direction: block index out of range"):
        K.cg_direction(np.array([1], dtype=i64), np.array([0.5]), np.array([0, 1], dtype=i64), np.ones(2), p)
    with pytest.raises(ValueError, match="cg_direction: block index out of range"):
        K.cg_direction(np.array([1], dtype=i64), np.array([0.5]), np.array([0, -1], dtype=i64), np.ones(2), p)
    assert p.tolist() == [2.0, 3.0]
    z, r, y, rr, ry = (np.zeros(2) for _ in range(5))
    with pytest.raises(ValueError, match="cg_step: block index out of range"):
        K.cg_step(np.array([1.0]), np.array([0, 2], dtype=i64), np.ones(2), np.ones(2), np.ones(2), z, r, y, rr, ry)
    assert not z.any() and not r.any()
    labels = np.zeros(2, dtype=i64)
    with pytest.raises(ValueError, match="scc: node index out of range"):
        K.scc(np.array([0, 1, 2], dtype=i64), np.array([1, 2], dtype=i64), labels)
    # in range: accepted
    assert K.scc(np.array([0, 1, 2], dtype=i64), np.array([1, 0], dtype=i64), labels) == 1


# ------------------------------------------------------------ hostile arguments and edge inputs

def _valid_calls() -> dict:
    """One valid call of each array kernel: {name: (arguments, positions of the outputs)}."""
    i8 = np.int64
    x = np.array([0.5, -1.0, 2.0, 0.0])
    u, v, eb = np.array([0, 1, 2], i8), np.array([1, 2, 3], i8), np.array([0, 0, 1], i8)
    w = np.array([1.0, 2.0, 0.5])
    indptr, idx = np.array([0, 1, 2, 3, 3], i8), np.array([1, 2, 3], i8)
    e3 = [np.array([0.25, -1.0, 3.0]) for _ in range(3)]
    return {
        "expit": ((x, np.empty(4)), {1}),
        "log_expit": ((x, np.empty(4)), {1}),
        "csr_matvec": ((indptr, idx, w, x, np.empty(4)), {4}),
        "scc": ((indptr, idx, np.empty(4, i8)), {2}),
        "bt_objective": ((x, u, v, eb, w, w, np.empty(2)), {6}),
        "bt_gradient": ((x, u, v, w, w, w, np.empty(4), np.empty(4), np.empty(3), np.empty(4), np.empty(4)),
                        {6, 7, 8, 9, 10}),
        "stable_order": ((u, 4, v, 4, np.empty(3, i8)), {4}),
        "factorize": ((np.array([5, 3, 5], i8), np.empty(3, i8), np.empty(3, i8)), {1, 2}),
        "cg_step": ((np.array([0.5, 2.0]), eb, *e3, *(np.zeros(3) for _ in range(5))), {5, 6, 7, 8, 9}),
        "cg_direction": ((np.array([1, 0], i8), np.array([0.5, 2.0]), eb, e3[0], np.ones(3)), {4}),
        "cov_stack": ((np.array([1, 0], i8), np.array([0, 2], i8), np.array([0, 1], i8), np.array([0, 2], i8),
                       np.array([1, 3], i8), np.array([1.0, 0.5]), x + 1.0, x + 3.0, np.array([2.5, 4.0]), 2, 2,
                       np.empty(8), np.empty(2), np.empty(4)), {11, 12, 13}),
    }


def _variants(a):
    """Hostile stand-ins for one array argument."""
    if not isinstance(a, np.ndarray):
        return [-1, 2**62, 2**63 - 1]
    ro = a.copy()
    ro.flags.writeable = False
    with np.errstate(all="ignore"):
        casts = [a.astype(np.float32), a.astype(np.int32), a.astype(np.uint64)]
    out = [*casts, a.astype(a.dtype.newbyteorder(">")), np.repeat(a, 2)[::2], ro, a[:-1].copy(),
           np.append(a, a[-1:]), a[:0].copy(), a.reshape(1, -1),
           np.asfortranarray(np.stack([a, a]).T), None, a.tolist(), b"12345678" * len(a), 3.0]
    if a.dtype.kind == "i":
        out += [a + 100, -a - 1, np.full_like(a, np.iinfo(np.int64).max), np.full_like(a, np.iinfo(np.int64).min)]
    else:
        out += [np.full_like(a, np.nan), np.full_like(a, np.inf), np.full_like(a, -np.inf), np.full_like(a, 1e308),
                np.full_like(a, 5e-324)]
    return out


@needs
@pytest.mark.parametrize("name", sorted(_valid_calls()))
def test_hostile_arguments_give_an_error_or_stay_inside_the_arrays(name):
    """Every argument of every array kernel replaced in turn by a wrong dtype, another byte order, a strided
    or Fortran-ordered view, a read-only array, one item fewer or more, no items, NaN/inf/huge/tiny values,
    indices out of range or at int64's ends, a non-array: each call returns or raises TypeError / ValueError /
    BufferError / MemoryError, and writes nothing outside its outputs (sentinels on both sides of each; under
    tools/sanitize.sh AddressSanitizer checks every read as well)."""
    args0, outs = _valid_calls()[name]
    fn = getattr(K, name)
    for pos in range(len(args0)):
        for bad in _variants(args0[pos]):
            args, guards = list(args0), []
            for o in outs:
                if o != pos:  # each output inside a larger array filled with a sentinel
                    a = args0[o]
                    big = np.full(len(a) + 4, 7 if a.dtype.kind == "i" else 7.25, dtype=a.dtype)
                    args[o] = big[2:-2]
                    guards.append(big)
            args[pos] = bad
            with contextlib.suppress(TypeError, ValueError, BufferError, MemoryError, OverflowError):
                fn(*args)
            for big in guards:
                assert (big[:2] == big[0]).all() and (big[-2:] == big[0]).all() and big[0] in (7, 7.25), \
                    (name, pos, bad)


@needs
def test_malformed_indptr_is_refused():
    """scc walked node i's edges from indptr[i] to indptr[i+1] having checked only indptr[n] <= len(indices):
    an indptr that decreases (or starts above 0) read past indices (AddressSanitizer: heap-buffer-overflow).
    Now a ValueError, as csr_matvec's."""
    i8 = np.int64
    labels = np.zeros(2, i8)
    for ptr in ([0, 5, 1], [1, 1, 1], [0, -3, 1]):
        with pytest.raises(ValueError, match="scc: "):
            K.scc(np.array(ptr, i8), np.array([1], i8), labels)
        with pytest.raises(ValueError, match="csr_matvec: "):
            K.csr_matvec(np.array(ptr, i8), np.array([1], i8), np.ones(1), np.ones(2), np.zeros(2))


@needs
def test_stable_order_key_ranges_beyond_memory():
    """nhi near 2**63: the count array's size wrapped around (nhi + 1) * 8 and the sort wrote far outside
    it; now MemoryError from the kernel, and the wrapper takes numpy's stable sort for key ranges far
    beyond the rows (the same permutation: a stable order is unique)."""
    from pref_eval.zelo import compiled

    i8 = np.int64
    for nhi in (2**61, 2**62, 2**63 - 1):
        with pytest.raises(MemoryError):
            K.stable_order(np.array([5, 2**40], i8), nhi, None, 0, np.empty(2, i8))
    hi, lo = np.array([2**40, 5, 2**40, 0], i8), np.array([1, 2**50, 0, 3], i8)
    assert compiled.stable_order(hi, 2**62, lo, 2**62).tolist() == np.lexsort((lo, hi)).tolist()
    assert compiled.stable_order(hi, 2**41).tolist() == np.argsort(hi, kind="stable").tolist()


@needs
@pytest.mark.parametrize("n, m", [(0, 0), (1, 0), (1, 1), (2, 1), (5, 3)])
def test_kernels_equal_numpy_on_tiny_and_extreme_inputs(n, m, monkeypatch):
    """No documents, one, no edges, self loops; weights 0, 5e-324, 1e300; scores at ±inf and NaN: the compiled
    kernels give numpy's / scipy's bits (NaN where they give NaN) or refuse the same inputs."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components
    from scipy.special import expit, log_expit

    from pref_eval.io.keys import factorize
    from pref_eval.zelo import compiled

    def same(a, b):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        return a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b)) and \
            np.array_equal(np.where(np.isnan(a), 0, a).view(np.int64), np.where(np.isnan(b), 0, b).view(np.int64))

    rng = np.random.default_rng(n * 10 + m)
    specials = np.array([0.0, -0.0, 5e-324, -5e-324, 1e300, -1e300, np.inf, -np.inf, np.nan, 709.8, -745.2])
    for x in (np.zeros(n), rng.choice(specials, n), rng.standard_normal(n) * 1e3):
        assert same(compiled.expit(x), expit(x)) and same(compiled.log_expit(x), log_expit(x))
        assert same(compiled.expit(x[::-1]), expit(x[::-1]))  # a strided view: the wrapper copies it
        u = rng.integers(0, max(n, 1), m) if n else np.zeros(0, np.int64)
        v = rng.integers(0, max(n, 1), m) if n else np.zeros(0, np.int64)
        for wts in (np.zeros(m), np.full(m, 5e-324), np.full(m, 1e300), rng.random(m)):
            wuv, wvu = wts, wts[::-1].copy()
            nw = wuv + wvu
            nb = 2
            eb = rng.integers(0, nb, m)
            with np.errstate(all="ignore"):
                d = x[u] - x[v]
                f = np.bincount(eb, nw * log_expit(d) - wvu * d, minlength=nb)
                p, q = expit(d), expit(-d)
                r = wuv * q - wvu * p
                want = (np.bincount(u, r, minlength=n), np.bincount(v, r, minlength=n), nw * p * q)
            assert same(compiled.objective(x, u, v, eb, nw, wvu, nb), f)
            got = compiled.gradient(x, u, v, wuv, wvu, nw)
            assert all(same(g, w_) for g, w_ in zip(got, want, strict=True))
            with np.errstate(all="ignore"):
                want_d = (*want, np.bincount(u, want[2], minlength=n), np.bincount(v, want[2], minlength=n))
            got_d = compiled.gradient_diag(x, u, v, wuv, wvu, nw)
            assert all(same(g, w_) for g, w_ in zip(got_d, want_d, strict=True))
        if n:
            A = csr_matrix((rng.choice(specials, m), (u, v)), shape=(n, n))
            A.sum_duplicates()
            A.sort_indices()
            rows = np.repeat(np.arange(n), np.diff(A.indptr))
            csr = compiled.CSR(n, rows, A.indices.astype(np.int64))
            csr.set_values(A.data)
            with np.errstate(all="ignore"):
                assert same(csr.matvec(x), A @ x)
            count, want_l = connected_components(csr_matrix((np.ones(m), (u, v)), shape=(n, n)), directed=True,
                                                 connection="strong")
            got_l = compiled.strong_components(n, u, v)
            assert len(set(zip(want_l.tolist(), got_l.tolist(), strict=True))) == count == len(set(got_l.tolist()))
    keys = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, -1, 0][: n + m], np.int64)
    uniq, inv = factorize(keys)
    wu, wi = np.unique(keys, return_inverse=True)
    assert np.array_equal(uniq, wu) and np.array_equal(inv, wi.ravel())
    for h in (np.zeros(n + m, np.int64), np.arange(n + m)[::-1].copy()):
        assert np.array_equal(compiled.stable_order(h, n + m + 1), np.argsort(h, kind="stable"))


def _stack_case(rng, sizes, special: bool):
    """A fit's blocks of ``sizes`` with random edges (unique unordered pairs, in a shuffled order, some blocks
    without any), Hessian weights h and prior terms pd (with ``special``: 0, 5e-324, 1e300, inf, NaN among
    them, and blocks whose pd are all 0, so sd = inf)."""
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    n = int(np.sum(sizes))
    us, vs = [], []
    for s0, m in zip(starts, sizes, strict=True):
        if m < 2 or rng.random() < 0.15:
            continue
        a, b = rng.integers(0, m, 4 * m), rng.integers(0, m, 4 * m)
        keep = a != b
        key = np.unique(np.minimum(a, b)[keep] * m + np.maximum(a, b)[keep])
        us.append(s0 + key // m)
        vs.append(s0 + key % m)
    u = np.concatenate(us).astype(np.int64) if us else np.zeros(0, np.int64)
    v = np.concatenate(vs).astype(np.int64) if vs else np.zeros(0, np.int64)
    perm = rng.permutation(len(u))
    u, v = u[perm], v[perm]
    h = rng.random(len(u)) * 3.0
    pd = rng.random(n) * 0.25
    if special:
        spec = np.array([0.0, 5e-324, 1e300, 1e-300, np.inf, np.nan])
        h[rng.random(len(h)) < 0.1] = rng.choice(spec, int(np.sum(rng.random(len(h)) < 0.1)) or 1)[0]
        pd[rng.random(n) < 0.1] = rng.choice(spec)
        pd[starts[0]:starts[0] + sizes[0]] = 0.0  # sd = 0 -> inf
    deg = np.bincount(u, h, minlength=n) + np.bincount(v, h, minlength=n) + pd
    return starts, u, v, h, pd, deg


@needs
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("special", [False, True])
def test_cov_stack_equals_the_numpy_stack(mode, special):
    """The covariance stack of zelo_fit's standard errors (fit._dense_cov_diag) built by the compiled kernel in
    one pass per matrix has numpy's bits (fit._stack_numpy: zeros or the centring product, the scatter of the
    edges both ways, the diagonal, the power-of-2 scaling and + 1/m), its scales and diagonal too: blocks of
    1, 2, 17 and 100 documents, some not in the stack (their edges ignored), edges in no order, specials."""
    from pref_eval.zelo import compiled
    from pref_eval.zelo.fit import _stack_numpy

    rng = np.random.default_rng(7 + mode + 10 * special)
    sizes = np.array([3, 1, 2, 17, 100, 17, 2, 100, 17], dtype=np.int64)
    starts, u, v, h, pd, deg = _stack_case(rng, sizes, special)
    n = int(sizes.sum())
    node_block = np.repeat(np.arange(len(sizes)), sizes)
    local = np.arange(n) - np.repeat(starts, sizes)
    eblock = node_block[u]
    for m in (1, 2, 3, 17, 100):
        sel = np.flatnonzero(sizes == m)[::-1].copy()  # not in block order
        nodes = (starts[sel][:, None] + np.arange(m)[None, :]).ravel()
        with np.errstate(all="ignore"):
            sd = pd[nodes].reshape(len(sel), m).sum(axis=1)
            sd = np.where(sd > 0, sd, np.inf)
            want_h, want_c = _stack_numpy(sel, starts, local, eblock, u, v, h, pd, deg, nodes, m, mode == 1,
                                          mode == 2)
            got_h, got_c, got_hd = compiled.cov_stack(sel, starts, eblock, u, v, h, pd, deg, sd, m, mode)
        for got, want in ((got_h, want_h), (got_c, want_c), (got_hd, np.diagonal(want_h, axis1=1, axis2=2))):
            assert got.shape == want.shape
            nan = np.isnan(want)
            assert np.array_equal(np.isnan(got), nan), (m, mode)
            assert np.array_equal(np.where(nan, 0.0, got).view(np.int64), np.where(nan, 0.0, want).view(np.int64))
    with pytest.raises(ValueError, match="an edge outside its block"):
        sel = np.flatnonzero(sizes == 17)
        compiled.cov_stack(sel, starts, eblock, u, v + 1, h, pd, deg, np.ones(len(sel)), 17, 2)
