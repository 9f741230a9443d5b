"""pref_eval.py's JSON lines (a key per measure: ``pref_eval.py -q``, ``zelo_eval -q -o pref``) read at once from
the C scanner's shapes (session 27): the rows :func:`pref_eval.io.perquery._wide_rows` gives line by line, in its
order (file order, then the line's keys), or None when some line needs that reader (which then names it).

A line is wide when it has neither ``measure`` nor ``value`` and its ``type`` is ``preference`` or ``metric``
(or it has no ``type`` and both ``runi`` and ``runj``: a preference line). Its ids (``qid``, ``runi``/``runj``
or ``run``) must be strings, its ``sample`` one value for the whole file (an integer, or a string), every other
key a finite number (a summary line ``qid: all`` is left out, and is the per-line reader's when its values are
not numbers). The preference lines' differences of a measure the metric lines hold are left out, as the
per-line reader leaves them out.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .jsonl_scan import ShapeLines

WIDE_KEYS = ("qid", "run", "runi", "runj", "sample", "type")
"""The keys of a wide line that are not measures (perquery's ``_WIDE_KEYS``)."""


def is_wide(keys: tuple) -> bool:
    """A shape of wide lines (``type`` checked per line by :func:`wide_columns`)."""
    if "measure" in keys or "value" in keys:
        return False
    return "type" in keys or ("runi" in keys and "runj" in keys)


def _samples(table: list[str], shapes: list[ShapeLines]) -> bool:
    """True when every line's ``sample`` (if any) has one text as ``str`` gives it: strings, or integer
    literals (exact below 2^53); a float sample or several values: False (the per-line reader)."""
    seen: set[str] = set()
    for shape in shapes:
        if "sample" not in shape.keys:
            continue
        col, values = shape.cols["sample"], shape.values("sample")
        if col.kind == "s":
            seen |= {table[c] for c in set(values.tolist())}
        elif col.integers and np.all(np.abs(values) < 2.0 ** 53):
            seen |= {str(int(v)) for v in set(values.tolist())}
        else:
            return False
        if len(seen) > 1:
            return False
    return True


def wide_columns(table: list[str], shapes: list[ShapeLines]) -> tuple[dict[str, Any], bool] | None:
    """The columns of a file whose every shape :func:`is_wide` -- ``run``, ``run_b``, ``qid`` as codes into
    ``strings`` (each string once), ``measure`` as codes into ``measure_names``, ``value``, ``line`` 1-based --,
    and whether some line is a preference line; None for the per-line reader."""
    if not _samples(table, shapes):
        return None
    codes = dict(zip(table, range(len(table)), strict=True))  # (C-level: the table holds every distinct string)
    blank = codes.get("", len(table))  # (code of '': the runj of a metric line, as of a preference line's '')
    strings = [*table, ""]
    measure_names: list[str] = []
    # per line: its number, ids, measures (their count and the first's index in measure_names) and the offset of
    # its values among all the shapes' values; the rows (a line's measures) are laid out once, in the final order
    per_line: dict[str, list[np.ndarray]] = {k: [] for k in ("line", "run", "run_b", "qid", "count", "first", "at")}
    values: list[np.ndarray] = []
    at = 0
    pair_seen = False
    for shape in shapes:
        keys, n = shape.keys, len(shape.lines)
        if len(set(keys)) < len(keys):
            return None
        if "type" in keys:
            if shape.cols["type"].kind != "s":
                return None
            kind = shape.values("type")
            pref = kind == codes.get("preference", -1)
            if not (pref | (kind == codes.get("metric", -1))).all():
                return None
        else:
            pref = np.ones(n, bool)
        need = ["qid", *(["runi", "runj"] if pref.any() else []), *(["run"] if not pref.all() else [])]
        if any(k not in keys or shape.cols[k].kind != "s" for k in need):
            return None
        measures = [k for k in keys if k not in WIDE_KEYS]
        if any(shape.cols[k].kind != "n" for k in measures):
            return None
        pair_seen = pair_seen or bool(pref.any())
        run = shape.values("runi") if pref.all() else (
            shape.values("run") if not pref.any() else np.where(pref, shape.values("runi"), shape.values("run")))
        run_b = np.where(pref, shape.values("runj"), blank) if pref.any() else np.full(n, blank, np.int32)
        m = len(measures)
        per_line["line"].append(shape.lines + 1)
        per_line["run"].append(run)
        per_line["run_b"].append(run_b)
        per_line["qid"].append(shape.values("qid"))
        per_line["count"].append(np.full(n, m, np.int64))
        per_line["first"].append(np.full(n, len(measure_names), np.int64))
        per_line["at"].append(at + m * np.arange(n, dtype=np.int64))
        measure_names += measures
        if m:
            values.append(np.stack([shape.values(k) for k in measures], axis=1).reshape(-1))
        at += m * n
    lines = {k: np.concatenate(v) for k, v in per_line.items()}
    apart = lines["line"].size > 1 and not (lines["line"][1:] > lines["line"][:-1]).all()  # shapes interleaved
    if apart:  # file order (a line is in one shape: no ties), per line: no sort of the rows
        order = np.argsort(lines["line"], kind="stable")
        lines = {k: v[order] for k, v in lines.items()}
    count = lines["count"]
    total = int(count.sum())
    # each row's place among its line's measures (the line's keys in order)
    place = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    laid = {k: np.repeat(lines[k], count) for k in ("line", "run", "run_b", "qid")}
    laid["measure"] = np.repeat(lines["first"], count) + place
    flat = np.concatenate(values) if values else np.zeros(0)
    laid["value"] = flat[np.repeat(lines["at"], count) + place] if apart else flat  # (else in order already)
    summary = laid["qid"] == codes.get("all", -1)
    if summary.any():
        where = np.flatnonzero(summary).tolist()  # (the summary rows only: a few per run and measure)
        cells = {(int(laid["run"][i]), int(laid["run_b"][i]), measure_names[laid["measure"][i]]) for i in where}
        if len(cells) < len(where):
            return None
        laid = {k: v[~summary] for k, v in laid.items()}
    if not laid["value"].size or not np.isfinite(laid["value"]).all():
        return None
    names = np.array(measure_names, dtype=object)
    metric = laid["run_b"] == blank
    held = set(names[laid["measure"][metric]].tolist())  # measures the metric lines hold
    if held:
        is_held = np.fromiter(map(held.__contains__, measure_names), bool, len(measure_names))
        keep = metric | ~is_held[laid["measure"]]
        laid = {k: v[keep] for k, v in laid.items()}
    # codes, not strings (session 29: the reader decoded every row and coded it again): ids into ``strings``, the
    # measures into their names (a name the keys of several line shapes hold, once)
    distinct = list(dict.fromkeys(measure_names))
    to_distinct = np.array([distinct.index(m) for m in measure_names], dtype=np.int64)
    cols: dict[str, Any] = {k: laid[k].astype(np.int64) for k in ("run", "run_b", "qid")}
    cols["measure"] = to_distinct[laid["measure"]] if len(laid["measure"]) else laid["measure"].astype(np.int64)
    cols["value"], cols["line"], cols["strings"], cols["measure_names"] = laid["value"], laid["line"], strings, distinct
    return cols, pair_seen
