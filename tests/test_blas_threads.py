"""pref_eval.blas.one_blas_thread: BLAS capped at one thread inside, restored after, the same bits; the
adaptive strategies' batched inverses and products run under it."""
from __future__ import annotations

import numpy as np
import pytest

threadpoolctl = pytest.importorskip("threadpoolctl")

from pref_eval.blas import one_blas_thread  # noqa: E402


def _blas_threads() -> list[int]:
    return [d["num_threads"] for d in threadpoolctl.threadpool_info() if d["user_api"] == "blas"]


def test_capped_inside_and_restored_after():
    np.linalg.inv(np.eye(3))  # numpy's BLAS is loaded
    before = _blas_threads()
    assert before
    with one_blas_thread():
        assert set(_blas_threads()) == {1}
    assert _blas_threads() == before
    with pytest.raises(ZeroDivisionError), one_blas_thread():  # restored on an exception too
        1 / 0  # noqa: B018
    assert _blas_threads() == before


def test_the_same_bits_whatever_the_threads_outside():
    """Inside one_blas_thread an inverse and a product are the same whatever the process's thread setting.
    Outside it neither need be: threaded OpenBLAS LU moves its last bits with the number of threads, and so do
    threaded products for some shapes and kernels (this batch with OpenBLAS's Nehalem or Prescott kernels,
    OPENBLAS_CORETYPE; a (45, 200) @ (200, 2000) product with its Haswell ones, session 13)."""
    rng = np.random.default_rng(0)
    A = rng.normal(size=(6, 120, 120))
    H = A @ np.swapaxes(A, 1, 2) + np.eye(120)
    got, prods = [], []
    for n in (1, 2, 4):
        with threadpoolctl.threadpool_limits(limits=n, user_api="blas"), one_blas_thread():
            got.append(np.linalg.inv(H))
            prods.append(H @ A)
    assert all(np.array_equal(g, got[0]) for g in got)
    assert all(np.array_equal(p, prods[0]) for p in prods)


def test_adaptive_and_bound_inverses_run_on_one_thread(monkeypatch):
    from pref_eval.zelo.adaptive import posterior_covariance
    from pref_eval.zelo.ranking_bound import design_variances

    seen: list[list[int]] = []
    inv = np.linalg.inv

    def spy(a):
        seen.append(_blas_threads())
        return inv(a)

    monkeypatch.setattr(np.linalg, "inv", spy)
    x = np.array([[0.5, 0.0, -0.5, 0.1]])
    a, b = np.array([[0, 1, 2, 3]]), np.array([[1, 2, 3, 0]])
    posterior_covariance(x, a, b)
    design_variances(x, a, b)
    assert len(seen) == 2 and all(set(s) == {1} for s in seen)


def test_zelo_fit_standard_errors_do_not_depend_on_the_threads():
    """zelo_fit prints standard errors to the last bit: from blocks of 100 documents on, OpenBLAS's threaded
    Cholesky inverse would change them with the number of cores."""
    from pref_eval.zelo.fit import _inverse_diag

    rng = np.random.default_rng(0)
    for m in (10, 16, 50, 100, 300):  # the batched inverse up to 16, per-block Cholesky above
        A = rng.normal(size=(4, m, m))
        H = A @ np.swapaxes(A, 1, 2) + np.eye(m)
        got = []
        for n in (1, 2, 4):
            with threadpoolctl.threadpool_limits(limits=n, user_api="blas"):
                got.append(_inverse_diag(H.copy()))
        for dg in got[1:]:
            assert np.array_equal(dg, got[0]), m


def test_fit_standard_errors_do_not_depend_on_blas_threads(tmp_path):
    """The fit's SEs factorise blocks above ``SMALL`` documents with scipy's LAPACK, whose own OpenBLAS is
    loaded lazily: loaded *inside* one_blas_thread it escaped the cap (threadpoolctl caps the libraries loaded
    when it starts), so the first fit of a process factorised on every core and its SEs differed in the last
    bits from zelo_fit's (which sets OPENBLAS_NUM_THREADS=1). Fresh processes, 4 BLAS threads vs 1."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import pref_eval

    rng = np.random.default_rng(3)
    n = 40  # documents of one query: above SMALL, so the LAPACK path
    a, b = rng.integers(0, n, size=(2, 3000))
    keep = a != b
    lines = [f"q1\td{x}\td{y}\t{s}" for x, y, s in zip(a[keep], b[keep], rng.integers(0, 2, keep.sum()), strict=True)]
    judge = tmp_path / "j.judge"
    judge.write_text("\n".join(lines) + "\n")
    code = ("import sys; from pref_eval import api; df = api.fit(sys.argv[1]); "
            "sys.stdout.write(df.se.to_numpy().tobytes().hex())")
    root = str(Path(pref_eval.__file__).resolve().parent.parent)
    out = []
    for threads in ("4", "1"):
        env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
        env.update(OPENBLAS_NUM_THREADS=threads, PYTHONPATH=root)
        r = subprocess.run([sys.executable, "-c", code, str(judge)], capture_output=True, text=True, env=env,
                           cwd=tmp_path, check=True)
        out.append(r.stdout)
    assert out[0] and out[0] == out[1]
