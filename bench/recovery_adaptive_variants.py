"""Whole-ranking recovery: pair-choice variants tried against the adaptive strategy (issue #16, session 7).

    python bench/recovery_adaptive_variants.py --K 100 --sigma 1.5 --trials 100 --seed 0

Every variant spends the budget of 4 random cycles (4K distinct pairs per trial) like
``zelo_simulate recovery --strategy adaptive``: the same blind first batch (the same random perfect
matching), then rounds of disjoint pairs chosen from a default-prior Bradley–Terry fit of the
judgments so far, judgments read from the same dense matrices; the output is the default-prior fit
of the judged pairs. Reported per variant: mean Kendall τ_b against the dense fit, its paired
difference from the default adaptive strategy (``recovery(..., strategy="adaptive")``, same seeds)
with the paired standard error, and at the true scores (3 votes per judgment) the design's total
Fisher information and mean Cramér–Rao variances of adjacent and of 4p(1−p)-weighted differences
(:func:`pref_eval.zelo.ranking_bound.design_variances`). Variants (``--variants``, comma-separated):

* ``cycles8``: 8 random cycles (the goal; twice the budget).
* ``kgstar``: the discordance criterion as a KG(*) (Frazier & Powell, "Paradoxes in learning and the
  marginal value of information", Decision Analysis 7(4), 2010): the value of judging a pair m = 10
  times, divided by m, over pairs at most 30 places apart, candidates at most 10 apart; the one-step
  knowledge gradient is ~0 for pairs whose gap is large against one judgment's effect, m judgments
  let it see them.
* ``aopt`` / ``aopt-phi``: a global A-optimal criterion: the drop of Σ_kl ω_kl Var(x_k − x_l) over ALL
  pairs, ω_kl = 4 p̂_kl(1 − p̂_kl) (``aopt``) or φ(Δ_kl / s_kl)/s_kl with the covariance divided by the
  3 votes (``aopt-phi``); for a candidate u = e_i − e_j it is uᵀCMCu / (1/w + uᵀCu) (M the Laplacian
  of ω), every unjudged pair a candidate, each round built by sequential greedy choice with the
  Sherman–Morrison update of C after each pick (so pairs of one round do not repeat each other).
* ``window10``: random matchings among near items (each round a random maximal matching of the
  unjudged pairs at most 10 places apart in the current order, K/2 pairs): non-myopic, well connected.
* ``einfo``: the greedy matching by the expected Fisher information E[p(1 − p)] under the posterior
  (every unjudged pair a candidate): how much information a chosen design can hold.
* ``quicksort``: no fit, no blind matching: repeated randomised quicksorts (Maystre & Grossglauser,
  "Just sort it! A simple and effective approach to active preference learning", ICML 2017) with
  each comparison decided by the pair's judgment (a pair met again reuses it; a tie by a coin), until
  4K distinct pairs are judged; then the same Bradley–Terry fit. Each level of a sort is a batch
  (every item against its part's pivot), so a round is not a matching.

Win probabilities and weights take the C library's ``exp`` (:mod:`pref_eval.libm`, as the package's simulations
do since session 23; numpy's own AVX-512 ``exp`` decides some near-ties otherwise). OpenBLAS's kernels, which it
picks per kind of CPU, still can: docs/zelo_simulate-ranking-bounds.md says which made the stored tables.

``--write-docs``: the table (the command's line first) replaces the block between the ``recovery-variants-K``
markers of docs/zelo_simulate-ranking-bounds.md (K = 50 and 100 at σ = 1.5 are stored); the page's prose quotes
it (``python bench/recovery_adaptive.py --prose``).
"""
from __future__ import annotations

import argparse
import re
import resource
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pref_eval import libm  # noqa: E402
from pref_eval.seeds import stream_seed  # noqa: E402
from pref_eval.zelo.adaptive import (  # noqa: E402
    _band,
    _expected_drop,
    best_matching,
    posterior_covariance,
)
from pref_eval.zelo.fit import fit_bt  # noqa: E402
from pref_eval.zelo.ranking_bound import design_variances  # noqa: E402
from pref_eval.zelo.simulate import _kendall, recovery  # noqa: E402

VOTES = 3


def _setup(K: int, sigma: float, trials: int, seed: int, cycles: int = 4):
    """Truth, first random permutation, dense matrix and dense fit exactly as ``recovery`` draws them."""
    rng = np.random.default_rng(stream_seed(seed, K, int(round(sigma * 1000))))
    truth = rng.normal(0.0, sigma, (trials, K))
    rng_pairs = np.random.default_rng(stream_seed(seed, K, int(round(sigma * 1000)), cycles))
    perms = np.argsort(rng_pairs.random((trials, cycles, K)), axis=2)
    i, j = np.triu_indices(K, 1)
    a_d, b_d, q_d = np.tile(i, trials), np.tile(j, trials), np.repeat(np.arange(trials), len(i))
    pb = 1.0 / (1.0 + libm.exp(-(truth[q_d, b_d] - truth[q_d, a_d])))
    s_d = (rng.random((len(q_d), VOTES)) < pb[:, None]).mean(axis=1)
    D = np.zeros((trials, K, K))
    D[q_d, a_d, b_d] = s_d
    D[q_d, b_d, a_d] = 1.0 - s_d
    xd = fit_bt(np.full(trials, K), q_d, a_d, b_d, s_d, compute_se=False).score.reshape(trials, K)
    return truth, perms[:, 0, :], D, xd, rng_pairs


def _fit(D: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    trials, K = D.shape[:2]
    q = np.repeat(np.arange(trials), a.shape[1])
    return fit_bt(np.full(trials, K), q, a.ravel(), b.ravel(), D[q, a.ravel(), b.ravel()],
                  compute_se=False).score.reshape(trials, K)


def kgstar(x, cov, judged, need, rng, m=10.0, reach=30, window=10):
    """KG(*): the discordance criterion's expected drop for m judgments of the pair, divided by m."""
    Q, K = x.shape
    rows = np.arange(Q)[:, None]
    order = np.argsort(-x, axis=1, kind="stable")
    i, j = _band(order, window)
    kk, ll = _band(order, reach)
    dg = np.diagonal(cov, axis1=1, axis2=2)
    s2 = np.maximum(dg[rows, kk] + dg[rows, ll] - 2.0 * cov[rows, kk, ll], 1e-12)
    gap = np.abs(x[rows, kk] - x[rows, ll])
    p = 1.0 / (1.0 + libm.exp(x[rows, j] - x[rows, i]))
    denom = 1.0 / np.maximum(m * p * (1.0 - p), 1e-300) + dg[rows, i] + dg[rows, j] - 2.0 * cov[rows, i, j]
    score = np.full(i.shape, -np.inf)
    qi, ci = np.nonzero(~judged[rows, i, j])
    for n0 in range(0, len(qi), 2048):
        q, c = qi[n0 : n0 + 2048], ci[n0 : n0 + 2048]
        cu = cov[q, i[q, c], :] - cov[q, j[q, c], :]
        dk = np.take_along_axis(cu, kk[q], axis=1) - np.take_along_axis(cu, ll[q], axis=1)
        score[q, c] = _expected_drop(dk * dk / denom[q, c][:, None], s2[q], gap[q]) / m
    return best_matching(score, i, j, K, need)


def aopt(x, cov, judged, need, rng, omega="pq"):
    """Sequential greedy A-optimal round over all pairs (module docstring)."""
    Q, K = x.shape
    idx, rows = np.arange(K), np.arange(Q)
    d = x[:, :, None] - x[:, None, :]
    pq = 1.0 / (1.0 + libm.exp(-d)) / (1.0 + libm.exp(d))
    if omega == "pq":
        W = 4.0 * pq
    else:
        cv = cov / VOTES
        dg = np.diagonal(cv, axis1=1, axis2=2)
        s2 = np.maximum(dg[:, :, None] + dg[:, None, :] - 2.0 * cv, 1e-9)
        W = libm.exp(-0.5 * d * d / s2) / np.sqrt(s2)
        cov = cv
        pq = pq * VOTES
    W[:, idx, idx] = 0.0
    M = -W
    M[:, idx, idx] = W.sum(axis=2)
    C = cov.copy()
    A = C @ M @ C
    w = np.maximum(pq, 1e-12)
    used = np.zeros((Q, K), dtype=bool)
    active = np.ones(Q, dtype=bool)
    out: list[list[tuple[int, int]]] = [[] for _ in range(Q)]
    for _ in range(need):
        dA, dC = np.diagonal(A, axis1=1, axis2=2), np.diagonal(C, axis1=1, axis2=2)
        S = (dA[:, :, None] + dA[:, None, :] - 2 * A) / (1 / w + dC[:, :, None] + dC[:, None, :] - 2 * C)
        bad = judged | used[:, :, None] | used[:, None, :]
        bad[:, idx, idx] = True
        S = np.where(bad, -np.inf, S).reshape(Q, -1)
        flat = S.argmax(axis=1)
        ok = np.isfinite(S[rows, flat]) & active
        bi, bj = flat // K, flat % K
        for q in np.flatnonzero(ok):
            out[q].append((int(bi[q]), int(bj[q])))
        active &= ok
        used[rows[ok], bi[ok]] = used[rows[ok], bj[ok]] = True
        u = np.zeros((Q, K))
        u[rows, bi] += 1.0
        u[rows, bj] -= 1.0
        g = np.einsum("qkl,ql->qk", C, u)
        h = np.einsum("qkl,ql->qk", A, u)
        den = (1 / w[rows, bi, bj] + np.einsum("qk,qk->q", u, g))[:, None, None]
        gMg = np.einsum("qk,qkl,ql->q", g, M, g)[:, None, None]
        gg = g[:, :, None] * g[:, None, :]
        upd = ok[:, None, None]
        C = C - upd * gg / den
        A = A - upd * ((g[:, :, None] * h[:, None, :] + h[:, :, None] * g[:, None, :]) / den - gMg * gg / den**2)
    return out


def window(x, cov, judged, need, rng, w=10):
    """A random maximal matching among unjudged pairs at most ``w`` places apart."""
    Q, K = x.shape
    rows = np.arange(Q)[:, None]
    i, j = _band(np.argsort(-x, axis=1, kind="stable"), w)
    score = np.where(judged[rows, i, j], -np.inf, rng.random(i.shape))
    return best_matching(score, i, j, K, need)


def einfo(x, cov, judged, need, rng):
    """Greedy matching by the posterior expected Fisher information E[p(1 − p)] (Gauss–Hermite)."""
    Q, K = x.shape
    rows = np.arange(Q)[:, None]
    i, j = _band(np.argsort(-x, axis=1, kind="stable"), K - 1)
    v = np.maximum(cov[rows, i, i] + cov[rows, j, j] - 2 * cov[rows, i, j], 0.0)
    nodes, wts = np.polynomial.hermite_e.hermegauss(15)
    wts = wts / wts.sum()
    m = x[rows, i] - x[rows, j]
    score = np.zeros(i.shape)
    for z, wt in zip(nodes, wts, strict=True):
        p = 1 / (1 + libm.exp(-(m + z * np.sqrt(v))))
        score += wt * p * (1 - p)
    return best_matching(np.where(judged[rows, i, j], -np.inf, score), i, j, K, need)


def quicksort_design(D: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) of repeated randomised quicksorts of every trial, 4K distinct pairs each (``quicksort``)."""
    trials, K = D.shape[:2]
    budget = 4 * K
    a = np.empty((trials, budget), dtype=np.int64)
    b = np.empty((trials, budget), dtype=np.int64)
    for t in range(trials):
        met: dict[tuple[int, int], None] = {}
        while len(met) < budget:
            parts = [rng.permutation(K).tolist()]
            while parts and len(met) < budget:
                nxt = []
                for items in parts:
                    piv = items[int(rng.integers(len(items)))]
                    lo, hi = [], []
                    for it in items:
                        if it == piv:
                            continue
                        key = (min(it, piv), max(it, piv))
                        if key not in met and len(met) >= budget:
                            continue
                        met.setdefault(key)
                        s = D[t, it, piv]  # judged P(pivot better than it)
                        (lo if s > 0.5 or (s == 0.5 and rng.random() < 0.5) else hi).append(it)
                    nxt += [p for p in (lo, hi) if len(p) > 1]
                parts = nxt
        pairs = np.array(list(met), dtype=np.int64)
        a[t], b[t] = pairs[:, 0], pairs[:, 1]
    return a, b


VARIANTS: dict[str, tuple[Callable, int]] = {  # chooser, pairs per round = K // value
    "kgstar": (kgstar, 4), "aopt": (aopt, 4), "aopt-phi": (lambda *a: aopt(*a, omega="phi"), 4),
    "window10": (window, 2), "einfo": (einfo, 4), "quicksort": (quicksort_design, 0)}


def variant_design(name: str, K: int, sigma: float, trials: int, seed: int):
    """(a, b) of every trial (trials, 4K), truth and dense fit, and the sparse fit."""
    chooser, div = VARIANTS[name]
    truth, first, D, xd, rng = _setup(K, sigma, trials, seed)
    if name == "quicksort":
        a, b = quicksort_design(D, rng)
        return a, b, truth, xd, _fit(D, a, b)
    half = K // 2
    a, b = first[:, 0 : 2 * half : 2], first[:, 1 : 2 * half : 2]
    rows = np.arange(trials)[:, None]
    judged = np.zeros((trials, K, K), dtype=bool)
    judged[rows, a, b] = judged[rows, b, a] = True
    budget = 4 * K
    while a.shape[1] < budget:
        need = min(max(1, K // div), budget - a.shape[1])
        x = _fit(D, a, b)
        batch = chooser(x, posterior_covariance(x, a, b), judged, need, rng)
        new = np.empty((trials, need, 2), dtype=np.int64)
        for t, pairs in enumerate(batch):
            if len(pairs) < need:  # as recovery: fill with unjudged pairs at random, none chosen this round
                taken = judged[t].copy()
                for i, j in pairs:
                    taken[i, j] = taken[j, i] = True
                fi, fj = np.nonzero(np.triu(~taken, 1))
                pick = rng.permutation(len(fi))[: need - len(pairs)]
                pairs = pairs + list(zip(fi[pick].tolist(), fj[pick].tolist(), strict=True))
            new[t] = pairs[:need]
        judged[rows, new[..., 0], new[..., 1]] = judged[rows, new[..., 1], new[..., 0]] = True
        a, b = np.hstack([a, new[..., 0]]), np.hstack([b, new[..., 1]])
    return a, b, truth, xd, _fit(D, a, b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--K", type=int, default=100)
    ap.add_argument("--sigma", type=float, default=1.5)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--variants", default="cycles8,kgstar,aopt,aopt-phi,window10,einfo,quicksort")
    ap.add_argument("--write-docs", action="store_true", help="replace the table between the recovery-variants-K "
                    "markers of docs/zelo_simulate-ranking-bounds.md (module docstring)")
    a = ap.parse_args()
    names = a.variants.split(",")
    for n in names:
        if n not in VARIANTS and n != "cycles8":
            ap.error(f"unknown variant {n!r}; expected cycles8 or one of {', '.join(VARIANTS)}")
    K, sigma, T = a.K, a.sigma, a.trials
    base = recovery(K, sigma, 4, T, seed=a.seed, strategy="adaptive", design=True)
    lines = [f"`python bench/recovery_adaptive_variants.py --K {K} --sigma {sigma:g} --trials {T} --seed {a.seed}` — "
             f"K = {K}, σ = {sigma:g}, {T} trials, seed {a.seed}: τ against the dense fit; paired difference from "
             "the default adaptive strategy ± standard error; at the true scores: information, adjacent / "
             "weighted variance", "",
             "| variant | τ | − default (± SE) | information | adjacent variance | weighted variance |",
             "|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)

    def line(name: str, tau: np.ndarray, info: float, adj: float, wv: float) -> None:
        d = tau - base["tau_dense"]
        lines.append(f"| {name} | {tau.mean():.3f} | {d.mean():+.3f} (± {d.std(ddof=1) / np.sqrt(T):.3f}) | "
                     f"{info:.1f} | {adj:.3f} | {wv:.3f} |")
        print(lines[-1], flush=True)

    line("default (discordance)", base["tau_dense"], base["information"].mean(), base["adjacent_variance"].mean(),
         base["weighted_variance"].mean())
    for n in names:
        if n == "cycles8":
            r = recovery(K, sigma, 8, T, seed=a.seed, design=True)
            line("8 random cycles", r["tau_dense"], r["information"].mean(), r["adjacent_variance"].mean(),
                 r["weighted_variance"].mean())
            continue
        pa, pb, truth, xd, xs = variant_design(n, K, sigma, T, a.seed)
        dv = design_variances(truth, pa, pb, VOTES)
        tau = np.array([_kendall(xs[t], xd[t]) for t in range(T)])
        line(n, tau, dv["information"].mean(), dv["adjacent"].mean(), dv["weighted"].mean())
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    print(f"{Path(__file__).name}: {sum(u.ru_utime + u.ru_stime for u in used):.0f} s CPU", file=sys.stderr)
    if a.write_docs:
        doc, mark = ROOT / "docs" / "zelo_simulate-ranking-bounds.md", f"recovery-variants-{K}"
        text = "\n".join(lines) + "\n"
        new, n_blocks = re.subn(rf"(<!-- {mark}:begin -->\n).*?(<!-- {mark}:end -->)",
                                lambda m: m.group(1) + text + m.group(2), doc.read_text(encoding="utf-8"), flags=re.S)
        if n_blocks != 1:
            sys.exit(f"docs/{doc.name} has no {mark} markers")
        doc.write_text(new, encoding="utf-8")


if __name__ == "__main__":
    main()
