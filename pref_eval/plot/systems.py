"""Runs ordered by a measure, with confidence intervals and significance groups.

For each run, the mean of its per-query values over the paired query set and
a confidence interval of that mean:

* ``t`` (default): ``mean ± t_{n−1, 1−(1−c)/2} · s/√n``, the t quantile from
  :func:`pref_eval.stats.special.t_quantile` (no scipy import; equal to
  ``scipy.stats.t.interval`` within 1e-12, ``tests/test_plot.py``);
* ``bootstrap``: the BCa interval (2,000 resamples) of
  ``scipy.stats.bootstrap`` with a seeded generator.

Significance groups are a compact letter display (Piepho 2004, "An
algorithm for a letter-based representation of all-pairwise comparisons",
J. Comput. Graph. Stat. 13(2)): two runs share a letter exactly when their
paired test (``zelo_compare``'s tests, corrected over all pairs) does *not*
find them different at level ``alpha``. Letters are the maximal cliques of
the "not significantly different" graph, named a, b, c, … in the order of
the best run they contain.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import UsageError, option_name
from .axes import LINE, TICK_PAD, Scale, bottom_axis, frame, grid_boxes, left_labels, shorten
from .axes import title as axes_title
from .canvas import TAB, Canvas
from .fonts import TextMeasure
from .ticks import nonsingular, padded

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import pandas as pd

    from .data import WideTable

MARKER_R = 3.5  # points: matplotlib's default marker (6 pt across) with its 1 pt edge
CAP = 3.0  # half the length of an interval's end caps (capsize 3), points


def mean_intervals(wide: WideTable | pd.DataFrame, confidence: float, method: str,
                   seed: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(means, low, high)`` arrays over the columns of ``wide`` (queries × runs)."""
    if not 0 < confidence < 1:
        raise UsageError(f"{option_name('confidence')} must be between 0 and 1")
    x = wide.to_numpy(dtype=float)
    n = x.shape[0]
    means = x.mean(axis=0)
    if n < 2:
        return means, np.full_like(means, np.nan), np.full_like(means, np.nan)
    if method == "t":
        from ..stats.special import t_quantile

        sem = x.std(axis=0, ddof=1) / np.sqrt(n)
        tail = (1 - confidence) / 2
        with np.errstate(invalid="ignore", divide="ignore"):
            low = means + sem * t_quantile(tail, float(n - 1))
            high = means + sem * t_quantile(1 - tail, float(n - 1))
        # a run with identical values on every query has a zero-width interval
        low = np.where(sem == 0, means, low)
        high = np.where(sem == 0, means, high)
        return means, np.asarray(low), np.asarray(high)
    if method == "bootstrap":
        from scipy import stats

        rng = np.random.default_rng(seed)
        res = stats.bootstrap((x,), np.mean, axis=0, confidence_level=confidence, n_resamples=2000,
                              method="BCa", random_state=rng, vectorized=True)
        low = np.where(np.isfinite(res.confidence_interval.low), res.confidence_interval.low, means)
        high = np.where(np.isfinite(res.confidence_interval.high), res.confidence_interval.high, means)
        return means, low, high
    raise UsageError(f"{option_name('ci')} must be t or bootstrap, not {method!r}")


def significant_matrix(records: pd.DataFrame | Mapping[str, Sequence[Any]], runs: list[str],
                       alpha: float) -> np.ndarray:
    """Boolean R×R: True where the pair's corrected p-value is below ``alpha``."""
    idx = {r: i for i, r in enumerate(runs)}
    sig = np.zeros((len(runs), len(runs)), dtype=bool)
    for a, b, p in zip(records["run_a"], records["run_b"], records["p_adjusted"], strict=False):
        if a in idx and b in idx and p is not None and np.isfinite(p) and p < alpha:
            sig[idx[a], idx[b]] = sig[idx[b], idx[a]] = True
    return sig


def letter_groups(sig: np.ndarray, order: np.ndarray) -> list[str]:
    """Compact letter display: letters per run (index into ``sig``).

    ``order``: run indices best first. Every maximal clique of the
    not-different graph gets a letter; two runs share a letter iff they are
    not significantly different. Bron–Kerbosch with pivoting (runs are few).
    """
    r = sig.shape[0]
    same = ~sig
    np.fill_diagonal(same, True)
    nbrs = [set(np.flatnonzero(same[i])) - {i} for i in range(r)]
    cliques: list[set[int]] = []

    def expand(cur: set[int], cand: set[int], excl: set[int]) -> None:
        if not cand and not excl:
            cliques.append(cur)
            return
        pivot = max(cand | excl, key=lambda u: len(nbrs[u] & cand))
        for v in list(cand - nbrs[pivot]):
            expand(cur | {v}, cand & nbrs[v], excl & nbrs[v])
            cand = cand - {v}
            excl = excl | {v}

    expand(set(), set(range(r)), set())
    rank = np.empty(r, dtype=int)
    rank[np.asarray(order)] = np.arange(r)
    cliques.sort(key=lambda c: sorted(rank[list(c)].tolist()))
    letters = [""] * r
    for k, c in enumerate(cliques):
        ch = _letter(k)
        for v in c:
            letters[v] += ch
    return letters


def _letter(k: int) -> str:
    s = ""
    k += 1
    while k:
        k, rem = divmod(k - 1, 26)
        s = chr(ord("a") + rem) + s
    return s


def draw_systems(runs: list[str], means: np.ndarray, low: np.ndarray, high: np.ndarray, letters: list[str],
                 measure: str,
                 n_queries: int, legend: str, size: tuple[float, float], title: str | None = None,
                 measure_text: TextMeasure | None = None) -> Canvas:
    """Horizontal plot: runs sorted by mean (best on top), CI bars, letters at the right.

    ``size`` is (width, height) in inches. The x axis spans the intervals (or the means where an
    interval is undefined) with 8 % of the span added on each side; run k (0 = best) is drawn at
    k on a y axis spanning [0, R − 1] with 5 % margins."""
    canvas = Canvas(size[0] * 72.0, size[1] * 72.0, measure_text)
    order = np.argsort(-np.asarray(means), kind="stable")
    r = len(runs)
    m, lo, hi = means[order], low[order], high[order]
    lo = np.where(np.isfinite(lo), lo, m)
    hi = np.where(np.isfinite(hi), hi, m)
    fs = 10.0 if r <= 12 else max(5.0, 10 * 12 / r)
    names = shorten(canvas, [runs[i] for i in order], fs)
    xmin, xmax = nonsingular(float(np.nanmin(lo)), float(np.nanmax(hi)))  # flat data: ±5 % of the value
    span = xmax - xmin
    widest_letters = max((canvas.text_width(t, fs, "mono-bold") for t in letters), default=0.0)
    box = grid_boxes(canvas.width, canvas.height, left=canvas.measure.widest(names, fs) + 14.4,
                     right=widest_letters + 18.0, bottom=2 * LINE * 10 + LINE * 7 + 18.0,
                     top=LINE * 11 + 10.8)[0]
    if r > 1:  # rows closer than a line of the labels: smaller labels and letters (65 runs overlapped)
        fs = min(fs, (box.y1 - box.y0) / 1.1 / (r - 1) / LINE)
    with canvas.group("panel-1"):
        xs = bottom_axis(canvas, box, xmin - 0.08 * span, xmax + 0.08 * span,
                         f"mean {measure} over {n_queries} queries", grid=0.3)
        ys = Scale(*padded(0.0, float(max(r - 1, 0))), box.y0, box.y1)
        rows = [ys(k) for k in range(r)]
        for k, y in enumerate(rows):
            a, b = xs(lo[k]), xs(hi[k])
            canvas.line([(a, y), (b, y)], color=TAB["blue"], width=1.5, role="interval")
            for c in (a, b):
                canvas.line([(c, y - CAP), (c, y + CAP)], color=TAB["blue"], width=1.5, role="cap")
            canvas.circle(xs(m[k]), y, MARKER_R, TAB["blue"], role="marker")
        frame(canvas, box)
        left_labels(canvas, box, rows, names, fs)
        for k, y in enumerate(rows):
            canvas.text(box.x1 + TICK_PAD, y, letters[order[k]], fs, va="center", role="letters", face="mono-bold")
        axes_title(canvas, box, title or f"runs by {measure}", 11.0)
    canvas.text(canvas.width / 2, canvas.height * 0.98, legend, 7.0, ha="center", va="bottom", role="legend-label")
    return canvas
