"""Qrels from ir_datasets: ``irds:<dataset-id>`` (lazy import)."""
from __future__ import annotations

import numpy as np

from ..errors import InputError


def irds_qrels_columns(dataset_id: str) -> dict[str, np.ndarray]:
    """Load the qrels of ``dataset_id`` through ir_datasets as columns.

    Returns ``qid``, ``iter``, ``docno`` (bytes arrays), ``rel`` (int64) and
    ``line`` (1-based record numbers); :func:`pref_eval.io.qrels.read_qrels`
    builds the :class:`~pref_eval.io.qrels.Qrels` from them (so this module
    does not import ``qrels`` and there is no import loop). ir_datasets
    downloads the files on first use (its own cache); the id must name a
    dataset that provides qrels.
    """
    source = f"irds:{dataset_id}"
    try:
        import ir_datasets
    except ImportError:  # pragma: no cover
        raise InputError(source, 0, "ir_datasets is not installed (pip install ir_datasets)") from None
    try:
        ds = ir_datasets.load(dataset_id)
    except KeyError:
        raise InputError(source, 0, f"unknown ir_datasets id {dataset_id!r}") from None
    if not ds.has_qrels():
        raise InputError(source, 0, f"dataset {dataset_id!r} has no qrels")
    qids, docs, rels, its = [], [], [], []
    try:
        for rec in ds.qrels_iter():
            qids.append(str(rec.query_id).encode())
            docs.append(str(rec.doc_id).encode())
            rels.append(int(rec.relevance))
            its.append(str(getattr(rec, "iteration", "0")).encode())
    except Exception as err:  # network, missing file, ...
        raise InputError(source, 0, f"cannot load qrels: {err}") from None
    n = len(qids)
    if n == 0:
        raise InputError(source, 0, "dataset has no qrels lines")
    return {"qid": np.array(qids, dtype="S"), "iter": np.array(its, dtype="S"),
            "docno": np.array(docs, dtype="S"), "rel": np.asarray(rels, dtype=np.int64),
            "line": np.arange(1, n + 1, dtype=np.int64)}
