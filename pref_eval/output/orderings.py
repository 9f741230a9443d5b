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
