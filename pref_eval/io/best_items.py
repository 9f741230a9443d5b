"""Best-item sets for best-item evaluation (``zelo_eval -B FILE``).

Two forms, told apart by the first line:

* a **zELO score file** (header ``qid docno score se``, what ``zelo_fit``
  writes): per query, the document(s) with the highest score — every
  document tied at the top is a best item;
* a **qrels-format file** ``qid iter docno grade`` (e.g. the best-passage
  sets of Yan et al., SIGIR 2022, ``topic Q0 docno 1``): the documents with
  grade > 0 are the best items.

Returns :class:`BestItems`, parallel ``qid`` / ``docno`` byte arrays.
"""
from __future__ import annotations


import numpy as np

from ..records import record
from ..errors import InputError
from .textfile import PathLike, display_name, first_line_of_file


@record(frozen=True)
class BestItems:
    """Best items: one row per (query, document)."""

    qid: np.ndarray
    docno: np.ndarray
    source: str = "<best>"

    def __len__(self) -> int:
        return len(self.qid)


def read_best_items(path: PathLike) -> BestItems:
    """Read a best-item set (module doc); an empty set is an error."""
    from .zelo_scores import is_zelo_scores_header

    p = str(path)
    name = display_name(p)
    if is_zelo_scores_header(first_line_of_file(p)):
        from .zelo_scores import refuse_component_scores, score_table_with_header

        cols, table = score_table_with_header(p)
        refuse_component_scores(cols, name, "the best items (top score per query)")
        qids, docs = [], []
        for qid, (docnos, scores, _) in table.items():
            if not docnos:
                continue
            s = np.asarray(scores, dtype=np.float64)
            top = np.flatnonzero(s == np.nanmax(s)) if np.isfinite(s).any() else np.zeros(0, dtype=np.int64)
            qids += [qid] * len(top)
            docs += [docnos[i] for i in top]
        qa = np.array([q.encode() for q in qids], dtype="S") if qids else np.zeros(0, "S1")
        da = np.array([d.encode() for d in docs], dtype="S") if docs else np.zeros(0, "S1")
    else:
        from .qrels import read_qrels

        q = read_qrels(p)
        keep = q.rel > 0
        qa, da = q.qid[keep], q.docno[keep]
    if len(qa) == 0:
        raise InputError(name, 0, "no best item (expected a zELO score file or qrels lines with grade > 0)")
    return BestItems(qid=qa, docno=da, source=name)
