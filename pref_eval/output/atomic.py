"""Atomic output files: every command writes its results through this module.

Rules (documented in docs/exit-codes.md, section "Output files"):

* ``None`` or ``-`` is standard output.
* A regular file (new or existing) is written to a temporary file in the
  target's directory (``.tmp-*``), flushed, ``fsync``-ed and renamed over the
  target only when everything succeeded: a failure (an exception, disk full,
  Ctrl-C, SIGTERM) leaves the old file as it was and removes the temporary file.
  The new file keeps the old file's permission bits, owner and group as far as allowed
  (umask default otherwise), and its POSIX access ACL and ``user.*`` extended attributes, set on the
  open file (never through its name, which another user of a shared directory could have swapped for
  a link). An owner or group that could not be kept (a user who is not root replacing another user's
  file: only root gives a file away), or extended attributes the filesystem refused, are said in one
  warning line each after the rename (:func:`notices_to`), never refused: the rename is what keeps
  the old file whole until the new one is complete.
* A symbolic link is followed: the file it points to is replaced, the link
  itself stays a link. The file is found as the kernel finds it (:func:`target`):
  ``nosub/../x`` is a missing directory, never ``x``.
* A character or block device, a FIFO or a socket (``/dev/null``, ``/dev/stdout``
  also when it is a pipe, a named pipe) is written through directly, never replaced.
* A directory, a missing directory, a read-only file or directory, a file of
  another user in a sticky directory (which this process may not replace) are
  refused with :class:`~pref_eval.errors.OutputError` naming the path and the
  reason (exit status 1), before anything is written.
* An output that is the same file as one of the command's inputs (same
  device and inode, or same real path) is refused with
  :class:`~pref_eval.errors.UsageError` (exit status 2) before anything is
  written; so are two outputs of one command naming the same file, and standard
  output when it is a regular file that is one of the inputs (``cmd RUN >> RUN``).
* An ``OSError`` naming another file (an input, a lock) raised while the outputs are
  open propagates as it is (reported under that file's name), not as a write error.
* Several outputs of one command (:func:`output_files`) are committed together:
  all temporary files are written and synced first, then renamed; if any of
  them fails, none replaces its target.
"""
from __future__ import annotations

import contextlib
import contextvars
import errno
import io
import os
import stat
import sys
from typing import IO, Any
from collections.abc import Callable, Iterator, Mapping, Sequence

from ..errors import OutputError, UsageError


_NOTICE: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar("pref_eval_output_notice",
                                                                                      default=None)


@contextlib.contextmanager
def notices_to(write: Callable[[str], None]) -> Iterator[None]:
    """Within the block, the output layer's notices (an owner or group of a replaced file that could not be
    kept) go to ``write`` -- the commands' stderr line (cli/common.py); outside one, a
    :class:`~pref_eval.errors.PrefEvalWarning` (the Python API)."""
    token = _NOTICE.set(write)
    try:
        yield
    finally:
        _NOTICE.reset(token)


def notify(message: str) -> None:
    """A notice: the running command's warning line (``-Q`` silences it), else a PrefEvalWarning."""
    write = _NOTICE.get()
    if write is not None:
        write(message)
        return
    import warnings

    from ..errors import PrefEvalWarning

    warnings.warn(message, PrefEvalWarning, stacklevel=2)


def is_stdout(path: str | None) -> bool:
    """``None`` and ``-`` mean standard output."""
    return path is None or path == "-"


def _describe(err: OSError) -> str:
    if err.errno is not None:
        return os.strerror(err.errno)
    return str(err)


def output_error(path: str, err: OSError) -> OutputError:
    """One-line error for an ``OSError`` met while writing ``path``."""
    name = "standard output" if is_stdout(path) else path
    return OutputError(f"{name}: cannot write: {_describe(err)}")


def _same_file(a: str, b: str) -> bool:
    try:
        sa, sb = os.stat(a), os.stat(b)
    except (OSError, ValueError):
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


EMPTY_NAME = " (an unset shell variable?); write - for standard output"


def refuse_empty_names(**named: tuple[str, str | None]) -> None:
    """A function's outputs, ``key=(flag, path)``: an empty path is a UsageError naming the option (the option's
    file would be silently not written where a caller tests the path's truth)."""
    from ..errors import option_name

    for key, (flag, path) in named.items():
        if path == "":
            raise UsageError(f"{option_name(key, flag)}: the file name is empty{EMPTY_NAME}")


def check_not_input(path: str | None, inputs: Mapping[str, Sequence[str]]) -> None:
    """Refuse ``path`` when it is the same file as one of ``inputs``.

    ``inputs`` maps an option name (for the message) to the paths given
    with it; ``-`` is standard input, one of the inputs when it is a regular file
    (``-J - -o F < F``). Paths that do not exist are not inputs (nothing to destroy).
    """
    if path == "":  # (`--output "$OUT"` with OUT unset wrote to standard output, or "cannot write: Is a directory")
        raise UsageError(f"output file name is empty{EMPTY_NAME}")
    if path is None or path == "-":
        out = _fd_file(sys.stdout)
        if out is not None:
            _refuse_if_input("standard output", "refusing to write into it", out, inputs)
        return
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return
    _refuse_if_input(f"output file {path}", "refusing to overwrite it", st, inputs)


def _fd_file(stream: Any) -> os.stat_result | None:
    """The regular file a standard stream's descriptor is open on (a redirection ``< F``, ``>> F``), else None
    (a terminal, a pipe, a stand-in or in-memory stream, a closed one)."""
    try:
        st = os.fstat(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def _refuse_if_input(what: str, refusal: str, st: os.stat_result, inputs: Mapping[str, Sequence[str]]) -> None:
    """UsageError when the file ``st`` is one of ``inputs``: ``what`` (the output) is the same file as ... .
    Standard output that is one of them (``cmd RUN >> RUN`` appends to its input; after ``cmd RUN > RUN`` the
    shell has emptied it) is refused too, as GNU cat's "input file is output file"."""
    for option, values in inputs.items():
        for value in values:
            if not value:
                continue
            if value == "-":
                si = _fd_file(sys.stdin)
                name = "- (standard input)"
            else:
                try:
                    si = os.stat(value)
                except (OSError, ValueError):
                    continue
                name = value
            if si is not None and (si.st_dev, si.st_ino) == (st.st_dev, st.st_ino):
                raise UsageError(f"{what} is the same file as {option} {name}; {refusal}")


def _stat_output(path: str) -> os.stat_result | None:
    """The status of the file an output ``path`` names, None when there is none yet; a directory is
    refused (:class:`OutputError`). The path itself is stat'ed, not its realpath: /dev/stdout on a pipe
    resolves to /proc/PID/fd/pipe:[N], a name that does not exist, while the kernel follows the link."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise output_error(path, err) from None
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{path}: cannot write: {os.strerror(errno.EISDIR)}")
    return st


def preflight(path: str | None, inputs: Mapping[str, Sequence[str]] | None = None, *, replaced: bool = True) -> None:
    """Fail early (before any long computation) for an output that :func:`output_file` would refuse:
    a missing directory, a directory, one of the inputs, an existing file it may not replace, a directory
    that takes no new file (read-only, no write permission). Nothing is
    created. ``replaced=False``: a file written in place by its own writer (zelo_judge's SQLite store), for
    which only where it is matters, not whether this process may replace it."""
    if is_stdout(path):
        return
    if path is None:  # is_stdout(None) is True
        raise RuntimeError("internal error: no output path")
    check_not_input(path, inputs or {})
    if _std_fd(path) is not None:
        return
    st = _stat_output(path)
    if st is None or stat.S_ISREG(st.st_mode):
        final = target(path)
        if st is not None and replaced:
            _check_replaceable(path, final)
        if st is None or replaced:
            _check_new_file(path, os.path.dirname(final), renamed=replaced)


def _check_new_file(path: str, directory: str, renamed: bool) -> None:
    """Refuse a directory that takes no new file (no write or search permission for this process, a read-only
    file system, ``chattr +i``): the output is written as a new file there and renamed over ``path``, which
    the writing would find only after the work. The message is the writing's own (the reason the kernel
    would give: read-only file system, else permission denied -- or, for root, whom permissions do not
    stop, operation not permitted)."""
    if os.access(directory, os.W_OK | os.X_OK, effective_ids=os.access in os.supports_effective_ids):
        _probe_new_file(path, directory, renamed)
        return
    try:
        read_only = bool(os.statvfs(directory).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    code = errno.EROFS if read_only else errno.EPERM if os.geteuid() == 0 else errno.EACCES
    how = f" (creating a new file in directory {os.path.dirname(path) or '.'}, renamed over it when complete)"
    raise OutputError(f"{path}: cannot write: {os.strerror(code)}{how if renamed else ''}")


def _probe_new_file(path: str, directory: str, renamed: bool) -> None:
    """A directory whose permissions allow a new file that the file system still refuses (``/proc``, ``/sys`` and
    other virtual file systems to root, whom permissions do not stop; before session 30 found by the writing,
    after the work): a file is created there and removed at once. Linux's ``O_TMPFILE`` makes it a file without
    a name (nothing ever appears in the directory); where the file system does not support that, a hidden
    ``.tmp-probe-*`` name, created and unlinked with the signals held (as the writing's own temporary file), so
    nothing is left behind. The refusal is the writing's own message."""
    name = None
    with signals_held():
        try:
            try:
                fd = os.open(directory, os.O_TMPFILE | os.O_WRONLY, 0o600)
            except (AttributeError, OSError) as err:  # (O_TMPFILE: Linux only; EOPNOTSUPP/EISDIR/EINVAL: no support)
                if isinstance(err, OSError) and err.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
                    raise
                name = os.path.join(directory, f".tmp-probe-{os.getpid()}-{os.urandom(4).hex()}")
                fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError as err:
            how = f" (creating a new file in directory {os.path.dirname(path) or '.'}, renamed over it when complete)"
            raise OutputError(f"{path}: cannot write: {_describe(err)}{how if renamed else ''}") from None
        os.close(fd)
        if name is not None:
            with contextlib.suppress(OSError):
                os.unlink(name)


def _check_replaceable(path: str, final: str) -> None:
    """Refuse an existing file ``final`` (``path`` as given) that this process may not replace, before anything
    is written (:class:`OutputError`, exit 1): a file it may not write -- a read-only file, as ``cp`` and
    ``sort -o`` refuse it (root writes it, as they do) -- and, in a sticky directory (``/tmp``), a file of
    another user: the kernel refuses the rename over it (EPERM), found only after the output was written --
    and, with several outputs, after the others were renamed."""
    euid = os.geteuid()
    if euid == 0:
        return
    if not os.access(final, os.W_OK, effective_ids=os.access in os.supports_effective_ids):
        raise OutputError(f"{path}: cannot write: {os.strerror(errno.EACCES)}")
    try:
        st, dst = os.stat(final), os.stat(os.path.dirname(final))
    except OSError:
        return  # the opening reports it
    if dst.st_mode & stat.S_ISVTX and euid not in (st.st_uid, dst.st_uid):
        raise OutputError(f"{path}: cannot write: {os.strerror(errno.EPERM)} (a file of another user in the sticky "
                          f"directory {os.path.dirname(path) or '.'}: only its owner may replace it)")


def target(path: str) -> str:
    """The absolute name of the file that writing ``path`` creates or replaces, resolved as the kernel
    resolves it: every directory on the way must exist (``nosub/../x`` names no file -- the kernel says
    ENOENT -- though :func:`os.path.realpath` makes it ``x``, which may be an input), and a symbolic link
    as the last component is followed (a dangling one to where it points). A name ending in ``/``, ``.``
    or ``..`` is a directory. Raises :class:`OutputError` naming ``path`` and the reason."""
    p = path
    for _ in range(41):  # the kernel's limit on symbolic links followed (40)
        head, tail = os.path.split(p)
        if tail in ("", ".", ".."):
            raise OutputError(f"{path}: cannot write: {os.strerror(errno.EISDIR)}")
        directory = head or "."
        try:
            st = os.stat(directory)
        except FileNotFoundError:
            raise OutputError(f"{path}: cannot write: directory {directory} does not exist") from None
        except OSError as err:
            raise output_error(path, err) from None
        if not stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{path}: cannot write: {os.strerror(errno.ENOTDIR)}")
        try:
            full = os.path.join(os.path.realpath(directory), tail)  # every component exists: realpath is exact
        except OSError as err:  # a current directory that was removed (getcwd: ENOENT)
            raise output_error(path, err) from None
        try:
            link = os.readlink(full)
        except OSError:  # not a symbolic link (or no file yet): this is the file
            return full
        p = os.path.join(os.path.dirname(full), link)
    raise OutputError(f"{path}: cannot write: {os.strerror(errno.ELOOP)}")


def _std_fd(path: str) -> int | None:
    """1 or 2 when ``path`` reaches file descriptor 1 or 2 through its names (``/dev/stdout``,
    ``/dev/fd/1``, ``/proc/self/fd/1``, the same for stderr, or a link to one of them), whatever the
    descriptor is open on; else None."""
    names = {}
    for fd, dev in ((1, "/dev/stdout"), (2, "/dev/stderr")):
        for name in (dev, f"/dev/fd/{fd}", f"/proc/self/fd/{fd}", f"/proc/thread-self/fd/{fd}",
                     f"/proc/{os.getpid()}/fd/{fd}"):
            names[name] = fd
    try:
        p = os.path.abspath(path)
    except OSError:  # a relative name in a removed current directory: no descriptor's name
        return None
    for _ in range(40):  # the kernel's limit on symbolic links followed
        if p in names:
            return names[p]
        try:
            link = os.readlink(p)
        except OSError:
            return None
        p = os.path.normpath(os.path.join(os.path.dirname(p), link))
    return None


def _stdout_closed() -> bool:
    """Standard output was closed when the command started (cli/common.py puts /dev/null on fd 1
    and a stand-in object that refuses writes on ``sys.stdout``)."""
    return sys.stdout is None or bool(getattr(sys.stdout, "closed", False))


class _LabelledFile(io.FileIO):
    """A raw file whose write errors carry the user's name for it (``err.filename``),
    so an error met inside a command's writing loop names the right output."""

    def __init__(self, file: int | str, mode: str, label: str) -> None:
        super().__init__(file, mode)
        self.label = label

    def write(self, b) -> int | None:  # type: ignore[override]
        try:
            return super().write(b)
        except OSError as err:
            if err.filename is None:
                err.filename = self.label
            raise


def _wrap(raw: _LabelledFile, binary: bool) -> IO:
    buf = io.BufferedWriter(raw)
    # surrogateescape: an id that was not UTF-8 in the input is written back as its bytes (as on stdout)
    return buf if binary else io.TextIOWrapper(buf, encoding="utf-8", newline="\n", errors="surrogateescape")


class _Target:
    """One output of a transaction: a temp file to rename, or a direct stream."""

    def __init__(self, path: str | None, binary: bool) -> None:
        self.path = path
        self.binary = binary
        self.tmp: str | None = None
        self.final: str | None = None
        self.stream: IO | None = None
        self.direct = False
        self.buffered = False
        self.note: list[str] = []  # an owner or group, extended attributes of the replaced file not kept

    def open(self, buffered_stdout: bool) -> IO:
        path = self.path
        if is_stdout(path):
            self.direct = True
            if buffered_stdout:
                self.buffered = True
                self.stream = io.BytesIO() if self.binary else io.StringIO()
                return self.stream
            if sys.stdout is None:
                raise OutputError("standard output: cannot write: standard output is closed")
            self.stream = sys.stdout.buffer if self.binary else sys.stdout
            return self.stream
        if path is None:  # is_stdout(None) is True
            raise RuntimeError("internal error: no output path")
        std = _std_fd(path)
        if std is not None:
            return self._open_std(path, std)
        st = _stat_output(path)
        if st is not None and (stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) or stat.S_ISFIFO(st.st_mode)
                               or stat.S_ISSOCK(st.st_mode)):
            # a device, a pipe or a socket: write through, never replace it
            try:
                fh = _wrap(_LabelledFile(path, "w", path), self.binary)
            except OSError as err:
                raise output_error(path, err) from None
            self.direct = True
            self.stream = fh
            return fh
        final = target(path)  # symbolic links followed: what they point to is replaced
        directory = os.path.dirname(final)
        if st is not None:
            _check_replaceable(path, final)
        import tempfile  # only when writing a file, not for stdout (start-up, issue #13)

        with signals_held():  # a Ctrl-C between the file's creation and its record here would leave it behind
            try:
                ext = os.path.splitext(final)[1]  # kept when short: a legal 255-byte name may be mostly extension
                fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=ext if len(ext) <= 16 else "", dir=directory)
            except OSError as err:
                # the file itself may be writable: what failed is a new file beside it (written, then renamed)
                raise OutputError(f"{path}: cannot write: {_describe(err)} (creating a new file in directory "
                                  f"{os.path.dirname(path) or '.'}, renamed over it when complete)") from None
            self.tmp, self.final = tmp, final
        try:
            self.stream = _wrap(_LabelledFile(fd, "w", path), self.binary)
        except BaseException:
            os.close(fd)
            raise
        return self.stream

    def _open_std(self, path: str, std: int) -> IO:
        """/dev/stdout, /dev/stderr: write through a copy of the descriptor itself, which also works
        when it is a socket (reopening /proc/self/fd/N of a socket fails with ENXIO); a standard
        output closed when the command started (``>&-``) is refused."""
        if std == 1 and _stdout_closed():
            raise OutputError(f"{path}: cannot write: standard output is closed")
        if std == 2 and getattr(sys.stderr, "stream_closed", False):  # cli/common.py: fd 2 was closed (``2>&-``)
            raise OutputError(f"{path}: cannot write: standard error is closed")
        try:
            fd = os.dup(std)
        except OSError as err:
            raise output_error(path, err) from None
        self.direct = True
        self.stream = _wrap(_LabelledFile(fd, "w", path), self.binary)
        return self.stream

    def finish(self) -> None:
        """Flush and sync (temp file), or flush (direct stream); raise OutputError on failure."""
        s = self.stream
        if s is None:
            return
        try:
            if self.tmp is not None:
                s.flush()
                self.note = _set_mode(s.fileno(), self.final, self.path or "-")
                os.fsync(s.fileno())
                s.close()
            elif self.direct and not is_stdout(self.path):
                s.close()
        except BrokenPipeError:
            raise  # the reader of a pipe has gone (``--output /dev/stdout | head``): not an error
        except OSError as err:
            raise output_error(self.path or "-", err) from None

    def emit_buffered(self) -> None:
        """Write a buffered stdout text (multi-output transactions)."""
        if not self.buffered or self.stream is None:
            return
        if sys.stdout is None:
            raise OutputError("standard output: cannot write: standard output is closed")
        if not isinstance(self.stream, (io.StringIO, io.BytesIO)):  # buffered: opened as one of those
            raise RuntimeError("internal error: a buffered output that is not in memory")
        data = self.stream.getvalue()
        out: IO[Any] = sys.stdout.buffer if self.binary else sys.stdout  # bytes when binary, else text
        try:
            out.write(data)
            out.flush()
        except BrokenPipeError:
            raise
        except OSError as err:
            raise output_error("-", err) from None

    def commit(self) -> None:
        if self.tmp is None or self.final is None:  # both are set together, or neither
            return
        try:
            os.replace(self.tmp, self.final)
        except OSError as err:
            raise output_error(self.path or "-", err) from None
        self.tmp = None

    def discard(self) -> None:
        if self.stream is not None and self.tmp is not None:
            with contextlib.suppress(Exception):
                self.stream.close()
        if self.direct and not is_stdout(self.path) and self.stream is not None:
            with contextlib.suppress(Exception):
                self.stream.close()
        if self.tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)
            self.tmp = None


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back for the ``with`` block: one that arrives meanwhile is handled (the
    handler it would have met: KeyboardInterrupt, :class:`~pref_eval.cli.common.Terminated`) right after
    it, so that the block's steps -- creating and recording a temporary file, renaming every output,
    removing the temporary files -- are done whole. The Python handlers are swapped, not the signal mask:
    a process-directed signal goes to any thread that does not block it (numpy's BLAS threads), and the
    main thread then runs the Python handler whatever its own mask. Only in the main thread (Python's
    handlers can be set there only); a handler not set from Python is left alone."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def later(signum: int, frame: object) -> None:  # noqa: ARG001 - a signal handler's signature
        pending.append(signum)

    old: dict[int, Any] = {}
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            handler = signal.getsignal(sig)
            if handler is not None and handler != signal.SIG_IGN:
                old[sig] = signal.signal(sig, later)
        yield
    finally:
        for signum, previous in old.items():
            signal.signal(signum, previous)
        if pending:
            handler = old[pending[0]]
            if callable(handler):
                handler(pending[0], None)
            else:  # SIG_DFL: the default action (the process ends)
                signal.raise_signal(pending[0])


def _set_mode(fd: int, target: str | None, label: str) -> list[str]:
    """Give the new file (open on ``fd``) the target's mode, owner and group as far as the process may, or the
    umask default (mkstemp uses 0600), and its access ACL and ``user.*`` extended attributes
    (:func:`_copy_xattrs`). Root keeps every owner; a user who is not root keeps the group when
    a member of it (GNU ``sed -i`` does the same), never another user's ownership. Returns the notices
    for an owner or group and extended attributes that could not be kept (``label``: the output as given).
    Through the descriptor: a name in a directory others may write could be swapped for a link by then."""
    try:
        old = os.stat(target) if target else None
    except OSError:
        old = None
    if old is None:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    else:
        mode = old.st_mode & 0o7777
        with contextlib.suppress(OSError):
            new = os.fstat(fd)
            if (new.st_uid, new.st_gid) != (old.st_uid, old.st_gid):  # before chmod: chown clears set-id bits
                try:
                    os.fchown(fd, old.st_uid, old.st_gid)
                except OSError:
                    os.fchown(fd, -1, old.st_gid)  # a group the owner belongs to
    with contextlib.suppress(OSError):
        os.fchmod(fd, mode)
    if old is None:
        return []
    lost = _copy_xattrs(target, fd) if target else []  # after fchmod: an access ACL sets the group bits (mask)
    try:
        new = os.fstat(fd)
    except OSError:
        new = old
    notes = []
    if (new.st_uid, new.st_gid) != (old.st_uid, old.st_gid):
        notes.append(f"{label}: was owned by {_owner(old)}, now by {_owner(new)} (the output is a new file renamed "
                     "over the old one; only root may give a file to another user, or to a group its owner is not in)")
    if lost:
        notes.append(f"{label}: its extended attribute(s) {', '.join(lost)} could not be kept on the new file "
                     "(the output is a new file renamed over the old one)")
    return notes


#: The extended attributes a replaced output keeps: its POSIX access ACL (``setfacl``) and the user namespace
#: (``setfattr -n user.x``). Not ``security.*`` (SELinux labels, file capabilities: the new file gets its own
#: from the system's policy) nor ``trusted.*`` (root's), nor a directory's default ACL (a file has none).
_KEPT_XATTR = ("system.posix_acl_access", "user.")
_ACL = "system.posix_acl_access"


def _copy_xattrs(target: str, fd: int) -> list[str]:
    """Give the new file (open on ``fd``) the replaced file's POSIX access ACL and ``user.*`` extended attributes
    (:data:`_KEPT_XATTR`; ``cp -a`` and GNU ``sed -i`` keep the ACL too), and drop an access ACL the new file
    inherited from its directory's default ACL that the old file did not have: the new file's permissions are
    then the old one's. On the descriptor, as the mode. Returns the names that could not be kept (the
    filesystem or the process refused them); nothing on a system without extended attributes."""
    if not hasattr(os, "listxattr"):  # pragma: no cover - not Linux
        return []
    try:
        names = [n for n in os.listxattr(target) if n == _ACL or n.startswith("user.")]
    except OSError:  # no extended attributes here (ENOTSUP), or the old file is gone
        return []
    lost = []
    for n in names:
        try:
            os.setxattr(fd, n, os.getxattr(target, n))
        except OSError:
            lost.append(n)
    if _ACL not in names:
        with contextlib.suppress(OSError):
            os.removexattr(fd, _ACL)  # ENODATA: none inherited, the usual case
    return lost


def _owner(st: os.stat_result) -> str:
    """``user:group`` of a file: names where the system has them, else numbers."""
    try:
        import grp
        import pwd
    except ImportError:  # pragma: no cover - not a POSIX system
        return f"{st.st_uid}:{st.st_gid}"
    try:
        user = pwd.getpwuid(st.st_uid).pw_name
    except (KeyError, OSError):
        user = str(st.st_uid)
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except (KeyError, OSError):
        group = str(st.st_gid)
    return f"{user}:{group}"


def _check_distinct(paths: Sequence[str | None]) -> None:
    """Refuse two outputs naming one file, standard output redirected to one of the others among them
    (``zelo_fit -J J --qrels Q > Q``: Q would be renamed over the file standard output writes into)."""
    seen: list[str] = []
    out = _fd_file(sys.stdout) if any(p is None or is_stdout(p) for p in paths) else None
    for p in paths:
        if p is None or is_stdout(p):
            continue
        try:
            real = target(p)
        except OutputError:
            continue  # no file can be written there: opening it reports why
        for q in seen:
            if q == real or _same_file(q, real):
                raise UsageError(f"two outputs name the same file {p}")
        if out is not None:
            with contextlib.suppress(OSError):
                st = os.stat(real)
                if (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino):
                    raise UsageError(f"two outputs name the same file {p}: standard output is {p} too")
        seen.append(real)


@contextlib.contextmanager
def output_files(paths: Sequence[str | None], *, inputs: Mapping[str, Sequence[str]] | None = None,
                 binary: bool = False) -> Iterator[list[IO]]:
    """Yield one stream per path; commit them all when the block succeeds.

    ``None`` entries that are not stdout are not allowed; give ``-`` or
    ``None`` for stdout. When stdout is one of several outputs its text is held
    in memory and written only after every file has been written and synced,
    so a failing file leaves stdout empty. Errors: :class:`OutputError`
    (exit 1), :class:`UsageError` (exit 2) for an output that is an input.
    """
    paths = list(paths)
    _check_distinct(paths)
    for p in paths:
        check_not_input(p, inputs or {})
    targets = [_Target(p, binary) for p in paths]
    buffered = len(paths) > 1
    try:
        streams = [t.open(buffered) for t in targets]
        try:
            yield streams
        except OSError as err:
            if isinstance(err, BrokenPipeError) or _other_file(targets, err):
                raise  # another file's error (an input, a lock) is reported under its own name
            raise output_error(_failed_path(targets, err), err) from None
        # every output is complete here: a pipe whose reader has gone (``zelo_fit --qrels Q | head``)
        # does not stop the files from being committed; the BrokenPipeError (exit 0) comes after
        broken: BrokenPipeError | None = None
        for t in targets:
            try:
                t.finish()
            except BrokenPipeError as err:
                broken = err
        for t in targets:
            try:
                t.emit_buffered()
            except BrokenPipeError as err:
                broken = err
        with signals_held():  # all renamed, or none: a signal here is handled after the last
            for t in targets:
                t.commit()
        for t in targets:
            for line in t.note:  # the owner, the extended attributes: one notice each
                notify(line)
        if broken is not None:
            raise broken
    finally:
        try:
            with signals_held():  # a second Ctrl-C while the first one's clean-up runs leaves no .tmp file
                for t in targets:
                    t.discard()
        except BaseException:  # a signal handled as the signals were held (already on its way): clean up still
            for t in targets:
                t.discard()
            raise


def _other_file(targets: list[_Target], err: OSError) -> bool:
    """``err`` names a file that is none of the outputs (writes to an output carry its name, a write to
    standard output none): an input that failed while the outputs were open, a lock file."""
    return err.filename is not None and err.filename not in [t.path for t in targets]


def _failed_path(targets: list[_Target], err: OSError) -> str:
    """The output an OSError raised while writing came from (its label), else the first real file."""
    names = [t.path for t in targets if t.path]
    if err.filename in names:
        return err.filename
    real = [t for t in targets if t.stream is not None and not t.buffered]
    return (real[0].path if real else None) or "-"


@contextlib.contextmanager
def output_file(path: str | None, *, inputs: Mapping[str, Sequence[str]] | None = None,
                binary: bool = False) -> Iterator[IO]:
    """One output (see :func:`output_files`)."""
    with output_files([path], inputs=inputs, binary=binary) as (stream,):
        yield stream


# The paths of a command's options, in option order: ``[(option name, [path, ...]), ...]``; the
# command line passes every string value it was given, the API functions their own input paths.
InputOptions = Sequence[tuple[str, Sequence[str]]]


OUTPUT_OPTIONS = ("-o", "--output", "output")
"""Names of the plain output option (command line, API parameter): the first to leave out of an output's inputs."""


def inputs_besides(path: str | None, options: InputOptions) -> dict[str, list[str]]:
    """The inputs ``path`` must not be: ``options`` without ``path`` under the output option (``-o``) if that
    gave it, else under the first option that gave it.

    A file may be read and rewritten by the same option (``zelo_pairs add --state``), never by two
    different ones; a later option of the same name replaces an earlier one (a group's options).
    """
    found: dict[str, list[str]] = {}
    if path == "-":  # standard output: an input ``-`` is standard input, another stream (``-J - > F``)
        path = None
    # the output option itself, when it gave the path (``-o F`` over ``--docs F`` names --docs), else the first
    own = next((n for n, v in options if n in OUTPUT_OPTIONS and path in v), None) if path is not None else None
    own_dropped = False
    for name, values in options:
        vals = list(values)
        if not own_dropped and path is not None and path in vals and (own is None or name == own):
            vals = [x for x in vals if x != path] if len(vals) > 1 else []
            own_dropped = True
        if vals:
            found[name] = vals
    return found


@contextlib.contextmanager
def command_outputs(paths: Sequence[str | None], options: InputOptions, *,
                    binary: bool = False) -> Iterator[list[Any]]:
    """A command's outputs: each refused when it is one of ``options``' other paths, then written
    together (:func:`output_files`: all committed, or none)."""
    for p in paths:
        check_not_input(p, inputs_besides(p, options))
    with output_files(list(paths), binary=binary) as streams:
        yield streams


@contextlib.contextmanager
def command_output(path: str | None, options: InputOptions, *, binary: bool = False) -> Iterator[Any]:
    """One output of a command (:func:`command_outputs`): a text stream (``TextIO``), or binary."""
    with command_outputs([path], options, binary=binary) as (stream,):
        yield stream
