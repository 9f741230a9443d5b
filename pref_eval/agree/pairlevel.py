"""Pair-level agreement between judges (vectorised over pairs; intervals by bootstrap over queries).

Categories of a pair (canonical orientation, :mod:`.matching`): 0 = lo better,
1 = tie, 2 = hi better, ordered. A judge's *label* of a pair is the category
of its pair score mu (mean of its valid judgments). Formulas, on the 3 x 3
contingency table t (rows: reference label, columns: other label, n pairs):

* raw agreement on decided pairs: (t00 + t22) / (t00 + t02 + t20 + t22);
* agreement (all three categories): trace(t) / n;
* Cohen's kappa (Cohen 1960): (p_o - p_e) / (1 - p_e), p_o = trace(t)/n,
  p_e = sum_i r_i c_i / n^2 (r, c row and column sums);
* weighted kappa (Cohen 1968), linear disagreement weights w_ij = |i - j| / 2:
  1 - sum w t / sum w E, E_ij = r_i c_j / n;
* Krippendorff's alpha, ordinal metric, missing values allowed (Krippendorff
  2011, "Computing Krippendorff's alpha-reliability"): from the coincidence
  matrix o_ck = sum_u sum_{i != j in u} [v_ui = c][v_uj = k] / (m_u - 1) over
  units u with m_u >= 2 values, n_c = sum_k o_ck, n = sum n_c,
  delta_ck = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2,
  alpha = 1 - (n - 1) sum o_ck delta_ck / sum n_c n_k delta_ck;
* Fleiss' kappa (Fleiss 1971) for m raters per pair (counts n_ij):
  P_bar = (sum n_ij^2 - N m) / (N m (m - 1)), p_j = sum_i n_ij / (N m),
  kappa = (P_bar - sum p_j^2) / (1 - sum p_j^2);
* agreement on the reference's consensus pairs (zELO note: "preferred the
  document the ensemble reached consensus on"): pairs where the reference has
  >= ``consensus_min`` valid votes all for the same document; the share of them
  where the other judge's label is that document;
* position bias: on pairs a judge judged in both presentation orders, the share
  of its decisive votes that chose the document shown first (1/2 = no bias);
* confidence: mean over a judge's pairs of |2 mu - 1| (the note's E[|C_O|]).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .matching import HI, LO, TIE, Matched, categories
from .records import Bootstrap, Record, count, per_query_sums, per_query_table, statistic

if TYPE_CHECKING:
    from collections.abc import Callable

LEVEL = "pair"


def _table(S: np.ndarray) -> np.ndarray:
    return S.reshape(S.shape[:-1] + (3, 3))


def kappa(S: np.ndarray) -> np.ndarray:
    """Cohen's kappa (Cohen 1960) of flattened 3 x 3 tables (last axis 9): (p_o - p_e) / (1 - p_e),
    p_o = trace(t)/n, p_e = Σ_i r_i c_i / n^2."""
    t = _table(S)
    n = t.sum(axis=(-1, -2))
    po = np.trace(t, axis1=-2, axis2=-1) / n
    pe = (t.sum(-1) * t.sum(-2)).sum(-1) / n ** 2
    return (po - pe) / (1.0 - pe)


WEIGHTS = np.abs(np.subtract.outer(np.arange(3), np.arange(3))) / 2.0


def weighted_kappa(S: np.ndarray) -> np.ndarray:
    """Cohen's weighted kappa (Cohen 1968), linear weights w_ij = |i - j| / 2, of flattened 3 x 3 tables:
    1 - Σ w t / Σ w E, E_ij = r_i c_j / n."""
    t = _table(S)
    n = t.sum(axis=(-1, -2))
    E = t.sum(-1)[..., :, None] * t.sum(-2)[..., None, :] / n[..., None, None]
    return 1.0 - (WEIGHTS * t).sum((-1, -2)) / (WEIGHTS * E).sum((-1, -2))


def agreement(S: np.ndarray) -> np.ndarray:
    t = _table(S)
    return np.trace(t, axis1=-2, axis2=-1) / t.sum(axis=(-1, -2))


def agreement_decided(S: np.ndarray) -> np.ndarray:
    return (S[..., 0] + S[..., 8]) / (S[..., 0] + S[..., 2] + S[..., 6] + S[..., 8])


def n_decided(S: np.ndarray) -> np.ndarray:
    return S[..., 0] + S[..., 2] + S[..., 6] + S[..., 8]


def n_table(S: np.ndarray) -> np.ndarray:
    return S.sum(-1)


def alpha_ordinal(S: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha (ordinal; Krippendorff 2011) of flattened 3 x 3 coincidence matrices o:
    1 - (n - 1) Σ o_ck δ_ck / Σ n_c n_k δ_ck, δ_ck = (Σ_{g=c..k} n_g - (n_c + n_k) / 2)^2."""
    o = _table(S)
    nc = o.sum(-1)
    n = nc.sum(-1)
    K = nc.shape[-1]
    cum = np.cumsum(nc, axis=-1)
    c = np.arange(K)[:, None]
    k = np.arange(K)[None, :]
    lo_, hi_ = np.minimum(c, k), np.maximum(c, k)
    # sum_{g=lo..hi} n_g = cum[hi] - cum[lo] + n_lo
    span = np.take(cum, hi_, axis=-1) - np.take(cum, lo_, axis=-1) + np.take(nc, lo_, axis=-1)
    delta = (span - (nc[..., :, None] + nc[..., None, :]) / 2.0) ** 2
    do = (o * delta).sum((-1, -2))
    de = (nc[..., :, None] * nc[..., None, :] * delta).sum((-1, -2))
    return 1.0 - (n - 1.0) * do / de


def n_coincidence(S: np.ndarray) -> np.ndarray:
    return S.sum(-1)


def coincidence(cnt: np.ndarray) -> np.ndarray:
    """Per-unit coincidence contributions (units x 9) from per-unit category counts (units x 3).

    o_u = (n_u n_u^T - diag(n_u)) / (m_u - 1) for m_u >= 2 values, else 0.
    """
    cnt = np.asarray(cnt, dtype=np.float64)
    m = cnt.sum(-1)
    inv = np.where(m >= 2, 1.0 / np.maximum(m - 1.0, 1.0), 0.0)
    cols = [cnt[:, c] * inv for c in range(3)]
    out = np.empty((len(cnt), 9))
    for c in range(3):
        for k in range(3):
            out[:, 3 * c + k] = cols[c] * (cnt[:, k] - 1.0) if c == k else cols[c] * cnt[:, k]
    return out


def fleiss_factory(m: int) -> Callable[[np.ndarray], np.ndarray]:
    """Fleiss' kappa (Fleiss 1971) of per-query sums [N, c0, c1, c2, sum n_ij^2] with m raters per unit:
    (P_bar - Σ p_j^2) / (1 - Σ p_j^2), P_bar = (Σ n_ij^2 - N m) / (N m (m - 1)), p_j = Σ_i n_ij / (N m)."""
    def f(S: np.ndarray) -> np.ndarray:
        N = S[..., 0]
        p = S[..., 1:4] / (N * m)[..., None]
        pbar = (S[..., 4] - N * m) / (N * m * (m - 1))
        pe = (p ** 2).sum(-1)
        return (pbar - pe) / (1.0 - pe)
    return f


def ratio(S: np.ndarray) -> np.ndarray:
    return S[..., 0] / S[..., 1]


def denominator(S: np.ndarray) -> np.ndarray:
    return S[..., 1]


def _fleiss_columns(cnt: np.ndarray, rows: np.ndarray) -> list[np.ndarray]:
    c = cnt[rows].astype(np.float64)
    return [np.ones(len(c)), c[:, 0], c[:, 1], c[:, 2], (c ** 2).sum(-1)]


def _modal_raters(m: np.ndarray) -> int:
    """The most common number of valid votes among pairs with >= 2 (0 if none)."""
    m = m[m >= 2]
    if len(m) == 0:
        return 0
    return int(np.argmax(np.bincount(m)))


def judge_records(mt: Matched, k: int, boot: Bootstrap) -> list[Record]:
    """Statistics of one judge alone: pairs, ties, missing, confidence, position bias, its ensemble's agreement."""
    name = mt.names[k]
    nq = len(mt.queries)
    pres = mt.present[k]
    q = mt.q[pres]
    valid = mt.n_valid[k][pres] > 0
    lab = mt.label[k][pres]
    mu = mt.mu[k][pres]
    out = [count(name, "", LEVEL, "pairs", int(pres.sum())),
           count(name, "", LEVEL, "votes", int(mt.n_votes[k].sum()))]
    T = per_query_sums(q, nq, [lab == TIE, valid])
    out.append(statistic(boot, name, "", LEVEL, "tie_rate", T, ratio, denominator))
    T = per_query_sums(q, nq, [~valid, np.ones(len(q))])
    out.append(statistic(boot, name, "", LEVEL, "missing_rate", T, ratio, denominator))
    nv = mt.n_votes[k][pres]
    T = per_query_sums(q, nq, [nv - mt.n_valid[k][pres], nv])
    out.append(statistic(boot, name, "", LEVEL, "failed_vote_rate", T, ratio, denominator))
    T = per_query_sums(q, nq, [np.where(valid, np.abs(2.0 * np.nan_to_num(mu) - 1.0), 0.0), valid])
    out.append(statistic(boot, name, "", LEVEL, "confidence", T, ratio, denominator))
    out.append(_position_bias(mt, k, boot))
    # agreement among the judge's own votes (ensemble members, or repeated judgments of a pair)
    cnt = mt.counts[k]
    m = cnt.sum(-1)
    multi = m >= 2
    if multi.any():
        T = per_query_sums(mt.q[multi], nq, list(coincidence(cnt[multi]).T))
        out.append(statistic(boot, name, "", LEVEL, "votes_alpha", T, alpha_ordinal,
                             lambda S: np.asarray(float(multi.sum()))))
        mm = _modal_raters(m)
        rows = np.flatnonzero(m == mm)
        T = per_query_sums(mt.q[rows], nq, _fleiss_columns(cnt, rows))
        rec = statistic(boot, name, "", LEVEL, f"votes_fleiss_kappa_m{mm}", T, fleiss_factory(mm),
                        lambda S: S[..., 0])
        out.append(rec)
    out += repeat_records(mt, k, boot)
    return out


def repeat_records(mt: Matched, k: int, boot: Bootstrap) -> list[Record]:
    """Self-consistency and ensemble agreement of one judge, kept apart (none when no pair is judged twice and no
    judgment carries two votes).

    A *judgment* is one line of the file (one row of the judgment table); its votes are ensemble members by
    position (zelo_judge writes its judges in one order on every line). A pair judged on two or more lines is a
    *repeat pair*; the same member's votes of it on those lines are its repeated answers:

    * ``repeat_pairs``: pairs judged on >= 2 lines; ``repeat_identical``: share of them whose lines hold the same
      votes (copies -- a ``zelo_judge -o`` of a pairs list naming a pair twice writes its one stored answer twice --
      or a judge that always answers the same; the figures below then measure nothing);
    * ``repeat_fleiss_kappa_mR``: Fleiss' kappa over units (pair, member) with exactly R valid repeated votes (R =
      the most common count >= 2), categories lo / tie / hi;
    * ``repeat_alpha``: Krippendorff's alpha (ordinal) over the units (pair, member) with >= 2 valid repeated votes
      (no figure depends on the order of the lines: repeats are exchangeable, so no first-vs-second Cohen's kappa);
    * ``members_fleiss_kappa_mM``: Fleiss' kappa among the members' votes of one judgment (lines with exactly M
      valid votes) -- agreement between the ensemble's judges, no repeat mixed in.
    """
    j = mt.votes[k]
    name, nq = mt.names[k], len(mt.queries)
    real = j.judgment >= 0
    jid, first = np.unique(j.judgment[real], return_index=True)
    pi = mt.pair_index[k][real]
    value, member, judgment, q = j.value[real], j.member[real], j.judgment[real], j.q[real]
    cat = categories(value)
    out: list[Record] = []
    jpair = pi[first]
    per_pair = np.bincount(jpair, minlength=len(mt.keys))
    rep = per_pair[pi] >= 2
    if rep.any():
        n_rep = int((per_pair >= 2).sum())
        out.append(count(name, "", LEVEL, "repeat_pairs", n_rep))
        pair_q, same = _identical_lines(pi, judgment, member, value, q, rep)
        T = per_query_sums(pair_q, nq, [same.astype(float), np.ones(len(same))])
        out.append(statistic(boot, name, "", LEVEL, "repeat_identical", T, ratio, denominator))
        ok = rep & (cat >= 0)
        M = int(member.max()) + 1 if len(member) else 1
        cnt, uq = _unit_counts(pi[ok].astype(np.int64) * M + member[ok], cat[ok], q[ok])
        out += _fleiss_record(cnt, uq, nq, boot, name, "repeat_fleiss_kappa_m")
        m = cnt.sum(-1)
        multi = m >= 2
        n_units = float(multi.sum())
        if n_units:
            out.append(statistic(boot, name, "", LEVEL, "repeat_alpha",
                                 per_query_sums(uq[multi], nq, list(coincidence(cnt[multi]).T)), alpha_ordinal,
                                 lambda S: np.asarray(n_units)))
    if len(member) and member.max() >= 1:  # judgments with an ensemble's votes
        ok = cat >= 0
        cnt, lq = _unit_counts(judgment[ok], cat[ok], q[ok])
        out += _fleiss_record(cnt, lq, nq, boot, name, "members_fleiss_kappa_m")
    return out


def _identical_lines(pi: np.ndarray, judgment: np.ndarray, member: np.ndarray, value: np.ndarray, q: np.ndarray,
                     rep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per repeat pair (the votes ``rep`` selects): its query, and whether all its lines hold the same votes -- the
    same (member, value) multiset, values rounded to 12 decimals (Python's ``round``, once per distinct value), NaN
    equal to NaN. Vectorised: the votes sorted by (pair, line, member, value), each line compared position by
    position with its pair's first line."""
    pr, jr, mr, vr = pi[rep], judgment[rep], member[rep], value[rep]
    nan = vr != vr
    distinct, at = np.unique(vr[~nan], return_inverse=True)
    _, rounded = np.unique(np.array([round(x, 12) for x in distinct.tolist()], dtype=float), return_inverse=True)
    code = np.full(len(vr), -1, dtype=np.int64)
    code[~nan] = rounded.reshape(-1)[at.reshape(-1)]
    o = np.lexsort((code, mr, jr, pr))
    pr, jr, mr, code = pr[o], jr[o], mr[o], code[o]
    line_new = np.r_[True, (pr[1:] != pr[:-1]) | (jr[1:] != jr[:-1])]
    starts = np.flatnonzero(line_new)
    line_id = np.cumsum(line_new) - 1
    k = np.arange(len(pr)) - starts[line_id]  # position in the line
    line_len = np.diff(np.r_[starts, len(pr)])
    pair_new = np.r_[True, pr[1:] != pr[:-1]]
    pair_id = np.cumsum(pair_new) - 1
    first_line = line_id[np.flatnonzero(pair_new)]
    ref = first_line[pair_id]
    ref_at = starts[ref] + np.minimum(k, line_len[ref] - 1)
    differs = (k >= line_len[ref]) | (mr[ref_at] != mr) | (code[ref_at] != code)
    line_pair = pair_id[starts]
    bad = np.zeros(len(first_line), dtype=bool)
    bad[pair_id[differs]] = True
    bad[line_pair[line_len != line_len[first_line[line_pair]]]] = True
    pairs = pr[np.flatnonzero(pair_new)]
    seen, first = np.unique(pi, return_index=True)
    return q[first[np.searchsorted(seen, pairs)]].astype(np.int64), ~bad


def _unit_counts(unit: np.ndarray, cat: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per distinct unit id (sorted): its votes' counts by category lo / tie / hi, and its query."""
    units, inv = np.unique(unit, return_inverse=True)
    cnt = np.zeros((len(units), 3), dtype=np.int64)
    np.add.at(cnt, (inv, cat.astype(np.int64)), 1)
    uq = np.zeros(len(units), dtype=np.int64)
    uq[inv] = q
    return cnt, uq


def _fleiss_record(cnt: np.ndarray, uq: np.ndarray, nq: int, boot: Bootstrap, name: str, stem: str) -> list[Record]:
    """Fleiss' kappa over the units with the modal number R (>= 2) of votes, named ``{stem}{R}``; none without."""
    R = _modal_raters(cnt.sum(-1))
    if not R:
        return []
    rows = np.flatnonzero(cnt.sum(-1) == R)
    return [statistic(boot, name, "", LEVEL, f"{stem}{R}", per_query_sums(uq[rows], nq, _fleiss_columns(cnt, rows)),
                      fleiss_factory(R), lambda S: S[..., 0])]


def _position_bias(mt: Matched, k: int, boot: Bootstrap) -> Record:
    j = mt.votes[k]
    pi = mt.pair_index[k]
    P = len(mt.keys)
    # hi shown first: the line names hi first (flip), unless the vote was asked the other way round (swapped)
    hi_first = j.flip if j.swapped is None else j.flip ^ j.swapped
    shown_lo_first = np.bincount(pi[~hi_first], minlength=P) > 0
    shown_hi_first = np.bincount(pi[hi_first], minlength=P) > 0
    both = (shown_lo_first & shown_hi_first)[pi]
    cat = categories(j.value)
    decisive = both & ((cat == LO) | (cat == HI))
    # the first-shown document is lo unless hi_first; it wins when the vote is LO (resp. HI)
    first_wins = decisive & np.where(hi_first, cat == HI, cat == LO)
    T = per_query_sums(j.q[decisive], len(mt.queries), [first_wins[decisive], np.ones(int(decisive.sum()))])
    return statistic(boot, j.name, "", LEVEL, "position_bias", T, ratio, denominator)


def versus_records(mt: Matched, r: int, k: int, boot: Bootstrap, consensus_min: int = 2) -> list[Record]:
    """Judge ``k`` against the reference ``r`` on their matched pairs."""
    a, b = mt.names[r], mt.names[k]
    nq = len(mt.queries)
    both = mt.present[r] & mt.present[k]
    out = [count(a, b, LEVEL, "matched", int(both.sum())),
           count(a, b, LEVEL, "only_in_a", int((mt.present[r] & ~mt.present[k]).sum())),
           count(a, b, LEVEL, "only_in_b", int((mt.present[k] & ~mt.present[r]).sum()))]
    lr, lk = mt.label[r], mt.label[k]
    ok = both & (lr >= 0) & (lk >= 0)
    cell = lr[ok].astype(np.int64) * 3 + lk[ok]
    T = per_query_table(mt.q[ok], cell, nq, 9)
    out.append(statistic(boot, a, b, LEVEL, "agreement_decided", T, agreement_decided, n_decided))
    out.append(statistic(boot, a, b, LEVEL, "agreement", T, agreement, n_table))
    out.append(statistic(boot, a, b, LEVEL, "cohen_kappa", T, kappa, n_table))
    out.append(statistic(boot, a, b, LEVEL, "weighted_kappa", T, weighted_kappa, n_table))
    # alpha: with two coders the coincidence matrix is t + t^T over pairs both valid
    Tc = T + T[:, [0, 3, 6, 1, 4, 7, 2, 5, 8]]
    out.append(statistic(boot, a, b, LEVEL, "krippendorff_alpha", Tc, alpha_ordinal,
                         lambda S: S.sum(-1) / 2.0))
    # consensus pairs of the reference
    cr = mt.counts[r]
    nv = mt.n_valid[r]
    cons = both & (nv >= consensus_min) & ((cr[:, LO] == nv) | (cr[:, HI] == nv)) & (lk >= 0)
    side = np.where(cr[:, LO] == nv, LO, HI)
    T = per_query_sums(mt.q[cons], nq, [(lk[cons] == side[cons]), np.ones(int(cons.sum()))])
    out.append(statistic(boot, a, b, LEVEL, "consensus_agreement", T, ratio, denominator))
    return out


def all_records(mt: Matched, boot: Bootstrap) -> list[Record]:
    """All judges together: alpha over every pair (missing where a judge has no label), Fleiss' kappa
    on the pairs every judge labelled."""
    J = len(mt.names)
    nq = len(mt.queries)
    cnt = np.zeros((len(mt.keys), 3))
    for c in (LO, TIE, HI):
        cnt[:, c] = (mt.label == c).sum(0)
    m = cnt.sum(-1)
    multi = m >= 2
    T = per_query_sums(mt.q[multi], nq, list(coincidence(cnt[multi]).T))
    out = [statistic(boot, "all", "", LEVEL, "krippendorff_alpha", T, alpha_ordinal,
                     lambda S: np.asarray(float(multi.sum())))]
    rows = np.flatnonzero(m == J)
    T = per_query_sums(mt.q[rows], nq, _fleiss_columns(cnt.astype(np.int64), rows))
    out.append(statistic(boot, "all", "", LEVEL, "fleiss_kappa", T, fleiss_factory(J), lambda S: S[..., 0]))
    return out


def pair_level(mt: Matched, boot: Bootstrap, consensus_min: int = 2) -> list[Record]:
    """Every pair-level record: each judge alone, each judge against the first (reference), and all judges
    together when there are three or more."""
    out: list[Record] = []
    for k in range(len(mt.names)):
        out += judge_records(mt, k, boot)
    for k in range(1, len(mt.names)):
        out += versus_records(mt, 0, k, boot, consensus_min)
    if len(mt.names) >= 3:  # with two judges these equal the reference-vs-other figures
        out += all_records(mt, boot)
    return out
