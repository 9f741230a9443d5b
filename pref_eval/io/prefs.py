"""Readers for trec_eval's preference rel-info formats.

* ``prefs`` (``-R prefs``): ``qid jg jsg docno rel_level`` -- 5 fields;
  ``jg`` is the judgment group (one user / information need), ``jsg`` the
  judgment subgroup inside it, ``rel_level`` a number (higher = preferred;
  0 means non-relevant).
* ``qrels_prefs`` (``-R qrels_prefs``): an ordinary qrels file
  ``qid iter docno rel`` read as prefs: the ``iter`` column is the judgment
  group and every line is in subgroup ``0``.
* ``qrels_jg`` (``-R qrels_jg``): a qrels file whose ``iter`` column is the
  judgment group; ``rel`` must be an integer; a docno twice in one
  (qid, judgment group) is an error.

Common rules: fields are separated by white space, a line whose first byte
is ``#`` is a comment, blank lines are skipped. Where trec_eval reads a
malformed number as 0 (C ``atof``/``atol``) we refuse it: every error names
the file and the line (exit code 2).
"""
from __future__ import annotations


import numpy as np

from ..records import record
from ..errors import InputError, shown
from .fastparse import fast_columns
from .numbers import decimal_floats, integer_grades
from .textfile import PathLike, display_name, read_input_bytes
from .tokenize import split_lines


@record(frozen=True)
class Prefs:
    """Preference judgments as parallel arrays, one entry per line.

    ``qid``, ``jg``, ``jsg``, ``docno``: numpy bytes arrays; ``rel`` the
    rel_level (float64); ``line`` 1-based line numbers.
    """

    qid: np.ndarray
    jg: np.ndarray
    jsg: np.ndarray
    docno: np.ndarray
    rel: np.ndarray
    line: np.ndarray
    source: str = "<prefs>"

    def __len__(self) -> int:
        return len(self.qid)


def _floats(tokens: np.ndarray, lines: np.ndarray, source: str, what: str) -> np.ndarray:
    vals = decimal_floats(tokens, source, lines, what)
    bad = np.flatnonzero(~np.isfinite(vals))
    if len(bad):
        i = int(bad[0])
        raise InputError(source, int(lines[i]),
                         f"{what} {shown(tokens[i].decode(errors='replace'))} is not a finite number")
    return vals


def _levels(col: np.ndarray, lines: np.ndarray, source: str) -> np.ndarray:
    if col.dtype.kind != "f":
        return _floats(col, lines, source, "rel_level")
    return col  # the fast path's, all finite (see _columns)


def _columns(data: bytes, source: str, nfields: int, expected: str, last_kind: str):
    kinds = {k: "S" for k in range(nfields - 1)}
    kinds[nfields - 1] = last_kind
    fast = fast_columns(data, min_fields=nfields, max_fields=nfields, kinds=kinds)
    if fast is not None and last_kind == "f8" and not np.isfinite(fast[nfields - 1]).all():
        fast = None  # inf, 1e400: the general path's message quotes the text as written, not pyarrow's value
    if fast is not None:
        n = len(fast[0])
        return [fast[k] for k in range(nfields)], np.arange(1, n + 1, dtype=np.int64)
    cols, lines = split_lines(data, source, min_fields=nfields, max_fields=nfields, expected=expected)
    if len(lines) == 0:
        raise InputError(source, 0, f"empty file (expected lines {expected})")
    return cols, lines


def prefs_from_bytes(data: bytes, source: str) -> Prefs:
    """Parse a ``prefs`` file: ``qid jg jsg docno rel_level``."""
    expected = "5 fields 'qid jg jsg docno rel_level'"
    cols, lines = _columns(data, source, 5, expected, "f8")
    rel = _levels(cols[4], lines, source)
    return Prefs(qid=cols[0], jg=cols[1], jsg=cols[2], docno=cols[3],
                 rel=np.asarray(rel, dtype=np.float64), line=lines, source=source)


def qrels_prefs_from_bytes(data: bytes, source: str) -> Prefs:
    """Parse a qrels file as prefs (``-R qrels_prefs``): jg = iter, jsg = ``0``."""
    expected = "4 fields 'qid jg docno rel_level'"
    cols, lines = _columns(data, source, 4, expected, "f8")
    rel = _levels(cols[3], lines, source)
    return Prefs(qid=cols[0], jg=cols[1], jsg=np.full(len(lines), b"0", dtype="S1"), docno=cols[2],
                 rel=np.asarray(rel, dtype=np.float64), line=lines, source=source)


def preference_pairs(p: Prefs) -> tuple[np.ndarray, np.ndarray]:
    """The pairwise judgments a ``prefs`` file states, as zELO reads it (``--format trecprefs``).

    trec_eval's definition (get_prefs.c): preferences are stated *within a judgment sub-group* (jsg):
    inside each (qid, jg, jsg), every two lines i < j (file order) with different ``rel_level`` and
    different docnos are one judgment, the higher level winning; levels of different sub-groups are
    not compared (they only rank the documents of their own sub-group). A preference stated by
    several sub-groups of one jg counts once ("the duplicate 1 > 2 is not counted as a separate
    preference"); different jgs (users) count separately. Returns the line indices ``(a, b)`` of
    every pair: the (qid, jg, jsg) groups in order of first appearance, then i, then j, repeats
    left out. Vectorised: no Python work per line or per pair.
    """
    n = len(p)
    if n < 2:
        e = np.zeros(0, np.int64)
        return e, e.copy()
    o = np.lexsort((p.jsg, p.jg, p.qid))
    sq, sj, ss = p.qid[o], p.jg[o], p.jsg[o]
    new = np.r_[True, (sq[1:] != sq[:-1]) | (sj[1:] != sj[:-1]) | (ss[1:] != ss[:-1])]
    gid = np.empty(n, np.int64)
    gid[o] = np.cumsum(new) - 1
    first = np.full(int(new.sum()), n, np.int64)
    np.minimum.at(first, gid, np.arange(n, dtype=np.int64))
    rank = np.empty(len(first), np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    s = np.lexsort((np.arange(n), rank[gid]))  # groups by first appearance, file order inside
    g = rank[gid][s]
    start = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    end = np.r_[start[1:], n]
    size = end - start
    k = np.arange(n, dtype=np.int64)
    later = np.repeat(end, size) - k - 1  # partners after position k in its group
    total = int(later.sum())
    ia = np.repeat(k, later)
    block = np.cumsum(later) - later
    ib = np.arange(total, dtype=np.int64) - np.repeat(block, later) + np.repeat(k + 1, later)
    a, b = s[ia], s[ib]
    keep = (p.rel[a] != p.rel[b]) & (p.docno[a] != p.docno[b])
    a, b = a[keep], b[keep]
    if len(a) < 2:
        return a, b
    # one preference per (qid, jg, winner, loser): the first pair stating it
    win = np.where(p.rel[a] > p.rel[b], a, b)
    lose = np.where(p.rel[a] > p.rel[b], b, a)
    codes = [np.unique(col, return_inverse=True)[1].reshape(-1)
             for col in (p.qid[a], p.jg[a], p.docno[win], p.docno[lose])]
    order = np.lexsort((np.arange(len(a)), *codes[::-1]))
    same = np.ones(len(a), bool)
    for c in codes:
        same[1:] &= c[order][1:] == c[order][:-1]
    same[0] = False
    first = np.sort(order[~same])
    return a[first], b[first]


@record(frozen=True)
class QrelsJG:
    """Judgments with judgment groups: ``qid jg docno rel`` (``rel`` int64)."""

    qid: np.ndarray
    jg: np.ndarray
    docno: np.ndarray
    rel: np.ndarray
    line: np.ndarray
    source: str = "<qrels_jg>"

    def __len__(self) -> int:
        return len(self.qid)


def qrels_jg_from_bytes(data: bytes, source: str) -> QrelsJG:
    """Parse a ``qrels_jg`` file; a docno twice in one (qid, jg) is an error."""
    expected = "4 fields 'qid jg docno rel'"
    cols, lines = _columns(data, source, 4, expected, "S")
    rel = integer_grades(cols[3], source, lines)
    q = QrelsJG(qid=cols[0], jg=cols[1], docno=cols[2], rel=np.asarray(rel, dtype=np.int64),
                line=lines, source=source)
    _check_jg_duplicates(q)
    return q


def _check_jg_duplicates(q: QrelsJG) -> None:
    if len(q) < 2:
        return
    order = np.lexsort((q.docno, q.jg, q.qid))
    sq, sj, sd = q.qid[order], q.jg[order], q.docno[order]
    dup = np.flatnonzero((sq[1:] == sq[:-1]) & (sj[1:] == sj[:-1]) & (sd[1:] == sd[:-1]))
    if len(dup):
        a, b = q.line[order[dup]], q.line[order[dup + 1]]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        k = int(np.argmin(hi))
        first, second, i = int(lo[k]), int(hi[k]), order[dup[k]]
        raise InputError(q.source, second,
                         f"duplicate judgment for query {q.qid[i].decode(errors='replace')} "
                         f"judgment group {q.jg[i].decode(errors='replace')} document "
                         f"{q.docno[i].decode(errors='replace')} (first at line {first})")


def read_prefs(path: PathLike) -> Prefs:
    """Read a ``prefs`` file (path, ``-``, gzip)."""
    return prefs_from_bytes(read_input_bytes(path, what="prefs file"), display_name(path))


def read_qrels_prefs(path: PathLike) -> Prefs:
    """Read a qrels file as preferences (``-R qrels_prefs``)."""
    return qrels_prefs_from_bytes(read_input_bytes(path, what="qrels file"), display_name(path))


def read_qrels_jg(path: PathLike) -> QrelsJG:
    """Read a ``qrels_jg`` file (``-R qrels_jg``)."""
    return qrels_jg_from_bytes(read_input_bytes(path, what="qrels_jg file"), display_name(path))
