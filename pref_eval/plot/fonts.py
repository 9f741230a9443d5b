"""DejaVu Sans (and Sans Mono Bold) for zelo_plot's pictures, found and measured without importing matplotlib.

matplotlib ships DejaVu Sans (its default font, Bitstream Vera licence) in its package data,
``matplotlib/mpl-data/fonts/ttf/DejaVuSans.ttf``; :func:`dejavu_sans_path` locates that file with
``importlib.util.find_spec``, which reads the package's location without executing it (issue #13:
importing matplotlib costs several times ``import numpy``). Texts are measured with Pillow's FreeType
binding (Pillow is a dependency of matplotlib, declared in the ``plot`` extra).

Vertical placement uses DejaVu Sans's design metrics in em (units per em 2048): the height of the
digits and capitals 0.729 em (1493 units), the descender 0.236 em (483 units).
"""
from __future__ import annotations

import importlib.util
import os
from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Iterable

INSTALL_HINT = "matplotlib is not installed: install pref_eval[plot] (pip install 'pref_eval[plot]')"
CAP_HEIGHT = 0.729
DESCENT = 0.236
FAMILY = "DejaVu Sans"
_MEASURE_SIZE = 100.0  # texts are measured at this size and scaled (advances are linear in the size)


# the faces drawn: name -> (file in matplotlib's mpl-data/fonts/ttf, family, weight)
FACES = {"sans": ("DejaVuSans.ttf", "DejaVu Sans", "normal"),
         "mono-bold": ("DejaVuSansMono-Bold.ttf", "DejaVu Sans Mono", "bold")}


def dejavu_sans_path(face: str = "sans") -> str:
    """Path of the DejaVu ``face`` (:data:`FACES`) in matplotlib's installed package data (matplotlib is
    not imported).

    Raises UsageError (the ``pref_eval[plot]`` install hint) when matplotlib or the file is absent."""
    spec = importlib.util.find_spec("matplotlib")
    for where in (spec.submodule_search_locations or []) if spec is not None else []:
        path = os.path.join(where, "mpl-data", "fonts", "ttf", FACES[face][0])
        if os.path.isfile(path):
            return path
    raise UsageError(INSTALL_HINT)


class TextMeasure:
    """Advance widths of DejaVu texts in points: ``width(text, size, face)`` for a ``size``-point font."""

    def __init__(self, path: str | None = None) -> None:
        try:
            from PIL import ImageFont
        except ImportError:
            raise UsageError(INSTALL_HINT) from None
        self._truetype = ImageFont.truetype
        self.path = path or dejavu_sans_path()
        self._fonts = {"sans": self._truetype(self.path, _MEASURE_SIZE)}

    def face_path(self, face: str) -> str:
        """The font file of ``face`` (next to DejaVu Sans)."""
        return self.path if face == "sans" else os.path.join(os.path.dirname(self.path), FACES[face][0])

    def width(self, text: str, size: float, face: str = "sans") -> float:
        """Advance width of ``text`` at ``size`` points (kerning as FreeType's basic layout applies it)."""
        font = self._fonts.get(face)
        if font is None:
            font = self._fonts[face] = self._truetype(self.face_path(face), _MEASURE_SIZE)
        return float(font.getlength(text)) * size / _MEASURE_SIZE

    def widest(self, texts: Iterable[str], size: float, face: str = "sans") -> float:
        """The largest :meth:`width` of ``texts`` (0 without any)."""
        return max((self.width(t, size, face) for t in texts), default=0.0)


def baseline_offset(va: str, size: float) -> float:
    """Distance from the anchor down to the baseline for vertical alignment ``va`` (top, center, baseline,
    bottom) of a ``size``-point text: top = the digits' top, center = their middle, bottom = the descender."""
    if va == "baseline":
        return 0.0
    if va == "top":
        return CAP_HEIGHT * size
    if va == "center":
        return CAP_HEIGHT * size / 2
    if va == "bottom":
        return -DESCENT * size
    raise ValueError(f"unknown vertical alignment {va!r}")
