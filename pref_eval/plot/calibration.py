"""Reliability diagram and per-bucket five-level distribution (``zelo_plot calibration``).

Input: the ``calibration`` records of ``zelo_agree -o jsonl``: per bucket
``bucketNN.predicted`` (mean of the judge's mu), ``.observed`` (mean of the
reference's score), ``.share_0`` ... ``.share_1`` (the reference's five
levels) and ``n``. Left panel: observed against predicted, one point per
bucket (area ~ count), the diagonal = perfect calibration, ECE in the legend.
Right panel: for each bucket (x = its mean mu), the stacked shares of the
reference's levels y = 0, 0 < y < 1/2, 1/2, 1/2 < y < 1, 1 (the zELO note's
Figures 5-7).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import math

import numpy as np

from ..errors import UsageError, command_running, option_name
from .axes import (FRAME_WIDTH, LABEL_PAD, LINE, TICK_LENGTH, TICK_PAD, LegendEntry, Scale, bottom_axis, dashed, frame,
                   grid_boxes, left_axis, legend, legend_size)
from .axes import title as axes_title
from .canvas import TAB, Canvas
from .colormaps import colormap_table, hex_color, lookup
from .fonts import TextMeasure
from .ticks import padded

LEVELS = ("share_0", "share_below_half", "share_half", "share_above_half", "share_1")
LABELS = ("y = 0", "0 < y < ½", "y = ½", "½ < y < 1", "y = 1")
BUCKET = r"^bucket(\d+)\.(\w+)$"  # compiled on use (re caches it)


@dataclass
class CalibrationData:
    judge_a: str
    judge_b: str
    predicted: np.ndarray
    observed: np.ndarray
    n: np.ndarray
    shares: np.ndarray
    ece: float


def select_calibration(records: list[dict], judge: str | None, where: str) -> CalibrationData:
    """The buckets of one (reference, judge) pair; ``judge`` picks ``judge_b`` when there are several."""
    cal = [r for r in records if r["level"] == "calibration"]
    pairs = list(dict.fromkeys((r["judge_a"], r["judge_b"]) for r in cal))
    if not pairs:
        raise UsageError(f"{where}: no calibration records (run zelo_agree with -l calibration; "
                         "--calibration always for a judge with scores 0, 1/2, 1 only)" if command_running() else
                         f"{where}: no calibration records (run agree with 'calibration' among its levels; "
                         "calibration='always' for a judge with scores 0, 1/2, 1 only)")
    if judge is not None:
        pairs = [p for p in pairs if p[1] == judge]
        if not pairs:
            raise UsageError(f"{where}: no calibration records for judge {judge!r}")
    if len(pairs) > 1:
        raise UsageError(f"{where}: calibration of several judges ({', '.join(p[1] for p in pairs)}); "
                         f"choose one with {option_name('judge')}")
    a, b = pairs[0]
    buckets: dict[int, dict[str, float]] = {}
    counts: dict[int, int] = {}
    ece = float("nan")
    for r in cal:
        if (r["judge_a"], r["judge_b"]) != (a, b):
            continue
        if r["statistic"] == "ece":
            ece = r["value"]
        m = re.match(BUCKET, r["statistic"])
        if m:
            k = int(m.group(1))
            buckets.setdefault(k, {})[m.group(2)] = r["value"]
            counts[k] = int(r["n"])
    keys = sorted(buckets)
    need = ("predicted", "observed", *LEVELS)
    for k in keys:
        lack = [x for x in need if x not in buckets[k]]
        if lack:
            raise UsageError(f"{where}: bucket {k} lacks {', '.join(lack)}")
    return CalibrationData(
        a, b,
        np.array([buckets[k]["predicted"] for k in keys]),
        np.array([buckets[k]["observed"] for k in keys]),
        np.array([counts[k] for k in keys]),
        np.array([[buckets[k][x] for x in LEVELS] for k in keys]),
        ece,
    )


def level_colours() -> list[str]:
    """The five levels' colours: matplotlib's RdBu at 0.1, 0.3, 0.5, 0.7, 0.9, the middle (ties) grey."""
    table = colormap_table("RdBu")
    colours = [hex_color(lookup(table, v)) for v in (0.1, 0.3, 0.5, 0.7, 0.9)]
    colours[2] = "#bbbbbb"
    return colours


def draw_calibration(data: CalibrationData, size: tuple[float, float], title: str | None = None,
                     measure: TextMeasure | None = None) -> Canvas:
    """Two panels: reliability diagram and stacked five-level shares per bucket.

    Left: x = predicted μ, y = observed mean, both on [−0.02, 1.02]; the dashed diagonal; the buckets
    joined by a line, each a point of area 20 + 180·n/max n square points. Right: bucket k a bar of
    width 0.85 centred at k, y on [0, 1], the shares stacked from level 0 up."""
    canvas = Canvas(size[0] * 72.0, size[1] * 72.0, measure)
    colours = level_colours()
    nb = len(data.n)
    ticks = [f"{p:.2f}" for p in data.predicted]
    entries = [LegendEntry("patch", c, lab) for c, lab in zip(colours, LABELS, strict=True)]
    leg_w, _ = legend_size(canvas, entries, 8.0)
    y_room = TICK_LENGTH + TICK_PAD + canvas.measure.width("0.0", 10.0) + LABEL_PAD + LINE * 10 + 6.0
    x_room = TICK_LENGTH + TICK_PAD + max(LINE * 10, canvas.measure.widest(ticks, 7.0)) + LABEL_PAD + LINE * 10
    boxes = grid_boxes(canvas.width, canvas.height, left=y_room, right=leg_w + 10.0, bottom=x_room + 6.0,
                       top=LINE * 12 + LINE * 12 + 12.0, ncols=2, gap=y_room + 14.0)
    left, right = boxes
    with canvas.group("panel-1"):
        xs = bottom_axis(canvas, left, -0.02, 1.02, f"predicted μ ({data.judge_b})")
        ys = left_axis(canvas, left, -0.02, 1.02, f"observed mean ({data.judge_a})")
        dashed(canvas, (xs(0.0), ys(0.0)), (xs(1.0), ys(1.0)), "#888888", 1.0, role="diagonal")
        pts = [(xs(float(p)), ys(float(o))) for p, o in zip(data.predicted, data.observed, strict=True)]
        if len(pts) > 1:
            canvas.line(pts, color=TAB["blue"], width=1.0, role="bucket-line")
        nmax = max(float(data.n.max()), 1.0) if nb else 1.0
        for (x, y), n in zip(pts, data.n, strict=True):
            canvas.circle(x, y, math.sqrt(20 + 180 * float(n) / nmax) / 2, TAB["blue"], role="marker")
        frame(canvas, left)
        axes_title(canvas, left, "reliability diagram", 12.0)
        legend(canvas, left, [LegendEntry("dashed", "#888888", "perfect calibration"),
                              LegendEntry("marker", TAB["blue"], f"buckets (ECE {data.ece:.3f})",
                                          math.sqrt(200) / 2)], 8.0, loc="upper left")
    with canvas.group("panel-2"):
        lo, hi = padded(-0.425, nb - 1 + 0.425) if nb else (-0.5, 0.5)
        bx = Scale(lo, hi, right.x0, right.x1)
        by = left_axis(canvas, right, 0.0, 1.0, f"share of {data.judge_a}'s levels")
        bottom = np.zeros(nb)
        for j, colour in enumerate(colours):
            for k in range(nb):
                h = float(data.shares[k, j])
                if h > 0:
                    canvas.rect(bx(k - 0.425), by(bottom[k] + h), bx(k + 0.425) - bx(k - 0.425),
                                by(bottom[k]) - by(bottom[k] + h), fill=colour, role=f"bar level-{j}")
            bottom += data.shares[:, j]
        for k, text in enumerate(ticks):
            x = bx(k)
            canvas.line([(x, right.y1), (x, right.y1 + TICK_LENGTH)], width=FRAME_WIDTH, role="tick")
            canvas.text(x, right.y1 + TICK_LENGTH + TICK_PAD, text, 7.0, ha="right", va="center", rotation=90,
                        role="tick-label")
        canvas.text((right.x0 + right.x1) / 2, right.y1 + x_room - LINE * 10, f"bucket (mean μ of {data.judge_b})",
                    10.0, ha="center", va="top", role="axis-label")
        frame(canvas, right)
        axes_title(canvas, right, "reference's distribution per bucket", 12.0)
        legend(canvas, right, entries, 8.0, loc="outside right")
    heading = title or f"calibration of {data.judge_b} against {data.judge_a}"
    canvas.text(canvas.width / 2, 0.02 * canvas.height, heading, 12.0, ha="center", va="top", role="suptitle")
    return canvas
