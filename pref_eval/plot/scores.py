"""zELO score distributions with confidence intervals.

Input: a ``zelo_fit`` score file (TSV with the header ``qid docno score se``,
more columns allowed). For each selected query, the documents are drawn
sorted by score with the interval ``score ± z·se``, z = Φ⁻¹(1 − (1−c)/2)
(c = ``confidence``, default 0.95, so z ≈ 1.96: the Wald interval from the
observed Fisher information that ``zelo_fit`` reports). A document whose
SE is ``nan`` (e.g. ``--compat zbench``, or a singleton component under
``--prior 0``) is drawn as a point without an interval.
"""
from __future__ import annotations


import numpy as np

from ..errors import InputError, UsageError
from .layout import line_height, set_margins, widest


def read_scores_with_se(path: str):
    """``{qid: (docnos, scores, ses)}`` from a zELO score TSV, queries in file order."""
    from ..io.textfile import display_name
    from ..io.zelo_scores import read_zelo_score_table

    out = read_zelo_score_table(path)
    if not out:
        raise InputError(display_name(path), 0, "no score rows after the header")
    return out


def select_queries(available: list[str], wanted: tuple[str, ...], limit: int) -> list[str]:
    """The queries to draw: ``wanted`` (checked), else the first ``limit``."""
    if wanted:
        missing = [q for q in wanted if q not in available]
        if missing:
            raise UsageError(f"query {missing[0]!r} is not in the scores file")
        return list(wanted)
    return available[:limit]


def normal_quantile(p: float) -> float:
    """Φ⁻¹(p) from the standard library (``statistics.NormalDist``; equal to ``scipy.stats.norm.ppf``
    within a few units in the last place, and scipy.stats is not imported for one number: issue #13)."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)


def draw_scores(plt, data, queries: list[str], confidence: float, top: int | None,
                size: tuple[float, float], title: str | None = None):
    """One panel per query: documents sorted by score, intervals as bars."""
    if not 0 < confidence < 1:
        raise UsageError("--confidence must be between 0 and 1")
    z = normal_quantile(1 - (1 - confidence) / 2)
    n = len(queries)
    fig, axes = plt.subplots(1, n, figsize=size, squeeze=False, sharex=False)
    label_w = 0.0
    for ax, qid in zip(axes[0], queries, strict=False):
        docs, xs, ses = data[qid]
        x = np.asarray(xs, dtype=float)
        se = np.asarray(ses, dtype=float)
        order = np.argsort(-x, kind="stable")
        if top:
            order = order[:top]
        xo, seo = x[order], se[order]
        y = np.arange(len(order))
        has = np.isfinite(seo)
        ax.errorbar(xo[has], y[has], xerr=z * seo[has], fmt="o", ms=3, lw=1, capsize=2,
                    color="tab:blue", label=f"score ± {z:.2f}·se")
        if (~has).any():
            ax.plot(xo[~has], y[~has], "o", ms=3, color="tab:red", label="no se")
        ax.axvline(0.0, color="grey", lw=0.5)
        if len(order) > 40:
            ax.invert_yaxis()
        if len(order) <= 40:
            names = [docs[i] for i in order]
            fs = 6 if len(order) > 20 else 8
            # the names as one text per row left of the axis, not as y ticks: a matplotlib Tick makes
            # two lines, two markers and two texts, and 40 of them per panel cost more than the data
            ax.set_yticks([])
            ax.set_ylim(len(order) - 0.5, -0.5)
            tr = ax.get_yaxis_transform()  # x in axes fraction, y in data
            for yi, name in zip(y, names, strict=True):
                ax.text(-0.015, yi, name, transform=tr, ha="right", va="center", fontsize=fs)
            label_w = max(label_w, widest(names, fs))
        else:
            ax.set_yticks([])
        ax.set_xlabel("zELO score")
        ax.set_title(f"query {qid} ({len(docs)} docs)", fontsize=10)
        ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(title or f"zELO scores with {confidence:.0%} intervals")
    # margins from the label sizes (no layout engine: it would measure every label in an extra pass)
    tick = 0.1 + label_w  # tick, pad and the document names left of each panel
    set_margins(fig, left=tick + 0.05, right=0.25, bottom=line_height(10, 2) + 0.2,
                top=line_height(12) + line_height(10) + 0.2, ncols=n, gap=tick + 0.3)
    return fig
