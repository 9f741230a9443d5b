"""Splitting whitespace-separated text files into columns.

One function, :func:`split_lines`, shared by the qrels, run and preference
readers. Fields are separated by any run of ASCII white space (space, tab,
``\\r``, ``\\v``, ``\\f``), as C's ``isspace`` in trec_eval and Python's
``bytes.split()``; blank lines are skipped; a line whose first byte is ``#``
is a comment (trec_eval 10). A NUL byte is refused (:func:`pref_eval.io.textfile.refuse_nul`).

Vectorised with numpy, ``CHUNK`` bytes at a time (cut at a line end, so the
temporaries stay bounded): a white-space mask gives the token starts and
ends, a count of the line ends before each start gives its line, and the
kept fields are gathered straight into fixed-width ``S`` arrays.

Memory: an ``S`` column is as wide as its longest field, so one very long
field costs (lines x its length). A column that would need more than
:func:`column_budget` bytes (4 x the input, at least 64 MB) is refused with the
line of its longest field, instead of asking for gigabytes; so is any field
longer than ``MAX_FIELD`` (64 KiB): ids and docnos are expected to be short.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from .textfile import refuse_nul

CHUNK = 1 << 24
MIN_BUDGET = 1 << 26
MAX_FIELD = 1 << 16  # 64 KiB: no id, docno or number is longer
_WS = np.zeros(256, dtype=bool)
_WS[[9, 10, 11, 12, 13, 32]] = True  # bytes.split() white space


def column_budget(nbytes: int) -> int:
    """Bytes a fixed-width column of an ``nbytes`` input may take: ``max(64 MB, 4 * nbytes)``."""
    return max(MIN_BUDGET, 4 * nbytes)


def too_wide(source: str, line: int, width: int, rows: int) -> InputError:
    if width > MAX_FIELD:
        return InputError(source, line, f"a field of {width} bytes (at most {MAX_FIELD}); "
                          "expected short ids, docnos and numbers")
    return InputError(source, line, f"a field of {width} bytes: every field of its column would be stored at "
                      f"that width ({rows} lines x {width} bytes = {rows * width / 1e9:.1f} GB); "
                      "expected short ids, docnos and numbers")


def split_lines(
    data: bytes,
    source: str,
    *,
    min_fields: int,
    max_fields: int | None,
    expected: str,
    keep: int | None = None,
    indented_comments: bool = False,
) -> tuple[list[np.ndarray], np.ndarray]:
    """Split ``data`` into columns.

    Returns ``(columns, line_numbers)``: ``columns[k]`` is a numpy bytes
    array holding field ``k`` of every data line, for ``k < keep``
    (default ``min_fields``); ``line_numbers`` the 1-based line number of
    each data line. A line with fewer than ``min_fields`` or more than
    ``max_fields`` fields raises :class:`InputError` naming its line (the
    first such line of the file). A NUL byte anywhere is an error naming its line
    (:func:`pref_eval.io.textfile.refuse_nul`), before any other.

    A line whose first byte is ``#`` is a comment; with ``indented_comments`` also a line whose first
    field starts with ``#`` after leading white space (trec_eval 10's results reader,
    ``get_trec_results.c``, skips the white space before it looks for ``#``; its rel-info readers do not).
    """
    refuse_nul(data, source)
    keep = min_fields if keep is None else keep
    hi = max_fields if max_fields is not None else 1 << 62
    parts: list[tuple[list[np.ndarray], np.ndarray]] = []
    mv = memoryview(data)
    pos, line0, n = 0, 0, len(data)
    budget = column_budget(n)
    while pos < n:
        end = min(pos + CHUNK, n)
        if end < n:
            cut = data.rfind(b"\n", pos, end)
            end = cut + 1 if cut >= 0 else (data.find(b"\n", end) + 1 or n)
        a = np.frombuffer(mv[pos:end], dtype=np.uint8)
        cols, lines, nlines = _split_chunk(a, line0, source, min_fields, hi, expected, keep, budget,
                                           indented_comments)
        parts.append((cols, lines))
        line0 += nlines
        pos = end
    if not parts:
        return [np.array([], dtype="S1") for _ in range(keep)], np.zeros(0, dtype=np.int64)
    lines = np.concatenate([p[1] for p in parts])
    out = []
    for k in range(keep):
        arrs = [p[0][k] for p in parts]
        w = max(x.dtype.itemsize for x in arrs)
        if w * len(lines) > budget:
            j = max(range(len(arrs)), key=lambda i: arrs[i].dtype.itemsize)
            row = int(np.char.str_len(arrs[j]).argmax())
            raise too_wide(source, int(parts[j][1][row]), w, len(lines))
        out.append(arrs[0] if len(arrs) == 1 else np.concatenate([x.astype(f"S{w}") for x in arrs]))
    return out, lines


def _split_chunk(a: np.ndarray, line0: int, source: str, lo: int, hi: int, expected: str, keep: int,
                 budget: int, indented_comments: bool = False):
    """Columns, 1-based line numbers and the number of ``\\n`` of one chunk of whole lines."""
    n = len(a)
    nl = np.flatnonzero(a == 10)
    nlines = len(nl)
    ws = _WS[a]
    # token starts / ends (end exclusive)
    body = ~ws
    edge = np.empty(n + 1, dtype=bool)
    edge[0] = body[0]
    np.not_equal(body[1:], body[:-1], out=edge[1:n])
    edge[n] = body[-1]
    bounds = np.flatnonzero(edge)
    del edge, ws
    starts, ends = bounds[0::2], bounds[1::2]
    tline = np.searchsorted(nl, starts)  # 0-based line (inside the chunk) of each token
    # comment lines: first byte '#'
    lstart = np.concatenate([[0], nl + 1])
    lstart = lstart[lstart < n]
    comment = np.zeros(nlines + 1, dtype=bool)
    comment[: len(lstart)] = a[lstart] == 35
    if indented_comments and len(starts):
        # the first field of each line starts with '#'
        first_tok = np.flatnonzero(np.concatenate([[True], tline[1:] != tline[:-1]]))
        comment[tline[first_tok]] |= a[starts[first_tok]] == 35
    keep_tok = ~comment[tline]
    if not bool(keep_tok.all()):
        starts, ends, tline = starts[keep_tok], ends[keep_tok], tline[keep_tok]
    counts = np.bincount(tline, minlength=nlines + 1)
    data_lines = np.flatnonzero(counts)
    cnt = counts[data_lines]
    bad = np.flatnonzero((cnt < lo) | (cnt > hi))
    if len(bad):
        b = int(bad[0])
        k = int(cnt[b])
        raise InputError(source, line0 + int(data_lines[b]) + 1,
                         f"expected {expected}, found {k} field{'s' if k != 1 else ''}")
    first = np.cumsum(cnt) - cnt
    for k in range(keep):
        lens = ends[first + k] - starts[first + k]
        if len(lens) and (int(lens.max()) * len(lens) > budget or int(lens.max()) > MAX_FIELD):
            i = int(lens.argmax())
            raise too_wide(source, line0 + int(data_lines[i]) + 1, int(lens[i]), len(lens))
    cols = [_gather(a, starts[first + k], ends[first + k]) for k in range(keep)]
    return cols, (data_lines + line0 + 1).astype(np.int64), nlines


def _gather(a: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Bytes ``a[s[i]:e[i]]`` of every token as one ``S`` array."""
    m = len(s)
    if m == 0:
        return np.array([], dtype="S1")
    lens = e - s
    w = int(lens.max())
    out = np.zeros((m, w), dtype=np.uint8)
    mask = np.arange(w) < lens[:, None]
    tot = int(lens.sum())
    offs = np.repeat(s - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens) + np.arange(tot)
    out[mask] = a[offs]
    return out.view(f"S{w}").reshape(m)
