"""Orderings of runs from preference files: MC4, Borda, means (``pref_aggregate``).

Input: the JSON lines of ``zelo_eval -q`` or ``pref_eval.py -q``. For one
sample, each query gives one **ranking of the runs** per measure:

* preference measure m: ``score(run) = Σ_{pairs (i,j)} (+pref for runi, −pref for
  runj)`` (wins − losses for the lexicographic measures), summed in file order;
* metric: the metric value.

Runs are sorted by (score, run id) descending — ties go to the larger run id,
as pref_eval's ``pref_aggregate.py``. The summary then orders the runs:

* metric: by the mean over the queries with metric lines;
* preference, **Borda** (de Borda 1781): the run at 0-based position j of a
  query's ranking gets n − j points; sorted by (points, run id) descending;
* preference, **MC4** (Dwork, Kumar, Naor & Sivakumar, WWW 2001): with C[a,b] =
  #queries ranking a above b − #queries ranking b above a, the chain moves from
  a to each b with C[a,b] < 0 (b beats a on a strict majority) with probability
  1/n and stays otherwise. The default is the **stationary distribution** of
  the damped chain ``G = (1−α)·P + α/n`` (α = 0.15, PageRank-style teleport as
  in FLAGR, which makes it unique; solved exactly with a dense eigen-solve),
  runs sorted by π descending, ties (|Δπ| ≤ 1e-12) broken by Borda points,
  then run id descending. ``mc4_steps=T`` instead reproduces pref_aggregate.py:
  T power-iteration steps ``e ← e·P`` of the undamped chain from e = 1
  (sequential float sums, so the order is bit-identical), sorted by (e, run id)
  descending. Without damping the converged chain is absorbed by a Condorcet
  winner and orders the others by transients (docs/pref_aggregate.md).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from .errors import InputError, UsageError

ID_KEYS = ("qid", "sample", "type", "runi", "runj", "run")


@dataclass
class PrefFile:
    """Per-query lines of one preference file, by sample.

    ``prefs[sample]``: list of (qid, runi, runj, {measure: value}) in file
    order; ``metrics[sample]``: list of (qid, run, {measure: value});
    ``keys`` every measure key in order of first appearance;
    ``metric_keys`` those that appear in metric lines.
    """

    prefs: dict = field(default_factory=dict)
    metrics: dict = field(default_factory=dict)
    keys: list = field(default_factory=list)
    metric_keys: set = field(default_factory=set)


def read_pref_file(path: str) -> PrefFile:
    """Parse JSON lines (plain or gzip); errors name the file and line."""
    from .io.textfile import display_name, read_input_bytes

    data = read_input_bytes(path, what="preference file")
    src = display_name(path)
    pf = PrefFile()
    seen: dict[str, None] = {}
    for ln, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError:
            raise InputError(src, ln, "expected a JSON object (a line of zelo_eval / pref_eval.py output)") from None
        if not isinstance(obj, dict) or "qid" not in obj or "sample" not in obj:
            raise InputError(src, ln, "expected a JSON object with 'qid' and 'sample'")
        if obj["qid"] == "all":
            continue
        kind = obj.get("type")
        vals = {k: v for k, v in obj.items() if k not in ID_KEYS}
        for k in vals:
            if k not in seen:
                seen[k] = None
        s = obj["sample"]
        try:
            if kind == "preference":
                pf.prefs.setdefault(s, []).append((str(obj["qid"]), str(obj["runi"]), str(obj["runj"]), vals))
            elif kind == "metric":
                pf.metrics.setdefault(s, []).append((str(obj["qid"]), str(obj["run"]), vals))
                pf.metric_keys.update(vals)
            else:
                raise InputError(src, ln, f"unknown line type {kind!r} (expected preference or metric)")
        except KeyError as err:
            raise InputError(src, ln, f"missing key {err}") from None
    pf.keys = list(seen)
    if not pf.prefs and not pf.metrics:
        raise InputError(src, 0, "no per-query lines (make the file with zelo_eval -q / pref_eval.py -q)")
    return pf


def _sorted_desc(scores: dict) -> list[str]:
    """Runs by (score, run id) descending (pref_aggregate.py's ``sort(reverse=True)``)."""
    return [k for v, k in sorted(((v, k) for k, v in scores.items()), reverse=True)]


def query_rankings_from_prefs(lines: list, measure: str, qids: set | None) -> dict[str, list[str]]:
    """{qid: ranking} for a preference measure: net preference per run, file order."""
    wins: dict[str, dict[str, float]] = {}
    for qid, ri, rj, vals in lines:
        if qids is not None and qid not in qids:
            continue
        if measure not in vals:
            continue
        v = vals[measure]
        w = wins.setdefault(qid, {})
        w[ri] = w.get(ri, 0.0) + v
        w[rj] = w.get(rj, 0.0) - v
    return {q: _sorted_desc(w) for q, w in wins.items()}


def query_values_from_metrics(lines: list, measure: str, qids: set | None) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for qid, run, vals in lines:
        if (qids is not None and qid not in qids) or measure not in vals:
            continue
        out.setdefault(qid, {})[run] = vals[measure]
    return out


def borda(rankings: list[list[str]]) -> list[str]:
    """Borda count: n − j points at 0-based position j (n = length of the first ranking)."""
    if not rankings:
        return []
    n = len(rankings[0])
    pts: dict[str, int] = {}
    for r in rankings:
        for j, name in enumerate(r):
            pts[name] = pts.get(name, 0) + (n - j)
    return _sorted_desc(pts)


def _states(rankings: list[list[str]]) -> list[str]:
    names: dict[str, None] = {}
    for r in rankings:
        for x in r:
            names.setdefault(x, None)
    return list(names)


def majority_matrix(rankings: list[list[str]], names: list[str]) -> np.ndarray:
    """C[a,b] = #rankings with a above b − #rankings with b above a (vectorised per ranking)."""
    idx = {n: i for i, n in enumerate(names)}
    n = len(names)
    C = np.zeros((n, n))
    for r in rankings:
        pos = np.full(n, -1)
        pos[[idx[x] for x in r]] = np.arange(len(r))
        both = (pos[:, None] >= 0) & (pos[None, :] >= 0)
        C += np.where(both, np.sign(pos[None, :] - pos[:, None]), 0)
    return C


def mc4_transition(C: np.ndarray) -> np.ndarray:
    """P[a,b] = 1/n if C[a,b] < 0 (b ≠ a); P[a,a] = 1 − Σ (subtracted one by one)."""
    n = len(C)
    P = np.where(C < 0, 1.0 / float(n), 0.0)
    np.fill_diagonal(P, 0.0)
    for i in range(n):
        ii = 1.0
        for _ in range(int((C[i] < 0).sum())):
            ii = ii - 1.0 / float(n)
        P[i, i] = ii
    return P


def mc4(rankings: list[list[str]], *, steps: int | None = None, damping: float = 0.15) -> list[str]:
    """MC4 ordering; see the module docstring (``steps`` = pref_aggregate.py mode)."""
    if not rankings:
        return []
    names = _states(rankings)
    n = len(names)
    P = mc4_transition(majority_matrix(rankings, names))
    if steps is not None:
        e = np.ones(n)
        for _ in range(steps):
            ee = np.zeros(n)
            for j in range(n):  # Σ_j e[j]·P[j,i], summed in j order as the reference
                ee = ee + e[j] * P[j]
            e = ee
        return _sorted_desc(dict(zip(names, e.tolist())))
    pi = stationary(P, damping)
    bpts = {name: 0 for name in names}
    m = len(rankings[0])
    for r in rankings:
        for j, x in enumerate(r):
            bpts[x] += m - j
    key = [(round(float(p), 12), bpts[nm], nm) for p, nm in zip(pi, names)]
    return [k[2] for k in sorted(key, reverse=True)]


def stationary(P: np.ndarray, damping: float) -> np.ndarray:
    """Stationary distribution of ``(1−α)P + α/n`` (dense eigen-solve)."""
    import scipy.linalg

    n = len(P)
    if not 0.0 < damping <= 1.0:
        raise UsageError("--damping must be in (0, 1] (use --mc4-steps for the undamped reference chain)")
    G = (1.0 - damping) * P + damping / n
    w, v = scipy.linalg.eig(G.T)
    k = int(np.argmin(np.abs(w - 1.0)))
    pi = np.real(v[:, k])
    pi = pi / pi.sum()
    return pi


def mean_ranking(per_query: dict[str, dict[str, float]]) -> list[str]:
    """Runs by (mean over queries, run id) descending; Σ v/numq in query order."""
    numq = float(len(per_query))
    avg: dict[str, float] = {}
    for vals in per_query.values():
        for run, v in vals.items():
            avg[run] = avg.get(run, 0.0) + v / numq
    return _sorted_desc(avg)


@dataclass
class Aggregation:
    """One sample's results: ``per_query`` {qid: {measure: ranking}}, ``summary`` {measure: {...}}."""

    sample: int
    qids: list
    per_query: dict
    summary: dict


def aggregate(pf: PrefFile, measures: list[str], *, sample: int = 0, source_sample: int = 0,
              qids: list | None = None, mc4_steps: int | None = None, damping: float = 0.15) -> Aggregation:
    """Aggregate one sample (see the module docstring)."""
    plines = pf.prefs.get(source_sample, [])
    mlines = pf.metrics.get(source_sample, [])
    qset = set(qids) if qids is not None else None
    pq: dict[str, dict[str, list[str]]] = {}
    summary: dict[str, dict] = {}
    order: dict[str, None] = {}
    for q, *_ in plines:
        if qset is None or q in qset:
            order.setdefault(q, None)
    for q, *_ in mlines:
        if qset is None or q in qset:
            order.setdefault(q, None)
    metric_rank: dict[str, dict[str, list[str]]] = {}
    for m in measures:
        if m in pf.metric_keys:
            vals = query_values_from_metrics(mlines, m, qset)
            metric_rank[m] = {q: _sorted_desc(v) for q, v in vals.items()}
            summary[m] = {"type": "metric", "mean": mean_ranking(vals)}
        else:
            ranks = query_rankings_from_prefs(plines, m, qset)
            for q, r in ranks.items():
                pq.setdefault(q, {})[m] = r
            rl = list(ranks.values())
            summary[m] = {"type": "preference", "mc4": mc4(rl, steps=mc4_steps, damping=damping),
                          "borda": borda(rl)}
    for m, d in metric_rank.items():
        for q, r in d.items():
            pq.setdefault(q, {})[m] = r
    return Aggregation(sample=sample, qids=list(order), per_query=pq, summary=summary)


def json_lines(agg: Aggregation, measures: list[str], *, per_query: bool, summary: bool):
    """pref_aggregate.py's lines: per query (preference measures first), then the summary."""
    if per_query:
        prefs = [m for m in measures if agg.summary[m]["type"] == "preference"]
        mets = [m for m in measures if agg.summary[m]["type"] == "metric"]
        for q in agg.qids:
            obj = {"qid": q, "sample": agg.sample}
            for m in prefs + mets:
                if m in agg.per_query.get(q, {}):
                    obj[m] = agg.per_query[q][m]
            yield json.dumps(obj) + "\n"
    if summary:
        obj = {"qid": "all", "sample": agg.sample}
        for m in measures:
            obj[m] = agg.summary[m]
        yield json.dumps(obj) + "\n"
