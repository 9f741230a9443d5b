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

import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .compare import ComparisonResult, compare, compare_differences, compare_preferences
    from .correction import CORRECTIONS, adjust
    from .effect import effect_sizes
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
    from .paired import (
        TESTS,
        bootstrap_test,
        differences,
        randomization_test,
        sign_test,
        t_test,
        wilcoxon_test,
    )
    from .tukey import randomised_tukey_hsd

# The records' column names and the tests' and corrections' labels (stats/compare.py writes them,
# output/comparisons.py prints them; here, so that the orderings' writer imports no tests and no module more)
RECORD_KEYS = ("measure", "run_a", "run_b", "test", "n_queries", "mean_diff", "statistic",
               "p_value", "p_adjusted", "correction", "ci_low", "ci_high", "significant",
               "d_z", "wins", "ties", "losses")
TEST_LABELS = {
    "t": "paired t-test (scipy.stats.ttest_rel)",
    "wilcoxon": "Wilcoxon signed-rank test (scipy.stats.wilcoxon)",
    "sign": "sign test (scipy.stats.binomtest on non-zero differences)",
    "randomization": "paired randomization test (sign flips)",
    "bootstrap": "bootstrap test of the mean difference (shift method)",
    "tukey": "randomised Tukey HSD (within-query permutations)",
}
CORRECTION_LABELS = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg",
                     "none": "no correction", "tukey-hsd": "family-wise by construction"}
EXTRA_KEYS = ("df", "zero_method", "method", "n_zero", "n_nonzero", "min_diff", "resamples", "exact", "seed",
              "ci_method", "confidence")

# Every name loads its module on first use (PEP 562), so that a command reading one submodule (orderings for
# zelo_agree, special for a t interval) does not import the tests, corrections and effect sizes (session 29; session
# 28 made orderings and tukey lazy). ``compare`` is the function, as before: see _Package.
_LAZY = {**dict.fromkeys(("ComparisonResult", "compare", "compare_differences", "compare_preferences"), "compare"),
         **dict.fromkeys(("CORRECTIONS", "adjust"), "correction"),
         "effect_sizes": "effect",
         **dict.fromkeys(("TESTS", "bootstrap_test", "differences", "randomization_test", "sign_test", "t_test",
                          "wilcoxon_test"), "paired"),
         **dict.fromkeys(("compare_orderings", "kendall_tau_b", "rbo_at_depth", "rbo_ext", "rbo_ext_tied",
                          "rbo_prefix", "swapped_pairs", "tau_ap", "tau_ap_a", "tau_ap_b"), "orderings"),
         "randomised_tukey_hsd": "tukey"}
# the submodules the package imported eagerly before session 29 (``pref_eval.stats.paired`` after ``import
# pref_eval.stats``, as the module docstring names it)
_SUBMODULES = ("paired", "correction", "effect")


def __getattr__(name: str) -> Any:
    """The package's names and its first submodules, imported on first use."""
    import importlib

    module = _LAZY.get(name)
    if module is not None:
        return getattr(importlib.import_module(f"{__name__}.{module}"), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_SUBMODULES})


class _Package(types.ModuleType):
    """This package's class: its attribute ``compare`` is the function :func:`pref_eval.stats.compare.compare`
    whatever was imported first. The submodule of the same name, once imported (``from pref_eval.stats.compare
    import ...``), is set on the package by the import system; the eager import of the function used to overwrite
    that binding, and a lazy name would have left the module in its place. So the import system's binding of the
    submodule is ignored here; any other value set (a test's monkeypatch) is kept and read back."""

    @property
    def compare(self) -> Any:
        override = self.__dict__.get("_compare_set")
        if override is not None:
            return override
        import importlib

        return importlib.import_module(f"{__name__}.compare").compare

    @compare.setter
    def compare(self, value: Any) -> None:
        if isinstance(value, types.ModuleType) and value.__name__ == f"{__name__}.compare":
            return  # the import system binding the submodule
        self.__dict__["_compare_set"] = value

    @compare.deleter
    def compare(self) -> None:
        self.__dict__.pop("_compare_set", None)


sys.modules[__name__].__class__ = _Package

__all__ = [
    "CORRECTIONS", "TESTS", "ComparisonResult", "adjust", "bootstrap_test",
    "compare", "compare_orderings", "differences", "effect_sizes",
    "kendall_tau_b", "randomization_test", "randomised_tukey_hsd", "rbo_at_depth", "rbo_ext",
    "rbo_ext_tied",
    "rbo_prefix", "sign_test", "swapped_pairs", "t_test", "tau_ap", "tau_ap_a", "tau_ap_b",
    "compare_differences", "compare_preferences", "wilcoxon_test",
]
