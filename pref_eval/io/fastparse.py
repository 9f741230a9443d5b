"""Fast path for regular TREC files: pyarrow's streaming CSV parser, then exact checks.

:func:`fast_columns` returns the kept columns of a file (bytes in memory, or a
plain file read straight from its path in small blocks) when the file is
*regular* -- one delimiter (a single space or a single tab) between fields,
the same number of fields on every line, no blank or comment lines, no other
white space or control bytes -- and ``None`` otherwise; the caller then uses
the general tokenizer (:func:`pref_eval.io.tokenize.split_lines`), which also
produces the error messages with line numbers. Both paths give the same
columns for every file the fast path accepts:

* a raw byte pass (numpy, 16 MB at a time) refuses the other delimiter, the
  bytes ``\\v \\f``, any control byte below ``\\x0e`` other than ``\\n`` and
  ``\\t`` (the general path's white space), and a ``\\r`` not followed by ``\\n``;
  it also counts the lines;
* the field count is taken from the first line and pyarrow refuses any line
  with another count; every column (kept or not) is parsed as bytes per
  block and an empty field (two delimiters in a row, a leading or trailing
  delimiter) sends the file to the general path;
* blank lines make pyarrow see a one-field row (``ignore_empty_lines`` off),
  so with no blank line row ``i`` is line ``i + 1``;
* a first field starting with ``#`` (a comment line) sends the file to the
  general path;
* numbers are parsed by pyarrow, which accepts a subset of what Python's
  ``float``/``int`` accept (no ``1_0``, no non-ASCII digits): anything it
  refuses, and any NaN, goes to the general path, which decides.

Memory: the parse holds one small block at a time (``BLOCK``) and writes the
kept columns into arrays sized from the line count, so the peak is the output
plus a few MB (the file itself is never held when a path is given).
"""
from __future__ import annotations

import contextlib
import io
import os
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..records import record

# kinds of kept columns: "S" bytes (numpy S array), "f8" float64, "i8" int64, "T" the column's distinct values
# (a structured array of ``value`` (S) and ``row`` (int64, 0-based first row) in row order: a run's tags)
BLOCK = 1 << 20  # pyarrow block: its stream reader reads ahead many blocks, keep them small
_CHUNK = 1 << 24  # raw check pass


def fast_columns(
    data: bytes | str | os.PathLike,
    *,
    min_fields: int,
    max_fields: int | None,
    kinds: dict[int, str],
) -> dict[int, np.ndarray] | None:
    """Columns ``{index: array}`` for the kept fields, or ``None`` (use the general path).

    ``data`` is the file content, or the path of a plain (not compressed, no
    BOM) file, which is then streamed from disk. A large input is cut at a
    line end into ``PARTS`` byte ranges parsed by as many threads (pyarrow
    parses without the GIL), each writing its own rows of the output.
    """
    in_memory = isinstance(data, (bytes, bytearray, memoryview))
    size = len(data) if isinstance(data, (bytes, bytearray, memoryview)) else os.path.getsize(data)
    if size < PYARROW_MIN:  # the numpy tokenizer is as fast there, and pyarrow's import costs ~0.1 s
        return None
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover
        return None
    scan = _raw_scan(data, PARTS if size >= SPLIT_MIN else 1)
    if scan is None:
        return None
    nrows, delim, ncols, cuts = scan
    if ncols < min_fields or (max_fields is not None and ncols > max_fields):
        return None
    from .tokenize import MAX_FIELD, column_budget

    job = _ParseJob(
        data=data, in_memory=in_memory, size=size, buf=pa.py_buffer(data) if in_memory else None,
        opts=_arrow_options(delim, ncols, kinds), ncols=ncols, kinds=kinds,
        out=_empty_columns(kinds, ncols, nrows), lock=threading.Lock(),
        # wider: the general path refuses it by line
        max_width=min(MAX_FIELD, column_budget(size) // max(nrows, 1)), found={},
    )
    parts = _parts(size, nrows, cuts)
    if len(parts) == 1:
        ok = job.parse(parts[0])
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(len(parts)) as ex:
            ok = all(list(ex.map(job.parse, parts)))
    if size >= TRIM_MIN:  # malloc_trim costs ~0.3 ms a call: not worth it for small files
        release_memory()
    if not ok or nrows == 0:
        return None
    for i, kind in kinds.items():
        if kind == "T" and i < ncols:
            job.out[i] = _distinct(job.found)
    return job.out


def _distinct(found: dict[bytes, int]) -> np.ndarray:
    """``found`` (value -> first row) as the "T" kind's structured array, in row order."""
    width = max((len(v) for v in found), default=1) or 1
    out = np.zeros(len(found), dtype=[("value", f"S{width}"), ("row", np.int64)])
    for k, (v, r) in enumerate(sorted(found.items(), key=lambda x: x[1])):  # one step per distinct value
        out[k] = (v, r)
    return out


def _arrow_options(delim: str, ncols: int, kinds: dict[int, str]) -> dict:
    """pyarrow's CSV options: fields ``f0..``, no quoting, kept kinds' types, nothing null."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names = [f"f{i}" for i in range(ncols)]
    types = {}
    for i, name in enumerate(names):
        kind = kinds.get(i)
        types[name] = pa.float64() if kind == "f8" else pa.int64() if kind == "i8" else pa.binary()
    return dict(
        read_options=pcsv.ReadOptions(column_names=names, block_size=BLOCK, use_threads=False),
        parse_options=pcsv.ParseOptions(delimiter=delim, quote_char=False, double_quote=False,
                                        escape_char=False, newlines_in_values=False,
                                        ignore_empty_lines=False),
        convert_options=pcsv.ConvertOptions(column_types=types, null_values=[], true_values=[],
                                            false_values=[], strings_can_be_null=False,
                                            quoted_strings_can_be_null=False),
        memory_pool=pa.system_memory_pool(),
    )


def _empty_columns(kinds: dict[int, str], ncols: int, nrows: int) -> dict[int, np.ndarray]:
    """The output arrays, one per kept column present in the file (bytes columns start 1 wide)."""
    out: dict[int, np.ndarray] = {}
    for i, kind in kinds.items():
        if i < ncols and kind != "T":  # "T": filled in at the end from the distinct values found
            out[i] = np.zeros(nrows, dtype="S1" if kind == "S" else np.float64 if kind == "f8" else np.int64)
    return out


def _parts(size: int, nrows: int, cuts: list[tuple[int, int]]) -> list[tuple[int, int, int, int]]:
    """(first byte, end byte, first row, end row) of each part between the ``cuts``."""
    bounds = [(0, 0)] + cuts + [(size, nrows)]
    return [(bounds[k][0], bounds[k + 1][0], bounds[k][1], bounds[k + 1][1]) for k in range(len(bounds) - 1)]


@record
class _ParseJob:
    """One file's parse: what every part shares (the parts write disjoint rows of ``out``)."""

    data: bytes | str | os.PathLike
    in_memory: bool
    size: int
    buf: Any  # pyarrow.Buffer of in-memory data (pyarrow is imported lazily)
    opts: dict
    ncols: int
    kinds: dict[int, str]
    out: dict[int, np.ndarray]
    lock: threading.Lock
    max_width: int
    found: dict[bytes, int]  # a "T" column's distinct values and the first row of each

    def parse(self, part: tuple[int, int, int, int]) -> bool:
        """Parse bytes ``b0:b1`` into rows ``r0:r1``; False = not regular (or a parse error)."""
        import pyarrow as pa
        import pyarrow.csv as pcsv

        b0, b1, r0, r1 = part
        raw = None
        if self.in_memory:
            source = pa.BufferReader(self.buf.slice(b0, b1 - b0))
        elif b0 == 0 and b1 == self.size:
            source = os.fspath(self.data)
        else:
            raw = _ByteRange(os.fspath(self.data), b0, b1)
            source = pa.PythonFile(raw, mode="r")
        try:
            row = r0
            for batch in pcsv.open_csv(source, **self.opts):
                n = batch.num_rows
                if n == 0:
                    continue
                if row + n > r1 or not _take_batch(batch, self.ncols, self.kinds, self.out, row, self.lock,
                                                   self.max_width, self.found):
                    return False
                row += n
            return row == r1
        except (pa.ArrowException, ValueError, OSError):
            return False
        finally:
            if not isinstance(source, str):
                source.close()
            if raw is not None:
                raw.close()


PYARROW_MIN = 1 << 20  # smaller inputs: the general path (start-up of small commands)
PARTS = 2  # threads (the machines this targets have 2+ cores)
SPLIT_MIN = 1 << 25  # inputs below 32 MB are parsed in one piece
TRIM_MIN = 1 << 24  # give freed memory back to the OS after inputs of 16 MB or more


def _take_batch(batch, ncols: int, kinds: dict[int, str], out: dict[int, np.ndarray], row: int,
                lock, max_width: int = 1 << 62, found: dict[bytes, int] | None = None) -> bool:
    """Check one record batch and write its kept columns at ``row`` (a "T" column's distinct values into
    ``found``); False = not regular."""
    n = batch.num_rows
    for i in range(ncols):
        col = batch.column(i)
        if col.null_count:
            return False
        kind = kinds.get(i)
        if kind == "S" or kind is None:
            offs, base = _binary_parts(col)
            lens = np.diff(offs)
            if int(lens.min()) == 0 or int(lens.max()) > max_width:
                return False
            if i == 0 and bool((base[offs[:-1]] == 35).any()):  # '#': a comment line
                return False
            if kind == "S":
                with lock:  # another part may widen the shared array meanwhile
                    out[i] = _put_S(out[i], row, offs, lens, base)
        elif kind == "T":
            offs, base = _binary_parts(col)
            lens = np.diff(offs)
            lo, hi = int(lens.min()), int(lens.max())
            if lo == 0 or hi > max_width:
                return False
            values = _batch_distinct(offs, lens, base, row, lo == hi)
            with lock:  # the parts' batches come in any order: keep each value's first row
                for v, r in values.items():
                    if found is not None and found.get(v, r) >= r:
                        found[v] = r
        else:
            # the value buffer itself (col.to_numpy would import pandas: 0.3 s, 40 MB)
            dt = np.float64 if kind == "f8" else np.int64
            arr = np.frombuffer(col.buffers()[1], dtype=dt, count=n, offset=col.offset * 8)
            if kind == "f8" and bool(np.isnan(arr).any()):
                return False
            out[i][row: row + n] = arr
    return True


class _ByteRange(io.RawIOBase):
    """Bytes ``start:end`` of a file, as a readable stream (one part of a parallel parse)."""

    def __init__(self, path: str | bytes, start: int, end: int) -> None:
        super().__init__()
        self._f = io.FileIO(path, "rb")  # unbuffered, as open(path, "rb", buffering=0); closed by close()
        self._f.seek(start)
        self._left = end - start

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = min(len(b), self._left)
        if n <= 0:
            return 0
        got = self._f.readinto(memoryview(b)[:n])
        self._left -= got
        return got

    def close(self) -> None:
        self._f.close()
        super().close()


def _raw_scan(data, nparts: int = 1) -> tuple[int, str, int, list[tuple[int, int]]] | None:
    """(number of lines, delimiter, fields on the first line, cuts), or None if not regular.

    ``cuts``: up to ``nparts - 1`` (byte offset, line index) pairs of line
    starts near equal fractions of the input, where a parallel parse can split it.
    """
    with contextlib.ExitStack() as stack:
        if isinstance(data, (bytes, bytearray, memoryview)):
            size = len(data)
            mv = memoryview(data)
            chunks: Iterator[bytes | memoryview] = (mv[i: i + _CHUNK] for i in range(0, len(mv), _CHUNK))
        else:
            try:
                fh = stack.enter_context(open(data, "rb"))
            except OSError:
                return None
            size = os.fstat(fh.fileno()).st_size
            chunks = iter(lambda: fh.read(_CHUNK), b"")
        return _scan_chunks(chunks, size, nparts)


def _scan_chunks(chunks, size: int, nparts: int) -> tuple[int, str, int, list[tuple[int, int]]] | None:
    """:func:`_raw_scan` over the input's successive chunks (``size`` bytes in all)."""
    targets = [size * k // nparts for k in range(1, nparts)]
    cuts: list[tuple[int, int]] = []
    off = lines = 0
    fmt = None  # (delimiter byte, the other white-space byte, fields) from the first line
    pending_cr = False
    last = b""
    for chunk in chunks:
        if fmt is None:
            fmt = _first_line_format(chunk)
            if fmt is None:
                return None
        a = np.frombuffer(chunk, dtype=np.uint8)
        nl_count = int(np.count_nonzero(a == 10))
        _find_cuts(a, off, lines, size, targets, cuts)
        off += len(a)
        lines += nl_count
        if not _regular_bytes(a, nl_count, fmt[0], fmt[1]):
            return None
        if pending_cr and a[0] != 10:
            return None  # a \r ending the previous chunk, not followed by \n
        pending_cr = bool(a[-1] == 13)
        last = bytes(chunk[-1:])
    if fmt is None or pending_cr:
        return None
    if last != b"\n":
        lines += 1
    return lines, chr(fmt[0]), fmt[2], cuts


def _first_line_format(chunk) -> tuple[int, int, int] | None:
    """(delimiter byte, the other white-space byte, number of fields) of the first line, or None
    (a comment, leading white space, a BOM, gzip, both delimiters, a first line over 64 kB)."""
    head = bytes(chunk[:1 << 16])
    if not head or head[:1] == b"#" or head[:1].isspace() or head[:3] == b"\xef\xbb\xbf" \
            or head[:2] == b"\x1f\x8b":
        return None
    nl = head.find(b"\n")
    if nl < 0 and len(chunk) > len(head):
        return None  # a first line longer than 64 kB: let the general path decide
    first = head[: nl if nl >= 0 else len(head)].rstrip(b"\r")
    has_tab, has_space = b"\t" in first, b" " in first
    if not first or (has_tab and has_space):
        return None
    delim, other = (9, 32) if has_tab else (32, 9)
    return delim, other, len(first.split(b"\t" if has_tab else b" "))


def _find_cuts(a: np.ndarray, off: int, lines: int, size: int, targets: list[int],
               cuts: list[tuple[int, int]]) -> None:
    """Append to ``cuts`` the line starts after the ``targets`` offsets that fall in chunk ``a``
    (at byte ``off``, line ``lines``); a target with no line end left in ``a`` moves to the next chunk."""
    while targets and targets[0] < off + len(a):
        j0 = max(targets[0] - off, 0)
        j = j0 + int(np.argmax(a[j0:] == 10))
        if a[j] != 10:
            targets[0] = off + len(a)  # no line end left in this chunk: look in the next
            break
        targets.pop(0)
        cut = off + j + 1
        if cut < size and (not cuts or cut > cuts[-1][0]):
            cuts.append((cut, lines + int(np.count_nonzero(a[: j + 1] == 10))))


def _regular_bytes(a: np.ndarray, nl_count: int, delim: int, other: int) -> bool:
    """No control byte but \\n, the tab delimiter and \\r before \\n (\\t in a space file, \\v, \\f,
    NUL...), and no space in a tab file."""
    low = int(np.count_nonzero(a < 14))
    tabs = int(np.count_nonzero(a == 9)) if delim == 9 else 0
    if low != nl_count + tabs:
        cr = np.flatnonzero(a == 13)
        if low - nl_count - len(cr) - tabs:
            return False
        inner = cr[cr < len(a) - 1]
        if len(inner) and not bool((a[inner + 1] == 10).all()):
            return False
    return not (other == 32 and bool((a == 32).any()))


def _binary_parts(col) -> tuple[np.ndarray, np.ndarray]:
    """(offsets relative to ``base``, data bytes) of a pyarrow binary array."""
    n = len(col)
    _, obuf, dbuf = col.buffers()
    offs = np.frombuffer(obuf, dtype=np.int32, count=n + 1, offset=col.offset * 4)
    base = np.frombuffer(dbuf, dtype=np.uint8) if dbuf is not None else np.zeros(0, np.uint8)
    return offs, base


def _batch_distinct(offs: np.ndarray, lens: np.ndarray, base: np.ndarray, row: int,
                    one_length: bool) -> dict[bytes, int]:
    """A batch's distinct values with the first row of each (``row``: the batch's first): when all have one
    length (``one_length``: a run's one tag), one comparison of the batch's bytes with the first value repeated
    (a ``memcmp``; numpy's ``==`` on an n x width array stepped through 5 bytes a row, ~3 % of a run's read,
    session 28), else ``numpy.unique`` over the batch."""
    n = len(lens)
    first = base[offs[0]: offs[1]].tobytes()
    if one_length and base[offs[0]: offs[-1]].tobytes() == first * n:
        return {first: row}
    col = _put_S(np.zeros(n, dtype="S1"), 0, offs, lens, base)
    values, at = np.unique(col, return_index=True)
    return {bytes(v): row + int(k) for v, k in zip(values, at, strict=True)}


def _put_S(out: np.ndarray, row: int, offs: np.ndarray, lens: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Write values into ``out[row:row+n]`` (widening ``out`` when needed); returns ``out``."""
    n = len(lens)
    lo, hi = int(lens.min()), int(lens.max())
    if hi > out.dtype.itemsize:  # widen (a byte copy: parts may have written anywhere)
        w0 = out.dtype.itemsize
        wider = np.zeros(len(out), dtype=f"S{hi}")
        wider.view(np.uint8).reshape(len(out), hi)[:, :w0] = out.view(np.uint8).reshape(len(out), w0)
        out = wider
    w = out.dtype.itemsize
    dest = out[row: row + n].view(np.uint8).reshape(n, w)
    src = base[offs[0]: offs[-1]]
    if lo == hi:
        dest[:, :hi] = src.reshape(n, hi)
    else:
        dest[:, :] = 0
        mask = np.arange(hi) < lens[:, None]
        dest[:, :hi][mask] = src
    return out


def release_memory() -> None:
    """Give freed heap memory back to the OS (glibc ``malloc_trim``; no-op elsewhere).

    pyarrow's worker threads allocate in their own malloc arenas; without a
    trim the columns we dropped stay resident and add to the peak of what
    follows.
    """
    import contextlib
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):  # not glibc
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def keep_freed_memory() -> None:
    """Let freed heap memory be reused instead of given back to the OS (glibc ``mallopt``; no-op elsewhere).

    Large numpy arrays are allocated with ``mmap`` and unmapped when freed, so
    every new temporary is faulted in page by page again by the kernel: a third
    of ``zelo_fit``'s CPU time on 2 M judgments was system time. Raising the
    mmap threshold (to its maximum, 32 MB), the trim threshold and the top pad
    keeps freed memory in the heap for the next array. For one-shot commands
    (``zelo_fit``); memory is still returned when the process ends.
    """
    import contextlib
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):  # not glibc
        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
        libc.mallopt(m_mmap_threshold, 32 << 20)
        libc.mallopt(m_trim_threshold, 1 << 30)
        libc.mallopt(m_top_pad, 256 << 20)
