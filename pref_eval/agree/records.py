"""Result records of ``zelo_agree`` and the seeded bootstrap over queries.

Every statistic is a function ``f`` of a vector of *per-query sums* (a
contingency table, a coincidence matrix, numerator and denominator of a
rate...). Its value is ``f(T.sum(0))`` for the per-query matrix ``T`` (queries
x cells); its bootstrap distribution is ``f(W @ T)`` where each row of ``W``
counts how often each query was drawn in one resample of the queries with
replacement (Efron & Tibshirani 1993, percentile interval). All statistics of
one report share the same resamples, so one seed fixes every interval.
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable

import numpy as np

MAX_WEIGHTS = 250_000_000  # resamples x queries (2 GB of float64 weights)

FIELDS = ("judge_a", "judge_b", "level", "statistic", "value", "ci_low", "ci_high", "n")


@dataclass
class Record:
    """One reported figure: ``judge_b`` is empty for a statistic of ``judge_a`` alone."""

    judge_a: str
    judge_b: str
    level: str
    statistic: str
    value: float
    ci_low: float
    ci_high: float
    n: int

    def row(self) -> tuple:
        return (self.judge_a, self.judge_b, self.level, self.statistic, self.value, self.ci_low, self.ci_high,
                self.n)


class Bootstrap:
    """``resamples`` draws of ``n_queries`` queries with replacement (``numpy.random.default_rng(seed)``).

    ``confidence`` sets the percentile interval; ``resamples == 0`` gives no
    intervals (NaN).
    """

    def __init__(self, n_queries: int, resamples: int = 1000, seed: int = 0, confidence: float = 0.95) -> None:
        self.resamples = resamples
        self.confidence = confidence
        if resamples > 0 and n_queries > 0:
            if resamples * n_queries > MAX_WEIGHTS:
                from ..errors import UsageError, option_name, option_value

                raise UsageError(f"{option_value('resamples', '--resamples', resamples)} x {n_queries} queries: the "
                                 f"resample weights would take {resamples * n_queries * 8 / 1e9:.1f} GB (at most "
                                 f"{MAX_WEIGHTS * 8 / 1e9:g} GB); give fewer {option_name('resamples')}")
            rng = np.random.default_rng(seed)
            self.weights: np.ndarray | None = np.zeros((resamples, n_queries))
            # drawn in blocks of rows (the same stream as one integers(0, n, (resamples, n)) call): the memory is
            # the weights and one block, not four resamples x queries arrays
            step = max(1, (1 << 22) // n_queries)
            for r0 in range(0, resamples, step):
                r1 = min(resamples, r0 + step)
                draws = rng.integers(0, n_queries, size=(r1 - r0, n_queries))
                flat = (np.arange(r1 - r0)[:, None] * n_queries + draws).ravel()
                self.weights[r0:r1] = np.bincount(flat, minlength=(r1 - r0) * n_queries).reshape(r1 - r0, n_queries)
        else:
            self.weights = None

    def interval(self, T: np.ndarray, f: Callable[[np.ndarray], np.ndarray]) -> tuple[float, float]:
        """Percentile interval of ``f`` over the resampled per-query sums of ``T`` (queries x cells)."""
        if self.weights is None or T.shape[0] == 0:
            return float("nan"), float("nan")
        with np.errstate(invalid="ignore", divide="ignore"):
            vals = np.asarray(f(self.weights @ T), dtype=np.float64)
        vals = vals[np.isfinite(vals)]
        if len(vals) == 0:
            return float("nan"), float("nan")
        tail = (1.0 - self.confidence) / 2.0 * 100.0
        lo, hi = np.percentile(vals, [tail, 100.0 - tail])
        return float(lo), float(hi)


def statistic(boot: Bootstrap, judge_a: str, judge_b: str, level: str, name: str, T: np.ndarray,
              f: Callable[[np.ndarray], np.ndarray], n: Callable[[np.ndarray], np.ndarray]) -> Record:
    """A :class:`Record` for ``f`` of the summed per-query matrix ``T``, with its bootstrap interval."""
    T = np.asarray(T, dtype=np.float64)
    S = T.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = float(f(S))
    lo, hi = boot.interval(T, f)
    return Record(judge_a, judge_b, level, name, value, lo, hi, int(round(float(n(S)))))


def count(judge_a: str, judge_b: str, level: str, name: str, value: int) -> Record:
    """A plain count (no interval)."""
    return Record(judge_a, judge_b, level, name, float(value), float("nan"), float("nan"), int(value))


def per_query_sums(q: np.ndarray, n_queries: int, columns: list[np.ndarray]) -> np.ndarray:
    """``T[query, c] = sum of columns[c] over the rows of that query`` (one bincount per column)."""
    q = np.asarray(q, dtype=np.int64)
    return np.stack([np.bincount(q, np.asarray(c, dtype=np.float64), minlength=n_queries) for c in columns], axis=1) \
        if columns else np.zeros((n_queries, 0))


def per_query_table(q: np.ndarray, cell: np.ndarray, n_queries: int, n_cells: int) -> np.ndarray:
    """``T[query, c]`` = number of rows of that query whose cell is ``c`` (one bincount)."""
    q = np.asarray(q, dtype=np.int64)
    flat = np.bincount(q * n_cells + np.asarray(cell, dtype=np.int64), minlength=n_queries * n_cells)
    return flat.reshape(n_queries, n_cells).astype(np.float64)
