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

* ``trecprefs`` has no entry here: its reader is vectorised itself (the
  reader of ``zelo_trec -R prefs``, :mod:`pref_eval.io.prefs`).
* ``xie``: lines split on tabs only with numpy (a query may hold spaces);
  votes must be one of ``-2 -1 0 1 2`` (or with ``.0``), the same count on
  every line.
* ``zbench``: the JSON document parsed by orjson and taken column-wise (string
  ids, finite numeric scores); with a dataset, a document the dataset does not
  list sends the file to the parser (its message names ``scored_pairs[k]``).

Ensemble votes (zbench, xie) are vectorised (:func:`_vote_columns`, the rule
of :func:`~pref_eval.zelo.judgments.vote_score`) and kept as an array until
:attr:`~pref_eval.zelo.judgments.Judgments.votes` is read.

Any value the parser would refuse (a score outside [0, 1], a winner that is
neither document, ...) also sends the file to the parser, for its message.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from ..records import record
from .keys import factorize as factorize_keys

if TYPE_CHECKING:
    from ..zelo.judgments import Judgments

PYARROW_MIN = 1 << 20  # smaller files: the numpy tokenizer (no pyarrow import)
_ODD_BYTES = (b"\x00", b"\x1c", b"\x1d", b"\x1e", b"\x1f")  # NUL, and white space for str.split() only
_ODD_SPACE = r"[^\S \t\n\r\x0b\x0c]"  # white space for str.split() but not bytes.split()


@record
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
    votes: np.ndarray | None = None
    shown_b_first: dict | None = None  # row -> per vote, True where doc_b was shown first (rows all kept)

    def add_to(self, table: Judgments) -> None:
        """Append to a :class:`~pref_eval.zelo.judgments.Judgments` (``add_columns``)."""
        base = len(table)
        table.add_columns(self.names, self.q, self.a, self.b, self.score, self.weight, self.lines, self.keep,
                          self.missing, self.votes)
        if self.shown_b_first:
            if self.keep is not None:
                raise RuntimeError("internal error: presentation orders of columns with dropped rows")
            table.shown_b_first.update((base + k, v) for k, v in self.shown_b_first.items())

    def unknown_documents(self, table: Judgments) -> bool:
        """Whether a row names a document that ``table`` does not list for a closed query (a dataset's)."""
        if not table.closed:
            return False
        name_closed = np.array([x in table.closed for x in self.names], dtype=bool)
        rows = name_closed[self.q]
        if not rows.any():
            return False
        nn = len(self.names)
        q = self.q[rows].astype(np.int64) * nn
        docs = np.unique(np.concatenate([q + self.a[rows], q + self.b[rows]]))
        known = {q: set(table.docs[q]) for q in table.closed}
        return any(self.names[d] not in known[self.names[q]] for q, d in zip((docs // nn).tolist(),
                                                                           (docs % nn).tolist(), strict=True))


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


def _fields(data: bytes, text: str | None, nfields: int) -> tuple[list[np.ndarray], np.ndarray] | None:
    """The fields of every data line (``S`` arrays) and their 1-based lines, or None (not a regular file)."""
    if not data:
        return None
    if data[:1] == b"#" or b"\n#" in data or any(c in data for c in _ODD_BYTES):
        return None
    if not data.isascii() and text is not None and re.search(_ODD_SPACE, text):  # text: None for ASCII data
        return None
    if len(data) >= PYARROW_MIN:
        from .fastparse import fast_columns

        cols = fast_columns(data, min_fields=nfields, max_fields=nfields, kinds={k: "S" for k in range(nfields)})
        if cols is not None:
            return [cols[k] for k in range(nfields)], np.arange(1, len(cols[0]) + 1, dtype=np.int64)
    from ..errors import InputError
    from .tokenize import split_lines

    try:
        fields, lines = split_lines(data, "-", min_fields=nfields, max_fields=nfields, expected="", keep=nfields)
    except InputError:
        return None
    if len(lines) == 0:
        return None
    return fields, lines


def factorize(*columns: np.ndarray) -> tuple[list[str], list[np.ndarray]]:
    """Distinct values (decoded UTF-8; bytes that are not UTF-8 as surrogate escapes) of ``S`` arrays and
    each array's codes into them."""
    w = max(c.dtype.itemsize for c in columns)
    if w <= 8:  # fixed-width bytes up to 8, NUL-padded to 8: factorized as integers (much faster than bytes)
        pad = np.zeros((sum(len(c) for c in columns), 8), dtype=np.uint8)
        k = 0
        for c in columns:
            pad[k:k + len(c), :c.dtype.itemsize] = np.ascontiguousarray(c).view(np.uint8).reshape(len(c), -1)
            k += len(c)
        uniq, inv = factorize_keys(pad.view(np.uint64).reshape(-1))
        names = [x.decode("utf-8", "surrogateescape") for x in uniq.view("S8").tolist()]
    else:
        allv = np.concatenate([c.astype(f"S{w}") for c in columns])
        uniq, inv = np.unique(allv, return_inverse=True)
        names = [x.decode("utf-8", "surrogateescape") for x in uniq.tolist()]
    inv = inv.astype(np.int64)
    out, k = [], 0
    for c in columns:
        out.append(inv[k:k + len(c)])
        k += len(c)
    return names, out


def clarke4_columns(data: bytes, text: str | None, ties: str = "half") -> Columns | None:
    """``topic docA docB winner`` lines (score 1 when B wins)."""
    f = _fields(data, text, 4)
    if f is None:
        return None
    (t, a, b, w), lines = f
    names, (qc, ac, bc, wc) = factorize(t, a, b, w)
    if bool(np.any(ac == bc)) or not bool(np.all((wc == ac) | (wc == bc))):
        return None
    return Columns(names, qc, ac, bc, (wc == bc).astype(np.float64), None, lines)


def clarke3_columns(data: bytes, text: str | None, ties: str = "half") -> Columns | None:
    """``topic winner loser`` lines (A = winner, score 0)."""
    f = _fields(data, text, 3)
    if f is None:
        return None
    (t, w, lo), lines = f
    names, (qc, wc, lc) = factorize(t, w, lo)
    if bool(np.any(wc == lc)):
        return None
    return Columns(names, qc, wc, lc, np.zeros(len(qc)), None, lines)


def llmlog_columns(data: bytes, text: str | None, ties: str = "half") -> Columns | None:
    """``@ topic docA docB M`` lines: ``!`` A better (0), ``=`` tie (1/2), ``?`` documents only."""
    f = _fields(data, text, 5)
    if f is None:
        return None
    (at, t, a, b, m), lines = f
    if not bool(np.all(at == b"@")) or not bool(np.all(np.isin(m, [b"!", b"=", b"?"]))):
        return None
    names, (qc, ac, bc) = factorize(t, a, b)
    return Columns(names, qc, ac, bc, np.where(m == b"=", 0.5, 0.0), None, lines, m != b"?", m == b"?")


def carterette_columns(data: bytes, text: str | None, ties: str = "half") -> Columns | None:
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


def _vote_columns(votes: np.ndarray, ties: str) -> tuple[np.ndarray, np.ndarray]:
    """Pair scores and vote values of a (judgments x votes) array of finite votes, as
    :func:`~pref_eval.zelo.judgments.vote_score` and ``vote_values`` give them one pair at a time."""
    n = votes.shape[1]
    pos = np.count_nonzero(votes > 0, axis=1)
    if ties == "zbench":  # 0.0 + 1/n + 1/n ... in Python floats: depends only on the count
        steps = [0.0]
        for _ in range(n):
            steps.append(steps[-1] + 1.0 / n)
        score = np.array(steps)[pos]
    else:
        zero = np.count_nonzero(votes == 0, axis=1)
        score = (pos + 0.5 * zero) / n
    return score, np.select([votes > 0, votes < 0], [1.0, 0.0], 0.5)


_XIE_VOTES = {b"-2": -2.0, b"-1": -1.0, b"0": 0.0, b"1": 1.0, b"2": 2.0,
              b"-2.0": -2.0, b"-1.0": -1.0, b"0.0": 0.0, b"1.0": 1.0, b"2.0": 2.0}


def xie_columns(data: bytes, text: str | None, ties: str = "half") -> Columns | None:
    """Xie et al. TSV ``query<TAB>left,right<TAB>vote...`` (votes -2..2, negative = left better).

    Fields are split on tabs only (a query may hold spaces), as the parser does.
    Taken when every line has the same number (>= 3) of fields, no line is
    blank, the file has no ``\r`` or NUL, every pair is ``left,right`` with
    two non-empty ids and every vote is one of ``-2 -1 0 1 2`` (or with
    ``.0``); a first line starting ``Query<TAB>`` is the header.
    """
    if not data or b"\r" in data or b"\x00" in data:
        return None
    start = data.find(b"\n") + 1 if data.startswith(b"Query\t") else 0
    if start == 0 and data.startswith(b"Query\t"):
        return None
    body = data[start:]
    if not body:
        return None
    if not body.endswith(b"\n"):
        body += b"\n"
    a = np.frombuffer(body, dtype=np.uint8)
    nl = np.flatnonzero(a == 10)
    tabs = np.flatnonzero(a == 9)
    nlines = len(nl)
    if len(tabs) % nlines:
        return None
    k = len(tabs) // nlines + 1
    if k < 3 or not bool(np.all(np.bincount(np.searchsorted(nl, tabs), minlength=nlines) == k - 1)):
        return None
    tab_at = tabs.reshape(nlines, k - 1)
    lstart = np.concatenate([[0], nl[:-1] + 1])
    from .tokenize import MAX_FIELD, _gather

    starts = np.column_stack([lstart, tab_at + 1])
    ends = np.column_stack([tab_at, nl])
    if int((ends - starts).max()) > MAX_FIELD or int((ends - starts).min()) == 0:
        return None
    query = _gather(a, starts[:, 0], ends[:, 0])
    pair = _gather(a, starts[:, 1], ends[:, 1])
    comma = np.char.find(pair, b",")
    if bool(np.any(comma < 1)) or bool(np.any(np.char.count(pair, b",") != 1)):
        return None
    plen = np.char.str_len(pair)
    if bool(np.any(comma >= plen - 1)):
        return None
    ps = starts[:, 1]
    left = _gather(a, ps, ps + comma)
    right = _gather(a, ps + comma + 1, ends[:, 1])
    vnames, vcodes = factorize(*(_gather(a, starts[:, c], ends[:, c]) for c in range(2, k)))
    vals = [_XIE_VOTES.get(x.encode("utf-8", "surrogateescape")) for x in vnames]
    if any(v is None for v in vals):
        return None
    votes = np.array(vals)[np.column_stack(vcodes)]
    names, (qc, ac, bc) = factorize(query, left, right)
    score, values = _vote_columns(votes, ties)
    lines = np.arange(1, nlines + 1, dtype=np.int64) + (1 if start else 0)
    return Columns(names, qc, ac, bc, score, None, lines, votes=values)


def zbench_columns(data: bytes, text: str | None, ties: str = "half") -> Columns | None:
    """zbench ``ai_scores.json``: ``{"scored_pairs": [{"pair": {...}, "openai_score": {"score": v}, ...}]}``.

    Parsed by orjson (the stdlib ``json`` without it) and taken column-wise
    when every pair has string ids and the three model scores are numbers
    (not booleans, not NaN or infinite); anything else goes to the parser.
    Python's cyclic garbage collector is paused meanwhile: the parse makes
    millions of small dicts, and collections triggered by their allocation
    would cost three times the parse itself.
    """
    import gc

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _zbench_columns(data, ties)
    finally:
        if was_enabled:
            gc.enable()


def _zbench_columns(data: bytes, ties: str) -> Columns | None:
    from .judgments import ZBENCH_MODELS, _zbench_swapped

    try:
        import orjson

        obj = orjson.loads(data)
    except ImportError:  # pragma: no cover - orjson is a dependency
        import json

        try:
            obj = json.loads(data)
        except (ValueError, RecursionError):
            return None
    except ValueError:
        return None
    sp = obj.get("scored_pairs") if isinstance(obj, dict) else None
    if not isinstance(sp, list) or not sp:
        return None
    try:
        pairs = [x["pair"] for x in sp]
        ids = [[p["query_id"] for p in pairs], [p["document_a"]["document_id"] for p in pairs],
               [p["document_b"]["document_id"] for p in pairs]]
        scores = [[x[m]["score"] for x in sp] for m in ZBENCH_MODELS]
        swapped = [[_zbench_swapped(x[m]) for x in sp] for m in ZBENCH_MODELS]
    except (KeyError, TypeError):
        return None
    del obj, sp, pairs
    if any(set(map(type, col)) != {str} for col in ids):
        return None
    if any(not set(map(type, col)) <= {int, float} for col in scores):
        return None
    try:
        votes = np.array(scores, dtype=np.float64).T
    except OverflowError:
        return None
    if not bool(np.isfinite(votes).all()):
        return None
    names = list(dict.fromkeys(ids[0] + ids[1] + ids[2]))
    index = {x: k for k, x in enumerate(names)}
    qc, ac, bc = (np.fromiter(map(index.__getitem__, col), dtype=np.int64, count=len(col)) for col in ids)
    score, values = _vote_columns(votes, ties)
    sw = np.array(swapped, dtype=bool).T
    shown = {int(k): tuple(sw[k].tolist()) for k in np.flatnonzero(sw.any(axis=1))}
    return Columns(names, qc, ac, bc, score, None, np.zeros(len(votes), dtype=np.int64), votes=values,
                   shown_b_first=shown)


FAST_READERS = {
    "clarke4": clarke4_columns,
    "clarke3": clarke3_columns,
    "llmlog": llmlog_columns,
    "carterette": carterette_columns,
    "xie": xie_columns,
    "zbench": zbench_columns,
}
