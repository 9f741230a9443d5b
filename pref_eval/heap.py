"""The C heap of the one-shot commands (glibc's malloc; no-ops elsewhere)."""
from __future__ import annotations

import contextlib
import sys


def one_arena() -> None:
    """Every thread allocates from the main malloc arena (glibc ``mallopt(M_ARENA_MAX, 1)``).

    The fast readers parse a large file in threads (pyarrow, :mod:`pref_eval.io.fastparse`). Each
    thread gets an arena of its own, and what the parse frees at an arena's top stays resident after
    the thread ends: ``malloc_trim`` (:func:`pref_eval.io.fastparse.release_memory`) returns the free
    memory of the main heap and the free chunks of other arenas, but not that top. On a 10 M-line run
    70-90 MB stayed resident through ranking and evaluation. With one arena it is returned with the
    rest; the threads allocate a block (1 MB) at a time, so sharing a lock costs nothing measurable.
    Call before the first thread starts (threads that already have an arena keep it).
    """
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):  # not glibc
        m_arena_max = -8
        ctypes.CDLL("libc.so.6").mallopt(m_arena_max, 1)
