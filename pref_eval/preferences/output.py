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


def _strings(arr: np.ndarray, ties: np.ndarray | None = None) -> list[list[str]]:
    """Matrix of JSON literals (ints for int arrays, float repr otherwise)."""
    if arr.dtype.kind in "iu":
        rows = [[str(x) for x in r] for r in arr.tolist()]
    else:
        rows = [[repr(x) for x in r] for r in arr.tolist()]
    if ties is not None and ties.any():
        for p, q in zip(*np.nonzero(ties)):
            rows[p][q] = "0"
    return rows


def _fmt(x: float) -> str:
    return json.dumps(float(x))


def summary_means(values: np.ndarray) -> np.ndarray:
    """Σ_q v_q / numq accumulated sequentially in query order (pref_eval.py)."""
    nq = values.shape[1]
    if nq == 0:
        return np.zeros(values.shape[0])
    return np.cumsum(values.astype(np.float64) / float(nq), axis=1)[:, -1]


def pref_json_lines(res: PrefResult, *, per_query: bool, summary: bool, means: bool = False) -> Iterator[str]:
    """Yield pref_eval.py's output lines (with newline) for one sample."""
    keys = [m.key for m in res.measures]
    jkeys = [json.dumps(k) for k in keys]
    metric_keys = [m.key for m in res.measures if m.is_metric]
    jruns = [json.dumps(r) for r in res.runs]
    sample = str(res.sample)
    P = len(res.I)
    if per_query and res.qids:
        cols = [_strings(res.pair_values(k), res.ties.get(k)) for k in keys]
        mcols = [_strings(res.metrics[k]) for k in metric_keys]
        jm = [json.dumps(k) for k in metric_keys]
        by_i: dict[int, list[int]] = {}
        for p in range(P):
            by_i.setdefault(int(res.I[p]), []).append(p)
        for q, qid in enumerate(res.qids):
            jq = json.dumps(qid)
            for i in range(len(res.runs)):
                for p in by_i.get(i, ()):
                    body = ", ".join(f"{jk}: {c[p][q]}" for jk, c in zip(jkeys, cols))
                    yield (f'{{"qid": {jq}, "runi": {jruns[i]}, "runj": {jruns[int(res.J[p])]}, '
                           f'"sample": {sample}, "type": "preference"' + (", " + body if body else "") + "}\n")
                if mcols:
                    body = ", ".join(f"{jk}: {c[i][q]}" for jk, c in zip(jm, mcols))
                    yield f'{{"qid": {jq}, "run": {jruns[i]}, "sample": {sample}, "type": "metric", {body}}}\n'
    if summary and res.qids:
        sums = [summary_means(res.pair_values(k)) for k in keys]
        for p in range(P):
            body = ", ".join(f"{jk}: {repr(float(s[p]))}" for jk, s in zip(jkeys, sums))
            yield (f'{{"qid": "all", "runi": {jruns[int(res.I[p])]}, "runj": {jruns[int(res.J[p])]}, '
                   f'"sample": {sample}' + (", " + body if body else "") + "}\n")
    if means and res.qids and metric_keys:
        ms = [summary_means(res.metrics[k]) for k in metric_keys]
        for i, r in enumerate(jruns):
            body = ", ".join(f"{json.dumps(k)}: {repr(float(s[i]))}" for k, s in zip(metric_keys, ms))
            yield f'{{"qid": "all", "run": {r}, "sample": {sample}, "type": "metric", {body}}}\n'


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
