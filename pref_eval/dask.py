"""pref_eval on dask collections: zELO fits and run evaluation past one machine.

``pip install 'pref_eval[dask]'``. Both functions are lazy: they return dask
collections; nothing runs until ``.compute()`` (on the default scheduler, or
on a ``dask.distributed`` cluster once a ``Client`` is connected -- see
docs/dask.md for dask-jobqueue and Kubernetes).

* :func:`fit_judgments`: a dask DataFrame of judgments (columns ``qid``,
  ``doc_a``, ``doc_b``, ``score`` in [0, 1] with 1 = ``doc_b`` better,
  optional ``weight``) -> a dask DataFrame ``qid, docno, score, se``: the
  judgments shuffled by query (their order kept), then per partition the
  Bradley-Terry fit of :func:`pref_eval.zelo.fit.fit_bt`. Queries are fitted
  independently, so the rows of a query are those ``zelo_fit`` writes for
  it, whatever the partitioning (documents in order of first appearance;
  queries grouped by output partition, each in order of first appearance).
  ``partitioned_by_query=True`` skips the shuffle and refuses, at
  ``.compute()``, a query found in two partitions.
* :func:`evaluate_runs`: a dask bag of run file paths -> a dask bag of
  ``(run, qid, measure, value)`` rows, the long table of ``zelo_eval -o tsv -q``
  for each run (one task per run; every worker must be able to read the
  run files, and is sent the qrels once).
"""
from __future__ import annotations

import os
from typing import Any

MEASURE_COLUMNS = ("run", "qid", "measure", "value")


def fit_judgments(judgments: Any, *, prior: float = 0.5, weight_power: float = 1.0, tol: float = 1e-9,
                  max_iter: int = 100, scale: str = "logit", elo_offset: float = 1500.0,
                  partitioned_by_query: bool = False) -> Any:
    """zELO scores of a dask DataFrame of judgments (see the module docstring).

    Options as ``zelo_fit`` (``--prior``, ``--weight-power``, ``--tol``,
    ``--max-iter``, ``--scale``, ``--elo-offset``). Returns a dask DataFrame
    with columns ``qid, docno, score, se`` (natural-log scale unless
    ``scale="elo"``): each query's rows are those ``zelo_fit`` writes for the
    same judgments, however they are partitioned. By default the judgments
    are shuffled by query first (their order kept); ``partitioned_by_query=True``
    skips the shuffle for a frame whose queries each lie in one partition, and
    ``.compute()`` raises :class:`~pref_eval.errors.UsageError` naming a query
    found in two partitions (its fit would be two half fits).
    """
    import pandas as pd

    from .api._inputs import _check_flags
    from .api.fitting import _check_fit_options
    from .errors import UsageError

    if not (hasattr(judgments, "map_partitions") and hasattr(judgments, "columns")):
        raise UsageError("judgments: expected a dask DataFrame with columns qid, doc_a, doc_b, score[, weight], "
                         f"got {type(judgments).__name__} (dask.dataframe.from_pandas(frame, npartitions=N) makes "
                         "one from a pandas DataFrame)")
    missing = [c for c in ("qid", "doc_a", "doc_b", "score") if c not in judgments.columns]
    if missing:
        raise UsageError(f"judgments lack column(s) {', '.join(missing)} (need qid, doc_a, doc_b, score[, weight])")
    _check_fit_options(prior=prior, weight_power=weight_power, tol=tol, max_iter=max_iter, scale=scale,
                      elo_offset=elo_offset)
    _check_flags(partitioned_by_query=partitioned_by_query)
    options = dict(prior=prior, weight_power=weight_power, tol=tol, max_iter=max_iter, scale=scale,
                   elo_offset=elo_offset)
    meta = pd.DataFrame({"qid": pd.Series(dtype=object), "docno": pd.Series(dtype=object),
                         "score": pd.Series(dtype="float64"), "se": pd.Series(dtype="float64")})
    if judgments.npartitions == 1:  # nothing to split or to check
        return judgments.map_partitions(fit_frame, **options, meta=meta)
    if partitioned_by_query:
        from dask import delayed

        import dask.dataframe as dd

        fits = [delayed(fit_frame, pure=True)(part, **options) for part in judgments.to_delayed()]
        check = delayed(_one_partition_per_query, pure=True)([delayed(_queries, pure=True)(f) for f in fits])
        return dd.from_delayed([delayed(_checked, pure=True)(f, check) for f in fits], meta=meta,
                               verify_meta=False)
    tagged = judgments.map_partitions(_tag_order, meta=_tag_order(judgments._meta))
    return tagged.shuffle("qid").map_partitions(_fit_in_order, **options, meta=meta)


#: the columns :func:`fit_judgments` adds before its shuffle: a row's partition and position in the input
_ORDER = ("_pref_eval_part", "_pref_eval_row")


def _tag_order(frame: Any, partition_info: Any = None) -> Any:
    """One input partition, its ``qid`` as text (the fit's query name, so that ``1`` and ``"1"`` meet) and each
    row's place in the input (partition number, row), by which :func:`_fit_in_order` restores the order."""
    import numpy as np

    part = partition_info["number"] if partition_info else 0
    return frame.assign(qid=frame["qid"].astype(str), **{_ORDER[0]: np.full(len(frame), part, dtype=np.int64),
                                                         _ORDER[1]: np.arange(len(frame), dtype=np.int64)})


def _fit_in_order(frame: Any, **options: Any) -> Any:
    """A shuffled partition in input order (the shuffle does not keep it), then :func:`fit_frame`."""
    frame = frame.sort_values(list(_ORDER), kind="stable")
    return fit_frame(frame.drop(columns=list(_ORDER)), **options)


def _queries(fitted: Any) -> list:
    return list(dict.fromkeys(fitted["qid"]))


def _one_partition_per_query(queries: list) -> None:
    """``partitioned_by_query=True``: refuse a query fitted in two partitions (two half fits)."""
    from .errors import UsageError

    seen: dict[str, int] = {}
    for k, qids in enumerate(queries):
        for qid in qids:
            if qid in seen:
                raise UsageError(f"judgments: query {qid!r} is in partitions {seen[qid]} and {k}, but "
                                 "partitioned_by_query=True says each query lies in one partition (leave it "
                                 "False to have the judgments shuffled by query)")
            seen[qid] = k


def _checked(fitted: Any, check: None) -> Any:
    return fitted


def _quiet_worker_log() -> None:
    """In a dask.distributed worker: drop its "Compute Failed" log record (an ERROR with the worker's traceback)
    for our own errors (:class:`~pref_eval.errors.PrefEvalError`: a bad input line, a bad value), which the
    client raises with their one-line message anyway; any other failure is logged as distributed does."""
    import logging

    log = logging.getLogger("distributed.worker")
    if _drop_our_failures not in log.filters:
        log.addFilter(_drop_our_failures)


def _error_names() -> tuple[str, ...]:
    from .errors import PrefEvalError

    seen, todo = [], [PrefEvalError]
    while todo:
        c = todo.pop()
        seen.append(c.__name__)
        todo.extend(c.__subclasses__())
    return tuple(f"{n}(" for n in seen)


def _drop_our_failures(record: Any) -> bool:
    if not (isinstance(record.msg, str) and record.msg.startswith("Compute Failed") and len(record.args or ()) > 3):
        return True
    text = record.args[3]
    return not (isinstance(text, str) and text.startswith(_error_names()))


def fit_frame(frame: Any, *, prior: float = 0.5, weight_power: float = 1.0, tol: float = 1e-9, max_iter: int = 100,
              scale: str = "logit", elo_offset: float = 1500.0) -> Any:
    """zELO scores of the judgments in one pandas DataFrame (one partition): ``qid, docno, score, se``."""
    import numpy as np
    import pandas as pd

    from .errors import UsageError
    from .zelo.fit import fit_bt, id_ranks, to_scale
    from .zelo.judgments import Judgments

    _quiet_worker_log()
    n = len(frame)
    if n == 0:
        return pd.DataFrame({"qid": pd.Series(dtype=object), "docno": pd.Series(dtype=object),
                             "score": pd.Series(dtype="float64"), "se": pd.Series(dtype="float64")})

    def numbers(column: str, ok: Any, what: str) -> Any:
        values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
        bad = ~ok(values)
        if bool(bad.any()):
            k = int(np.flatnonzero(bad)[0])
            raise UsageError(f"judgment {column}s must be {what}: row {frame.index[k:k + 1].tolist()[0]!r} (qid "
                             f"{frame['qid'].iloc[k]!r}) has {frame[column].iloc[k:k + 1].tolist()[0]!r}")
        return values

    s = numbers("score", lambda v: (v >= 0) & (v <= 1), "numbers in [0, 1] (1 = doc_b better)")
    w = numbers("weight", lambda v: (v >= 0) & np.isfinite(v), "finite numbers >= 0") \
        if "weight" in frame.columns else None
    from .io.frames import text_column

    same = (text_column(frame["doc_a"]).to_numpy(dtype=object) == text_column(frame["doc_b"]).to_numpy(dtype=object))
    if bool(same.any()):  # as the judgment readers ("docA and docB are the same document")
        k = int(np.flatnonzero(same)[0])
        raise UsageError(f"doc_a and doc_b are the same document {str(frame['doc_a'].iloc[k])!r}: row "
                         f"{frame.index[k:k + 1].tolist()[0]!r} (qid {frame['qid'].iloc[k]!r})")
    # (a Latin-1 id as bytes or as its surrogate escape: object columns, the readers' ids; was a UnicodeError)
    text = np.concatenate([text_column(frame[c]).to_numpy(dtype=object) for c in ("qid", "doc_a", "doc_b")])
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
    from .io.frames import frame as id_frame  # (object columns when an id is not UTF-8)

    return id_frame({"qid": qcol, "docno": np.array(docs, dtype=object), "score": score, "se": se})


def evaluate_runs(qrels: Any, runs: Any, measures: Any = ("official",), *, complete: bool = False, level: int = 1,
                  depth: int | None = None, summary: bool = False) -> Any:
    """Per-query values of every run in a dask bag of run file paths (see the module docstring).

    ``qrels``: a path (read here, once) or a :class:`~pref_eval.io.qrels.Qrels`;
    ``measures`` as :func:`pref_eval.evaluate`. Returns a dask bag of
    ``(run, qid, measure, value)`` tuples (``summary=True`` adds the
    ``all`` rows); ``.to_dataframe(columns=MEASURE_COLUMNS)`` makes a dask DataFrame.
    Run names are the run ids ``zelo_eval`` uses: the shortest unique path suffix over the whole bag
    (``runs/bm25.run`` -> ``bm25.run``; ``exp1/run.txt`` and ``exp2/run.txt`` keep their folders); the same
    file twice is a :class:`~pref_eval.errors.UsageError` at ``.compute()``.
    """
    from .api._inputs import _check_flags, _check_int, _load_qrels
    from .api.measures import _measure_names
    from .errors import UsageError
    from .measures import parse_measures
    from .measures.base import needs_subtopics

    _check_flags(complete=complete, summary=summary)
    _check_int("level", level)
    _check_int("depth", depth, 1, optional=True)
    if not (hasattr(runs, "map") and hasattr(runs, "npartitions")):
        raise UsageError(f"runs: expected a dask bag of run file paths, got {type(runs).__name__} "
                         "(dask.bag.from_sequence(paths) makes one; pref_eval.evaluate takes a list)")
    names = _measure_names(measures)
    requests = parse_measures(names)
    q = _load_qrels(qrels, subtopics=needs_subtopics(requests))
    ids = runs.reduction(list, _run_ids, split_every=False)  # the rule of zelo_eval, over the whole bag
    return runs.map(_evaluate_one, ids, q, names, complete, level, depth, summary).flatten()


def _run_ids(parts: list) -> dict:
    """{path: run id} of every run path in the bag: the shortest unique path suffix, as ``zelo_eval`` names its
    runs (:mod:`pref_eval.io.run_ids`: ``exp1/run.txt``, ``exp2/run.txt``); the same file twice is an error."""
    from .io.run_ids import shortest_unique_suffixes

    _quiet_worker_log()
    paths = [p for part in parts for p in part]
    for p in paths:
        _check_path(p)
    return dict(zip(map(os.fspath, paths), shortest_unique_suffixes(paths), strict=True))


def _check_path(path: Any) -> None:
    if not isinstance(path, (str, os.PathLike)):
        from .errors import UsageError

        raise UsageError(f"runs: expected run file paths, got {type(path).__name__} {path!r}")


def _evaluate_one(path: str, ids: dict, qrels: Any, names: list, complete: bool, level: int, depth: int | None,
                  summary: bool) -> list:
    from .api.measures import evaluate_run_group
    from .output.table import long_rows

    _quiet_worker_log()
    _check_path(path)
    rid = ids[os.fspath(path)]
    [(res, _, _, _)] = evaluate_run_group((qrels, [path], [rid], names, complete, level, depth))  # raises on no
    # topic in common
    return [tuple(r) for r in long_rows([res], per_query=True, summary=summary)]
