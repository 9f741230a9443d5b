"""Plots for zELO scores and system comparisons (``zelo_plot``).

Every kind draws on pref_eval's own small vector drawing, :class:`.canvas.Canvas`, instead of
matplotlib's figure API: importing ``matplotlib.figure`` alone costs several times ``import numpy``,
more than a small plot should take (issue #13). PNG is written with Pillow, SVG as text, PDF by
replaying the canvas on a matplotlib figure (the only format that imports matplotlib; never
``matplotlib.pyplot``). Fonts (DejaVu Sans) and colormaps (viridis, RdBu) are matplotlib's installed
package data, read without importing it: the ``plot`` extra (``pip install 'pref_eval[plot]'``)
installs matplotlib and Pillow. Modules:

* :mod:`.canvas` -- the drawing (lines, rectangles, circles, texts in points);
  :mod:`.png` (Pillow), :mod:`.svg` (text) and :mod:`.pdf` (matplotlib) write it;
  :mod:`.axes` (panels, ticks, legends, colour bars), :mod:`.ticks` (nice numbers),
  :mod:`.fonts` (DejaVu Sans, found and measured without importing matplotlib),
  :mod:`.colormaps` (viridis, RdBu);
* :mod:`.output` -- canvas → PNG/SVG/PDF file by extension, written through a
  temporary file and renamed (binary-safe twin of ``output_stream``);
* :mod:`.matrix` -- zbench's K×K comparison matrix of one query;
* :mod:`.scores` -- zELO score distributions with confidence intervals;
* :mod:`.systems` -- runs ordered by a measure, confidence intervals and
  significance groups (compact letter display);
* :mod:`.pairs` -- heatmap of pairwise differences / p-values between runs;
* :mod:`.calibration` -- a judge's reliability diagram;
* :mod:`.data` -- per-query tables and paired p-values these plots use.
"""
from __future__ import annotations

from .fonts import INSTALL_HINT

__all__ = ["INSTALL_HINT"]
