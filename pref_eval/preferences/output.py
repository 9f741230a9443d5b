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


def _literals(values: np.ndarray, ties: np.ndarray | None = None) -> list[str]:
    """Flat JSON literals of ``values`` (ints for int arrays, float repr otherwise).

    ``repr(list)`` formats every element in C (the same ``float.__repr__`` as
    ``json.dumps``), far faster than one Python call per value.
    """
    flat = values.ravel()
    if flat.size == 0:
        return []
    uniq, inv = np.unique(flat, return_inverse=True)  # format each distinct value once
    text = np.array(repr(uniq.tolist())[1:-1].split(", "), dtype=object)
    if values.dtype.kind == "f":  # np.unique merges 0.0 and -0.0: keep the sign
        neg0 = (flat == 0) & np.signbit(flat)
        out = text[inv.ravel()].tolist()
        for k in np.flatnonzero(neg0):
            out[k] = "-0.0"
    else:
        out = text[inv.ravel()].tolist()
    if ties is not None:
        for k in np.flatnonzero(ties.ravel()):
            out[k] = "0"
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


def pref_json_lines(res: PrefResult, *, per_query: bool, summary: bool, means: bool = False) -> Iterator[str]:
    """Yield pref_eval.py's output lines (with newline) for one sample.

    Per query, for each run i: its preference lines (i, j), then its metric
    line (only if a metric is selected); then one summary line per pair.
    Lines are built with one ``%`` template per line type, values formatted
    in bulk (see :func:`_literals`).
    """
    keys = [m.key for m in res.measures]
    metric_keys = [m.key for m in res.measures if m.is_metric]
    jruns = [json.dumps(r) for r in res.runs]
    sample = str(res.sample)
    P, nq, R = len(res.I), len(res.qids), len(res.runs)
    if per_query and nq:
        jq = [json.dumps(q) for q in res.qids]
        ptpl = _template('{"qid": %s, "runi": %s, "runj": %s, "sample": ' + sample + ', "type": "preference"', keys)
        # pref lines in (query, pair) order
        cols = [_literals(res.pair_values(k).T, None if res.ties.get(k) is None else res.ties[k].T) for k in keys]
        qcol = [x for x in jq for _ in range(P)]
        icol = [jruns[int(i)] for i in res.I] * nq
        jcol = [jruns[int(j)] for j in res.J] * nq
        plines = [ptpl % t for t in zip(qcol, icol, jcol, *cols)]
        keys_q = np.repeat(np.arange(nq), P)
        keys_i = np.tile(res.I, nq)
        keys_t = np.zeros(P * nq, np.int64)
        keys_p = np.tile(np.arange(P), nq)
        mlines: list[str] = []
        if metric_keys:
            mtpl = _template('{"qid": %s, "run": %s, "sample": ' + sample + ', "type": "metric"', metric_keys)
            mcols = [_literals(res.metrics[k].T) for k in metric_keys]
            mlines = [mtpl % t for t in zip([x for x in jq for _ in range(R)], jruns * nq, *mcols)]
            keys_q = np.concatenate([keys_q, np.repeat(np.arange(nq), R)])
            keys_i = np.concatenate([keys_i, np.tile(np.arange(R), nq)])
            keys_t = np.concatenate([keys_t, np.ones(R * nq, np.int64)])
            keys_p = np.concatenate([keys_p, np.zeros(R * nq, np.int64)])
        order = np.lexsort((keys_p, keys_t, keys_i, keys_q))
        lines = plines + mlines
        yield "".join([lines[k] for k in order.tolist()])
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
