"""Plots for zELO scores and system comparisons (``zelo_plot``).

matplotlib is an optional extra (``pip install 'pref_eval[plot]'``); it is
imported lazily, always with the headless Agg backend, through
:func:`pyplot`. Modules:

* :mod:`.output` -- figure → PNG/SVG file by extension, written through a
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


def pyplot():
    """Return ``matplotlib.pyplot`` set to the Agg backend, or raise UsageError."""
    try:
        import matplotlib
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt
