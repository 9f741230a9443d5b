"""Fixed figure margins computed from the labels' lengths, instead of a layout engine.

matplotlib's constrained layout measures every text's extent (a font layout per tick label) in an
extra draw pass before the real one; on ``zelo_plot``'s small figures that pass cost about as much
as the drawing itself (issue #13). Here the margins are set once with ``Figure.subplots_adjust``
from an estimate of each label's width: the advance widths of DejaVu Sans (matplotlib's default
font; digits 0.636 em, most lower-case letters 0.55-0.63 em), rounded up, so the estimate is a
little wider than the rendered text and labels are never clipped.
"""
from __future__ import annotations

from collections.abc import Iterable

POINTS_PER_INCH = 72.0
_NARROW = set("iIjl.,:;|!'` ")
_SEMI = set("frt()[]{}-/\\\"")
_WIDE = set("mwMW@%")


def text_width(text: str, size: float) -> float:
    """Estimated width in inches of ``text`` at ``size`` points (DejaVu Sans advances, rounded up)."""
    em = 0.0
    for ch in text:
        if ch in _NARROW:
            em += 0.34
        elif ch in _SEMI:
            em += 0.45
        elif ch in _WIDE:
            em += 1.0
        elif ch.isupper():
            em += 0.78
        else:
            em += 0.66
    return em * size / POINTS_PER_INCH


def widest(texts: Iterable[str], size: float) -> float:
    """The largest :func:`text_width` of ``texts`` (0 without any)."""
    return max((text_width(t, size) for t in texts), default=0.0)


def line_height(size: float, lines: int = 1) -> float:
    """Height in inches of ``lines`` lines of text at ``size`` points (1.2 x the size per line)."""
    return lines * 1.2 * size / POINTS_PER_INCH


def set_margins(fig, *, left: float, right: float, bottom: float, top: float, ncols: int = 1,
                gap: float = 0.0) -> None:
    """Place the subplot grid with margins in inches (``gap`` between the ``ncols`` columns).

    Margins larger than the figure are shrunk proportionally so that the axes keep at least a
    fifth of each dimension.
    """
    w, h = fig.get_size_inches()
    horiz = left + right + gap * (ncols - 1)
    if horiz > 0.8 * w:
        s = 0.8 * w / horiz
        left, right, gap = left * s, right * s, gap * s
    vert = bottom + top
    if vert > 0.8 * h:
        s = 0.8 * h / vert
        bottom, top = bottom * s, top * s
    axis_w = (w - left - right - gap * (ncols - 1)) / ncols
    fig.subplots_adjust(left=left / w, right=1 - right / w, bottom=bottom / h, top=1 - top / h,
                        wspace=gap / axis_w if ncols > 1 else None)
