"""Comparing systems: paired significance tests, multiple-comparison
correction, randomised Tukey HSD, effect sizes and correlations between
orderings of systems.

Every test works on a matrix of per-query **differences** ``D`` of shape
``(n_comparisons, n_queries)`` and tests the mean of each row against 0, so the
same functions serve two runs' metric values (``D = round(x - y, 12)``) and a
preference measure whose per-query value already is a difference.

Public entry points:

* :func:`compare` -- all pairs (or each run against a baseline) of every
  measure of a long per-query table, with every selected test and a
  correction per (measure, test) family.
* :func:`compare_differences` -- the same tests on a ready difference matrix.
* :mod:`pref_eval.stats.paired` -- the individual vectorised tests.
* :mod:`pref_eval.stats.orderings` -- Kendall tau_b, tau_AP (and its tie
  variants), rank-biased overlap, swapped pairs.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

# compare (the commands' entry point) loads paired, correction and effect itself; orderings and tukey load on
# first use of one of their names (PEP 562): a command testing runs does not import them (session 28)
from .compare import ComparisonResult, compare, compare_differences, compare_preferences
from .correction import CORRECTIONS, adjust
from .effect import effect_sizes
from .paired import (
    TESTS,
    bootstrap_test,
    differences,
    randomization_test,
    sign_test,
    t_test,
    wilcoxon_test,
)

if TYPE_CHECKING:
    from .orderings import (
        compare_orderings,
        kendall_tau_b,
        rbo_at_depth,
        rbo_ext,
        rbo_ext_tied,
        rbo_prefix,
        swapped_pairs,
        tau_ap,
        tau_ap_a,
        tau_ap_b,
    )
    from .tukey import randomised_tukey_hsd

_LAZY = {**dict.fromkeys(("compare_orderings", "kendall_tau_b", "rbo_at_depth", "rbo_ext", "rbo_ext_tied",
                          "rbo_prefix", "swapped_pairs", "tau_ap", "tau_ap_a", "tau_ap_b"), "orderings"),
         "randomised_tukey_hsd": "tukey"}


def __getattr__(name: str) -> Any:
    """The names of :mod:`.orderings` and :mod:`.tukey`, imported on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})

__all__ = [
    "CORRECTIONS", "TESTS", "ComparisonResult", "adjust", "bootstrap_test",
    "compare", "compare_orderings", "differences", "effect_sizes",
    "kendall_tau_b", "randomization_test", "randomised_tukey_hsd", "rbo_at_depth", "rbo_ext",
    "rbo_ext_tied",
    "rbo_prefix", "sign_test", "swapped_pairs", "t_test", "tau_ap", "tau_ap_a", "tau_ap_b",
    "compare_differences", "compare_preferences", "wilcoxon_test",
]
