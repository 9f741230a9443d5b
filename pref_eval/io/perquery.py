"""Reading per-query values written by ``zelo_eval -q`` (tsv, csv, jsonl).

Format (detected from the first non-blank line):

* JSON lines -- the line starts with ``{``; one object per line with the keys
  ``run``, ``qid``, ``measure``, ``value`` (other keys are ignored);
* TSV -- a header line holding the column names ``run qid measure value``
  separated by tabs (any order, extra columns ignored), then one row per
  (run, qid, measure);
* CSV -- the same with commas (RFC 4180 quoting).

``zelo_eval`` writes ``runi runj qid measure value`` instead when preference
measures are selected: a metric row has an empty ``runj``; a preference row
holds the per-query preference of ``runi`` over ``runj`` (a signed
difference). Both layouts are read; the result then has a ``run_b`` column
('' for metric rows) and ``run`` = ``runi``.

Rows whose qid is ``all`` (summary rows) are skipped. A bad line raises
:class:`~pref_eval.errors.InputError` naming the file and line.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
from typing import Any

from ..errors import InputError
from .textfile import display_name, read_input_bytes

COLUMNS = ("run", "qid", "measure", "value")


def _number(text: Any, name: str, line: int) -> float:
    if isinstance(text, bool) or text is None:
        raise InputError(name, line, f"expected a number in column 'value', got {text!r}")
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise InputError(name, line, f"expected a number in column 'value', got {text!r}") from None
    if math.isnan(v):
        raise InputError(name, line, "expected a number in column 'value', got NaN")
    return v


def read_per_query(path: "str | os.PathLike[str]"):
    """Return a pandas DataFrame with columns run, qid, measure, value
    (and run_b for the runi/runj layout).

    Per-query rows only, in file order; duplicate (run, qid, measure) rows are
    an error.
    """
    import pandas as pd

    name = display_name(path)
    data = read_input_bytes(path, what="per-query file (zelo_eval -q output)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(name, 0, f"not UTF-8 text ({err})") from None
    lines = text.splitlines()
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        raise InputError(name, 0, "empty file, expected per-query values (zelo_eval -q output)")
    head = lines[first].lstrip()
    rows: list[tuple[str, str, str, float, int, str]] = []
    pair = False
    if head.startswith("{"):
        for i in range(first, len(lines)):
            ln = lines[i].strip()
            if not ln:
                continue
            try:
                obj = json.loads(ln)
            except json.JSONDecodeError as err:
                raise InputError(name, i + 1, f"expected a JSON object ({err.msg})") from None
            if not isinstance(obj, dict):
                raise InputError(name, i + 1, "expected a JSON object with keys run, qid, measure, value")
            if "run" not in obj and "runi" in obj:
                pair = True
                obj = {**obj, "run": obj["runi"]}
            missing = [k for k in COLUMNS if k not in obj]
            if missing:
                raise InputError(name, i + 1, f"missing key(s) {', '.join(missing)}")
            qid = str(obj["qid"])
            if qid == "all":
                continue
            rows.append((str(obj["run"]), qid, str(obj["measure"]), _number(obj["value"], name, i + 1), i + 1,
                         str(obj.get("runj") or "")))
    else:
        delim = "\t" if "\t" in head else ","
        reader = csv.reader(io.StringIO("\n".join(lines[first:])), delimiter=delim)
        header = [h.strip() for h in next(reader)]
        if "run" not in header and "runi" in header and "runj" in header:
            pair = True
            header = ["run" if h == "runi" else h for h in header]
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise InputError(name, first + 1,
                             "expected a header line with columns run, qid, measure, value "
                             f"(missing {', '.join(missing)})")
        pos = [header.index(c) for c in COLUMNS]
        pos_b = header.index("runj") if "runj" in header else None
        width = max(pos) + 1
        for k, rec in enumerate(reader):
            line = first + 2 + k
            if not rec or all(not f.strip() for f in rec):
                continue
            if len(rec) < width:
                raise InputError(name, line, f"expected {len(header)} fields, got {len(rec)}")
            run, qid, measure, value = (rec[p].strip() for p in pos)
            if qid == "all":
                continue
            rows.append((run, qid, measure, _number(value, name, line), line,
                         rec[pos_b].strip() if pos_b is not None and pos_b < len(rec) else ""))
    if not rows:
        raise InputError(name, 0, "no per-query rows (only summary rows or nothing)")
    df = pd.DataFrame(rows, columns=[*COLUMNS, "line", "run_b"])
    dup = df.duplicated(["run", "run_b", "qid", "measure"], keep="first")
    if dup.any():
        j = int(dup.to_numpy().nonzero()[0][0])
        r = df.iloc[j]
        raise InputError(name, int(r.line),
                         f"duplicate row for run {r.run!r}, query {r.qid!r}, measure {r.measure!r}")
    df = df.drop(columns="line")
    return df if pair else df.drop(columns="run_b")
