"""Heatmap of pairwise comparisons between runs.

Cell (row A, column B) shows, for one measure and one test of
``zelo_compare`` (or the same computed here with :func:`pref_eval.stats.compare`):

* ``p_adjusted`` (default) or ``p_value``: symmetric; darker = smaller;
  cells below ``alpha`` are marked ``*``;
* ``mean_diff``: the mean over queries of A − B (for a preference measure,
  the mean preference of A over B); antisymmetric, diverging colours
  centred on 0.
"""
from __future__ import annotations

from .layout import line_height, set_margins, widest

import numpy as np

VALUES = ("p_adjusted", "p_value", "mean_diff")


def pair_matrix(records, value: str) -> tuple[list[str], np.ndarray]:
    """``(runs, M)``: runs best first, M[A, B] as described above.

    Runs are ordered by the row sums of the mean differences (A − B summed over B, the order of
    the runs' means on a paired query set), best first; ties keep the order of first appearance.
    """
    first = list(dict.fromkeys(list(records["run_a"].astype(str)) + list(records["run_b"].astype(str))))
    pos = {r: i for i, r in enumerate(first)}
    score = np.zeros(len(first))
    d = records["mean_diff"].astype(float).to_numpy() if "mean_diff" in records else np.zeros(len(records))
    d = np.where(np.isfinite(d), d, 0.0)
    np.add.at(score, records["run_a"].astype(str).map(pos).to_numpy(), d)
    np.add.at(score, records["run_b"].astype(str).map(pos).to_numpy(), -d)
    runs = [first[i] for i in np.argsort(-score, kind="stable")]
    idx = {r: i for i, r in enumerate(runs)}
    m = np.full((len(runs), len(runs)), np.nan)
    ia = records["run_a"].astype(str).map(idx).to_numpy()
    ib = records["run_b"].astype(str).map(idx).to_numpy()
    v = records[value].astype(float).to_numpy()
    m[ia, ib] = v
    m[ib, ia] = -v if value == "mean_diff" else v
    if value == "mean_diff":
        np.fill_diagonal(m, 0.0)
    return runs, m


def draw_pairs(plt, runs: list[str], m: np.ndarray, value: str, alpha: float, measure: str,
               test: str, size: tuple[float, float], title: str | None = None,
               pvals: np.ndarray | None = None):
    """Annotated heatmap; ``pvals`` (same shape) marks significant cells for ``mean_diff``."""
    fig, ax = plt.subplots(figsize=size)
    if value == "mean_diff":
        lim = np.nanmax(np.abs(m)) if np.isfinite(m).any() else 1.0
        lim = lim if lim > 0 else 1.0
        cmap = plt.get_cmap("RdBu").with_extremes(bad="#eeeeee")
        im = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, vmin=-lim, vmax=lim)
        label = f"mean {measure}: row − column"
    else:
        cmap = plt.get_cmap("viridis").with_extremes(bad="#eeeeee")
        im = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, vmin=0.0, vmax=1.0)
        label = f"{'corrected ' if value == 'p_adjusted' else ''}p-value ({test})"
    marks = pvals if pvals is not None else (m if value != "mean_diff" else None)
    k = len(runs)
    fs = 9 if k <= 8 else 6 if k <= 20 else 0
    if fs:
        for i in range(k):
            for j in range(k):
                if i == j or not np.isfinite(m[i, j]):
                    continue
                star = "*" if marks is not None and np.isfinite(marks[i, j]) and marks[i, j] < alpha else ""
                txt = f"{m[i, j]:.3g}{star}"
                rgba = im.cmap(im.norm(m[i, j]))
                lum = 0.299 * rgba[0] + 0.587 * rgba[1] + 0.114 * rgba[2]
                ax.text(j, i, txt, ha="center", va="center", fontsize=fs,
                        color="black" if lum > 0.5 else "white")
    name_w = 0.0
    if k <= 40:
        ax.set_xticks(range(k), runs, rotation=45, ha="right")
        ax.set_yticks(range(k), runs)
        name_w = widest(runs, 10)
    # margins from the label sizes (no layout engine: it would measure every label in an extra pass);
    # set before the colorbar, which takes its room from the axes
    set_margins(fig, left=name_w + 0.25, right=0.95, bottom=name_w * 0.71 + 0.3, top=line_height(10) + 0.2)
    # the colorbar beside the (square) heatmap, as tall as it
    fig.colorbar(im, cax=ax.inset_axes((1.04, 0.0, 0.05, 1.0)), label=label)
    ax.set_title(title or f"{measure}: pairwise {value.replace('_', ' ')} ({test}; * p < {alpha:g})",
                 fontsize=10)
    return fig
