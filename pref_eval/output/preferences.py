"""Writers for preference results.

* :func:`pref_json_lines` — pref_eval.py's JSON lines, byte for byte
  (``json.dumps`` spacing, Python float repr, per-query lexi values as ints,
  summary lines without ``"type"``; see docs/zelo_eval.md for the line order).
* :func:`pref_rows` + :data:`TABLE_HEADER` — long-form rows
  ``runi, runj, qid, measure, value`` (metric rows have an empty ``runj``).
"""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from ..io.keys import distinct

from .json_text import json_dumps, json_str

from ..run_preferences.evaluate import PrefResult

if TYPE_CHECKING:
    from ..run_preferences.names import PrefMeasure

TABLE_HEADER = ("runi", "runj", "qid", "measure", "value")
# floats formatted by orjson from this many: loading it costs ~5 ms (~5 % of import numpy), repr ~0.7 µs a
# float, orjson ~0.03 µs; once it is loaded (an earlier, larger call), from ORJSON_MIN_LOADED on
ORJSON_MIN = 1 << 13
ORJSON_MIN_LOADED = 256


def _wrap(body: str, sep: str, pre: str, post: str) -> list[str]:
    """``body`` = literals joined by ``sep`` → ``[pre + lit + post, ...]``.

    One ``str.replace`` and one ``split`` (C loops); NUL cannot occur in the
    pieces (``json.dumps`` escapes control characters).
    """
    return (pre + body.replace(sep, post + "\0" + pre) + post).split("\0")


def _float_texts(flat: np.ndarray, pre: str = "", post: str = "") -> list[str]:
    """``pre + repr(x) + post`` for each float of ``flat`` (1-D), repr as ``json.dumps`` writes it.

    Fewer than ``ORJSON_MIN`` values (``ORJSON_MIN_LOADED`` once orjson is loaded): ``repr`` of the list
    (one C call). From there on, with orjson installed (optional), the bulk is formatted by it: its shortest
    round-trip digits equal Python's ``repr`` for every finite ``x`` with
    ``1e-4 <= |x| < 1e16`` or ``x == ±0`` (it differs only in the notation of
    very small or large numbers, tests/test_pref_output.py); the other values
    go through ``repr``. Without orjson: ``repr`` of the list of distinct
    values (formatting in C).
    """
    flat = np.ascontiguousarray(flat, dtype=np.float64)
    if flat.size == 0:
        return []
    loaded = sys.modules.get("orjson") is not None
    if flat.size < (ORJSON_MIN_LOADED if loaded else ORJSON_MIN):  # repr of the list (C): cheaper here
        return _wrap(repr(flat.tolist())[1:-1], ", ", pre, post)
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson is optional
        uniq, inv = np.unique(flat, return_inverse=True)
        text = np.array(_wrap(repr(uniq.tolist())[1:-1], ", ", pre, post), dtype=object)
        lit = text[inv.ravel()]
        zero = flat == 0  # np.unique merges 0.0 and -0.0: write both signs explicitly
        lit[zero & np.signbit(flat)] = pre + "-0.0" + post
        lit[zero & ~np.signbit(flat)] = pre + "0.0" + post
        return lit.tolist()
    out = _wrap(orjson.dumps(flat, option=orjson.OPT_SERIALIZE_NUMPY)[1:-1].decode("ascii"), ",", pre, post)
    a = np.abs(flat)
    with np.errstate(invalid="ignore"):
        odd = np.flatnonzero(~((a >= 1e-4) & (a < 1e16)) & (flat != 0))
    if len(odd):
        fix = repr(flat[odd].tolist())[1:-1].split(", ")
        for k, t in zip(odd.tolist(), fix, strict=False):
            out[k] = pre + t + post
    return out


def _literals(values: np.ndarray, ties: np.ndarray | None = None, pre: str = "", post: str = "") -> list[str]:
    """``pre + literal + post`` for ``values`` in C order (ints for int arrays, float repr otherwise).

    Exact ties (``ties`` True) print as ``0``, as pref_eval.py's integer 0.
    """
    flat = np.ascontiguousarray(values).ravel()
    if flat.size == 0:
        return []
    if flat.dtype.kind in "iub":
        iv = flat.astype(np.int64)
        lo, hi = int(iv.min()), int(iv.max())
        if hi - lo < 64:  # lexi signs: a table of the few texts, no string per value
            table = np.array([f"{pre}{v}{post}" for v in range(lo, hi + 1)], dtype=object)
            out = table[iv - lo].tolist()
        else:
            out = _wrap(repr(iv.tolist())[1:-1], ", ", pre, post)
    else:
        out = _float_texts(flat, pre, post)
    if ties is not None:
        for k in np.flatnonzero(ties.ravel()).tolist():
            out[k] = pre + "0" + post
    return out


FEW = 8  # a column (or run of adjacent columns) with at most n/FEW distinct texts is coded


def _factorize(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct keys, index of each key among them) for int64 ``keys``.

    A table over the key range when it is small (no sort), else ``np.unique``.
    """
    lo, hi = int(keys.min()), int(keys.max())
    if hi - lo <= 4 * len(keys):
        seen = np.zeros(hi - lo + 1, dtype=bool)
        seen[keys - lo] = True
        rank = np.cumsum(seen) - 1
        return np.flatnonzero(seen) + lo, rank[keys - lo]
    u, inv = np.unique(keys, return_inverse=True)
    return u, inv.ravel()


def _coded(values: np.ndarray, ties: np.ndarray | None, pre: str, post: str):
    """(codes (n,), texts) for a column with few distinct values, else None.

    Distinct values are found on the bit patterns (so -0.0 and 0.0 stay
    apart) and formatted once; exact ties get one more text, ``0``.
    """
    flat = np.ascontiguousarray(values).ravel()
    n = flat.size
    if n < 64 or flat.dtype.kind not in "fiub":
        return None
    if flat.dtype.kind == "f":
        flat = flat.astype(np.float64, copy=False)
    probe = flat[:: max(1, n // 512)]
    if len(distinct(probe)) > len(probe) // 2:
        return None
    if flat.dtype == np.float64:
        u, inv = np.unique(flat.view(np.int64), return_inverse=True)
        inv = inv.ravel()
    else:
        u, inv = _factorize(flat.astype(np.int64))
    if len(u) * FEW > n:
        return None
    texts = _literals(u.view(np.float64) if flat.dtype == np.float64 else u, None, pre, post)
    inv = inv.ravel()
    if ties is not None and ties.any():
        texts.append(pre + "0" + post)
        inv = np.where(np.ascontiguousarray(ties).ravel(), len(u), inv)
    return inv, np.array(texts, dtype=object)


def _pieces(columns: list) -> list:
    """Texts of a line's value columns ``[(values, ties, pre, post), ...]`` as pieces.

    A column with many distinct values is one piece of fresh strings
    (:func:`_literals`); adjacent columns with few distinct values are
    merged into one piece as long as their combinations stay few, and
    filled from a table of texts (no string per value).
    """
    pieces: list = []
    cur = None
    for values, ties, pre, post in columns:
        coded = _coded(values, ties, pre, post)
        if coded is None:
            if cur is not None:
                pieces.append(cur[1][cur[0]])
                cur = None
            pieces.append(_literals(values, ties, pre, post))
            continue
        if cur is None:
            cur = coded
            continue
        nb = len(coded[1])
        u, inv = _factorize(cur[0] * nb + coded[0])
        if len(u) * FEW <= len(inv):
            texts = [x + y for x, y in zip(cur[1][u // nb].tolist(), coded[1][u % nb].tolist(), strict=False)]
            cur = (inv.ravel(), np.array(texts, dtype=object))
        else:
            pieces.append(cur[1][cur[0]])
            cur = coded
    if cur is not None:
        pieces.append(cur[1][cur[0]])
    return pieces


def id_order(qids: Iterable[str]) -> np.ndarray:
    """The permutation that puts ``qids`` in id order (code points = UTF-8 byte order, trec_eval's)."""
    return np.argsort(np.array(list(qids), dtype=str), kind="stable")


def summary_means(values: np.ndarray, qids: Sequence[str] | None = None) -> np.ndarray:
    """Σ_q v_q / numq accumulated sequentially (pref_eval.py's formula), the queries in id order when
    ``qids`` (the columns' query ids) is given.

    pref_eval.py sums in qrels order, so its last bits depend on the order of the qrels lines; we
    sum in one canonical order, the order of ``zelo_trec`` and metric mode: the summary of a file
    does not depend on its line order (equal to pref_eval.py's for qrels sorted by query id, and
    within a few ulps otherwise; docs/differences-pref_eval.md).
    """
    nq = values.shape[1]
    if nq == 0:
        return np.zeros(values.shape[0])
    if qids is not None:
        values = values[:, id_order(qids)]
    return np.cumsum(values.astype(np.float64) / float(nq), axis=1)[:, -1]


def _aggregate(m) -> str:
    """The summary a measure takes over queries: trec_eval's (``gm_map``: geometric mean) for a
    registry measure, the arithmetic mean for everything else (pref_eval.py)."""
    if getattr(m, "kind", None) == "registry" and m.request is not None:
        agg = m.request.spec.aggregate
        return agg if agg in ("sum", "gmean") else "mean"
    return "mean"


def run_summaries(res: PrefResult, m: PrefMeasure) -> np.ndarray:
    """Per-run summary of metric ``m`` (R,): its own aggregate (``gm_map`` = geometric mean of AP)."""
    vals = res.metrics[m.key][:, id_order(res.qids)]
    agg = _aggregate(m)
    if agg == "mean":
        return summary_means(vals)
    from ..engine import summarize

    return np.array([summarize(np.asarray(v, np.float64), agg, vals.shape[1]) for v in vals])


def pair_summaries(res: PrefResult, m: PrefMeasure) -> np.ndarray:
    """Summary of each pair (P,): the mean per-query preference / difference, or, for a measure
    whose summary is not a mean (``gm_map``, ``gm_bpref``), the difference of the runs' summaries."""
    if m.is_metric and _aggregate(m) != "mean":
        s = run_summaries(res, m)
        return s[res.run_i] - s[res.run_j]
    return summary_means(res.pair_values(m.key), res.qids)


def _template(head: str, keys: list[str]) -> str:
    body = "".join(f", {json_str(k).replace('%', '%%')}: %s" for k in keys)
    return head + body + "}\n"


def _query_layout(run_i: np.ndarray, R: int, with_metrics: bool) -> tuple[np.ndarray, np.ndarray]:
    """Positions of one query's lines: (preference lines (P,), metric lines (R,) or empty).

    Sort keys (run i, preference before metric, pair index): for each run i
    its lines (i, j), then its metric line.
    """
    P = len(run_i)
    ki = [run_i]
    kt = [np.zeros(P, np.int64)]
    kp = [np.arange(P)]
    if with_metrics:
        ki.append(np.arange(R))
        kt.append(np.ones(R, np.int64))
        kp.append(np.zeros(R, np.int64))
    order = np.lexsort(tuple(np.concatenate(k) for k in (kp, kt, ki)))
    pos = np.empty(len(order), np.int64)
    pos[order] = np.arange(len(order))
    return pos[:P], pos[P:]


CHUNK_PIECES = 1 << 18  # pieces (line × field) formatted and joined at a time


CHUNK_LINES = 1 << 15  # per-query lines written by the compiled kernels at a time (~15 MB of text)


def _orjson_dumps() -> Callable[[np.ndarray], bytes] | None:
    """orjson's writer of a float64 array (``[x,y,...]``), or None without orjson (optional)."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson is optional: repr for every float then
        return None

    def dumps(v: np.ndarray) -> bytes:
        return orjson.dumps(v, option=orjson.OPT_SERIALIZE_NUMPY)
    return dumps


def _value_spec(values: np.ndarray, ties, pre: str, post: str) -> tuple | None:
    """A value column for ``_kernels.pref_lines`` (whole arrays; :func:`_chunk_spec` cuts them), or None."""
    if values.dtype.kind in "iub":
        return None if ties is not None else (2, values, pre, post)
    return (1, values, ties, pre, post) if values.dtype.kind == "f" else None


def _chunk_spec(sp: tuple, q0: int, q1: int, dumps: Callable[[np.ndarray], bytes] | None) -> tuple:
    """A column's spec for queries q0..q1 (contiguous, query-major; floats with orjson's text and its bounds)."""
    if sp[0] == 0:
        return sp
    if sp[0] == 2:
        return (2, np.ascontiguousarray(sp[1][:, q0:q1].T, dtype=np.int64), sp[2], sp[3])
    v = np.ascontiguousarray(sp[1][:, q0:q1].T, dtype=np.float64)  # (queries, columns): read in line order
    t = None if sp[2] is None else np.ascontiguousarray(sp[2][:, q0:q1].T, dtype=bool).view(np.uint8)
    raw = bounds = None
    if dumps is not None and v.size:
        raw = dumps(v.ravel())
        bounds = np.concatenate([[0], np.flatnonzero(np.frombuffer(raw, np.uint8) == 44), [len(raw) - 1]])
    return (1, v, t, sp[3], sp[4], raw, bounds)


def _compiled_lines(res: PrefResult, pvals: list, metric_keys: list[str], pos_p: np.ndarray, pos_m: np.ndarray,
                    qhead: np.ndarray, phead: np.ndarray, mhead: np.ndarray) -> Iterator[str] | None:
    """The per-query lines written by the compiled kernels (``_kernels.pref_lines``: the same text as the
    pieces below, floats as ``repr``, ties as ``0``, ints as decimals), ``CHUNK_LINES`` at a time; None when
    the kernels are not built (or a value column is of an unexpected kind: the Python path then)."""
    from ..native import kernels

    kern = kernels()
    if kern is None or not hasattr(kern, "pref_lines"):
        return None

    P, R, nq = len(pos_p), len(pos_m), len(res.qids)
    nfloat = nq * (P * len(pvals) + R * len(metric_keys))
    # orjson (import ~5 ms) as _float_texts uses it: for many floats, or once it is loaded
    dumps = _orjson_dumps() if nfloat >= (ORJSON_MIN_LOADED if sys.modules.get("orjson") else ORJSON_MIN) else None
    qtexts = qhead.tolist()
    pref_cols: list = [(0, phead.tolist(), 1)]
    for n, (k, v, t) in enumerate(pvals):
        pref_cols.append(_value_spec(v, t, f", {json_str(k)}: ", "}\n" if n == len(pvals) - 1 else ""))
    if not pvals:
        pref_cols.append((0, ["}\n"] * P, 1))
    metric_cols: list = [(0, mhead.tolist(), 1)]
    for n, k in enumerate(metric_keys):
        post = "}\n" if n == len(metric_keys) - 1 else ""
        metric_cols.append(_value_spec(res.metrics[k], None, f", {json_str(k)}: ", post))
    if any(c is None for c in pref_cols + metric_cols):
        return None
    per_q = P + R
    tk, tc = np.empty(per_q, np.int64), np.empty(per_q, np.int64)
    tk[pos_p], tc[pos_p] = 0, np.arange(P)
    tk[pos_m], tc[pos_m] = 1, np.arange(R)

    def lines() -> Iterator[str]:
        step = max(1, CHUNK_LINES // max(1, per_q))
        guess = 0
        for q0 in range(0, nq, step):
            q1 = min(nq, q0 + step)
            c = q1 - q0
            head = (0, qtexts[q0:q1], 0)
            kinds = [[head] + [_chunk_spec(sp, q0, q1, dumps) for sp in cols] for cols in (pref_cols, metric_cols)]
            text = kern.pref_lines(kinds, np.tile(tk, c), np.tile(tc, c),
                                   np.repeat(np.arange(c, dtype=np.int64), per_q), guess * c + 4096)
            guess = len(text) // c + 64
            yield text
    return lines()


def _python_lines(res: PrefResult, pvals: list, metric_keys: list[str], pos_p: np.ndarray, pos_m: np.ndarray,
                  qhead: np.ndarray, phead: np.ndarray, mhead: np.ndarray) -> Iterator[str]:
    """The per-query lines without the compiled kernels: per block of queries one object array of pieces
    (line × piece: head, key text, value, ...) filled column by column and joined once; values are
    formatted in bulk (:func:`_literals`), so there is no Python-level work per line."""
    P, R, nq = len(pos_p), len(pos_m), len(res.qids)
    per_q = P + R
    step = max(1, CHUNK_PIECES // max(1, per_q * (2 + len(pvals))))
    for q0 in range(0, nq, step):
        q1 = min(nq, q0 + step)
        c = q1 - q0
        ppieces = _pieces([(v[:, q0:q1].T, None if t is None else t[:, q0:q1].T, f", {json_str(k)}: ",
                            "}\n" if n == len(pvals) - 1 else "") for n, (k, v, t) in enumerate(pvals)]) \
            if P else []
        if P and not pvals:
            ppieces = [["}\n"] * (c * P)]
        mpieces = _pieces([(res.metrics[k][:, q0:q1].T, None, f", {json_str(k)}: ",
                            "}\n" if n == len(metric_keys) - 1 else "") for n, k in enumerate(metric_keys)])
        width = 2 + max(len(ppieces), len(mpieces))
        base = (np.arange(c) * per_q)[:, None]
        A = np.empty((c * per_q, width), dtype=object)
        A[:] = ""
        for present, pos, head, pieces in ((P, pos_p, phead, ppieces), (metric_keys, pos_m, mhead, mpieces)):
            if not present:
                continue
            rows = (base + pos[None, :]).ravel()  # this kind's lines of the block's queries
            A[rows, 0] = np.repeat(qhead[q0:q1], len(pos))
            A[rows, 1] = np.tile(head, c)
            for col, piece in enumerate(pieces):
                A[rows, 2 + col] = piece
        yield "".join(A.ravel().tolist())


def pref_json_lines(res: PrefResult, *, per_query: bool, summary: bool, means: bool = False) -> Iterator[str]:
    """Yield pref_eval.py's output lines (with newline) for one sample.

    Per query, for each run i: its preference lines (i, j), then its metric
    line (only if a metric is selected); then one summary line per pair.

    The per-query lines are written by the compiled kernels (:func:`_compiled_lines`), else by
    :func:`_python_lines`; the same text (tests/test_pref_output.py compares them).
    """
    keys = [m.key for m in res.measures]
    metric_keys = [m.key for m in res.measures if m.is_metric]
    jruns = [json_str(r) for r in res.runs]
    sample = str(res.sample)
    P, nq, R = len(res.run_i), len(res.qids), len(res.runs)
    if per_query and nq and (P or metric_keys):
        pos_p, pos_m = _query_layout(res.run_i, R, bool(metric_keys))
        qhead = np.array(['{"qid": ' + json_str(q) for q in res.qids], dtype=object)
        tail = ', "sample": ' + sample
        phead = np.array([f', "runi": {jruns[i]}, "runj": {jruns[j]}{tail}, "type": "preference"'
                          for i, j in zip(res.run_i.tolist(), res.run_j.tolist(), strict=False)], dtype=object)
        mhead = np.array([f', "run": {r}{tail}, "type": "metric"' for r in jruns], dtype=object)
        pvals = [(k, res.pair_values(k), res.ties.get(k)) for k in keys]
        compiled = _compiled_lines(res, pvals, metric_keys, pos_p, pos_m, qhead, phead, mhead)
        yield from compiled if compiled is not None else \
            _python_lines(res, pvals, metric_keys, pos_p, pos_m, qhead, phead, mhead)
    if summary and nq:
        stpl = _template('{"qid": "all", "runi": %s, "runj": %s, "sample": ' + sample, keys)
        sums = [_literals(pair_summaries(res, m)) for m in res.measures]
        ri, rj = [jruns[int(i)] for i in res.run_i], [jruns[int(j)] for j in res.run_j]
        yield "".join(stpl % t for t in zip(ri, rj, *sums, strict=False))
    if means and nq and metric_keys:
        atpl = _template('{"qid": "all", "run": %s, "sample": ' + sample + ', "type": "metric"', metric_keys)
        ms = [_literals(run_summaries(res, m)) for m in res.measures if m.is_metric]
        yield "".join(atpl % t for t in zip(jruns, *ms, strict=False))


def pref_rows(res: PrefResult, *, per_query: bool, summary: bool) -> Iterator[tuple]:
    """Long-form rows (runi, runj, qid, measure, value); metric rows have runj ''.

    Metrics first (per run: per-query rows then the mean), then preferences
    (per pair: per-query rows then the mean over queries).
    """
    for m in res.measures:
        if not m.is_metric:
            continue
        vals = res.metrics[m.key]
        means = run_summaries(res, m)
        for i, run in enumerate(res.runs):
            if per_query:
                for q, qid in enumerate(res.qids):
                    yield run, "", qid, m.key, float(vals[i, q])
            if summary and res.qids:
                yield run, "", "all", m.key, float(means[i])
    for m in res.measures:
        vals = res.pair_values(m.key)
        means = pair_summaries(res, m)
        for p in range(len(res.run_i)):
            ri, rj = res.runs[int(res.run_i[p])], res.runs[int(res.run_j[p])]
            if per_query:
                for q, qid in enumerate(res.qids):
                    v = vals[p, q]
                    yield ri, rj, qid, m.key, int(v) if vals.dtype.kind in "iu" else float(v)
            if summary and res.qids:
                yield ri, rj, "all", m.key, float(means[p])


def write_table(out: TextIO, rows: Iterable[Sequence[Any]], fmt: str, header: bool = True,
                sample: int | None = None) -> None:
    """Write rows as tsv, csv or jsonl (floats in repr form). ``sample``: a last column ``sample`` holding it
    (``zelo_eval --samples N``, N > 1: without it the N samples' rows could not be told apart)."""
    import csv

    head = TABLE_HEADER if sample is None else (*TABLE_HEADER, "sample")
    if sample is not None:
        rows = ((*r, sample) for r in rows)

    def text(v) -> str:
        return repr(v) if isinstance(v, float) else str(v)

    if fmt == "jsonl":
        for r in rows:
            out.write(json_dumps(dict(zip(head, r, strict=False))) + "\n")
        return
    if fmt == "tsv":
        if header:
            out.write("\t".join(head) + "\n")
        for r in rows:
            out.write("\t".join(text(x) for x in r) + "\n")
        return
    w = csv.writer(out, lineterminator="\n")
    if header:
        w.writerow(head)
    for r in rows:
        w.writerow([text(x) for x in r])
