"""Long-form tables: one row per (run, qid, measure) → TSV, CSV, JSON lines.

Columns ``run, qid, measure, value``; summary rows have qid ``all``. Floats
are written in Python's shortest round-trip form (``repr``) so nothing is lost
when a table is read back (``zelo_compare -P``); counts as integers; strings
(runid, relstring) as they are.
"""
from __future__ import annotations

import csv
import json
from typing import Any, TextIO
from collections.abc import Iterable, Iterator, Sequence

from ..engine import RunResult

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
        out.write(json.dumps(dict(zip(HEADER, r, strict=False))) + "\n")


WRITERS = {"tsv": write_tsv, "csv": write_csv, "jsonl": write_jsonl}


def topic_table(rows: Iterable[tuple], runs: Sequence[str], median: str = "mean") -> Iterator[list]:
    """``-o topics``: per topic and measure the min / median / max over the runs and each run's value.

    ``rows`` are :func:`long_rows` ``(run, qid, measure, value)``; ``runs`` the run ids in column order.
    Yields the header ``qid, measure, runs, min, median, max, RUN...`` and one row per (topic, measure):
    topics in byte order (``all``, the means, last), measures in the order first met; ``runs`` counts the
    runs holding the topic (a run without it has an empty cell and is not counted). The median of an even
    number of values is the mean of the two middle ones (``numpy.median``, pandas' ``median``), or with
    ``median="upper"`` the larger of them (``statistics.median_high``: the "upper median" of the per-topic
    medians NIST distributes to TREC participants, Ounis, Macdonald & Soboroff, Overview of the TREC 2008
    Blog Track). Text measures (``runid``, ``relstring``) are left out.
    """
    import numpy as np

    cells: dict[tuple[str, str], dict[str, Any]] = {}
    for run, qid, measure, value in rows:
        if isinstance(value, str):
            continue
        cells.setdefault((qid, measure), {})[run] = value
    measures = list(dict.fromkeys(m for _, m in cells))
    order = {m: k for k, m in enumerate(measures)}
    yield ["qid", "measure", "runs", "min", "median", "max", *runs]
    for qid, measure in sorted(cells, key=lambda c: (c[0] == "all", c[0].encode("utf-8", "surrogateescape"),
                                                     order[c[1]])):
        got = cells[(qid, measure)]
        vals = list(got.values())
        a = np.asarray(vals, dtype=float)
        lo, hi = min(vals), max(vals)  # as written (an integer count stays one)
        mid = float(np.median(a)) if median == "mean" else float(np.sort(a)[len(a) // 2])
        yield [qid, measure, len(vals), lo, mid, hi, *(got.get(r, "") for r in runs)]


def write_topics(out: TextIO, rows: Iterable[tuple], runs: Sequence[str], fmt: str = "topics",
                 median: str = "mean", digits: int = 4) -> None:
    """:func:`topic_table` as tab-separated lines (``topics``), CSV (``topics-csv``: the same header and cells,
    quoted where needed) or JSON lines (``topics-jsonl``: one object a row, ``qid, measure, runs, min, median,
    max`` and ``values`` ``{run: value}``, null for a run lacking the topic: a run id cannot clash with a fixed
    key); floats in full precision, as the long tables; ``topics-text|markdown|latex``: :func:`format_topics`."""
    if fmt in TOPICS_TABLES:
        out.write(format_topics(rows, runs, fmt, digits, median))
        return
    table = topic_table(rows, runs, median)
    if fmt == "topics-jsonl":
        head = next(table)
        for r in table:
            obj = dict(zip(head[:6], r[:6], strict=True))
            obj["values"] = {k: (None if v == "" else v) for k, v in zip(runs, r[6:], strict=True)}
            out.write(json.dumps(obj) + "\n")
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
                  median: str = "mean") -> str:
    """:func:`topic_table` for reading (``topics-text``: columns aligned as zelo_compare's text table,
    ``topics-markdown``: a GFM table, ``topics-latex``: a booktabs ``longtable``, which breaks across pages),
    values at ``digits`` decimals (counts as integers), a legend after it (LaTeX: the caption). Names are
    escaped for Markdown and LaTeX as zelo_compare's tables escape them."""
    from .markup import display_width, latex_escape, ljust_display, markdown_escape

    table = topic_table(rows, runs, median)
    header = next(table)
    body = []
    for r in table:
        whole = all(isinstance(x, int) for x in (r[3], r[5]))  # min and max written as counts
        body.append([r[0], r[1], str(r[2]), *(_topic_cell(x, digits, whole and k == 4) for k, x in
                                               enumerate(r[3:], start=3))])
    how = "the larger of the two middle values (NIST's upper median)" if median == "upper" else \
        "the mean of the two middle values"
    legend = (f"Per topic and measure: min, median and max over the runs that have the topic (runs: how many), then "
              f"each run's value; the median of an even number of runs is {how}"
              + ("; topic all: each run's summary value (the mean over the topics; a count such as num_rel_ret: the "
                 "sum)." if any(r[0] == "all" for r in body) else "."))
    nnum = len(header) - 2
    if fmt == "topics-markdown":
        out = ["| " + " | ".join(markdown_escape(h) for h in header) + " |",
               "|" + "|".join(["---", "---"] + ["---:"] * nnum) + "|"]
        out += ["| " + " | ".join([markdown_escape(r[0]), markdown_escape(r[1]), *r[2:]]) + " |" for r in body]
        return "\n".join(out) + "\n\n" + markdown_escape(legend) + "\n"
    if fmt == "topics-latex":
        esc = latex_escape
        out = ["\\begin{longtable}{ll" + "r" * nnum + "}", "\\caption{" + esc(legend) + "}\\\\", "\\toprule",
               " & ".join(esc(h) for h in header) + " \\\\", "\\midrule", "\\endhead"]
        out += [" & ".join([esc(r[0]), esc(r[1]), *r[2:]]) + " \\\\" for r in body]
        out += ["\\bottomrule", "\\end{longtable}"]
        return "\n".join(out) + "\n"
    if fmt != "topics-text":
        raise ValueError(f"unknown per-topic table format {fmt!r}")
    widths = [max(map(display_width, [h, *(r[i] for r in body)])) for i, h in enumerate(header)]
    lines = ["  ".join(ljust_display(c, w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [header, *body]]
    return "\n".join(lines) + "\n\n" + legend + "\n"
