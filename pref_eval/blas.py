"""Small dense linear algebra on one BLAS thread.

numpy's and scipy's OpenBLAS start a thread per core for every product or inverse, even of a
100 × 100 matrix, where the threads' start-up and hand-over cost more than the arithmetic; when the
cores are busy (other processes, ``pytest -n``, ``--jobs``) the waiting threads make it far worse:
``bench/bench_blas_threads.py`` measures both, as the commands run. The batched small
matrices of the adaptive strategies (posterior covariances, once per round) and of the design
bounds are therefore computed inside :func:`one_blas_thread`, which caps every loaded BLAS library
at one thread for the duration (``threadpoolctl``, the tool scikit-learn uses for the same purpose)
and restores the previous setting afterwards. It also makes the results the same on every machine
with the same BLAS and the same kind of CPU: OpenBLAS's threaded LU gives inverses whose last bits depend
on the number of threads, so on the number of cores, and the adaptive strategies' choices (which ``zelo_pairs result``
recomputes and compares with the stored rounds) depend on those bits in a near-tie; threaded products
also do for some shapes and kernels (``tests/test_blas_threads.py``). Across kinds of
CPU they are not: OpenBLAS picks its kernels per CPU (``OPENBLAS_CORETYPE`` forces a set), and the last
bits of products and inverses follow them (``python tools/cpu_kinds.py``).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


_held = 0  # thread pools holding the limit for their workers (:func:`pool_blas_limit`)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Within the block, every loaded BLAS library (OpenBLAS, MKL, BLIS) uses one thread.

    Inside :func:`pool_blas_limit` (a pool's workers) it does nothing: the pool's owner holds the limit.
    """
    if _held:
        yield
        return
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


@contextmanager
def pool_blas_limit() -> Iterator[None]:
    """:func:`one_blas_thread` held by the thread that runs a pool of threads (``zelo_fit``'s blocks of queries,
    :func:`pref_eval.zelo.fit.fit_bt_blocks`), for the pool's life; the workers' own :func:`one_blas_thread`
    then do nothing. The limit is process-wide, and setting and restoring it from the workers does not work:
    the first worker to leave would restore the others' BLAS threads in mid-computation, and OpenBLAS
    (0.3.31) ignores a worker thread's ``openblas_set_num_threads`` once the main thread has set it. Load the
    BLAS libraries the workers use before (threadpoolctl caps those loaded when it starts)."""
    global _held
    with one_blas_thread():
        _held += 1
        try:
            yield
        finally:
            _held -= 1
