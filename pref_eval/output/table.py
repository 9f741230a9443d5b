"""Long-form tables: one row per (run, qid, measure) → TSV, CSV, JSON lines.

Columns ``run, qid, measure, value``; summary rows have qid ``all``. Floats
are written in Python's shortest round-trip form (``repr``) so nothing is lost
when a table is read back (``zelo_compare -P``); counts as integers; strings
(runid, relstring) as they are.
"""
from __future__ import annotations

import csv
import math
from typing import Any, TextIO
from collections.abc import Iterable, Iterator, Sequence

from ..engine import RunResult
from .json_text import json_dumps

HEADER = ("run", "qid", "measure", "value")


def long_rows(results: Sequence[RunResult], *, per_query: bool = True, summary: bool = True,
              print_missing: bool = True) -> Iterator[tuple[str, str, str, object]]:
    """Yield (run, qid, measure, value) in trec_eval order, run after run."""
    for res in results:
        if per_query:
            for i, qid in enumerate(res.qids):
                if not print_missing and not res.present[i]:
                    continue
                for col in res.columns:
                    if col.summary_only:
                        continue
                    yield res.name, qid, col.name, _value(col.value_type, col.values[i])
        if summary:
            for col in res.columns:
                if col.per_query_only or col.summary is None:
                    continue
                yield res.name, "all", col.name, _value(col.value_type, col.summary)


def _value(kind: str, v):
    if kind == "str":
        return str(v)
    if kind == "int":
        return int(round(float(v)))
    return float(v)


def _text(v) -> str:
    return repr(v) if isinstance(v, float) else str(v)


def write_tsv(out: TextIO, rows: Iterable[tuple], *, header: bool = True) -> None:
    if header:
        out.write("\t".join(HEADER) + "\n")
    for r in rows:
        out.write("\t".join(_text(x) for x in r) + "\n")


def write_csv(out: TextIO, rows: Iterable[tuple], *, header: bool = True) -> None:
    w = csv.writer(out, lineterminator="\n")
    if header:
        w.writerow(HEADER)
    for r in rows:
        w.writerow([_text(x) for x in r])


def write_jsonl(out: TextIO, rows: Iterable[tuple]) -> None:
    for r in rows:
        out.write(json_dumps(dict(zip(HEADER, r, strict=False))) + "\n")


WRITERS = {"tsv": write_tsv, "csv": write_csv, "jsonl": write_jsonl}


def topic_table(rows: Iterable[tuple], runs: Sequence[str], median: str = "mean",
                types: Sequence[str] | None = None, quartiles: bool = False, clef: bool = False) -> Iterator[list]:
    """``-o topics``: per topic and measure the min / median / max over the runs and each run's value.

    ``rows`` are :func:`long_rows` ``(run, qid, measure, value)``; ``runs`` the run ids in column order.
    Yields the header ``qid, measure, runs, min, median, max, RUN...`` and one row per (topic, measure):
    topics in byte order (``all``, the means, last), measures in the order first met; ``runs`` counts the
    runs holding the topic (a run without it has an empty cell and is not counted). The median of an even
    number of values is the mean of the two middle ones (``numpy.median``, pandas' ``median``), or with
    ``median="upper"`` the larger of them (``statistics.median_high``: the "upper median" of the per-topic
    medians NIST distributes to TREC participants, Ounis, Macdonald & Soboroff, Overview of the TREC 2008
    Blog Track). Text measures (``runid``, ``relstring``) are left out.

    ``types`` (one a run, as ``runs``): a column ``type`` after ``measure`` and a row per type that has a run
    holding the topic (types in the order their first run comes), its statistics over the runs of that type
    only, the other runs' cells empty (NIST's medians are over the runs of one run type). ``quartiles``: columns
    ``q1`` and ``q3`` around the median (CLEF's per-topic tables), ``numpy.quantile``'s default (linear
    interpolation, Hyndman & Fan's type 7, also pandas' and R's default) whatever ``median`` says. ``clef``: the
    CLEF appendices' per-topic statistics (Di Nunzio & Ferro, CLEF 2007 working notes): the quartiles and, after
    ``max``, columns ``mean``, ``std`` (the sample standard deviation, n - 1; empty for one run), ``iqr`` (q3 - q1)
    and ``range`` (max - min); sums by ``math.fsum`` (correctly rounded: the same bits on every CPU).
    """
    import numpy as np

    cells: dict[tuple[str, str], dict[str, Any]] = {}
    for run, qid, measure, value in rows:
        if isinstance(value, str):
            continue
        cells.setdefault((qid, measure), {})[run] = value
    measures = list(dict.fromkeys(m for _, m in cells))
    order = {m: k for k, m in enumerate(measures)}
    kinds = list(dict.fromkeys(types)) if types is not None else [None]
    members = {k: set(runs) if k is None else {r for r, t in zip(runs, types or (), strict=True) if t == k}
               for k in kinds}
    quartiles = quartiles or clef
    yield ["qid", "measure", *(["type"] if types is not None else []), "runs", "min",
           *(["q1"] if quartiles else []), "median", *(["q3"] if quartiles else []), "max",
           *(CLEF_COLUMNS if clef else []), *runs]
    for qid, measure in sorted(cells, key=lambda c: (c[0] == "all", c[0].encode("utf-8", "surrogateescape"),
                                                     order[c[1]])):
        got = cells[(qid, measure)]
        for kind in kinds:
            mine = {r: v for r, v in got.items() if r in members[kind]}
            if not mine:
                continue
            vals = list(mine.values())
            a = np.asarray(vals, dtype=float)
            lo, hi = min(vals), max(vals)  # as written (an integer count stays one)
            mid = float(np.median(a)) if median == "mean" else float(np.sort(a)[len(a) // 2])
            q = [float(x) for x in np.quantile(a, [0.25, 0.75])] if quartiles else []
            yield [qid, measure, *([kind] if types is not None else []), len(vals), lo, *q[:1], mid, *q[1:], hi,
                   *(_clef_cells(vals, q, lo, hi) if clef else []), *(mine.get(r, "") for r in runs)]


CLEF_COLUMNS = ("mean", "std", "iqr", "range")
"""``--clef-stats``' columns after ``max`` (the CLEF 2007 appendices' Mean, Std, IQR, Range)."""


def _clef_cells(vals: list, q: list[float], lo: Any, hi: Any) -> list:
    """mean, sample standard deviation (n - 1; ``""`` for one value), q3 - q1 and max - min of ``vals`` (an
    integer range for counts). A row holds one value a run (tens, not a loop per document)."""
    n = len(vals)
    mean = math.fsum(vals) / n
    std: object = math.sqrt(math.fsum((float(v) - mean) ** 2 for v in vals) / (n - 1)) if n > 1 else ""
    return [mean, std, q[1] - q[0], hi - lo]


def write_topics(out: TextIO, rows: Iterable[tuple], runs: Sequence[str], fmt: str = "topics",
                 median: str = "mean", digits: int = 4, types: Sequence[str] | None = None,
                 quartiles: bool = False, clef: bool = False) -> None:
    """:func:`topic_table` as tab-separated lines (``topics``), CSV (``topics-csv``: the same header and cells,
    quoted where needed) or JSON lines (``topics-jsonl``: one object a row, its fixed columns (``qid, measure,
    [type,] runs, min, [q1,] median, [q3,] max[, mean, std, iqr, range]``; ``std`` null for one run) and ``values``
    ``{run: value}``, null for a run lacking the
    topic, only the runs of the row's type with ``types``: a run id cannot clash with a fixed key); floats in
    full precision, as the long tables; ``topics-text|markdown|latex``: :func:`format_topics`."""
    if fmt in TOPICS_TABLES:
        out.write(format_topics(rows, runs, fmt, digits, median, types, quartiles, clef))
        return
    table = topic_table(rows, runs, median, types, quartiles, clef)
    if fmt == "topics-jsonl":
        head = next(table)
        fixed = len(head) - len(runs)
        for r in table:
            obj = {k: (None if v == "" else v) for k, v in zip(head[:fixed], r[:fixed], strict=True)}
            kind = r[2] if types is not None else None
            obj["values"] = {k: (None if v == "" else v) for k, v, t in
                             zip(runs, r[fixed:], types if types is not None else runs, strict=True)
                             if types is None or t == kind}
            out.write(json_dumps(obj) + "\n")
    elif fmt == "topics-csv":
        w = csv.writer(out, lineterminator="\n")
        for r in table:
            w.writerow([_text(x) for x in r])
    else:
        for r in table:
            out.write("\t".join(_text(x) for x in r) + "\n")


TOPICS_TABLES = ("topics-text", "topics-markdown", "topics-latex")
"""The per-topic table for reading: aligned text, a GFM table, a LaTeX ``longtable`` (numbers at ``digits``)."""


def _topic_cell(v: object, digits: int, whole: bool) -> str:
    """A value of the readable per-topic table: a float at ``digits`` decimals, a count as an integer, the median
    of counts (``whole``) as an integer or, between two counts, in its shortest form (``12.5``); empty stays."""
    if isinstance(v, (str, int)):
        return str(v)
    f = float(v)  # type: ignore[arg-type]
    if whole:
        return str(int(f)) if f.is_integer() else repr(f)
    return f"{f:.{digits}f}"


def format_topics(rows: Iterable[tuple], runs: Sequence[str], fmt: str, digits: int = 4,
                  median: str = "mean", types: Sequence[str] | None = None, quartiles: bool = False,
                  clef: bool = False) -> str:
    """:func:`topic_table` for reading (``topics-text``: columns aligned as zelo_compare's text table,
    ``topics-markdown``: a GFM table, ``topics-latex``: a booktabs ``longtable``, which breaks across pages),
    values at ``digits`` decimals (counts as integers), a legend after it (LaTeX: the caption). Names are
    escaped for Markdown and LaTeX as zelo_compare's tables escape them."""
    from .markup import display_width, latex_escape, ljust_display, markdown_escape

    table = topic_table(rows, runs, median, types, quartiles, clef)
    header = next(table)
    first = header.index("runs") + 1  # min, [q1,] median, [q3,] max, [mean, std, iqr, range,] then the runs
    last = header.index("max")
    iqr = header.index("iqr") if clef else -1  # of counts: in the quartiles' form (12.5), as they are
    body = []
    for r in table:
        whole = all(isinstance(x, int) for x in (r[first], r[last]))  # min and max written as counts
        body.append([*map(str, r[:first]), *(_topic_cell(x, digits, whole and (first < k < last or k == iqr))
                                             for k, x in enumerate(r[first:], start=first))])
    how = "the larger of the two middle values (NIST's upper median)" if median == "upper" else \
        "the mean of the two middle values"
    over = "the runs of the row's type that have the topic" if types is not None else "the runs that have the topic"
    quart = (", quartiles q1 and q3 (numpy's linear interpolation)" if quartiles or clef else "")
    quart += (", mean, std (sample standard deviation, n - 1), iqr (q3 - q1), range (max - min)" if clef else "")
    legend = (f"Per topic and measure: min, median and max over {over} (runs: how many){quart}, then "
              f"each run's value; the median of an even number of runs is {how}"
              + ("; topic all: each run's summary value (the mean over the topics; a count such as num_rel_ret: the "
                 "sum)." if any(r[0] == "all" for r in body) else "."))
    nlab = first - 1  # qid, measure [, type]: left-aligned
    nnum = len(header) - nlab
    if fmt == "topics-markdown":
        out = ["| " + " | ".join(markdown_escape(h) for h in header) + " |",
               "|" + "|".join(["---"] * nlab + ["---:"] * nnum) + "|"]
        out += ["| " + " | ".join([*map(markdown_escape, r[:nlab]), *r[nlab:]]) + " |" for r in body]
        return "\n".join(out) + "\n\n" + markdown_escape(legend) + "\n"
    if fmt == "topics-latex":
        esc = latex_escape
        out = ["\\begin{longtable}{" + "l" * nlab + "r" * nnum + "}", "\\caption{" + esc(legend) + "}\\\\", "\\toprule",
               " & ".join(esc(h) for h in header) + " \\\\", "\\midrule", "\\endhead"]
        out += [" & ".join([*map(esc, r[:nlab]), *r[nlab:]]) + " \\\\" for r in body]
        out += ["\\bottomrule", "\\end{longtable}"]
        return "\n".join(out) + "\n"
    if fmt != "topics-text":
        raise ValueError(f"unknown per-topic table format {fmt!r}")
    widths = [max(map(display_width, [h, *(r[i] for r in body)])) for i, h in enumerate(header)]
    lines = ["  ".join(ljust_display(c, w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [header, *body]]
    return "\n".join(lines) + "\n\n" + legend + "\n"
