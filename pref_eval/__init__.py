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

from .errors import renamed_keywords as _renamed_keywords  # (old keyword spellings; imports contextvars only)

# typing.TYPE_CHECKING without importing typing (``import pref_eval`` stays as cheap as it was); type checkers
# read any name TYPE_CHECKING as true. The names below are only for the annotations (strings at run time).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from collections.abc import Iterable, Iterator, Sequence
    from typing import Any

    import pandas as pd

    from .api.measures import Evaluator, Metric
    from .output.atomic import InputOptions


def evaluate(qrels: Any, runs: Any, measures: Any = ("official",), *, complete: bool = False, level: int = 1,
             depth: int | None = None, judged_only: bool = False, trec9: bool = False, summary: bool = False,
             judgments: Any = None, judgments_format: str | None = None, best: Any = None,
             jobs: int = 1, **unknown: Any) -> pd.DataFrame:
    """See :func:`pref_eval.api.evaluate`."""
    from .api.measures import evaluate as _evaluate

    return _evaluate(qrels, runs, measures, complete=complete, level=level, depth=depth, judged_only=judged_only,
                     trec9=trec9, summary=summary, judgments=judgments, judgments_format=judgments_format, best=best,
                     jobs=jobs, **unknown)


def iter_calc(measures: Any, qrels: Any, run: Any, **options: Any) -> Iterator[Metric]:
    """See :func:`pref_eval.api.iter_calc`."""
    from .api.measures import iter_calc as _iter_calc

    return _iter_calc(measures, qrels, run, **options)


def calc_aggregate(measures: Any, qrels: Any, run: Any, **options: Any) -> dict[str, Any]:
    """See :func:`pref_eval.api.calc_aggregate`."""
    from .api.measures import calc_aggregate as _calc_aggregate

    return _calc_aggregate(measures, qrels, run, **options)


def evaluator(measures: Any, qrels: Any, **options: Any) -> Evaluator:
    """See :func:`pref_eval.api.evaluator` (``ir_measures.evaluator``: qrels read once, several runs)."""
    from .api.measures import evaluator as _evaluator

    return _evaluator(measures, qrels, **options)


@_renamed_keywords(fmt="judgments_format")
def agreement(judgments: Sequence[str], *, names: Sequence[str] | None = None, judgments_format: str | None = None,
              ties: str = "half", levels: Sequence[str] = ("pair", "calibration", "document"), resamples: int = 1000,
              seed: int = 0, confidence: float = 0.95, buckets: int = 20, calibration: str = "auto",
              consensus_min: int = 2, prior: float = 0.5, top_k: int = 10, runs: Sequence[str] = (),
              measure: str | None = None, grades: str = "0,1,2,3", tests: str = "t", correction: str = "holm",
              alpha: float = 0.05, judged_depth: int | None = None, output: str | None = None,
              output_format: str = "text", digits: int = 4, inputs: InputOptions | None = None,
              log: Any = None) -> list:
    """See :func:`pref_eval.api.agree` (``zelo_agree``); not named ``agree`` because
    ``pref_eval.agree`` is the package of its computations."""
    from .api.agreement import agree as _agree

    return _agree(judgments, names=names, judgments_format=judgments_format, ties=ties, levels=levels,
                  resamples=resamples, seed=seed, confidence=confidence, buckets=buckets, calibration=calibration,
                  consensus_min=consensus_min,
                  prior=prior, top_k=top_k, runs=runs, measure=measure, grades=grades, tests=tests,
                  correction=correction, alpha=alpha, judged_depth=judged_depth, output=output,
                  output_format=output_format, digits=digits, inputs=inputs, log=log)


def preferences(qrels: str | os.PathLike, runs: Sequence[str | os.PathLike], measures: Sequence[str] | None = None, *,
                binary: float | None = None, floor: float | None = None, per_query: bool = True,
                summary: bool = True) -> Any:
    """See :func:`pref_eval.api.preferences`."""
    from .api.run_evaluation import preferences as _preferences

    return _preferences(qrels, runs, measures, binary=binary, floor=floor, per_query=per_query, summary=summary)


def aggregate(prefs: str | os.PathLike, measures: Sequence[str] | None = None, *, query_fraction: float = 1.0,
              num_samples: int = 1, seed: int = 0, mc4_steps: int | None = None, damping: float = 0.15,
              log: Any = None) -> tuple[list[str], list[Any]]:
    """See :func:`pref_eval.api.aggregate`."""
    from .api.aggregation import aggregate as _aggregate

    return _aggregate(prefs, measures, query_fraction=query_fraction, num_samples=num_samples, seed=seed,
                      mc4_steps=mc4_steps, damping=damping, log=log)


def compare(per_query: Any, **options: Any) -> Any:
    """See :func:`pref_eval.api.compare`."""
    from .api.comparison import compare as _compare

    return _compare(per_query, **options)


@_renamed_keywords(judgment_format="judgments_format")
def fit(judgments: str | os.PathLike | Sequence[str | os.PathLike], *, judgments_format: str | None = None,
        ties: str | None = None, prior: float = 0.5, weight_power: float = 1.0, agreement_weights: bool = False,
        tol: float = 1e-09, max_iter: int = 100, scale: str = "logit", elo_offset: float = 1500.0,
        dataset: str | None = None, compat: str | None = None, jobs: int = 1, scheduler: str | None = None,
        output: str | None = None, output_format: str = "tsv", qrels_output: str | None = None,
        grades: str | Sequence[float] = "0,1,2,3", bins: str = "quantile", diagnostics: str | None = None,
        log: Any = None, inputs: InputOptions | None = None, as_frame: bool = True, keep_results: bool = True) -> Any:
    """See :func:`pref_eval.api.fit`."""
    from .api.fitting import fit as _fit

    return _fit(judgments, judgments_format=judgments_format, ties=ties, prior=prior, weight_power=weight_power,
                agreement_weights=agreement_weights, tol=tol, max_iter=max_iter, scale=scale, elo_offset=elo_offset,
                dataset=dataset, compat=compat, jobs=jobs, scheduler=scheduler, output=output,
                output_format=output_format, qrels_output=qrels_output, grades=grades, bins=bins,
                diagnostics=diagnostics, log=log, inputs=inputs, as_frame=as_frame, keep_results=keep_results)


def pairs(queries: Iterable[tuple[str, Sequence[str]]] | None = None, cycles: int = 4, seed: int = 0, *,
          dedup: bool = False, limit: int | None = None, compat: str | None = None, dataset: str | None = None,
          run: str | Sequence[str] | None = None, depth: int | None = None, docs: str | None = None,
          output: str | None = None, output_format: str = "jsonl", log: Any = None,
          inputs: InputOptions | None = None) -> list[tuple[str, str, str]]:
    """See :func:`pref_eval.api.pairs`."""
    from .api.pairing import pairs as _pairs

    return _pairs(queries, cycles, seed, dedup=dedup, limit=limit, compat=compat, dataset=dataset, run=run, depth=depth,
                  docs=docs, output=output, output_format=output_format, log=log, inputs=inputs)


def simulate(matrix: Any, reps: int = 1000, *, k: int = 1, p: int | None = None, f: int | None = None, seed: int = 0,
             final_phase: bool = False, output: str | None = None, log: Any = None,
             inputs: InputOptions | None = None) -> dict[str, Any]:
    """See :func:`pref_eval.api.simulate`."""
    from .api.simulation import simulate as _simulate

    return _simulate(matrix, reps, k=k, p=p, f=f, seed=seed, final_phase=final_phase, output=output, log=log,
                     inputs=inputs)


# the commands as functions (each reads, computes and writes as its command does), imported on first use
COMMAND_FUNCTIONS = ("evaluate_runs", "compare_runs", "compare_orderings", "pairs_init", "pairs_next", "pairs_add",
                     "pairs_status", "pairs_result", "pairs_pool", "judge", "judge_export", "simulate_recovery",
                     "simulate_bandit", "simulate_adaptive", "simulate_figure3", "plot_matrix", "plot_scores",
                     "plot_systems", "plot_pairs", "plot_calibration", "PlotImage", "PlotValues")


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
