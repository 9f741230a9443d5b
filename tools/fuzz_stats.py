#!/usr/bin/env python3
"""Differential fuzz of pref_eval.stats and the rank aggregations against scipy, statsmodels and oracles
written from the definitions (no peer checkout needed: scipy and statsmodels are test dependencies).

    python tools/fuzz_stats.py                          # 20 s of cases, seed 0
    python tools/fuzz_stats.py --seconds 300 --seed 3   # longer
    python tools/fuzz_stats.py --cases 500 --seed 3     # a fixed number of cases (no time bound)
    python tools/fuzz_stats.py --case 3:41              # one case again, its findings printed in full

The options and the loop are tools/fuzz_common.py's (shared with fuzz_compare and fuzz_ranx).

Each case is made from (seed, index) alone (``numpy.random.default_rng([seed, index])``) and checks:

* **paired** -- one row of per-query differences (n = 1..3 in a third of the cases, else 4..40; normal,
  quarter steps, tenths, mostly zeros, all zero, constant, tied magnitudes of both signs), rounded to 12
  decimals as ``compare`` does: ``t_test`` against ``scipy.stats.ttest_1samp`` (statistic, p, interval);
  ``wilcoxon_test`` for every zero method x method (and the continuity correction) against
  ``scipy.stats.wilcoxon``, except the rows ours tests by the exhaustive sign-flip distribution
  (``method_used`` ``permutation``), checked against the distribution of R+ over all 2^n sign vectors of
  scipy's ``rankdata`` ranks (a subset-sum count of the doubled ranks, exact at any n); ``sign_test`` (with a minimum
  difference) against ``scipy.stats.binomtest``; ``randomization_test`` -- exact (n <= 12) against the count
  over every sign vector in exact decimal arithmetic (``fractions``), sampled (n = 13..18, B = 1,000 or 5,000
  draws) within binomial error (5 standard errors + 2/B) of the exact p of all 2^n --, and
  ``bootstrap_test``'s interval against ``scipy.stats.bootstrap`` (same
  ``rng`` seed, so the same resamples), its shift p-value against the same count over scipy's bootstrap
  distribution recomputed exactly.
* **corrections** -- a family of p-values (ties, 0, 1, nan) through ``adjust`` against statsmodels'
  ``multipletests`` (holm, bonferroni, fdr_bh).
* **orderings** -- scores of 2..9 systems with ties: ``kendall_tau_b_rows`` against
  ``scipy.stats.kendalltau``; ``tau_ap_a`` against the mean of Yilmaz, Aslam & Robertson's tau_AP (SIGIR 2008)
  over every way of breaking the ties of both orderings (the definition of the expectation it claims);
  ``tau_ap_b`` without ties against the mean of the two tau_AP (Urbano & Marrero, ICTIR 2017).
* **aggregation** -- per-query rankings of 1..7 runs (runs missing from some queries): ``borda_points`` /
  ``borda`` against a loop over the definition (n - j points, n the first ranking's length), ``mc4_scores``
  against the damped chain's stationary distribution found by power iteration from a transition matrix built
  by loops over the pairs (Dwork et al., WWW 2001).
* **tukey** -- ``randomised_tukey_hsd`` of 2-4 runs x 1-12 queries (values on a 1/4 grid, ties) within binomial
  error of the exact p over all (R!)^Q permutations of each query's values across the runs (Carterette, TOIS
  2012; Sakai 2014); the matrix symmetric.
* **signflip** -- one long row (61-400 queries, log-uniform; tenths, quarters, mostly zeros or 4-8 decimals)
  through ``wilcoxon_test(method="exact")`` for every zero method: the rows ours tests by the exhaustive sign flip
  (ties, ranked zeros) against the count over all 2^n sign vectors in Python integers (``subset_sum_tails``: the
  subset-sum counts modulo coprime int64 moduli, put together by the Chinese remainder theorem) -- equal to the
  bit, both being the same ratio of integers --, the others against scipy's exact p.
* **zelo** -- a judgment file's pairs with ties and weights: ``zelo_fit``'s scores against
  ``choix.ilsr_pairwise_dense`` (tests/test_zelo_choix.py's reduction) when choix is installed.

Documented differences (docs/differences-stats.md) are counted, not reported: scipy refusing a Wilcoxon row
(one zero difference), BCa where a resampled mean ties the mean to 1e-12 (scipy's z0 counts round-off) and
constant rows (scipy's BCa nan, ours the point). Exit 0 when nothing else differs, 1 otherwise; each
difference is printed as one JSON line with its case id and its input.
"""
from __future__ import annotations

import itertools
import math
import sys
import warnings
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_common import main as fuzz_main, outcome  # noqa: E402  (the options and the loop of the fuzz tools)

CHECKS = ("paired", "corrections", "orderings", "aggregation", "zelo", "tukey", "signflip")


def close(a: float, b: float, rel: float = 1e-9, abs_: float = 1e-12) -> bool:
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def difference_row(rng: np.random.Generator) -> np.ndarray:
    n = int(rng.integers(1, 4)) if rng.random() < 1 / 3 else int(rng.integers(4, 41))
    kind = int(rng.integers(0, 7))
    if kind == 0:
        d = rng.normal(0.02, 0.1, n)
    elif kind == 1:
        d = rng.integers(-4, 5, n) / 4
    elif kind == 2:
        d = np.round(rng.normal(0, 0.3, n), 1)
    elif kind == 3:
        d = np.where(rng.random(n) < 0.8, 0.0, np.round(rng.normal(0, 0.2, n), 2))
    elif kind == 4:
        d = np.zeros(n)
    elif kind == 5:
        d = np.full(n, float(rng.choice([0.1, -0.25, 1e-3, 0.3])))
    else:
        d = rng.choice([-1, 1], n) * rng.choice([0.1, 0.2, 0.3], n)
    return np.round(d, 12)


def _t(d, rng, out):
    from scipy import stats
    from pref_eval.stats import t_test

    conf = float(rng.choice([0.9, 0.95, 0.99]))
    ours = t_test(d, confidence=conf)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = stats.ttest_1samp(d, 0.0)
        lo, hi = res.confidence_interval(conf) if d.size >= 2 else (math.nan, math.nan)
    got = [ours["statistic"][0], ours["p_value"][0], ours["ci_low"][0], ours["ci_high"][0]]
    want = [res.statistic, res.pvalue, lo, hi]
    out("t", all(close(g, w) for g, w in zip(got, want, strict=True)), {"conf": conf}, got, want)


def _moduli(bits: int) -> list[int]:
    """Pairwise coprime moduli below 2^62 (2^62 - 1, 2^62 - 3, ... kept when coprime to those before) whose product
    exceeds 2^bits."""
    out: list[int] = []
    prod, c = 1, 1
    while prod <= 1 << bits:
        m = (1 << 62) - c
        c += 2
        if all(math.gcd(m, x) == 1 for x in out):
            out.append(m)
            prod *= m
    return out


def subset_sum_tails(weights: list[int], a: int) -> tuple[int, int]:
    """(#{S <= a}, #{S >= a}) over the 2^m subset sums S of the positive integers ``weights``, exact for any m.

    The counts of each sum (the coefficients of prod (1 + x^w)) are found modulo pairwise coprime moduli below
    2^62 (a row of int64 each: no sum overflows), up to min(a, W - a) only (W = sum of the weights; a subset's
    complement has sum W - S, so #{S >= a} = #{S <= W - a}), and the two tails are put together from their
    residues by the Chinese remainder theorem (the moduli's product exceeds 2^m, the largest count)."""
    m, W = len(weights), sum(weights)
    t = min(a, W - a)
    if t < 0:  # a < 0 or a > W: one tail is empty, the other everything
        return (0, 1 << m) if a < 0 else (1 << m, 0)
    mods = _moduli(m + 1)
    M = np.array(mods, dtype=np.int64)[:, None]
    C = np.zeros((len(mods), t + 1), dtype=np.int64)
    C[:, 0] = 1
    for w in sorted(weights):
        if w > t:
            break
        hi = C[:, w:]
        hi += C[:, :-w].copy()
        np.subtract(hi, M, out=hi, where=hi >= M)
    N = math.prod(mods)

    def crt(col: int) -> int:  # sum of the counts of sums 0..col, from its residues
        v = 0
        for row, mod in zip(C[:, :col + 1].tolist(), mods, strict=True):
            Ni = N // mod
            v += (sum(row) % mod) * Ni * pow(Ni, -1, mod)
        return v % N

    below = crt(t)  # #{S <= t}
    below_1 = crt(t - 1) if t > 0 else 0  # #{S <= t - 1}
    if a <= W - a:  # t = a: #{S >= a} = 2^m - #{S <= a - 1}
        return below, (1 << m) - below_1
    return (1 << m) - below_1, below  # t = W - a: #{S >= a} = #{S <= W - a}; #{S <= a} = 2^m - #{S >= a + 1}


def _flip_p(d: np.ndarray, zero_method: str) -> float:
    """Exhaustive sign-flip p of R+ with scipy's ranks over all 2^n sign vectors (zeros flip to nothing), for any n:
    2R+ is the subset sum of the doubled ranks of the positive d (plus a constant, zsplit's zero ranks, that shifts
    every sign vector's sum alike), counted exactly by ``subset_sum_tails`` in Python integers."""
    from scipy.stats import rankdata

    a = np.abs(d)
    if zero_method == "wilcox":
        a = a[d != 0]
        d = d[d != 0]
    w2 = np.rint(2 * rankdata(a)).astype(np.int64)
    zero = d == 0
    lower, upper = subset_sum_tails(w2[~zero].tolist(), int(w2[d > 0].sum()))
    return min(1.0, 2 * min(lower, upper) * (1 << int(zero.sum())) / (1 << d.size))


def _wilcoxon(d, rng, out):
    from scipy import stats
    from pref_eval.stats import wilcoxon_test

    for zm in ("wilcox", "pratt", "zsplit"):
        for method in ("auto", "exact", "asymptotic"):
            corr = method == "asymptotic" and bool(rng.random() < 0.5)
            ours = wilcoxon_test(d, zero_method=zm, method=method, correction=corr)
            used = str(ours["method_used"][0])
            got = [float(ours["statistic"][0]), float(ours["p_value"][0])]
            case = {"zero_method": zm, "method": method, "correction": corr, "used": used}
            if used == "permutation":
                want = _flip_p(d, zm)
                out("wilcoxon_permutation", close(got[1], want, 1e-12), case, got, [want])
                continue
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    res = stats.wilcoxon(d, zero_method=zm, method=method, correction=corr)
            except ValueError:
                # documented: scipy refuses rows it cannot rank (all zero under wilcox, one zero difference)
                out("wilcoxon_scipy_refuses", None, case, got, None)
                continue
            want = [float(res.statistic), float(res.pvalue)]
            ok = close(got[0], want[0]) and close(got[1], want[1], 1e-9, 1e-15)
            out("wilcoxon", ok, case, got, want)


def _sign(d, rng, out):
    from scipy import stats
    from pref_eval.stats import sign_test

    delta = float(rng.choice([0.0, 0.0, 0.05, 0.25]))
    ours = sign_test(d, min_diff=delta)
    dd = [Fraction(repr(float(x))) for x in d]
    big = [x for x in dd if abs(x) >= Fraction(repr(delta)) and x != 0]
    k, n = sum(x > 0 for x in big), len(big)
    want = stats.binomtest(k, n, 0.5).pvalue if n else math.nan
    got = [float(ours["statistic"][0]), float(ours["p_value"][0])]
    out("sign", got[0] == k and close(got[1], want, 1e-12, 0), {"min_diff": delta}, got, [k, want])


def _randomization(d, rng, out):
    from pref_eval.stats import randomization_test

    n = d.size
    if n > 12:
        _randomization_sampled(d, rng, out)
        return
    ours = randomization_test(d, resamples=1 << n, seed=0)
    dd = [Fraction(repr(float(x))) for x in d]
    obs = abs(sum(dd))
    count = 0
    for signs in itertools.product((1, -1), repeat=n):
        count += abs(sum(s * x for s, x in zip(signs, dd, strict=True))) >= obs
    want = count / (1 << n)
    out("randomization", ours["exact"] and close(ours["p_value"][0], want, 1e-15, 0), {}, [float(ours["p_value"][0])],
        [want])


def binomial_close(p_ours: float, p_exact: float, B: int) -> bool:
    """A p-value of B random draws, (count + 1) / (B + 1), within 5 standard errors (plus 2/B) of the exact one."""
    return abs(p_ours - p_exact) <= 5 * math.sqrt(p_exact * (1 - p_exact) / B) + 2 / B


def _randomization_sampled(d, rng, out):
    """2^n > B: B random sign vectors against the exact p of all 2^n (n <= 18, rows on a 1/100 grid, integers)."""
    from pref_eval.stats import randomization_test

    n = d.size
    cents = np.rint(d * 100).astype(np.int64)
    if n > 18 or not np.allclose(cents, d * 100, rtol=0, atol=1e-6):
        return
    B = int(rng.choice([1000, 5000]))
    seed = int(rng.integers(0, 1000))
    ours = randomization_test(d, resamples=B, seed=seed)
    signs = 1 - 2 * ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1)
    want = float((np.abs(signs @ cents) >= abs(int(cents.sum()))).mean())
    got = float(ours["p_value"][0])
    out("randomization_sampled", not ours["exact"] and binomial_close(got, want, B), {"B": B, "seed": seed}, [got],
        [want])


def _bootstrap(d, rng, out):
    from scipy import stats
    from pref_eval.stats import bootstrap_test

    n = d.size
    if n < 2:
        return
    B = int(rng.choice([99, 200, 500]))
    seed = int(rng.integers(0, 1000))
    method = str(rng.choice(["BCa", "percentile", "basic"]))
    conf = float(rng.choice([0.9, 0.95]))
    ours = bootstrap_test(d, resamples=B, seed=seed, confidence=conf, ci_method=method)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = stats.bootstrap((d,), np.mean, n_resamples=B, rng=seed, method=method, confidence_level=conf,
                              vectorized=True)
    boot = res.bootstrap_distribution
    mean = float(d.mean())
    case = {"B": B, "seed": seed, "method": method, "conf": conf}
    got = [float(ours["ci_low"][0]), float(ours["ci_high"][0])]
    want = [float(res.confidence_interval.low), float(res.confidence_interval.high)]
    const = float(d.max() - d.min()) <= 1e-12 * max(1.0, abs(mean))
    if method == "BCa" and (const or bool((np.abs(boot - mean) <= 1e-12 * max(1.0, abs(mean))).any())):
        out("bootstrap_bca_tie_documented", None, case, got, want)
    else:
        out("bootstrap_ci", all(close(g, w, 1e-9, 1e-12) for g, w in zip(got, want, strict=True)), case, got, want)
    # the shift p-value over the same resamples, counted in exact decimals: (#{|m* - m| >= |m|} + 1) / (B + 1)
    idx = np.random.default_rng(seed).integers(0, n, (B, n))
    dd = [Fraction(repr(float(x))) for x in d]
    m = sum(dd) / n
    count = sum(abs(sum(dd[i] for i in row) / n - m) >= abs(m) for row in idx.tolist())
    want_p = (count + 1) / (B + 1)
    out("bootstrap_p", close(ours["p_value"][0], want_p, 1e-15, 0), case, [float(ours["p_value"][0])], [want_p])


def check_signflip(rng, out):
    """One long row (61-400 queries, log-uniform; tenths, quarters or mostly zeros: tied |d|, zeros) through
    ``wilcoxon_test(method="exact")`` for each zero method: ours takes the exhaustive sign flip there (ties or
    ranked zeros), checked against ``_flip_p``'s exact count in Python integers (the ratio of the same integers:
    equal to the bit); a row ours does not flip (no tie, no ranked zero) against scipy's exact p."""
    from scipy import stats
    from pref_eval.stats import wilcoxon_test

    n = int(round(math.exp(rng.uniform(math.log(61), math.log(400)))))
    kind = int(rng.integers(0, 4))
    if kind == 0:
        d = np.round(rng.normal(float(rng.choice([0.0, 0.02, 0.1])), 0.3, n), 1)
    elif kind == 1:
        d = rng.integers(-4, 5, n) / 4
    elif kind == 2:
        d = np.where(rng.random(n) < 0.7, 0.0, np.round(rng.normal(0.05, 0.2, n), 2))
    else:
        d = np.round(rng.normal(0.01, 0.1, n), int(rng.choice([4, 8])))  # few or no ties: some rows exact
    for zm in ("wilcox", "pratt", "zsplit"):
        ours = wilcoxon_test(d, zero_method=zm, method="exact")
        used = str(ours["method_used"][0])
        got = float(ours["p_value"][0])
        case = {"d": d.tolist(), "zero_method": zm, "used": used}
        if used == "permutation":
            want = _flip_p(d, zm)
            out("signflip_exact_count", got == want, case, [got], [want])
        else:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                res = stats.wilcoxon(d, zero_method=zm, method="exact")
            out("signflip_exact_scipy", close(got, float(res.pvalue), 1e-9, 1e-15), case, [got], [float(res.pvalue)])


def check_paired(rng, out):
    d = difference_row(rng)
    for f in (_t, _wilcoxon, _sign, _randomization, _bootstrap):
        f(d, rng, lambda name, ok, case, got, want: out(name, ok, {"d": d.tolist(), **case}, got, want))


def check_corrections(rng, out):
    from statsmodels.stats.multitest import multipletests
    from pref_eval.stats import adjust

    m = int(rng.integers(1, 31))
    p = rng.choice([rng.random(), 1.0, 0.0, 0.05, 1e-300, 0.5, math.nan], m) if rng.random() < 0.5 else rng.random(m)
    p = np.where(rng.random(m) < 0.3, np.round(p, 2), p)
    ok_idx = np.isfinite(p)
    for ours_name, sm in (("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")):
        got = adjust(p, ours_name)
        want = np.full(m, np.nan)
        if ok_idx.any():
            want[ok_idx] = multipletests(p[ok_idx], method=sm)[1]
        ok = all(close(g, w, 1e-12, 1e-300) for g, w in zip(got, want, strict=True))
        out("correction", ok, {"p": p.tolist(), "method": ours_name}, got.tolist(), want.tolist())


def tau_ap_def(ref: list, ev: list) -> float:
    """Yilmaz et al.'s tau_AP of ordering ``ev`` (a list of items, best first) against ``ref`` (the same)."""
    pos = {x: i for i, x in enumerate(ref)}
    N = len(ev)
    s = sum(sum(pos[ev[j]] < pos[ev[i]] for j in range(i)) / i for i in range(1, N))
    return 2 / (N - 1) * s - 1


def tie_breakings(scores: np.ndarray):
    """Every ordering (best first) consistent with ``scores`` (higher = better), ties in every order."""
    groups = [list(np.flatnonzero(scores == v)) for v in sorted(set(scores.tolist()), reverse=True)]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for part in parts for i in part]


def check_orderings(rng, out):
    from scipy import stats
    from pref_eval.stats import tau_ap, tau_ap_a
    from pref_eval.stats.orderings import kendall_tau_b_rows

    k = int(rng.integers(2, 10))
    levels = int(rng.integers(1, k + 2))
    x = rng.integers(0, levels, k).astype(float)
    if rng.random() < 0.3:
        x = rng.permutation(k).astype(float)
    y = rng.integers(0, levels, k).astype(float) if rng.random() < 0.6 else rng.permutation(k).astype(float)
    case = {"reference": x.tolist(), "evaluated": y.tolist()}
    got = float(kendall_tau_b_rows(x[None], y[None])[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = float(stats.kendalltau(x, y, variant="b").statistic)
    out("tau_b", close(got, want, 1e-12), case, [got], [want])
    n_ref = math.prod(math.factorial(c) for c in Counter(x.tolist()).values())
    n_ev = math.prod(math.factorial(c) for c in Counter(y.tolist()).values())
    if n_ref * n_ev <= 20_000:
        vals = [tau_ap_def(r, e) for r in tie_breakings(x) for e in tie_breakings(y)]
        want = math.fsum(vals) / len(vals)
        got = tau_ap_a(x, y)
        out("tau_ap_a_expectation", close(got, want, 1e-12, 1e-12), case, [got], [want])
    if n_ref == 1 and n_ev == 1:
        from pref_eval.stats import tau_ap_b

        rx, ey = next(tie_breakings(x)), next(tie_breakings(y))
        want = (tau_ap_def(rx, ey) + tau_ap_def(ey, rx)) / 2
        out("tau_ap_b_no_ties", close(tau_ap_b(x, y), want, 1e-12, 1e-12), case, [tau_ap_b(x, y)], [want])
        out("tau_ap_no_ties", close(tau_ap(x, y), tau_ap_def(rx, ey), 1e-12, 1e-12), case, [tau_ap(x, y)],
            [tau_ap_def(rx, ey)])


def rankings_case(rng) -> list[list[str]]:
    runs = [f"r{i}" for i in range(int(rng.integers(1, 8)))]
    out = []
    for _ in range(int(rng.integers(1, 9))):
        keep = [r for r in runs if rng.random() < 0.85] or [runs[0]]
        out.append([keep[i] for i in rng.permutation(len(keep))])
    return out


def check_aggregation(rng, out):
    from pref_eval.rank_aggregation import borda, borda_points, mc4, mc4_scores

    rk = rankings_case(rng)
    case = {"rankings": rk}
    n0 = len(rk[0])
    pts: dict[str, int] = {}
    for r in rk:
        for j, x in enumerate(r):
            pts[x] = pts.get(x, 0) + n0 - j
    order = sorted(pts, key=lambda x: (pts[x], x), reverse=True)
    got_pts, got_order = borda_points(rk), borda(rk)
    out("borda", got_pts == pts and got_order == order, case, [got_pts, got_order], [pts, order])
    names = sorted(pts)
    n = len(names)
    C = np.zeros((n, n))
    for r in rk:
        p = {x: i for i, x in enumerate(r)}
        for a in range(n):
            for b in range(n):
                if a != b and names[a] in p and names[b] in p:
                    C[a, b] += 1 if p[names[a]] < p[names[b]] else -1
    P = np.zeros((n, n))
    for a in range(n):
        for b in range(n):
            if a != b and C[a, b] < 0:
                P[a, b] = 1 / n
        P[a, a] = 1 - P[a].sum()
    damping = float(rng.choice([0.15, 0.5, 1.0, 0.05]))
    G = (1 - damping) * P + damping / n
    pi = np.full(n, 1 / n)
    for _ in range(100_000):
        nxt = pi @ G
        if np.abs(nxt - pi).max() < 1e-16:
            break
        pi = nxt
    gn, gv = mc4_scores(rk, damping=damping)
    got = {nm: float(v) for nm, v in zip(gn, gv, strict=True)}
    ok = all(close(got[nm], pi[i], 1e-9, 1e-12) for i, nm in enumerate(names))
    out("mc4_stationary", ok, {**case, "damping": damping}, got, dict(zip(names, pi.tolist(), strict=True)))
    key = {nm: (round(float(pi[i]), 12), pts[nm], nm) for i, nm in enumerate(names)}
    want_order = sorted(names, key=key.__getitem__, reverse=True)
    got_order = mc4(rk, damping=damping)
    # the order compared only where no two stationary probabilities are within 1e-10 (the tie rule's 1e-12
    # rounding can fall either side of a boundary)
    gaps = np.diff(np.sort(pi))
    if not (gaps[gaps > 0] < 1e-10).any():
        out("mc4_order", got_order == want_order, {**case, "damping": damping}, got_order, want_order)


def check_zelo(rng, out):
    """One query's judgments (ties 0.5, weights, repeated pairs) fitted by ``fit_bt`` against choix's exact MLE
    of the same data with the prior as a reference document that every document beats ``prior`` times and
    loses to ``prior`` times (its score is the origin); prior 0 only for strongly connected judgments."""
    try:
        import choix
    except ImportError:
        out("zelo_no_choix", None, {}, None, None)
        return
    from pref_eval.zelo.fit import fit_bt

    N = int(rng.integers(2, 9))
    K = int(rng.integers(1, 4 * N))
    a, b = rng.integers(0, N, K), rng.integers(0, N, K)
    keep = a != b
    a, b = a[keep], b[keep]
    s = rng.choice([0.0, 1.0, 0.5], a.size, p=[0.4, 0.4, 0.2])
    w = rng.choice([0.5, 1.0, 2.0, 3.0], a.size) if rng.random() < 0.5 else np.ones(a.size)
    power = float(rng.choice([1.0, 0.5, 2.0, 0.0]))
    prior = float(rng.choice([0.0, 0.1, 0.5, 1.0, 2.0]))
    W = np.zeros((N + 1, N + 1))
    for ai, bi, si, wi in zip(a, b, s, w ** power, strict=True):
        W[bi, ai] += wi * si          # s = 1: b better; choix's W[i, j]: i beats j
        W[ai, bi] += wi * (1 - si)
    case = {"a": a.tolist(), "b": b.tolist(), "s": s.tolist(), "w": w.tolist(), "weight_power": power,
            "prior": prior}
    if prior == 0:
        R = (W[:N, :N] > 0) | np.eye(N, dtype=bool)
        for k in range(N):  # Warshall: strongly connected only
            R = R | (R[:, [k]] & R[[k], :])
        if not R.all():
            out("zelo_not_strongly_connected", None, case, None, None)
            return
        ref = choix.ilsr_pairwise_dense(W[:N, :N], alpha=0.0, tol=1e-14, max_iter=100_000)
        want = ref - ref.mean()
    else:
        W[:N, N] += prior
        W[N, :N] += prior
        ref = choix.ilsr_pairwise_dense(W, alpha=0.0, tol=1e-14, max_iter=100_000)
        want = ref[:N] - ref[N]
    res = fit_bt([N], np.zeros(a.size, int), a, b, s, w, prior=prior, weight_power=power, tol=1e-11,
                 max_iter=1000, compute_se=False)
    got = res.score - res.score.mean()  # scores are centred per component (module docstring of zelo/fit.py)
    want = want - want.mean()
    ok = bool(np.allclose(got, want, rtol=0, atol=1e-6))
    out("zelo_choix", ok, case, got.tolist(), want.tolist())


def check_tukey(rng, out):
    """Randomised Tukey HSD (each query's values permuted across runs; p of a pair = share of resamples whose
    range of run means reaches the pair's difference) against the exact share over every one of the (R!)^Q
    permutations, values on a 1/4 grid (integer sums), within binomial error of B draws."""
    from pref_eval.stats import randomised_tukey_hsd

    R = int(rng.integers(2, 5))
    Q = int(rng.integers(1, {2: 13, 3: 6, 4: 3}[R] + 1))
    quarters = rng.integers(0, int(rng.choice([2, 5, 40])), (R, Q))
    B = int(rng.choice([2000, 10000]))
    seed = int(rng.integers(0, 1000))
    P = randomised_tukey_hsd(quarters / 4, resamples=B, seed=seed)
    perms = np.array(list(itertools.permutations(range(R))))
    grid = np.stack(np.meshgrid(*[np.arange(len(perms))] * Q, indexing="ij"), -1).reshape(-1, Q)
    sums = np.zeros((grid.shape[0], R), dtype=np.int64)
    for q in range(Q):
        sums += quarters[perms[grid[:, q]], q]
    ranges = sums.max(axis=1) - sums.min(axis=1)
    tot = quarters.sum(axis=1)
    case = {"quarters": quarters.tolist(), "B": B, "seed": seed}
    for i in range(R):
        for j in range(i + 1, R):
            want = float((ranges >= abs(int(tot[i] - tot[j]))).mean())
            out("tukey", binomial_close(float(P[i, j]), want, B) and P[i, j] == P[j, i], {**case, "pair": [i, j]},
                [float(P[i, j])], [want])


RUNNERS = {"paired": check_paired, "corrections": check_corrections, "orderings": check_orderings,
           "aggregation": check_aggregation, "zelo": check_zelo, "tukey": check_tukey, "signflip": check_signflip}


def run_case(seed: int, index: int, checks, counts: Counter, findings: list) -> None:
    out = outcome(counts, findings, f"{seed}:{index}")
    for name in checks:
        RUNNERS[name](np.random.default_rng([seed, index, CHECKS.index(name)]), out)


def main(argv: list[str] | None = None) -> int:
    return fuzz_main("fuzz_stats", __doc__, CHECKS, run_case, argv)


if __name__ == "__main__":
    sys.exit(main())
