"""One writer at a time for a ``zelo_pairs`` state file.

``zelo_pairs next`` / ``add`` / ``init`` and ``zelo_judge --state`` read a state, change it and write it
back (atomically, :mod:`pref_eval.output.atomic`). Two of them at once on the same file would each write
what they read plus their own change, and the first one's judgments would be lost. So each holds an
exclusive ``flock`` on ``STATE.lock`` (holding the holder's pid) from the read to the write: a second one
waits up to ``wait`` seconds, then is refused (:class:`~pref_eval.errors.UsageError`, exit 2) with nothing
changed. The lock file exists only while held: it is removed before it is released, and a process that
locked a file that was meanwhile removed tries again on the new one. A state that is not a regular file
(``/dev/stdout``, a pipe), or whose lock file cannot be created (a missing or read-only directory: the
write reports that), is not locked. A lock file of another user is locked all the same (opened for reading
when it cannot be written); one this user cannot open at all is refused, exit 1 (:func:`open_lock_file`).
"""
from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Iterator

from ..errors import OutputError, UsageError


def open_lock_file(lock: str, path: str) -> int | None:
    """A descriptor of the lock file ``lock`` of ``path`` (a state, a store), to ``flock``: created if missing
    (None when it cannot be: a missing or read-only directory, whose write then reports it). An existing lock
    this user may not write (another user's: the lock of their process, or left by one that ended) is opened
    for reading, which ``flock`` takes as well; one this user may not open at all is refused
    (:class:`~pref_eval.errors.OutputError`, exit 1): whether another process holds it cannot be known."""
    try:
        return os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except PermissionError as err:
        if not os.path.lexists(lock):
            return None
        try:
            return os.open(lock, os.O_RDONLY)
        except OSError:
            reason = os.strerror(err.errno or errno.EACCES)
            raise OutputError(f"{lock}: cannot open the lock file of {path}: {reason} (it tells whether another "
                              "process is using it; nothing changed)") from None
    except OSError:
        return None


def note_holder(fd: int) -> None:
    """Write this process's pid into the lock file (when it was opened for writing)."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)


def _acquire(lock: str, deadline: float, path: str, holder: str) -> int | None:
    """An fd holding the exclusive lock on the current file ``lock``; None if it cannot be created."""
    import fcntl

    while True:
        fd = open_lock_file(lock, path)
        if fd is None:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            if time.monotonic() >= deadline:
                raise UsageError(f"{path}: in use by {holder}" + (f" (pid {other})" if other.isdigit() else "")
                                 + "; nothing changed, run the command again when it has finished") from None
            time.sleep(0.05)
            continue
        try:
            same = os.stat(lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # the holder removed it on release: lock the new one


@contextlib.contextmanager
def state_lock(path: str, wait: float = 30.0, holder: str = "another process") -> Iterator[None]:
    """Hold the exclusive lock of the state ``path`` for the ``with`` block (see the module docstring)."""
    if os.path.exists(path) and not os.path.isfile(path):
        yield
        return
    lock = path + ".lock"
    fd = _acquire(lock, time.monotonic() + wait, path, holder)
    if fd is None:
        yield
        return
    try:
        note_holder(fd)
        yield
    finally:
        with contextlib.suppress(OSError):
            st, held = os.stat(lock), os.fstat(fd)
            if (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino):  # not a file written over it meanwhile
                os.unlink(lock)
        os.close(fd)  # releases the lock
