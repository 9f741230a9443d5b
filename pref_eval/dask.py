"""pref_eval on dask collections: zELO fits and run evaluation past one machine.

``pip install 'pref_eval[dask]'``. Both functions are lazy: they return dask
collections; nothing runs until ``.compute()`` (on the default scheduler, or
on a ``dask.distributed`` cluster once a ``Client`` is connected -- see
docs/dask.md for dask-jobqueue and Kubernetes).

* :func:`fit_judgments`: a dask DataFrame of judgments (columns ``qid``,
  ``doc_a``, ``doc_b``, ``score`` in [0, 1] with 1 = ``doc_b`` better,
  optional ``weight``), *partitioned by query* (all judgments of a query in
  one partition) -> a dask DataFrame ``qid, docno, score, se``: per
  partition, the Bradley-Terry fit of :func:`pref_eval.zelo.fit.fit_bt`.
  Queries are fitted independently, so the rows of a query are those
  ``zelo_fit`` writes for it, whatever the partitioning (queries and
  documents in order of first appearance within the partition).
* :func:`evaluate_runs`: a dask bag of run file paths -> a dask bag of
  ``(run, qid, measure, value)`` rows, the long table of ``zelo_eval -o tsv -q``
  for each run (one task per run; every worker must be able to read the
  run files, and is sent the qrels once).
"""
from __future__ import annotations

from typing import Any

MEASURE_COLUMNS = ("run", "qid", "measure", "value")


def fit_judgments(judgments: Any, *, prior: float = 0.5, weight_power: float = 1.0, tol: float = 1e-9,
                  max_iter: int = 100, scale: str = "logit", elo_offset: float = 1500.0) -> Any:
    """zELO scores of a dask DataFrame of judgments partitioned by query (see the module docstring).

    Options as ``zelo_fit`` (``--prior``, ``--weight-power``, ``--tol``,
    ``--max-iter``, ``--scale``, ``--elo-offset``). Returns a dask DataFrame
    with columns ``qid, docno, score, se`` (natural-log scale unless
    ``scale="elo"``).
    """
    import pandas as pd

    from .errors import UsageError

    missing = [c for c in ("qid", "doc_a", "doc_b", "score") if c not in judgments.columns]
    if missing:
        raise UsageError(f"judgments lack column(s) {', '.join(missing)} (need qid, doc_a, doc_b, score[, weight])")
    if prior < 0 or weight_power < 0:
        raise UsageError("prior and weight_power must be >= 0")
    if scale not in ("logit", "elo"):
        raise UsageError(f"scale must be 'logit' or 'elo', not {scale!r}")
    meta = pd.DataFrame({"qid": pd.Series(dtype=object), "docno": pd.Series(dtype=object),
                         "score": pd.Series(dtype="float64"), "se": pd.Series(dtype="float64")})
    return judgments.map_partitions(fit_frame, prior=prior, weight_power=weight_power, tol=tol, max_iter=max_iter,
                                    scale=scale, elo_offset=elo_offset, meta=meta)


def fit_frame(frame: Any, *, prior: float = 0.5, weight_power: float = 1.0, tol: float = 1e-9, max_iter: int = 100,
              scale: str = "logit", elo_offset: float = 1500.0) -> Any:
    """zELO scores of the judgments in one pandas DataFrame (one partition): ``qid, docno, score, se``."""
    import numpy as np
    import pandas as pd

    from .errors import UsageError
    from .zelo.fit import fit_bt, id_ranks, to_scale
    from .zelo.judgments import Judgments

    n = len(frame)
    if n == 0:
        return pd.DataFrame({"qid": pd.Series(dtype=object), "docno": pd.Series(dtype=object),
                             "score": pd.Series(dtype="float64"), "se": pd.Series(dtype="float64")})
    s = frame["score"].to_numpy(dtype=np.float64)
    w = frame["weight"].to_numpy(dtype=np.float64) if "weight" in frame.columns else None
    if not bool(np.all((s >= 0) & (s <= 1))):
        raise UsageError("judgment scores must be numbers in [0, 1] (1 = doc_b better)")
    if w is not None and not bool(np.all((w >= 0) & np.isfinite(w))):
        raise UsageError("judgment weights must be finite numbers >= 0")
    text = pd.concat([frame[c].astype(str) for c in ("qid", "doc_a", "doc_b")], ignore_index=True)
    codes, names = pd.factorize(text, sort=False)
    table = Judgments()
    table.add_columns(list(names), codes[:n], codes[n:2 * n], codes[2 * n:], s, w)
    q, a, b, sc, wt = table.arrays()
    sizes = np.array([len(table.docs[qid]) for qid in table.queries], dtype=np.int64)
    res = fit_bt(sizes, q, a, b, sc, wt, prior=prior, weight_power=weight_power, tol=tol, max_iter=max_iter,
                 doc_rank=id_ranks([table.docs[qid] for qid in table.queries]))  # independent of line order
    score, se = to_scale(res.score, res.se, scale, elo_offset)
    qcol = np.repeat(np.array(table.queries, dtype=object), sizes)
    docs = [d for qid in table.queries for d in table.docs[qid]]
    return pd.DataFrame({"qid": qcol, "docno": np.array(docs, dtype=object), "score": score, "se": se})


def evaluate_runs(qrels: Any, runs: Any, measures: Any = ("official",), *, complete: bool = False, level: int = 1,
                  depth: int | None = None, summary: bool = False) -> Any:
    """Per-query values of every run in a dask bag of run file paths (see the module docstring).

    ``qrels``: a path (read here, once) or a :class:`~pref_eval.io.qrels.Qrels`;
    ``measures`` as :func:`pref_eval.evaluate`. Returns a dask bag of
    ``(run, qid, measure, value)`` tuples (``summary=True`` adds the
    ``all`` rows); ``.to_dataframe(columns=MEASURE_COLUMNS)`` makes a dask DataFrame.
    Run names are the run ids ``zelo_eval`` uses (file names).
    """
    from .api.measures import _measure_names
    from .io.qrels import Qrels, read_qrels
    from .measures import parse_measures
    from .measures.base import needs_subtopics

    names = _measure_names(measures)
    requests = parse_measures(names)
    q = qrels if isinstance(qrels, Qrels) else read_qrels(qrels, subtopics=needs_subtopics(requests))
    return runs.map(_evaluate_one, q, names, complete, level, depth, summary).flatten()


def _evaluate_one(path: str, qrels: Any, names: list, complete: bool, level: int, depth: int | None,
                  summary: bool) -> list:
    from .api.measures import evaluate_run_group
    from .output.table import long_rows
    from .run_preferences.evaluate import run_id

    rid = run_id(path)
    [(res, _, _, _)] = evaluate_run_group((qrels, [path], [rid], names, complete, level, depth))  # raises on no
    # topic in common
    return [tuple(r) for r in long_rows([res], per_query=True, summary=summary)]
