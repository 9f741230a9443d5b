"""Preference counts per judgment group (the input of trec_eval's ``prefs_*`` measures).

Definitions (trec_eval 10 documentation of ``-R prefs``; Buckley's
"preference" measures, TREC 2008 relevance-feedback track notes):

* A query's judgments are lines ``(jg, jsg, docno, rel_level)``. A judgment
  group (JG) is one user's set of preferences; inside it a judgment
  subgroup (JSG) states that a document with a higher rel_level is preferred
  to one with a lower rel_level. With a single JSG the JG is a set of
  *equivalence classes* (one per rel_level, every line counted, so a
  repeated line counts twice); with several JSGs the JG's preferences are
  the transitive closure of the JSG preferences over distinct documents (a
  cycle is an error).
* Every document mentioned for the query gets an internal rank: retrieved
  ones 0..njr-1 in retrieval order (score descending, ties by docno
  ascending, after ``-M``), the others njr.. in docno byte order.
* A preference A > B is *fulfilled among retrieved* when both are retrieved
  and A ranks above B; *fulfilled implied* when only A is retrieved;
  *possible among retrieved* / *implied* count the pairs with both / exactly
  one retrieved (fulfilled or not); *not occurring* counts pairs with
  neither retrieved.
* rel_level > 0 is relevant, 0 non-relevant (for the ``Rnonrel`` measures).

Everything is computed with array operations over all JGs at once; only a
JG with several subgroups (a partial order) is handled alone, as a boolean
matrix whose transitive closure is taken by repeated squaring.
"""
from __future__ import annotations

from typing import TYPE_CHECKING


import numpy as np

from ..records import record
from ..io.keys import distinct

from ..errors import EvaluationError, InputError
from ..io.keys import exact_pair_keys, lookup_sorted

if TYPE_CHECKING:
    from ..io.prefs import Prefs
    from ..io.runs import Run


@record(frozen=True)
class PrefCounts:
    """Per-query inputs of the ``prefs_*`` measures (aligned with the evaluated qids).

    Per JG (``g*`` arrays, JGs ordered by query then jg id): ``gq`` query
    index, ``ful_ret``, ``poss_ret``, ``ful_imp``, ``poss_imp``,
    ``notoccur`` (``poss_*`` include the fulfilled ones), ``rnonrel`` and
    ``rnonrel_ret`` (the per-JG ratios of the ``Rnonrel`` measures, NaN for
    0/0 as in C). Per query: ``njg`` and the pair sums ``pair_*``.
    """

    nq: int
    gq: np.ndarray
    ful_ret: np.ndarray
    poss_ret: np.ndarray
    ful_imp: np.ndarray
    poss_imp: np.ndarray
    notoccur: np.ndarray
    rnonrel: np.ndarray
    rnonrel_ret: np.ndarray
    njg: np.ndarray
    pair_sum_ret: np.ndarray
    pair_sum_imp: np.ndarray
    pair_n_ret: np.ndarray
    pair_n_imp: np.ndarray
    pair_n_all: np.ndarray

    def per_query(self, v: np.ndarray) -> np.ndarray:
        """Sum a per-JG array per query, in JG order (sequential, as C)."""
        return np.bincount(self.gq, weights=np.asarray(v, dtype=np.float64), minlength=self.nq)


def _seg_start(keys: np.ndarray) -> np.ndarray:
    """Boolean: entry starts a new run of equal ``keys`` (keys sorted)."""
    if not len(keys):
        return np.zeros(0, dtype=bool)
    return np.concatenate([[True], keys[1:] != keys[:-1]])


def _count_lt(g_x: np.ndarray, d_x: np.ndarray, g_q: np.ndarray, thr: np.ndarray, big: int) -> np.ndarray:
    """For each query (g_q, thr): number of x with g_x == g_q and d_x < thr."""
    k = np.sort(g_x.astype(np.int64) * big + d_x)
    lo = np.searchsorted(k, g_q.astype(np.int64) * big, side="left")
    hi = np.searchsorted(k, g_q.astype(np.int64) * big + thr, side="left")
    return (hi - lo).astype(np.int64)


def _ec_counts(g, dl, dr, ret, level, ng, njr_g, big, *, recalc=True, src=None):
    """Equivalence-class JGs: counts per JG from the lines (g, level rank dl, internal rank dr).

    Returns a dict of per-JG int64 arrays (length ``ng``).
    """
    out = {k: np.zeros(ng, dtype=np.int64) for k in
           ("ful_ret", "pairs_ret", "ful_imp", "unful_imp", "notoccur",
            "rel", "rel_ret", "nonrel", "nonrel_ret", "f_nl", "f_nl_ret", "p2_ful", "p2_n",
            "p2r_ful", "p2r_n", "n_nl_last", "r_nl_last")}
    if not len(g):
        return out
    nl = int(dl.max()) + 1
    cell = g.astype(np.int64) * nl + dl
    r_cnt = np.bincount(cell, weights=ret, minlength=ng * nl).reshape(ng, nl)
    u_cnt = np.bincount(cell, weights=~ret, minlength=ng * nl).reshape(ng, nl)
    hr = np.cumsum(r_cnt, axis=1) - r_cnt  # ret lines in strictly higher levels
    hu = np.cumsum(u_cnt, axis=1) - u_cnt
    out["ful_imp"] = (u_cnt * hr).sum(axis=1).astype(np.int64)
    out["unful_imp"] = (r_cnt * hu).sum(axis=1).astype(np.int64)
    out["notoccur"] = (u_cnt * hu).sum(axis=1).astype(np.int64)
    out["pairs_ret"] = (r_cnt * hr).sum(axis=1).astype(np.int64)
    # fulfilled among retrieved: y retrieved, x retrieved in a higher level, dr_x < dr_y
    ri = np.flatnonzero(ret)
    if len(ri):
        o = ri[np.lexsort((dr[ri], g[ri]))]
        go, dlo = g[o], dl[o]
        starts = np.flatnonzero(_seg_start(go))
        first = np.repeat(starts, np.diff(np.append(starts, len(o))))
        acc = np.zeros(ng, dtype=np.int64)
        for t in range(1, nl):
            m = (dlo < t).astype(np.int64)
            ex = np.cumsum(m) - m
            before = ex - ex[first]
            sel = dlo == t
            acc += np.bincount(go[sel], weights=before[sel], minlength=ng).astype(np.int64)
        out["ful_ret"] = acc
    pos = level > 0
    out["rel"] = np.bincount(g, weights=pos, minlength=ng).astype(np.int64)
    out["rel_ret"] = np.bincount(g, weights=pos & ret, minlength=ng).astype(np.int64)
    out["nonrel"] = np.bincount(g, weights=~pos, minlength=ng).astype(np.int64)
    out["nonrel_ret"] = np.bincount(g, weights=~pos & ret, minlength=ng).astype(np.int64)
    if not recalc:
        return out
    # Rnonrel recalculation pieces: the last (lowest) EC and its first R lines
    lastl = np.zeros(ng, dtype=np.int64)
    np.maximum.at(lastl, g, dl)
    in_last = dl == lastl[g]
    thr = np.minimum(dr, njr_g[g])
    nonlast = ~in_last
    li = np.flatnonzero(in_last)
    # F(nonlast, last)
    f_nl = np.bincount(g[li], weights=_count_lt(g[nonlast], dr[nonlast], g[li], thr[li], big),
                       minlength=ng).astype(np.int64)
    f_nl_ret_idx = li[ret[li]]
    f_nl_ret = np.bincount(g[f_nl_ret_idx],
                           weights=_count_lt(g[nonlast], dr[nonlast], g[f_nl_ret_idx], dr[f_nl_ret_idx], big),
                           minlength=ng).astype(np.int64)
    n_last = np.bincount(g[li], minlength=ng).astype(np.int64)
    n_all = np.bincount(g, minlength=ng).astype(np.int64)
    r_last = np.bincount(g[li], weights=ret[li], minlength=ng).astype(np.int64)
    r_all = np.bincount(g, weights=ret, minlength=ng).astype(np.int64)
    # order of the last EC's lines by internal rank: position inside the EC
    lo = li[np.lexsort((dr[li], g[li]))]
    st = np.flatnonzero(_seg_start(g[lo]))
    posn = np.arange(len(lo)) - np.repeat(st, np.diff(np.append(st, len(lo))))
    nn = lo[posn < out["rel"][g[lo]]]
    nn_r = lo[(posn < out["rel_ret"][g[lo]]) & ret[lo]]
    out["p2_ful"] = np.bincount(g[nn], weights=_count_lt(g, dr, g[nn], thr[nn], big), minlength=ng).astype(np.int64)
    out["p2_n"] = n_all * np.bincount(g[nn], minlength=ng).astype(np.int64)
    out["p2r_ful"] = np.bincount(g[nn_r], weights=_count_lt(g, dr, g[nn_r], dr[nn_r], big),
                                 minlength=ng).astype(np.int64)
    out["p2r_n"] = r_all * np.bincount(g[nn_r], minlength=ng).astype(np.int64)
    out["f_nl"], out["f_nl_ret"] = f_nl, f_nl_ret
    out["n_nl_last"] = (n_all - n_last) * n_last
    out["r_nl_last"] = (r_all - r_last) * r_last
    return out


def _closure(a: np.ndarray) -> np.ndarray:
    """Reflexive-transitive closure of a boolean matrix (repeated squaring)."""
    m = a | np.eye(len(a), dtype=bool)
    while True:
        f = m.astype(np.float32)
        m2 = (f @ f) > 0
        if np.array_equal(m2, m):
            return m
        m = m2


def _classify(di: np.ndarray, dj: np.ndarray, njr: int):
    """(ful_ret, pairs_ret, ful_imp, unful_imp, notoccur) for preferences di > dj."""
    ri, rj = di < njr, dj < njr
    both = ri & rj
    return (int((both & (di < dj)).sum()), int(both.sum()), int((ri & ~rj).sum()),
            int((~ri & rj).sum()), int((~ri & ~rj).sum()))


def _pa_group(idx, jsg, level, dr, njr, fail):
    """One JG with several subgroups. Returns (counts dict, preferred ranks, other ranks).

    ``fail(line_index, message)`` raises the input error for a line.
    """
    docs, li = np.unique(dr[idx], return_inverse=True)
    li = li.reshape(-1)
    k = len(docs)
    # rel_level per doc: the last line in (jsg, level descending, rank) order;
    # 0 and > 0 for one doc is an error (it is non-relevant or it is not)
    o = np.lexsort((dr[idx], -level[idx], jsg[idx]))
    o = o[np.argsort(li[o], kind="stable")]
    lv, dd = level[idx][o], li[o]
    same = dd[1:] == dd[:-1]
    bad = same & (((lv[:-1] > 0) & (lv[1:] == 0)) | ((lv[:-1] == 0) & (lv[1:] > 0)))
    if bad.any():
        fail(idx[o[int(np.flatnonzero(bad)[0]) + 1]],
             "document has rel_level 0 and a rel_level > 0 in one judgment group")
    rel = np.full(k, -1.0)
    last = np.append(~same, True)
    rel[dd[last]] = lv[last]
    # preferences stated inside each subgroup
    a = np.zeros((k, k), dtype=bool)
    _, jinv = np.unique(jsg[idx], return_inverse=True)
    jinv = jinv.reshape(-1)
    for s in range(int(jinv.max()) + 1):  # a loop per subgroup, not per document
        m = np.flatnonzero(jinv == s)
        lvl = level[idx][m]
        x, y = np.nonzero(lvl[:, None] > lvl[None, :])
        a[li[m][x], li[m][y]] = True
    a = _closure(a)
    np.fill_diagonal(a, False)
    if (a & a.T).any():
        i = int(np.argwhere(a & a.T)[0][0])
        fail(idx[int(np.flatnonzero(li == i)[0])],
             "inconsistent preferences in one judgment group (a document is both preferred "
             "and not preferred to another, possibly through transitivity)")
    x, y = np.nonzero(a)
    di, dj = docs[x], docs[y]
    fr, pr, fi, ui, no = _classify(di, dj, njr)
    isret = docs < njr
    c = {"ful_ret": fr, "pairs_ret": pr, "ful_imp": fi, "unful_imp": ui, "notoccur": no,
         "rel": int((rel > 0).sum()), "rel_ret": int(((rel > 0) & isret).sum()),
         "nonrel": int((rel == 0).sum()), "nonrel_ret": int(((rel == 0) & isret).sum())}
    # Rnonrel: ignore the non-relevant documents after the first R (internal-rank order)
    nonrel_pos = np.flatnonzero(rel == 0)  # docs are in internal-rank order
    R = c["rel"]
    fd = docs[nonrel_pos[R]] if len(nonrel_pos) > R else np.iinfo(np.int64).max
    keep = ~((docs >= fd) & (rel == 0))
    kk = keep[x] & keep[y]
    f2 = _classify(di[kk], dj[kk], njr)
    c["rn_ful"], c["rn_poss"] = f2[0] + f2[2], int(kk.sum())
    # Rnonrel_ret: same among retrieved documents (the cut is still at R = num_rel)
    ret_nonrel = nonrel_pos[docs[nonrel_pos] < njr]
    fd = docs[ret_nonrel[R]] if len(ret_nonrel) > R else njr
    keep = ~((docs >= fd) & (rel == 0))
    kk = keep[x] & keep[y]
    f3 = _classify(di[kk], dj[kk], njr)
    c["rnr_ful"], c["rnr_poss"] = f3[0], f3[1]
    return c, di, dj


def retrieval_ranks(run: Run, qids: np.ndarray, depth: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query index, docno, 0-based rank) of the run's lines for ``qids``.

    Order inside a query: score descending, ties by docno ascending (the
    order trec_eval's preference code uses), then the top ``depth`` kept.
    """
    nq = len(qids)
    if nq == 0 or len(run.qid) == 0:
        e = np.zeros(0, dtype=np.int64)
        return e, run.docno[:0], e
    loc = np.searchsorted(qids, run.qid)
    locc = np.minimum(loc, nq - 1)
    ok = qids[locc] == run.qid
    rows = np.flatnonzero(ok)
    q, d, s = locc[rows].astype(np.int64), run.docno[rows], run.score[rows]
    o = np.lexsort((d, -s, q))
    q, d = q[o], d[o]
    st = np.flatnonzero(_seg_start(q))
    pos = np.arange(len(q)) - np.repeat(st, np.diff(np.append(st, len(q))))
    if depth is not None:
        keep = pos < depth
        q, d, pos = q[keep], d[keep], pos[keep]
    return q, d, pos


def compute_pref_counts(prefs: Prefs, run: Run, qids: np.ndarray, depth: int | None = None) -> PrefCounts:
    """All per-JG counts for the evaluated queries ``qids`` (sorted bytes)."""
    nq = len(qids)
    # 1. the preference lines of evaluated queries
    loc = np.searchsorted(qids, prefs.qid) if nq else np.zeros(len(prefs.qid), dtype=np.int64)
    locc = np.minimum(loc, max(nq - 1, 0))
    sel = np.flatnonzero(qids[locc] == prefs.qid) if nq else np.zeros(0, dtype=np.int64)
    pq = locc[sel].astype(np.int64)
    pdoc, pjg, pjsg, plev = prefs.docno[sel], prefs.jg[sel], prefs.jsg[sel], prefs.rel[sel]

    def fail(i: int, message: str) -> None:
        j = sel[i]
        raise InputError(prefs.source, int(prefs.line[j]),
                         f"{message} (query {prefs.qid[j].decode(errors='replace')}, judgment group "
                         f"{prefs.jg[j].decode(errors='replace')}, document {prefs.docno[j].decode(errors='replace')})")

    # 2. retrieval ranks, joined on (query, docno) through exact docno ids
    rq, rdoc, rpos = retrieval_ranks(run, qids, depth)
    pk, rk = exact_pair_keys(pq, pdoc, rq, rdoc)
    ro = np.argsort(rk, kind="stable")
    srk = rk[ro]
    if len(srk) > 1 and (srk[1:] == srk[:-1]).any():
        k = int(np.flatnonzero(srk[1:] == srk[:-1])[0])
        i = ro[k]
        raise EvaluationError(f"{run.source}: duplicate document {rdoc[i].decode(errors='replace')} "
                              f"for query {qids[rq[i]].decode(errors='replace')}; trec_eval refuses duplicates")
    found, hc = lookup_sorted(srk, pk)
    prank = np.where(found, rpos[ro[hc]] if len(srk) else 0, -1)
    # 3. internal ranks: retrieved judged docs by rank, then the others by docno
    ukey, first, dinv = np.unique(pk, return_index=True, return_inverse=True)
    dinv = dinv.reshape(-1)
    uq = pq[first]
    urank = prank[first]
    unret = urank < 0
    order = np.lexsort((np.where(unret, ukey, urank), unret, uq))
    st = np.flatnonzero(_seg_start(uq[order]))
    pos = np.empty(len(order), dtype=np.int64)
    pos[order] = np.arange(len(order)) - np.repeat(st, np.diff(np.append(st, len(order))))
    njr = np.bincount(uq, weights=~unret, minlength=nq).astype(np.int64)
    dr = pos[dinv]
    big = int(pos.max()) + 2 if len(pos) else 2
    # 4. judgment groups (query, jg) in jg byte order; subgroups per group
    _, jinv = np.unique(pjg, return_inverse=True)
    jinv = jinv.reshape(-1).astype(np.int64)
    gkey = pq * (int(jinv.max()) + 1 if len(jinv) else 1) + jinv
    ug, g = np.unique(gkey, return_inverse=True)
    g = g.reshape(-1).astype(np.int64)
    ng = len(ug)
    gq = np.zeros(ng, dtype=np.int64)
    gq[g] = pq
    _, sinv = np.unique(pjsg, return_inverse=True)
    gs = distinct(g * (int(sinv.max()) + 1 if len(sinv) else 1) + sinv.reshape(-1))
    nsub = np.bincount(gs // (int(sinv.max()) + 1 if len(sinv) else 1), minlength=ng)
    is_pa = nsub > 1
    njr_g = njr[gq]
    ret = dr < njr_g[g]
    # 5. equivalence-class JGs
    ec = np.flatnonzero(~is_pa[g])
    eg, elev, edr, eret = g[ec], plev[ec], dr[ec], ret[ec]
    # level rank inside the group, highest first
    lo = np.lexsort((-elev, eg))
    newl = _seg_start(eg[lo]) | np.concatenate([[True], elev[lo][1:] != elev[lo][:-1]])
    gstart = _seg_start(eg[lo])
    cl = np.cumsum(newl) - 1
    cl -= np.repeat(cl[gstart], np.diff(np.append(np.flatnonzero(gstart), len(lo))))
    edl = np.empty(len(ec), dtype=np.int64)
    edl[lo] = cl
    # a document in two classes of one JG is an error
    trip = np.unique(np.stack([eg, edr, edl]), axis=1) if len(ec) else np.zeros((3, 0), dtype=np.int64)
    dup = (trip[0, 1:] == trip[0, :-1]) & (trip[1, 1:] == trip[1, :-1])
    if dup.any():
        k = int(np.flatnonzero(dup)[0])
        i = int(np.flatnonzero((eg == trip[0, k]) & (edr == trip[1, k]) & (edl == trip[2, k + 1]))[0])
        fail(ec[i], "document has two different rel_levels in a judgment group with one subgroup")
    c = _ec_counts(eg, edl, edr, eret, elev, ng, njr_g, big)
    # 6. partial-order JGs, one at a time
    pair_x, pair_y, pair_g = [], [], []
    rn_f = np.zeros(ng, dtype=np.int64)
    rn_p = np.zeros(ng, dtype=np.int64)
    rnr_f = np.zeros(ng, dtype=np.int64)
    rnr_p = np.zeros(ng, dtype=np.int64)
    for gi in np.flatnonzero(is_pa):
        idx = np.flatnonzero(g == gi)
        cc, di, dj = _pa_group(idx, pjsg, plev, dr, int(njr_g[gi]), fail)
        for key in ("ful_ret", "pairs_ret", "ful_imp", "unful_imp", "notoccur",
                    "rel", "rel_ret", "nonrel", "nonrel_ret"):
            c[key][gi] = cc[key]
        rn_f[gi], rn_p[gi], rnr_f[gi], rnr_p[gi] = cc["rn_ful"], cc["rn_poss"], cc["rnr_ful"], cc["rnr_poss"]
        pair_x.append(di)
        pair_y.append(dj)
        pair_g.append(np.full(len(di), gi, dtype=np.int64))
    ful_ret, poss_ret = c["ful_ret"], c["pairs_ret"]
    ful_imp = c["ful_imp"]
    poss_imp = c["ful_imp"] + c["unful_imp"]
    notoccur = c["notoccur"]
    R, N = c["rel"], c["nonrel"]
    Rr, Nr = c["rel_ret"], c["nonrel_ret"]
    # 7. Rnonrel ratios per JG
    ec_g = ~is_pa
    p_all = poss_ret + poss_imp + notoccur
    f_all = ful_ret + ful_imp
    ec_rn_f = (f_all - c["f_nl"]) + c["p2_ful"]
    ec_rn_p = (p_all - c["n_nl_last"]) + c["p2_n"]
    ec_rnr_f = (ful_ret - c["f_nl_ret"]) + c["p2r_ful"]
    ec_rnr_p = (poss_ret - c["r_nl_last"]) + c["p2r_n"]
    rn_f = np.where(ec_g, ec_rn_f, rn_f)
    rn_p = np.where(ec_g, ec_rn_p, rn_p)
    rnr_f = np.where(ec_g, ec_rnr_f, rnr_f)
    rnr_p = np.where(ec_g, ec_rnr_p, rnr_p)
    with np.errstate(divide="ignore", invalid="ignore"):
        a_num = np.where(R >= N, f_all + c["rel_ret"] * (R - N), rn_f).astype(np.float64)
        a_den = np.where(R >= N, p_all + R * (R - N), rn_p).astype(np.float64)
        rnonrel = a_num / a_den
        b_num = np.where(Rr >= Nr, ful_ret + Rr * (Rr - Nr), rnr_f).astype(np.float64)
        b_den = np.where(Rr >= Nr, poss_ret + R * (Rr - Nr), rnr_p).astype(np.float64)
        rnonrel_ret = b_num / b_den
    # 8. pair measures
    njg = np.bincount(gq, minlength=nq).astype(np.int64)
    pairs = _pair_sums(nq, gq, njg, njr, g, edl, edr, eg, ec, plev, pair_x, pair_y, pair_g,
                       c, ng, njr_g, big)
    return PrefCounts(nq=nq, gq=gq, ful_ret=ful_ret, poss_ret=poss_ret, ful_imp=ful_imp,
                      poss_imp=poss_imp, notoccur=notoccur, rnonrel=rnonrel, rnonrel_ret=rnonrel_ret,
                      njg=njg, **pairs)


def _pair_sums(nq, gq, njg, njr, g, edl, edr, eg, ec, plev, pair_x, pair_y, pair_g, c, ng, njr_g, big):
    """Per query: the sums and counts of ``prefs_pair*`` (ratio of the preferences
    agreeing with the ranking, per document pair, over the JGs that judge the pair)."""
    single = njg[gq] == 1  # per JG: its query has one JG
    out = {k: np.zeros(nq, dtype=np.float64) for k in
           ("pair_sum_ret", "pair_sum_imp", "pair_n_ret", "pair_n_imp", "pair_n_all")}
    # one JG: every judged pair has ratio 1 (fulfilled) or 0; count distinct pairs
    if single.any():
        if len(ec):
            trip = np.unique(np.stack([eg, edr, edl]), axis=1)
            d = _ec_counts(trip[0], trip[2], trip[1], trip[1] < njr_g[trip[0]],
                           np.zeros(trip.shape[1]), ng, njr_g, big, recalc=False)
        else:
            d = {k: np.zeros(ng, dtype=np.int64) for k in ("ful_ret", "pairs_ret", "ful_imp",
                                                             "unful_imp", "notoccur")}
        pa = np.zeros(ng, dtype=bool)
        pa[np.concatenate(pair_g) if pair_g else np.zeros(0, dtype=np.int64)] = True
        for key in ("ful_ret", "pairs_ret", "ful_imp", "unful_imp", "notoccur"):
            d[key] = np.where(pa, c[key], d[key])
        s = np.flatnonzero(single)
        q = gq[s]
        out["pair_sum_ret"][q] = d["ful_ret"][s]
        out["pair_n_ret"][q] = d["pairs_ret"][s]
        out["pair_sum_imp"][q] = d["ful_ret"][s] + d["ful_imp"][s]
        out["pair_n_imp"][q] = d["pairs_ret"][s] + d["ful_imp"][s] + d["unful_imp"][s]
        out["pair_n_all"][q] = out["pair_n_imp"][q] + d["notoccur"][s]
    if single.all():
        return out
    # several JGs: enumerate every stated preference (with its multiplicity)
    xs, ys, qs = [], [], []
    multi_ec = np.flatnonzero(~single[eg])
    if len(multi_ec):
        o = multi_ec[np.argsort(eg[multi_ec], kind="stable")]
        go = eg[o]
        st = np.flatnonzero(_seg_start(go))
        sizes = np.diff(np.append(st, len(o)))
        n_of = np.repeat(sizes, sizes)
        s_of = np.repeat(st, sizes)
        xi = np.repeat(np.arange(len(o)), n_of)
        off = np.arange(len(xi)) - np.repeat(np.cumsum(n_of) - n_of, n_of)
        yi = np.repeat(s_of, n_of) + off
        keep = edl[o][xi] < edl[o][yi]
        xi, yi = xi[keep], yi[keep]
        xs.append(edr[o][xi])
        ys.append(edr[o][yi])
        qs.append(gq[go[xi]])
    for dx, dy, gg in zip(pair_x, pair_y, pair_g, strict=False):
        if len(gg) and not single[gg[0]]:
            xs.append(dx)
            ys.append(dy)
            qs.append(gq[gg])
    if not xs:
        return out
    x, y, q = np.concatenate(xs), np.concatenate(ys), np.concatenate(qs)
    lo, hi = np.minimum(x, y), np.maximum(x, y)
    fwd = x < y
    key = (q * big + lo) * big + hi
    uk, inv = np.unique(key, return_inverse=True)
    inv = inv.reshape(-1)
    cf = np.bincount(inv, weights=fwd, minlength=len(uk))
    cb = np.bincount(inv, weights=~fwd, minlength=len(uk))
    uq = uk // (big * big)
    ulo = (uk // big) % big
    uhi = uk % big
    cls = np.where(uhi < njr[uq], 0, np.where(ulo < njr[uq], 1, 2))
    ratio = cf / (cf + cb)
    o = np.lexsort((uhi, ulo, cls, uq))
    uq, cls, ratio = uq[o], cls[o], ratio[o]
    m0 = cls == 0
    m01 = cls <= 1
    out["pair_sum_ret"] += np.bincount(uq[m0], weights=ratio[m0], minlength=nq)
    out["pair_sum_imp"] += np.bincount(uq[m01], weights=ratio[m01], minlength=nq)
    out["pair_n_ret"] += np.bincount(uq[m0], minlength=nq)
    out["pair_n_imp"] += np.bincount(uq[m01], minlength=nq)
    out["pair_n_all"] += np.bincount(uq, minlength=nq)
    return out
