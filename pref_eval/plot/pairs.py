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

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .axes import FRAME_WIDTH, LINE, TICK_LENGTH, TICK_PAD, Box, colorbar, frame, grid_boxes, left_labels
from .axes import shorten
from .axes import title as axes_title
from .canvas import BLACK, WHITE, Canvas
from .colormaps import colormap_table, hex_color, lookup
from .fonts import CAP_HEIGHT, TextMeasure

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import pandas as pd

NAN_GREY = "#eeeeee"

VALUES = ("p_adjusted", "p_value", "mean_diff")


def pair_matrix(records: pd.DataFrame | Mapping[str, Sequence[Any]], value: str) -> tuple[list[str], np.ndarray]:
    """``(runs, M)``: runs best first, M[A, B] as described above.

    ``records``: columns ``run_a``, ``run_b``, ``mean_diff`` (optional) and ``value`` (a DataFrame or
    ``{name: list}``). Runs are ordered by the row sums of the mean differences (A − B summed over B,
    the order of the runs' means on a paired query set), best first; ties keep the order of first
    appearance.
    """
    run_a = [str(r) for r in records["run_a"]]
    run_b = [str(r) for r in records["run_b"]]
    first = list(dict.fromkeys(run_a + run_b))
    pos = {r: i for i, r in enumerate(first)}
    score = np.zeros(len(first))
    d = np.asarray(records["mean_diff"] if "mean_diff" in records else np.zeros(len(run_a)), dtype=float)
    d = np.where(np.isfinite(d), d, 0.0)
    np.add.at(score, np.array([pos[r] for r in run_a], dtype=int), d)
    np.add.at(score, np.array([pos[r] for r in run_b], dtype=int), -d)
    runs = [first[i] for i in np.argsort(-score, kind="stable")]
    idx = {r: i for i, r in enumerate(runs)}
    m = np.full((len(runs), len(runs)), np.nan)
    ia = np.array([idx[r] for r in run_a], dtype=int)
    ib = np.array([idx[r] for r in run_b], dtype=int)
    v = np.asarray(records[value], dtype=float)
    m[ia, ib] = v
    m[ib, ia] = -v if value == "mean_diff" else v
    if value == "mean_diff":
        np.fill_diagonal(m, 0.0)
    return runs, m


def draw_pairs(runs: list[str], m: np.ndarray, value: str, alpha: float, measure: str,
               test: str, size: tuple[float, float], title: str | None = None,
               pvals: np.ndarray | None = None, measure_text: TextMeasure | None = None) -> Canvas:
    """Annotated heatmap; ``pvals`` (same shape) marks significant cells for ``mean_diff``.

    ``size`` is (width, height) in inches. Cells are square; p-values are coloured by matplotlib's
    viridis on [0, 1], mean differences by RdBu on [−L, L], L = the largest |difference| (1 if none);
    never-compared cells light grey. A colour bar as tall as the heatmap is on its right."""
    canvas = Canvas(size[0] * 72.0, size[1] * 72.0, measure_text)
    k = len(runs)
    if value == "mean_diff":
        lim = float(np.nanmax(np.abs(m))) if np.isfinite(m).any() else 1.0
        lim = lim if lim > 0 else 1.0
        table, vmin, vmax = colormap_table("RdBu"), -lim, lim
        label = f"mean {measure}: row − column"
    else:
        table, vmin, vmax = colormap_table("viridis"), 0.0, 1.0
        label = f"{'corrected ' if value == 'p_adjusted' else ''}p-value ({test})"
    marks = pvals if pvals is not None else (m if value != "mean_diff" else None)
    runs = shorten(canvas, runs, 10.0)
    name_w = canvas.measure.widest(runs, 10.0) if k <= 40 else 0.0
    box = grid_boxes(canvas.width, canvas.height, left=name_w + 18.0, right=68.4,
                     bottom=name_w * 0.71 + 21.6, top=LINE * 10 + 14.4)[0]
    side = min(box.x1 - box.x0, box.y1 - box.y0)
    cx, cy = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
    sq = Box(cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
    cell = side / max(k, 1)
    fs = 9.0 if k <= 8 else 6.0 if k <= 20 else 0.0
    with canvas.group("panel-1"):
        for i in range(k):
            for j in range(k):
                v = m[i, j]
                rgb = lookup(table, (v - vmin) / (vmax - vmin)) if np.isfinite(v) else None
                canvas.rect(sq.x0 + j * cell, sq.y0 + i * cell, cell, cell, fill=hex_color(rgb) if rgb else NAN_GREY,
                            role="cell")
        if fs:
            for i in range(k):
                for j in range(k):
                    if i == j or not np.isfinite(m[i, j]):
                        continue
                    star = "*" if marks is not None and np.isfinite(marks[i, j]) and marks[i, j] < alpha else ""
                    r, g, b = lookup(table, (m[i, j] - vmin) / (vmax - vmin))
                    lum = 0.299 * r + 0.587 * g + 0.114 * b
                    canvas.text(sq.x0 + (j + 0.5) * cell, sq.y0 + (i + 0.5) * cell, f"{m[i, j]:.3g}{star}", fs,
                                ha="center", va="center", color=BLACK if lum > 0.5 else WHITE, role="cell-label")
        frame(canvas, sq)
        if k <= 40:
            centres = [sq.y0 + (i + 0.5) * cell for i in range(k)]
            left_labels(canvas, sq, centres, runs, 10.0)
            y = sq.y1 + TICK_LENGTH + TICK_PAD
            drop = CAP_HEIGHT * 10.0 * math.sin(math.radians(45))  # the rotated label's top-right at the tick
            for j, name in enumerate(runs):
                x = sq.x0 + (j + 0.5) * cell
                canvas.line([(x, sq.y1), (x, sq.y1 + TICK_LENGTH)], width=FRAME_WIDTH, role="tick")
                canvas.text(x, y + drop, name, 10.0, ha="right", rotation=45, role="column-label")
        axes_title(canvas, sq, title or f"{measure}: pairwise {value.replace('_', ' ')} ({test}; * p < {alpha:g})")
    with canvas.group("colorbar"):
        bx0 = sq.x1 + 0.04 * side
        colorbar(canvas, Box(bx0, sq.y0, bx0 + 0.05 * side, sq.y1),
                 lambda v: hex_color(lookup(table, (v - vmin) / (vmax - vmin))), vmin, vmax, label)
    return canvas
