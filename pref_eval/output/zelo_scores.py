"""zELO score files: the ``qid docno score se`` TSV and zbench's JSONL (reader: :mod:`pref_eval.io.zelo_scores`).

TSV: a header line ``qid<TAB>docno<TAB>score<TAB>se`` (optionally more
columns, e.g. ``component level`` after a ``--prior 0`` fit), then one row
per document; floats are written with Python's shortest round-trip repr;
a missing SE is ``nan``.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, TextIO

from ..io.zelo_scores import HEADER

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    import numpy as np

    from ..zelo.fit import FitResult


def fmt_float(x: float) -> str:
    """Shortest repr that reads back to the same float (``nan``, ``inf``)."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def write_scores_tsv(out: TextIO, rows: Iterable[Sequence[Any]], extra_columns: tuple[str, ...] = ()) -> None:
    """Write rows ``(qid, docno, score, se, *extra)`` with the header."""
    out.write("\t".join(HEADER + tuple(extra_columns)) + "\n")
    for r in rows:
        qid, docno, score, se = r[:4]
        cells = [qid, docno, fmt_float(score), fmt_float(se)] + [str(c) for c in r[4:]]
        out.write("\t".join(cells) + "\n")


def write_scores_columns(out: TextIO, qids: list[str], docs: list[list[str]], score: np.ndarray, se: np.ndarray,
                         extra: dict | None = None, chunk: int = 1 << 16, header: bool = True) -> None:
    """Write the score TSV from columns: query ``k`` has documents ``docs[k]``, rows in that order.
    ``header=False``: the rows only (a later block of queries of the same file; the same bytes as one call).

    ``score``, ``se`` (and each array in ``extra``, written with ``str`` under
    its key) hold one value per row. Same bytes as :func:`write_scores_tsv`
    (``repr`` of a Python float is :func:`fmt_float`), without a Python call per row:
    the compiled kernel formats the rows when built (:func:`_write_compiled`), else
    ``map(repr, ...)`` and ``str.join``.
    """
    from itertools import chain, islice, repeat

    extra = extra or {}
    if header:
        out.write("\t".join(HEADER + tuple(extra)) + "\n")
    k0, i0 = _write_compiled(out, qids, docs, score, se, extra, chunk)
    qcol = chain.from_iterable(repeat(q, len(d)) for q, d in zip(qids[k0:], docs[k0:], strict=True))
    dcol = chain.from_iterable(docs[k0:])
    n = len(score)
    for i in range(i0, n, chunk):
        j = min(i + chunk, n)
        cols = [map(repr, score[i:j].tolist()), map(repr, se[i:j].tolist())]
        cols += [map(str, v[i:j].tolist()) for v in extra.values()]
        out.write("\n".join(map("\t".join, zip(islice(qcol, j - i), islice(dcol, j - i), *cols, strict=False))) + "\n")


def _write_compiled(out: TextIO, qids: list[str], docs: list[list[str]], score, se, extra: dict,
                    chunk: int) -> tuple[int, int]:
    """Rows of :func:`write_scores_columns` formatted by the compiled kernel
    (``pref_eval._kernels.format_scores``; its floats by ``PyOS_double_to_string(x, 'r', 0,
    Py_DTSF_ADD_DOT_0)``, which is what ``float.__repr__`` calls), about ``chunk`` rows per call.
    Returns the query and the row where it stopped: ``(0, 0)`` when the kernels are not built,
    the query of a chunk it could not format (an id that is not UTF-8-encodable, a lone surrogate;
    not a ``str``) -- the Python path writes the rest, with the same bytes or the same error.
    """
    import numpy as np

    from ..native import kernels

    kern = kernels()
    if kern is None or not len(docs):
        return 0, 0
    score = np.ascontiguousarray(score, dtype=np.float64)
    se = np.ascontiguousarray(se, dtype=np.float64)
    cols = [np.asarray(v) for v in extra.values()]
    ends = np.cumsum(np.fromiter(map(len, docs), dtype=np.int64, count=len(docs)))
    if int(ends[-1]) != len(score) or len(se) != len(score):
        return 0, 0
    k0, i0 = 0, 0
    while k0 < len(docs):
        k1 = max(int(np.searchsorted(ends, i0 + chunk, side="right")), k0 + 1)
        i1 = int(ends[k1 - 1])
        try:
            text = kern.format_scores(list(qids[k0:k1]), [d if type(d) is list else list(d) for d in docs[k0:k1]],
                                      score[i0:i1], se[i0:i1], [list(map(str, c[i0:i1].tolist())) for c in cols])
        except (UnicodeEncodeError, TypeError):
            return k0, i0
        out.write(text)
        k0, i0 = k1, i1
    return k0, i0


def write_zbench_jsonl(out: TextIO, queries: Iterable[tuple[str, Sequence[tuple[str, float]]]],
                       dataset_records: dict | None = None) -> None:
    """Write zbench AnnotatedQueryDocuments JSONL.

    ``queries`` yields ``(qid, [(docno, score), ...])``. ``dataset_records``
    maps qid to the original zbench dataset record (query text, content and
    metadata are copied from it); without it query text and content are "".
    """
    from .json_text import json_dumps  # only this writer needs json (zelo_fit's start-up, #13)

    for qid, docs in queries:
        rec = (dataset_records or {}).get(qid)
        query = rec["query"] if rec else {"id": qid, "query": ""}
        src = {str(d["id"]): d for d in rec["documents"]} if rec else {}
        documents = []
        for docno, score in docs:
            d = src.get(docno, {})
            documents.append({"id": docno, "content": d.get("content", ""),
                              "metadata": d.get("metadata", {}), "score": float(score)})
        out.write(json_dumps({"query": query, "documents": documents}, ensure_ascii=False,
                             separators=(",", ":")) + "\n")


DIAGNOSTICS_HEADER = ("qid\tn_docs\tn_judged\tn_judgments\tn_components\tn_perfect\titerations\tloglik\t"
                      "grad_max\tconverged\n")


def write_diagnostics(out: TextIO, queries: list[str], sizes: Sequence[int] | np.ndarray,
                      n_judgments: Sequence[int] | np.ndarray, fit: FitResult | None = None) -> None:
    """``zelo_fit --diagnostics``: one TSV row per query of a Bradley–Terry fit.

    ``sizes[k]`` documents and ``n_judgments[k]`` judgments of query ``k``; ``fit`` a
    :class:`pref_eval.zelo.fit.FitResult` (``None`` after ``--compat zbench``: only those two counts).
    """
    out.write(DIAGNOSTICS_HEADER)
    for k, qid in enumerate(queries):
        if fit is None:
            out.write(f"{qid}\t{sizes[k]}\t\t{n_judgments[k]}\t\t\t\t\t\t\n")
            continue
        r = fit
        out.write(f"{qid}\t{r.n_docs[k]}\t{r.n_judged[k]}\t{n_judgments[k]}\t{r.n_components[k]}\t"
                  f"{r.n_perfect[k]}\t{r.iterations[k]}\t{float(r.loglik[k])!r}\t{r.grad_max[k]:.3g}\t"
                  f"{int(r.converged[k])}\n")
