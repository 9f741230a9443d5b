"""Panels on a :class:`~pref_eval.plot.canvas.Canvas`: grid boxes, linear scales, frames, ticks, legends.

Sizes follow matplotlib's defaults so that the pictures look as before: frame and ticks 0.8 pt,
ticks 3.5 pt long outside the frame with labels 3.5 pt beyond them (10 pt), axis labels 4 pt
further (10 pt), panel titles 6 pt above the frame; legends in a rounded, light-grey frame with
matplotlib's paddings in units of the legend's font size (border 0.4, handle 2.0 long, 0.8 between
handle and text, 0.5 between rows, 0.5 from the panel's edge).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from .canvas import BLACK, LEGEND_EDGE, WHITE, Canvas
from .ticks import nice_ticks, tick_label

if TYPE_CHECKING:
    from collections.abc import Callable

FRAME_WIDTH = 0.8
TICK_LENGTH = 3.5
TICK_PAD = 3.5
LABEL_PAD = 4.0
TITLE_PAD = 6.0
LINE = 1.2  # line height in units of the font size
GRID = "#b0b0b0"


class Box(NamedTuple):
    """A rectangle in canvas points: left, top, right, bottom."""

    x0: float
    y0: float
    x1: float
    y1: float


class Scale(NamedTuple):
    """The linear map of data ``[lo, hi]`` onto canvas ``[p0, p1]``."""

    lo: float
    hi: float
    p0: float
    p1: float

    def __call__(self, v: float) -> float:
        return self.p0 + (v - self.lo) / (self.hi - self.lo) * (self.p1 - self.p0)


def grid_boxes(width: float, height: float, *, left: float, right: float, top: float, bottom: float,
               ncols: int = 1, gap: float = 0.0, nrows: int = 1, vgap: float = 0.0) -> list[Box]:
    """``ncols × nrows`` equal panels (row by row) with margins and gaps in points; margins larger than the
    canvas are shrunk proportionally so that the panels keep at least a fifth of each dimension."""
    horiz = left + right + gap * (ncols - 1)
    if horiz > 0.8 * width:
        s = 0.8 * width / horiz
        left, right, gap = left * s, right * s, gap * s
    vert = top + bottom + vgap * (nrows - 1)
    if vert > 0.8 * height:
        s = 0.8 * height / vert
        top, bottom, vgap = top * s, bottom * s, vgap * s
    w = (width - left - right - gap * (ncols - 1)) / ncols
    h = (height - top - bottom - vgap * (nrows - 1)) / nrows
    return [Box(left + i * (w + gap), top + r * (h + vgap), left + i * (w + gap) + w, top + r * (h + vgap) + h)
            for r in range(nrows) for i in range(ncols)]


LABEL_SHARE = 0.25  # a name label is at most this share of the canvas width


def shorten(canvas: Canvas, texts: Sequence[str], size: float, share: float = LABEL_SHARE,
            face: str = "sans") -> list[str]:
    """``texts`` each cut to its longest beginning that, followed by "…", is at most ``share`` of the canvas
    width wide at ``size`` points (the texts that fit are kept whole): a 200-character run name neither
    runs off the picture nor squeezes the panel."""
    limit = share * canvas.width
    out = []
    for t in texts:
        if canvas.text_width(t, size, face) <= limit:
            out.append(t)
            continue
        lo, hi = 0, len(t)  # the longest prefix t[:lo] with t[:lo] + "…" fitting
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if canvas.text_width(t[:mid] + "\u2026", size, face) <= limit:
                lo = mid
            else:
                hi = mid - 1
        out.append(t[:lo] + "\u2026")
    return out


def frame(canvas: Canvas, box: Box) -> None:
    canvas.rect(box.x0, box.y0, box.x1 - box.x0, box.y1 - box.y0, stroke=BLACK, width=FRAME_WIDTH, role="frame")


def bottom_axis(canvas: Canvas, box: Box, lo: float, hi: float, label: str, size: float = 10.0,
                grid: float = 0.0) -> Scale:
    """Ticks, tick labels and the axis label under ``box`` for data ``[lo, hi]``; the x scale.

    About one tick per five label heights of panel width (at least 3, at most 9); ``grid`` > 0 draws
    vertical grid lines of that width at the ticks (matplotlib's grid colour)."""
    scale = Scale(lo, hi, box.x0, box.x1)
    n = min(9, max(3, int((box.x1 - box.x0) / (5 * size))))
    while True:  # fewer ticks while neighbouring labels would touch (at least half a font size apart)
        values, decimals = nice_ticks(lo, hi, n, least=min(3, n))
        labels = [tick_label(v, decimals) for v in values]
        room = (box.x1 - box.x0) / (hi - lo) * (values[1] - values[0]) if len(values) > 1 else math.inf
        if n <= 2 or canvas.measure.widest(labels, size) + 0.5 * size <= room:
            break
        n -= 1
    y = box.y1
    if grid:
        for v in values:
            canvas.line([(scale(v), box.y0), (scale(v), box.y1)], color=GRID, width=grid, role="grid")
    for v in values:
        x = scale(v)
        canvas.line([(x, y), (x, y + TICK_LENGTH)], width=FRAME_WIDTH, role="tick")
        canvas.text(x, y + TICK_LENGTH + TICK_PAD, tick_label(v, decimals), size, ha="center", va="top",
                    role="tick-label")
    canvas.text((box.x0 + box.x1) / 2, y + TICK_LENGTH + TICK_PAD + LINE * size + LABEL_PAD, label, size,
                ha="center", va="top", role="axis-label")
    return scale


def left_labels(canvas: Canvas, box: Box, ys: Sequence[float], labels: Sequence[str], size: float) -> None:
    """Ticks left of ``box`` at the canvas heights ``ys``, labelled with ``labels`` (right-aligned)."""
    for y, text in zip(ys, labels, strict=True):
        canvas.line([(box.x0 - TICK_LENGTH, y), (box.x0, y)], width=FRAME_WIDTH, role="tick")
        canvas.text(box.x0 - TICK_LENGTH - TICK_PAD, y, text, size, ha="right", va="center", role="row-label")


def title(canvas: Canvas, box: Box, text: str, size: float = 10.0) -> None:
    canvas.text((box.x0 + box.x1) / 2, box.y0 - TITLE_PAD, text, size, ha="center", role="title")


class LegendEntry(NamedTuple):
    """``kind`` = ``errorbar`` (a horizontal interval with caps and a point), ``marker`` (a point of
    radius ``r``, 0: the legend's), ``dashed`` (a dashed line) or ``patch`` (a filled rectangle)."""

    kind: str
    color: str
    label: str
    r: float = 0.0


def legend_size(canvas: Canvas, entries: Sequence[LegendEntry], size: float) -> tuple[float, float]:
    """Width and height of the legend of ``entries`` in points."""
    text_w = max(canvas.text_width(e.label, size) for e in entries)
    row = max([LINE * size] + [2 * e.r for e in entries])
    return (2 * 0.4 * size + 2.0 * size + 0.8 * size + text_w,
            2 * 0.4 * size + len(entries) * row + (len(entries) - 1) * 0.5 * size)


def legend(canvas: Canvas, box: Box, entries: Sequence[LegendEntry], size: float, *, marker_r: float = 3.0,
           line_width: float = 1.0, cap: float = 2.0, loc: str = "lower right") -> None:
    """The legend of ``entries`` in ``box``'s lower right or upper left corner, or ``outside right``
    (right of the box, tops aligned)."""
    pad, handle, between, gap, edge = 0.4 * size, 2.0 * size, 0.8 * size, 0.5 * size, 0.5 * size
    row = max([LINE * size] + [2 * e.r for e in entries])
    w, h = legend_size(canvas, entries, size)
    if loc == "lower right":
        x0, y0 = box.x1 - edge - w, box.y1 - edge - h
    elif loc == "upper left":
        x0, y0 = box.x0 + edge, box.y0 + edge
    else:
        x0, y0 = box.x1 + edge, box.y0
    canvas.rect(x0, y0, w, h, fill=WHITE, stroke=LEGEND_EDGE, width=1.0, radius=0.2 * size, role="legend")
    for i, e in enumerate(entries):
        yc = y0 + pad + i * (row + gap) + row / 2
        hx0, hx1 = x0 + pad, x0 + pad + handle
        if e.kind == "errorbar":
            canvas.line([(hx0, yc), (hx1, yc)], color=e.color, width=line_width, role="legend-handle")
            for x in (hx0, hx1):
                canvas.line([(x, yc - cap), (x, yc + cap)], color=e.color, width=line_width, role="legend-handle")
        if e.kind == "dashed":
            dashed(canvas, (hx0, yc), (hx1, yc), e.color, line_width, role="legend-handle")
        elif e.kind == "patch":
            canvas.rect(hx0, yc - 0.35 * size, handle, 0.7 * size, fill=e.color, role="legend-handle")
        else:
            canvas.circle((hx0 + hx1) / 2, yc, e.r or marker_r, e.color, role="legend-handle")
        canvas.text(hx1 + between, yc, e.label, size, va="center", role="legend-label")


def dashed(canvas: Canvas, p0: tuple[float, float], p1: tuple[float, float], color: str, width: float,
           role: str = "dashed") -> None:
    """A dashed straight line: dashes 3.7 and gaps 1.6 line widths long (matplotlib's ``--``)."""
    length = math.hypot(p1[0] - p0[0], p1[1] - p0[1])
    on, off = 3.7 * width, 1.6 * width
    ux, uy = (p1[0] - p0[0]) / length, (p1[1] - p0[1]) / length
    t = 0.0
    while t < length:
        e = min(t + on, length)
        canvas.line([(p0[0] + ux * t, p0[1] + uy * t), (p0[0] + ux * e, p0[1] + uy * e)], color=color, width=width,
                    role=role)
        t = e + off


def left_axis(canvas: Canvas, box: Box, lo: float, hi: float, label: str, size: float = 10.0) -> Scale:
    """Ticks, tick labels and the turned axis label left of ``box`` for data ``[lo, hi]`` (upwards); the y scale."""
    scale = Scale(lo, hi, box.y1, box.y0)
    n = min(9, max(3, int((box.y1 - box.y0) / (3 * size))))
    values, decimals = nice_ticks(lo, hi, n)
    labels = [tick_label(v, decimals) for v in values]
    for v, text in zip(values, labels, strict=True):
        y = scale(v)
        canvas.line([(box.x0 - TICK_LENGTH, y), (box.x0, y)], width=FRAME_WIDTH, role="tick")
        canvas.text(box.x0 - TICK_LENGTH - TICK_PAD, y, text, size, ha="right", va="center", role="y-tick-label")
    x = box.x0 - TICK_LENGTH - TICK_PAD - canvas.measure.widest(labels, size) - LABEL_PAD
    canvas.text(x, (box.y0 + box.y1) / 2, label, size, ha="center", va="bottom", rotation=90, role="axis-label")
    return scale


def colorbar(canvas: Canvas, bar: Box, colors: Callable[[float], str], vmin: float, vmax: float, label: str,
             steps: int = 128) -> None:
    """A vertical colour bar in ``bar`` (``colors(v)`` → ``#rrggbb`` for v in [vmin, vmax], vmax on top), its
    frame, nice ticks with labels on the right and ``label`` turned 90° beyond them."""
    h = bar.y1 - bar.y0
    for s in range(steps):
        v = vmax - (s + 0.5) / steps * (vmax - vmin)
        canvas.rect(bar.x0, bar.y0 + s * h / steps, bar.x1 - bar.x0, h / steps + 0.05, fill=colors(v),
                    role="gradient")
    frame(canvas, bar)
    scale = Scale(vmin, vmax, bar.y1, bar.y0)
    values, decimals = nice_ticks(vmin, vmax, 6)
    labels = [tick_label(v, decimals) for v in values]
    for v, text in zip(values, labels, strict=True):
        canvas.line([(bar.x1, scale(v)), (bar.x1 + TICK_LENGTH, scale(v))], width=FRAME_WIDTH, role="tick")
        canvas.text(bar.x1 + TICK_LENGTH + TICK_PAD, scale(v), text, 10.0, va="center", role="tick-label")
    lx = bar.x1 + TICK_LENGTH + TICK_PAD + canvas.measure.widest(labels, 10.0) + LABEL_PAD
    canvas.text(lx, (bar.y0 + bar.y1) / 2, label, 10.0, ha="center", va="top", rotation=90, role="axis-label")


def colorbar_width(canvas: Canvas, vmin: float, vmax: float, label_size: float = 10.0) -> float:
    """Room right of a colour bar's frame for its ticks, tick labels and turned label, in points."""
    values, decimals = nice_ticks(vmin, vmax, 6)
    widest = canvas.measure.widest([tick_label(v, decimals) for v in values], 10.0)
    return TICK_LENGTH + TICK_PAD + widest + LABEL_PAD + LINE * label_size
