"""Reading per-query values written by ``zelo_eval -q`` (tsv, csv, jsonl).

Format (detected from the first non-blank line):

* JSON lines -- the line starts with ``{``; one object per line with the keys
  ``run``, ``qid``, ``measure``, ``value`` (other keys are ignored);
* TSV -- a header line holding the column names ``run qid measure value``
  separated by tabs (any order, extra columns ignored), then one row per
  (run, qid, measure);
* CSV -- the same with commas (RFC 4180 quoting).

Without a ``run`` column (key), ``name`` is the run's: PyTerrier's
``pt.Experiment(..., perquery=True)`` table saved with ``to_csv`` /
``to_json(orient="records", lines=True)`` (``name, qid, measure, value``), as
:func:`pref_eval.compare` reads that DataFrame.

``zelo_eval`` writes ``runi runj qid measure value`` instead when preference
measures are selected: a metric row has an empty ``runj``; a preference row
holds the per-query preference of ``runi`` over ``runj`` (a signed
difference). Both layouts are read; the result then has a ``run_b`` column
('' for metric rows) and ``run`` = ``runi``.

pref_eval.py's JSON lines (``pref_eval.py -q``, ``zelo_eval -q -o pref``: a key per measure, ``"type":
"preference"`` lines with ``runi``/``runj``, ``"type": "metric"`` lines with ``run``) are read as the runi/runj
layout: the metrics from the metric lines, the preference measures from the preference lines.

Rows whose qid is ``all`` (summary rows) are skipped. A bad line raises
:class:`~pref_eval.errors.InputError` naming the file and line.

Ids are their bytes (session 27): a byte that is not UTF-8 (a Latin-1 topic or run tag of ``zelo_eval -q`` over
a Latin-1 collection; ``\\udcNN`` in JSON) is kept as its surrogate escape, in columns of dtype object, since
pandas' strings (pyarrow's) hold UTF-8 only (:func:`pref_eval.io.frames.frame`).
"""
from __future__ import annotations

from .textfile import json_reason, unique_keys

import csv
import itertools
import json
import math
import os
import re
from typing import TYPE_CHECKING, Any

from ..errors import InputError, shown
from .textfile import display_name, read_input_text

if TYPE_CHECKING:
    import pandas as pd

    from .coded import CodedTable

COLUMNS = ("run", "qid", "measure", "value")


def _number(text: Any, name: str, line: int) -> float:
    if isinstance(text, bool) or text is None or (isinstance(text, str) and (not text.isascii() or "_" in text)):
        # the decimal grammar of io/numbers.py: Python's float() would also take '1_0' and non-ASCII digits
        raise InputError(name, line, f"expected a number in column 'value', got {shown(text)}")
    try:
        v = float(text)
    except (TypeError, ValueError, OverflowError):
        raise InputError(name, line, f"expected a number in column 'value', got {shown(text)}") from None
    if not math.isfinite(v):
        raise InputError(name, line, f"expected a finite number in column 'value', got {shown(text)}")
    return v


def _fields(line: str, delim: str, name: str, no: int) -> list[str]:
    """The fields of one line: split on the delimiter, or RFC 4180 quoting (one line, strict)."""
    if '"' not in line:
        return line.split(delim)
    try:
        return next(csv.reader([line], delimiter=delim, strict=True))
    except (csv.Error, StopIteration) as err:
        raise InputError(name, no, f"bad quoting ({err}); expected {'CSV' if delim == ',' else 'TSV'} fields") from None


def _json_rows(lines: list[str], first: int, name: str, rows: list, summaries: set) -> bool:
    """Rows of a JSON-lines per-query file appended to ``rows``; True for the runi/runj layout."""
    pair = False
    samples: dict[str, int] = {}
    wide: list[int] = []  # (where the wide lines' rows are in ``rows``: file order, long and wide lines mixed)
    for i in range(first, len(lines)):
        ln = lines[i].strip()
        if not ln:
            continue
        try:
            obj = json.loads(ln, object_pairs_hook=unique_keys)
        except (json.JSONDecodeError, RecursionError) as err:
            raise InputError(name, i + 1, f"expected a JSON object ({json_reason(err)})") from None
        except ValueError as err:
            raise InputError(name, i + 1, str(err)) from None
        if not isinstance(obj, dict):
            raise InputError(name, i + 1, "expected a JSON object with keys run, qid, measure, value")
        if "measure" not in obj and "value" not in obj and (obj.get("type") in ("preference", "metric")
                                                          or ("runi" in obj and "runj" in obj)):
            start = len(rows)
            pair = _wide_rows(obj, name, i + 1, rows, summaries, samples) or pair
            wide.extend(range(start, len(rows)))
            continue
        if "run" not in obj and "runi" in obj:
            pair = True
            obj = {**obj, "run": obj["runi"]}
        elif "run" not in obj and "name" in obj:  # PyTerrier's pt.Experiment(..., perquery=True) saved
            obj = {**obj, "run": obj["name"]}
        missing = [k for k in COLUMNS if k not in obj]
        if missing:
            raise InputError(name, i + 1, f"missing key(s) {', '.join(missing)}")
        for k in ("run", "runj", "qid", "measure"):
            v = obj.get(k, "")
            if isinstance(v, bool) or not isinstance(v, (str, int)) or (k == "runj" and v is None):
                raise InputError(name, i + 1, f"expected a string for key {shown(k)}, got {shown(v)}")
        if "sample" in obj:
            _one_sample(samples, obj["sample"], name, i + 1)
        qid = str(obj["qid"])
        if qid == "all":
            _summary_row(summaries, (str(obj["run"]), str(obj.get("runj") or ""), str(obj["measure"])), name, i + 1)
            continue
        rows.append((str(obj["run"]), qid, str(obj["measure"]), _number(obj["value"], name, i + 1), i + 1,
                     str(obj.get("runj") or "")))
    metrics = {rows[j][2] for j in wide if not rows[j][5]}
    # a preference line also holds each metric's difference; the metric lines hold the values (as -o tsv)
    drop = {j for j in wide if rows[j][5] and rows[j][2] in metrics}
    if drop:
        rows[:] = [r for j, r in enumerate(rows) if j not in drop]
    return pair


_WIDE_KEYS = ("qid", "run", "runi", "runj", "sample", "type")


def _wide_rows(obj: dict, name: str, line: int, rows: list, summaries: set, samples: dict[str, int]) -> bool:
    """The rows of one line of pref_eval.py's / ``zelo_eval -o pref``'s JSON lines (a key per measure) appended
    to ``rows``; True for a preference line."""
    kind = obj.get("type")
    pair = kind == "preference" or (kind is None and "runi" in obj)
    keys = ("qid", "runi", "runj") if pair else ("qid", "run")
    for k in keys:
        v = obj.get(k)
        if isinstance(v, bool) or not isinstance(v, (str, int)):
            raise InputError(name, line, f"expected a string for key {shown(k)} in a "
                                         f"{'preference' if pair else 'metric'} "
                                         f"line of pref_eval.py's JSON lines, got {shown(v)}")
    if "sample" in obj:
        _one_sample(samples, obj["sample"], name, line)
    run, runj = (str(obj["runi"]), str(obj["runj"])) if pair else (str(obj["run"]), "")
    qid = str(obj["qid"])
    for measure, value in obj.items():
        if measure in _WIDE_KEYS:
            continue
        if qid == "all":
            _summary_row(summaries, (run, runj, measure), name, line)
        else:
            rows.append((run, qid, measure, _number(value, name, line), line, runj))
    return pair


def _one_sample(samples: dict[str, int], value: object, name: str, line: int) -> None:
    """A ``sample`` column (``zelo_eval --samples N -o tsv|csv|jsonl``): the rows of one sample only; the rows
    of several would be tested as one set of queries."""
    samples.setdefault(str(value), line)
    if len(samples) > 1:
        raise InputError(name, line, f"rows of more than one sample (column 'sample': {', '.join(samples)}; "
                         "zelo_eval --samples N): compare one sample at a time, e.g. the rows of sample 0")


def _summary_row(seen: set[tuple[str, str, str]], key: tuple[str, str, str], name: str, line: int) -> None:
    """A summary row ``all`` (left out): a second one for the same run(s) and measure is a topic named ``all``,
    which would be left out silently with it."""
    if key in seen:
        raise InputError(name, line, f"a second row 'all' for run {shown(key[0])}, measure {shown(key[2])} "
                                     "(a topic named "
                                     "'all' besides the summary row?); rows 'all' are summaries and left out: "
                                     "rename the topic")
    seen.add(key)


def _trec_eval_hint(head: str) -> str:
    """What to do when the first line is trec_eval's ``measure qid value`` (``trec_eval -q`` output kept from
    earlier work): it holds one run without its name, so the per-query table comes from ``zelo_eval``; or the
    header of ``zelo_eval -o topics|topics-csv`` (the per-topic table, not per-query rows)."""
    f = head.split()
    if head.replace(",", "\t").split()[:6] == ["qid", "measure", "runs", "min", "median", "max"]:
        return ("; this is zelo_eval's per-topic table (-o topics: a column per run): write the per-query table "
                "with `zelo_eval -R QRELS -q -o tsv ...`")
    if len(f) != 3:
        return ""
    try:
        if f[0] != "runid":
            float(f[2])
    except ValueError:
        return ""
    return ("; this looks like trec_eval output (measure, qid, value of one run): write the table with "
            "`zelo_eval -R QRELS -q -o tsv -m MEASURE RUN... > pq.tsv`, or test the runs at once with "
            "`zelo_compare -R QRELS -m MEASURE RUN...`")


# the ASCII characters str.strip strips (str.isspace, re's \s): a field holding none needs no strip
_ASCII_SPACE = " \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"


def _delimited_columns(body: list[str], line0: int, delim: str, width: int, pos: list[int], pos_b: int | None,
                       pos_s: int | None) -> dict[str, Any] | None:
    """The columns of a TSV/CSV per-query file's rows (``body``: the lines after the header, the first being
    line ``line0``) read at once -- one split of the whole text, one ``float`` map of the values, no Python
    loop per line --, or None when some line needs the per-line reader, which then names it: quoting, a field
    count unlike the header's, a value that is not a finite number in the decimal grammar, rows of several
    samples, a second summary row ``all`` for a run and measure, or no per-query row at all."""
    import numpy as np

    # blank lines (empty or white space only: what str.strip empties) are skipped
    keep = (np.fromiter(map(len, body), np.intp, len(body)) > 0) & ~np.fromiter(map(str.isspace, body), bool,
                                                                              len(body))
    rows = body if keep.all() else list(itertools.compress(body, keep.tolist()))
    if not rows:
        return None
    text = delim.join(rows)
    if '"' in text or not (np.fromiter(map(str.count, rows, itertools.repeat(delim)), np.intp, len(rows))
                           == width - 1).all():
        return None
    fields = text.split(delim)
    # a field is stripped of white space (str.strip's, which re's \s matches) -- none to strip in the common case
    if text.isascii():  # (a search per character, not the regex's scan of every one: session 29)
        padded = any(c in text for c in _ASCII_SPACE if c != delim)
    else:
        padded = re.search(r"[^\S\t]" if delim == "\t" else r"\s", text) is not None

    def column(p: int) -> list[str]:
        return list(map(str.strip, fields[p::width])) if padded else fields[p::width]

    run, qid, measure, value = (column(p) for p in pos)
    run_b = column(pos_b) if pos_b is not None else None  # (None: no runj column, every row's '')
    if pos_s is not None and len(dict.fromkeys(column(pos_s))) > 1:
        return None
    line = np.flatnonzero(keep) + line0
    if qid.count("all"):  # (a count of the column, no array of a comparison per row unless there is one)
        summary = np.fromiter(map("all".__eq__, qid), bool, len(qid))
        where = np.flatnonzero(summary).tolist()  # (the summary rows only: a few per run and measure)
        if len({(run[i], run_b[i] if run_b is not None else "", measure[i]) for i in where}) < len(where):
            return None
        kept = (~summary).tolist()
        run, qid, measure, value = (list(itertools.compress(c, kept)) for c in (run, qid, measure, value))
        run_b = list(itertools.compress(run_b, kept)) if run_b is not None else None
        line = line[~summary]
    joined = "".join(value)
    if not value or not joined.isascii() or "_" in joined:  # (io/numbers.py's decimal grammar, as _number)
        return None
    try:
        x = np.fromiter(map(float, value), float, len(value))
    except ValueError:
        return None
    if not np.isfinite(x).all():
        return None
    return {"run": run, "qid": qid, "measure": measure, "value": x, "line": line, "run_b": run_b}


def _scanned_columns(text: str, first: int, delim: str, width: int, pos: list[int], pos_b: int | None,
                     pos_s: int | None) -> dict[str, Any] | None:
    """:func:`_delimited_columns`' rows read by the C scanner (``pref_eval._jsonl.scan_delimited``: codes into
    one string table, the values converted as ``float`` does, no Python object per row) as the JSON readers'
    columns (:func:`_coded_codes`), or None: no scanner, a text that is not ASCII, or a line the scanner leaves
    to the Python readers (quoting, white space other than the delimiter and line ends, a field count unlike
    the header's, a value that is not a plain decimal number or not finite, rows of several samples), a second
    summary row ``all`` for a run and measure, or no per-query row."""
    from .jsonl_scan import scanner_available

    if not scanner_available() or not text.isascii():
        return None
    import numpy as np

    from .. import _jsonl

    ids = [*pos[:3], *([pos_b] if pos_b is not None else [])]  # run, qid, measure (, runj)
    scanned = _jsonl.scan_delimited(text.encode("ascii"), first + 1, delim.encode("ascii"), width, tuple(ids),
                                    pos[3], -1 if pos_s is None else pos_s)
    if scanned is None:
        return None
    strings, codes, values, lines = scanned
    code = np.frombuffer(codes, np.int32).reshape(-1, len(ids))
    value, line = np.frombuffer(values, np.float64), np.frombuffer(lines, np.int64)
    table = [*strings, ""]  # (no runj column: every row's '', the code len(strings))
    run_b = code[:, 3] if pos_b is not None else np.full(len(value), len(strings), np.int32)
    summary = code[:, 1] == strings.index("all") if "all" in strings else None
    if summary is not None and summary.any():
        where = np.flatnonzero(summary).tolist()  # (the summary rows only: a few per run and measure)
        cells = {(table[code[i, 0]], table[run_b[i]], table[code[i, 2]]) for i in where}
        if len(cells) < len(where):
            return None
        keep = ~summary
        code, run_b, value, line = code[keep], run_b[keep], value[keep], line[keep]
    if not value.size:
        return None
    cols: dict[str, Any] = {"run": code[:, 0], "qid": code[:, 1], "measure": code[:, 2], "run_b": run_b}
    cols = {k: v.astype(np.int64) for k, v in cols.items()}
    cols["value"], cols["line"], cols["strings"], cols["measure_names"] = value, line, table, table
    return cols


def _json_columns(text: str) -> tuple[dict[str, Any], bool] | None:
    """The columns of a JSON-lines per-query file in the long layout (``run``/``runi``/``name``, ``qid``,
    ``measure``, ``value`` keys) read at once by the C scanner (pref_eval/_jsonl.c: the lines grouped by their
    keys) and whether it is the runi/runj layout, or None when some line needs the per-line reader (which names
    it): no scanner, a line it does not take (escapes, nested values, true/false/null, NaN), duplicate keys, ids
    or a sample that are not strings, a value that is not a finite number, rows of several samples, a second
    summary row ``all``, no per-query row. pref_eval.py's wide lines: :mod:`pref_eval.io.perquery_wide`."""
    import numpy as np

    from .jsonl_scan import scan_columns
    from .perquery_wide import is_wide, wide_columns

    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # (a lone surrogate: the per-line reader)
        return None
    scanned = scan_columns(data)
    if scanned is None:
        return None
    strings, shapes = scanned
    wide = [is_wide(shape.keys) for shape in shapes]
    if any(wide):  # pref_eval.py's JSON lines (the per-line reader when long lines are mixed in)
        return wide_columns(strings, shapes) if all(wide) else None
    parts: dict[str, list] = {k: [] for k in ("line", "run", "run_b", "qid", "measure", "value", "sample")}
    pair = False
    for shape in shapes:
        keys = shape.keys
        run_key = next((k for k in ("run", "runi", "name") if k in keys), None)
        if (len(set(keys)) < len(keys) or "type" in keys or run_key is None
                or any(k not in keys for k in ("qid", "measure", "value"))):
            return None
        ids = [run_key, "qid", "measure", *(["runj"] if "runj" in keys else []),
               *(["sample"] if "sample" in keys else [])]
        if any(shape.cols[k].kind != "s" for k in ids) or shape.cols["value"].kind != "n":
            return None
        pair = pair or run_key == "runi"
        n = len(shape.lines)
        parts["line"].append(shape.lines + 1)
        parts["run"].append(shape.values(run_key))
        parts["run_b"].append(shape.values("runj") if "runj" in keys else np.full(n, -1, np.int32))
        parts["qid"].append(shape.values("qid"))
        parts["measure"].append(shape.values("measure"))
        parts["value"].append(shape.values("value"))
        parts["sample"].append(shape.values("sample") if "sample" in keys else np.full(n, -1, np.int32))
    if not shapes:
        return None
    laid = {k: np.concatenate(v) for k, v in parts.items()}
    order = np.argsort(laid["line"], kind="stable")  # (file order across the shapes)
    laid = {k: v[order] for k, v in laid.items()}
    table = [*strings, ""]  # (code -1: no runj, read as '', as the per-line reader's obj.get("runj") or "")
    if len({table[c] for c in set(laid["sample"][laid["sample"] >= 0].tolist())}) > 1:
        return None
    is_all = np.fromiter(map("all".__eq__, table), bool, len(table))
    summary = is_all[laid["qid"]]
    if summary.any():
        where = np.flatnonzero(summary).tolist()  # (the summary rows only: a few per run and measure)
        cells = {(table[laid["run"][i]], table[laid["run_b"][i]], table[laid["measure"][i]]) for i in where}
        if len(cells) < len(where):
            return None
        laid = {k: v[~summary] for k, v in laid.items()}
    if not laid["value"].size or not np.isfinite(laid["value"]).all():
        return None
    if "" in strings:  # (runj '' given: the code of the blank of the lines without runj)
        laid["run_b"][laid["run_b"] < 0] = strings.index("")
        table = strings
    cols: dict[str, Any] = {k: laid[k].astype(np.int64) % len(table) for k in ("run", "run_b", "qid", "measure")}
    cols["value"], cols["line"], cols["strings"], cols["measure_names"] = laid["value"], laid["line"], table, table
    return cols, pair


def _coded(cols: dict[str, Any], name: str, pair: bool) -> CodedTable:
    """The :class:`~pref_eval.io.coded.CodedTable` of :func:`_delimited_columns`' columns (lists of strings;
    ``run_b`` None: no runj column), a duplicate (run, run_b, qid, measure) refused naming its line (the first in
    file order that repeats an earlier row, as ``DataFrame.duplicated``). The JSON readers give codes into
    their string table: :func:`_coded_codes`."""
    import numpy as np

    n = len(cols["value"])
    distincts, codes = {}, {}
    for c in ("run", "run_b", "qid", "measure"):
        if cols[c] is None:
            distincts[c], codes[c] = [""], np.zeros(n, np.int64)
            continue
        distinct = list(dict.fromkeys(cols[c]))
        index = dict(zip(distinct, range(len(distinct)), strict=True))
        distincts[c], codes[c] = distinct, np.fromiter(map(index.__getitem__, cols[c]), np.int64, n)
    return _checked(distincts, codes, np.asarray(cols["value"], dtype=float), cols["line"], name, pair)


def _coded_codes(cols: dict[str, Any], name: str, pair: bool) -> CodedTable:
    """:func:`_coded` of the JSON readers' columns: codes (>= 0) into ``cols["strings"]`` (``measure``: into
    ``cols["measure_names"]``), no row decoded (session 29)."""
    import numpy as np

    from .coded import first_order

    distincts, codes = {}, {}
    for c in ("run", "run_b", "qid", "measure"):
        strings, code = cols["measure_names" if c == "measure" else "strings"], cols[c]
        if len(set(strings)) < len(strings):  # (a string twice in the table: its codes made one)
            once = dict(zip(dict.fromkeys(strings), itertools.count()))
            code = np.fromiter(map(once.__getitem__, strings), np.int64, len(strings))[code]
            strings = list(once)
        distincts[c], codes[c] = first_order(strings, code)
    return _checked(distincts, codes, cols["value"], cols["line"], name, pair)


def _checked(distincts: dict[str, list[str]], codes: dict[str, Any], value: Any, line: Any, name: str,
             pair: bool) -> CodedTable:
    """The CodedTable, a duplicate (run, run_b, qid, measure) refused naming its line."""
    from .coded import CodedTable, first_repeat
    from .frames import holds_bytes

    ids = ("run", "run_b", "qid", "measure")
    j = first_repeat([codes[c] for c in ids], [len(distincts[c]) for c in ids])
    if j is not None:
        run, qid, measure = (distincts[c][int(codes[c][j])] for c in ("run", "qid", "measure"))
        raise InputError(name, int(line[j]), f"duplicate row for run {shown(run)}, query {shown(qid)}, measure "
                                             f"{shown(measure)}")
    kept = holds_bytes("".join(distincts[c]) for c in ("run", "qid", "measure", "run_b"))  # an id that was not
    return CodedTable({c: distincts[c] for c in ("run", "qid", "measure", "run_b")}, codes, value, pair,  # UTF-8
                      object_ids=kept)


def _delimited_rows(lines: list[str], first: int, delim: str, width: int, pos: list[int], pos_b: int | None,
                    pos_s: int | None, name: str, rows: list, summaries: set) -> None:
    """The per-line reader of a TSV/CSV per-query file: its rows appended to ``rows``, the first bad line
    named."""
    samples: dict[str, int] = {}
    least = max(pos) + 1
    for k in range(first + 1, len(lines)):
        line = k + 1
        if not lines[k].strip():
            continue
        rec = _fields(lines[k], delim, name, line)
        if len(rec) != width or len(rec) < least:
            raise InputError(name, line, f"expected {width} fields as in the header, got {len(rec)}")
        run, qid, measure, value = (rec[p].strip() for p in pos)
        if pos_s is not None:
            _one_sample(samples, rec[pos_s].strip(), name, line)
        if qid == "all":
            runj = rec[pos_b].strip() if pos_b is not None and pos_b < len(rec) else ""
            _summary_row(summaries, (run, runj, measure), name, line)
            continue
        rows.append((run, qid, measure, _number(value, name, line), line,
                     rec[pos_b].strip() if pos_b is not None and pos_b < len(rec) else ""))


def _lines(text: str) -> list[str]:
    """The lines of the text: one CR before each LF dropped, and the last line's."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[-1].endswith("\r"):
        lines[-1] = lines[-1][:-1]
    return lines


def _first_line(text: str) -> tuple[int, str] | None:
    """The index and text of the first line that is not blank in :func:`_lines` of the text, found without
    splitting all of it (a reader taking the rest at once needs no list of its lines); None: all blank."""
    start = 0
    for i in itertools.count():
        stop = text.find("\n", start)
        line = text[start:] if stop < 0 else text[start:stop]
        if line.endswith("\r"):  # (the CR of a CR LF, or of the last line)
            line = line[:-1]
        if line.strip():
            return i, line
        if stop < 0:
            return None
        start = stop + 1
    return None  # (unreachable: itertools.count is endless)


def read_per_query(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Return a pandas DataFrame with columns run, qid, measure, value
    (and run_b for the runi/runj layout).

    Per-query rows only, in file order; duplicate (run, qid, measure) rows are
    an error.
    """
    return read_per_query_table(path).frame()


def read_per_query_table(path: str | os.PathLike[str]) -> CodedTable:
    """The rows of :func:`read_per_query` as a :class:`~pref_eval.io.coded.CodedTable` (no pandas:
    ``zelo_compare -P`` tests the codes), whether the file is read at once or (quoting, escapes, ids that are
    numbers, ...) line by line."""
    name = display_name(path)
    text = read_input_text(path, what="per-query file (zelo_eval -q output)", any_bytes=True)
    found = _first_line(text)
    if found is None:
        raise InputError(name, 0, "empty file, expected per-query values (zelo_eval -q output)")
    first, top = found
    head = top.lstrip()
    rows: list[tuple[str, str, str, float, int, str]] = []
    summaries: set[tuple[str, str, str]] = set()
    pair = False
    if head.startswith("{"):
        fast_json = _json_columns(text)
        if fast_json is not None:
            return _coded_codes(fast_json[0], name, fast_json[1])
        pair = _json_rows(_lines(text), first, name, rows, summaries)
    else:
        delim = "\t" if "\t" in head else ","
        header = [h.strip() for h in _fields(top, delim, name, first + 1)]
        if "run" not in header and "runi" in header and "runj" in header:
            pair = True
            header = ["run" if h == "runi" else h for h in header]
        elif "run" not in header and "name" in header:  # PyTerrier's pt.Experiment(..., perquery=True) saved
            header = ["run" if h == "name" else h for h in header]
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise InputError(name, first + 1,
                             "expected a header line with columns run, qid, measure, value "
                             f"(missing {', '.join(missing)})" + _trec_eval_hint(head))
        pos = [header.index(c) for c in COLUMNS]
        pos_b = header.index("runj") if "runj" in header else None
        pos_s = header.index("sample") if "sample" in header else None
        scanned = _scanned_columns(text, first, delim, len(header), pos, pos_b, pos_s)
        if scanned is not None:
            return _coded_codes(scanned, name, pair)
        lines = _lines(text)
        fast = _delimited_columns(lines[first + 1:], first + 2, delim, len(header), pos, pos_b, pos_s)
        if fast is not None:
            return _coded(fast, name, pair)
        _delimited_rows(lines, first, delim, len(header), pos, pos_b, pos_s, name, rows, summaries)
    if not rows:
        raise InputError(name, 0, "no per-query rows (only summary rows or nothing)")
    import numpy as np

    # the per-line readers' rows as codes too (session 30: was a DataFrame and pandas' duplicated), the
    # duplicate check over run, run_b, qid, measure as before (a runj key beside run counts, then is dropped)
    run, qid, measure, value, line, run_b = map(list, zip(*rows, strict=True))
    return _coded({"run": run, "qid": qid, "measure": measure, "value": value, "line": np.array(line, np.int64),
                   "run_b": run_b}, name, pair)
