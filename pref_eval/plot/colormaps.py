"""matplotlib's ``viridis`` and ``RdBu`` colormaps without importing matplotlib.

The colour tables are matplotlib's installed package data, read as Python literals from its sources
(``matplotlib/_cm_listed.py``: ``_viridis_data``, 256 colours, van der Walt & Smith's viridis, CC0;
``matplotlib/_cm.py``: ``_RdBu_data``, ColorBrewer's 11-class RdBu, Cynthia Brewer, Apache 2.0) located
with ``importlib.util.find_spec`` (no import; matplotlib's own import costs several times ``import
numpy``, issue #13). Should a table not be found there (another matplotlib layout), the colormap is
taken from ``matplotlib.colormaps`` instead (slower, same colours).

A lookup follows matplotlib's definition of a colormap with N = 256 entries: a listed map's entries
are its colours; a map from a list of K colours has entry k = the linear interpolation of the colours
placed at 0, 1/(K−1), …, 1, taken at k/(N−1); a value v in [0, 1] takes entry min(⌊v·N⌋, N − 1).
"""
from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence

from ..io.package_data import read_literal

N = 256
_SOURCES = {"viridis": ("_cm_listed.py", "_viridis_data = ", "listed"),
            "RdBu": ("_cm.py", "_RdBu_data = ", "segments")}


def colormap_table(name: str) -> list[tuple[float, float, float]]:
    """The N = 256 RGB entries (floats in [0, 1]) of matplotlib's colormap ``name`` (viridis, RdBu)."""
    file, marker, kind = _SOURCES[name]
    try:
        spec = importlib.util.find_spec("matplotlib")
        where = list(spec.submodule_search_locations or []) if spec is not None else []
        colors = [_rgb(rgb) for rgb in read_literal(os.path.join(where[0], file), marker)]
    except (OSError, ValueError, IndexError, SyntaxError, TypeError):
        return _from_matplotlib(name)
    if kind == "listed":
        if len(colors) != N:
            return _from_matplotlib(name)
        return colors
    k = len(colors) - 1
    table = []
    for e in range(N):
        x = e / (N - 1) * k
        i = min(int(x), k - 1)
        t = x - i
        table.append(_rgb([a + (b - a) * t for a, b in zip(colors[i], colors[i + 1], strict=True)]))
    return table


def _from_matplotlib(name: str) -> list[tuple[float, float, float]]:
    import matplotlib

    cmap = matplotlib.colormaps[name].resampled(N)
    return [_rgb(cmap(i)) for i in range(N)]


def _rgb(seq: Sequence[float]) -> tuple[float, float, float]:
    """The first three entries (red, green, blue) as floats; fewer than three raise ValueError."""
    r, g, b = seq[:3]
    return float(r), float(g), float(b)


def lookup(table: list[tuple[float, float, float]], v: float) -> tuple[float, float, float]:
    """The entry for ``v`` in [0, 1] (clipped): index min(⌊v·N⌋, N − 1)."""
    n = len(table)
    return table[min(max(int(v * n), 0), n - 1)]


def hex_color(rgb: tuple[float, float, float]) -> str:
    """``#rrggbb`` with each channel round(255·c)."""
    return "#" + "".join(f"{round(255 * c):02x}" for c in rgb)
