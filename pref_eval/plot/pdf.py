"""A :class:`~pref_eval.plot.canvas.Canvas` as PDF, through matplotlib's PDF writer.

A vector PDF with an embedded font is matplotlib's job: the canvas items are replayed as matplotlib
artists (``Line2D``, ``Rectangle``/``FancyBboxPatch``, ``Circle``, figure texts in DejaVu Sans) on a
``matplotlib.figure.Figure`` of the canvas size, in a transform from canvas points (y downwards) to
the figure's inches, and saved without a creation date. Only PDF output imports matplotlib.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .canvas import Canvas, Circle, Line, Rect, Text
from .fonts import FACES

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def canvas_figure(canvas: Canvas) -> Figure:
    """A ``matplotlib.figure.Figure`` drawing ``canvas``."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Circle as MCircle
    from matplotlib.patches import FancyBboxPatch, Rectangle
    from matplotlib.transforms import Affine2D

    fig = Figure(figsize=(canvas.width / 72.0, canvas.height / 72.0))
    tr = Affine2D().scale(1 / 72.0, -1 / 72.0).translate(0.0, canvas.height / 72.0) + fig.dpi_scale_trans
    ha = {"start": "left", "middle": "center", "end": "right"}
    for z, it in enumerate(canvas.items):
        if isinstance(it, Line):
            xs, ys = zip(*it.points, strict=True)
            fig.add_artist(Line2D(xs, ys, color=it.color, linewidth=it.width, transform=tr, zorder=z,
                                  solid_capstyle="butt", solid_joinstyle="round"))
        elif isinstance(it, Rect):
            kw: dict[str, Any] = {"facecolor": it.fill or "none", "edgecolor": it.stroke or "none",
                  "linewidth": it.width if it.stroke else 0.0, "transform": tr, "zorder": z}
            if it.radius:
                style = f"round,pad=0,rounding_size={it.radius}"
                fig.add_artist(FancyBboxPatch((it.x, it.y), it.w, it.h, boxstyle=style, **kw))
            else:
                fig.add_artist(Rectangle((it.x, it.y), it.w, it.h, **kw))
        elif isinstance(it, Circle):
            fig.add_artist(MCircle((it.cx, it.cy), it.r, facecolor=it.fill, edgecolor="none", transform=tr, zorder=z))
        elif isinstance(it, Text):
            fig.text(it.x, it.y, it.text, transform=tr, fontsize=it.size, color=it.color, ha=ha[it.anchor],
                     va="baseline", rotation=it.rotation, rotation_mode="anchor", zorder=z, family=FACES[it.face][1],
                     fontweight=FACES[it.face][2])
    return fig
