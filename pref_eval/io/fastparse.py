"""Fast path for regular TREC files: pyarrow's CSV parser, then exact checks.

:func:`fast_columns` returns the columns of ``data`` when the file is
*regular* -- one delimiter (a single space or a single tab) between fields,
the same number of fields on every line, no blank or comment lines, no other
white space -- and ``None`` otherwise; the caller then uses the general
tokenizer (:func:`pref_eval.io.tokenize.split_lines`), which also produces
the error messages with line numbers. Both paths give the same columns for
every file the fast path accepts:

* the field count is taken from the first line and pyarrow refuses any line
  with another count; an empty field (two delimiters in a row, a leading or
  trailing delimiter) is detected in every column and sends the file to the
  general path;
* blank lines make pyarrow see a one-field row (``ignore_empty_lines`` off),
  so with no blank line row ``i`` is line ``i + 1``;
* a first field starting with ``#`` (a comment line with the right number of
  fields) sends the file to the general path;
* ``\\r`` is accepted only as part of ``\\r\\n`` line ends;
* numbers are parsed by pyarrow, which accepts a subset of what Python's
  ``float``/``int`` accept (no ``1_0``, no non-ASCII digits): anything it
  refuses, and any NaN, goes to the general path, which decides.
"""
from __future__ import annotations

import numpy as np

# kinds of kept columns: "S" bytes (numpy S array), "f8" float64, "i8" int64


def fast_columns(
    data: bytes,
    *,
    min_fields: int,
    max_fields: int | None,
    kinds: dict[int, str],
) -> dict[int, np.ndarray] | None:
    """Columns ``{index: array}`` for the kept fields, or ``None`` (use the general path)."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:  # pragma: no cover
        return None
    if not data or data[:1] == b"#":
        return None
    nl = data.find(b"\n")
    first = data[: nl if nl >= 0 else len(data)].rstrip(b"\r")
    if not first or first[:1].isspace():
        return None
    has_tab = b"\t" in first
    has_space = b" " in first
    if has_tab and has_space:
        return None
    delim = "\t" if has_tab else " "
    other = b" " if has_tab else b"\t"
    for ch in (other, b"\x0b", b"\x0c"):
        if ch in data:
            return None
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        return None
    ncols = len(first.split(delim.encode()))
    if ncols < min_fields or (max_fields is not None and ncols > max_fields):
        return None
    names = [f"f{i}" for i in range(ncols)]
    binary = pa.binary()
    dict_t = pa.dictionary(pa.int32(), pa.binary())
    types = {}
    for i, name in enumerate(names):
        kind = kinds.get(i)
        types[name] = binary if kind == "S" else pa.float64() if kind == "f8" else \
            pa.int64() if kind == "i8" else dict_t
    try:
        table = pcsv.read_csv(
            pa.BufferReader(data),
            read_options=pcsv.ReadOptions(column_names=names, block_size=1 << 23),
            parse_options=pcsv.ParseOptions(delimiter=delim, quote_char=False, double_quote=False,
                                            escape_char=False, newlines_in_values=False,
                                            ignore_empty_lines=False),
            convert_options=pcsv.ConvertOptions(column_types=types, null_values=[], true_values=[],
                                                false_values=[], strings_can_be_null=False,
                                                quoted_strings_can_be_null=False),
            memory_pool=pa.system_memory_pool(),  # freed columns go back to the OS at once
        )
    except (pa.ArrowException, ValueError):
        return None
    if table.num_rows == 0:
        return None
    out: dict[int, np.ndarray] = {}
    for i, name in enumerate(names):
        col = table.column(name)
        if col.null_count:
            return None
        kind = kinds.get(i)
        if kind is None:
            if _dict_has_empty(col):
                return None
            continue
        if kind == "S":
            arr = _binary_to_S(col)
            if arr is None or (i == 0 and _any_starts_with_hash(arr)):
                return None
        else:
            arr = col.to_numpy()
            if kind == "f8" and np.isnan(arr).any():
                return None
        out[i] = arr
    if 0 not in out and _dict_first_has_hash(table.column(names[0])):
        return None
    del table, col
    release_memory()
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


def _dict_has_empty(col) -> bool:
    import pyarrow.compute as pc

    for chunk in col.chunks:
        d = chunk.dictionary
        if len(d) and pc.min(pc.binary_length(d)).as_py() == 0:
            return True
    return False


def _dict_first_has_hash(col) -> bool:
    for chunk in col.chunks:
        if any(v[:1] == b"#" for v in chunk.dictionary.to_pylist()):
            return True
    return False


def _any_starts_with_hash(arr: np.ndarray) -> bool:
    if arr.dtype.itemsize == 0 or len(arr) == 0:
        return False
    firsts = arr.view(np.uint8).reshape(len(arr), arr.dtype.itemsize)[:, 0]
    return bool((firsts == ord("#")).any())


def _binary_to_S(col) -> np.ndarray | None:
    """A pyarrow binary ChunkedArray as one numpy ``S`` array (None if a value is empty)."""
    parts = []
    for chunk in col.chunks:
        n = len(chunk)
        if n == 0:
            continue
        _, obuf, dbuf = chunk.buffers()
        offs = np.frombuffer(obuf, dtype=np.int32, count=n + 1, offset=chunk.offset * 4)
        lens = np.diff(offs)
        lo, hi = int(lens.min()), int(lens.max())
        if lo == 0:
            return None
        base = np.frombuffer(dbuf, dtype=np.uint8)
        if lo == hi:
            parts.append(base[offs[0]: offs[0] + n * hi].view(f"S{hi}"))
            continue
        # pad to the widest value with NULs (numpy S semantics: trailing NULs are not data)
        out = np.zeros((n, hi), dtype=np.uint8)
        starts = offs[:-1].astype(np.int64)
        for j in range(hi):
            m = np.flatnonzero(lens > j)
            out[m, j] = base[starts[m] + j]
        parts.append(out.view(f"S{hi}").ravel())
    if not parts:
        return None
    width = max(p.dtype.itemsize for p in parts)
    if len(parts) == 1:
        return parts[0]
    return np.concatenate([p.astype(f"S{width}", copy=False) for p in parts])
