"""``pref_aggregate``'s outputs for one sample's :class:`~pref_eval.rank_aggregation.Aggregation`.

``json_lines``: pref_aggregate.py's JSON lines; ``tsv_lines``: one row per
(sample, qid, measure, method, rank, run); ``markdown_lines``: a table of the
summary orderings, one column per (measure, method).
"""
from __future__ import annotations

import json
from collections.abc import Iterator

from ..rank_aggregation import Aggregation


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
            yield json.dumps(obj) + "\n"
    if summary:
        obj = {"qid": "all", "sample": agg.sample}
        for m in measures:
            obj[m] = agg.summary[m]
        yield json.dumps(obj) + "\n"


TSV_HEADER = "sample\tqid\tmeasure\tmethod\trank\trun\n"


def tsv_lines(agg: Aggregation, measures: list[str], *, per_query: bool, summary: bool) -> Iterator[str]:
    """Rows under :data:`TSV_HEADER` (per-query rankings have method ``ranking``, summaries qid ``all``)."""
    if per_query:
        for q in agg.qids:
            for m in measures:
                for k, run in enumerate(agg.per_query.get(q, {}).get(m, []), 1):
                    yield f"{agg.sample}\t{q}\t{m}\tranking\t{k}\t{run}\n"
    if summary:
        for m in measures:
            for method, runs in agg.summary[m].items():
                if method == "type":
                    continue
                for k, run in enumerate(runs, 1):
                    yield f"{agg.sample}\tall\t{m}\t{method}\t{k}\t{run}\n"


def markdown_lines(agg: Aggregation, measures: list[str]) -> Iterator[str]:
    """A Markdown table of the summary orderings: rank, then one column per (measure, method)."""
    cols = [(m, meth) for m in measures for meth in agg.summary[m] if meth != "type"]
    yield (f"### sample {agg.sample}\n\n| rank | " + " | ".join(f"{m} ({meth})" for m, meth in cols)
           + " |\n|---:|" + "---|" * len(cols) + "\n")
    depth = max((len(agg.summary[m][meth]) for m, meth in cols), default=0)
    for k in range(depth):
        cells = [agg.summary[m][meth][k] if k < len(agg.summary[m][meth]) else "" for m, meth in cols]
        yield f"| {k + 1} | " + " | ".join(cells) + " |\n"
    yield "\n"
