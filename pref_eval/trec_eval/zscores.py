"""trec_eval's ``-Z zscores_file``: per-query values as z-scores.

The file holds lines ``qid measure mean stddev`` (white-space separated,
exactly four fields; ``mean``/``stddev`` parsed as C ``atof``). For every
evaluated query and every numeric measure column, trec_eval
(``convert_zscores.c``) replaces the per-query value v by

    z = (v − mean) / stddev      if stddev ≠ 0
    z = 0                        if stddev = 0 and v = mean
    z = −1000000                 otherwise, or when (qid, measure) is absent

*before* accumulating, so the ``all`` line is the usual summary of the
z-scores: mean for averaged measures, sum for counts (``num_ret`` …),
exp(mean z) for ``gm_map``/``gm_bpref`` (whose per-query value is
ln max(v, 1e-5), z-scored), the query count for ``num_q``. Measures with a
custom summary (``num_rel`` under ``-c``) keep it. String columns (``runid``,
``relstring``) are printed unchanged, without the ``Z`` prefix.

Deliberate differences: a blank or malformed line is an error naming the line
(trec_eval also refuses it, without the file name); a duplicated (qid,
measure) keeps its first line (trec_eval's binary search picks either).
"""
from __future__ import annotations

import math
from dataclasses import replace
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .. import libm
from ..records import record
from ..io.zscores import ZTable, read_zscores  # noqa: F401 - the reader lives in io/ (re-exported)

if TYPE_CHECKING:
    from ..engine import RunResult

MISSING_ZSCORE_VALUE = -1000000.0
MIN_GEO_MEAN = 1e-5

@record(frozen=True)
class ZScorer:
    """Callable ``(measure, qid, value) -> z`` over a table from :func:`read_zscores`."""

    table: ZTable

    def __call__(self, measure: str, qid: str, value: float) -> float:
        ms = self.table.get((qid, measure))
        if ms is None:
            return MISSING_ZSCORE_VALUE
        mean, sd = ms
        if sd:
            return (value - mean) / sd
        return 0.0 if value == mean else MISSING_ZSCORE_VALUE


def zscore_function(table: ZTable) -> ZScorer:
    """The z-score conversion for ``table`` (see the module docstring)."""
    return ZScorer(table)


def _seq_sum(v: np.ndarray) -> float:
    # trec_eval adds to an accumulator that starts at +0.0: 0.0 + (-0.0) is +0.0, so a sum of -0.0
    # values prints 0.0000, not -0.0000 (otherwise the same sequential sum)
    return 0.0 + float(np.cumsum(v)[-1]) if len(v) else 0.0


def zscore_result(res: RunResult, z: Callable[[str, str, float], float], only_qid: str | None = None) -> RunResult:
    """A copy of ``res`` (:class:`~pref_eval.engine.RunResult`) with every numeric
    per-query value z-scored and the summaries recomputed from the z-scores. ``only_qid``
    (``-D N.qid``): the other topics are skipped, adding 0 to the sums (ln 1e-5 to a geometric
    mean's, as trec_eval's ``te_calc_avg_meas_s_gm`` adds for each topic not evaluated)."""
    cols = []
    nq = len(res.qids)
    for col in res.columns:
        if col.value_type == "str":
            cols.append(col)
            continue
        spec = col.request.spec if col.request is not None else None
        agg = spec.aggregate if spec is not None else "mean"
        raw = np.asarray(col.values, dtype=np.float64)
        if agg == "gmean":
            raw = libm.log(np.maximum(raw, MIN_GEO_MEAN))
        vals = np.array([z(col.name, q, float(v)) if only_qid is None or q == only_qid else
                         (math.log(MIN_GEO_MEAN) if agg == "gmean" else 0.0)
                         for q, v in zip(res.qids, raw, strict=False)], dtype=np.float64)
        summary = col.summary
        if col.summary is not None:
            if spec is not None and spec.summarize is not None and res.ranked is not None:
                summary = _custom_summary(spec, col, vals, res)
            elif agg == "mean":
                summary = _seq_sum(vals) / nq if nq else 0.0
            elif agg == "sum":
                summary = _seq_sum(vals)
            elif agg == "gmean":
                summary = math.exp(_seq_sum(vals) / nq) if nq else 0.0
            elif agg == "count":
                summary = float(nq)
        cols.append(replace(col, values=vals, summary=summary, value_type="float"))
    return replace(res, columns=cols)


def _custom_summary(spec, col, vals: np.ndarray, res) -> float:
    from ..measures.base import EvalContext

    ctx = res.ctx if res.ctx is not None else EvalContext()
    lvl = col.request.level
    if lvl is not None and lvl != ctx.level:
        ctx = replace(ctx, level=lvl)
    j = col.order[2] if len(col.order) > 2 else 0
    ncol = len(col.request.columns())
    arr = np.zeros((len(vals), ncol))
    arr[:, j] = vals
    return float(np.atleast_1d(spec.summarize(arr, res.ranked, ctx))[j])
