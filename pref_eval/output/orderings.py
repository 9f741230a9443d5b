"""``pref_aggregate``'s outputs for one sample's :class:`~pref_eval.rank_aggregation.Aggregation`.

``json_lines``: pref_aggregate.py's JSON lines; ``tsv_lines`` / ``jsonl_lines``: one row per
(sample, qid, measure, method, rank, run, score); ``markdown_lines``: a table of the
summary orderings, one column per (measure, method).
"""
from __future__ import annotations

from collections.abc import Iterator

from ..rank_aggregation import Aggregation
from .markup import markdown_escape
from .json_text import json_dumps


def json_lines(agg: Aggregation, measures: list[str], *, per_query: bool, summary: bool) -> Iterator[str]:
    """pref_aggregate.py's lines: per query (preference measures first), then the summary."""
    if per_query:
        prefs = [m for m in measures if agg.summary[m]["type"] == "preference"]
        mets = [m for m in measures if agg.summary[m]["type"] == "metric"]
        for q in agg.qids:
            obj = {"qid": q, "sample": agg.sample}
            for m in prefs + mets:
                if m in agg.per_query.get(q, {}):
                    obj[m] = agg.per_query[q][m]
            yield json_dumps(obj) + "\n"
    if summary:
        obj = {"qid": "all", "sample": agg.sample}
        for m in measures:
            obj[m] = agg.summary[m]
        yield json_dumps(obj) + "\n"


ROW_HEADER = ("sample", "qid", "measure", "method", "rank", "run", "score")
TSV_HEADER = "\t".join(ROW_HEADER) + "\n"


def ordering_rows(agg: Aggregation, measures: list[str], *, per_query: bool, summary: bool) -> Iterator[tuple]:
    """Rows ``(sample, qid, measure, method, rank, run, score)``: per query the ranking (method
    ``ranking``, score None), then per measure and method the summary ordering (qid ``all``) with its
    score -- MC4's stationary probability π (with ``--mc4-steps``, pref_aggregate.py's vector), the
    Borda points; None for a metric's mean."""
    if per_query:
        for q in agg.qids:
            for m in measures:
                for k, run in enumerate(agg.per_query.get(q, {}).get(m, []), 1):
                    yield agg.sample, q, m, "ranking", k, run, None
    if summary:
        for m in measures:
            sc = agg.scores.get(m, {})
            for method, runs in agg.summary[m].items():
                if method == "type":
                    continue
                for k, run in enumerate(runs, 1):
                    yield agg.sample, "all", m, method, k, run, sc.get(method, {}).get(run)


def tsv_lines(agg: Aggregation, measures: list[str], *, per_query: bool, summary: bool) -> Iterator[str]:
    """Rows under :data:`TSV_HEADER` (floats in repr form; an empty score for none)."""
    for *head, score in ordering_rows(agg, measures, per_query=per_query, summary=summary):
        yield "\t".join(str(x) for x in head) + "\t" + ("" if score is None else repr(score)) + "\n"


def jsonl_lines(agg: Aggregation, measures: list[str], *, per_query: bool, summary: bool) -> Iterator[str]:
    """The rows of :func:`ordering_rows` as JSON objects (``score`` null for none)."""
    for r in ordering_rows(agg, measures, per_query=per_query, summary=summary):
        yield json_dumps(dict(zip(ROW_HEADER, r, strict=True))) + "\n"


def markdown_lines(agg: Aggregation, measures: list[str]) -> Iterator[str]:
    """A Markdown table of the summary orderings: rank, then one column per (measure, method)."""
    cols = [(m, meth) for m in measures for meth in agg.summary[m] if meth != "type"]
    yield (f"### sample {agg.sample}\n\n| rank | "
           + " | ".join(markdown_escape(f"{m} ({meth})") for m, meth in cols)
           + " |\n|---:|" + "---|" * len(cols) + "\n")
    depth = max((len(agg.summary[m][meth]) for m, meth in cols), default=0)
    for k in range(depth):
        cells = [agg.summary[m][meth][k] if k < len(agg.summary[m][meth]) else "" for m, meth in cols]
        yield f"| {k + 1} | " + " | ".join(markdown_escape(c) for c in cells) + " |\n"
    yield "\n"
