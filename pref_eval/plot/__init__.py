"""Plots for zELO scores and system comparisons (``zelo_plot``).

matplotlib is an optional extra (``pip install 'pref_eval[plot]'``); it is
imported lazily through :func:`figures`, which makes figures with
matplotlib's object API (``matplotlib.figure.Figure``; the file format's
backend -- Agg, SVG, PDF -- is picked by ``savefig``), never through
``matplotlib.pyplot``: no GUI backend is looked for, no figure manager kept,
and the command starts faster (issue #13). The kinds ported off matplotlib
(``scores``, ``systems``, ``pairs``, ``matrix``) draw on pref_eval's own :class:`.canvas.Canvas` instead and import
no matplotlib for PNG and SVG. Modules:

* :mod:`.canvas` -- the drawing (lines, rectangles, circles, texts in points);
  :mod:`.png` (Pillow), :mod:`.svg` (text) and :mod:`.pdf` (replayed on a
  matplotlib figure) write it; :mod:`.axes` (panels, ticks, legends),
  :mod:`.ticks` (nice numbers), :mod:`.fonts` (DejaVu Sans, found and
  measured without importing matplotlib), :mod:`.colormaps` (viridis, RdBu);

* :mod:`.output` -- figure or canvas → PNG/SVG/PDF file by extension, written through a
  temporary file and renamed (binary-safe twin of ``output_stream``);
* :mod:`.matrix` -- zbench's K×K comparison matrix of one query;
* :mod:`.scores` -- zELO score distributions with confidence intervals;
* :mod:`.systems` -- runs ordered by a measure, confidence intervals and
  significance groups (compact letter display);
* :mod:`.pairs` -- heatmap of pairwise differences / p-values between runs;
* :mod:`.data` -- per-query tables and paired p-values these plots use.
"""
from __future__ import annotations

from ..errors import UsageError

INSTALL_HINT = "matplotlib is not installed: install pref_eval[plot] (pip install 'pref_eval[plot]')"


class Figures:
    """The two calls of ``matplotlib.pyplot`` the drawing functions use, without pyplot.

    ``subplots(*args, figsize=, layout=, **kw)`` → ``(Figure, axes)`` like ``pyplot.subplots``;
    ``get_cmap(name)`` → the registered colormap (``matplotlib.colormaps[name]``).
    """

    def __init__(self, matplotlib) -> None:
        from matplotlib.figure import Figure

        self._colormaps = matplotlib.colormaps
        self._figure = Figure

    def subplots(self, *args, figsize=None, layout=None, **kwargs):
        fig = self._figure(figsize=figsize, layout=layout)
        return fig, fig.subplots(*args, **kwargs)

    def get_cmap(self, name: str):
        return self._colormaps[name]


def figures() -> Figures:
    """A :class:`Figures` maker (matplotlib's object API), or raise UsageError without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    return Figures(matplotlib)
