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

import threading
from collections.abc import Iterator
from contextlib import contextmanager


_lock = threading.Lock()
_depth = 0
_limits: list = []  # the limits set while some thread is inside, restored (in reverse) when the last one leaves


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Within the block, every loaded BLAS library (OpenBLAS, MKL, BLIS) uses one thread.

    Safe to enter from several threads at once (``zelo_fit`` fits blocks of queries on a thread pool,
    :func:`pref_eval.parallel.ordered_threads`): the limit is process-wide, so it is set on every entry (a
    library loaded since is capped too) and the previous settings are restored only when the last thread
    inside leaves -- not when the first does, which would give the others BLAS threads in mid-computation.
    """
    global _depth
    from threadpoolctl import threadpool_limits

    with _lock:
        limit = threadpool_limits(limits=1, user_api="blas")
        if _depth == 0 or limit.get_original_num_threads().get("blas") not in (None, 1):
            _limits.append(limit)  # something to restore (at depth > 0: a library loaded since the first entry)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                while _limits:
                    _limits.pop().restore_original_limits()
