"""Fast, vectorised readers for judgment files: whole columns instead of one judgment per line.

Each function takes the file's bytes (and its decoded text) and returns a
:class:`Columns` -- a string table and, per data line, integer codes of the
query and of documents A and B, the score (1 = B better), the weight, the line
number and whether the line is a judgment (False: it only registers its
documents) -- or ``None`` when the file is not one the fast path takes. The
callers in :mod:`pref_eval.io.judgments` then use their line-by-line parser,
which gives the same table and reports the first bad line. So this module
changes speed, never results:

* ``jsonl``: the compiled JSON-lines scanner (:mod:`pref_eval.io.jsonl_scan`;
  flat objects, plain strings, numbers converted as ``float``). Lines with
  ``votes`` (a list), escapes, ``true``/``null`` values etc. go to the parser.
* the whitespace-separated formats (``clarke4``, ``clarke3``, ``llmlog``,
  ``carterette``): pyarrow's CSV parser for regular files of 1 MB or more
  (:func:`pref_eval.io.fastparse.fast_columns`), else the numpy tokenizer
  (:func:`pref_eval.io.tokenize.split_lines`). Files holding a line that
  starts with ``#``, a NUL or a control byte 0x1c-0x1f or non-ASCII white space
  (which Python's ``str.split`` also splits on) go to the parser.

Any value the parser would refuse (a score outside [0, 1], a winner that is
neither document, ...) also sends the file to the parser, for its message.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .keys import distinct, positions

PYARROW_MIN = 1 << 20  # smaller files: the numpy tokenizer (no pyarrow import)
_ODD_BYTES = (b"\x00", b"\x1c", b"\x1d", b"\x1e", b"\x1f")  # NUL, and white space for str.split() only
_ODD_SPACE = r"[^\S \t\n\r\x0b\x0c]"  # white space for str.split() but not bytes.split()


@dataclass
class Columns:
    """A file's judgments as columns (see the module docstring)."""

    names: list
    q: np.ndarray
    a: np.ndarray
    b: np.ndarray
    score: np.ndarray
    weight: np.ndarray | None
    lines: np.ndarray
    keep: np.ndarray | None = None
    missing: np.ndarray | None = None

    def add_to(self, table) -> None:
        """Append to a :class:`~pref_eval.zelo.judgments.Judgments` (``add_columns``)."""
        table.add_columns(self.names, self.q, self.a, self.b, self.score, self.weight, self.lines, self.keep,
                          self.missing)


def jsonl_columns(data: bytes) -> Columns | None:
    """Canonical judgment JSON lines ``{"qid", "doc_a", "doc_b", "score"[, "weight"]}`` as columns."""
    from .jsonl_scan import scan_columns

    res = scan_columns(data)
    if res is None:
        return None
    strtab, shapes = res
    names = list(strtab)
    extra: dict[str, int] = {}
    parts = []
    for sh in shapes:
        if "score" not in sh.cols or sh.cols["score"].kind != "n":
            return None
        cols = []
        for key in ("qid", "doc_a", "doc_b"):
            c = sh.cols.get(key)
            if c is None:
                return None
            if c.kind == "s":
                cols.append(sh.values(key))  # int32 codes
                continue
            # an integer id ("qid": 19335) is its decimal text, as str(int) gives
            v = sh.values(key)
            if not c.integers or not bool(np.all(np.abs(v) < 2.0 ** 53)):
                return None
            uv, inv = np.unique(v, return_inverse=True)
            codes = np.empty(len(uv), dtype=np.int64)
            for k, x in enumerate(uv.tolist()):
                codes[k] = _code(str(int(x)), names, extra, strtab)
            cols.append(codes[inv])
        s = sh.values("score")
        if not bool(np.all((s >= 0.0) & (s <= 1.0))):
            return None
        if "weight" in sh.cols:
            if sh.cols["weight"].kind != "n":
                return None
            w = sh.values("weight")
            if not bool(np.all((w >= 0.0) & np.isfinite(w))):
                return None
        else:
            w = np.ones(len(s))
        parts.append((sh.lines, *cols, s, w))
    if not parts:
        return None
    if len(parts) == 1:  # one shape: lines already in file order, no copies
        lines, q, a, b, s, w = parts[0]
        return Columns(names, q, a, b, s, w, lines + 1)
    lines, q, a, b, s, w = (np.concatenate(c) for c in zip(*parts, strict=True))
    order = np.argsort(lines, kind="stable")
    return Columns(names, q[order], a[order], b[order], s[order].astype(np.float64),
                   w[order].astype(np.float64), lines[order] + 1)


def _code(text: str, names: list, extra: dict, strtab) -> int:
    """Code of ``text`` in ``names`` (the scanner's distinct strings), appending it if absent."""
    if not extra and names:
        extra.update((t, i) for i, t in enumerate(strtab))
    k = extra.get(text)
    if k is None:
        k = len(names)
        names.append(text)
        extra[text] = k
    return k


def _fields(data: bytes, text: str, nfields: int) -> tuple[list[np.ndarray], np.ndarray] | None:
    """The fields of every data line (``S`` arrays) and their 1-based lines, or None (not a regular file)."""
    if not data:
        return None
    if data[:1] == b"#" or b"\n#" in data or any(c in data for c in _ODD_BYTES):
        return None
    if not data.isascii() and re.search(_ODD_SPACE, text):
        return None
    if len(data) >= PYARROW_MIN:
        from .fastparse import fast_columns

        cols = fast_columns(data, min_fields=nfields, max_fields=nfields, kinds={k: "S" for k in range(nfields)})
        if cols is not None:
            return [cols[k] for k in range(nfields)], np.arange(1, len(cols[0]) + 1, dtype=np.int64)
    from ..errors import InputError
    from .tokenize import split_lines

    try:
        cols, lines = split_lines(data, "-", min_fields=nfields, max_fields=nfields, expected="", keep=nfields)
    except InputError:
        return None
    if len(lines) == 0:
        return None
    return cols, lines


def factorize(*columns: np.ndarray) -> tuple[list[str], list[np.ndarray]]:
    """Distinct values (decoded UTF-8) of ``S`` arrays and each array's codes into them."""
    w = max(c.dtype.itemsize for c in columns)
    allv = np.concatenate([c.astype(f"S{w}") for c in columns])
    if w <= 8:  # fixed-width bytes up to 8: sort as integers (much faster than bytes)
        pad = np.zeros(len(allv), dtype="S8")
        pad[:] = allv
        keys = pad.view(np.uint64)
        uniq = distinct(keys)
        inv = positions(uniq, keys)
        names = [x.decode("utf-8") for x in uniq.view("S8").tolist()]
    else:
        uniq, inv = np.unique(allv, return_inverse=True)
        names = [x.decode("utf-8") for x in uniq.tolist()]
    inv = inv.astype(np.int64)
    out, k = [], 0
    for c in columns:
        out.append(inv[k:k + len(c)])
        k += len(c)
    return names, out


def clarke4_columns(data: bytes, text: str) -> Columns | None:
    """``topic docA docB winner`` lines (score 1 when B wins)."""
    f = _fields(data, text, 4)
    if f is None:
        return None
    (t, a, b, w), lines = f
    names, (qc, ac, bc, wc) = factorize(t, a, b, w)
    if bool(np.any(ac == bc)) or not bool(np.all((wc == ac) | (wc == bc))):
        return None
    return Columns(names, qc, ac, bc, (wc == bc).astype(np.float64), None, lines)


def clarke3_columns(data: bytes, text: str) -> Columns | None:
    """``topic winner loser`` lines (A = winner, score 0)."""
    f = _fields(data, text, 3)
    if f is None:
        return None
    (t, w, lo), lines = f
    names, (qc, wc, lc) = factorize(t, w, lo)
    if bool(np.any(wc == lc)):
        return None
    return Columns(names, qc, wc, lc, np.zeros(len(qc)), None, lines)


def llmlog_columns(data: bytes, text: str) -> Columns | None:
    """``@ topic docA docB M`` lines: ``!`` A better (0), ``=`` tie (1/2), ``?`` documents only."""
    f = _fields(data, text, 5)
    if f is None:
        return None
    (at, t, a, b, m), lines = f
    if not bool(np.all(at == b"@")) or not bool(np.all(np.isin(m, [b"!", b"=", b"?"]))):
        return None
    names, (qc, ac, bc) = factorize(t, a, b)
    return Columns(names, qc, ac, bc, np.where(m == b"=", 0.5, 0.0), None, lines, m != b"?", m == b"?")


def carterette_columns(data: bytes, text: str) -> Columns | None:
    """``QID DOC1 DOC2 PREF`` lines: -1 / 1 / 0 (tie); -2 and 2 register the bad document only."""
    f = _fields(data, text, 4)
    if f is None:
        return None
    (t, a, b, p), lines = f
    codes = np.array([b"-1", b"-2", b"0", b"1", b"2"])  # sorted as bytes
    if not bool(np.all(np.isin(p, codes))):
        return None
    pv = np.array([-1, -2, 0, 1, 2])[np.searchsorted(codes, p)]
    na = [b"NA", b"Na", b"nA", b"na"]
    if not bool(np.all(np.isin(b[pv == -2], na))) or not bool(np.all(np.isin(a[pv == 2], na))):
        return None
    names, (qc, ac, bc) = factorize(t, a, b)
    ac = np.where(pv == 2, bc, ac)
    bc = np.where(pv == -2, ac, bc)
    score = np.select([pv == 1, pv == 0], [1.0, 0.5], 0.0)
    return Columns(names, qc, ac, bc, score, None, lines, np.abs(pv) <= 1)


FAST_READERS = {
    "clarke4": clarke4_columns,
    "clarke3": clarke3_columns,
    "llmlog": llmlog_columns,
    "carterette": carterette_columns,
}
