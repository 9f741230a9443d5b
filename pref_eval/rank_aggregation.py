"""Orderings of runs from preference files: MC4, Borda, means (``pref_aggregate``).

Input: the JSON lines of ``zelo_eval -q`` or ``pref_eval.py -q``. For one
sample, each query gives one **ranking of the runs** per measure:

* preference measure m: ``score(run) = Σ_{pairs (i,j)} (+pref for runi, −pref for
  runj)`` (wins − losses for the lexicographic measures), summed in file order; a
  (query, runi, runj) on several lines counts once, with its last value (as a
  metric's (query, run), and as pref_aggregate.py);
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

from dataclasses import field

import numpy as np

from .records import record
from .errors import UsageError, option_name
from .io.pref_jsonl import Lines, PrefFile


def _sorted_desc(scores: dict) -> list[str]:
    """Runs by (score, run id) descending (pref_aggregate.py's ``sort(reverse=True)``)."""
    return [k for v, k in sorted(((v, k) for k, v in scores.items()), reverse=True)]


def _name_ranks(runs: list[str]) -> np.ndarray:
    """Position of each run id in Python's string order."""
    r = np.empty(len(runs), dtype=np.int64)
    r[sorted(range(len(runs)), key=runs.__getitem__)] = np.arange(len(runs))
    return r


def _query_order(q: np.ndarray) -> np.ndarray:
    """Distinct query codes (small non-negative ints) of ``q`` in order of first appearance, without a sort of ``q``."""
    if len(q) == 0:
        return np.zeros(0, dtype=np.int64)
    first = np.full(int(q.max()) + 1, len(q), dtype=np.int64)
    first[q[::-1]] = np.arange(len(q) - 1, -1, -1)  # the last write wins: each code's first index
    seen = np.flatnonzero(first < len(q))
    return seen[np.argsort(first[seen], kind="stable")]


def _rank_rows(score: np.ndarray, present: np.ndarray, qorder: np.ndarray, runs: list[str]) -> dict:
    """{query code: [run ids by (score, run id) descending]} for the queries of ``qorder``.

    One lexsort over every (query, run) cell: by query ascending, then by
    (score, run id's rank in Python's string order) descending.
    """
    nr = _name_ranks(runs)
    nq, nrun = score.shape
    sub = np.zeros(nq, bool)
    sub[qorder] = True
    cells = np.flatnonzero(present & sub[:, None])
    cq, cr = cells // nrun, cells % nrun
    o = np.lexsort((nr[cr], score.ravel()[cells], -cq))[::-1]  # reversed ascending: NaN scores first, as before
    cq, cr = cq[o], cr[o]
    bounds = np.searchsorted(cq, np.arange(nq + 1))
    names = np.array(runs, dtype=object)[cr].tolist()
    return {qc: names[bounds[qc]:bounds[qc + 1]] for qc in qorder.tolist()}


def _pref_keys(lines: Lines, nr: int) -> np.ndarray:
    """Cell (query·nr + run) of each line's runi and runj, interleaved: the order of the reference's sums."""
    keys = np.empty(2 * len(lines), dtype=np.int64)
    qn = lines.q * nr
    keys[0::2] = qn + lines.a
    keys[1::2] = qn + lines.b
    return keys


def _pair_keys(lines: Lines, nr: int, idx: np.ndarray | None = None) -> np.ndarray:
    """Key (query·nr + runi)·nr + runj of lines ``idx`` (all lines if None)."""
    q, a, b = (lines.q, lines.a, lines.b) if idx is None else (lines.q[idx], lines.a[idx], lines.b[idx])
    return (q.astype(np.int64) * nr + a) * nr + b


def _repeats(lines: Lines, nr: int) -> bool:
    """Whether some (query, runi, runj) is on several lines (one sort of all lines' keys)."""
    if len(lines) < 2:
        return False
    key = np.sort(_pair_keys(lines, nr))
    return bool((key[1:] == key[:-1]).any())


def _last_value_per_pair(lines: Lines, nr: int, sel: np.ndarray, v: np.ndarray,
                         repeats: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """A (query, runi, runj) given on several lines counts once, with its last value (as a metric's
    (query, run), and as pref_aggregate.py, whose per-query dict keeps the last value of a pair at the place
    of its first line -- so the sums below run in the same order). ``(sel, v)`` unchanged without repeats
    (``repeats`` False: :func:`_repeats` of all the lines found none, so no subset has any)."""
    if not repeats:
        return sel, v
    idx = np.flatnonzero(sel)
    if len(idx) < 2:
        return sel, v
    key = _pair_keys(lines, nr, idx)
    uniq, first, inv = np.unique(key, return_index=True, return_inverse=True)
    if len(uniq) == len(idx):
        return sel, v
    last = np.zeros(len(uniq), dtype=np.int64)
    last[inv.reshape(-1)] = np.arange(len(idx))  # numpy keeps the last write for repeated indices
    sel = np.zeros(len(sel), bool)
    sel[idx[first]] = True
    v = v.copy()
    v[idx[first]] = v[idx[last]]
    return sel, v


def query_rankings_from_prefs(pf: PrefFile, lines: Lines, measure: str, qmask: np.ndarray | None,
                              keys: np.ndarray | None = None, common: tuple | None = None,
                              repeats: bool = True) -> dict[str, list[str]]:
    """{qid: ranking} for a preference measure, queries in order of first appearance.

    score(run) = Σ +v over its lines as runi, −v as runj, accumulated in file
    order (``np.bincount`` adds in input order, as the reference's loop).
    ``keys``: :func:`_pref_keys` of ``lines`` (computed here if None);
    ``common``: (present cells, query order) of all of ``lines``, used when
    every line counts (the measure on every line, no query subset); ``repeats`` False: no
    (query, runi, runj) is on two lines (:func:`_repeats`).
    """
    nq, nr = len(pf.qids), len(pf.runs)
    sel = lines.has[measure] if measure in lines.has else np.zeros(len(lines), bool)
    if qmask is not None:
        sel = sel & qmask[lines.q]
    if keys is None:
        keys = _pref_keys(lines, nr)
    v = lines.vals[measure] if measure in lines.vals else np.zeros(len(lines))
    sel, v = _last_value_per_pair(lines, nr, sel, v, repeats)
    w2 = np.empty((len(lines), 2))
    w2[:, 0] = v
    # not np.negative(v, out=w2[:, 1]): numpy 2.4's np.negative reads the wrong elements when its input has a
    # stride of 64 bytes and its output one of 16 (v is a column of the C scanner's rows: sample + 7 measures are
    # 8 doubles a row), which ranked the runs by other measures' values (tools/fuzz_pref_eval.py case 1:26)
    w2[:, 1] = -np.ascontiguousarray(v)  # no strided in/out pair at all: -x into a fresh array, then a copy
    w = w2.ravel()
    every = bool(sel.all())
    if not every:
        sel2 = np.repeat(sel, 2)
        keys, w = keys[sel2], w[sel2]
    score = np.bincount(keys, weights=w, minlength=nq * nr).reshape(nq, nr)
    if every and common is not None:
        present, qorder = common
    else:
        present = (np.bincount(keys, minlength=nq * nr) > 0).reshape(nq, nr)
        qorder = _query_order(lines.q if every else lines.q[sel])
    ranks = _rank_rows(score, present, qorder, pf.runs)
    return {pf.qids[c]: r for c, r in ranks.items()}


def query_values_from_metrics(pf: PrefFile, lines: Lines, measure: str,
                              qmask: np.ndarray | None) -> tuple[dict[str, list[str]], list[str]]:
    """(per-query rankings {qid: ranking}, mean ranking) of a metric.

    A (query, run) seen twice keeps its last value; the mean is Σ v/numq
    over the queries in order of first appearance (numq = queries with the
    metric), as pref_aggregate.py.
    """
    sel = lines.has[measure] if measure in lines.has else np.zeros(len(lines), bool)
    if qmask is not None:
        sel = sel & qmask[lines.q]
    q, a, v = lines.q[sel], lines.a[sel], lines.vals[measure][sel]
    nq, nr = len(pf.qids), len(pf.runs)
    cell = q * nr + a
    last = np.zeros(nq * nr, dtype=np.int64) - 1
    last[cell] = np.arange(len(cell))  # numpy keeps the last write for repeated indices
    present = last >= 0
    value = np.zeros(nq * nr)
    value[present] = v[last[present]]
    qorder = _query_order(q)
    ranks = _rank_rows(value.reshape(nq, nr), present.reshape(nq, nr), qorder, pf.runs)
    # mean: per run, Σ_q v/numq in query order (first appearance of (q, run) within a query is irrelevant)
    numq = float(len(qorder))
    qrank = np.empty(nq, dtype=np.int64)
    qrank[qorder] = np.arange(len(qorder))
    cells = np.flatnonzero(present)
    cq, cr = cells // nr, cells % nr
    o = np.lexsort((cr, qrank[cq]))
    avg = np.bincount(cr[o], weights=value[cells][o] / numq, minlength=nr)
    seen = np.bincount(cr, minlength=nr) > 0
    nrk = _name_ranks(pf.runs)
    idx = np.flatnonzero(seen)
    mean = [pf.runs[c] for c in idx[np.lexsort((nrk[idx], avg[idx]))[::-1]].tolist()]
    return {pf.qids[c]: r for c, r in ranks.items()}, mean


def _positions(rankings: list[list[str]]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """(names in order of first appearance, then per ranked item: its ranking, name index, 0-based position)."""
    idx: dict[str, int] = {}
    flat = [idx.setdefault(x, len(idx)) for r in rankings for x in r]
    lens = np.fromiter(map(len, rankings), dtype=np.int64, count=len(rankings))
    rr = np.repeat(np.arange(len(rankings)), lens)
    starts = np.cumsum(lens) - lens
    jj = np.arange(len(flat), dtype=np.int64) - np.repeat(starts, lens)
    return list(idx), rr, np.array(flat, dtype=np.int64), jj


def _borda_points(rankings: list[list[str]], pos: tuple | None = None) -> tuple[list[str], np.ndarray]:
    """(names, points): n − j points at 0-based position j, n = length of the first ranking."""
    names, _, ni, jj = pos if pos is not None else _positions(rankings)
    n = len(rankings[0])
    return names, np.bincount(ni, weights=(n - jj).astype(np.float64), minlength=len(names))


def borda(rankings: list[list[str]], *, pos: tuple | None = None) -> list[str]:
    """Borda count (de Borda 1781): n − j points at 0-based position j (n = length of the first ranking); runs by
    (points, run id) descending.

    ``pos``: :func:`_positions` of ``rankings`` when the caller has it.
    """
    if not rankings:
        return []
    names, pts = _borda_points(rankings, pos)
    return _sorted_desc(dict(zip(names, pts.astype(np.int64).tolist(), strict=False)))


def _majority(nrank: int, n: int, rr: np.ndarray, ni: np.ndarray, jj: np.ndarray) -> np.ndarray:
    """C[a,b] = Σ_rankings sign(pos_b − pos_a) over rankings holding both.

    (positions ``jj`` of names ``ni`` in ranking ``rr``)
    """
    small = n < 30000 and (len(jj) == 0 or int(jj.max()) < 30000)
    pos = np.full((nrank, n), -1, dtype=np.int16 if small else np.int64)
    pos[rr, ni] = jj
    complete = bool((pos >= 0).all())
    C = np.zeros((n, n), dtype=np.int64)
    block = max(1, (1 << 22) // max(1, n * n))
    for k in range(0, nrank, block):
        p = pos[k:k + block]
        d = np.sign(p[:, None, :] - p[:, :, None])
        if not complete:
            d *= (p[:, :, None] >= 0) & (p[:, None, :] >= 0)
        C += d.sum(axis=0, dtype=np.int64)
    return C.astype(np.float64)


def majority_matrix(rankings: list[list[str]], names: list[str]) -> np.ndarray:
    """C[a,b] = #rankings with a above b − #rankings with b above a, states in the order of ``names``."""
    pnames, rr, ni, jj = _positions(rankings)
    idx = {n: i for i, n in enumerate(names)}
    to_names = np.array([idx[n] for n in pnames], dtype=np.int64)
    return _majority(len(rankings), len(names), rr, to_names[ni], jj)


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


def mc4(rankings: list[list[str]], *, steps: int | None = None, damping: float = 0.15,
        pos: tuple | None = None) -> list[str]:
    """MC4 ordering (Dwork, Kumar, Naor & Sivakumar, WWW 2001): the chain moves from a to each b that a strict
    majority of the rankings put above a with probability 1/n, and its stationary distribution (damped:
    :func:`stationary`) orders the runs; see the module docstring (``steps`` = pref_aggregate.py mode).

    States are the names in order of first appearance; ``pos``: :func:`_positions`
    of ``rankings`` when the caller has it.
    """
    if not rankings:
        return []
    pos = pos if pos is not None else _positions(rankings)
    names, values = mc4_scores(rankings, steps=steps, damping=damping, pos=pos)
    return _mc4_order(rankings, pos, names, values, steps)


def _mc4_order(rankings, pos, names, values, steps) -> list[str]:
    """The MC4 ordering from :func:`mc4_scores`'s values (ties: Borda points, then run id)."""
    if steps is not None:
        return _sorted_desc(dict(zip(names, values.tolist(), strict=True)))
    _, bp = _borda_points(rankings, pos)
    key = [(round(float(p), 12), int(b), nm) for p, b, nm in zip(values, bp.tolist(), names, strict=True)]
    return [k[2] for k in sorted(key, reverse=True)]


def mc4_scores(rankings: list[list[str]], *, steps: int | None = None, damping: float = 0.15,
               pos: tuple | None = None) -> tuple[list[str], np.ndarray]:
    """(names, values) behind :func:`mc4`: the stationary probabilities π of the damped chain
    ``(1−α)P + α/n`` (Dwork et al., WWW 2001, MC4; they sum to 1), or with ``steps`` the vector
    ``e·P^T`` from e = (1,…,1) that pref_aggregate.py sorts by."""
    pos = pos if pos is not None else _positions(rankings)
    names, rr, ni, jj = pos
    n = len(names)
    P = mc4_transition(_majority(len(rankings), n, rr, ni, jj))
    if steps is not None:
        e = np.ones(n)
        for _ in range(steps):
            ee = np.zeros(n)
            for j in range(n):  # Σ_j e[j]·P[j,i], summed in j order as the reference
                ee = ee + e[j] * P[j]
            e = ee
        return names, e
    # solved with the states in sorted-name order, so π (to the last bit) does not depend on the order of
    # the input lines, only on the rankings (C is an integer sum, order-free)
    o = np.array(sorted(range(n), key=names.__getitem__), dtype=np.int64)
    pi = np.empty(n)
    pi[o] = stationary(P[np.ix_(o, o)], damping)
    return names, pi


def borda_points(rankings: list[list[str]], *, pos: tuple | None = None) -> dict[str, int]:
    """{run: Borda points} behind :func:`borda` (n − j points at 0-based position j)."""
    if not rankings:
        return {}
    names, pts = _borda_points(rankings, pos)
    return dict(zip(names, pts.astype(np.int64).tolist(), strict=True))


def stationary(P: np.ndarray, damping: float) -> np.ndarray:
    """Stationary distribution π = π G, Σ π = 1, of ``G = (1−α)P + α/n`` (the teleport of PageRank: Page, Brin,
    Motwani & Winograd 1999; dense eigen-solve, LAPACK ``geev`` via numpy)."""

    n = len(P)
    if not 0.0 < damping <= 1.0:
        raise UsageError(f"{option_name('damping')} must be in (0, 1] (use {option_name('mc4_steps')} for "
                         "the undamped reference chain)")
    G = (1.0 - damping) * P + damping / n
    w, v = np.linalg.eig(G.T)
    k = int(np.argmin(np.abs(w - 1.0)))
    pi = np.real(v[:, k])
    pi = pi / pi.sum()
    return pi


@record
class Aggregation:
    """One sample's results: ``per_query`` {qid: {measure: ranking}}, ``summary`` {measure: {...}}."""

    sample: int
    qids: list
    per_query: dict
    summary: dict
    scores: dict = field(default_factory=dict)  # {measure: {"mc4": {run: π}, "borda": {run: points}}}


def aggregate(pf: PrefFile, measures: list[str], *, sample: int = 0, source_sample: int = 0,
              qids: list | None = None, mc4_steps: int | None = None, damping: float = 0.15) -> Aggregation:
    """Aggregate one sample (see the module docstring)."""
    empty = Lines(q=np.zeros(0, np.int64), a=np.zeros(0, np.int64), b=np.zeros(0, np.int64), vals={}, has={})
    plines = pf.prefs.get(source_sample, empty)
    mlines = pf.metrics.get(source_sample, empty)
    qmask = None
    if qids is not None:
        qset = set(qids)
        qmask = np.array([q in qset for q in pf.qids], dtype=bool)
    pq: dict[str, dict[str, list[str]]] = {}
    summary: dict[str, dict] = {}
    scores: dict[str, dict] = {}
    allq = np.concatenate([plines.q, mlines.q])
    if qmask is not None:
        allq = allq[qmask[allq]]
    order = [pf.qids[c] for c in _query_order(allq).tolist()]
    metric_rank: dict[str, dict[str, list[str]]] = {}
    pkeys = common = None
    repeats = True
    for m in measures:
        if m in pf.metric_keys:
            metric_rank[m], mean = query_values_from_metrics(pf, mlines, m, qmask)
            summary[m] = {"type": "metric", "mean": mean}
        else:
            if pkeys is None:
                nr = len(pf.runs)
                pkeys = _pref_keys(plines, nr)
                common = ((np.bincount(pkeys, minlength=len(pf.qids) * nr) > 0).reshape(len(pf.qids), nr),
                          _query_order(plines.q))
                repeats = _repeats(plines, nr)  # once for all measures
            ranks = query_rankings_from_prefs(pf, plines, m, qmask, pkeys, common, repeats)
            for q, r in ranks.items():
                pq.setdefault(q, {})[m] = r
            rl = list(ranks.values())
            pos = _positions(rl) if rl else None
            if rl:
                names, pi = mc4_scores(rl, steps=mc4_steps, damping=damping, pos=pos)
                summary[m] = {"type": "preference", "mc4": _mc4_order(rl, pos, names, pi, mc4_steps),
                              "borda": borda(rl, pos=pos)}
                scores[m] = {"mc4": dict(zip(names, pi.tolist(), strict=True)), "borda": borda_points(rl, pos=pos)}
            else:
                summary[m] = {"type": "preference", "mc4": [], "borda": []}
    for m, d in metric_rank.items():
        for q, r in d.items():
            pq.setdefault(q, {})[m] = r
    return Aggregation(sample=sample, qids=order, per_query=pq, summary=summary, scores=scores)
