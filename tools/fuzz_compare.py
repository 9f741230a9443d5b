#!/usr/bin/env python3
"""End-to-end differential fuzz of ``pref_eval.compare``, ``pref_eval.compare_differences`` and ``zelo_compare -P``
against scipy, statsmodels and ranx computed live, and oracles written from the definitions (exact integers).

    python tools/fuzz_compare.py                          # 20 s of cases, seed 0
    python tools/fuzz_compare.py --seconds 300 --seed 3   # longer
    python tools/fuzz_compare.py --cases 200 --seed 3     # a fixed number of cases (no time bound)
    python tools/fuzz_compare.py --case 3:41              # one case again, its findings printed in full

The options and the loop are tools/fuzz_common.py's (shared with fuzz_stats and fuzz_ranx).

Each case is made from (seed, index) alone (``numpy.random.default_rng([seed, index])``): a random per-query table
(2-30 runs, 1-500 topics, 1-3 measures; values in tenths, quarters, 0/1, continuous, large, mostly zero, runs equal
or a constant apart, float noise below 1e-12; cells missing; summary rows ``all``; the run column ``run`` or
PyTerrier's ``name``; rows shuffled) and random options (every test and its aliases, every correction, alpha,
baseline or all pairs, resamples 2^n or sampled, seed up to 2^64 - 1, Wilcoxon zero method and method, bootstrap
interval and confidence, the sign test's minimum difference, runs/measures selected, ``complete``). It goes through

* **api** -- ``pref_eval.compare(DataFrame, **options)``;
* **command** -- in a share of the cases, the table written as a TSV per-query file and ``zelo_compare -P FILE -o
  jsonl`` with the same options (a fresh process: the exit status and stderr too);
* **prefs** -- in a share of the cases, the first measure's per-query differences of every pair written as
  preference rows (``runi runj qid measure value``, ``zelo_eval -q -o tsv``'s layout) and ``zelo_compare -P``
  (each pair's row tested against 0; ``-c`` with a pair lacking a query refused);
* **diff** -- ``pref_eval.compare_differences`` on the table's difference rows (labels ``A:B``);
* **refusal** -- in a share of the cases a cell NaN, inf, None or text: the API raises UsageError naming it, the
  command exits 1 with one line naming the file and line (no traceback);

``jobs=N`` (the measures in N = 1..6 processes, often more than the measures) in a share of the API's cases must
give the records of ``jobs=1`` bit for bit (the command's cases of that share run with ``--jobs N``);
and every record is checked against an oracle of its own: the queries (those every compared run has, in code-point
order, or their union with a missing cell 0 under ``complete``), n_queries, dropped queries, the runs' means, the
differences rounded to 12 decimals in exact decimal arithmetic; **t** against ``scipy.stats.ttest_1samp`` (statistic,
p, ``confidence_interval``); **wilcoxon** against ``scipy.stats.wilcoxon`` with the same zero method and method, the
method ours reports against scipy's per-row rule, the rows tested by the exhaustive sign flip against a count over
all 2^n sign vectors of scipy's ``rankdata`` ranks, exact in Python integers at any n (fuzz_stats'
``subset_sum_tails``; at most three rows of more than 200 queries a family: ~0.1-1.5 s a row);
**sign** against ``scipy.stats.binomtest`` (|d| >= delta counted
in fractions); **randomization** exact (2^n <= resamples) against the count over every sign vector in integers, and
sampled against the same count over the documented draw (``default_rng(seed).integers(0, 2, (B, n), int8)``) and,
for n <= 16, within binomial error of the exact p; **bootstrap** interval against ``scipy.stats.bootstrap`` (same
rng seed: the same resamples), its shift p against the count over those resamples in integers; **tukey** within
binomial error of an independent Monte Carlo of the within-query permutation distribution (own draws), or of the
exact p over all (R!)^Q permutations when that is small; **corrections** against statsmodels' ``multipletests``
per (measure, test) family; ``significant`` = p_adjusted < alpha; mean_diff, d_z (``numpy.std(ddof=1)``),
wins/ties/losses and the tests' parameters against the definitions; ranx's ``paired_student_t_test`` and
``fisher_randomization_test`` (when ranx is installed) on the same differences: the t p-value equal, ranx's
Fisher p = count/B within binomial error of the exact p "> obs" .. ">= obs" and ours of the ">= obs" one where at
most ``FLIP_EXACT_MAX`` (32) differences are non-zero (``flip_tails``: both halves' sign sums met in the middle),
else ranx's within binomial error of ours.

Documented differences (docs/differences-stats.md) are counted, not reported: scipy refusing a Wilcoxon row, BCa
where a resampled mean ties the mean to 1e-12 or the row is constant. Exit 0 when nothing else differs, 1
otherwise; each difference is printed as one JSON line with its case id.
"""
from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
import tempfile
import warnings
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from fuzz_common import main as fuzz_main, outcome  # noqa: E402  (the options and the loop of the fuzz tools)
from fuzz_stats import _flip_p, close  # noqa: E402  (the exhaustive sign-flip Wilcoxon oracle)

CHECKS = ("api", "command", "diff", "refusal", "ranx", "prefs")
TEST_ALIASES = {"t": ["t", "student", "ttest"], "wilcoxon": ["wilcoxon"], "sign": ["sign"],
                "randomization": ["randomization", "perm", "permutation", "fisher", "random"],
                "bootstrap": ["bootstrap", "boot"], "tukey": ["tukey", "hsd"]}
SM_NAMES = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}
BIG_FLIP = 200  # Wilcoxon sign-flip rows of more queries: at most three a family (the exact count's cost)
MAX_ROWS = 12  # rows per test checked against the per-row oracles (scipy's bootstrap, Wilcoxon) in one case


# ---------------------------------------------------------------- cases

def _values(rng, kind: str, size) -> np.ndarray:
    if kind == "tenths":
        return rng.integers(0, 11, size) / 10
    if kind == "quarters":
        return rng.integers(0, 5, size) / 4
    if kind == "binary":
        return rng.integers(0, 2, size).astype(float)
    if kind == "continuous":
        return np.round(rng.random(size), int(rng.choice([2, 4, 6, 17])))
    if kind == "large":
        return rng.integers(0, 10**6, size) / 8
    return np.where(rng.random(size) < 0.85, 0.0, np.round(rng.random(size), 2))  # mostly zero


def make_case(rng: np.random.Generator) -> dict:
    R = int(rng.choice([2, 2, 3, 3, 4, 5, 7, int(rng.integers(2, 31))]))
    Q = int(rng.choice([1, 2, 3, int(rng.integers(2, 13)), int(rng.integers(2, 13)), int(rng.integers(13, 61)),
                        int(rng.integers(13, 501))]))
    runs = [f"r{i}" if rng.random() < 0.8 else f"run {i}:x" for i in rng.permutation(R)]
    qids = [str(q) if rng.random() < 0.7 else f"q{q}" for q in rng.permutation(Q) + 1]
    measures = [["P_10", "map", "ndcg_cut_10", "rpp"][i] for i in sorted(rng.choice(4, int(rng.integers(1, 4)),
                                                                                        replace=False))]
    rows = []
    for m in measures:
        kind = str(rng.choice(["tenths", "quarters", "binary", "continuous", "large", "zeros"]))
        X = _values(rng, kind, (R, Q))
        for i in range(1, R):
            u = rng.random()
            if u < 0.15:
                X[i] = X[int(rng.integers(0, i))]  # equal runs: all-zero difference rows
            elif u < 0.25:
                X[i] = X[int(rng.integers(0, i))] + float(rng.choice([0.1, -0.25, 1.0]))  # a constant apart
            elif u < 0.3:
                X[i] = X[int(rng.integers(0, i))] + rng.choice([0, 1e-14, -3e-15], Q)  # noise: ties after rounding
        miss = float(rng.choice([0.0, 0.0, 0.0, 0.05, 0.3]))
        for i, r in enumerate(runs):
            for j, q in enumerate(qids):
                if not rng.random() < miss:
                    rows.append([r, q, m, float(X[i, j])])
            if rng.random() < 0.1:
                rows.append([r, "all", m, float(X[i].mean())])  # summary rows: left out
    rows = [rows[i] for i in rng.permutation(len(rows))]
    return _with_options(rng, rows, runs, measures, Q)


def _with_options(rng: np.random.Generator, rows: list, runs: list, measures: list, Q: int) -> dict:
    R = len(runs)
    tests = [str(rng.choice(TEST_ALIASES[t])) for t in rng.permutation(list(TEST_ALIASES))[:int(rng.integers(1, 7))]]
    opts: dict = {"tests": ",".join(tests) if rng.random() < 0.5 else tests}
    opts["correction"] = str(rng.choice(["holm", "bonferroni", "bh", "none"]))
    opts["alpha"] = float(rng.choice([0.05, 0.01, 0.1, round(float(rng.uniform(0.001, 0.5)), 3)]))
    opts["resamples"] = int(rng.choice([64, 200, 1000, 2048, 4096, 511]))
    opts["seed"] = int(rng.choice([0, 1, 12345, int(rng.integers(0, 2**63)) * 2 + 1]))
    opts["zero_method"] = str(rng.choice(["wilcox", "pratt", "zsplit"]))
    opts["wilcoxon_method"] = str(rng.choice(["auto", "exact", "asymptotic"]))
    opts["ci_method"] = str(rng.choice(["BCa", "percentile", "basic", "bca"]))
    opts["confidence"] = float(rng.choice([0.95, 0.9, 0.99, 0.5]))
    opts["sign_min_diff"] = float(rng.choice([0.0, 0.0, 0.05, 0.1, 0.25]))
    opts["complete"] = bool(rng.random() < 0.4)
    if rng.random() < 0.3 and R > 2:
        opts["runs"] = [runs[i] for i in rng.permutation(R)[:int(rng.integers(2, R + 1))]]
    if rng.random() < 0.3:
        opts["measures"] = [measures[i] for i in rng.permutation(len(measures))[:int(rng.integers(1, len(measures)
                                                                                              + 1))]]
    present = set(r[0] for r in rows if r[1] != "all")  # (summary rows are left out: not a run's values)
    if "runs" in opts:
        opts["runs"] = [r for r in opts["runs"] if r in present]  # (a run without rows is refused: not drawn)
    if len(opts.get("runs", "xx")) < 2 or len(present) < 2:
        opts.pop("runs", None)
    have = set(r[2] for r in rows)
    if "measures" in opts:
        opts["measures"] = [m for m in opts["measures"] if m in have] or None
        if not opts["measures"]:
            opts.pop("measures")
    sel = opts.get("runs") or list(dict.fromkeys(r[0] for r in rows))
    if rng.random() < 0.4:
        opts["baseline"] = str(rng.choice(sel))
    bad = None
    if rng.random() < 0.12:
        msel = opts.get("measures") or measures
        cand = [i for i, r in enumerate(rows) if r[0] in sel and r[2] in msel and r[1] != "all"]
        if cand:
            bad = int(rng.choice(cand))
            rows[bad][3] = [math.nan, math.inf, -math.inf, None, "x"][int(rng.integers(0, 5))]
    cost = len(sel) * (len(sel) - 1) / 2 * Q * opts["resamples"]
    if cost > 4e8:  # keep a case under a few seconds
        opts["resamples"] = 200
    return {"rows": rows, "opts": opts, "bad": bad, "name_col": bool(rng.random() < 0.2),
            "command": bool(rng.random() < 0.25), "prefs": bool(rng.random() < 0.12),
            "jobs": int(rng.integers(1, 7)) if rng.random() < 0.1 else 0}


# ---------------------------------------------------------------- oracle helpers

def round12(x: Fraction) -> float:
    """A difference rounded to 12 decimals, exactly (half to even, as numpy's rint): the decimal's nearest float."""
    return float(round(x * 10**12) / Fraction(10**12))


def ints12(d: np.ndarray) -> list[int]:
    """Differences rounded to 12 decimals as exact integers (units of 1e-12)."""
    return [int(Decimal(repr(float(x))).scaleb(12)) for x in d]


def int_count(S: np.ndarray, di: list[int], obs: int, slack: int) -> tuple[int, int]:
    """(#{|S d| >= obs}, #{|S d| >= obs - slack}) over the rows of the +-1 matrix S, in exact integers."""
    if max((abs(v) for v in di), default=0) * len(di) < 2**62:
        sums = np.abs(S.astype(np.int64) @ np.array(di, dtype=np.int64))
        return int((sums >= obs).sum()), int((sums >= obs - slack).sum())
    sums = [abs(sum(int(s) * v for s, v in zip(row, di, strict=True))) for row in S.tolist()]
    return sum(s >= obs for s in sums), sum(s >= obs - slack for s in sums)


def slack_units(di: list[int]) -> int:
    """The round-off ours may count as "as extreme" (100 eps of the terms' size), in units of 1e-12, rounded up."""
    return math.ceil(sum(abs(v) for v in di) * 100 * 2.220446049250313e-16) + 1


FLIP_EXACT_MAX = 32
"""Rows of at most this many non-zero differences get the exact sign-flip counts (:func:`flip_tails`)."""


def _signed_sums(w: np.ndarray) -> np.ndarray:
    """The 2^k sums of +-w_i (int64)."""
    s = np.zeros(1, dtype=np.int64)
    for v in w.tolist():
        s = np.concatenate([s + v, s - v])
    return s


def flip_tails(nz: np.ndarray, levels: list[int]) -> list[int] | None:
    """#{sign vectors s: |sum s_i nz_i| >= L} over all 2^n of them, for each level L (integers, units of 1e-12), exact
    for n <= FLIP_EXACT_MAX non-zero differences (None above): the sums of the two halves' sign vectors are met in
    the middle (one half sorted, the other's complements found by ``searchsorted``: ~2^(n/2) log steps, not 2^n).
    "> obs" is the level obs + 1."""
    n = len(nz)
    if n > FLIP_EXACT_MAX:
        return None
    a = _signed_sums(nz[: n // 2])
    b = np.sort(_signed_sums(nz[n // 2:]))
    out = []
    for L in levels:
        if L <= 0:
            out.append(1 << n)
            continue
        ge = len(b) - np.searchsorted(b, L - a, side="left")  # a + b >= L
        le = np.searchsorted(b, -L - a, side="right")  # a + b <= -L
        out.append(int(ge.sum()) + int(le.sum()))
    return out


def binomial_close(p_ours: float, p_ref: float, B: int, B_ref: float = math.inf) -> bool:
    se = math.sqrt(max(p_ref * (1 - p_ref), 1 / min(B, B_ref)) * (1 / B + 1 / B_ref))
    return abs(p_ours - p_ref) <= 5 * se + 2 / B + (2 / B_ref if B_ref < math.inf else 0)


def wilcoxon_rule(d: np.ndarray, zero_method: str, method: str) -> str:
    """The method a row gets (pref_eval/stats/signed_rank.py's documented rule, scipy 1.17's for one sample): auto --
    n > 50 asymptotic, else exact without zeros and tied |d|, else the sign flip for n <= 13, else asymptotic;
    exact -- the sign flip where the ranked values tie or hold zeros (pratt, zsplit)."""
    if method == "asymptotic":
        return "asymptotic"
    zeros = bool((d == 0).any())
    ranked = np.abs(d[d != 0]) if zero_method == "wilcox" else np.abs(d)
    ties = ranked.size != np.unique(ranked).size
    if method == "exact":
        return "permutation" if ties or (zeros and zero_method != "wilcox") else "exact"
    if d.size > 50:
        return "asymptotic"
    if not zeros and np.unique(np.abs(d)).size == d.size:
        return "exact"
    return "permutation" if d.size <= 13 else "asymptotic"


# ---------------------------------------------------------------- the oracle of one family

def family_oracle(D: np.ndarray, tests: list[str], o: dict, rows_checked, out, case, got) -> None:
    """Check ours' records ``got[test]`` (dicts of columns, one entry per row of D) against the definitions."""
    from scipy import stats

    k, n = D.shape
    for t in tests:
        g = got[t]
        ctx = {**case, "test": t}
        mean = D.mean(axis=1) if n else np.full(k, np.nan)
        with np.errstate(all="ignore"):
            sd = D.std(axis=1, ddof=1) if n > 1 else np.full(k, np.nan)
        for i in range(k):
            want = [float(mean[i]), int((D[i] > 0).sum()), int((D[i] == 0).sum()), int((D[i] < 0).sum())]
            # (a row of equal differences has sd 0 exactly: d_z undefined, whatever numpy's sd of it says)
            dz = float(mean[i] / sd[i]) if sd[i] > 0 and (D[i] != D[i, 0]).any() else math.nan
            gg = [g["mean_diff"][i], g["wins"][i], g["ties"][i], g["losses"][i]]
            ok = close(gg[0], want[0], 1e-12, 1e-15) and gg[1:] == want[1:] and close(g["d_z"][i], dz, 1e-9, 1e-12)
            out("effects", ok, {**ctx, "row": i, "d": D[i].tolist()}, gg + [g["d_z"][i]], want + [dz])
        corr = "tukey-hsd" if t == "tukey" else o["correction"]
        p = np.array(g["p_value"], float)
        if t == "tukey" or corr == "none":
            want_adj = p
        else:
            from statsmodels.stats.multitest import multipletests

            want_adj = p.copy()
            okp = np.isfinite(p)
            if okp.any():
                want_adj[okp] = multipletests(p[okp], method=SM_NAMES[corr])[1]
        adj = np.array(g["p_adjusted"], float)
        ok = all(close(a, b, 1e-12, 1e-300) for a, b in zip(adj, want_adj, strict=True)) and \
            set(g["correction"]) <= {corr} and list(g["significant"]) == [bool(a < o["alpha"]) for a in adj]
        out("correction", ok, {**ctx, "p": p.tolist()}, [adj.tolist(), list(g["significant"])], want_adj.tolist())
        if t == "tukey":
            continue
        # the exact sign-flip count costs ~0.1-1.5 s a row of 200-500 queries: three such rows of a family
        big = t == "wilcoxon" and n > BIG_FLIP and o["wilcoxon_method"] == "exact"
        for i in rows_checked[:3] if big else rows_checked:
            d = D[i]
            rc = {**ctx, "row": i, "d": d.tolist()}
            CHECK_TEST[t](d, o, g, i, rc, out, stats)


def _t(d, o, g, i, rc, out, stats):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = stats.ttest_1samp(d, 0.0) if d.size else None
        lo, hi = res.confidence_interval(o["confidence"]) if d.size >= 2 else (math.nan, math.nan)
    want = [res.statistic, res.pvalue, lo, hi] if d.size >= 2 else [math.nan] * 4
    got = [g["statistic"][i], g["p_value"][i], g["ci_low"][i], g["ci_high"][i]]
    # the interval's ends are in the differences' units: its absolute slack scales with them (600:121, n = 2 at
    # confidence 0.5: t_0.75,1 = 1, so the lower end is 0 exactly, scipy's -1.5e-11 on differences of ~1e5)
    scale = max(1.0, float(np.abs(d).max())) if d.size else 1.0
    ok = all(close(a, b, 1e-9, 1e-13 * (scale if k >= 2 else 1.0))
             for k, (a, b) in enumerate(zip(got, want, strict=True)))
    if not ok and d.size >= 2 and d[0] != 0 and (d == d[0]).all() and all(abs(v) > 1e14 for v in got[:1] + want[:1]):
        # equal non-zero differences: sd is the round-off of the mean, whose bits follow the array's layout (t_test's
        # docstring: an infinite or a huge t, as scipy's): both |t| huge or infinite, p below 1e-100
        out("t_constant_row_documented", None, rc, got, [float(v) for v in want])
        return
    ok = ok and g["df"][i] == max(d.size - 1, 0) and g["confidence"][i] == o["confidence"]
    out("t", ok, rc, got, [float(v) for v in want])


def _wilcoxon(d, o, g, i, rc, out, stats):
    zm, meth = o["zero_method"], o["wilcoxon_method"]
    used = g["method"][i]
    n_zero = int((d == 0).sum())
    got = [float(g["statistic"][i]), float(g["p_value"][i])]
    if g["zero_method"][i] != zm or g["n_zero"][i] != n_zero:
        out("wilcoxon_params", False, rc, [g["zero_method"][i], g["n_zero"][i]], [zm, n_zero])
    rule = wilcoxon_rule(d, zm, meth)
    if used != rule:
        out("wilcoxon_method_rule", False, {**rc, "method": meth}, [used], [rule])
        return
    if used == "permutation":
        want = _flip_p(d, zm)  # exact counts in Python integers at any n: the same ratio of integers, to the bit
        out("wilcoxon_permutation" if d.size <= 60 else "wilcoxon_permutation_over60", got[1] == want, rc, got, [want])
        return
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            res = stats.wilcoxon(d, zero_method=zm, method=meth if meth != "auto" else "auto")
    except ValueError:
        out("wilcoxon_scipy_refuses", None, rc, got, None)
        return
    want = [float(res.statistic), float(res.pvalue)]
    out("wilcoxon", close(got[0], want[0]) and close(got[1], want[1], 1e-9, 1e-15), {**rc, "used": used}, got, want)


def _sign(d, o, g, i, rc, out, stats):
    delta = Fraction(repr(o["sign_min_diff"]))
    dd = [Fraction(repr(float(x))) for x in d]
    got = [g["statistic"][i], g["p_value"][i], g["n_nonzero"][i]]
    # |d| < delta is a tie, allowing 1e-12 of round-off (docs/differences-stats.md 7.): a difference within 1e-12
    # below delta (0.099999999999 for 0.1) may count either way (the float delta - 1e-12 against the float |d|)
    counts = []
    for lo in (delta, delta - Fraction(1, 10**12) - Fraction(1, 10**15)) if delta else (delta,):
        big = [x for x in dd if x != 0 and abs(x) >= lo]
        counts.append((sum(x > 0 for x in big), len(big)))
    kk, nn = counts[0] if [got[0], got[2]] != list(counts[-1]) else counts[-1]
    want = stats.binomtest(kk, nn, 0.5).pvalue if nn else math.nan
    ok = got[0] == kk and got[2] == nn and close(got[1], want, 1e-12, 0)
    if ok and (kk, nn) != counts[0]:
        out("sign_min_diff_allowance_documented", None, rc, got, [kk, want, nn])
    else:
        out("sign", ok, rc, got, [kk, want, nn])


def _randomization(d, o, g, i, rc, out, stats):
    n, B = d.size, o["resamples"]
    got = float(g["p_value"][i])
    if n == 0:
        return
    di = ints12(d)
    obs, slack = abs(sum(di)), slack_units(di)
    exact = n <= 62 and (1 << n) <= B
    if exact:
        S = 1 - 2 * ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1)
        lo, hi = int_count(S, di, obs, slack)
        ok = g["exact"][i] and g["resamples"][i] == 1 << n and lo / (1 << n) <= got <= hi / (1 << n)
        out("randomization_exact", ok, rc, [got, g["exact"][i]], [lo / (1 << n), hi / (1 << n)])
        return
    S = 1 - 2 * np.random.default_rng(o["seed"]).integers(0, 2, size=(B, n), dtype=np.int8)
    lo, hi = int_count(S, di, obs, slack)
    ok = (not g["exact"][i]) and g["resamples"][i] == B and (lo + 1) / (B + 1) <= got <= (hi + 1) / (B + 1)
    out("randomization_draws", ok, rc, [got], [(lo + 1) / (B + 1), (hi + 1) / (B + 1)])
    if n <= 16:
        S = 1 - 2 * ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1)
        lo, hi = int_count(S, di, obs, slack)
        out("randomization_sampled", binomial_close(got, lo / (1 << n), B) or binomial_close(got, hi / (1 << n), B),
            rc, [got], [lo / (1 << n)])


def _bootstrap(d, o, g, i, rc, out, stats):
    n, B = d.size, o["resamples"]
    got = [float(g["ci_low"][i]), float(g["ci_high"][i]), float(g["p_value"][i])]
    if n < 2:
        out("bootstrap_n1", all(math.isnan(v) for v in got), rc, got, [math.nan] * 3)
        return
    method, conf, seed = o["ci_method"], o["confidence"], o["seed"]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = stats.bootstrap((d,), np.mean, n_resamples=B, rng=seed, method=method, confidence_level=conf,
                              vectorized=True)
    boot, mean = res.bootstrap_distribution, float(d.mean())
    want = [float(res.confidence_interval.low), float(res.confidence_interval.high)]
    const = float(d.max() - d.min()) <= 1e-12 * max(1.0, abs(mean))
    if method.lower() == "bca" and (const or bool((np.abs(boot - mean) <= 1e-12 * max(1.0, abs(mean))).any())):
        out("bootstrap_bca_tie_documented", None, rc, got, want)
    elif const:
        out("bootstrap_ci_const", close(got[0], mean, 1e-12, 1e-15) and close(got[1], mean, 1e-12, 1e-15), rc,
            got, [mean, mean])
    else:
        out("bootstrap_ci", all(close(a, b, 1e-9, 1e-12) for a, b in zip(got[:2], want, strict=True)), rc, got,
            want)
    # shift p over the same resamples, exactly: |sum* - sum| >= |sum| in units of 1e-12 (x n: the means' scale)
    idx = np.random.default_rng(seed).integers(0, n, (B, n))
    C = np.bincount((idx + n * np.arange(B)[:, None]).ravel(), minlength=B * n).reshape(B, n)
    di = ints12(d)
    tot = sum(di)
    slack = math.ceil(max(abs(v) for v in di) * n * 100 * 2.220446049250313e-16) + n
    if max(abs(v) for v in di) * n * n < 2**62:
        dev = np.abs(C @ np.array(di, dtype=np.int64) - tot)
        lo, hi = int((dev >= abs(tot)).sum()), int((dev >= abs(tot) - slack).sum())
    else:
        dev = [abs(sum(int(c) * v for c, v in zip(row, di, strict=True)) - tot) for row in C.tolist()]
        lo, hi = sum(x >= abs(tot) for x in dev), sum(x >= abs(tot) - slack for x in dev)
    ok = (lo + 1) / (B + 1) <= got[2] <= (hi + 1) / (B + 1) and str(g["ci_method"][i]).lower() == method.lower()
    out("bootstrap_p", ok, rc, [got[2]], [(lo + 1) / (B + 1), (hi + 1) / (B + 1)])


CHECK_TEST = {"t": _t, "wilcoxon": _wilcoxon, "sign": _sign, "randomization": _randomization,
              "bootstrap": _bootstrap}


def tukey_oracle(X: np.ndarray, pairs, got_p, o, out, case) -> None:
    """Each pair's p against the permutation distribution of the range of run means: exact over (R!)^Q when small,
    else an independent Monte Carlo (own draws: argsort of uniform keys per query)."""
    R, Q = X.shape
    B = o["resamples"]
    if Q == 0:
        return
    ints = np.array([[int(v) for v in ints12(row)] for row in X], dtype=object)
    small = math.factorial(R) ** Q <= 50_000
    rng = np.random.default_rng([7, R, Q])
    if small:
        perms = np.array(list(itertools.permutations(range(R))))
        grid = np.array(list(itertools.product(range(len(perms)), repeat=Q)))
        idx = perms[grid].transpose(0, 2, 1)  # (N, R, Q): the run whose value sits at row r, query q
        Bref = math.inf
    else:
        Bref = int(min(20_000, max(2_000, 2e7 // (R * Q))))
        idx = np.argsort(rng.random((Bref, R, Q)), axis=1)
    Xf = X.astype(float)
    perm_vals = np.take_along_axis(np.broadcast_to(Xf, idx.shape), idx, axis=1)
    m = perm_vals.mean(axis=2)
    ranges = np.sort(m.max(axis=1) - m.min(axis=1))
    means = Xf.mean(axis=1)
    scale = np.abs(Xf).max()
    for (a, b), p in zip(pairs, got_p, strict=True):
        diff = abs(means[a] - means[b])
        tol = max(diff, scale) * 1e-12
        lo = float((ranges >= diff + tol).mean())
        hi = float((ranges >= diff - tol - 1e-12).mean())  # the documented allowance: 1e-12 is float noise
        ok = any(binomial_close(float(p), ref, B, Bref) for ref in (lo, hi)) or lo - 1e-12 <= p <= hi + 1e-12
        out("tukey", ok, {**case, "pair": [int(a), int(b)], "B": B, "Bref": Bref}, [float(p)], [lo, hi])
    del ints


def tukey_draws(X: np.ndarray, runs: list[str], pairs, got_p, o, out, case) -> None:
    """Each pair's p against the documented draw (stats/tukey.py: ``default_rng(seed).permuted`` of chunks of 500
    copies of the runs' rows in name order, axis 1), the ranges of the permuted sums counted in exact integers
    (units of 1e-12) against |sum_a - sum_b|: p = (count + 1) / (B + 1), the round-off and the 1e-12 of a mean
    (float noise, docs/differences-stats.md 3.) ours allows as slack."""
    R, Q = X.shape
    B = o["resamples"]
    if Q == 0 or R * Q * B > 3e7:
        return
    order = sorted(range(R), key=lambda i: runs[i])
    Xn = X[order]
    rng = np.random.default_rng(o["seed"])
    ranges = np.empty(B, dtype=object) if np.abs(X).max() * Q * 1e12 >= 2**62 else np.empty(B, dtype=np.int64)
    ints = np.array([ints12(row) for row in Xn], dtype=np.int64 if ranges.dtype != object else object)
    uniq = np.unique(Xn)
    uniq_int = np.array(ints12(uniq), dtype=ints.dtype)  # a float's integer, whichever row it came from
    for start in range(0, B, 500):
        b = min(500, B - start)
        perm = rng.permuted(np.broadcast_to(Xn, (b, R, Q)).copy(), axis=1)
        sums = uniq_int[np.searchsorted(uniq, perm)].sum(axis=2)
        ranges[start:start + b] = sums.max(axis=1) - sums.min(axis=1)
    tot = ints.sum(axis=1)
    # slack: round-off of the means (100 eps of the values), the values' truncation to units of 1e-12 (Q units of
    # a sum) and the 1e-12 of a mean that ours allows as float noise (Q more; runs that the paired tests call a tie
    # -- every |x - y| < 5e-13 -- then count every range: p = 1, as the Monte Carlo oracle's hi)
    slack = int(np.abs(ints).max()) * Q * 100 * 2.220446049250313e-16 + 2 * Q
    inv = {orig: k for k, orig in enumerate(order)}
    for (a, c), p in zip(pairs, got_p, strict=True):
        d = abs(int(tot[inv[a]]) - int(tot[inv[c]]))
        lo, hi = int((ranges >= d).sum()), int((ranges >= d - slack).sum())
        ok = (lo + 1) / (B + 1) - 1e-15 <= float(p) <= (hi + 1) / (B + 1) + 1e-15
        out("tukey_draws", ok, {**case, "pair": [int(a), int(c)], "B": B}, [float(p)], [(lo + 1) / (B + 1),
                                                                                          (hi + 1) / (B + 1)])


# ---------------------------------------------------------------- expected tables

def expected_blocks(rows, o) -> tuple[list, dict]:
    """Per measure: (measure, run list, pairs, D (pairs x used queries), X, used, dropped, means)."""
    rows = [r for r in rows if r[1] != "all"]
    runs = list(o.get("runs") or dict.fromkeys(r[0] for r in rows))
    measures = list(o.get("measures") or dict.fromkeys(r[2] for r in rows))
    base = o.get("baseline")
    if base is None:
        pairs = [(i, j) for i in range(len(runs)) for j in range(i + 1, len(runs))]
    else:
        b = runs.index(base)
        pairs = [(i, b) for i in range(len(runs)) if i != b]
    blocks = []
    for m in measures:
        cells = {(r[0], r[1]): float(r[3]) for r in rows if r[2] == m and r[0] in runs}
        qall = sorted({q for _, q in cells})
        used = qall if o["complete"] else [q for q in qall if all((r, q) in cells for r in runs)]
        dropped = [q for q in qall if q not in used]
        X = np.array([[cells.get((r, q), 0.0) for q in used] for r in runs], float).reshape(len(runs), len(used))
        D = np.array([[round12(Fraction(X[a, j]) - Fraction(X[b, j])) for j in range(len(used))] for a, b in pairs],
                     float).reshape(len(pairs), len(used))
        blocks.append({"measure": m, "runs": runs, "pairs": pairs, "D": D, "X": X, "used": used,
                       "dropped": dropped})
    return blocks, {"runs": runs, "measures": measures}


def runs_with_values(rows) -> set:
    """The runs with a per-query row: a run whose only rows are summaries ``all`` is left out with them (case 37:404:
    r1 with one ``all`` row, r0 alone to compare, refused)."""
    return {r[0] for r in rows if r[1] != "all"}


def baseline_gone(case) -> bool:
    """The baseline drawn is a run whose only rows are summaries ``all`` (left out with them): refused."""
    base = case["opts"].get("baseline")
    return case["bad"] is None and base is not None and base not in runs_with_values(case["rows"])


def parse_test_list(spec) -> list[str]:
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    rev = {a: t for t, al in TEST_ALIASES.items() for a in al}
    return list(dict.fromkeys(rev[x] for x in items))


def check_records(recs: list[dict], blocks, o, tests, rng, out, case, label: str) -> None:
    """``recs``: ours' records (dicts) in order. Order, names, n_queries; then each family."""
    want_keys = [(b["measure"], b["runs"][a], b["runs"][c], t) for b in blocks for a, c in b["pairs"] for t in tests]
    got_keys = [(r["measure"], r["run_a"], r["run_b"], r["test"]) for r in recs]
    if got_keys != want_keys:
        out(f"{label}_records", False, case, got_keys[:20], want_keys[:20])
        return
    out(f"{label}_records", True, case, None, None)
    pos = 0
    for b in blocks:
        P = len(b["pairs"])
        fam = {}
        for t in tests:
            fam[t] = []
        for _ in b["pairs"]:
            for t in tests:
                fam[t].append(recs[pos])
                pos += 1
        nq = len(b["used"])
        cols = {}
        for t in tests:
            cols[t] = {key: [r.get(key, math.nan) for r in fam[t]] for key in set().union(*fam[t])}
            if any(v != nq for v in cols[t]["n_queries"]):
                out(f"{label}_n_queries", False, case, cols[t]["n_queries"][:5], nq)
        rows_checked = sorted(rng.permutation(P)[:MAX_ROWS].tolist())
        ctx = {**case, "measure": b["measure"]}
        family_oracle(b["D"], [t for t in tests], o, rows_checked, out, ctx, cols)
        if "tukey" in tests:
            tukey_oracle(b["X"], b["pairs"], cols["tukey"]["p_value"], o, out, ctx)
            tukey_draws(b["X"], b["runs"], b["pairs"], cols["tukey"]["p_value"], o, out, ctx)


# ---------------------------------------------------------------- the checks

def api_options(o) -> dict:
    return {k: v for k, v in o.items()}


def run_api(case, out, rng, label="api") -> None:
    import pandas as pd

    import pref_eval
    from pref_eval.errors import UsageError

    o = case["opts"]
    frame = pd.DataFrame(case["rows"], columns=["name" if case["name_col"] else "run", "qid", "measure", "value"])
    if baseline_gone(case):
        try:
            pref_eval.compare(frame, **api_options(o))
        except UsageError as e:
            out("baseline_only_summary", f"baseline {o['baseline']!r} is not one of the runs" in str(e)
                or "need at least two runs" in str(e), {"opts": o}, str(e), None)
        else:
            out("baseline_only_summary", False, {"opts": o}, "accepted", None)
        return
    blocks, _ = expected_blocks(case["rows"], o) if case["bad"] is None else ([], {})
    ctx = {"opts": o}
    try:
        res = pref_eval.compare(frame, **api_options(o))
    except UsageError as e:
        msg = str(e)
        if case["bad"] is not None and len(runs_with_values(case["rows"])) >= 2:
            bad = case["rows"][case["bad"]]
            out("refusal_api", "per-query table" in msg and repr(bad[1]) in msg, ctx, msg, bad)
        elif len(runs_with_values(case["rows"])) < 2:
            out("fewer_than_two_runs", "need at least two runs" in msg or "lacks column" in msg, ctx, msg, None)
        else:
            empty = [b["measure"] for b in blocks if not b["used"]]
            out("no_common_query", bool(empty) and "no query has a value for every run" in msg, ctx, msg, empty)
        return
    if case["bad"] is not None:
        out("refusal_api", False, ctx, "accepted", case["rows"][case["bad"]])
        return
    if any(not b["used"] for b in blocks):
        out("no_common_query", False, ctx, "accepted", [b["measure"] for b in blocks if not b["used"]])
        return
    for b in blocks:
        m = b["measure"]
        with np.errstate(all="ignore"):
            want_means = b["X"].mean(axis=1)
        got_means = res.mean_values[m]
        ok = res.n_queries[m] == len(b["used"]) and res.dropped_queries[m] == b["dropped"] and all(
            close(x, y, 1e-12, 1e-15) for x, y in zip(got_means, want_means, strict=True))
        out("queries_means", ok, {**ctx, "measure": m}, [res.n_queries[m], res.dropped_queries[m][:5]],
            [len(b["used"]), b["dropped"][:5]])
    recs = res.records.to_dict("records")
    check_records(recs, blocks, o, parse_test_list(o["tests"]), rng, out, ctx, label)
    if case.get("jobs"):  # the measures in N = 1..6 processes (often more than measures): the records bit for bit
        jobs = case["jobs"]
        recs2 = pref_eval.compare(frame, **api_options(o), jobs=jobs).records.to_dict("records")
        same = len(recs) == len(recs2) and all(
            set(a) == set(b) and all(a[k] == b[k] or (a[k] != a[k] and b[k] != b[k]) for k in a)
            for a, b in zip(recs, recs2, strict=True))
        out("jobs_more_than_measures" if jobs > len(blocks) else "jobs", same, {**ctx, "jobs": jobs,
                                                                               "measures": len(blocks)}, None, None)


#: zelo_compare's options per test (an option no selected test reads is refused there: cli/compare.py)
COMMAND_TEST_OPTIONS = ((("randomization", "bootstrap", "tukey"), ("resamples", "seed")),
                        (("sign",), ("sign_min_diff",)), (("wilcoxon",), ("zero_method", "wilcoxon_method")),
                        (("bootstrap",), ("ci_method",)),
                        (("t", "bootstrap"), ("confidence",)),
                        (("t", "wilcoxon", "sign", "randomization", "bootstrap"), ("correction",)))


def command_args(o, jobs: int = 0) -> list[str]:
    tests = o["tests"] if isinstance(o["tests"], str) else ",".join(o["tests"])
    wanted = set(parse_test_list(o["tests"]))
    args = ["--tests", tests, "--alpha", repr(o["alpha"])]
    for users, names in COMMAND_TEST_OPTIONS:
        if wanted & set(users):
            for name in names:
                v = o[name] if name != "ci_method" else {"bca": "BCa"}.get(o[name], o[name])  # click: exact case
                args += ["--" + name.replace("_", "-"), repr(v) if isinstance(v, float) else str(v)]
    if o["complete"]:
        args.append("-c")
    if o.get("baseline") is not None:
        args += ["--baseline", o["baseline"]]
    for m in o.get("measures") or []:
        args += ["-m", m]
    if jobs:
        args += ["--jobs", str(jobs)]
    return args + list(o.get("runs") or [])


def run_command(case, out, rng) -> None:
    o = case["opts"]
    if o.get("baseline") is not None and o.get("runs") and o["baseline"] not in o["runs"]:
        return
    with tempfile.TemporaryDirectory(prefix="fuzz_compare_") as tmp:
        path = os.path.join(tmp, "pq.tsv")
        col = "name" if case["name_col"] else "run"
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"{col}\tqid\tmeasure\tvalue\n")
            for r in case["rows"]:
                v = repr(r[3]) if isinstance(r[3], float) else str(r[3])
                f.write(f"{r[0]}\t{r[1]}\t{r[2]}\t{v}\n")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        p = subprocess.run([sys.executable, str(ROOT / "bin" / "zelo_compare"), "-P", path, "-o", "jsonl", "-Q",
                            *command_args(o, case["jobs"])], capture_output=True, text=True, env=env, timeout=600)
    ctx = {"args": command_args(o, case["jobs"])}
    if "Traceback" in p.stderr:
        out("command_traceback", False, ctx, p.stderr[-2000:], None)
        return
    if case["bad"] is not None:  # docs/exit-codes.md: bad input, one line naming the file and line, exit 2
        bad = case["rows"][case["bad"]]
        ok = p.returncode == 2 and p.stderr.count("\n") == 1 and "pq.tsv:" in p.stderr and "number" in p.stderr
        out("refusal_command", ok, ctx, [p.returncode, p.stderr], bad)
        return
    if len(runs_with_values(case["rows"])) < 2:  # a run with 'all' rows only: one run to compare, exit 2
        out("fewer_than_two_runs_command", p.returncode == 2 and "need at least two runs" in p.stderr
            and p.stderr.count("\n") == 1, ctx, [p.returncode, p.stderr], None)
        return
    blocks, _ = expected_blocks(case["rows"], o)
    if any(not b["used"] for b in blocks):
        out("no_common_query_command", p.returncode == 2 and "no query has a value for every run" in p.stderr
            and p.stderr.count("\n") == 1, ctx,
            [p.returncode, p.stderr], None)
        return
    if p.returncode != 0:
        out("command_exit", False, ctx, [p.returncode, p.stderr], 0)
        return
    check_records(jsonl_records(p.stdout), blocks, o, parse_test_list(o["tests"]), rng, out, ctx, "command")


def jsonl_records(text: str) -> list[dict]:
    """``-o jsonl`` records: null (undefined) as NaN, "inf" / "-inf" (JSON has no infinity) as floats."""
    recs = [json.loads(line) for line in text.splitlines()]
    for r in recs:
        for key in ("statistic", "p_value", "p_adjusted", "ci_low", "ci_high", "d_z"):
            v = r.get(key)
            r[key] = math.nan if v is None else float(v) if isinstance(v, str) else v
    return recs


def run_prefs(case, out, rng) -> None:
    """``zelo_compare -P`` on a file of preference rows (``runi runj qid measure value``: a signed value per pair
    and query, ``zelo_eval -q -o tsv``'s layout): each pair's row tested against 0 (compare_preferences)."""
    o = case["opts"]
    rows = [r for r in case["rows"] if r[1] != "all"]
    runs = list(dict.fromkeys(r[0] for r in rows))
    first = rows[0][2]
    cells = {(r[0], r[1]): float(r[3]) for r in rows if r[2] == first}
    qids = sorted({q for _, q in cells})
    pref = []
    for i, a in enumerate(runs):
        for b in runs[i + 1:]:
            for q in qids:
                if (a, q) in cells and (b, q) in cells:
                    pref.append([a, b, q, cells[(a, q)] - cells[(b, q)]])
    pref = [pref[i] for i in rng.permutation(len(pref))]
    tests = [t for t in parse_test_list(o["tests"]) if t != "tukey"]
    if not pref or not tests:
        return
    po = {**o, "tests": ",".join(tests), "baseline": None, "runs": None, "measures": None}
    with tempfile.TemporaryDirectory(prefix="fuzz_compare_") as tmp:
        path = os.path.join(tmp, "pp.tsv")
        with open(path, "w", encoding="utf-8") as f:
            f.write("runi\trunj\tqid\tmeasure\tvalue\n")
            f.writelines(f"{a}\t{b}\t{q}\trpp\t{v!r}\n" for a, b, q, v in pref)
        p = subprocess.run([sys.executable, str(ROOT / "bin" / "zelo_compare"), "-P", path, "-o", "jsonl", "-Q",
                            *command_args(po)], capture_output=True, text=True, timeout=600,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    ctx = {"prefs": True, "args": command_args(po)}
    pairs = list(dict.fromkeys((a, b) for a, b, _, _ in pref))
    have = {(a, b, q): v for a, b, q, v in pref}
    qall = sorted({q for _, _, q, _ in pref})
    used = [q for q in qall if all((a, b, q) in have for a, b in pairs)]
    if o["complete"] and len(used) < len(qall):
        out("prefs_complete_refused", p.returncode == 2 and "lacks query" in p.stderr
            and p.stderr.count("\n") == 1, ctx, [p.returncode, p.stderr], None)
        return
    if not used:
        out("prefs_no_common_query", p.returncode == 2 and p.stderr.count("\n") == 1, ctx, [p.returncode, p.stderr],
            None)
        return
    if p.returncode != 0 or "Traceback" in p.stderr:
        out("prefs_exit", False, ctx, [p.returncode, p.stderr[-2000:]], 0)
        return
    D = np.array([[round12(Fraction(have[(a, b, q)])) for q in used] for a, b in pairs], float)
    block = {"measure": "rpp", "runs": [a for a, _ in pairs] + [b for _, b in pairs],
             "pairs": [(i, len(pairs) + i) for i in range(len(pairs))], "D": D, "X": None, "used": used,
             "dropped": [q for q in qall if q not in used]}
    check_records(jsonl_records(p.stdout), [block], po, tests, rng, out, ctx, "prefs")


def run_diff(case, out, rng) -> None:
    """compare_differences on the first measure's difference rows (no tukey: refused there)."""
    from pref_eval.stats import compare_differences
    from pref_eval.errors import UsageError

    o = case["opts"]
    blocks, _ = expected_blocks(case["rows"], o)
    b = blocks[0]
    tests = parse_test_list(o["tests"])
    kw = {k: o[k] for k in ("correction", "alpha", "resamples", "seed", "zero_method", "wilcoxon_method",
                            "confidence", "ci_method", "sign_min_diff")}
    labels = [f"{b['runs'][a]}:{b['runs'][c]}" for a, c in b["pairs"]]
    # the raw differences, unrounded: ours rounds them to 12 decimals as compare does
    Draw = np.array([b["X"][a] - b["X"][c] for a, c in b["pairs"]]).reshape(len(b["pairs"]), len(b["used"]))
    try:
        df = compare_differences(Draw, labels=labels, measure=b["measure"], tests=o["tests"], **kw)
    except UsageError as e:
        out("diff_tukey_refused", "tukey" in tests and "Tukey" in str(e), {"tests": tests}, str(e), None)
        return
    if "tukey" in tests:
        out("diff_tukey_refused", False, {"tests": tests}, "accepted", None)
        return
    recs = df.to_dict("records")
    for r in recs:  # labels "r1:run 2:x" split at the first ':'
        r["run_a"], r["run_b"] = r["run_a"], r["run_b"]
    want_a = [lab.partition(":")[0] for lab in labels]
    want_b = [lab.partition(":")[2] for lab in labels]
    got_a = [r["run_a"] for r in recs[::len(tests)]]
    got_b = [r["run_b"] for r in recs[::len(tests)]]
    out("diff_labels", got_a == want_a and got_b == want_b, {"labels": labels[:5]}, [got_a[:5], got_b[:5]],
        [want_a[:5], want_b[:5]])
    for r, lab in zip(recs, [lab for lab in labels for _ in tests], strict=True):
        r["run_a"], r["run_b"] = lab, lab  # compare by label below
    fake = {**b, "runs": labels, "pairs": [(i, i) for i in range(len(labels))]}
    check_records(recs, [fake], o, tests, rng, out, {"diff": True}, "diff")


def run_ranx(case, out, rng) -> None:
    """ranx's paired t (scipy.stats.ttest_rel) and Fisher randomization (count/B of its own draws) on a pair."""
    try:
        from ranx.statistical_tests import fisher_randomization_test, paired_student_t_test
    except ImportError:
        out("ranx_missing", None, {}, None, None)
        return
    import pref_eval

    import pandas as pd

    o = case["opts"]
    blocks, _ = expected_blocks(case["rows"], o)
    b = blocks[0]
    if len(b["used"]) < 2:
        return
    a, c = b["pairs"][int(rng.integers(0, len(b["pairs"])))]
    x, y = b["X"][a], b["X"][c]
    B = int(rng.choice([1000, 2000]))
    frame = pd.DataFrame([[r, q, "m", float(v)] for r, row in (("a", x), ("b", y))
                          for q, v in zip(b["used"], row, strict=True)], columns=["run", "qid", "measure", "value"])
    res = pref_eval.compare(frame, tests="t,randomization", resamples=B, seed=o["seed"], correction="none")
    recs = res.records.set_index("test")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p_t, _ = paired_student_t_test(x, y, 0.05)
        p_f, _ = fisher_randomization_test(x, y, B, 0.05, int(rng.integers(0, 2**31)))
    ctx = {"x": x.tolist(), "y": y.tolist(), "B": B}
    raw = x - y
    if ((raw != 0) & (np.abs(raw) < 5e-13)).any():  # float noise: a tie after ours' rounding (documented, 3.)
        out("ranx_noise_rounded_documented", None, ctx, None, None)
        return
    got_t = float(recs.loc["t", "p_value"])
    out("ranx_t", close(got_t, p_t, 1e-9, 1e-13) or (math.isnan(got_t) and math.isnan(p_t)), ctx, [got_t], [p_t])
    got_f = float(recs.loc["randomization", "p_value"])
    di = np.array(ints12(np.round(raw, 12)), dtype=np.int64)
    nz = di[di != 0]  # a zero difference flips to itself: the distribution is that of the non-zero ones
    obs = abs(int(nz.sum()))
    counts = flip_tails(nz, [obs + 1, obs])
    if counts is not None:  # ranx compares the permuted means without a round-off allowance: between "> obs" and
        # ">= obs" (where tied sums exist, which side ranx's float sums land on varies with its draws: its numba
        # threads' generators are not all seeded, so its p moves between runs -- case 11:14, 5 non-zero of 39)
        strict, ties = counts[0] / (1 << nz.size), counts[1] / (1 << nz.size)
        ok = strict - 1e-12 <= p_f <= ties + 1e-12 or any(binomial_close(p_f, r, B) for r in (strict, ties))
        out("ranx_fisher", ok and binomial_close(got_f, ties, B), ctx, [got_f, p_f], [strict, ties])
    else:
        out("ranx_fisher", binomial_close(got_f, p_f, B, B), ctx, [got_f], [p_f])


RUNNERS = {"api": run_api, "command": run_command, "diff": run_diff, "ranx": run_ranx, "prefs": run_prefs}


def run_case(seed: int, index: int, checks, counts: Counter, findings: list) -> None:
    out = outcome(counts, findings, f"{seed}:{index}")
    case = make_case(np.random.default_rng([seed, index]))
    rng = np.random.default_rng([seed, index, 1])
    if "api" in checks or ("refusal" in checks and case["bad"] is not None):
        run_api(case, out, rng)
    if len(runs_with_values(case["rows"])) < 2 or baseline_gone(case):
        return
    if case["bad"] is None:
        blocks, _ = expected_blocks(case["rows"], case["opts"])
        usable = all(b["used"] for b in blocks)
        if "diff" in checks and usable:
            run_diff(case, out, rng)
        if "ranx" in checks and usable:
            run_ranx(case, out, rng)
        if "prefs" in checks and case["prefs"]:
            run_prefs(case, out, rng)
    if "command" in checks and case["command"] and (case["bad"] is None or "refusal" in checks):
        run_command(case, out, rng)


def main(argv: list[str] | None = None) -> int:
    return fuzz_main("fuzz_compare", __doc__, CHECKS, run_case, argv)


if __name__ == "__main__":
    sys.exit(main())
