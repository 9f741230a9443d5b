"""A small vector drawing: lines, rectangles, circles and texts in points, written as PNG, SVG or PDF.

The plots ported off matplotlib's figure API (issue #13: importing ``matplotlib.figure`` alone costs
about six times ``import numpy``) draw on a :class:`Canvas`; :mod:`.png` rasterises it with Pillow,
:mod:`.svg` writes it as SVG text, :mod:`.pdf` replays it on a matplotlib figure (PDF keeps
matplotlib's writer and font embedding). Coordinates are points (1/72 inch) from the top-left
corner, y downwards; colours are ``#rrggbb`` strings. Each item carries a ``role`` (e.g. ``marker``,
``interval``, ``tick-label``) and the ``group`` it was drawn in (e.g. a panel), written into the SVG
as ``class`` attributes so that a picture can be checked against its data.
"""
from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from .fonts import TextMeasure, baseline_offset

BLACK = "#000000"
WHITE = "#ffffff"
GREY = "#808080"
LEGEND_EDGE = "#cccccc"
# matplotlib's "tab10" colours (Tableau 10), by name
TAB = {"blue": "#1f77b4", "orange": "#ff7f0e", "green": "#2ca02c", "red": "#d62728", "purple": "#9467bd",
       "brown": "#8c564b", "pink": "#e377c2", "gray": "#7f7f7f", "olive": "#bcbd22", "cyan": "#17becf"}


class Line(NamedTuple):
    points: tuple[tuple[float, float], ...]
    color: str
    width: float
    role: str
    group: str


class Rect(NamedTuple):
    x: float
    y: float
    w: float
    h: float
    fill: str | None
    stroke: str | None
    width: float
    radius: float
    role: str
    group: str


class Circle(NamedTuple):
    cx: float
    cy: float
    r: float
    fill: str
    role: str
    group: str


class Text(NamedTuple):
    """``text`` with its baseline through (x, y): ``anchor`` start/middle/end along the baseline;
    ``rotation`` in degrees counter-clockwise (90: read bottom to top)."""

    x: float
    y: float
    text: str
    size: float
    color: str
    anchor: str
    rotation: int
    role: str
    group: str
    face: str = "sans"


Item = Line | Rect | Circle | Text
_ANCHOR = {"left": "start", "center": "middle", "right": "end"}


# an id read from a file as bytes that are not UTF-8 (a Latin-1 docno) holds surrogate escapes U+DC80..U+DCFF,
# which no font draws and no PDF/SVG encodes: such a byte is shown as its Latin-1 character
_ESCAPED_BYTES = {0xDC00 + b: b for b in range(0x80, 0x100)}


def shown(text: str) -> str:
    """``text`` as drawn: a surrogate escape (a byte that was not UTF-8) as its Latin-1 character."""
    return text.translate(_ESCAPED_BYTES) if not text.isascii() else text


class Canvas:
    """A ``width`` × ``height`` point drawing (items in drawing order) with DejaVu Sans text metrics."""

    def __init__(self, width: float, height: float, measure: TextMeasure | None = None) -> None:
        self.width = float(width)
        self.height = float(height)
        self.items: list[Item] = []
        self.measure = measure or TextMeasure()
        self._group = ""

    @contextlib.contextmanager
    def group(self, name: str) -> Iterator[None]:
        """Items drawn inside belong to group ``name``."""
        outer, self._group = self._group, name
        try:
            yield
        finally:
            self._group = outer

    def text_width(self, text: str, size: float, face: str = "sans") -> float:
        return self.measure.width(shown(text), size, face)

    def line(self, points: Sequence[tuple[float, float]], color: str = BLACK, width: float = 1.0,
             role: str = "line") -> None:
        self.items.append(Line(tuple((float(x), float(y)) for x, y in points), color, float(width), role,
                               self._group))

    def rect(self, x: float, y: float, w: float, h: float, *, fill: str | None = None, stroke: str | None = None,
             width: float = 1.0, radius: float = 0.0, role: str = "rect") -> None:
        self.items.append(Rect(float(x), float(y), float(w), float(h), fill, stroke, float(width), float(radius),
                               role, self._group))

    def circle(self, cx: float, cy: float, r: float, fill: str, role: str = "marker") -> None:
        self.items.append(Circle(float(cx), float(cy), float(r), fill, role, self._group))

    def text(self, x: float, y: float, text: str, size: float, *, ha: str = "left", va: str = "baseline",
             rotation: int = 0, color: str = BLACK, role: str = "text", face: str = "sans") -> None:
        """``text`` aligned at (x, y): ``ha`` left/center/right, ``va`` top/center/baseline/bottom
        (:func:`pref_eval.plot.fonts.baseline_offset`); ``face`` one of :data:`pref_eval.plot.fonts.FACES`."""
        if not 0 <= rotation < 360:
            raise ValueError(f"rotation must be in [0, 360) degrees, got {rotation!r}")
        off = baseline_offset(va, size)
        # the baseline is ``off`` below the anchor, "below" turned with the text: (sin θ, cos θ) (y down)
        rad = math.radians(rotation)
        bx, by = x + off * math.sin(rad), y + off * math.cos(rad)
        self.items.append(Text(float(bx), float(by), shown(text), float(size), color, _ANCHOR[ha], rotation, role,
                               self._group, face))
