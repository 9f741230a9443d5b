"""Multiple-comparison correction of p-values.

Names: ``holm`` (Holm 1979 step-down, the default), ``bonferroni``, ``bh``
(Benjamini & Hochberg 1995 false discovery rate), ``none``. For a family of m
p-values sorted ascending p_(1) <= ... <= p_(m):

* bonferroni: min(1, m p_(i));
* holm:       max_{j <= i} min(1, (m - j + 1) p_(j));
* bh:         min_{j >= i} min(1, m p_(j) / j).

These are the definitions of statsmodels' ``multipletests`` methods
``bonferroni``, ``holm`` and ``fdr_bh`` (statsmodels' own *default* is
Holm-Sidak, ``hs``, which we do not use). They are written here, vectorised
over many families at once, because ``multipletests(method="holm")`` runs
``gc.collect()`` on every call (about 0.08 s each in a process holding a few
hundred thousand objects, which is most of the time budget of a 63-run
comparison); the test suite checks every method against ``multipletests``
on random and tied p-values.

The family is decided by the caller (:func:`pref_eval.stats.compare`: every
pair of runs compared for one measure and one test). p-values that are nan
(a test that cannot be computed, e.g. all differences zero) stay nan and are
not counted in the family size.
"""
from __future__ import annotations

import numpy as np

from ..errors import UsageError, shown

CORRECTIONS = ("holm", "bonferroni", "bh", "none")
#: statsmodels.stats.multitest.multipletests method name of each correction
STATSMODELS_NAMES = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}


def unknown_correction(method: object) -> UsageError:
    """The refusal of correction ``method``: the names taken, and ours for statsmodels' method names
    (PyTerrier's ``correction``: ``fdr_bh`` is ``bh``) or for another case (``Holm``)."""
    from ..peer_names import correction_hint

    hint = correction_hint(method) if isinstance(method, str) else ""
    if not hint and isinstance(method, str) and method.lower() in CORRECTIONS:
        hint = f" (write {shown(method.lower())})"
    return UsageError(f"unknown correction {shown(method)}{hint}; expected one of {', '.join(CORRECTIONS)}")


def _adjust_sorted(ps: np.ndarray, method: str) -> np.ndarray:
    """Adjust one family already sorted ascending (1-D, finite)."""
    m = ps.size
    if method == "bonferroni":
        adj = ps * m
    elif method == "holm":
        adj = np.maximum.accumulate(ps * np.arange(m, 0, -1))
    else:  # bh
        adj = np.minimum.accumulate((ps * m / np.arange(1, m + 1))[::-1])[::-1]
    return np.minimum(adj, 1.0)


def adjust(p_values: np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjusted p-values of one family, in input order; for p_(1) <= ... <= p_(m): ``bonferroni`` min(1, m p_(i))
    (Dunn, JASA 1961), ``holm`` max_{j <= i} min(1, (m - j + 1) p_(j)) (Holm 1979), ``bh``
    min_{j >= i} min(1, m p_(j) / j) (Benjamini & Hochberg 1995), ``none`` p_(i)."""
    if method not in CORRECTIONS:
        raise unknown_correction(method)
    p = np.asarray(p_values, dtype=float)
    out = p.copy()
    ok = np.isfinite(p)
    if method == "none" or not ok.any():
        return out
    vals = p[ok]
    order = np.argsort(vals, kind="mergesort")
    adj = np.empty_like(vals)
    adj[order] = _adjust_sorted(vals[order], method)
    out[ok] = adj
    return out
