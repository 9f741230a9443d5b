"""Writers for preference results.

* :func:`pref_json_lines` — pref_eval.py's JSON lines, byte for byte
  (``json.dumps`` spacing, Python float repr, per-query lexi values as ints,
  summary lines without ``"type"``; see docs/zelo_eval.md for the line order).
* :func:`pref_rows` + :data:`TABLE_HEADER` — long-form rows
  ``runi, runj, qid, measure, value`` (metric rows have an empty ``runj``).
"""
from __future__ import annotations

import json
from typing import Iterator

import numpy as np

from .evaluate import PrefResult

TABLE_HEADER = ("runi", "runj", "qid", "measure", "value")


def _wrap(body: str, sep: str, pre: str, post: str) -> list[str]:
    """``body`` = literals joined by ``sep`` → ``[pre + lit + post, ...]``.

    One ``str.replace`` and one ``split`` (C loops); NUL cannot occur in the
    pieces (``json.dumps`` escapes control characters).
    """
    return (pre + body.replace(sep, post + "\0" + pre) + post).split("\0")


def _float_texts(flat: np.ndarray, pre: str = "", post: str = "") -> list[str]:
    """``pre + repr(x) + post`` for each float of ``flat`` (1-D), repr as ``json.dumps`` writes it.

    With orjson installed (optional) the bulk is formatted by it: its shortest
    round-trip digits equal Python's ``repr`` for every finite ``x`` with
    ``1e-4 <= |x| < 1e16`` or ``x == ±0`` (it differs only in the notation of
    very small or large numbers, tests/test_pref_output.py); the other values
    go through ``repr``. Without orjson: ``repr`` of the list of distinct
    values (formatting in C).
    """
    flat = np.ascontiguousarray(flat, dtype=np.float64)
    if flat.size == 0:
        return []
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson is optional
        orjson = None
    if orjson is None:
        uniq, inv = np.unique(flat, return_inverse=True)
        text = np.array(_wrap(repr(uniq.tolist())[1:-1], ", ", pre, post), dtype=object)
        out = text[inv.ravel()]
        neg0 = np.flatnonzero((flat == 0) & np.signbit(flat))  # np.unique merges 0.0 and -0.0
        out[neg0] = pre + "-0.0" + post
        return out.tolist()
    out = _wrap(orjson.dumps(flat, option=orjson.OPT_SERIALIZE_NUMPY)[1:-1].decode("ascii"), ",", pre, post)
    a = np.abs(flat)
    with np.errstate(invalid="ignore"):
        odd = np.flatnonzero(~((a >= 1e-4) & (a < 1e16)) & (flat != 0))
    if len(odd):
        fix = repr(flat[odd].tolist())[1:-1].split(", ")
        for k, t in zip(odd.tolist(), fix):
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


def summary_means(values: np.ndarray) -> np.ndarray:
    """Σ_q v_q / numq accumulated sequentially in query order (pref_eval.py)."""
    nq = values.shape[1]
    if nq == 0:
        return np.zeros(values.shape[0])
    return np.cumsum(values.astype(np.float64) / float(nq), axis=1)[:, -1]


def _template(head: str, keys: list[str]) -> str:
    body = "".join(f", {json.dumps(k).replace('%', '%%')}: %s" for k in keys)
    return head + body + "}\n"


def _query_layout(I: np.ndarray, R: int, with_metrics: bool) -> tuple[np.ndarray, np.ndarray]:
    """Positions of one query's lines: (preference lines (P,), metric lines (R,) or empty).

    Sort keys (run i, preference before metric, pair index): for each run i
    its lines (i, j), then its metric line.
    """
    P = len(I)
    ki = [I]
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


CHUNK_PIECES = 1 << 20  # pieces (line × field) formatted and joined at a time


def pref_json_lines(res: PrefResult, *, per_query: bool, summary: bool, means: bool = False) -> Iterator[str]:
    """Yield pref_eval.py's output lines (with newline) for one sample.

    Per query, for each run i: its preference lines (i, j), then its metric
    line (only if a metric is selected); then one summary line per pair.

    The per-query lines of a block of queries are laid out as one object
    array of pieces (line × piece: head, key text, value, ...) filled column
    by column and joined once; values are formatted in bulk
    (:func:`_literals`), so there is no Python-level work per line.
    """
    keys = [m.key for m in res.measures]
    metric_keys = [m.key for m in res.measures if m.is_metric]
    jruns = [json.dumps(r) for r in res.runs]
    sample = str(res.sample)
    P, nq, R = len(res.I), len(res.qids), len(res.runs)
    if per_query and nq and (P or metric_keys):
        pos_p, pos_m = _query_layout(res.I, R, bool(metric_keys))
        per_q = len(pos_p) + len(pos_m)
        width = 2 + max(len(keys), 1)
        qhead = np.array(['{"qid": ' + json.dumps(q) for q in res.qids], dtype=object)
        tail = ', "sample": ' + sample
        phead = np.array([f', "runi": {jruns[i]}, "runj": {jruns[j]}{tail}, "type": "preference"'
                          for i, j in zip(res.I.tolist(), res.J.tolist())], dtype=object)
        mhead = np.array([f', "run": {r}{tail}, "type": "metric"' for r in jruns], dtype=object)
        pvals = [(k, res.pair_values(k), res.ties.get(k)) for k in keys]
        step = max(1, CHUNK_PIECES // max(1, per_q * width))
        for q0 in range(0, nq, step):
            q1 = min(nq, q0 + step)
            c = q1 - q0
            base = (np.arange(c) * per_q)[:, None]
            A = np.empty((c * per_q, width), dtype=object)
            A[:] = ""
            if P:
                pp = (base + pos_p[None, :]).ravel()
                A[pp, 0] = np.repeat(qhead[q0:q1], P)
                A[pp, 1] = np.tile(phead, c)
                if not pvals:
                    A[pp, 2] = "}\n"
                for col, (k, vals, tie) in enumerate(pvals):
                    post = "}\n" if col == len(pvals) - 1 else ""
                    A[pp, 2 + col] = _literals(vals[:, q0:q1].T, None if tie is None else tie[:, q0:q1].T,
                                               f", {json.dumps(k)}: ", post)
            if metric_keys:
                mp = (base + pos_m[None, :]).ravel()
                A[mp, 0] = np.repeat(qhead[q0:q1], R)
                A[mp, 1] = np.tile(mhead, c)
                for col, k in enumerate(metric_keys):
                    post = "}\n" if col == len(metric_keys) - 1 else ""
                    A[mp, 2 + col] = _literals(res.metrics[k][:, q0:q1].T, None, f", {json.dumps(k)}: ", post)
            yield "".join(A.ravel().tolist())
    if summary and nq:
        stpl = _template('{"qid": "all", "runi": %s, "runj": %s, "sample": ' + sample, keys)
        sums = [_literals(summary_means(res.pair_values(k))) for k in keys]
        yield "".join(stpl % t for t in zip([jruns[int(i)] for i in res.I], [jruns[int(j)] for j in res.J], *sums))
    if means and nq and metric_keys:
        atpl = _template('{"qid": "all", "run": %s, "sample": ' + sample + ', "type": "metric"', metric_keys)
        ms = [_literals(summary_means(res.metrics[k])) for k in metric_keys]
        yield "".join(atpl % t for t in zip(jruns, *ms))


def pref_rows(res: PrefResult, *, per_query: bool, summary: bool) -> Iterator[tuple]:
    """Long-form rows (runi, runj, qid, measure, value); metric rows have runj ''.

    Metrics first (per run: per-query rows then the mean), then preferences
    (per pair: per-query rows then the mean over queries).
    """
    for m in res.measures:
        if not m.is_metric:
            continue
        vals = res.metrics[m.key]
        means = summary_means(vals)
        for i, run in enumerate(res.runs):
            if per_query:
                for q, qid in enumerate(res.qids):
                    yield run, "", qid, m.key, float(vals[i, q])
            if summary and res.qids:
                yield run, "", "all", m.key, float(means[i])
    for m in res.measures:
        vals = res.pair_values(m.key)
        means = summary_means(vals)
        for p in range(len(res.I)):
            ri, rj = res.runs[int(res.I[p])], res.runs[int(res.J[p])]
            if per_query:
                for q, qid in enumerate(res.qids):
                    v = vals[p, q]
                    yield ri, rj, qid, m.key, int(v) if vals.dtype.kind in "iu" else float(v)
            if summary and res.qids:
                yield ri, rj, "all", m.key, float(means[p])


def write_table(out, rows, fmt: str, header: bool = True) -> None:
    """Write rows as tsv, csv or jsonl (floats in repr form)."""
    import csv

    def text(v) -> str:
        return repr(v) if isinstance(v, float) else str(v)

    if fmt == "jsonl":
        for r in rows:
            out.write(json.dumps(dict(zip(TABLE_HEADER, r))) + "\n")
        return
    if fmt == "tsv":
        if header:
            out.write("\t".join(TABLE_HEADER) + "\n")
        for r in rows:
            out.write("\t".join(text(x) for x in r) + "\n")
        return
    w = csv.writer(out, lineterminator="\n")
    if header:
        w.writerow(TABLE_HEADER)
    for r in rows:
        w.writerow([text(x) for x in r])
