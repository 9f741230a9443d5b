"""pref_eval: trec_eval-exact and preference-based IR evaluation, zELO, comparisons.

Public API (lazy: importing the package stays cheap):

* :func:`evaluate` -- qrels + runs + measures → long DataFrame (run, qid, measure, value).
* :func:`iter_calc` / :func:`calc_aggregate` -- ir-measures' two calls, same arguments;
  :func:`evaluator` -- ir-measures' evaluator (measures and qrels once, then
  ``.iter_calc(run)`` / ``.calc_aggregate(run)`` per run).
* :func:`agreement` -- judgment files → agreement records of ``zelo_agree``.
* :func:`preferences`, :func:`aggregate`, :func:`compare`, :func:`fit`,
  :func:`pairs`, :func:`simulate` -- what ``zelo_eval`` (preference mode),
  ``pref_aggregate``, ``zelo_compare``, ``zelo_fit``, ``zelo_pairs cycles``
  and ``zelo_simulate tournament`` compute (:mod:`pref_eval.api`).
* ``COMMAND_FUNCTIONS`` (:func:`~pref_eval.api.evaluate_runs`,
  :func:`~pref_eval.api.compare_runs`, ``pairs_init`` ...) -- the functions
  the commands call: read, compute and write as the command does.
"""
from __future__ import annotations

__version__ = "0.1.0"


def evaluate(*args, **kwargs):
    """See :func:`pref_eval.api.evaluate`."""
    from .api.measures import evaluate as _evaluate

    return _evaluate(*args, **kwargs)


def iter_calc(*args, **kwargs):
    """See :func:`pref_eval.api.iter_calc`."""
    from .api.measures import iter_calc as _iter_calc

    return _iter_calc(*args, **kwargs)


def calc_aggregate(*args, **kwargs):
    """See :func:`pref_eval.api.calc_aggregate`."""
    from .api.measures import calc_aggregate as _calc_aggregate

    return _calc_aggregate(*args, **kwargs)


def evaluator(*args, **kwargs):
    """See :func:`pref_eval.api.evaluator` (``ir_measures.evaluator``: qrels read once, several runs)."""
    from .api.measures import evaluator as _evaluator

    return _evaluator(*args, **kwargs)


def agreement(*args, **kwargs):
    """See :func:`pref_eval.api.agree` (``zelo_agree``); not named ``agree`` because
    ``pref_eval.agree`` is the package of its computations."""
    from .api.agreement import agree as _agree

    return _agree(*args, **kwargs)


def preferences(*args, **kwargs):
    """See :func:`pref_eval.api.preferences`."""
    from .api.run_evaluation import preferences as _preferences

    return _preferences(*args, **kwargs)


def aggregate(*args, **kwargs):
    """See :func:`pref_eval.api.aggregate`."""
    from .api.aggregation import aggregate as _aggregate

    return _aggregate(*args, **kwargs)


def compare(*args, **kwargs):
    """See :func:`pref_eval.api.compare`."""
    from .api.comparison import compare as _compare

    return _compare(*args, **kwargs)


def fit(*args, **kwargs):
    """See :func:`pref_eval.api.fit`."""
    from .api.fitting import fit as _fit

    return _fit(*args, **kwargs)


def pairs(*args, **kwargs):
    """See :func:`pref_eval.api.pairs`."""
    from .api.pairing import pairs as _pairs

    return _pairs(*args, **kwargs)


def simulate(*args, **kwargs):
    """See :func:`pref_eval.api.simulate`."""
    from .api.simulation import simulate as _simulate

    return _simulate(*args, **kwargs)


# the commands as functions (each reads, computes and writes as its command does), imported on first use
COMMAND_FUNCTIONS = ("evaluate_runs", "compare_runs", "compare_orderings", "pairs_init", "pairs_next", "pairs_add",
                     "pairs_status", "pairs_result", "judge", "judge_export", "simulate_recovery", "simulate_bandit",
                     "simulate_adaptive", "simulate_figure3", "plot_matrix", "plot_scores", "plot_systems",
                     "plot_pairs", "plot_calibration", "PlotImage", "PlotValues")


def __getattr__(name: str):
    if name in COMMAND_FUNCTIONS:
        from . import api

        return getattr(api, name)
    if not name.startswith("_"):  # a subpackage on first use, as the docs write it: pref_eval.api.judge,
        import importlib  # pref_eval.errors.PrefEvalWarning, pref_eval.log.Log (after ``import pref_eval`` only)

        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module 'pref_eval' has no attribute {name!r}")


__all__ = ["evaluate", "iter_calc", "calc_aggregate", "evaluator", "agreement", "preferences", "aggregate", "compare",
           "fit", "pairs", "simulate", *COMMAND_FUNCTIONS, "__version__"]
