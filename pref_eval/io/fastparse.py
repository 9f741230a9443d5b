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

import io
import os
import threading

import numpy as np

# kinds of kept columns: "S" bytes (numpy S array), "f8" float64, "i8" int64
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
    size = len(data) if in_memory else os.path.getsize(data)
    if size < PYARROW_MIN:  # the numpy tokenizer is as fast there, and pyarrow's import costs ~0.1 s
        return None
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:  # pragma: no cover
        return None
    nparts = PARTS if size >= SPLIT_MIN else 1
    scan = _raw_scan(data, nparts)
    if scan is None:
        return None
    nrows, delim, ncols, cuts = scan
    if ncols < min_fields or (max_fields is not None and ncols > max_fields):
        return None
    names = [f"f{i}" for i in range(ncols)]
    types = {}
    for i, name in enumerate(names):
        kind = kinds.get(i)
        types[name] = pa.float64() if kind == "f8" else pa.int64() if kind == "i8" else pa.binary()
    opts = dict(
        read_options=pcsv.ReadOptions(column_names=names, block_size=BLOCK, use_threads=False),
        parse_options=pcsv.ParseOptions(delimiter=delim, quote_char=False, double_quote=False,
                                        escape_char=False, newlines_in_values=False,
                                        ignore_empty_lines=False),
        convert_options=pcsv.ConvertOptions(column_types=types, null_values=[], true_values=[],
                                            false_values=[], strings_can_be_null=False,
                                            quoted_strings_can_be_null=False),
        memory_pool=pa.system_memory_pool(),
    )
    out: dict[int, np.ndarray] = {}
    for i, kind in kinds.items():
        if i < ncols:
            out[i] = np.zeros(nrows, dtype="S1" if kind == "S" else np.float64 if kind == "f8" else np.int64)
    # parts: (first byte, end byte, first row, end row)
    bounds = [(0, 0)] + cuts + [(size, nrows)]
    parts = [(bounds[k][0], bounds[k + 1][0], bounds[k][1], bounds[k + 1][1]) for k in range(len(bounds) - 1)]
    buf = pa.py_buffer(data) if in_memory else None
    from .tokenize import MAX_FIELD, column_budget

    max_width = min(MAX_FIELD, column_budget(size) // max(nrows, 1))  # wider: the general path refuses it by line
    lock = threading.Lock()

    def run_part(part) -> bool:
        b0, b1, r0, r1 = part
        raw = None
        if in_memory:
            source = pa.BufferReader(buf.slice(b0, b1 - b0))
        elif b0 == 0 and b1 == size:
            source = os.fspath(data)
        else:
            raw = _ByteRange(os.fspath(data), b0, b1)
            source = pa.PythonFile(raw, mode="r")
        try:
            reader = pcsv.open_csv(source, **opts)
            row = r0
            for batch in reader:
                n = batch.num_rows
                if n == 0:
                    continue
                if row + n > r1 or not _take_batch(batch, ncols, kinds, out, row, lock, max_width):
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

    if len(parts) == 1:
        ok = run_part(parts[0])
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(len(parts)) as ex:
            ok = all(list(ex.map(run_part, parts)))
    if size >= TRIM_MIN:  # malloc_trim costs ~0.3 ms a call: not worth it for small files
        release_memory()
    if not ok or nrows == 0:
        return None
    return out


PYARROW_MIN = 1 << 20  # smaller inputs: the general path (start-up of small commands)
PARTS = 2  # threads (the machines this targets have 2+ cores)
SPLIT_MIN = 1 << 25  # inputs below 32 MB are parsed in one piece
TRIM_MIN = 1 << 24  # give freed memory back to the OS after inputs of 16 MB or more


def _take_batch(batch, ncols: int, kinds: dict[int, str], out: dict[int, np.ndarray], row: int,
                lock, max_width: int = 1 << 62) -> bool:
    """Check one record batch and write its kept columns at ``row``; False = not regular."""
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

    def __init__(self, path: str, start: int, end: int) -> None:
        super().__init__()
        self._f = open(path, "rb", buffering=0)
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
    if isinstance(data, (bytes, bytearray, memoryview)):
        size = len(data)
        mv = memoryview(data)
        chunks = (mv[i: i + _CHUNK] for i in range(0, len(mv), _CHUNK))
        fh = None
    else:
        try:
            fh = open(data, "rb")
        except OSError:
            return None
        size = os.fstat(fh.fileno()).st_size
        chunks = iter(lambda: fh.read(_CHUNK), b"")
    targets = [size * k // nparts for k in range(1, nparts)]
    cuts: list[tuple[int, int]] = []
    off = 0
    try:
        first = None
        delim = other = 0
        lines = 0
        pending_cr = False
        last = b""
        for chunk in chunks:
            if first is None:
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
                ncols = len(first.split(b"\t" if has_tab else b" "))
            a = np.frombuffer(chunk, dtype=np.uint8)
            nl_count = int(np.count_nonzero(a == 10))
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
            off += len(a)
            lines += nl_count
            low = int(np.count_nonzero(a < 14))
            if low != nl_count + (int(np.count_nonzero(a == 9)) if delim == 9 else 0):
                cr = np.flatnonzero(a == 13)
                nbad = low - nl_count - len(cr) - (int(np.count_nonzero(a == 9)) if delim == 9 else 0)
                if nbad:
                    return None  # \t in a space file, \v, \f, NUL, other control bytes
                inner = cr[cr < len(a) - 1]
                if len(inner) and not bool((a[inner + 1] == 10).all()):
                    return None
            if pending_cr and a[0] != 10:
                return None
            pending_cr = bool(a[-1] == 13)
            if other == 32 and bool((a == 32).any()):
                return None
            last = bytes(chunk[-1:])
        if first is None:
            return None
        if pending_cr:
            return None
        if last != b"\n":
            lines += 1
        return lines, chr(delim), ncols, cuts
    finally:
        if fh is not None:
            fh.close()


def _binary_parts(col) -> tuple[np.ndarray, np.ndarray]:
    """(offsets relative to ``base``, data bytes) of a pyarrow binary array."""
    n = len(col)
    _, obuf, dbuf = col.buffers()
    offs = np.frombuffer(obuf, dtype=np.int32, count=n + 1, offset=col.offset * 4)
    base = np.frombuffer(dbuf, dtype=np.uint8) if dbuf is not None else np.zeros(0, np.uint8)
    return offs, base


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
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass
