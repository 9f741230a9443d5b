"""Benchmark of the zELO fit.  Run:  python bench/bench_zelo.py [--quick]

Synthetic data as in the issue: per query 100 documents with true BT scores
N(0, sigma^2), 4 random cycles (400 pairs), each pair judged by 3 Bernoulli
votes (score = mean). "zbench" is zbench's iteration as reproduced bit for bit
by pref_eval.zelo.zbench_compat (proved byte-identical to zbench's output in
tests/test_zelo_zbench_compat.py), run per query on one core.
Log-likelihood: l(x) = sum_{i != j} W_ij log sigma(x_i - x_j) without diagonal
or prior; for the --prior 0 fit, the supremum (within-SCC likelihood; pairs
between SCCs contribute their limit 0).
"""
from __future__ import annotations

import os
import sys
import time
from functools import partial

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from pref_eval.zelo.fit import build_edges, fit_bt  # noqa: E402
from pref_eval.zelo.zbench_compat import zbench_fit, zbench_win_matrix  # noqa: E402


def gen(Q, N, cycles, sigma, seed=0, votes=3):
    from pref_eval.zelo.simulate import cycle_judgments

    return cycle_judgments(Q, N, cycles, sigma, seed, votes)


def loglik_per_query(sizes, q, a, b, s, x):
    e = build_edges(sizes, q, a, b, s)
    d = x[e.u] - x[e.v]
    ll = -(e.wuv * np.logaddexp(0, -d) + e.wvu * np.logaddexp(0, d))
    qof = np.repeat(np.arange(len(sizes)), sizes)
    return np.bincount(qof[e.u], ll, minlength=len(sizes))


def timed(f, repeat=3):
    best = None
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return best, out


def main():
    quick = "--quick" in sys.argv
    Q = 200 if quick else 1000
    fit_bt(*gen(10, 20, 4, 1.0))  # warm imports
    rows = []
    for sigma in (1.5, 0.6):
        data = gen(Q, 100, 4, sigma, seed=1)
        sizes, q, a, b, s = data
        t0 = time.perf_counter()
        xz = np.zeros(len(q) // 4)
        its = []
        for k in range(Q):
            m = slice(k * 400, (k + 1) * 400)
            W = zbench_win_matrix(100, a[m], b[m], s[m])
            x, losses, _ = zbench_fit(W)
            xz[k * 100:(k + 1) * 100] = x
            its.append(len(losses))
        tz = time.perf_counter() - t0
        llz = loglik_per_query(sizes, q, a, b, s, xz)
        rows.append((sigma, "zbench iteration (compat)", tz, float(np.mean(its)), 0.0, "-"))
        for prior, se in ((0.0, False), (0.0, True), (0.5, False), (0.5, True)):
            t, r = timed(partial(fit_bt, sizes, q, a, b, s, prior=prior, compute_se=se))
            ll = r.loglik
            diff = ll - llz
            ge = f"{int(np.sum(diff >= -1e-9))}/{Q}"
            rows.append((sigma, f"pref_eval prior={prior:g} se={'yes' if se else 'no'}", t,
                         float(r.iterations.mean()), float(np.median(diff)), ge))
    Qb = 1000 if quick else 5300
    data = gen(Qb, 100, 4, 1.5, seed=2)
    for prior, se in ((0.5, False), (0.5, True), (0.0, False)):
        t, r = timed(partial(fit_bt, *data, prior=prior, compute_se=se), repeat=1)
        rows.append((1.5, f"{Qb} queries: pref_eval prior={prior:g} se={'yes' if se else 'no'}", t,
                     float(r.iterations.mean()), float("nan"), "-"))
    print(f"# {Q} queries x 100 docs x 4 cycles (3 votes per pair), one core; times are best of 3 (zbench: 1 run)")
    print("| sigma | fit | seconds | mean iterations | median loglik gain vs zbench | queries with loglik >= zbench |")
    print("|---|---|---|---|---|---|")
    for sg, name, t, it, d, ge in rows:
        dd = "-" if np.isnan(d) or name.startswith("zbench") else f"{d:+.4f}"
        print(f"| {sg:g} | {name} | {t:.3f} | {it:.1f} | {dd} | {ge} |")


if __name__ == "__main__":
    main()
