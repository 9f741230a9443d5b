"""zELO scores -> graded qrels (``zelo_fit --qrels out.qrels``).

Per query, scores are cut into ``len(grades)`` bins, lowest scores getting
``grades[0]``:

* ``quantile`` (default): equal-size bins by rank within the query: with r
  the document's mid-rank among the n scores (ascending, ties averaged,
  ``scipy.stats.rankdata``), bin = floor(G (r - 1/2) / n). Equal scores share
  a grade; if all scores are equal every document gets the middle grade.
* ``fixed:t1,t2,...``: G-1 increasing thresholds on the score scale written
  (logit or Elo); bin = ``#{t_k <= score}``.

After a ``--prior 0`` fit the scores are centred inside each strongly connected
component and say nothing across components; the documents' whole-query order
is (level ascending, then score descending), docs/zelo.md. Quantile bins then
rank by that order (documents equal in both share a grade), and fixed score
thresholds are refused by the caller.

Output lines are TREC qrels ``qid 0 docno grade``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

import numpy as np

from ..errors import UsageError, command_running, option_name

if TYPE_CHECKING:
    from collections.abc import Iterable


def parse_grades(text: str) -> list[str]:
    """``"0,1,2,3"`` -> ``["0", "1", "2", "3"]`` (numbers, strictly increasing)."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) < 2:
        raise UsageError(f"{option_name('grades')} needs at least two comma-separated grades, got {text!r}")
    try:
        vals = [float(p) for p in parts]
    except ValueError:
        raise UsageError(f"{option_name('grades')} must be numbers, got {text!r}") from None
    if any(x >= y for x, y in zip(vals, vals[1:], strict=False)):
        raise UsageError(f"{option_name('grades')} must be increasing, got {text!r}")
    return parts


def parse_bins(text: str, n_grades: int) -> tuple[str, np.ndarray | None]:
    """``quantile`` or ``fixed:t1,...`` -> ``("quantile", None)`` / ``("fixed", array)``."""
    if text == "quantile":
        return "quantile", None
    if text.startswith("fixed:"):
        fixed = "--bins fixed:" if command_running() else "bins='fixed:...':"
        try:
            th = np.array([float(p) for p in text[6:].split(",") if p.strip()])
        except ValueError:
            raise UsageError(f"{fixed} expects numbers, got {text!r}") from None
        if len(th) != n_grades - 1:
            raise UsageError(f"{fixed} needs {n_grades - 1} thresholds for {n_grades} grades, got {len(th)}")
        if np.any(np.diff(th) <= 0):
            raise UsageError(f"{fixed} thresholds must be increasing")
        return "fixed", th
    raise UsageError(f"{option_name('bins')} must be 'quantile' or 'fixed:t1,t2,...', got {text!r}")


def grade_bins(scores: np.ndarray, n_grades: int, method: str, thresholds: np.ndarray | None = None,
               levels: np.ndarray | None = None) -> np.ndarray:
    """Bin index 0..n_grades-1 for each score of one query (see module doc).

    ``levels`` (a ``--prior 0`` fit): the SCC level of each document; quantile ranks then follow
    (level ascending, score descending), so a document beaten by another's component never gets
    the higher grade.
    """
    scores = np.asarray(scores, dtype=float)
    if len(scores) == 0:
        return np.zeros(0, dtype=int)
    if method == "quantile":
        from scipy.stats import rankdata

        if levels is None:
            r = rankdata(scores, method="average")
        else:  # mid-ranks of the pairs (-level, score), ascending = worst first
            lv = -np.asarray(levels, dtype=np.int64)
            o = np.lexsort((scores, lv))
            new = np.ones(len(o), dtype=bool)
            new[1:] = (lv[o][1:] != lv[o][:-1]) | (scores[o][1:] != scores[o][:-1])
            starts = np.flatnonzero(new)
            ends = np.append(starts[1:], len(o))  # group g holds sorted positions starts[g]..ends[g]-1
            r = np.empty(len(o))
            r[o] = np.repeat((starts + 1 + ends) / 2.0, ends - starts)
        return np.minimum(np.floor(n_grades * (r - 0.5) / len(scores)).astype(int), n_grades - 1)
    cuts = np.asarray(thresholds, dtype=float)
    return np.searchsorted(cuts, scores, side="right")


def write_qrels(out: TextIO, per_query: Iterable[tuple], grades: list[str], method: str,
                thresholds: np.ndarray | None = None) -> None:
    """Write ``qid 0 docno grade`` for ``per_query``: iterable of (qid, docnos, scores) or
    (qid, docnos, scores, levels) after a ``--prior 0`` fit."""
    for qid, docnos, scores, *levels in per_query:
        bins = grade_bins(np.asarray(scores), len(grades), method, thresholds, levels[0] if levels else None)
        for d, k in zip(docnos, bins, strict=False):
            out.write(f"{qid} 0 {d} {grades[int(k)]}\n")
