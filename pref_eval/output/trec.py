"""trec_eval's text output: ``printf("%-22s\\t%s\\t%6.4f\\n", name, qid, value)``.

Counts are printed with ``%ld``, ``runid`` as a string, ``relstring`` as
``'…'``. Under ``-Z`` every value is a z-score printed ``%6.4f`` and the name
gets a ``Z`` prefix. Per-query blocks come first, queries in strcmp (byte)
order, measures in trec_eval's table order; then the ``all`` block.
"""
from __future__ import annotations

import math
from typing import Any, TextIO
from collections.abc import Callable, Iterable, Sequence

from ..engine import Column, RunResult


def format_float(v: float) -> str:
    """C ``%6.4f``, including glibc's signed ``-nan`` (Python drops a NaN's sign)."""
    s = f"{v:6.4f}"
    if s[-1] == "n" and math.copysign(1.0, v) < 0:  # 'nan'
        return "  -nan"
    return s


def format_value(col: Column, v: Any) -> str:  # v: str, int or float as col.value_type says
    if col.value_type == "str":
        return f"'{v}'" if col.request is not None and col.request.spec.name == "relstring" else str(v)
    if col.value_type == "int":
        return str(int(round(v)))
    return format_float(float(v))


def trec_lines(
    res: RunResult,
    *,
    per_query: bool,
    summary: bool = True,
    print_missing: bool = True,
    zscore: Callable[[str, str, float], float] | None = None,
    only_qid: str | None = None,
) -> Iterable[str]:
    """Yield trec_eval lines for one run (with trailing newlines); ``only_qid``: per-query lines of
    that query only (``zelo_trec -D N.qid``).

    With ``zscore`` (``-Z``), per-query values are converted first and the
    summaries recomputed from them (:func:`pref_eval.trec_eval.zscores.zscore_result`);
    numeric lines get trec_eval's ``Z%-22s`` name.
    """
    if zscore is not None:
        from ..trec_eval.zscores import zscore_result

        res = zscore_result(res, zscore, only_qid)

    def line(col: Column, qid: str, v) -> str:
        if zscore is not None and col.value_type != "str":
            return f"Z{col.name:<22}\t{qid}\t{format_float(float(v))}\n"
        return f"{col.name:<22}\t{qid}\t{format_value(col, v)}\n"

    if per_query:
        for i, qid in enumerate(res.qids):
            if not print_missing and not res.present[i] or only_qid is not None and qid != only_qid:
                continue
            for col in res.columns:
                if col.summary_only:
                    continue
                yield line(col, qid, col.values[i])
    if summary:
        for col in res.columns:
            if col.per_query_only or col.summary is None:
                continue
            yield line(col, "all", col.summary)


def write_trec(out: TextIO, res: RunResult, **kw: Any) -> None:  # kw: trec_lines' keywords
    out.writelines(trec_lines(res, **kw))


def write_trec_blocks(out: TextIO, results: Sequence[RunResult], names: Sequence[str], *, per_query: bool,
                      summary: bool, print_missing: bool) -> None:
    """One trec_eval block per run; with several runs each is labelled by a ``runid`` line
    (trec_eval's own when the run's results hold none)."""
    for res, name in zip(results, names, strict=False):
        if len(results) > 1 and not any(c.name == "runid" for c in res.columns):
            out.write(f"{'runid':<22}\tall\t{name}\n")
        write_trec(out, res, per_query=per_query, summary=summary, print_missing=print_missing)


def write_score_blocks(out: TextIO, ids: Iterable[str], rows: Sequence[tuple[str, str, str, float | str]], *,
                       summary: bool) -> None:
    """trec_eval-like blocks of rows ``(run, qid, measure, value)`` against a zELO score file: per run its
    rows, a ``runid`` line before its first ``all`` row (with the summary)."""
    for rid in ids:
        mine = [r for r in rows if r[0] == rid]
        if summary:
            k = next((i for i, r in enumerate(mine) if r[1] == "all"), len(mine))
            mine.insert(k, (rid, "all", "runid", rid))
        out.writelines(f"{m:<22}\t{q}\t{v if isinstance(v, str) else format_float(v)}\n" for _, q, m, v in mine)
