"""Measures × ranked runs → per-query values and summaries.

``evaluate_ranked`` runs every requested measure on one
:class:`~pref_eval.collection.Ranked` and aggregates as trec_eval does:
sequential sums in query order (``meas_acc.c``) divided by the number of
queries (mean), plain sums for counts, geometric means with a 1e-5 floor.
"""
from __future__ import annotations

from typing import Any
from collections.abc import Sequence

import numpy as np

from .records import record
from .collection import Ranked
from .measures.base import EvalContext, MeasureRequest

MIN_GEO_MEAN = 1e-5


@record(frozen=True)
class Column:
    """One printed measure column (e.g. ``P_10``) of one run."""

    name: str
    order: tuple
    value_type: str
    values: Any  # ndarray (nq,) of float, or list[str]
    summary: Any  # float, int or str; None when per-query only
    summary_only: bool
    per_query_only: bool
    request: MeasureRequest | None = None


@record(frozen=True)
class RunResult:
    """Every column of one run, with the evaluated query ids."""

    name: str
    tag: str
    qids: list[str]
    present: np.ndarray
    columns: list[Column]
    ranked: Any = None  # the Ranked run (for custom summaries recomputed under -Z)
    ctx: Any = None  # the EvalContext used
    unknown_topics: tuple = ()  # the run's topics not in the qrels (bytes): never evaluated
    tags: tuple | None = None  # the run's distinct tags and their first lines (Run.tags; None: not known)


def _seq_sum(v: np.ndarray) -> float:
    # trec_eval adds to an accumulator that starts at +0.0: 0.0 + (-0.0) is +0.0, so a sum of -0.0
    # values prints 0.0000, not -0.0000 (otherwise the same sequential sum)
    return 0.0 + float(np.cumsum(v)[-1]) if len(v) else 0.0


def summarize(values: np.ndarray, aggregate: str, nq: int) -> float:
    """trec_eval's summary of one column over ``nq`` queries."""
    if aggregate == "mean":
        return _seq_sum(values) / nq if nq else 0.0
    if aggregate == "sum":
        return _seq_sum(values)
    if aggregate == "gmean":
        if not nq:
            return 0.0
        from . import libm

        return float(libm.exp(_seq_sum(libm.log(np.maximum(values, MIN_GEO_MEAN))) / nq))
    if aggregate == "count":
        return float(nq)
    raise ValueError(aggregate)


def evaluate_ranked(r: Ranked, requests: Sequence[MeasureRequest], ctx: EvalContext) -> RunResult:
    """Compute ``requests`` on run ``r``; see the module docstring."""
    cols: list[Column] = []
    missing = ~r.present
    for ri, req in enumerate(requests):
        spec = req.spec
        names = req.columns()
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = req.compute(r, ctx)  # 0/0 and overflow give trec_eval's -nan / inf, not a numpy warning on stderr
        zero = spec.zero_if_missing and _zeroed_by_trec_eval(req, names)
        if spec.value_type == "str":
            vals = list(out)
            if zero:
                vals = ["" if m else v for v, m in zip(vals, missing, strict=True)]
            summary = r.tag if spec.aggregate == "runid" else None
            cols.append(Column(names[0], (spec.order, ri, 0), "str", vals, summary,
                               spec.summary_only, spec.per_query_only or spec.aggregate == "none", req))
            continue
        arr = np.asarray(out, dtype=np.float64)
        if arr.ndim == 1:
            arr = arr.reshape(-1, 1)
        if zero and missing.any():
            arr = arr.copy()
            arr[missing] = 0.0
        if spec.summarize is not None:
            sums = np.atleast_1d(spec.summarize(arr, req.prepare(r), req.context(ctx)))
        else:
            sums = None
        for j, name in enumerate(names):
            if spec.aggregate == "none":
                s = None
            elif sums is not None:
                s = float(sums[j])
            else:
                s = summarize(arr[:, j], spec.aggregate, r.nq)
            summary_only = spec.summary_only and not (req.label and spec.irm_per_query)
            cols.append(Column(label_of(req, name), (spec.order, ri, j), spec.value_type, arr[:, j], s,
                               summary_only, spec.per_query_only or spec.aggregate == "none", req))
    cols.sort(key=lambda c: c.order)
    return RunResult(name=r.name, tag=r.tag, qids=r.qid_strings(), present=r.present, columns=cols,
                     ranked=r, ctx=ctx, tags=r.tags)


def _zeroed_by_trec_eval(req: MeasureRequest, names: list[str]) -> bool:
    """trec_eval 10 zeroes a missing topic's value by printed name: exactly
    ``num_ret``, ``utility``, ``relstring``, ``rbp_resid`` (so not once a
    parameter string is appended, e.g. ``relstring_20``) and any ``unj*``."""
    return req.spec.param_kind == "cutoffs" or names == [req.spec.name]


def label_of(req: MeasureRequest, name: str) -> str:
    """Printed name: trec_eval's, unless the measure was asked in ir-measures syntax."""
    return req.label if req.label and len(req.columns()) == 1 else name
