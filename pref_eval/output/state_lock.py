"""One writer at a time for a ``zelo_pairs`` state file.

``zelo_pairs next`` / ``add`` / ``init`` and ``zelo_judge --state`` read a state, change it and write it
back (atomically, :mod:`pref_eval.output.atomic`). Two of them at once on the same file would each write
what they read plus their own change, and the first one's judgments would be lost. So each holds an
exclusive ``flock`` on ``STATE.lock`` (a small file next to the state, holding the holder's pid) from
the read to the write: a second one waits up to ``wait`` seconds, then is refused
(:class:`~pref_eval.errors.UsageError`, exit 2) with nothing changed. A state that is not a regular file
(``/dev/stdout``, a pipe), or whose lock file cannot be created (a missing or read-only directory: the
write reports that), is not locked.
"""
from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

from ..errors import UsageError


@contextlib.contextmanager
def state_lock(path: str, wait: float = 30.0, holder: str = "another process") -> Iterator[None]:
    """Hold the exclusive lock of the state ``path`` for the ``with`` block (see the module docstring)."""
    import fcntl

    if os.path.exists(path) and not os.path.isfile(path):
        yield
        return
    try:
        fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield
        return
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    other = os.pread(fd, 32, 0).decode(errors="replace").strip()
                    raise UsageError(f"{path}: in use by {holder}" + (f" (pid {other})" if other.isdigit() else "")
                                     + "; nothing changed, run the command again when it has finished") from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock
