"""Python API mirroring the command lines.

>>> import pref_eval
>>> df = pref_eval.evaluate("qrels/dl19-sample.qrels", ["runs/bm25.run"], ["map", "nDCG@10"])
>>> list(df.columns)
['run', 'qid', 'measure', 'value']

One module per command family (``fitting`` holds ``zelo_fit``'s :func:`fit`, ``pairing`` the ``zelo_pairs``
functions, ...; docs/architecture.md). Every public name is importable from here (``from pref_eval.api
import fit``) and is imported on first use, so a command loads only its own module (the command modules
import from it directly: ``from ..api.fitting import fit``). No module is named after a function it holds:
importing a submodule binds its name on this package, which would hide a function of the same name.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agreement import agree
    from .aggregation import aggregate
    from .comparison import compare, compare_runs
    from .correlation import compare_orderings
    from .fitting import SE_CONDITION_WARN, fit
    from .judging import judge, judge_export
    from .measures import (Evaluator, MeasureResults, Metric, calc_aggregate, evaluate, evaluate_run_group, evaluator,
                           extra_inputs, iter_calc)
    from .pairing import pairs, pairs_add, pairs_init, pairs_next, pairs_result, pairs_status
    from .pooling import pairs_pool
    from .plotting import PlotImage, PlotValues, plot_calibration, plot_matrix, plot_pairs, plot_scores, plot_systems
    from .run_evaluation import FORMATS, MANY_RUNS, WIDE, evaluate_runs, preferences
    from .simulation import (SIGMA_MAX, simulate, simulate_adaptive, simulate_bandit, simulate_figure3,
                             simulate_recovery)

# the module of each public name (tests/test_api_package.py: the same names as __all__ and the imports above)
_HOME = {
    "measures": ("evaluate", "iter_calc", "calc_aggregate", "evaluator", "Evaluator", "Metric", "MeasureResults",
                 "evaluate_run_group", "extra_inputs"),
    "run_evaluation": ("evaluate_runs", "preferences", "FORMATS", "WIDE", "MANY_RUNS"),
    "comparison": ("compare", "compare_runs"),
    "correlation": ("compare_orderings",),
    "aggregation": ("aggregate",),
    "fitting": ("fit", "SE_CONDITION_WARN"),
    "pairing": ("pairs", "pairs_init", "pairs_next", "pairs_add", "pairs_status", "pairs_result"),
    "pooling": ("pairs_pool",),
    "simulation": ("simulate", "simulate_recovery", "simulate_bandit", "simulate_adaptive", "simulate_figure3",
                   "SIGMA_MAX"),
    "plotting": ("plot_matrix", "plot_scores", "plot_systems", "plot_pairs", "plot_calibration", "PlotImage",
                 "PlotValues"),
    "judging": ("judge", "judge_export"),
    "agreement": ("agree",),
}
_MODULE_OF = {name: module for module, names in _HOME.items() for name in names}

__all__ = [
    "evaluate", "iter_calc", "calc_aggregate", "evaluator", "Evaluator", "Metric", "MeasureResults",
    "evaluate_run_group", "extra_inputs",
    "evaluate_runs", "preferences", "FORMATS", "WIDE", "MANY_RUNS",
    "compare", "compare_runs", "compare_orderings",
    "aggregate",
    "fit", "SE_CONDITION_WARN",
    "pairs", "pairs_init", "pairs_next", "pairs_add", "pairs_status", "pairs_result", "pairs_pool",
    "simulate", "simulate_recovery", "simulate_bandit", "simulate_adaptive", "simulate_figure3", "SIGMA_MAX",
    "plot_matrix", "plot_scores", "plot_systems", "plot_pairs", "plot_calibration", "PlotImage", "PlotValues",
    "judge", "judge_export",
    "agree",
]


def __getattr__(name: str) -> Any:
    """A public name, from its module (imported on first use; the name is then kept here)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(__import__(f"{__name__}.{module}", fromlist=[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
