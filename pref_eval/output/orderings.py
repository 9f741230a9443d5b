"""``pref_aggregate``'s output: pref_aggregate.py's JSON lines for one sample's :class:`~pref_eval.rank_aggregation.Aggregation`."""
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


ROW_HEADER = ("sample", "qid", "measure", "method", "rank", "run", "score")


def ordering_rows(agg: Aggregation, measures: list[str], *, per_query: bool, summary: bool) -> Iterator[tuple]:
    """Rows ``(sample, qid, measure, method, rank, run, score)``: per query the ranking (score empty),
    then per measure and method the summary ordering with its score -- MC4's stationary probability
    (or, with ``--mc4-steps``, pref_aggregate.py's vector), Borda points; empty for a metric's mean."""
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


def write_ordering_rows(out, rows, fmt: str) -> None:
    """TSV with a header (floats in repr form, empty for no score) or JSON lines."""
    if fmt == "jsonl":
        for r in rows:
            out.write(json.dumps(dict(zip(ROW_HEADER, r, strict=True))) + "\n")
        return
    out.write("\t".join(ROW_HEADER) + "\n")
    for r in rows:
        *head, score = r
        out.write("\t".join(str(x) for x in head) + "\t" + ("" if score is None else repr(score)) + "\n")
