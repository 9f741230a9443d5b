"""Evaluate runs against a zELO score file (for ``zelo_eval -R SCORES.tsv``).

The score file is zelo_fit's TSV or zbench's AnnotatedQueryDocuments JSONL; a run is a TREC run or a
reranker's output in zbench's JSONL (:func:`pref_eval.io.zelo_scores.read_scored_candidates`).

Measures (names as accepted by :func:`parse_zelo_measure`):

* ``zndcg`` / ``zndcg@K`` -- :func:`~.bench_measures.ndcg_exp` (gains e^score);
* ``zacc`` -- :func:`~.bench_measures.pairwise_accuracy` (ties explicit);
* ``zrecall@K`` / ``zrecall@K,KGT`` -- :func:`~.bench_measures.recall_at_k`.

A run's candidates for a query are its documents in file order with their
scores; documents without a zELO score are dropped (counted per query).
Queries of the score file that a run lacks are skipped (no -c semantics).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from ..errors import UsageError, shown
from .bench_measures import align, ndcg_exp, pairwise_accuracy, recall_at_k
from ..io.zelo_scores import looks_like_zelo_scores, read_zelo_scores, what_score_file  # noqa: F401 - re-exported

DEFAULT_MEASURES = ("zndcg", "zndcg@10", "zacc", "zrecall@10")
_RX = r"^(zndcg|zacc|zrecall)(?:@(\d+)(?:,(\d+))?)?$"  # compiled on use (re caches it)


def measure_names(names: Sequence[str]) -> list[str]:
    """The zELO measures asked for: ``official`` (``evaluate``'s default, metric mode's named set) stands for
    zbench's default set :data:`DEFAULT_MEASURES` wherever it is given, and a measure given twice is computed
    once, as trec_eval's measures are (``zelo_eval -R SCORES -m official`` was "unknown zELO measure" while
    ``zelo_compare`` and ``pref_eval.evaluate`` took it, and ``official`` beside another measure nowhere)."""
    return list(dict.fromkeys(m for n in names for m in (DEFAULT_MEASURES if n == "official" else (n,))))


def parse_zelo_measure(name: str, where: str | None = None) -> tuple[str, int | None, int | None]:
    """``"zrecall@10,5"`` -> ``("zrecall", 10, 5)``; raises UsageError otherwise (naming the score file
    ``where`` and why it is one, when given)."""
    m = re.match(_RX, name)
    if not m:
        why = f"{what_score_file(where)}: " if where is not None else ""
        raise UsageError(f"{why}unknown zELO measure {shown(name)} (zndcg, zndcg@K, zacc, zrecall@K, zrecall@K,KGT)")
    kind, k, kgt = m.group(1), m.group(2), m.group(3)
    if kind == "zrecall" and k is None:
        raise UsageError("zrecall needs a cutoff: zrecall@K")
    if kind == "zacc" and k is not None:
        raise UsageError("zacc takes no cutoff")
    return kind, (int(k) if k else None), (int(kgt) if kgt else None)


def evaluate_against_scores(scores_path: str, run_paths: Sequence[str], measures: Sequence[str] = DEFAULT_MEASURES, *,
                            limit: int | None = None, table: dict | None = None,
                            dropped: dict | None = None) -> list[tuple[str, str, str, float]]:
    """Rows ``(run_name, qid, measure, value)`` and per-run means (qid ``all``).

    ``limit`` keeps the first N candidates of each query in run-file order
    (zbench's ``document_limit``; default all). ``table``: the score file as :func:`read_zelo_scores` reads it,
    when the caller has read it already (default: read here). ``dropped``: see :func:`candidate_rows`.
    """
    from ..io.textfile import display_name
    from ..io.zelo_scores import read_scored_candidates

    for m in measures:  # before any file is read
        parse_zelo_measure(m)
    table = read_zelo_scores(scores_path) if table is None else table
    return candidate_rows(table, ((display_name(p), read_scored_candidates(p)) for p in run_paths), measures,
                          limit=limit, dropped=dropped)


def candidate_rows(table: dict, runs: Iterable[tuple[str, dict]], measures: Sequence[str], *,
                   limit: int | None = None, dropped: dict | None = None) -> list[tuple[str, str, str, float]]:
    """:func:`evaluate_against_scores`' rows for runs already read: ``(name, {qid: (docnos, scores)})`` pairs
    (:func:`pref_eval.io.zelo_scores.read_scored_candidates`, :func:`~pref_eval.io.zelo_scores.run_candidates`)
    against the score ``table`` (:func:`read_zelo_scores`). A dict ``dropped`` gets per run ``[candidates left out
    for want of a zELO score, candidates]`` over the queries of the table (after ``limit``)."""
    parsed = [(m, parse_zelo_measure(m)) for m in measures]
    rows = []
    for run_name, run in runs:
        per: dict[str, list[float]] = {m: [] for m, _ in parsed}
        counts = dropped.setdefault(run_name, [0, 0]) if dropped is not None else [0, 0]
        for qid in sorted(run):
            if qid not in table:
                continue
            docnos, run_scores = run[qid]
            r, g, missing = align(docnos, run_scores, table[qid], limit=limit)
            counts[0] += missing
            counts[1] += missing + len(r)
            for name, (kind, k, kgt) in parsed:
                if kind == "zndcg":
                    v = ndcg_exp(r, g, k)
                elif kind == "zacc":
                    v = pairwise_accuracy(r, g)
                else:
                    if k is None:  # parse_zelo_measure refuses zrecall without a cutoff
                        raise RuntimeError("internal error: zrecall without a cutoff")
                    v = recall_at_k(r, g, k, kgt)
                per[name].append(v)
                rows.append((run_name, qid, name, v))
        for name, _ in parsed:
            vals = np.array(per[name], dtype=float)
            vals = vals[~np.isnan(vals)]
            rows.append((run_name, "all", name, float(vals.mean()) if len(vals) else float("nan")))
    return rows


def dropped_warning(run: str, counts: Sequence[int], scores: str) -> str | None:
    """The warning for a run some of whose documents have no zELO score (``counts``: :func:`candidate_rows`'
    ``dropped`` entry), or None. zbench's ``benchmark.py`` raises on such a document; here it is left out, which
    changes what the measures rank (a TREC run of 1,000 documents against a pool of 30 a query): said once a run."""
    left, total = counts
    if not left:
        return None
    return (f"{run}: {left} of its {total} documents on the queries of {scores} have no zELO score there and are "
            f"left out: the measures rank the {total - left} that have one (zbench's benchmark.py raises on such a "
            "document)")
