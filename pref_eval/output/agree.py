"""Writers for ``zelo_agree`` records: text, tsv, csv, jsonl, markdown, latex.

Every format carries the same columns, in this order (:data:`FIELDS`):
``judge_a, judge_b, level, statistic, value, ci_low, ci_high, n``.
``judge_b`` is empty for a statistic of ``judge_a`` alone (``all`` = every
judge together). A missing value or interval is empty in tsv/csv, ``null`` in
jsonl and ``-`` in text, markdown and latex. tsv, csv and jsonl write floats in
Python's shortest round-trip form (counts as integers); text, markdown and
latex round to ``digits`` decimals.
"""
from __future__ import annotations

import csv
import math
from typing import TextIO
from collections.abc import Iterable

from ..agree.records import FIELDS, Record
from .markup import display_width, latex_escape, ljust_display, markdown_escape
from .json_text import json_dumps

FORMATS = ("text", "tsv", "csv", "jsonl", "markdown", "latex")


def _exact(v) -> str:
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    return str(v)


def _rounded(v, digits: int) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "-"
        return f"{v:.{digits}f}"
    return str(v)


def _cells(r: Record, digits: int) -> list[str]:
    counts = r.statistic in COUNT_STATISTICS or r.statistic.startswith("flip:")
    value = str(int(r.value)) if counts and not math.isnan(r.value) else _rounded(r.value, digits)
    return [r.judge_a, r.judge_b, r.level, r.statistic, value, _rounded(r.ci_low, digits),
            _rounded(r.ci_high, digits), str(r.n)]


COUNT_STATISTICS = frozenset({"pairs", "votes", "matched", "only_in_a", "only_in_b", "queries", "topics", "systems",
                              "significant_a", "significant_b", "decision_changes"})


def _row(r: Record) -> tuple:
    """The record's fields; a count's value as an integer."""
    row = r.row()
    if (r.statistic in COUNT_STATISTICS or r.statistic.startswith("flip:")) and not math.isnan(r.value):
        row = row[:4] + (int(r.value),) + row[5:]
    return row


def _json_value(v):
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def write_records(out: TextIO, records: Iterable[Record], fmt: str = "text", digits: int = 4) -> None:
    """Write ``records`` to ``out`` in ``fmt`` (one of :data:`FORMATS`)."""
    records = list(records)
    if fmt == "tsv":
        out.write("\t".join(FIELDS) + "\n")
        for r in records:
            out.write("\t".join(_exact(x) for x in _row(r)) + "\n")
    elif fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(FIELDS)
        for r in records:
            w.writerow([_exact(x) for x in _row(r)])
    elif fmt == "jsonl":
        for r in records:
            out.write(json_dumps({k: _json_value(v) for k, v in zip(FIELDS, _row(r), strict=True)}) + "\n")
    elif fmt in ("text", "markdown", "latex"):
        rows = [_cells(r, digits) for r in records]
        if fmt == "text":
            widths = [max(map(display_width, [h, *(row[i] for row in rows)])) for i, h in enumerate(FIELDS)]
            for row in [list(FIELDS)] + rows:
                out.write("  ".join(ljust_display(c, w) for c, w in zip(row, widths, strict=True)).rstrip() + "\n")
        elif fmt == "markdown":
            out.write("| " + " | ".join(FIELDS) + " |\n")
            out.write("|" + "|".join("---" if i < 4 else "---:" for i in range(len(FIELDS))) + "|\n")
            for row in rows:
                out.write("| " + " | ".join(markdown_escape(c) for c in row) + " |\n")
        else:
            out.write("\\begin{tabular}{llll" + "r" * 4 + "}\n\\hline\n")
            out.write(" & ".join(latex_escape(h) for h in FIELDS) + " \\\\\n\\hline\n")
            for row in rows:
                out.write(" & ".join(latex_escape(c) for c in row) + " \\\\\n")
            out.write("\\hline\n\\end{tabular}\n")
    else:
        raise ValueError(f"unknown format {fmt!r}")
